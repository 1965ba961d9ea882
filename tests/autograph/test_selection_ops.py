"""Selecting ops (gather, where, one_hot), against the runtime alone: values against
numpy eagerly and traced, with exact and with unknown static shapes; errors for mixed or
unsupported dtypes, incompatible shapes and indices out of range; gradient rules against
finite differences. Tables and checks: tests/op_cases.py."""

import numpy as np
import pytest
from op_cases import (
    B1,
    CUBE,
    F1,
    F2,
    I1,
    SMALL,
    RuleOperands,
    case,
    eager_values_test,
    gradient_rules_test,
    incompatible_shapes_tests,
    mixed_dtypes_tests,
    static_shapes_with_an_unknown_dimension,
    traced_values_test,
    unknown_dims_test,
    unsupported_dtype_tests,
)

from runtime import dtypes, errors
from runtime.ops import array_ops, math_ops, selection_ops

# with AUTOGRAPH_BACKEND=numba or jax, every op's compiled lowering (.ci/run)
pytestmark = pytest.mark.lowerings


def _cases():
    out = []
    out.append(case("gather", selection_ops.gather, (CUBE, np.array([1, 0, 1], np.int32)),
                    lambda x, i: x[i], dtypes.float32))
    out.append(case("gather axis 1", lambda x, i: selection_ops.gather(x, i, axis=1),
                    (CUBE, np.array([[2, 0], [1, 1]], np.int32)),
                    lambda x, i: np.take(x, i, axis=1), dtypes.float32))
    out.append(case("gather int64 indices", selection_ops.gather, (I1, np.array([1], np.int64)),
                    lambda x, i: x[i], dtypes.int32))
    out.append(case("gather scalar index", selection_ops.gather, (F1, np.int32(1)), lambda x,
                    i: x[i],
                    dtypes.float32))
    out.append(case("where select", selection_ops.where, (B1, F1, F2), np.where, dtypes.float32))
    out.append(case("where broadcast", selection_ops.where, (B1, I1, np.int32(0)), np.where,
                    dtypes.int32))
    out.append(case("where coordinates", selection_ops.where, (B1,), np.argwhere, dtypes.int64,
                    value_shaped=True))
    out.append(case("one_hot", lambda i: selection_ops.one_hot(i, 4), (SMALL,),
                    lambda i: np.eye(4, dtype=np.float32)[i], dtypes.float32))
    out.append(case("one_hot options", lambda i: selection_ops.one_hot(
        i, 3, on_value=5, off_value=-1, axis=0, dtype=dtypes.int32), (np.array([0, 2], np.int32),),
        lambda i: np.where(np.eye(3, dtype=bool)[i].T, 5, -1).astype(np.int32), dtypes.int32))
    return out


CASES = _cases()

test_eager_result_matches_numpy = eager_values_test(CASES)
test_traced_result_equals_eager_and_static_shape_is_exact = traced_values_test(CASES)
test_traced_with_unknown_dims_gives_compatible_static_shape = unknown_dims_test(CASES)


def test_static_shapes_keep_known_dims_when_others_are_unknown():
    shapes = static_shapes_with_an_unknown_dimension(lambda x, y: {
        "gather": selection_ops.gather(x, array_ops.constant([0, 0, 0, 0]))})
    assert shapes == {"gather": (4, 3)}


# -- errors: mixed dtypes, unsupported dtypes, incompatible shapes --------------------

DTYPE_MISMATCH = [
    ("where", lambda a, b: selection_ops.where(array_ops.constant([True, False]), a, b),
     "SelectV2"),
]

test_mixed_dtypes_raise_invalid_argument_eagerly, \
    test_mixed_dtypes_raise_type_error_while_tracing = mixed_dtypes_tests(DTYPE_MISMATCH)


UNSUPPORTED_DTYPE = [
    ("gather float indices", lambda x: selection_ops.gather(x, x), [0.0, 1.0], "GatherV2"),
]

test_unsupported_dtype_raises_invalid_argument_eagerly, \
    test_unsupported_dtype_raises_type_error_while_tracing = \
    unsupported_dtype_tests(UNSUPPORTED_DTYPE)


SHAPE_MISMATCH = [
    ("where", lambda a, b: selection_ops.where(math_ops.cast(a, dtypes.bool_), a, b), [(2,), (3,)],
     "SelectV2"),
]

test_incompatible_shapes_raise_invalid_argument_eagerly, \
    test_incompatible_shapes_raise_value_error_while_tracing = \
    incompatible_shapes_tests(SHAPE_MISMATCH)


def test_gather_out_of_range_raises_invalid_argument_eagerly():
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"GatherV2.*indices\[1\] = 3 is not in \[0, 3\)"):
        selection_ops.gather(array_ops.constant([1, 2, 3]), array_ops.constant([0, 3]))
    with pytest.raises(errors.InvalidArgumentError):
        selection_ops.gather(array_ops.constant([1, 2, 3]), array_ops.constant(-1))


# -- gradient rules, against finite differences ------------------------------------

_operands = RuleOperands(42)
_u, _pos = _operands.uniform, _operands.positive

GRADIENT_RULES = {
    "gather": (lambda x: selection_ops.gather(x, [2, 0, 2]), _u(4, 2)),
    "gather_axis1": (lambda x: selection_ops.gather(x, [[1, 1], [0, 2]], axis=1), _u(2, 3)),
    "where": (lambda x, y: selection_ops.where(x > 0, x * 2.0, y), _u(4), _u(1)),
}

test_rule_matches_finite_differences = gradient_rules_test(GRADIENT_RULES)
