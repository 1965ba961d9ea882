"""`tf.signal`: discrete Fourier transforms."""

from runtime.ops import fft_ops as _fft

fft = _fft.fft
ifft = _fft.ifft
fft2d = _fft.fft2d
ifft2d = _fft.ifft2d
fft3d = _fft.fft3d
ifft3d = _fft.ifft3d
rfft = _fft.rfft
irfft = _fft.irfft
rfft2d = _fft.rfft2d
irfft2d = _fft.irfft2d
rfft3d = _fft.rfft3d
irfft3d = _fft.irfft3d
