"""Ops of several families in graphs whose shapes are not fully known: traced with unknown
dimensions they infer what they can and compute the right values, and the gradient rules that
read static shapes fall back to run-time shapes; rank-0 operands reach the compiled kernels as
numpy scalars and each op still gives an array of its dtype."""

from math import erf, exp

import numpy as np

import autograph.tf as tf


def test_scalar_operands_in_a_graph():
    """Rank-0 values reach kernels as numpy scalars in compiled graphs: each op still gives
    an array of its dtype."""
    @tf.function(autograph=False)
    def f(x):
        return (tf.math.erf(x), tf.nn.relu6(x * 20), tf.nn.elu(-x), tf.nn.leaky_relu(-x),
                tf.linalg.det(tf.reshape(tf.stack([x, 1.0, 2.0, x]), [2, 2])),
                tf.strings.format("{}", x), tf.reduce_logsumexp(x))
    values = [t.numpy() for t in f(tf.constant(0.5))]
    np.testing.assert_allclose(values[0], erf(0.5), rtol=1e-6)
    assert values[1] == 6 and values[4] == np.float32(-1.75)
    np.testing.assert_allclose(values[2:4], [exp(-0.5) - 1, -0.1], rtol=1e-6)
    assert values[5] == b"0.5" and values[6] == np.float32(0.5)
    assert all(np.asarray(v).dtype == np.float32 for i, v in enumerate(values) if i != 5)


def test_unknown_dimensions_trace_and_run():
    """Ops traced with unknown dimensions infer what they can and compute the right values."""
    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32)], autograph=False)
    def f(x):
        parts = tf.split(x, [1, -1], axis=0)
        return (tf.pad(parts[1], [[1, 0], [0, 2]]), tf.sort(x, axis=0),
                tf.boolean_mask(x, x > 0), tf.reduce_logsumexp(x, axis=1),
                tf.einsum("ij->j", x), tf.roll(x, 1, 0), tf.meshgrid(x[0], x[:, 0]))
    x = np.arange(6, dtype=np.float32).reshape(3, 2) - 2
    padded, ordered, masked, lse, colsum, rolled, grids = f(tf.constant(x))
    np.testing.assert_array_equal(padded.numpy(), np.pad(x[1:], [[1, 0], [0, 2]]))
    np.testing.assert_array_equal(ordered.numpy(), np.sort(x, axis=0))
    np.testing.assert_array_equal(masked.numpy(), x[x > 0])
    np.testing.assert_allclose(lse.numpy(), np.log(np.exp(x).sum(1)), rtol=1e-6)
    np.testing.assert_array_equal(colsum.numpy(), x.sum(0))
    np.testing.assert_array_equal(rolled.numpy(), np.roll(x, 1, 0))
    np.testing.assert_array_equal(grids[1].numpy(), np.meshgrid(x[0], x[:, 0])[1])


def test_gradients_with_unknown_dimensions_in_a_graph():
    """Rules that read static shapes fall back to run-time shapes (einsum's summed-out
    operand, gather_nd's scatter, linspace, top_k)."""
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float64),
                                  tf.TensorSpec([None], tf.float64)], autograph=False)
    def grads(a, b):
        with tf.GradientTape() as tape:
            tape.watch([a, b])
            y = (tf.reduce_sum(tf.einsum("ij,k->k", a, b) ** 2)
                 + tf.reduce_sum(tf.linspace(b[0], b[1], 4))
                 + tf.reduce_sum(tf.math.top_k(a[0], 2).values)
                 + tf.reduce_sum(tf.gather_nd(a, [[0, 1]])))
        return tape.gradient(y, [a, b])
    a, b = np.arange(6.0).reshape(2, 3), np.array([1.0, 2.0])
    ga, gb = grads(tf.constant(a), tf.constant(b))
    total = a.sum()  # y = sum_k (total * b_k)^2 + ...
    want_a = np.full((2, 3), 2 * total * (b ** 2).sum()) + [[0, 2, 1], [0, 0, 0]]
    np.testing.assert_allclose(ga.numpy(), want_a)
    np.testing.assert_allclose(gb.numpy(), 2 * total ** 2 * b + 2)
