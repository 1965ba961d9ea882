"""Linear algebra (tf.linalg.inv, det, solve, diag, diag_part, band_part, matrix_transpose,
matmul, tf.tensordot): values against numpy (and TensorFlow's for tensordot), eagerly and traced
(matmul's with exact and with unknown static shapes too); gradients against finite
differences; errors for singular or non-square matrices, bad contraction axes, mixed dtypes
and incompatible shapes. matmul's tables are written against the runtime alone
(tests/op_cases.py)."""

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
from runtime.ops import array_ops, linalg_ops, reshape_ops

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
    "tensordot_last_with_first": (lambda a, b: tf.tensordot(a, b, 1), [SQUARE, F],
                                  lambda a, b: np.tensordot(a, b, 1)),
    "tensordot_axis_lists": (lambda a, b: tf.tensordot(a, b, [[0, 2], [2, 0]]),
                             [SQUARE, np.arange(24, dtype=np.float32).reshape(3, 4, 2)],
                             lambda a, b: np.tensordot(a, b, [[0, 2], [2, 0]])),
    "tensordot_outer_product": (lambda a, b: tf.linalg.tensordot(a, b, 0), [INTS, INTS[0]],
                                lambda a, b: np.tensordot(a, b, 0)),
    "tensordot_negative_axes": (lambda a, b: tf.tensordot(a, b, [[-1], [-2]]), [F, F.T],
                                lambda a, b: np.tensordot(a, b, [[-1], [-2]])),
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
    "tensordot": (lambda a, b: tf.tensordot(a, b, [[1, 0], [0, 2]]), _u(3, 2, 4), _u(2, 2, 3)),
}

MIXED_DTYPES = {
    "solve": lambda: tf.linalg.solve(tf.constant(F64), tf.constant(F32.T)),
    "tensordot": lambda: tf.tensordot(tf.constant(F64), tf.constant(F32.T), 1),
}


test_values_match_numpy = values_test(VALUES)
test_static_shapes_are_inferred = static_shapes_test(
    VALUES, ['inv', 'diag', 'tensordot_axis_lists', 'tensordot_outer_product'])
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


# tf.tensordot of a = range(24).reshape(2, 3, 4) / 7 and b = range(60).reshape(4, 3, 5) / 11
# (float32): TensorFlow 2.21's shape, first elements and sum for each `axes`
_TENSORFLOW_TENSORDOTS = [
    (1, (2, 3, 3, 5), [2.72727, 2.8052, 2.88312, 2.96104], 1673.7662),
    ([[1, 2], [1, 0]], (2, 5), [28.57143, 29.42857, 30.28571, 31.14286], 578.7013),
    ([[-2], [1]], (2, 4, 4, 5), [1.2987, 1.45455, 1.61039, 1.76623], 2197.9221),
    (0, (2, 3, 4, 4, 3, 5), [0.0, 0.0, 0.0, 0.0], 6344.4155),
]


@pytest.mark.parametrize("axes, shape, first, total", _TENSORFLOW_TENSORDOTS)
def test_tensordot_gives_tensorflows_values(axes, shape, first, total):
    a = tf.reshape(tf.range(24, dtype=tf.float32), [2, 3, 4]) / 7.0
    b = tf.reshape(tf.range(60, dtype=tf.float32), [4, 3, 5]) / 11.0
    result = tf.tensordot(a, b, axes)
    assert result.shape == shape and result.dtype == tf.float32
    np.testing.assert_allclose(result.numpy().ravel()[:4], first, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(float(tf.reduce_sum(result)), total, rtol=1e-6)
    assert complex(tf.tensordot(tf.constant([1 + 2j, 3j]), tf.constant([2 - 1j, 1 + 1j]),
                                1).numpy()) == 1 + 6j  # no conjugate, as TensorFlow


def test_tensordot_with_dimensions_known_at_run_time_is_one_matmul():
    @tf.function(input_signature=[tf.TensorSpec([None, 3, None], tf.float64),
                                  tf.TensorSpec([4, 3, None], tf.float64)])
    def contract(a, b):
        return tf.tensordot(a, b, [[1], [1]])
    a, b = np.ones((2, 3, 4)), np.arange(60.0).reshape(4, 3, 5)
    np.testing.assert_allclose(contract(a, b).numpy(), np.tensordot(a, b, [[1], [1]]))
    ops = [node.op for node in contract.get_concrete_function().graph.as_graph_def().node]
    assert ops.count("MatMul") == 1


@pytest.mark.parametrize("axes, pattern", [
    (3, r"axes must be an integer in \[0, 2\]"),
    ([[0], [0, 1]], "one length"),
    ([[0], [0]], "dimension 0 of a \\(3\\) and dimension 0 of b \\(4\\)"),
    ([[5], [0]], "axis 5 is out of range for a of rank 2"),
    ([[1, 1], [0, 1]], "axes of a repeat"),
])
def test_tensordot_refuses_bad_axes_naming_them(axes, pattern):
    with pytest.raises(ValueError, match=pattern):
        tf.tensordot(tf.ones([3, 4]), tf.ones([4, 4]), axes)


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
    ("matmul", lambda a, b: linalg_ops.matmul(reshape_ops.reshape(a, [1, 2]),
                                              reshape_ops.reshape(b, [2, 1])), "MatMul"),
]

test_mixed_dtypes_raise_invalid_argument_eagerly, \
    test_mixed_dtypes_raise_type_error_while_tracing = mixed_dtypes_tests(DTYPE_MISMATCH)


SHAPE_MISMATCH = [  # (of matrices, eagerly: TensorFlow's kernel text, tested below)
    ("matmul batched", linalg_ops.matmul, [(2, 2, 3), (2, 2, 3)], "MatMul"),
    ("matmul rank 1", linalg_ops.matmul, [(3,), (3,)], "MatMul"),
]

test_incompatible_shapes_raise_invalid_argument_eagerly, \
    test_incompatible_shapes_raise_value_error_while_tracing = \
    incompatible_shapes_tests(SHAPE_MISMATCH)


@pytest.mark.parametrize("dtype, kernel", [(tf.float32, "__MklMatMul"),
                                           (tf.bfloat16, "__MklMatMul"),
                                           (tf.float64, "MatMul"), (tf.int32, "MatMul")])
def test_an_eager_matmul_of_matrices_that_do_not_fit_is_tensorflows_kernel_text(dtype,
                                                                                 kernel):
    # TensorFlow 2.21 on x86 runs a float32 or bfloat16 MatMul with oneDNN's kernel, and
    # tf.matmul's name scope adds ' name: '
    expected = ("{{function_node __wrapped__%s_device_/job:localhost/replica:0/task:0/"
                "device:CPU:0}} Matrix size-incompatible: In[0]: [4,1], In[1]: [3,3] "
                "[Op:MatMul] name: " % kernel)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:  # (shapes as given)
        tf.matmul(tf.ones([4, 1], dtype), tf.ones([3, 3], dtype), transpose_a=True)
    assert str(info.value).split("\n")[0] == expected
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.ones([1, 4], dtype) @ tf.ones([3, 3], dtype)
    assert "In[0]: [1,4], In[1]: [3,3] [Op:MatMul] name: " in str(info.value)


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
