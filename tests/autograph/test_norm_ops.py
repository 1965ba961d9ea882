"""Norms, clipping and spreads (tf.norm, tf.clip_by_norm, tf.clip_by_global_norm,
tf.reduce_logsumexp, tf.math.l2_normalize, tf.math.reduce_variance/reduce_std): values
against numpy, eagerly and traced; gradients against finite differences."""

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
    "reduce_variance": (lambda x: tf.math.reduce_variance(x, axis=0), [D],
                        lambda x: x.var(0)),
    "reduce_std_keepdims": (lambda x: tf.math.reduce_std(x, 1, keepdims=True), [D],
                            lambda x: x.std(1, keepdims=True)),
    "l2_normalize": (lambda x: tf.math.l2_normalize(x, axis=1), [D],
                     lambda x: x / np.sqrt((x ** 2).sum(1, keepdims=True))),
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
    "reduce_variance": (lambda x: tf.math.reduce_variance(x, axis=1), _u(2, 3)),
    "reduce_std": (lambda x: tf.math.reduce_std(x), _u(2, 3)),
    "l2_normalize": (lambda x: tf.nn.l2_normalize(x, axis=0), _u(2, 3)),
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


_SPREAD = np.array([[1.5, -2.0, 0.0], [3.25, 0.5, -1.0]], np.float32)


def test_variance_std_and_l2_normalize_give_tensorflows_values():
    # TensorFlow 2.21's outputs for the same calls
    assert tf.math.reduce_variance(_SPREAD).numpy() == np.float32(2.8697917461395264)
    np.testing.assert_array_equal(tf.math.reduce_std(_SPREAD, 1).numpy(),
                                  np.float32([1.4337209463119507, 1.7598927021026611]))
    np.testing.assert_array_max_ulp(
        tf.math.reduce_variance(tf.complex(_SPREAD, _SPREAD * 2.0), 1).numpy(),
        np.float32([10.277777671813965, 15.486111640930176]), maxulp=2)
    np.testing.assert_array_equal(tf.math.l2_normalize(_SPREAD, 1).numpy(), np.float32(
        [[0.6000000238418579, -0.800000011920929, 0.0],
         [0.9456108212471008, 0.14547859132289886, -0.29095718264579773]]))
    np.testing.assert_array_equal(tf.nn.l2_normalize(tf.zeros([2])).numpy(), [0.0, 0.0])
    complex_unit = tf.math.l2_normalize(tf.constant([3 + 4j, 0j]))
    np.testing.assert_allclose(complex_unit.numpy(), [0.6 + 0.8j, 0j], rtol=1e-12)


@pytest.mark.parametrize("f", [tf.math.reduce_variance, tf.math.reduce_std,
                               tf.math.l2_normalize])
def test_spreads_and_l2_normalize_refuse_integers_naming_the_dtype(f):
    with pytest.raises(TypeError, match="expected a float or complex tensor, got int32"):
        f(tf.constant([1, 2]))
