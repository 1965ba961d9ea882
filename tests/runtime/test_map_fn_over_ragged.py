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
    (lambda: foldl(lambda acc, row: acc, rows()), "an initializer"),
    (lambda: scan(lambda acc, row: acc, rows()), "an initializer"),
])
def test_a_signature_taken_from_ragged_elems_is_refused(call, needed):
    with pytest.raises(TypeError, match="over a RaggedTensor needs %s" % needed):
        call()


def test_map_fn_without_a_signature_gives_a_ragged_tensor_of_the_rows_eagerly():
    out = map_fn(math_ops.square, rows())
    assert isinstance(out, ragged.RaggedTensor)
    assert out.to_list() == [[1, 4], [], [9, 16, 25]]


def test_map_fn_without_a_signature_gives_a_ragged_tensor_inside_a_function():
    @function
    def doubled_rows(r, offsets):
        return map_fn(lambda pair: (pair[0] * 2, pair[1] + 1), (r, offsets))

    out, shifted = doubled_rows(rows(), array_ops.constant([10, 20, 30]))
    assert out.to_list() == [[2, 4], [], [6, 8, 10]]
    np.testing.assert_array_equal(shifted.numpy(), [11, 21, 31])


@pytest.mark.parametrize("fn, error, message", [
    (reduction_ops.reduce_sum, ValueError, "fn returned a scalar where a row"),
    (lambda row: math_ops.cast(row, dtypes.float32), TypeError,
     "fn returned a float32 tensor where elems says int32"),
])
def test_map_fn_without_a_signature_refuses_results_that_are_not_rows_of_elems_dtype(
        fn, error, message):
    with pytest.raises(error, match=message):
        map_fn(fn, rows())


def test_map_fn_without_a_signature_over_rows_that_are_ragged_is_refused():
    with pytest.raises(TypeError, match="ragged rank above 1 needs fn_output_signature"):
        map_fn(lambda row: row, ragged.constant([[[1], [2, 3]], []]))


def test_sparse_elems_are_refused():
    sparse = SparseTensor([[0, 0]], [1.0], [2, 2])
    with pytest.raises(TypeError, match="map_fn: elems may not hold a SparseTensor"):
        map_fn(lambda row: row, sparse, fn_output_signature=dtypes.float32)
