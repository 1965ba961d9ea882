"""tf.einsum: values against numpy, eagerly and traced; gradients against finite
differences; clear errors naming the subscript, while tracing too."""

import numpy as np
import pytest
from op_checks import (
    F32,
    F64,
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

VALUES = {
    # name: (function of tensors, inputs, numpy reference of the same inputs)
    "einsum_trace_batch": (lambda x: tf.einsum("bii->b", x), [SQUARE],
                           lambda x: np.einsum("bii->b", x)),
    "einsum_implicit": (lambda a, b: tf.einsum("ij,kj", a, b), [F, F],
                        lambda a, b: np.einsum("ij,kj", a, b)),
    "einsum_three": (lambda a, b, c: tf.einsum("ij,jk,kl->il", a, b, c), [F, F.T, F],
                     lambda a, b, c: a @ b @ c),
}

GRADIENTS = {
    "einsum_matmul": (lambda a, b: tf.einsum("ij,jk->ik", a, b), _u(2, 3), _u(3, 4)),
    "einsum_batch_ellipsis": (lambda a, b: tf.einsum("...ij,...jk", a, b), _u(2, 2, 3),
                              _u(2, 3, 2)),
    "einsum_summed_out": (lambda a, b: tf.einsum("ij,k->k", a, b), _u(2, 3), _u(4)),
    "einsum_outer": (lambda a, b: tf.einsum("i,j->ij", a, b), _u(3), _u(2)),
}

MIXED_DTYPES = {
    "einsum": lambda: tf.einsum("ij,jk->ik", tf.constant(F32), tf.constant(F64)),
}


test_values_match_numpy = values_test(VALUES)
test_static_shapes_are_inferred = static_shapes_test(VALUES, ['einsum_three'])
test_gradient_matches_finite_differences = gradients_test(GRADIENTS)
test_mixed_dtypes_are_an_error_naming_the_op_and_operands = mixed_dtypes_test(
    MIXED_DTYPES)


@pytest.mark.parametrize("fn, error, pattern", [
    (lambda: tf.einsum("ij,jk->iz", tf.ones([2, 2]), tf.ones([2, 2])), ValueError, "'z'"),
])
def test_bad_arguments_raise_clear_python_errors(fn, error, pattern):
    with pytest.raises(error, match=pattern):
        fn()


def test_shape_errors_while_tracing_name_the_op():
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)], autograph=False)
    def bad(x):
        return tf.einsum("ij,jk->ik", x, tf.ones([4, 2]))
    with pytest.raises(ValueError, match="Einsum.*dimension 'j'"):
        bad.get_concrete_function()
