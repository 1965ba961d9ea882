"""Cumulative ops through the facade (tf.math.cumprod; tf.math.cumsum's values are in
tests/runtime/test_ops.py's table): values against numpy, eagerly and traced, gradients
against finite differences."""

import numpy as np
from op_checks import (
    INTS,
    D,
    GradientOperands,
    gradients_test,
    static_shapes_test,
    values_test,
)

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


test_values_match_numpy = values_test(VALUES)
test_static_shapes_are_inferred = static_shapes_test(VALUES, ['cumprod'])
test_gradient_matches_finite_differences = gradients_test(GRADIENTS)
