"""Neural-network ops (activations, losses, softmax, tf.nn.moments, tf.nn.l2_loss): values
against numpy, eagerly and traced; gradients against finite differences; clear errors.
Softmax's tables (values with exact and unknown static shapes, gradient rules, dtypes) are
written against the runtime alone (tests/op_cases.py)."""

import functools
from math import erf, erfc, sqrt

import numpy as np
import pytest
from op_cases import (
    CUBE,
    F1,
    case,
    eager_values_test,
    gradient_rules_test,
    traced_values_test,
    unknown_dims_test,
    unsupported_dtype_tests,
)
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
from runtime import dtypes
from runtime.ops import nn_ops

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
    "erfc": (lambda x: tf.math.erfc(x * 3.0), [D], lambda x: np.vectorize(erfc)(x * 3.0)),
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
    "erfc": (lambda x: tf.math.erfc(x), _u(2, 3)),
    "selu": (lambda x: tf.nn.selu(x * 2.0), _u(2, 3)),
    "softsign": (lambda x: tf.nn.softsign(x), _u(2, 3)),
    "bias_add": (lambda x, b: tf.nn.bias_add(x, b), _u(2, 3), _u(3)),
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


def test_leaky_relu_of_float64_scales_by_the_float32_alpha_as_tensorflow():
    # alpha is a float attribute (32 bits): TensorFlow gives -0.7000000104308128 for -3.5
    got = tf.nn.leaky_relu(tf.constant([-3.5, 2.0], tf.float64)).numpy()
    np.testing.assert_array_equal(got, [-3.5 * float(np.float32(0.2)), 2.0])


def test_gelu_keeps_every_digit_of_negative_inputs_as_tensorflow():
    # TensorFlow 2.21's float32 values, 0.5 * x * erfc(-x / sqrt(2)): with 1 + erf(x / sqrt(2))
    # the sum cancels, and gelu(-6) came out 0
    x = np.float32([-8.0, -6.0, -5.0, -3.5, -2.5, -1.0, 0.5, 3.0])
    expected = np.float32([-4.976773845328164e-15, -5.9195350843310734e-09,
                           -1.433257807548216e-06, -0.0008142015431076288,
                           -0.015524163842201233, -0.15865525603294373, 0.3457312285900116,
                           2.995950222015381])
    np.testing.assert_array_max_ulp(tf.nn.gelu(x).numpy(), expected, maxulp=2)


def test_selu_softsign_and_bias_add_give_tensorflows_values():
    x = np.float32([-2.0, -0.5, 0.0, 0.5, 3.0])
    np.testing.assert_array_max_ulp(tf.nn.selu(x).numpy(), np.float32(
        [-1.5201665163040161, -0.6917581558227539, 0.0, 0.5253505110740662,
         3.1521029472351074]), maxulp=1)
    np.testing.assert_array_equal(tf.math.softsign(x).numpy(), np.float32(
        [-0.6666666865348816, -0.3333333432674408, 0.0, 0.3333333432674408, 0.75]))
    assert tf.nn.softsign is tf.math.softsign
    m = np.float32([[1.5, -2.0, 0.0], [3.25, 0.5, -1.0]])
    np.testing.assert_array_equal(tf.nn.bias_add(m, [1.0, 2.0, 3.0]).numpy(),
                                  [[2.5, 0.0, 3.0], [4.25, 2.5, 2.0]])
    nchw = tf.nn.bias_add(np.ones((1, 2, 2, 2), np.float32), [1.0, 5.0], data_format="NCHW")
    np.testing.assert_array_equal(nchw.numpy()[0, :, 0, 0], [2.0, 6.0])


def test_bias_add_refuses_a_bias_that_does_not_fit_the_channels():
    m = np.float32([[1.5, -2.0, 0.0], [3.25, 0.5, -1.0]])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"as many biases as the last dimension of the input tensor: "
                             r"\[2\] vs. \[2,3\]") as info:
        tf.nn.bias_add(m, [1.0, 2.0])
    assert __file__ in str(info.value)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Biases must be 1D: \[1,3\]"):
        tf.nn.bias_add(m, [[1.0, 2.0, 3.0]])
    traced = tf.function(lambda v: tf.nn.bias_add(v, [1.0, 2.0]))
    with pytest.raises(ValueError, match="as many biases"):  # TensorFlow's shape function's
        traced(m)


def test_bias_add_of_a_traced_input_of_unknown_rank_adds_along_the_last_axis():
    unknown = [tf.TensorSpec(None, tf.float32)]
    traced = tf.function(lambda v: tf.nn.bias_add(v, [1.0, 2.0]), input_signature=unknown)
    np.testing.assert_array_equal(traced(tf.ones([2, 2])).numpy(), [[2.0, 3.0], [2.0, 3.0]])
    channels_first = tf.function(lambda v: tf.nn.bias_add(v, [1.0, 2.0], data_format="NCHW"),
                                 input_signature=unknown)
    with pytest.raises(ValueError, match="needs the input's rank"):
        channels_first(tf.ones([1, 2, 2, 2]))


def test_labels_of_a_sparse_softmax_cross_entropy_get_no_gradient():
    x = tf.constant(_u(2, 3))
    labels = tf.constant([1, 2])
    with tf.GradientTape() as tape:
        tape.watch(x)
        loss = tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(labels, x))
    assert tape.gradient(loss, labels) is None


# -- softmax and log_softmax against the runtime alone (tests/op_cases.py) ------------------------

def _np_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _np_log_softmax(x, axis=-1):
    return np.log(_np_softmax(x, axis))


def _cases():
    out = []
    out.append(case("nn.softmax", nn_ops.softmax, (F1,), _np_softmax, dtypes.float32))
    out.append(case("nn.softmax axis 0", functools.partial(nn_ops.softmax, axis=0), (F1,),
                    functools.partial(_np_softmax, axis=0), dtypes.float32))
    out.append(case("math.softmax", nn_ops.softmax, (CUBE,), _np_softmax, dtypes.float32))
    out.append(case("nn.log_softmax", nn_ops.log_softmax, (F1,), _np_log_softmax,
                    dtypes.float32))
    out.append(case("math.log_softmax", nn_ops.log_softmax, (F1,), _np_log_softmax,
                    dtypes.float32))
    return out


CASES = _cases()

test_eager_result_matches_numpy = eager_values_test(CASES)
test_traced_result_equals_eager_and_static_shape_is_exact = traced_values_test(CASES)
test_traced_with_unknown_dims_gives_compatible_static_shape = unknown_dims_test(CASES)


UNSUPPORTED_DTYPE = [
    ("softmax int", nn_ops.softmax, [1, 2], "Softmax"),
]

test_unsupported_dtype_raises_invalid_argument_eagerly, \
    test_unsupported_dtype_raises_type_error_while_tracing = \
    unsupported_dtype_tests(UNSUPPORTED_DTYPE)


GRADIENT_RULES = {
    "softmax": (nn_ops.softmax, _u(2, 4)),
    "log_softmax": (nn_ops.log_softmax, _u(2, 4)),
}

test_rule_matches_finite_differences = gradient_rules_test(GRADIENT_RULES)
