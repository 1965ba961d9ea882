"""The `autograph.tf` facade re-exports runtime objects: each name is the runtime's own (the
runtime's tests exercise them under their runtime names), with no copy left in the facade."""

import pytest

import autograph.tf as tf
from runtime import context, dtypes, module
from runtime import tensor as tensor_lib
from runtime.function import ConcreteFunction
from runtime.ops import (
    array_ops,
    check_ops,
    concat_split_ops,
    fft_ops,
    math_ops,
    reduction_ops,
    reshape_ops,
    selection_ops,
)

REEXPORTS = [
    (tf.ConcreteFunction, ConcreteFunction),
    (tf.argmax, reduction_ops.argmax),
    (tf.argmin, reduction_ops.argmin),
    (tf.as_dtype, dtypes.as_dtype),
    (tf.broadcast_to, reshape_ops.broadcast_to),
    (tf.divide, math_ops.divide),
    (tf.double, dtypes.double),
    (tf.equal, math_ops.equal),
    (tf.expand_dims, reshape_ops.expand_dims),
    (tf.floordiv, math_ops.floordiv),
    (tf.greater, math_ops.greater),
    (tf.greater_equal, math_ops.greater_equal),
    (tf.is_tensor, tensor_lib.is_tensor),
    (tf.less, math_ops.less),
    (tf.less_equal, math_ops.less_equal),
    (tf.logical_and, math_ops.logical_and),
    (tf.logical_not, math_ops.logical_not),
    (tf.logical_or, math_ops.logical_or),
    (tf.multiply, math_ops.multiply),
    (tf.not_equal, math_ops.not_equal),
    (tf.one_hot, selection_ops.one_hot),
    (tf.ones_like, array_ops.ones_like),
    (tf.rank, array_ops.rank),
    (tf.reduce_any, reduction_ops.reduce_any),
    (tf.reduce_prod, reduction_ops.reduce_prod),
    (tf.squeeze, reshape_ops.squeeze),
    (tf.subtract, math_ops.subtract),
    (tf.tile, concat_split_ops.tile),
    (tf.truediv, math_ops.truediv),
    (tf.unstack, concat_split_ops.unstack),
    (tf.Module, module.Module),
    (tf.executing_eagerly, context.executing_eagerly),
    (tf.debugging.enable_check_numerics, context.enable_check_numerics),
    (tf.debugging.disable_check_numerics, context.disable_check_numerics),
    (tf.debugging.assert_equal, check_ops.assert_equal),
    (tf.signal.fft, fft_ops.fft),
    (tf.signal.ifft, fft_ops.ifft),
    (tf.signal.fft2d, fft_ops.fft2d),
    (tf.signal.ifft2d, fft_ops.ifft2d),
    (tf.signal.fft3d, fft_ops.fft3d),
    (tf.signal.ifft3d, fft_ops.ifft3d),
    (tf.signal.rfft, fft_ops.rfft),
    (tf.signal.irfft, fft_ops.irfft),
    (tf.signal.rfft2d, fft_ops.rfft2d),
    (tf.signal.irfft2d, fft_ops.irfft2d),
    (tf.signal.rfft3d, fft_ops.rfft3d),
    (tf.signal.irfft3d, fft_ops.irfft3d),
]


@pytest.mark.parametrize("facade, runtime_object", REEXPORTS,
                         ids=lambda x: getattr(x, "__name__", repr(x)))
def test_the_facade_name_is_the_runtime_object(facade, runtime_object):
    assert facade is runtime_object


def test_newaxis_is_none():
    assert tf.newaxis is None
