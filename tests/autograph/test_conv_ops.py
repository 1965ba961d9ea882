"""Convolution and pooling (tf.nn.conv1d, conv2d, max_pool2d, avg_pool2d): values against
a loop reference, eagerly and traced, and their static shapes; gradients against finite
differences (second order too); clear errors."""

import numpy as np
import pytest
from op_checks import (
    FILTERS,
    IMAGE,
    GradientOperands,
    check_second_order,
    gradients_test,
    mixed_dtypes_test,
    static_shapes_test,
    values_test,
)

import autograph.tf as tf

_operands = GradientOperands(7)
_u, _distinct = _operands.uniform, _operands.distinct


def _reference_conv(x, f, stride, padding):
    kh, kw = f.shape[:2]
    if padding == "SAME":
        oh, ow = -(-x.shape[1] // stride), -(-x.shape[2] // stride)
        th = max((oh - 1) * stride + kh - x.shape[1], 0)
        tw = max((ow - 1) * stride + kw - x.shape[2], 0)
        x = np.pad(x, [(0, 0), (th // 2, th - th // 2), (tw // 2, tw - tw // 2), (0, 0)])
    else:
        oh, ow = (x.shape[1] - kh) // stride + 1, (x.shape[2] - kw) // stride + 1
    out = np.zeros((x.shape[0], oh, ow, f.shape[3]), x.dtype)
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, i, j] = np.einsum("nhwc,hwco->no", patch, f)
    return out


def _reference_pool(x, k, stride, reduce):
    oh, ow = (x.shape[1] - k) // stride + 1, (x.shape[2] - k) // stride + 1
    out = np.zeros((x.shape[0], oh, ow, x.shape[3]), x.dtype)
    for i in range(oh):
        for j in range(ow):
            out[:, i, j] = reduce(x[:, i * stride:i * stride + k, j * stride:j * stride + k],
                                  axis=(1, 2))
    return out

VALUES = {
    # name: (function of tensors, inputs, numpy reference of the same inputs)
    "conv2d_same": (lambda x, f: tf.nn.conv2d(x, f, 2, "SAME"), [IMAGE, FILTERS],
                    lambda x, f: _reference_conv(x, f, 2, "SAME")),
    "conv2d_valid": (lambda x, f: tf.nn.conv2d(x, f, [1, 1, 1, 1], "VALID"),
                     [IMAGE, FILTERS], lambda x, f: _reference_conv(x, f, 1, "VALID")),
    "conv1d": (lambda x, f: tf.nn.conv1d(x, f, 1, "VALID"), [IMAGE[:, 0], FILTERS[0]],
               lambda x, f: _reference_conv(x[:, None], f[None], 1, "VALID")[:, 0]),
    "max_pool2d": (lambda x: tf.nn.max_pool2d(x, 2, 2, "VALID"), [IMAGE],
                   lambda x: _reference_pool(x, 2, 2, np.max)),
    "max_pool2d_same": (lambda x: tf.nn.max_pool2d(x, 3, 2, "SAME"), [IMAGE],
                        lambda x: _reference_pool(np.pad(x, [(0, 0), (1, 1), (0, 1), (0, 0)],
                                                         constant_values=-np.inf), 3, 2,
                                                  np.max)),
    "avg_pool2d": (lambda x: tf.nn.avg_pool2d(x, [3, 3], 1, "VALID"), [IMAGE],
                   lambda x: _reference_pool(x, 3, 1, np.mean)),
    "avg_pool2d_same_excludes_padding": (
        lambda x: tf.nn.avg_pool2d(x, 2, 2, "SAME")[:, -1, -1], [IMAGE[:, :5, :5]],
        lambda x: x[:, 4, 4]),
}

GRADIENTS = {
    "conv2d_same_strided": (lambda x, f: tf.nn.conv2d(x, f, 2, "SAME"), _u(1, 5, 4, 2),
                            _u(3, 2, 2, 3)),
    "conv2d_valid_dilated": (lambda x, f: tf.nn.conv2d(x, f, 1, "VALID", dilations=2),
                             _u(2, 5, 5, 1), _u(2, 2, 1, 2)),
    "conv1d": (lambda x, f: tf.nn.conv1d(x, f, 1, "SAME"), _u(2, 5, 2), _u(3, 2, 2)),
    "max_pool2d": (lambda x: tf.nn.max_pool2d(x, 2, 2, "SAME"), _distinct(1, 5, 4, 2)),
    "avg_pool2d": (lambda x: tf.nn.avg_pool2d(x, 3, 2, "SAME"), _u(2, 5, 4, 1)),
}

SECOND_ORDER = {
    "conv2d": (lambda x, f: tf.nn.conv2d(x, f, 2, "SAME") ** 2, _u(1, 5, 4, 2),
               _u(3, 2, 2, 2)),
    "max_pool2d": (lambda x: tf.nn.max_pool2d(x, 2, 1, "SAME") ** 3, _distinct(1, 3, 4, 2)),
    "avg_pool2d": (lambda x: tf.nn.avg_pool2d(x, 2, 2, "SAME") ** 3, _u(1, 3, 5, 1)),
}

MIXED_DTYPES = {
    "conv2d": lambda: tf.nn.conv2d(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1, 1], tf.float64),
                                   1, "SAME"),
}


test_values_match_numpy = values_test(VALUES)
test_static_shapes_are_inferred = static_shapes_test(VALUES, ['conv2d_same', 'max_pool2d'])
test_gradient_matches_finite_differences = gradients_test(GRADIENTS)


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_order_matches_finite_differences_of_the_gradient(name):
    """Conv2DBackprop*, MaxPoolGrad and AvgPoolGrad have gradients: the gradient of sum(grad * w)
    matches finite differences of the first-order gradient."""
    check_second_order(*SECOND_ORDER[name])


test_mixed_dtypes_are_an_error_naming_the_op_and_operands = mixed_dtypes_test(
    MIXED_DTYPES)


@pytest.mark.parametrize("fn, error, pattern", [
    (lambda: tf.nn.conv2d(tf.ones([1, 3, 3, 1]), tf.ones([1, 1, 1, 1]), 1, "FULL"),
     ValueError, "SAME"),
    (lambda: tf.nn.conv2d(tf.ones([1, 3, 3, 1]), tf.ones([1, 1, 1, 1]), 1, "SAME",
                          data_format="NCHW"), ValueError, "NCHW"),
])
def test_bad_arguments_raise_clear_python_errors(fn, error, pattern):
    with pytest.raises(error, match=pattern):
        fn()
