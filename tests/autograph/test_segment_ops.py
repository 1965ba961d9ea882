"""Segment sums (tf.math.segment_sum, tf.math.unsorted_segment_sum): values against numpy,
eagerly and traced; gradients against finite differences; errors for bad segment ids."""

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

VALUES = {
    # name: (function of tensors, inputs, numpy reference of the same inputs)
    "segment_sum": (lambda x: tf.math.segment_sum(x, [0, 0, 3]), [F],
                    lambda x: np.stack([x[0] + x[1], 0 * x[0], 0 * x[0], x[2]])),
    "unsorted_segment_sum": (
        lambda x: tf.math.unsorted_segment_sum(x, [[1, -1, 0], [1, 1, 2]], 3), [INTS],
        lambda x: np.array([3, 3 + 0 - 2, 5], np.int32)),
}

GRADIENTS = {
    "segment_sum": (lambda x: tf.math.segment_sum(x, [0, 0, 2]), _u(3, 2)),
    "unsorted_segment_sum": (lambda x: tf.math.unsorted_segment_sum(x, [2, -1, 0], 3),
                             _u(3, 2)),
}


test_values_match_numpy = values_test(VALUES)
test_gradient_matches_finite_differences = gradients_test(GRADIENTS)


@pytest.mark.parametrize("fn, op, pattern", [
    (lambda: tf.math.segment_sum([1.0, 2.0], [1, 0]), "SegmentSum", "sorted"),
    (lambda: tf.math.unsorted_segment_sum([1.0, 2.0], [0, 4], 2), "UnsortedSegmentSum",
     "num_segments"),
])
def test_bad_values_raise_invalid_argument_naming_the_op(fn, op, pattern):
    with pytest.raises(tf.errors.InvalidArgumentError, match=pattern) as info:
        fn()
    assert op in str(info.value)
    assert __file__ in str(info.value)  # the user's line
