"""map_fn, scan, foldl/foldr and vectorized_map over a RaggedTensor: each step gets one row
(a dense tensor), as TensorFlow's do; never the ragged tensor's component tensors."""

import numpy as np
import pytest

from runtime import dtypes
from runtime.composite import ragged
from runtime.composite.sparse import SparseTensor
from runtime.function import function
from runtime.functional.maps import foldl, map_fn, scan, vectorized_map
from runtime.ops import array_ops, math_ops, reduction_ops

ROWS = [[1, 2], [], [3, 4, 5]]


def rows():
    return ragged.constant(ROWS)


def test_map_fn_gives_each_row_eagerly():
    out = map_fn(reduction_ops.reduce_sum, rows(), fn_output_signature=dtypes.int32)
    np.testing.assert_array_equal(out.numpy(), [3, 0, 12])


def test_map_fn_gives_each_row_inside_a_function():
    @function
    def row_sums(r):
        return map_fn(lambda row: reduction_ops.reduce_sum(row) * 2, r,
                      fn_output_signature=dtypes.int32)
    np.testing.assert_array_equal(row_sums(rows()).numpy(), [6, 0, 24])


def test_rows_and_splits_of_equal_length_are_not_mistaken_for_rows():
    # 3 values and 3 row splits: mapping over the components would also "work"
    out = map_fn(array_ops.size, ragged.constant([[1, 2], [3]]),
                 fn_output_signature=dtypes.int32)
    np.testing.assert_array_equal(out.numpy(), [2, 1])


def test_ragged_and_dense_elems_together():
    out = map_fn(lambda pair: reduction_ops.reduce_sum(pair[0]) + pair[1],
                 (rows(), array_ops.constant([10, 20, 30])), fn_output_signature=dtypes.int32)
    np.testing.assert_array_equal(out.numpy(), [13, 20, 42])


def test_scan_and_foldl_over_rows():
    @function
    def counts(r):
        return scan(lambda acc, row: acc + array_ops.size(row), r,
                    initializer=array_ops.constant(0))
    np.testing.assert_array_equal(counts(rows()).numpy(), [2, 2, 5])
    total = foldl(lambda acc, row: acc + reduction_ops.reduce_sum(row), rows(),
                  initializer=array_ops.constant(0))
    assert int(total.numpy()) == 15


def test_vectorized_map_eagerly_over_rows():
    out = vectorized_map(lambda row: math_ops.cast(array_ops.size(row), dtypes.float32),
                         rows())
    np.testing.assert_array_equal(out.numpy(), [2.0, 0.0, 3.0])


@pytest.mark.parametrize("call, needed", [
    (lambda: map_fn(lambda row: row, rows()), "fn_output_signature"),
    (lambda: foldl(lambda acc, row: acc, rows()), "an initializer"),
    (lambda: scan(lambda acc, row: acc, rows()), "an initializer"),
])
def test_a_signature_taken_from_ragged_elems_is_refused(call, needed):
    with pytest.raises(TypeError, match="over a RaggedTensor needs %s" % needed):
        call()


def test_sparse_elems_are_refused():
    sparse = SparseTensor([[0, 0]], [1.0], [2, 2])
    with pytest.raises(TypeError, match="map_fn: elems may not hold a SparseTensor"):
        map_fn(lambda row: row, sparse, fn_output_signature=dtypes.float32)
