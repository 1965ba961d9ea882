"""TensorFlow's float32 exp and softmax, bit for bit: its CPU kernels' algorithms, written
with numpy for the numpy executor's Exp and Softmax kernels, used when asked for.

They are off by default: they cost several numpy passes where numpy's exp costs one (an exp
of a small array about 100 times as long, a softmax of a large one 30 to 300 times), to
change the last digit, and TensorFlow's own digits differ between CPUs. To print TensorFlow's
digits, `autograph.config(float32_digits="tensorflow")` or the environment variable
AUTOGRAPH_FLOAT32_DIGITS=tensorflow turns them on (TensorFlow's guides run as tests so).

numpy's float32 exp is correctly rounded or nearly so; TensorFlow's two are not, so the
last digit it prints differs from numpy's for many values:
- `tf.exp` is Eigen's vectorised exp: x clamped above at 88.723 (below -104 the result is
  0), m = floor(x log2(e) + 1/2), r = x - m ln 2 with ln 2 in two parts (-0.693359375 and
  2.12194440e-4), exp(r) by a polynomial of degree 6 evaluated in even and odd halves, scaled
  by 2^m; TensorFlow's threads flush denormal results to zero. Eigen's multiply-adds are a
  product then a sum (TensorFlow's x86 build has no FMA).
- `tf.nn.softmax` on an x86 CPU is oneDNN's kernel (TensorFlow's default, with oneDNN's
  optimisations on): the row's maximum subtracted, exp by oneDNN's own polynomial of degree
  5 with fused multiply-adds (x clamped to [ln FLT_MIN, ln FLT_MAX], below ln FLT_MIN the
  result is 0, the scale 2^(n-1) built from its exponent bits, then doubled), the exps summed
  in 16-lane vectors into 4 accumulators (consecutive vectors go to consecutive
  accumulators), added as (a0 + a1) + (a2 + a3) and then across lanes as a tree, and each
  exp multiplied by the reciprocal of the sum. This is the kernel as it runs on an AVX-512
  CPU: on an AVX2 CPU oneDNN adds 8-lane vectors, and TensorFlow's own last digits differ.

Measured against TensorFlow 2.21 (on an AVX-512 CPU): exp on 1,000,023 float32 inputs over
[-104, 89] and beyond, softmax on 440,000 values of rows of 7 and 300 and on rows of 1 to
1,000 values spanning [-100, 30] with infinities: no value differs. The compiled backends
keep their own exp (numba's and XLA's, within 4 ulps of numpy's).
"""

from __future__ import annotations

import os

import numpy as np

ENVIRONMENT_VARIABLE = "AUTOGRAPH_FLOAT32_DIGITS"
DIGITS = ("numpy", "tensorflow")


def _from_environment() -> bool:
    text = os.environ.get(ENVIRONMENT_VARIABLE, "numpy").strip().lower() or "numpy"
    if text not in DIGITS:
        raise ValueError("%s must be one of %s, got %r" % (
            ENVIRONMENT_VARIABLE, ", ".join(DIGITS), text))
    return text == "tensorflow"


_tensorflow_digits = _from_environment()


def set_digits(kind: str | None) -> None:
    """Whose float32 exp and softmax the numpy executor computes: "numpy" (numpy's, the
    default), "tensorflow" (TensorFlow's CPU kernels, bit for bit) or None (back to the
    environment variable's choice)."""
    global _tensorflow_digits
    if kind is None:
        _tensorflow_digits = _from_environment()
    elif kind in DIGITS:
        _tensorflow_digits = kind == "tensorflow"
    else:
        raise ValueError("float32_digits must be one of %s or None, got %r"
                         % (", ".join(map(repr, DIGITS)), kind))


def digits() -> str:
    """"tensorflow" or "numpy": whose float32 exp and softmax are computed now."""
    return "tensorflow" if _tensorflow_digits else "numpy"

_F32 = np.float32
_TINY = np.finfo(np.float32).tiny


def _bits(pattern: int) -> np.float32:
    return np.array([pattern], np.uint32).view(np.float32)[0]


def _flushed(values: np.ndarray) -> np.ndarray:
    """`values` with denormal results replaced by zero (in place), as TensorFlow's threads
    compute (flush to zero)."""
    values[np.abs(values) < _TINY] = 0
    return values


# -- Eigen's exp ----------------------------------------------------------------------------

_EIGEN_HIGH = _F32(88.723)
_EIGEN_LOW = _F32(-104.0)
_LOG2E = _F32(1.44269504088896341)
_LN2_HIGH = _F32(-0.693359375)
_LN2_LOW = _F32(2.12194440e-4)
_EIGEN_POLYNOMIAL = tuple(_F32(c) for c in (
    0.49999988079071044921875, 0.16666518151760101318359375,
    4.166965186595916748046875e-2, 8.36894474923610687255859375e-3,
    1.37449637986719608306884765625e-3))


def eigen_exp(x: np.ndarray) -> np.ndarray:
    """exp of float32 array `x` as TensorFlow's tf.exp computes it (see the module
    docstring)."""
    shape = np.shape(x)
    x = np.asarray(x, _F32).reshape(-1)  # (numpy gives a scalar, not an array, for rank 0)
    if x.size == 0:
        return x.reshape(shape).copy()
    p2, p3, p4, p5, p6 = _EIGEN_POLYNOMIAL
    with np.errstate(all="ignore"):
        clamped = np.minimum(x, _EIGEN_HIGH)
        m = clamped * _LOG2E
        m += _F32(0.5)
        np.floor(m, out=m)
        r = m * _LN2_HIGH
        r += clamped
        r += m * _LN2_LOW
        r2 = r * r
        even = r2 * p6
        even += p4
        even *= r2
        even += p2
        y = r2 * p5
        y += p3
        y *= r
        y += even
        y *= r2
        r += _F32(1)
        y += r
        _scale_by_power_of_two(y, m)
        np.maximum(y, x, out=y)
        if x.min() < _EIGEN_LOW:
            y[x < _EIGEN_LOW] = 0
    return y.reshape(shape)


def _scale_by_power_of_two(y: np.ndarray, m: np.ndarray) -> None:
    """y *= 2^m exactly (m holds integers, y is in [0.5, 2)), in place; results below
    float32's smallest normal number are flushed to 0, as TensorFlow's threads compute."""
    exponent = m.astype(np.int32)  # (NaN gives some int: its result is NaN anyway)
    low, high = exponent.min(), exponent.max()
    exponent += 127
    np.clip(exponent, 1, 254, out=exponent)
    exponent <<= 23
    y *= exponent.view(_F32)
    if high > 127:  # 2^128 is no float32: y * 2^127 * 2
        y[m > 127] *= _F32(2)
    if low < -125:  # 2^m was clipped, or the result may be denormal
        y[(m < -126) | (y < _TINY)] = 0


def exp(x: np.ndarray) -> np.ndarray:
    """e ** x elementwise, overflow giving inf quietly (the Exp op's kernel): numpy's, or
    TensorFlow's for float32 (`eigen_exp`) when its digits are asked for."""
    if _tensorflow_digits and getattr(x, "dtype", None) == np.float32:
        return eigen_exp(x)
    with np.errstate(all="ignore"):
        return np.exp(x)


# -- oneDNN's softmax -----------------------------------------------------------------------

_ONEDNN_HIGH = _bits(0x42b17218)  # ln FLT_MAX
_ONEDNN_LOW = _bits(0xc2aeac50)   # ln FLT_MIN
_ONEDNN_LOG2E = _bits(0x3fb8aa3b)
_ONEDNN_LN2 = _bits(0x3f317218)
_ONEDNN_POLYNOMIAL = tuple(_bits(b) for b in (0x3c07cfce, 0x3d2b9d0d, 0x3e2aad40,
                                               0x3efffee3, 0x3f7ffffb, 0x3f800000))
_LANES = 16        # an AVX-512 register of float32
_ACCUMULATORS = 4  # oneDNN's unrolling of the sum


def _fma(a: np.ndarray, b: np.ndarray | np.float32, c: np.ndarray | np.float32) -> np.ndarray:
    """a * b + c in float32 rounded once, as a fused multiply-add: the product is exact in
    float64, and so is the float64 sum but where it had to round; rounding that to float32
    rounds once more only where it lands on the midpoint of two float32 values (the low 29
    bits of its mantissa are 1 then 28 zeros): there the sign of the float64 sum's own
    rounding error says which way the exact sum lies."""
    product = np.multiply(a, b, dtype=np.float64)
    total = product + c
    rounded = total.astype(_F32)
    ties = (total.view(np.int64) & 0x1FFFFFFF) == 0x10000000
    if ties.any():
        t, p = total[ties], product[ties]
        addend = np.broadcast_to(np.asarray(c, np.float64), total.shape)[ties]
        back = t - p
        error = (p - (t - back)) + (addend - back)
        fixed = rounded[ties]
        wide = fixed.astype(np.float64)
        toward = np.where(error > 0, _F32(np.inf), _F32(-np.inf))
        # the exact sum lies beyond the midpoint on the side away from the rounded value
        beyond = np.where(error > 0, t > wide, t < wide) & (error != 0)
        fixed[beyond] = np.nextafter(fixed[beyond], toward[beyond])
        rounded[ties] = fixed
    return rounded


def _onednn_exp(x: np.ndarray) -> np.ndarray:
    """exp of float32 `x` (x <= 0 in a softmax) as oneDNN's vector exp computes it."""
    below = x < _ONEDNN_LOW
    x = np.maximum(np.minimum(x, _ONEDNN_HIGH), _ONEDNN_LOW)
    n = np.floor(x * _ONEDNN_LOG2E + _F32(0.5))
    r = _fma(-n, _ONEDNN_LN2, x)
    # 2^(n-1) from its exponent bits: an exponent field of 0 gives 0, not a denormal
    field = (n.astype(np.int32) - 1 + 127) << 23
    scale = field.view(_F32).copy()
    scale[below] = 0
    y = np.full(x.shape, _ONEDNN_POLYNOMIAL[0], _F32)
    for coefficient in _ONEDNN_POLYNOMIAL[1:]:
        y = _fma(y, r, coefficient)
    return _flushed(_flushed(y * scale) * _F32(2))


def _lane_tree_sum(vectors: np.ndarray) -> np.ndarray:
    """The sums of rows of 16 lanes, added across lanes as oneDNN's horizontal sum adds
    them (lanes 8 apart, then 4, 2 and 1)."""
    lanes = np.arange(_LANES)
    for step in (8, 4, 2, 1):
        vectors = vectors + vectors[:, lanes ^ step]
    return vectors[:, 0]


def _row_sums(exps: np.ndarray) -> np.ndarray:
    """The sums of the rows of `exps` (rows, n) in oneDNN's order (module docstring)."""
    rows, n = exps.shape
    full, tail = divmod(n, _LANES)
    rounds, leftover = divmod(full, _ACCUMULATORS)
    used = _ACCUMULATORS if rounds else max(leftover, 1)
    accumulators = [np.zeros((rows, _LANES), _F32) for _ in range(used)]
    order = [k % _ACCUMULATORS for k in range(rounds * _ACCUMULATORS)] + list(range(leftover))
    for k, which in enumerate(order):
        accumulators[which] += exps[:, _LANES * k:_LANES * (k + 1)]
    if tail:
        last = np.zeros((rows, _LANES), _F32)
        last[:, :tail] = exps[:, _LANES * full:]
        accumulators[0] += last
    if used == 4:
        total = (accumulators[0] + accumulators[1]) + (accumulators[2] + accumulators[3])
    elif used == 3:
        total = (accumulators[0] + accumulators[1]) + accumulators[2]
    elif used == 2:
        total = accumulators[0] + accumulators[1]
    else:
        total = accumulators[0]
    return _lane_tree_sum(total)


def softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """Softmax along `axis` (the Softmax op's kernel): numpy's, or TensorFlow's for float32
    (`onednn_softmax`) when its digits are asked for."""
    if _tensorflow_digits and x.dtype == np.float32:
        return onednn_softmax(x, axis)
    with np.errstate(all="ignore"):  # (a row holding inf gives NaN quietly, as TensorFlow's)
        e = np.exp(x - np.max(x, axis=axis, keepdims=True))
        return e / np.sum(e, axis=axis, keepdims=True)


def onednn_softmax(x: np.ndarray, axis: int) -> np.ndarray:
    """Softmax of float32 array `x` along `axis` as TensorFlow's CPU kernel (oneDNN's)
    computes it (see the module docstring)."""
    x = np.asarray(x, _F32)
    moved = np.moveaxis(x, axis, -1)
    if moved.size == 0:
        return np.empty_like(x)
    rows = np.ascontiguousarray(moved).reshape(-1, moved.shape[-1])
    with np.errstate(all="ignore"):
        exps = _onednn_exp(rows - rows.max(axis=1, keepdims=True))
        reciprocal = _F32(1) / _row_sums(exps)
        result = _flushed(exps * reciprocal[:, None])
    return np.moveaxis(result.reshape(moved.shape), -1, axis)
