"""numba rules for segment_sum and unsorted_segment_sum (runtime/ops/segment_ops.py): rows
added in np.add.at's order give the numpy executor's values bit for bit; where the kernel
fails it runs on the host and raises its own error, naming the op and this file."""

import numpy as np
import pytest
from numba_compare import executor_and_numba, same_failure

import autograph.tf as tf

numba = pytest.importorskip("numba")

_DATA = np.arange(24, dtype=np.float32).reshape(6, 4) * np.float32(0.37) - 3
_DYNAMIC = {"input_signature": [tf.TensorSpec([None, None], tf.float32),
                                tf.TensorSpec([None], tf.int32)]}


def _sorted(data, ids):
    return tf.math.segment_sum(data, ids)


def _unsorted(data, ids):
    return tf.math.unsorted_segment_sum(data, ids, 4)


def _assert_same(expected, got):
    assert expected.dtype == got.dtype and expected.shape == got.shape
    np.testing.assert_array_equal(expected.numpy(), got.numpy())


@pytest.mark.parametrize("options", [{}, _DYNAMIC], ids=["static", "dynamic"])
def test_segment_sums_add_rows_in_order_and_drop_negative_ids(options):
    _assert_same(*executor_and_numba(_sorted, _DATA, np.array([0, 0, 1, 3, 3, 3], np.int32),
                                     **options))
    _assert_same(*executor_and_numba(_unsorted, _DATA, np.array([3, -1, 0, 3, 2, 0], np.int32),
                                     **options))
    _assert_same(*executor_and_numba(_sorted, _DATA[:0], np.zeros(0, np.int32), **options))
    big = np.full((6, 4), 2 ** 30, np.int32)  # int32 sums wrap as numpy's do
    _assert_same(*executor_and_numba(_unsorted, big, np.array([1, 1, 1, 0, 0, 2], np.int32)))


def test_unsorted_or_out_of_range_ids_fail_with_the_kernels_error():
    error = same_failure(_sorted, _DATA, np.array([0, 2, 1, 3, 3, 3], np.int32))
    assert "sorted and non-negative, got [0, 2, 1, 3, 3, 3]" in str(error)
    assert "test_numba_segment_sums.py" in str(error)
    error = same_failure(_unsorted, _DATA, np.array([3, -1, 0, 4, 2, 9], np.int32))
    assert "segment_ids [4, 9] hold values >= num_segments 4" in str(error)
    same_failure(_unsorted, _DATA, np.array([3, -1, 0, 1, 2], np.int32), **_DYNAMIC)
