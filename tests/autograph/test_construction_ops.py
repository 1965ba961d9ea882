"""Construction ops (tf.eye, tf.linspace, tf.meshgrid, tf.sequence_mask): values against
numpy, eagerly and traced, tf.eye with sizes known only when the graph runs too;
gradients against finite differences; clear errors."""

import numpy as np
import pytest
from op_checks import (
    D,
    F,
    GradientOperands,
    gradients_test,
    mixed_dtypes_test,
    values_test,
)

import autograph.tf as tf

_operands = GradientOperands(7)
_u = _operands.uniform

VALUES = {
    # name: (function of tensors, inputs, numpy reference of the same inputs)
    # name: (function of tensors, inputs, numpy reference of the same inputs)
    "eye": (lambda: tf.eye(2, 3, batch_shape=[2], dtype=tf.int32), [],
            lambda: np.broadcast_to(np.eye(2, 3, dtype=np.int32), (2, 2, 3))),
    "linspace": (lambda a, b: tf.linspace(a, b, 4), [np.float32(1), np.float32(2.5)],
                 lambda a, b: np.linspace(a, b, 4, dtype=np.float32)),
    "linspace_python_numbers": (lambda: tf.linspace(0, 1, 3), [],
                                lambda: np.array([0, 0.5, 1], np.float32)),
    "linspace_vectors": (lambda a, b: tf.linspace(a, b, 3, axis=-1), [D[0], D[1]],
                         lambda a, b: np.linspace(a, b, 3, axis=-1)),
    "meshgrid_xy": (lambda a, b: tf.stack(tf.meshgrid(a, b)), [F[0, :3], F[1, :3]],
                    lambda a, b: np.stack(np.meshgrid(a, b))),
    "meshgrid_ij": (lambda a, b: tf.meshgrid(a, b, indexing="ij")[1], [F[0], F[1, :2]],
                    lambda a, b: np.meshgrid(a, b, indexing="ij")[1]),
    "sequence_mask": (lambda n: tf.sequence_mask(n, 4), [np.array([0, 2, 4], np.int32)],
                      lambda n: np.arange(4) < n[:, None]),
    "sequence_mask_float": (lambda n: tf.sequence_mask(n, dtype=tf.float32),
                            [np.array([[1, 3]], np.int32)],
                            lambda n: (np.arange(3) < n[..., None]).astype(np.float32)),
}

GRADIENTS = {
    "linspace": (lambda a, b: tf.linspace(a, b, 5, axis=1), _u(2), _u(2)),
    "meshgrid": (lambda a, b: tf.meshgrid(a, b)[0] * tf.meshgrid(a, b)[1], _u(3), _u(2)),
}

MIXED_DTYPES = {
    "linspace": lambda: tf.linspace(tf.constant(1.0), tf.constant(2.0, tf.float64), 3),
}


test_values_match_numpy = values_test(
    VALUES, keeps_input_dtype=lambda name: not name.startswith('sequence'))
test_gradient_matches_finite_differences = gradients_test(GRADIENTS)
test_mixed_dtypes_are_an_error_naming_the_op_and_operands = mixed_dtypes_test(
    MIXED_DTYPES)


@pytest.mark.parametrize("fn, error, pattern", [
    (lambda: tf.sequence_mask([1.5]), TypeError, "integers"),
])
def test_bad_arguments_raise_clear_python_errors(fn, error, pattern):
    with pytest.raises(error, match=pattern):
        fn()


def _traced_on_a_matrix(fn):
    """fn traced for float32 matrices of any size."""
    return tf.function(fn, input_signature=[tf.TensorSpec([None, None], tf.float32)],
                       autograph=False)


@pytest.mark.parametrize("rows, columns", [(3, 2), (2, 4), (0, 3)])
def test_square_and_rectangular_eye_from_runtime_sizes(rows, columns):
    """tf.eye(tf.shape(x)[0]): sizes known only when the Function runs, as TensorFlow allows
    in graphs, give numpy's eye for each input."""
    x = np.zeros((rows, columns), np.float32)
    square = _traced_on_a_matrix(lambda a: tf.eye(tf.shape(a)[0]))
    np.testing.assert_array_equal(square(x).numpy(), np.eye(rows, dtype=np.float32))
    rectangle = _traced_on_a_matrix(lambda a: tf.eye(tf.shape(a)[0], tf.shape(a)[1],
                                                     dtype=tf.int32))
    out = rectangle(x)
    assert out.dtype is tf.int32
    np.testing.assert_array_equal(out.numpy(), np.eye(rows, columns, dtype=np.int32))


def test_runtime_size_with_a_static_one_and_a_batch_shape():
    f = _traced_on_a_matrix(lambda a: tf.eye(tf.shape(a)[1], 3, batch_shape=[2]))
    expected = np.broadcast_to(np.eye(2, 3, dtype=np.float32), (2, 2, 3))
    np.testing.assert_array_equal(f(np.zeros((5, 2), np.float32)).numpy(), expected)


def test_a_float_runtime_size_is_refused():
    f = _traced_on_a_matrix(lambda a: tf.eye(tf.cast(tf.shape(a)[0], tf.float32)))
    with pytest.raises(TypeError, match="eye: num_rows must be a scalar integer, got a float32"):
        f(np.zeros((2, 2), np.float32))
