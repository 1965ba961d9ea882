"""Segment reductions (tf.math.segment_sum/prod/min/max/mean, the unsorted_segment_* forms
and unsorted_segment_mean/sqrt_n): values against numpy, eagerly and traced; values,
dtypes and gradients TensorFlow 2.21 gave for the same inputs; gradients against finite
differences; errors for bad segment ids and dtypes."""

import numpy as np
import pytest
from op_checks import (
    INTS,
    F,
    GradientOperands,
    gradients_test,
    values_test,
)

import autograph.tf as tf

_operands = GradientOperands(7)
_u = _operands.uniform


def _rows(*rows):
    return np.stack(rows)


# INTS = [[3, 1, 3], [0, -2, 5]] under ids [[1, -1, 0], [1, 1, 2]]: segment 0 holds 3,
# segment 1 holds 3, 0 and -2, segment 2 holds 5 (the -1 drops the 1)
_UNSORTED_IDS = [[1, -1, 0], [1, 1, 2]]

VALUES = {
    # name: (function of tensors, inputs, numpy reference of the same inputs)
    "segment_sum": (lambda x: tf.math.segment_sum(x, [0, 0, 3]), [F],
                    lambda x: _rows(x[0] + x[1], 0 * x[0], 0 * x[0], x[2])),
    "segment_prod": (lambda x: tf.math.segment_prod(x, [0, 0, 3]), [F],
                     lambda x: _rows(x[0] * x[1], 1 + 0 * x[0], 1 + 0 * x[0], x[2])),
    "segment_min": (lambda x: tf.math.segment_min(x, [0, 0, 3]), [F],
                    lambda x: _rows(np.minimum(x[0], x[1]), 0 * x[0], 0 * x[0], x[2])),
    "segment_max": (lambda x: tf.math.segment_max(x, [0, 0, 3]), [F],
                    lambda x: _rows(np.maximum(x[0], x[1]), 0 * x[0], 0 * x[0], x[2])),
    "segment_mean": (lambda x: tf.math.segment_mean(x, [0, 0, 3]), [F],
                     lambda x: _rows((x[0] + x[1]) / 2, 0 * x[0], 0 * x[0], x[2])),
    "segment_mean of integers": (lambda x: tf.math.segment_mean(x, [0, 0, 1]),
                                 [np.array([-3, -2, 7], np.int32)],
                                 lambda x: np.array([-2, 7], np.int32)),  # toward zero
    "unsorted_segment_sum": (
        lambda x: tf.math.unsorted_segment_sum(x, _UNSORTED_IDS, 3), [INTS],
        lambda x: np.array([3, 3 + 0 - 2, 5], np.int32)),
    "unsorted_segment_prod": (
        lambda x: tf.math.unsorted_segment_prod(x, _UNSORTED_IDS, 4), [INTS],
        lambda x: np.array([3, 0, 5, 1], np.int32)),
    "unsorted_segment_min": (
        lambda x: tf.math.unsorted_segment_min(x, _UNSORTED_IDS, 4), [INTS],
        lambda x: np.array([3, -2, 5, np.iinfo(np.int32).max], np.int32)),
    "unsorted_segment_max": (
        lambda x: tf.math.unsorted_segment_max(x, _UNSORTED_IDS, 4), [INTS],
        lambda x: np.array([3, 3, 5, np.iinfo(np.int32).min], np.int32)),
    "unsorted_segment_mean": (
        lambda x: tf.math.unsorted_segment_mean(x, [0, 2, 0], 4), [F],
        lambda x: _rows((x[0] + x[2]) / 2, 0 * x[0], x[1], 0 * x[0])),
    "unsorted_segment_sqrt_n": (
        lambda x: tf.math.unsorted_segment_sqrt_n(x, [0, 2, 0], 3), [F],
        lambda x: _rows((x[0] + x[2]) / np.float32(np.sqrt(2)), 0 * x[0], x[1])),
}

GRADIENTS = {
    "segment_sum": (lambda x: tf.math.segment_sum(x, [0, 0, 2]), _u(3, 2)),
    "unsorted_segment_sum": (lambda x: tf.math.unsorted_segment_sum(x, [2, -1, 0], 3),
                             _u(3, 2)),
    "segment_prod": (lambda x: tf.math.segment_prod(x, [0, 0, 0, 2]), _u(4, 2)),
    "segment_min": (lambda x: tf.math.segment_min(x, [0, 0, 2, 2]), _u(4, 2)),
    "segment_max": (lambda x: tf.math.segment_max(x, [0, 0, 2, 2]), _u(4, 2)),
    "segment_mean": (lambda x: tf.math.segment_mean(x, [0, 0, 0, 2]), _u(4, 2)),
    "unsorted_segment_prod": (lambda x: tf.math.unsorted_segment_prod(x, [2, -1, 0, 2], 4),
                              _u(4, 2)),
    "unsorted_segment_min": (lambda x: tf.math.unsorted_segment_min(x, [[2, 0], [1, -1]], 3),
                             _u(2, 2, 3)),
    "unsorted_segment_max": (lambda x: tf.math.unsorted_segment_max(x, [1, 1, -1, 0], 2),
                             _u(4, 2)),
    "unsorted_segment_mean": (lambda x: tf.math.unsorted_segment_mean(x, [1, 1, -1, 0], 3),
                              _u(4, 2)),
    "unsorted_segment_sqrt_n": (lambda x: tf.math.unsorted_segment_sqrt_n(x, [1, 1, 1, 0], 3),
                                _u(4, 2)),
}


test_values_match_numpy = values_test(
    VALUES, keeps_input_dtype=lambda name: name != "unsorted_segment_mean")
test_gradient_matches_finite_differences = gradients_test(GRADIENTS)


# -- what TensorFlow 2.21 gives (values printed by it for these inputs) -------------------------

_DATA = [[1.0, 2.0], [3.0, 0.0], [5.0, 6.0], [-1.0, 4.0]]
_IDS = [0, 0, 2, 2]
_UNSORTED = [2, 0, 2, -1]
_F32_MAX = float(np.finfo(np.float32).max)

TENSORFLOW_VALUES = {
    # name: (function of the data, TensorFlow's result, TensorFlow's gradient of its sum)
    "segment_prod": (lambda x: tf.math.segment_prod(x, _IDS),
                     [[3, 0], [1, 1], [-5, 24]], [[3, 0], [1, 2], [-1, 4], [5, 6]]),
    "segment_min": (lambda x: tf.math.segment_min(x, _IDS),
                    [[1, 0], [0, 0], [-1, 4]], [[1, 0], [0, 1], [0, 0], [1, 1]]),
    "segment_max": (lambda x: tf.math.segment_max(x, _IDS),
                    [[3, 2], [0, 0], [5, 6]], [[0, 1], [1, 0], [1, 1], [0, 0]]),
    "segment_mean": (lambda x: tf.math.segment_mean(x, _IDS),
                     [[2, 1], [0, 0], [2, 5]], [[0.5] * 2] * 4),
    "unsorted_segment_prod": (lambda x: tf.math.unsorted_segment_prod(x, _UNSORTED, 4),
                              [[3, 0], [1, 1], [5, 12], [1, 1]],
                              [[5, 6], [1, 1], [1, 2], [0, 0]]),
    "unsorted_segment_min": (lambda x: tf.math.unsorted_segment_min(x, _UNSORTED, 4),
                             [[3, 0], [_F32_MAX] * 2, [1, 2], [_F32_MAX] * 2],
                             [[1, 1], [1, 1], [0, 0], [0, 0]]),
    "unsorted_segment_max": (lambda x: tf.math.unsorted_segment_max(x, _UNSORTED, 4),
                             [[3, 0], [-_F32_MAX] * 2, [5, 6], [-_F32_MAX] * 2],
                             [[0, 0], [1, 1], [1, 1], [0, 0]]),
    "unsorted_segment_mean": (lambda x: tf.math.unsorted_segment_mean(x, _UNSORTED, 4),
                              [[3, 0], [0, 0], [3, 4], [0, 0]],
                              [[0.5] * 2, [1, 1], [0.5] * 2, [0, 0]]),
    "unsorted_segment_sqrt_n": (lambda x: tf.math.unsorted_segment_sqrt_n(x, _UNSORTED, 4),
                                [[3, 0], [0, 0], [6 / np.sqrt(2), 8 / np.sqrt(2)], [0, 0]],
                                [[1 / np.sqrt(2)] * 2, [1, 1], [1 / np.sqrt(2)] * 2, [0, 0]]),
}


@pytest.mark.parametrize("name", sorted(TENSORFLOW_VALUES))
def test_values_and_gradients_are_tensorflows(name):
    fn, value, gradient = TENSORFLOW_VALUES[name]
    x = tf.Variable(np.array(_DATA, np.float32))
    with tf.GradientTape() as tape:
        y = fn(x)
    assert y.dtype == tf.float32
    np.testing.assert_allclose(y.numpy(), np.array(value, np.float32), rtol=1e-6)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), gradient, rtol=1e-6)


def test_a_maximum_shared_by_several_rows_shares_the_gradient_as_tensorflow_does():
    x = tf.Variable([3.0, 3.0, 1.0])
    with tf.GradientTape() as tape:
        y = tf.math.segment_max(x, [0, 0, 1])
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0.5, 0.5, 1.0])


# complex data: TensorFlow's values and its gradient of sum(y * w), w = (1 - 0.5j) * [1, 2...]
_COMPLEX = np.array([[1 + 2j, 2 - 1j], [3, 0], [5 - 1j, 6 + 2j], [-1 + 1j, 4j]])

TENSORFLOW_COMPLEX_GRADIENTS = {
    "segment_prod": (lambda x: tf.math.segment_prod(x, _IDS),
                     [[3 + 1.5j, 0], [2.5j, 5], [-7.5 + 2.5j, -12 + 24j], [27.5 + 7.5j, 30 + 30j]]),
    "segment_mean": (lambda x: tf.math.segment_mean(x, _IDS),
                     [[0.5 + 0.25j, 1 + 0.5j]] * 2 + [[2.5 + 1.25j, 3 + 1.5j]] * 2),
    "unsorted_segment_prod": (lambda x: tf.math.unsorted_segment_prod(x, _UNSORTED, 4),
                              [[27.5 + 7.5j, 30 + 30j], [1 + 0.5j, 2 + 1j], [12.5j, 15],
                               [0, 0]]),
}


@pytest.mark.parametrize("name", sorted(TENSORFLOW_COMPLEX_GRADIENTS))
def test_complex_gradients_are_tensorflows(name):
    fn, gradient = TENSORFLOW_COMPLEX_GRADIENTS[name]
    x = tf.Variable(_COMPLEX)
    with tf.GradientTape() as tape:
        y = fn(x)
        weights = np.arange(1, 1 + np.prod(y.shape)).reshape(y.shape) * (1 - 0.5j)
        loss = tf.reduce_sum(y * tf.constant(weights))
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), gradient, rtol=1e-12)


@pytest.mark.parametrize("fn, op, pattern", [
    (lambda: tf.math.segment_sum([1.0, 2.0], [1, 0]), "SegmentSum", "sorted"),
    (lambda: tf.math.unsorted_segment_sum([1.0, 2.0], [0, 4], 2), "UnsortedSegmentSum",
     "num_segments"),
    (lambda: tf.math.segment_max([1.0, 2.0], [-1, 0]), "SegmentMax",
     r"sorted and non-negative, but segment_ids\[0\] = -1"),
    (lambda: tf.math.unsorted_segment_prod([1.0, 2.0], [0, 4], 2), "UnsortedSegmentProd",
     r"segment_ids\[1\] = 4 is out of range for num_segments 2"),
    (lambda: tf.math.unsorted_segment_min([1.0, 2.0], [0, 1], -1), "UnsortedSegmentMin",
     "num_segments must not be negative"),
])
def test_bad_values_raise_invalid_argument_naming_the_op(fn, op, pattern):
    with pytest.raises(tf.errors.InvalidArgumentError, match=pattern) as info:
        fn()
    assert op in str(info.value)
    assert __file__ in str(info.value)  # the user's line


@pytest.mark.parametrize("fn, op", [
    (lambda: tf.math.segment_min(tf.constant([1j, 2j]), [0, 0]), "SegmentMin"),
    (lambda: tf.math.unsorted_segment_max(tf.constant([1j, 2j]), [0, 0], 1),
     "UnsortedSegmentMax"),
    (lambda: tf.math.segment_prod(tf.constant([True]), [0]), "SegmentProd"),
    (lambda: tf.math.unsorted_segment_sqrt_n(tf.constant([1, 2]), [0, 0], 1), "Sqrt"),
    (lambda: tf.math.unsorted_segment_mean(tf.constant([1j, 2j]), [0, 0], 1), "Maximum"),
])
def test_dtypes_tensorflow_refuses_are_refused_naming_the_op(fn, op):
    with pytest.raises(tf.errors.InvalidArgumentError, match="not supported") as info:
        fn()
    assert op in str(info.value)
