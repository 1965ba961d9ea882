"""Cumulative ops through the facade (tf.math.cumprod; tf.math.cumsum's values are in
tests/runtime/test_ops.py's table): values against numpy, eagerly and traced, gradients
against finite differences."""

import numpy as np
import pytest
from op_checks import INTS, D, GradientOperands, check_gradients, check_static_shape, check_values

import autograph.tf as tf

_operands = GradientOperands(7)
_u = _operands.uniform

VALUES = {
    # name: (function of tensors, inputs, numpy reference of the same inputs)
    "cumprod": (lambda x: tf.math.cumprod(x, axis=1), [INTS],
                lambda x: np.cumprod(x, axis=1, dtype=np.int32)),
    "cumprod_exclusive_reverse": (
        lambda x: tf.math.cumprod(x, exclusive=True, reverse=True), [D],
        lambda x: np.stack([x[1], np.ones(3)])),
}

GRADIENTS = {
    "cumprod": (lambda x: tf.math.cumprod(x, axis=1), _u(2, 4) + 2.0),
    "cumprod_exclusive_reverse": (
        lambda x: tf.math.cumprod(x, axis=0, exclusive=True, reverse=True), _u(3, 2) + 2.0),
}


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name", sorted(VALUES))
def test_values_match_numpy(name, traced):
    check_values(*VALUES[name], traced, keeps_input_dtype=True)


@pytest.mark.parametrize("name", ['cumprod'])
def test_static_shapes_are_inferred(name):
    check_static_shape(*VALUES[name])


@pytest.mark.parametrize("in_function", [False, True], ids=["eager", "tape_in_function"])
@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_gradient_matches_finite_differences(name, in_function):
    fn, *arrays = GRADIENTS[name]
    check_gradients(fn, *arrays, in_function=in_function)
