"""Norms and clipping (tf.norm, tf.clip_by_norm, tf.clip_by_global_norm,
tf.reduce_logsumexp): values against numpy, eagerly and traced; gradients against finite
differences."""

import numpy as np
import pytest
from op_checks import (
    SQUARE,
    D,
    F,
    GradientOperands,
    gradients_test,
    values_test,
)

import autograph.tf as tf

_operands = GradientOperands(7)
_u, _distinct = _operands.uniform, _operands.distinct

VALUES = {
    # name: (function of tensors, inputs, numpy reference of the same inputs)
    "norm": (lambda x: tf.norm(x), [F], lambda x: np.linalg.norm(x)),
    "norm_axis_inf": (lambda x: tf.norm(x, np.inf, axis=1, keepdims=True), [F],
                      lambda x: np.abs(x).max(1, keepdims=True)),
    "norm_matrix_1": (lambda x: tf.norm(x, 1, axis=[-2, -1]), [SQUARE],
                      lambda x: np.linalg.norm(x, 1, axis=(-2, -1))),
    "clip_by_norm": (lambda x: tf.clip_by_norm(x, 1.0), [F],
                     lambda x: x / np.linalg.norm(x)),
    "clip_by_norm_unchanged": (lambda x: tf.clip_by_norm(x, 100.0), [F], lambda x: x),
    "clip_by_norm_zero": (lambda x: tf.clip_by_norm(x * 0, 1.0), [F], lambda x: x * 0),
    "clip_by_global_norm": (
        lambda a, b: tf.concat([tf.reshape(t, [-1]) for t in tf.clip_by_global_norm(
            [a, b], 2.0)[0]], 0), [F, F[0]],
        lambda a, b: np.concatenate([a.ravel(), b]) * 2.0 / np.sqrt(
            (a ** 2).sum() + (b ** 2).sum())),
    "global_norm_value": (lambda a: tf.clip_by_global_norm([a, None], 1.0)[1], [D],
                          lambda a: np.linalg.norm(a)),
    "reduce_logsumexp": (lambda x: tf.reduce_logsumexp(x * 100, axis=0), [D],
                         lambda x: np.log(np.exp(x * 100 - (x * 100).max(0)).sum(0)) +
                         (x * 100).max(0)),
}

GRADIENTS = {
    "norm": (lambda x: tf.norm(x), _u(2, 3)),
    "norm_axis": (lambda x: tf.norm(x, ord=1, axis=1), _u(2, 3)),
    "norm_p3": (lambda x: tf.norm(x, ord=3, axis=0), _u(2, 3)),
    "norm_matrix_inf": (lambda x: tf.norm(x, ord=np.inf, axis=[0, 1]), _distinct(2, 3)),
    "clip_by_norm": (lambda x: tf.clip_by_norm(x, 0.5), _u(2, 3)),
    "clip_by_global_norm": (lambda a, b: tf.clip_by_global_norm([a, b], 0.7)[0][1],
                            _u(2), _u(3)),
    "reduce_logsumexp": (lambda x: tf.reduce_logsumexp(x, axis=1), _u(2, 3) * 5),
}


test_values_match_numpy = values_test(VALUES)
test_gradient_matches_finite_differences = gradients_test(GRADIENTS)


def test_reduce_euclidean_norm_of_floats_and_of_integers_rounded_down_as_tensorflow():
    x = tf.constant([[1.0, 2.0], [2.0, 3.0]])
    np.testing.assert_allclose(tf.math.reduce_euclidean_norm(x).numpy(), np.sqrt(18.0),
                               rtol=1e-6)
    # TensorFlow's EuclideanNorm of integers: the root in the integer type, [2, 3] here
    got = tf.math.reduce_euclidean_norm(tf.constant([[1, 2], [2, 3]]), axis=1)
    assert got.dtype == tf.int32
    assert got.numpy().tolist() == [2, 3]


def test_reduce_euclidean_norm_refuses_bool_naming_the_dtype():
    with pytest.raises(TypeError, match="reduce_euclidean_norm.*bool"):
        tf.math.reduce_euclidean_norm(tf.constant([True]))
