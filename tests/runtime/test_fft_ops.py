"""Fourier transforms (tf.signal): values against numpy.fft eagerly and traced, dtypes and
shapes, fft_length cropping and padding, and gradients against finite differences."""

import numpy as np
import pytest
from numeric_gradients import numeric_gradients

from runtime import dtypes, errors
from runtime.function import function
from runtime.gradients import GradientTape
from runtime.ops import array_ops, fft_ops, math_ops, reduction_ops

_RNG = np.random.RandomState(7)


def _complex(shape, dtype=np.complex128):
    return (_RNG.randn(*shape) + 1j * _RNG.randn(*shape)).astype(dtype)


COMPLEX_CASES = [
    (fft_ops.fft, lambda x: np.fft.fft(x), (3, 8)),
    (fft_ops.ifft, lambda x: np.fft.ifft(x), (5,)),
    (fft_ops.fft2d, lambda x: np.fft.fft2(x), (2, 4, 3)),
    (fft_ops.ifft2d, lambda x: np.fft.ifft2(x), (4, 3)),
    (fft_ops.fft3d, lambda x: np.fft.fftn(x, axes=(-3, -2, -1)), (2, 3, 2, 4)),
    (fft_ops.ifft3d, lambda x: np.fft.ifftn(x, axes=(-3, -2, -1)), (3, 2, 2)),
]


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("op, reference, shape", COMPLEX_CASES)
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_transforms_match_numpy_and_keep_the_precision(op, reference, shape, dtype,
                                                               traced):
    x = _complex(shape, dtype)
    result = (function(op) if traced else op)(array_ops.constant(x))
    assert result.dtype is dtypes.as_dtype(dtype)
    np.testing.assert_allclose(result.numpy(), reference(x),
                               rtol=1e-4 if dtype == np.complex64 else 1e-10, atol=1e-5)


REAL_CASES = [
    (fft_ops.rfft, fft_ops.irfft, 1, (3, 8)),
    (fft_ops.rfft, fft_ops.irfft, 1, (7,)),
    (fft_ops.rfft2d, fft_ops.irfft2d, 2, (2, 4, 6)),
    (fft_ops.rfft3d, fft_ops.irfft3d, 3, (2, 3, 4)),
]


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("forward, inverse, rank, shape", REAL_CASES)
@pytest.mark.parametrize("dtype, complex_dtype", [(dtypes.float32, dtypes.complex64),
                                                  (dtypes.float64, dtypes.complex128)])
def test_real_transforms_match_numpy_and_invert(forward, inverse, rank, shape, dtype,
                                                complex_dtype, traced):
    x = _RNG.randn(*shape).astype(dtype.np_dtype)
    axes = tuple(range(-rank, 0))
    spectrum = (function(forward) if traced else forward)(array_ops.constant(x))
    assert spectrum.dtype is complex_dtype
    np.testing.assert_allclose(spectrum.numpy(), np.fft.rfftn(x, axes=axes), rtol=1e-4,
                               atol=1e-4)
    back = inverse(spectrum, fft_length=list(shape[-rank:]))
    assert back.dtype is dtype
    np.testing.assert_allclose(back.numpy(), x, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("forward, inverse, reference", [
    (fft_ops.fft, fft_ops.ifft, np.fft.fft),
    (fft_ops.fft2d, fft_ops.ifft2d, np.fft.fft2),
    (fft_ops.fft3d, fft_ops.ifft3d, lambda x: np.fft.fftn(x, axes=(-3, -2, -1))),
])
def test_complex_transforms_round_trip(forward, inverse, reference):
    x = np.random.RandomState(0).randn(2, 3, 4).astype(np.complex128)
    spectrum = forward(x)
    np.testing.assert_allclose(spectrum.numpy(), reference(x))
    np.testing.assert_allclose(inverse(spectrum).numpy(), x, atol=1e-12)


@pytest.mark.parametrize("forward, inverse, rank", [
    (fft_ops.rfft, fft_ops.irfft, 1),
    (fft_ops.rfft2d, fft_ops.irfft2d, 2),
    (fft_ops.rfft3d, fft_ops.irfft3d, 3),
])
def test_real_transforms_round_trip_in_a_function(forward, inverse, rank):
    x = np.random.RandomState(1).randn(2, 4, 6).astype(np.float32)

    @function
    def round_trip(v):
        return inverse(forward(v), fft_length=list(x.shape[-rank:]))

    np.testing.assert_allclose(round_trip(x).numpy(), x, atol=1e-5)


def test_fft_length_crops_or_pads_and_irfft_defaults_to_an_even_length():
    x = _RNG.randn(2, 6)
    cropped = fft_ops.rfft(array_ops.constant(x), fft_length=[4])
    np.testing.assert_allclose(cropped.numpy(), np.fft.rfft(x, n=4))
    padded = fft_ops.rfft2d(array_ops.constant(x), fft_length=[3, 8])
    assert padded.shape == (3, 5)
    np.testing.assert_allclose(padded.numpy(), np.fft.rfft2(x, s=(3, 8)))
    spectrum = array_ops.constant(_complex((5,)))
    assert fft_ops.irfft(spectrum).shape == (8,)
    np.testing.assert_allclose(fft_ops.irfft(spectrum, fft_length=[9]).numpy(),
                               np.fft.irfft(spectrum.numpy(), n=9))


@pytest.mark.parametrize("op, value, message", [
    (fft_ops.fft, np.ones(4), "FFT: operand of dtype float64 is not supported"),
    (fft_ops.rfft, np.ones(4, np.complex64), "RFFT: operand of dtype complex64"),
    (fft_ops.irfft, np.ones(4), "IRFFT: operand of dtype float64"),
    (fft_ops.fft2d, np.ones(4, np.complex64), "FFT2D needs a tensor of rank 2 or more"),
])
def test_a_transform_refuses_a_wrong_dtype_or_rank(op, value, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        op(array_ops.constant(value))


# -- gradients ---------------------------------------------------------------------------------

def _loss(t):
    """A real loss that depends on every part of a complex or real output."""
    if t.dtype.is_complex:
        weights = np.linspace(0.5, 1.5, int(np.prod(t.shape))).reshape(t.shape)
        return reduction_ops.reduce_sum(math_ops.real(t) * weights
                                        + math_ops.imag(t) * math_ops.imag(t))
    return reduction_ops.reduce_sum(t * t)


def _numpy_loss(out):
    if np.iscomplexobj(out):
        weights = np.linspace(0.5, 1.5, out.size).reshape(out.shape)
        return np.sum(out.real * weights + out.imag * out.imag)
    return np.sum(out * out)


def _tape_gradient(op, x, **kwargs):
    source = array_ops.constant(x)
    with GradientTape() as tape:
        tape.watch(source)
        loss = _loss(op(source, **kwargs))
    return tape.gradient(loss, source).numpy()


def _complex_numeric_gradient(scalar, z):
    """dL/d(real part) + i dL/d(imaginary part): TensorFlow's convention."""
    d_re, d_im = numeric_gradients(lambda re, im: scalar(re + 1j * im),
                                   [z.real.copy(), z.imag.copy()])
    return d_re + 1j * d_im


@pytest.mark.parametrize("op, reference, shape", COMPLEX_CASES)
def test_complex_transform_gradients_match_finite_differences(op, reference, shape):
    z = _complex(shape)
    expected = _complex_numeric_gradient(lambda v: _numpy_loss(reference(v)), z)
    np.testing.assert_allclose(_tape_gradient(op, z), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op, reference, shape, fft_length", [
    (fft_ops.rfft, lambda x, s: np.fft.rfft(x, n=s[0]), (2, 6), [6]),
    (fft_ops.rfft, lambda x, s: np.fft.rfft(x, n=s[0]), (7,), [7]),
    (fft_ops.rfft, lambda x, s: np.fft.rfft(x, n=s[0]), (6,), [4]),
    (fft_ops.rfft, lambda x, s: np.fft.rfft(x, n=s[0]), (5,), [8]),
    (fft_ops.rfft2d, lambda x, s: np.fft.rfft2(x, s=s), (3, 4), [3, 4]),
    (fft_ops.rfft3d, lambda x, s: np.fft.rfftn(x, s=s, axes=(-3, -2, -1)), (2, 2, 5),
     [2, 2, 5]),
])
def test_rfft_gradients_match_finite_differences(op, reference, shape, fft_length):
    x = _RNG.randn(*shape)
    expected = numeric_gradients(lambda v: _numpy_loss(reference(v, fft_length)), [x])[0]
    np.testing.assert_allclose(_tape_gradient(op, x, fft_length=fft_length), expected,
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op, reference, shape, fft_length", [
    (fft_ops.irfft, lambda z, s: np.fft.irfft(z, n=s[0]), (2, 4), [6]),
    (fft_ops.irfft, lambda z, s: np.fft.irfft(z, n=s[0]), (4,), [7]),
    (fft_ops.irfft, lambda z, s: np.fft.irfft(z, n=s[0]), (6,), [6]),
    (fft_ops.irfft2d, lambda z, s: np.fft.irfft2(z, s=s), (3, 3), [3, 4]),
    (fft_ops.irfft3d, lambda z, s: np.fft.irfftn(z, s=s, axes=(-3, -2, -1)), (2, 2, 3),
     [2, 2, 5]),
])
def test_irfft_gradients_match_finite_differences(op, reference, shape, fft_length):
    z = _complex(shape)
    expected = _complex_numeric_gradient(lambda v: _numpy_loss(reference(v, fft_length)), z)
    np.testing.assert_allclose(_tape_gradient(op, z, fft_length=fft_length), expected,
                               rtol=1e-5, atol=1e-6)


def test_gradient_of_a_traced_transform():
    x = _RNG.randn(4)

    @function
    def grad(v):
        with GradientTape() as tape:
            tape.watch(v)
            loss = _loss(fft_ops.rfft(v))
        return tape.gradient(loss, v)

    expected = numeric_gradients(lambda v: _numpy_loss(np.fft.rfft(v)), [x])[0]
    np.testing.assert_allclose(grad(array_ops.constant(x)).numpy(), expected, rtol=1e-5)
