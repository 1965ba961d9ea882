"""The narrow, half and complex element types on the compiled backends: each lowers the graphs
it holds the types of, with the numpy executor's values and dtypes, and declines the others
saying why (numba: float16, bfloat16 and Fourier transforms)."""

import importlib.util

import ml_dtypes
import numpy as np
import pytest

import autograph.tf as tf
from runtime.backends import BackendFallbackWarning

HAVE = {name: importlib.util.find_spec(name) is not None for name in ("numba", "jax")}
NARROW = [np.int8, np.uint8, np.int16, np.uint16, np.uint32, np.uint64]


def _arithmetic(x, y):
    return x * y + x, tf.reduce_sum(x), x < y, tf.cast(x, tf.float32)


def _complex_parts(z):
    return (tf.math.real(z * z), tf.abs(z), tf.math.conj(z), tf.exp(z),
            tf.complex(tf.math.real(z), tf.math.imag(z)), tf.math.angle(z),
            tf.complex(tf.math.imag(z[0]), tf.math.real(z[1])), tf.abs(z[0]))


def _transforms(r):
    return (tf.signal.rfft(r), tf.signal.irfft(tf.signal.rfft(r)),
            tf.signal.fft2d(tf.cast(r, tf.complex64)))


def _assert_same(compiled, reference, rtol=0.0):
    for got, want in zip(compiled, reference):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(np.asarray(got.numpy()).astype(np.complex128),
                                   np.asarray(want.numpy()).astype(np.complex128), rtol=rtol,
                                   atol=1e-5 if rtol else 0)


def _backends(*names):
    return [pytest.param(n, marks=pytest.mark.skipif(not HAVE[n], reason="%s missing" % n))
            for n in names]


@pytest.mark.parametrize("backend", _backends("numba", "jax"))
@pytest.mark.parametrize("np_dtype", NARROW)
def test_narrow_integers_compile_with_the_executors_values(backend, np_dtype):
    x, y = np.array([1, 2, 100], np_dtype), np.array([3, 2, 5], np_dtype)  # 100 * 5 wraps
    compiled = tf.function(_arithmetic, backend=backend, strict=True)(x, y)
    _assert_same(compiled, _arithmetic(tf.constant(x), tf.constant(y)))


@pytest.mark.parametrize("backend", _backends("numba", "jax"))
@pytest.mark.parametrize("np_dtype", [np.complex64, np.complex128])
def test_complex_values_compile_with_the_executors_values(backend, np_dtype):
    z = np.array([1 + 2j, -0.5 + 1j], np_dtype)
    compiled = tf.function(_complex_parts, backend=backend, strict=True)(z)
    _assert_same(compiled, _complex_parts(tf.constant(z)), rtol=1e-5)


@pytest.mark.parametrize("np_dtype", [np.float16, ml_dtypes.bfloat16])
@pytest.mark.skipif(not HAVE["jax"], reason="jax missing")
def test_jax_computes_half_and_brain_floats(np_dtype):
    x, y = np.array([1, 2, 3], np_dtype), np.array([3, 2, 1], np_dtype)
    compiled = tf.function(_arithmetic, backend="jax", strict=True)(x, y)
    _assert_same(compiled, _arithmetic(tf.constant(x), tf.constant(y)))


@pytest.mark.parametrize("np_dtype, reason", [
    (np.float16, "numba has no float16 arithmetic"),
    (ml_dtypes.bfloat16, "numba has no bfloat16 type")])
@pytest.mark.skipif(not HAVE["numba"], reason="numba missing")
def test_numba_declines_half_and_brain_floats_saying_why(np_dtype, reason):
    x = np.array([1, 2, 3], np_dtype)
    f = tf.function(_arithmetic, backend="numba")
    with pytest.warns(BackendFallbackWarning, match=reason):
        result = f(x, x)
    _assert_same(result, _arithmetic(tf.constant(x), tf.constant(x)))


@pytest.mark.skipif(not HAVE["jax"], reason="jax missing")
def test_jax_lowers_the_fourier_transforms():
    r = np.random.RandomState(0).randn(4, 6).astype(np.float32)
    compiled = tf.function(_transforms, backend="jax", strict=True)(r)
    _assert_same(compiled, _transforms(tf.constant(r)), rtol=1e-4)


@pytest.mark.skipif(not HAVE["numba"], reason="numba missing")
def test_numba_declines_the_fourier_transforms_saying_why():
    r = np.ones((2, 4), np.float32)
    with pytest.warns(BackendFallbackWarning, match="numba compiles no np.fft"):
        tf.function(_transforms, backend="numba")(r)


@pytest.mark.skipif(not HAVE["jax"], reason="jax missing")
def test_jax_lowers_bitcast_with_tensorflows_shapes():
    def reinterpret(x):
        return (tf.bitcast(x, tf.int32), tf.bitcast(x, tf.uint8),
                tf.bitcast(tf.bitcast(x, tf.uint8), tf.float32), tf.bitcast(x, tf.bfloat16))
    x = np.array([1.0, -2.5], np.float32)
    compiled = tf.function(reinterpret, backend="jax", strict=True)(x)
    for got, want in zip(compiled, reinterpret(tf.constant(x))):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.numpy().view(np.uint8), want.numpy().view(np.uint8))


@pytest.mark.parametrize("backend", _backends("numba", "jax"))
def test_bitwise_ops_compile(backend):
    def bits(x):
        return x & 6, x | 1, x ^ 3, ~x, x << 2, x >> 1
    x = np.array([12, 10, 255], np.uint8)
    compiled = tf.function(bits, backend=backend, strict=True)(x)
    _assert_same(compiled, bits(tf.constant(x)))
