"""numba rules for the segment reductions (runtime/ops/segment_ops.py): rows combined in
np.<ufunc>.at's order give the numpy executor's values bit for bit, for every reduction,
sorted and unsorted, real and complex; bad ids fail with the kernel's error, naming the op
and this file."""

import numpy as np
import pytest
from numba_compare import executor_and_numba, same_failure

import autograph.tf as tf

numba = pytest.importorskip("numba")

_DATA = np.arange(24, dtype=np.float32).reshape(6, 4) * np.float32(0.37) - 3
_DYNAMIC = {"input_signature": [tf.TensorSpec([None, None], tf.float32),
                                tf.TensorSpec([None], tf.int32)]}
_REDUCTIONS = ["sum", "prod", "min", "max", "mean"]


def _sorted(reductions):
    """All of `reductions` of one data and ids, as one function (one kernel: each compile
    costs about a second)."""
    ops = [getattr(tf.math, "segment_" + reduction) for reduction in reductions]
    return lambda data, ids: [op(data, ids) for op in ops]


def _unsorted(reductions, count=5):
    ops = [getattr(tf.math, "unsorted_segment_" + reduction) for reduction in reductions]
    return lambda data, ids: [op(data, ids, count) for op in ops]


def _assert_same(results, reductions):
    assert len(results[0]) == len(results[1]) == len(reductions)
    for expected, got, reduction in zip(*results, reductions):
        assert expected.dtype == got.dtype and expected.shape == got.shape, reduction
        np.testing.assert_array_equal(expected.numpy(), got.numpy(), err_msg=reduction)


@pytest.mark.parametrize("options", [{}, _DYNAMIC], ids=["static", "dynamic"])
def test_segment_reductions_combine_rows_in_order_and_drop_negative_ids(options):
    _assert_same(executor_and_numba(_sorted(_REDUCTIONS), _DATA,
                                    np.array([0, 0, 1, 3, 3, 3], np.int32), **options),
                 _REDUCTIONS)
    _assert_same(executor_and_numba(_unsorted(_REDUCTIONS), _DATA,
                                    np.array([3, -1, 0, 3, 2, 0], np.int32), **options),
                 _REDUCTIONS)
    _assert_same(executor_and_numba(_sorted(_REDUCTIONS), _DATA[:0], np.zeros(0, np.int32),
                                    **options), _REDUCTIONS)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.complex64, np.complex128])
def test_integer_and_complex_segments_agree_with_the_kernel(dtype):
    complex_ = np.dtype(dtype).kind == "c"
    reductions = [r for r in _REDUCTIONS if not (complex_ and r in ("min", "max"))]  # as TF
    rng = np.random.default_rng(4)
    data = rng.integers(-40, 40, size=(7, 3)) * (1 + 0.5j if complex_ else 1)
    data = np.abs(data) if np.dtype(dtype).kind == "u" else data
    data = tf.constant(data.astype(dtype))
    _assert_same(executor_and_numba(_sorted(reductions), data,
                                    np.array([0, 0, 1, 4, 4, 4, 4], np.int32)), reductions)
    unsorted = [r for r in reductions if r != "mean"]
    _assert_same(executor_and_numba(_unsorted(unsorted), data,
                                    np.array([3, -1, 0, 3, 2, 0, 3], np.int32)), unsorted)


def test_integer_sums_and_products_wrap_as_numpys_do():
    big = np.full((6, 4), 2 ** 30, np.int32)
    ids = np.array([1, 1, 1, 0, 0, 2], np.int32)
    _assert_same(executor_and_numba(_unsorted(["sum", "prod"]), big, ids), ["sum", "prod"])


def test_two_segment_reductions_in_one_function_compile():
    def mean_of_slices(data, ids):
        return [tf.math.unsorted_segment_mean(data, ids, 4)]
    _assert_same(executor_and_numba(mean_of_slices, _DATA,
                                    np.array([3, -1, 0, 3, 2, 0], np.int32)), ["mean"])


def test_unsorted_or_out_of_range_ids_fail_with_the_kernels_error():
    error = same_failure(_sorted(["sum"]), _DATA, np.array([0, 2, 1, 3, 3, 3], np.int32))
    assert "sorted and non-negative, but segment_ids[2] = 1" in str(error)
    assert "test_numba_segment_reductions.py" in str(error)
    error = same_failure(_unsorted(["max"], 4), _DATA, np.array([3, -1, 0, 4, 2, 9], np.int32))
    assert "segment_ids[3] = 4 is out of range for num_segments 4" in str(error)
    error = same_failure(_unsorted(["prod"], 4), _DATA, np.array([3, -1, 0, 1, 2], np.int32),
                         **_DYNAMIC)
    assert "dimension 0 of segment_ids is 5, but of data 6" in str(error)
    error = same_failure(_unsorted(["sum"], -2), _DATA, np.array([3, -1, 0, 1, 2, 0], np.int32))
    assert "num_segments must not be negative, got -2" in str(error)
