"""Neural-network ops (activations, losses, tf.nn.moments, tf.nn.l2_loss): values against
numpy, eagerly and traced; gradients against finite differences; clear errors."""

from math import erf, sqrt

import numpy as np
import pytest
from op_checks import (
    INTS,
    D,
    F,
    GradientOperands,
    gradients_test,
    static_shapes_test,
    values_test,
)

import autograph.tf as tf

_operands = GradientOperands(7)
_u = _operands.uniform


def _gelu(x):
    return np.array([0.5 * v * (1 + erf(v / sqrt(2))) for v in x.ravel()]).reshape(x.shape)


def _log_softmax(x):
    shifted = x - x.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))

VALUES = {
    # name: (function of tensors, inputs, numpy reference of the same inputs)
    "relu6": (lambda x: tf.nn.relu6(x * 5), [F], lambda x: np.clip(x * 5, 0, 6)),
    "relu6_int": (lambda x: tf.nn.relu6(x * 2), [INTS], lambda x: np.clip(x * 2, 0, 6)),
    "leaky_relu": (lambda x: tf.nn.leaky_relu(x), [F], lambda x: np.where(x > 0, x, 0.2 * x)),
    "elu": (lambda x: tf.nn.elu(x), [D], lambda x: np.where(x > 0, x, np.expm1(x))),
    "gelu": (lambda x: tf.nn.gelu(x), [D], _gelu),
    "silu": (lambda x: tf.nn.silu(x), [D], lambda x: x / (1 + np.exp(-x))),
    "l2_loss": (lambda x: tf.nn.l2_loss(x), [D], lambda x: (x ** 2).sum() / 2),
    "moments": (lambda x: tf.stack(tf.nn.moments(x, [0])), [D],
                lambda x: np.stack([x.mean(0), x.var(0)])),
    "moments_keepdims": (lambda x: tf.nn.moments(x, [1], keepdims=True)[1], [D],
                         lambda x: x.var(1, keepdims=True)),
    "softmax_cross_entropy": (
        lambda x: tf.nn.softmax_cross_entropy_with_logits(tf.nn.softmax(x * 0.5), x), [D],
        lambda x: -(np.exp(_log_softmax(x * 0.5)) * _log_softmax(x)).sum(-1)),
    "sparse_softmax_cross_entropy": (
        lambda x: tf.nn.sparse_softmax_cross_entropy_with_logits([2, 0, 3], x), [F],
        lambda x: -_log_softmax(x)[[0, 1, 2], [2, 0, 3]]),
    "sigmoid_cross_entropy": (
        lambda x: tf.nn.sigmoid_cross_entropy_with_logits(labels=x * 0 + 0.25, logits=x * 50),
        [D], lambda x: np.maximum(x * 50, 0) - x * 50 * 0.25 + np.log1p(np.exp(-np.abs(x * 50)))),
}

GRADIENTS = {
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
}


test_values_match_numpy = values_test(VALUES)
test_static_shapes_are_inferred = static_shapes_test(VALUES, ['relu6'])
test_gradient_matches_finite_differences = gradients_test(GRADIENTS)


@pytest.mark.parametrize("fn, op, pattern", [
    (lambda: tf.nn.sparse_softmax_cross_entropy_with_logits([3], [[1.0, 2.0]]),
     "SparseSoftmaxCrossEntropyWithLogits", "outside the valid range"),
    (lambda: tf.nn.elu(tf.constant([1, 2])), "Elu", "int32"),
])
def test_bad_values_raise_invalid_argument_naming_the_op(fn, op, pattern):
    with pytest.raises(tf.errors.InvalidArgumentError, match=pattern) as info:
        fn()
    assert op in str(info.value)
    assert __file__ in str(info.value)  # the user's line


@pytest.mark.parametrize("alpha", [0.2, 0.0, 1.0, 1.5, -0.5])
def test_leaky_relu_for_any_alpha(alpha):
    x = np.array([-2.0, -0.5, 0.0, 0.5, np.nan], np.float32)
    got = tf.nn.leaky_relu(x, alpha).numpy()
    want = np.where(x > 0, x, alpha * x).astype(np.float32)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == np.float32


def test_labels_of_a_sparse_softmax_cross_entropy_get_no_gradient():
    x = tf.constant(_u(2, 3))
    labels = tf.constant([1, 2])
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, x))
    assert tape.gradient(loss, labels) is None
