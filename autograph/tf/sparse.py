"""`tf.sparse`: sparse tensors, the coordinates and values of their stored elements
(runtime.composite.sparse implements them)."""

from runtime.composite.sparse import (
    SparseTensor,
    add,
    from_dense,
    reduce_sum,
    sparse_dense_matmul,
    to_dense,
)
