"""Facade names the other tests do not reach by this path: aliases under a second
TensorFlow namespace, dtypes and constants, and a few ops."""

import math

import numpy as np

import autograph.tf as tf


def test_dtype_names():
    assert isinstance(tf.float32, tf.DType) and tf.dtypes.DType is tf.DType
    assert tf.dtypes.double is tf.float64
    assert tf.dtypes.resource.name == "resource"


def test_data_experimental_constants_are_tf_data_constants():
    assert tf.data.experimental.AUTOTUNE == tf.data.AUTOTUNE
    assert tf.data.experimental.INFINITE_CARDINALITY == tf.data.INFINITE_CARDINALITY
    assert tf.data.experimental.UNKNOWN_CARDINALITY == tf.data.UNKNOWN_CARDINALITY


def test_unconnected_gradients_zero():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.constant(3.0)
    grad = tape.gradient(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(grad.numpy(), [0.0, 0.0])


def test_top_level_cos_and_log():
    x = np.array([0.5, 2.0], np.float32)
    np.testing.assert_allclose(tf.cos(x).numpy(), np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(tf.log(x).numpy(), np.log(x), rtol=1e-6)


def test_math_erf_and_reduce_logsumexp():
    x = np.array([-2.0, -0.3, 0.0, 1.7], np.float64)
    np.testing.assert_allclose(tf.math.erf(x).numpy(), [math.erf(v) for v in x], rtol=1e-12)
    np.testing.assert_allclose(tf.math.reduce_logsumexp(x).numpy(),
                               np.log(np.exp(x).sum()), rtol=1e-12)


def test_linalg_aliases():
    a = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(tf.linalg.einsum("ij->ji", a).numpy(), a.T)
    np.testing.assert_array_equal(tf.linalg.eye(2).numpy(), np.eye(2, dtype=np.float32))
    np.testing.assert_allclose(tf.linalg.global_norm([a, None, a[0]]).numpy(),
                               np.sqrt((a ** 2).sum() + (a[0] ** 2).sum()))


def test_nn_aliases():
    x = np.array([[-1.0, 0.5, 2.0]])
    np.testing.assert_allclose(tf.nn.swish(x).numpy(), tf.nn.silu(x).numpy())
    values, indices = tf.nn.top_k(x, 2)
    np.testing.assert_array_equal(values.numpy(), [[2.0, 0.5]])
    np.testing.assert_array_equal(indices.numpy(), [[2, 1]])
