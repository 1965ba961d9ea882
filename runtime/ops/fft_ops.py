"""Discrete Fourier transforms (`tf.signal`): fft/ifft over the innermost 1, 2 or 3
dimensions of a complex tensor, and rfft/irfft between real signals and their half spectra.

Each op is declared once with its kernel (numpy.fft, in the input's precision), its
shape/dtype rule, its gradient (written with these ops: the adjoint of a transform is the
inverse transform, scaled) and its lowerings (JAX's jnp.fft; numba declines: numba compiles
no np.fft). The functions below the declarations are the public API.

TensorFlow's conventions: the forward transforms are unnormalised, the inverse ones divide
by the number of points; rfft of float32 gives complex64, of float64 complex128; an
`fft_length` crops or zero-pads the input along each transformed dimension (for irfft the
innermost to fft_length // 2 + 1).
"""

import numpy as np

from runtime import dtypes, lowering_api
from runtime.ops import array_ops, layout_ops, math_ops, reduction_ops, slicing
from runtime.ops.common import SpecError, convert_to_tensor, static_int_list
from runtime.ops.registry import KERNEL_CALL, execute1, register

OPS = {}

_NUMBA_DECLINES = lowering_api.unsupported(
    "numba compiles no np.fft: Fourier transforms run on the numpy executor")
_COMPLEX_OF = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}
_REAL_OF = {dtypes.complex64: dtypes.float32, dtypes.complex128: dtypes.float64}


def _axes(rank):
    return tuple(range(-rank, 0))


def _require_rank(shape, rank, op_name):
    if shape is not None and len(shape) < rank:
        raise SpecError("shape", "%s needs a tensor of rank %d or more, got shape %s"
                        % (op_name, rank, list(shape)))


# -- complex to complex ------------------------------------------------------------------------


def _complex_rule(rank, op_name):
    def infer(specs, attrs):
        dtype, shape = specs[0]
        if not dtype.is_complex:
            raise SpecError("dtype", "operand of dtype %s is not supported (expected complex64 "
                            "or complex128)" % dtype.name)
        _require_rank(shape, rank, op_name)
        return [(dtype, shape)]
    return infer


def _complex_kernel(rank, inverse):
    transform = np.fft.ifftn if inverse else np.fft.fftn

    def kernel(x):
        return transform(x, axes=_axes(rank)).astype(x.dtype)
    return kernel


def _points(t, rank):
    """The number of points a transform over the innermost `rank` dimensions of `t` takes,
    as a value of `t`'s real type (a tensor when the dimensions are known only at run time)."""
    shape = t._shape_tuple()
    dims = None if shape is None else tuple(shape)[-rank:]
    if dims is not None and None not in dims:
        return float(np.prod(dims))
    inner = array_ops.shape(t)[-rank:]
    return math_ops.cast(reduction_ops.reduce_prod(inner), t.dtype)


def _complex_grad(rank, inverse):
    """The adjoint of fft is n * ifft, of ifft fft / n (TensorFlow's rules)."""
    def rule(ctx, grads):
        g = grads[0]
        n = _points(g, rank)
        if inverse:
            return [math_ops.truediv(_transform(rank, False, g), n)]
        return [math_ops.multiply(_transform(rank, True, g), n)]
    return rule


def _complex_jax(rank, inverse):
    def rule(lw, node, ins):
        x = lw.jnp.asarray(ins[0])
        transform = lw.jnp.fft.ifftn if inverse else lw.jnp.fft.fftn
        return [transform(x, axes=_axes(rank)).astype(x.dtype)]
    return rule


_COMPLEX_NAMES = {(1, False): "FFT", (1, True): "IFFT", (2, False): "FFT2D",
                  (2, True): "IFFT2D", (3, False): "FFT3D", (3, True): "IFFT3D"}

for (_rank, _inverse), _name in _COMPLEX_NAMES.items():
    OPS[_name] = register(_name, _complex_kernel(_rank, _inverse), _complex_rule(_rank, _name),
                          grad=_complex_grad(_rank, _inverse), emit=KERNEL_CALL,
                          lowerings={"numba": _NUMBA_DECLINES,
                                     "jax": _complex_jax(_rank, _inverse)})


def _transform(rank, inverse, x, name=None):
    return execute1(OPS[_COMPLEX_NAMES[(rank, inverse)]], [convert_to_tensor(x)], name=name)


# -- real to complex and back ----------------------------------------------------------------------


def _fitted(shape, rank, lengths):
    return tuple(shape[:-rank]) + tuple(lengths)


def _real_rule(rank, inverse, op_name):
    def infer(specs, attrs):
        dtype, shape = specs[0]
        table = _REAL_OF if inverse else _COMPLEX_OF
        if dtype not in table:
            raise SpecError("dtype", "operand of dtype %s is not supported (expected %s)"
                            % (dtype.name, " or ".join(d.name for d in table)))
        _require_rank(shape, rank, op_name)
        lengths = list(attrs["fft_length"])
        if not inverse:
            lengths[-1] = lengths[-1] // 2 + 1
        return [(table[dtype], None if shape is None else _fitted(shape, rank, lengths))]
    return infer


def _real_kernel(rank, inverse):
    def kernel(x, fft_length):
        if inverse:
            real = np.fft.irfftn(x, s=fft_length, axes=_axes(rank))
            return real.astype(_REAL_OF[dtypes.from_numpy(x.dtype)].np_dtype)
        result = np.fft.rfftn(x, s=fft_length, axes=_axes(rank))
        return result.astype(_COMPLEX_OF[dtypes.from_numpy(x.dtype)].np_dtype)
    return kernel


def _half_spectrum_weights(n):
    """Per innermost frequency of an n-point real transform: 1 for the frequencies that
    appear once in the full spectrum (0, and n/2 for an even n), 2 for the others."""
    weights = np.full(n // 2 + 1, 2.0)
    weights[0] = 1.0
    if n % 2 == 0:
        weights[-1] = 1.0
    return weights


def _fit_inner(t, rank, target):
    """`t` cropped or zero-padded along its innermost `rank` dimensions to `target`'s sizes
    there (the input an fft_length cropped or padded gets its gradient back so)."""
    t_shape, target_shape = t._shape_tuple(), target._shape_tuple()
    if t_shape is None or target_shape is None:
        raise NotImplementedError(
            "the gradient of a real Fourier transform needs the input's rank known")
    have, want = tuple(t_shape)[-rank:], tuple(target_shape)[-rank:]
    if have == want:
        return t
    if None in have or None in want:
        raise NotImplementedError(
            "the gradient of a real Fourier transform whose fft_length differs from the "
            "input's dimensions needs those dimensions known while tracing")
    outer = len(t_shape) - rank
    keep = [min(h, w) for h, w in zip(have, want)]
    t = slicing.slice(t, [0] * len(t_shape), [-1] * outer + keep)
    paddings = [[0, 0]] * outer + [[0, w - k] for w, k in zip(want, keep)]
    return layout_ops.pad(t, paddings)


def _real_grad(rank, inverse):
    """rfft's adjoint: n * irfft of the gradient with each doubled frequency halved; irfft's:
    rfft of the gradient with those frequencies doubled, over n. Each then fitted back to
    the input's dimensions."""
    def rule(ctx, grads):
        g = grads[0]
        lengths = list(ctx.attrs["fft_length"])
        n = float(np.prod(lengths))
        weights = _half_spectrum_weights(lengths[-1])
        if inverse:
            spectrum = _real_transform(rank, False, g, lengths)
            scale = convert_to_tensor(weights / n, dtype=spectrum.dtype.real_dtype)
            result = math_ops.multiply(spectrum, math_ops.cast(scale, spectrum.dtype))
        else:
            scale = convert_to_tensor(n / weights, dtype=g.dtype.real_dtype)
            result = _real_transform(rank, True, math_ops.multiply(
                g, math_ops.cast(scale, g.dtype)), lengths)
        return [_fit_inner(result, rank, ctx.input(0))]
    return rule


def _real_jax(rank, inverse):
    def rule(lw, node, ins):
        x = lw.jnp.asarray(ins[0])
        lengths = tuple(node.attrs["fft_length"])
        if inverse:
            return [lw.jnp.fft.irfftn(x, s=lengths, axes=_axes(rank)).astype(
                _REAL_OF[dtypes.from_numpy(np.dtype(x.dtype))].np_dtype)]
        return [lw.jnp.fft.rfftn(x, s=lengths, axes=_axes(rank)).astype(
            _COMPLEX_OF[dtypes.from_numpy(np.dtype(x.dtype))].np_dtype)]
    return rule


_REAL_NAMES = {(1, False): "RFFT", (1, True): "IRFFT", (2, False): "RFFT2D",
               (2, True): "IRFFT2D", (3, False): "RFFT3D", (3, True): "IRFFT3D"}

for (_rank, _inverse), _name in _REAL_NAMES.items():
    OPS[_name] = register(_name, _real_kernel(_rank, _inverse),
                          _real_rule(_rank, _inverse, _name), grad=_real_grad(_rank, _inverse),
                          emit=KERNEL_CALL, lowerings={"numba": _NUMBA_DECLINES,
                                                         "jax": _real_jax(_rank, _inverse)})


def _real_transform(rank, inverse, x, fft_length, name=None):
    return execute1(OPS[_REAL_NAMES[(rank, inverse)]], [x],
                    {"fft_length": tuple(int(n) for n in fft_length)}, name=name)


def _fft_lengths(x, rank, fft_length, inverse, op_name):
    """The transform's lengths: `fft_length` (a list, or a tensor whose value is known while
    tracing), else the input's innermost dimensions (for irfft 2 * (m - 1) innermost)."""
    if fft_length is not None:
        lengths = static_int_list(fft_length, "%s's fft_length" % op_name)
        if len(lengths) != rank:
            raise ValueError("%s: fft_length must have %d entries, got %s"
                             % (op_name, rank, list(lengths)))
        return lengths
    shape = x._shape_tuple()
    dims = None if shape is None else tuple(shape)[-rank:]
    if dims is None or None in dims:
        raise ValueError("%s: the innermost dimensions of the input are known only at run "
                         "time: pass fft_length" % op_name)
    lengths = list(dims)
    if inverse:
        lengths[-1] = 2 * (lengths[-1] - 1)
    return lengths


def _complex_api(rank, inverse, doc):
    def api(input, name=None):  # noqa: A002 - TensorFlow's argument name
        return _transform(rank, inverse, input, name=name)
    api.__doc__ = doc
    api.__name__ = _COMPLEX_NAMES[(rank, inverse)].lower()
    return api


def _real_api(rank, inverse, doc):
    def api(input_tensor, fft_length=None, name=None):
        x = convert_to_tensor(input_tensor)
        op_name = _REAL_NAMES[(rank, inverse)]
        return _real_transform(rank, inverse, x,
                               _fft_lengths(x, rank, fft_length, inverse, op_name), name=name)
    api.__doc__ = doc
    api.__name__ = _REAL_NAMES[(rank, inverse)].lower()
    return api


fft = _complex_api(1, False, "The discrete Fourier transform over the innermost dimension.")
ifft = _complex_api(1, True, "The inverse of `fft` (divides by the number of points).")
fft2d = _complex_api(2, False, "The 2-D discrete Fourier transform over the innermost two "
                               "dimensions.")
ifft2d = _complex_api(2, True, "The inverse of `fft2d`.")
fft3d = _complex_api(3, False, "The 3-D discrete Fourier transform over the innermost three "
                               "dimensions.")
ifft3d = _complex_api(3, True, "The inverse of `fft3d`.")
rfft = _real_api(1, False, "The Fourier transform of a real signal over its innermost "
                           "dimension: the fft_length // 2 + 1 non-negative frequencies.")
irfft = _real_api(1, True, "The real signal of length fft_length (default 2 * (m - 1)) "
                           "whose rfft is the given half spectrum.")
rfft2d = _real_api(2, False, "`rfft` over the innermost two dimensions.")
irfft2d = _real_api(2, True, "The inverse of `rfft2d`.")
rfft3d = _real_api(3, False, "`rfft` over the innermost three dimensions.")
irfft3d = _real_api(3, True, "The inverse of `rfft3d`.")
