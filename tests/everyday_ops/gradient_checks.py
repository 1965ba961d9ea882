"""Central finite differences against the tape's gradients (float64), eagerly and with the
tape inside a tf.function (the gradient built as graph nodes and compiled)."""

import numpy as np
from numeric_gradients import numeric_gradients

import autograph.tf as tf


def tape_gradients(scalar, arrays, in_function):
    """The tape's gradients of scalar(*tensors)."""
    def run(*xs):
        with tf.GradientTape() as tape:
            tape.watch(list(xs))
            y = scalar(*xs)
        return tape.gradient(y, list(xs))
    xs = [tf.constant(a) for a in arrays]
    grads = tf.function(run, autograph=False)(*xs) if in_function else run(*xs)
    return [g.numpy() for g in grads]


def check_gradients(fn, *arrays, in_function=False, rtol=1e-5, atol=1e-6, seed=0):
    """fn's vector-Jacobian product with random weights matches finite differences."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    out = fn(*[tf.constant(a) for a in arrays])
    weights = tf.constant(np.random.default_rng(seed).uniform(0.5, 1.5, size=out.shape))

    def scalar(*xs):
        return tf.reduce_sum(fn(*xs) * weights)
    want = numeric_gradients(lambda *a: float(scalar(*[tf.constant(b) for b in a])), arrays)
    got = tape_gradients(scalar, arrays, in_function)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
