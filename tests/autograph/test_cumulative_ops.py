"""Cumulative ops (tf.math.cumsum, tf.math.cumprod): values against numpy, eagerly and
traced, with exact and with unknown static shapes; gradients against finite differences,
through the facade (tests/op_checks.py) and as gradient rules of the runtime alone
(tests/op_cases.py)."""

import functools

import numpy as np
from op_cases import (
    F1,
    I1,
    case,
    eager_values_test,
    gradient_rules_test,
    traced_values_test,
    unknown_dims_test,
)
from op_checks import (
    INTS,
    D,
    GradientOperands,
    gradients_test,
    static_shapes_test,
    values_test,
)

import autograph.tf as tf
from runtime import dtypes
from runtime.ops import cumulative_ops

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


# -- cumsum against the runtime alone (tests/op_cases.py) -----------------------------------------

def _cases():
    out = []
    out.append(case("math.cumsum", cumulative_ops.cumsum, (I1,),
                    functools.partial(np.cumsum, axis=0),
                    dtypes.int32))
    out.append(case("math.cumsum axis 1", functools.partial(cumulative_ops.cumsum, axis=1), (F1,),
                    functools.partial(np.cumsum, axis=1), dtypes.float32))
    out.append(case("math.cumsum exclusive", functools.partial(
        cumulative_ops.cumsum, axis=1, exclusive=True), (I1,),
        lambda x: np.cumsum(x, axis=1) - x, dtypes.int32))
    out.append(case("math.cumsum reverse", functools.partial(
        cumulative_ops.cumsum, axis=1, reverse=True), (I1,),
        lambda x: np.cumsum(x[:, ::-1], axis=1)[:, ::-1], dtypes.int32))
    return out


CASES = _cases()

test_eager_result_matches_numpy = eager_values_test(CASES)
test_traced_result_equals_eager_and_static_shape_is_exact = traced_values_test(CASES)
test_traced_with_unknown_dims_gives_compatible_static_shape = unknown_dims_test(CASES)


GRADIENT_RULES = {
    "cumsum": (lambda x: cumulative_ops.cumsum(x, axis=1), _u(2, 3)),
    "cumsum_exclusive_reverse": (lambda x: cumulative_ops.cumsum(x, exclusive=True, reverse=True),
                                 _u(4)),
}

test_rule_matches_finite_differences = gradient_rules_test(GRADIENT_RULES)
