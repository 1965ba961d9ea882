"""Linear algebra (tf.linalg.inv, det, solve, diag, diag_part, band_part, matrix_transpose):
values against numpy, eagerly and traced; gradients against finite differences; errors
for singular or non-square matrices and mixed dtypes."""

import numpy as np
import pytest
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
