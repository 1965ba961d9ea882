"""The facade's element types, casts, complex parts and tf.bitwise ops: TensorFlow's names,
reached as TensorFlow code reaches them, inside converted functions too."""

import ml_dtypes
import numpy as np
import pytest

import autograph.tf as tf


@pytest.mark.parametrize("dtype, name, np_type", [
    (tf.int8, "int8", np.int8), (tf.int16, "int16", np.int16),
    (tf.uint8, "uint8", np.uint8), (tf.uint16, "uint16", np.uint16),
    (tf.uint32, "uint32", np.uint32), (tf.uint64, "uint64", np.uint64),
    (tf.float16, "float16", np.float16), (tf.half, "float16", np.float16),
    (tf.dtypes.half, "float16", np.float16), (tf.bfloat16, "bfloat16", ml_dtypes.bfloat16),
    (tf.complex64, "complex64", np.complex64), (tf.complex128, "complex128", np.complex128),
])
def test_every_dtype_is_exported_under_tensorflows_name(dtype, name, np_type):
    assert dtype.name == name
    assert dtype.as_numpy_dtype is np_type
    assert tf.as_dtype(name) is dtype


def test_variant_is_the_dtype_of_tensor_array_handles():
    assert tf.dtypes.variant.name == "variant"
    assert tf.TensorArray(tf.float32, size=1).handle.dtype is tf.dtypes.variant


def test_cast_saturate_cast_bitcast_and_complex_in_a_converted_function():
    @tf.function
    def convert(x, re, im):
        wrapped = tf.dtypes.cast(x, tf.uint8)
        clamped = tf.saturate_cast(x, tf.uint8)
        same = tf.dtypes.saturate_cast(x, tf.int16)
        bits = tf.bitcast(tf.constant([1.0]), tf.int32)
        z = tf.complex(re, im)
        also = tf.dtypes.complex(re, im)
        return wrapped, clamped, same, bits, z, also, tf.math.angle(z)

    wrapped, clamped, same, bits, z, also, angle = convert(
        tf.constant([300, -1]), tf.constant([1.0]), tf.constant([1.0]))
    np.testing.assert_array_equal(wrapped.numpy(), [44, 255])
    np.testing.assert_array_equal(clamped.numpy(), [255, 0])
    assert same.dtype == tf.int16
    np.testing.assert_array_equal(bits.numpy(), [1065353216])
    assert z.dtype == tf.complex64 and also.dtype == tf.complex64
    np.testing.assert_allclose(angle.numpy(), [np.pi / 4], rtol=1e-6)


def test_mixing_dtypes_in_an_operator_raises_as_tensorflow_does():
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected to be a uint8 tensor"):
        tf.constant(1, tf.uint8) + tf.constant(1)


def test_tf_bitwise_namespace():
    x = tf.constant([12, 10], tf.int16)
    assert tf.bitwise.bitwise_and(x, 6).numpy().tolist() == [4, 2]
    assert tf.bitwise.bitwise_or(x, 1).numpy().tolist() == [13, 11]
    assert tf.bitwise.bitwise_xor(x, 3).numpy().tolist() == [15, 9]
    assert tf.bitwise.invert(x).numpy().tolist() == [-13, -11]
    assert tf.bitwise.left_shift(x, 1).numpy().tolist() == [24, 20]
    assert tf.bitwise.right_shift(x, 2).numpy().tolist() == [3, 2]
