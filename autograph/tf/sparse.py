"""`tf.sparse`: sparse tensors, the coordinates and values of their stored elements
(runtime.composite.sparse implements them, sparse_layout and sparse_math the functions)."""

from runtime.composite.sparse import (
    SparseTensor,
    add,
    eye,
    from_dense,
    sparse_dense_matmul,
    to_dense,
)
from runtime.composite.sparse_layout import (
    concat,
    cross,
    expand_dims,
    fill_empty_rows,
    reorder,
    reset_shape,
    reshape,
    retain,
    slice,
    split,
    to_indicator,
    transpose,
)
from runtime.composite.sparse_math import (
    bincount,
    map_values,
    maximum,
    minimum,
    reduce_max,
    reduce_sum,
    segment_mean,
    segment_sqrt_n,
    segment_sum,
    softmax,
)
