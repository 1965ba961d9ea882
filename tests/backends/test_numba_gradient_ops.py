"""numba rules for the gradient helpers ReluGrad, GatherGrad and BroadcastLike
(runtime/ops/gradient_ops.py), and top_k's TopKGrad and TakeAlongLastAxis: gradients taken
inside a traced function lower (strict) and give the numpy executor's values, dtype and
shape bit for bit."""

import re

import numpy as np
import pytest
from numba_compare import executor_and_numba

import autograph.tf as tf

numba = pytest.importorskip("numba")

_X = np.arange(24, dtype=np.float32).reshape(2, 3, 4) * np.float32(1.37) - 7.5


def _assert_same(expected, got):
    assert len(expected) == len(got)
    for e, g in zip(expected, got):
        assert e.dtype == g.dtype and e.shape == g.shape
        np.testing.assert_array_equal(e.numpy(), g.numpy())


def _relu_and_gather_gradients(x, indices):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = (tf.reduce_sum(tf.nn.relu(x * 2.0 - 1.0) * 3.0)
             + tf.reduce_sum(tf.gather(x, indices, axis=1) ** 2)
             + tf.reduce_sum(tf.nn.relu(x[0, 0]) * x[0, 0]))
    return (tape.gradient(y, x),)


def test_relu_and_gather_gradients_with_repeated_indices():
    indices = np.array([2, 0, 2, 1, 2], np.int32)
    _assert_same(*executor_and_numba(_relu_and_gather_gradients, _X, indices))
    _assert_same(*executor_and_numba(_relu_and_gather_gradients, _X.astype(np.float64),
                                     indices.astype(np.int64)))


def test_relu_gradient_of_special_values_in_its_own_loop():
    # between two matrix products ReluGrad fuses with nothing: on numba, a loop of its own
    y = np.array([[1.0, 0.0, -0.0, -2.0], [np.nan, 5.0, -3.0, 3.0]], np.float32)
    weights = np.array([[1.0, -2.0, 0.5], [-1.0, 3.0, -0.25], [2.0, -0.5, 1.0],
                        [-3.0, 1.0, 4.0]], np.float32)

    def f(y, weights):
        with tf.GradientTape() as tape:
            tape.watch(y)
            loss = tf.reduce_sum(tf.matmul(tf.nn.relu(y), weights))
        return (tape.gradient(loss, y),)

    expected, got = executor_and_numba(f, y, weights)
    _assert_same(expected, got)
    assert np.array_equal(np.signbit(expected[0].numpy()), np.signbit(got[0].numpy()))
    source = tf.function(f, backend="numba").get_concrete_function(
        tf.constant(y), tf.constant(weights))._compiled.source
    # (element by element in a loop, not the array expression `g * (y > 0)`)
    assert re.search(r"f\d+\[i\d+\] \* \(f\d+\[i\d+\] > 0\)", source)


def test_relu_and_gather_gradients_of_shapes_known_at_run_time():
    def f(x, indices):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.nn.relu(tf.gather(x, indices, axis=1)))
        return (tape.gradient(y, x),)

    signature = [tf.TensorSpec([None, None, None], tf.float32),
                 tf.TensorSpec([None], tf.int32)]
    _assert_same(*executor_and_numba(f, _X, np.array([2, 0, 2, 1, 2], np.int32),
                                     input_signature=signature))


def test_a_second_order_gradient_broadcasts_like_its_operand():
    def f(x, b):
        with tf.GradientTape() as outer:
            outer.watch(b)
            with tf.GradientTape() as inner:
                inner.watch(b)
                z = tf.reduce_sum((x + b) ** 2)
            slope = inner.gradient(z, b)
            w = tf.reduce_sum(slope * slope)
        return (outer.gradient(w, b),)

    _assert_same(*executor_and_numba(f, _X, np.float32([1.0, 2.0, 3.0, 4.0])))


def test_top_k_gradients_put_and_take_along_the_last_axis():
    def f(x, w, c):
        with tf.GradientTape() as outer:
            outer.watch(w)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = tf.reduce_sum(tf.math.top_k(x, 2).values * w)
            slope = inner.gradient(y, x)  # TopKGrad
            z = tf.reduce_sum(slope * c)
        return slope, outer.gradient(z, w)  # TakeAlongLastAxis

    w = np.float32([[[0.5, -2.0]] * 3] * 2)
    _assert_same(*executor_and_numba(f, _X, w, _X * 0.25))
