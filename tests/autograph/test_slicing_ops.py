"""Slicing ops (tf.slice, tf.strided_slice, which write index expressions on the StridedSlice
op): values against numpy, eagerly and traced, with TensorFlow's masks; gradients against
finite differences. Property tests on random shapes and blocks: values equal numpy's and,
slicing being linear, the gradient is its adjoint (op_checks.check_linear_op)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from op_cases import gradient_rules_test
from op_checks import (
    SQUARE,
    F,
    GradientOperands,
    check_linear_op,
    gradients_test,
    values_test,
)

import autograph.tf as tf

_operands = GradientOperands(7)
_u = _operands.uniform

SETTINGS = settings(max_examples=40, deadline=None, database=None)

_shapes = st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)


@st.composite
def _block(draw):
    """(tf.slice of a random block, numpy reference, shape)."""
    shape = draw(_shapes)
    begin = [draw(st.integers(0, d - 1)) for d in shape]
    size = [draw(st.integers(-1, d - b)) for d, b in zip(shape, begin)]
    size = [s if s != 0 else -1 for s in size]
    return (lambda x: tf.slice(x, begin, size),
            lambda x: x[tuple(np.s_[b:] if s == -1 else np.s_[b:b + s]
                              for b, s in zip(begin, size))], shape)


VALUES = {
    # name: (function of tensors, inputs, numpy reference of the same inputs)
    "slice": (lambda x: tf.slice(x, [1, 1], [2, -1]), [F], lambda x: x[1:3, 1:]),
    "strided_slice_masks": (
        lambda x: tf.strided_slice(x, [0, 1, 0], [0, 3, 0], [1, 1, 1], begin_mask=1,
                                   end_mask=1, new_axis_mask=4), [F],
        lambda x: x[:, 1:3, None]),
    "strided_slice_ellipsis": (
        lambda x: tf.strided_slice(x, [0, 1], [0, 3], ellipsis_mask=1), [SQUARE],
        lambda x: x[..., 1:3]),
    "strided_slice_shrink": (lambda x: tf.strided_slice(x, [2, 0], [3, 4], [1, 2],
                                                        shrink_axis_mask=1), [F],
                             lambda x: x[2, 0:4:2]),
}

GRADIENTS = {
    "slice": (lambda x: tf.slice(x, [1, 0], [1, -1]), _u(3, 4)),
    "strided_slice": (lambda x: tf.strided_slice(x, [0, 3], [3, 0], [2, -1]), _u(3, 4)),
}


test_values_match_numpy = values_test(VALUES)
test_gradient_matches_finite_differences = gradients_test(GRADIENTS)


@pytest.mark.property
@SETTINGS
@given(_block(), st.integers(0, 2**31))
def test_slice_matches_numpy_and_its_gradient_is_the_adjoint(case, seed):
    check_linear_op(*case, seed)


# -- slicing against the runtime alone (tests/op_cases.py) ----------------------------------------

GRADIENT_RULES = {
    "slice": (lambda x: x[1:, ::2], _u(3, 5)),
    "index": (lambda x: x[1] * x[-1], _u(3, 2)),
    "newaxis_ellipsis": (lambda x: x[..., None, 1], _u(2, 3)),
}

test_rule_matches_finite_differences = gradient_rules_test(GRADIENT_RULES)
