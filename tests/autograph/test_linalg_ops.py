"""Linear algebra (tf.linalg.inv, det, solve, diag, diag_part, band_part, matrix_transpose,
matmul): values against numpy, eagerly and traced (matmul's with exact and with unknown
static shapes too); gradients against finite differences; errors for singular or
non-square matrices, mixed dtypes and incompatible shapes. matmul's tables are written
against the runtime alone (tests/op_cases.py)."""

import functools

import numpy as np
import pytest
from op_cases import (
    BATCH_A,
    BATCH_B,
    I1,
    I2,
    MAT_A,
    MAT_B,
    case,
    eager_values_test,
    gradient_rules_test,
    incompatible_shapes_tests,
    mixed_dtypes_tests,
    static_shapes_with_an_unknown_dimension,
    traced_values_test,
    unknown_dims_test,
)
from op_checks import (
    F32,
    F64,
    INTS,
    SQUARE,
    F,
    GradientOperands,
    gradients_test,
    mixed_dtypes_test,
    static_shapes_test,
    values_test,
)

import autograph.tf as tf
from runtime import dtypes
from runtime.ops import array_ops, linalg_ops, manipulation_ops

_operands = GradientOperands(7)
_u = _operands.uniform

_WELL_CONDITIONED = _u(3, 3) + 3 * np.eye(3)

VALUES = {
    # name: (function of tensors, inputs, numpy reference of the same inputs)
    "inv": (lambda x: tf.linalg.inv(x), [SQUARE], lambda x: np.linalg.inv(x)),
    "det": (lambda x: tf.linalg.det(x), [SQUARE], lambda x: np.linalg.det(x)),
    "solve": (lambda a, b: tf.linalg.solve(a, b), [SQUARE, SQUARE[:, :, :2]],
              lambda a, b: np.linalg.solve(a, b)),
    "diag": (lambda d: tf.linalg.diag(d), [INTS], lambda d: np.stack([np.diag(r) for r in d])),
    "diag_part": (lambda x: tf.linalg.diag_part(x), [F], lambda x: np.diagonal(x)),
    "band_part_lower": (lambda x: tf.linalg.band_part(x, -1, 0), [SQUARE],
                        lambda x: np.tril(x)),
    "band_part_band": (lambda x: tf.linalg.band_part(x, 1, 2), [F],
                       lambda x: np.triu(np.tril(x, 2), -1)),
    "matrix_transpose": (lambda x: tf.linalg.matrix_transpose(x), [SQUARE],
                         lambda x: np.swapaxes(x, -1, -2)),
}

GRADIENTS = {
    "inv": (lambda a: tf.linalg.inv(a), _WELL_CONDITIONED),
    "det": (lambda a: tf.linalg.det(a), _WELL_CONDITIONED),
    "det_batched": (lambda a: tf.linalg.det(a), np.stack([_WELL_CONDITIONED, np.eye(3)])),
    "solve": (lambda a, b: tf.linalg.solve(a, b), _WELL_CONDITIONED, _u(3, 2)),
    "diag": (lambda d: tf.linalg.diag(d), _u(2, 3)),
    "diag_part": (lambda x: tf.linalg.diag_part(x), _u(2, 3, 3)),
    "diag_part_rectangular": (lambda x: tf.linalg.diag_part(x), _u(3, 2)),
    "band_part": (lambda x: tf.linalg.band_part(x, 1, 0), _u(3, 3)),
    "matrix_transpose": (lambda x: tf.linalg.matrix_transpose(x), _u(2, 3, 4)),
}

MIXED_DTYPES = {
    "solve": lambda: tf.linalg.solve(tf.constant(F64), tf.constant(F32.T)),
}


test_values_match_numpy = values_test(VALUES)
test_static_shapes_are_inferred = static_shapes_test(VALUES, ['inv', 'diag'])
test_gradient_matches_finite_differences = gradients_test(GRADIENTS)
test_mixed_dtypes_are_an_error_naming_the_op_and_operands = mixed_dtypes_test(
    MIXED_DTYPES)


@pytest.mark.parametrize("fn, op, pattern", [
    (lambda: tf.linalg.inv(tf.zeros([2, 2])), "MatrixInverse", "not invertible"),
    (lambda: tf.linalg.det(tf.constant(F32)), "MatrixDeterminant", "square"),
])
def test_bad_values_raise_invalid_argument_naming_the_op(fn, op, pattern):
    with pytest.raises(tf.errors.InvalidArgumentError, match=pattern) as info:
        fn()
    assert op in str(info.value)
    assert __file__ in str(info.value)  # the user's line


def test_matmul_refuses_transpose_and_adjoint_of_one_operand():
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match="transpose and adjoint"):
        tf.matmul(a, a, transpose_a=True, adjoint_a=True)


def test_adjoint_of_a_real_matrix_is_its_transpose_and_trace_sums_the_diagonal():
    a = np.arange(6.0).reshape(1, 2, 3)
    np.testing.assert_array_equal(tf.linalg.adjoint(a).numpy(), a.transpose(0, 2, 1))
    np.testing.assert_array_equal(tf.linalg.trace(np.arange(9.0).reshape(3, 3)).numpy(), 12.0)


# -- matmul against the runtime alone (tests/op_cases.py) -----------------------------------------

def _cases():
    out = []
    out.append(case("matmul", linalg_ops.matmul, (MAT_A, MAT_B), np.matmul, dtypes.float32))
    out.append(case("linalg.matmul", linalg_ops.matmul, (MAT_A, MAT_B), np.matmul, dtypes.float32))
    out.append(case("matmul transpose_a", functools.partial(linalg_ops.matmul, transpose_a=True),
                    (MAT_A.T.copy(), MAT_B), lambda a, b: a.T @ b, dtypes.float32))
    out.append(case("matmul transpose_b", functools.partial(linalg_ops.matmul, transpose_b=True),
                    (MAT_A, MAT_B.T.copy()), lambda a, b: a @ b.T, dtypes.float32))
    out.append(case("matmul batched", linalg_ops.matmul, (BATCH_A, BATCH_B), np.matmul,
                    dtypes.float32))
    out.append(case("matmul broadcast batch", linalg_ops.matmul, (BATCH_A, MAT_B), np.matmul,
                    dtypes.float32))
    out.append(case("matmul int32", linalg_ops.matmul, (I1, I2.T.copy()), np.matmul, dtypes.int32))
    return out


CASES = _cases()

test_eager_result_matches_numpy = eager_values_test(CASES)
test_traced_result_equals_eager_and_static_shape_is_exact = traced_values_test(CASES)
test_traced_with_unknown_dims_gives_compatible_static_shape = unknown_dims_test(CASES)


@pytest.mark.lowerings
def test_static_shapes_keep_known_dims_when_others_are_unknown():
    shapes = static_shapes_with_an_unknown_dimension(lambda x, y: {
        "matmul": linalg_ops.matmul(x, array_ops.ones([3, 5]))})
    assert shapes == {"matmul": (None, 5)}


DTYPE_MISMATCH = [
    ("matmul", lambda a, b: linalg_ops.matmul(manipulation_ops.reshape(a, [1, 2]),
                                              manipulation_ops.reshape(b, [2, 1])), "MatMul"),
]

test_mixed_dtypes_raise_invalid_argument_eagerly, \
    test_mixed_dtypes_raise_type_error_while_tracing = mixed_dtypes_tests(DTYPE_MISMATCH)


SHAPE_MISMATCH = [
    ("matmul", linalg_ops.matmul, [(2, 3), (2, 3)], "MatMul"),
    ("matmul rank 1", linalg_ops.matmul, [(3,), (3,)], "MatMul"),
]

test_incompatible_shapes_raise_invalid_argument_eagerly, \
    test_incompatible_shapes_raise_value_error_while_tracing = \
    incompatible_shapes_tests(SHAPE_MISMATCH)


GRADIENT_RULES = {
    "matmul": (linalg_ops.matmul, _u(2, 3), _u(3, 4)),
    "matmul_transpose_a": (lambda a, b: linalg_ops.matmul(a, b, transpose_a=True),
                           _u(3, 2), _u(3, 4)),
    "matmul_transpose_b": (lambda a, b: linalg_ops.matmul(a, b, transpose_b=True),
                           _u(2, 3), _u(4, 3)),
    "matmul_transpose_both": (lambda a, b: linalg_ops.matmul(a, b, transpose_a=True,
                                                             transpose_b=True), _u(3, 2), _u(4, 3)),
    "matmul_batch_broadcast": (linalg_ops.matmul, _u(2, 2, 3), _u(3, 2)),
    "matmul_operator": (lambda a, b: a @ b, _u(2, 2), _u(2, 3)),
}

test_rule_matches_finite_differences = gradient_rules_test(GRADIENT_RULES)
