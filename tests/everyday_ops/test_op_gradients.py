"""The gradient of every new op (or composite) against finite differences, eagerly and with
the tape inside a tf.function."""

import numpy as np
import pytest

import autograph.tf as tf

from .gradient_checks import check_gradients

_rng = np.random.default_rng(7)


def _u(*shape):
    return _rng.uniform(-1.0, 1.0, size=shape)


def _distinct(*shape):
    """Values far apart (so sorting and max pooling have no near ties)."""
    n = int(np.prod(shape))
    return (_rng.permutation(n) * 0.1 + 0.05).reshape(shape)


_WELL_CONDITIONED = _u(3, 3) + 3 * np.eye(3)

CASES = {
    "split": (lambda x: tf.split(x, [1, -1], axis=1)[1] * 2.0, _u(2, 3)),
    "pad_constant": (lambda x: tf.pad(x, [[1, 0], [2, 1]], constant_values=0.5), _u(2, 3)),
    "pad_reflect": (lambda x: tf.pad(x, [[2, 1], [1, 2]], "REFLECT"), _u(3, 4)),
    "pad_symmetric": (lambda x: tf.pad(x, [[2, 2], [0, 3]], "SYMMETRIC"), _u(3, 4)),
    "slice": (lambda x: tf.slice(x, [1, 0], [1, -1]), _u(3, 4)),
    "strided_slice": (lambda x: tf.strided_slice(x, [0, 3], [3, 0], [2, -1]), _u(3, 4)),
    "reverse": (lambda x: tf.reverse(x, [0, 1]) * x, _u(2, 3)),
    "roll": (lambda x: tf.roll(x, [1, -2], [0, 1]) * x, _u(3, 4)),
    "repeat_each": (lambda x: tf.repeat(x, [2, 0, 1], axis=1), _u(2, 3)),
    "repeat_flat": (lambda x: tf.repeat(x, 2), _u(2, 3)),
    "linspace": (lambda a, b: tf.linspace(a, b, 5, axis=1), _u(2), _u(2)),
    "meshgrid": (lambda a, b: tf.meshgrid(a, b)[0] * tf.meshgrid(a, b)[1], _u(3), _u(2)),
    "gather_nd": (lambda x: tf.gather_nd(x, [[1, 2], [0, 0], [1, 2]]), _u(2, 3)),
    "gather_nd_depth_0": (lambda x: tf.gather_nd(x, tf.zeros([2, 0], tf.int32)) * [1.0, 2.0, 3.0],
                          _u(2, 3)),
    "scatter_nd": (lambda u: tf.scatter_nd([[1], [3], [1]], u, [4, 2]), _u(3, 2)),
    "tensor_scatter_nd_update": (
        lambda t, u: tf.tensor_scatter_nd_update(t, [[0], [2]], u), _u(3, 2), _u(2, 2)),
    "tensor_scatter_nd_add": (
        lambda t, u: tf.tensor_scatter_nd_add(t, [[0], [0]], u), _u(3, 2), _u(2, 2)),
    "boolean_mask": (lambda x: tf.boolean_mask(x, [[True, False, True], [False, True, True]]),
                     _u(2, 3, 2)),
    "sort": (lambda x: tf.sort(x, axis=0) * tf.constant([[1.0], [2.0], [3.0]], tf.float64),
             _distinct(3, 2)),
    "sort_descending": (
        lambda x: tf.sort(x, direction="DESCENDING") * tf.range(4.0, dtype=tf.float64),
        _distinct(2, 4)),
    "top_k": (lambda x: tf.math.top_k(x, 2).values, _distinct(3, 4)),
    "einsum_matmul": (lambda a, b: tf.einsum("ij,jk->ik", a, b), _u(2, 3), _u(3, 4)),
    "einsum_batch_ellipsis": (lambda a, b: tf.einsum("...ij,...jk", a, b), _u(2, 2, 3),
                              _u(2, 3, 2)),
    "einsum_summed_out": (lambda a, b: tf.einsum("ij,k->k", a, b), _u(2, 3), _u(4)),
    "einsum_outer": (lambda a, b: tf.einsum("i,j->ij", a, b), _u(3), _u(2)),
    "cumprod": (lambda x: tf.math.cumprod(x, axis=1), _u(2, 4) + 2.0),
    "cumprod_exclusive_reverse": (
        lambda x: tf.math.cumprod(x, axis=0, exclusive=True, reverse=True), _u(3, 2) + 2.0),
    "norm": (lambda x: tf.norm(x), _u(2, 3)),
    "norm_axis": (lambda x: tf.norm(x, ord=1, axis=1), _u(2, 3)),
    "norm_p3": (lambda x: tf.norm(x, ord=3, axis=0), _u(2, 3)),
    "norm_matrix_inf": (lambda x: tf.norm(x, ord=np.inf, axis=[0, 1]), _distinct(2, 3)),
    "clip_by_norm": (lambda x: tf.clip_by_norm(x, 0.5), _u(2, 3)),
    "clip_by_global_norm": (lambda a, b: tf.clip_by_global_norm([a, b], 0.7)[0][1],
                            _u(2), _u(3)),
    "reduce_logsumexp": (lambda x: tf.reduce_logsumexp(x, axis=1), _u(2, 3) * 5),
    "segment_sum": (lambda x: tf.math.segment_sum(x, [0, 0, 2]), _u(3, 2)),
    "unsorted_segment_sum": (lambda x: tf.math.unsorted_segment_sum(x, [2, -1, 0], 3),
                             _u(3, 2)),
    "inv": (lambda a: tf.linalg.inv(a), _WELL_CONDITIONED),
    "det": (lambda a: tf.linalg.det(a), _WELL_CONDITIONED),
    "det_batched": (lambda a: tf.linalg.det(a), np.stack([_WELL_CONDITIONED, np.eye(3)])),
    "solve": (lambda a, b: tf.linalg.solve(a, b), _WELL_CONDITIONED, _u(3, 2)),
    "diag": (lambda d: tf.linalg.diag(d), _u(2, 3)),
    "diag_part": (lambda x: tf.linalg.diag_part(x), _u(2, 3, 3)),
    "diag_part_rectangular": (lambda x: tf.linalg.diag_part(x), _u(3, 2)),
    "band_part": (lambda x: tf.linalg.band_part(x, 1, 0), _u(3, 3)),
    "matrix_transpose": (lambda x: tf.linalg.matrix_transpose(x), _u(2, 3, 4)),
    "relu6": (lambda x: tf.nn.relu6(x),
              np.array([[-1.0, 0.5, 3.0, 5.5], [6.5, 7.0, -0.2, 2.0]])),
    "leaky_relu": (lambda x: tf.nn.leaky_relu(x, 0.3), _u(2, 3)),
    "elu": (lambda x: tf.nn.elu(x), _u(2, 3)),
    "gelu": (lambda x: tf.nn.gelu(x), _u(2, 3)),
    "gelu_approximate": (lambda x: tf.nn.gelu(x, approximate=True), _u(2, 3)),
    "silu": (lambda x: tf.nn.silu(x), _u(2, 3)),
    "l2_loss": (lambda x: tf.nn.l2_loss(x), _u(2, 3)),
    "moments_mean": (lambda x: tf.nn.moments(x, [0])[0], _u(3, 2)),
    "moments_variance": (lambda x: tf.nn.moments(x, [0, 1])[1], _u(3, 2)),
    "softmax_cross_entropy": (
        lambda labels, logits: tf.nn.softmax_cross_entropy_with_logits(labels, logits),
        np.abs(_u(2, 3)), _u(2, 3)),
    "sparse_softmax_cross_entropy": (
        lambda logits: tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.constant([2, 0]), logits=logits), _u(2, 3)),
    "sigmoid_cross_entropy": (
        lambda labels, logits: tf.nn.sigmoid_cross_entropy_with_logits(labels=labels,
                                                                       logits=logits),
        np.abs(_u(2, 3)), _u(2, 3) * 4),
    "conv2d_same_strided": (lambda x, f: tf.nn.conv2d(x, f, 2, "SAME"), _u(1, 5, 4, 2),
                            _u(3, 2, 2, 3)),
    "conv2d_valid_dilated": (lambda x, f: tf.nn.conv2d(x, f, 1, "VALID", dilations=2),
                             _u(2, 5, 5, 1), _u(2, 2, 1, 2)),
    "conv1d": (lambda x, f: tf.nn.conv1d(x, f, 1, "SAME"), _u(2, 5, 2), _u(3, 2, 2)),
    "max_pool2d": (lambda x: tf.nn.max_pool2d(x, 2, 2, "SAME"), _distinct(1, 5, 4, 2)),
    "avg_pool2d": (lambda x: tf.nn.avg_pool2d(x, 3, 2, "SAME"), _u(2, 5, 4, 1)),
}


@pytest.mark.parametrize("in_function", [False, True], ids=["eager", "tape_in_function"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name, in_function):
    fn, *arrays = CASES[name]
    check_gradients(fn, *arrays, in_function=in_function)


def test_second_order_through_pad_and_repeat():
    """PadGrad and RepeatGrad have gradients of their own (Pad and Repeat)."""
    x = tf.constant(_u(2, 3))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.pad(x, [[1, 1], [1, 1]], "REFLECT") ** 3)
            y += tf.reduce_sum(tf.repeat(x, 2, axis=0) ** 3)
        g = inner.gradient(y, x)
        total = tf.reduce_sum(g * g)
    second = outer.gradient(total, x)
    # y = sum(m * x**3), m the number of copies of each element: 2 rows each, columns
    # [1, 3, 1] times in the reflected padding, and 2 repeats; so total = sum(9 m^2 x^4)
    m = 2 * np.array([[1.0, 3.0, 1.0]] * 2) + 2
    np.testing.assert_allclose(second.numpy(), 36 * m ** 2 * x.numpy() ** 3, rtol=1e-10)


def test_indices_and_labels_get_no_gradient():
    x = tf.constant(_u(2, 3))
    labels = tf.constant([1, 2])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        loss = tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, x))
        sorted_positions = tf.cast(tf.argsort(x), tf.float64)
    assert tape.gradient(loss, labels) is None
    assert tape.gradient(sorted_positions, x) is None


SECOND_ORDER = {
    "sort": (lambda x: tf.sort(x) ** 3, _distinct(2, 4)),
    "top_k": (lambda x: tf.math.top_k(x, 2).values ** 3, _distinct(2, 4)),
    "conv2d": (lambda x, f: tf.nn.conv2d(x, f, 2, "SAME") ** 2, _u(1, 5, 4, 2),
               _u(3, 2, 2, 2)),
    "max_pool2d": (lambda x: tf.nn.max_pool2d(x, 2, 1, "SAME") ** 3, _distinct(1, 3, 4, 2)),
    "avg_pool2d": (lambda x: tf.nn.avg_pool2d(x, 2, 2, "SAME") ** 3, _u(1, 3, 5, 1)),
}


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_order_matches_finite_differences_of_the_gradient(name):
    """The gradient ops (TopKGrad, Conv2DBackprop*, MaxPoolGrad, AvgPoolGrad) have gradients:
    the gradient of sum(grad * w) matches finite differences of the first-order gradient."""
    fn, *arrays = SECOND_ORDER[name]
    weights = [np.random.default_rng(1).uniform(0.5, 1.5, a.shape) for a in arrays]

    def weighted_gradient(*xs):
        with tf.GradientTape() as tape:
            tape.watch(list(xs))
            y = tf.reduce_sum(fn(*xs))
        grads = tape.gradient(y, list(xs))
        return tf.add_n([tf.reduce_sum(g * w) for g, w in zip(grads, weights)])
    check_gradients(lambda *xs: tf.reshape(weighted_gradient(*xs), [1]), *arrays, rtol=1e-4)


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
