"""Fast exp, tanh and sigmoid for numba kernels (float32 and float64), within 2 ulp; numpy's
pairwise summation (`pairwise_sum`), so that a float sum gives the numpy executor's value;
`fit`, which gives every output of a kernel its graph dtype; `copy_slab` and `copy_row` (and
their `add_` forms), the slice copies of gathers, repeats, pads, rolls, scatters and the
gather gradient; `assign`, a slice assignment as a loop nest.

numba calls the C library for `np.tanh` and `np.exp`, one call per element, which keeps LLVM
from vectorising the loop around it. These are written with arithmetic, comparisons and
selects only (`select`: an LLVM select, no branch), so a loop over them vectorises. numba does
no fast-math reassociation, so each operation rounds as written (as numpy's arithmetic does).
One algorithm serves both types, `f` holding the constants of one (FLOAT32, FLOAT64):

  exp(x)    x clamped to [exp_low, exp_high] (outside, the result is 0 or inf, which the
            arithmetic below produces itself); k = round(x / ln 2) by adding and subtracting
            1.5 * 2**mantissa; r = x - k ln 2 with ln 2 split in two (Cody and Waite: k * ln2_hi
            is exact), |r| <= 0.35; e**r = 1 + r + r**2 q(r), q a polynomial fitted to
            (e**r - 1 - r) / r**2; the result is e**r * 2**k1 * 2**k2 with k = k1 + k2, the
            powers of two built from their bits, so that a result in the subnormal range is
            rounded once (e**r * 2**k1 is exact).
  tanh(x)   |x| < 0.625: x (1 + x**2 q(x**2)), q fitted to (tanh x - x) / x**3 (so tanh(-0) is
            -0 and a subnormal x is returned as is); else (1 - e) / (1 + e) with
            e = exp(-2 |x|), |x| clamped to tanh_clamp (beyond it tanh rounds to 1), and the
            sign of x.
  sigmoid   e = exp(-|x|) <= 1; 1 / (1 + e) for x >= 0, e / (1 + e) below (no overflow: the
            result reaches the subnormals).

NaN is returned for NaN. Measured against a wider reference (float64 for float32, the
platform's long double for float64) rounded to the type, over sweeps of every exponent
(tests/backends/test_numba_fast_math.py): at most 1 ulp for exp and tanh, 2 for sigmoid.

The float32 coefficients were fitted with Lawson's iteratively reweighted least squares
against mpmath on a dense Chebyshev grid (near minimax in relative error), then rounded; the
float64 ones with mpmath's Chebyshev interpolation (`chebyfit`, 50 digits).

`register()` makes the functions compilable by numba (it imports numba): `exp(x, f)`,
`tanh(x, f)`, `sigmoid(x, f)` on a scalar, inlined by LLVM where they are called (so a
loop calling them vectorises), and `fast_exp(x)`, `fast_tanh(x)`, `fast_sigmoid(x)`, which
take a float32 or float64 array (a new C-contiguous array of the results) or scalar; the
kernels' source calls both. The generated module names `SOURCE_DIGEST`, so editing this file
gives kernels a new cache key.

Every function here is compiled by numba as a call, once per signature in a process, which
LLVM inlines where it pays (test_numba_fast_math checks that a loop over the fast functions
calls nothing): a function numba inlines itself is typed again at every call site of every
kernel, which made a kernel of eight tanh, exp and sigmoid calls take 2.6 s to compile
instead of 1.2 s. `fit(value, like)` is defined here for the same reason, not in each
generated module (it was a fifth of a kernel's compile).
"""

from __future__ import annotations

import functools
import hashlib
import pathlib
import threading
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

SOURCE_DIGEST = hashlib.sha256(pathlib.Path(__file__).read_bytes()).hexdigest()[:16]


class FloatFormat(NamedTuple):
    """The constants of the functions for one float type (FLOAT32, FLOAT64), which numba
    compiles in as constants."""

    zero: Any
    one: Any
    minus_two: Any
    exp_high: Any   # exp(x) overflows to inf for x above it
    exp_low: Any    # exp(x) rounds to 0 for x below it
    log2e: Any
    ln2_hi: Any     # ln 2 to few enough bits that k * ln2_hi is exact
    ln2_lo: Any     # ln 2 - ln2_hi
    rounder: Any    # 1.5 * 2**mantissa: v + rounder - rounder is v rounded to an integer
    exp_q: Any      # q(r) ~ (e**r - 1 - r) / r**2 for |r| <= 0.35, highest power first
    tanh_small: Any  # below it, the polynomial
    tanh_clamp: Any  # tanh is 1.0 beyond it
    tanh_q: Any     # q(s) ~ (tanh x - x) / x**3, s = x**2 <= tanh_small**2, highest first
    bias: int       # the exponent bias
    mantissa: int   # the bits of the mantissa


def _format(kind: Any, **values: Any) -> FloatFormat:
    """The FloatFormat of numpy type `kind`, its numbers (tuples of numbers too) as `kind`."""
    converted: dict[str, Any] = {
        name: tuple(kind(c) for c in value) if isinstance(value, tuple) else
        value if isinstance(value, int) else kind(value)
        for name, value in values.items()}
    return FloatFormat(zero=kind(0.0), one=kind(1.0), minus_two=kind(-2.0), **converted)


FLOAT32 = _format(
    np.float32, exp_high=89.0, exp_low=-104.0, log2e=1.4426950408889634,
    ln2_hi=0.693145751953125, ln2_lo=1.428606765330187e-06, rounder=1.5 * 2.0 ** 23,
    exp_q=(0.0013902263017371297, 0.008365496061742306, 0.04166688397526741,
           0.16666562855243683, 0.5),
    tanh_small=0.625, tanh_clamp=10.0,
    tanh_q=(-0.006096941418945789, 0.020997358486056328, -0.05385095253586769,
            0.13332770764827728, -0.333333283662796),
    bias=127, mantissa=23)
FLOAT64 = _format(
    np.float64, exp_high=710.0, exp_low=-746.0, log2e=1.4426950408889634,
    ln2_hi=0.6931471805598903, ln2_lo=5.497923018708371e-14, rounder=1.5 * 2.0 ** 52,
    exp_q=(2.0914685161418067e-09, 2.5105214474751413e-08, 2.7557273647451087e-07,
           2.7557255406285044e-06, 2.480158732554432e-05, 0.00019841269874815834,
           0.001388888888888375, 0.008333333333326136, 0.04166666666666667,
           0.1666666666666667, 0.5),
    tanh_small=0.625, tanh_clamp=20.0,
    tanh_q=(6.485163482793113e-06, -3.12011014257974e-05, 9.257116129556769e-05,
            -0.0002375906496055562, 0.0005896606577757043, -0.0014557754120478055,
            0.0035921217511549622, -0.008863235103240878, 0.021869488519008305,
            -0.05396825396789699, 0.13333333333333042, -0.3333333333333333),
    bias=1023, mantissa=52)


def select(condition: Any, if_true: Any, if_false: Any) -> Any:
    """`if_true if condition else if_false`, both computed (in numba: one LLVM `select`, no
    branch, so that the loop around it vectorises)."""
    return if_true if condition else if_false


def polynomial(x: Any, coefficients: Any) -> Any:
    """The polynomial with `coefficients` (a tuple, highest power first) at x, by Horner's
    rule (numba unrolls the loop)."""
    total = coefficients[0]
    for c in coefficients[1:]:
        total = total * x + c
    return total


def float_from_bits(bits: Any, like: Any) -> Any:
    """The float of `like`'s type (float32 or float64) whose bit pattern is the integer
    `bits` (in numba: a bitcast)."""
    integer = np.int32 if isinstance(like, np.float32) else np.int64
    return integer(bits).view(type(like))


def integer_of(value: Any) -> Any:
    """An integral float as the signed integer of its width (int32 for a float32)."""
    return np.int32(value) if isinstance(value, np.float32) else np.int64(value)


def exp(x: Any, f: FloatFormat) -> Any:
    """e**x of a float scalar, `f` the constants of its type (FLOAT32 or FLOAT64), within
    1 ulp (see the module docstring)."""
    clamped = select(x < f.exp_high, x, f.exp_high)  # a NaN becomes exp_high, NaN at the end
    clamped = select(clamped > f.exp_low, clamped, f.exp_low)
    k_float = (clamped * f.log2e + f.rounder) - f.rounder
    k = integer_of(k_float)
    r = (clamped - k_float * f.ln2_hi) - k_float * f.ln2_lo
    p = f.one + (r + r * r * polynomial(r, f.exp_q))
    half = k >> 1
    # 2**half and 2**(k - half), both normal numbers, from their bits
    result = (p * float_from_bits((half + f.bias) << f.mantissa, x)) * float_from_bits(
        (k - half + f.bias) << f.mantissa, x)
    return select(x != x, x, result)


def tanh(x: Any, f: FloatFormat) -> Any:
    """tanh of a float scalar, `f` the constants of its type, within 1 ulp."""
    magnitude = select(x >= f.zero, x, -x)
    s = x * x
    small = x * (f.one + s * polynomial(s, f.tanh_q))  # not x + x * s * q: -0 + 0 is +0
    e = exp(f.minus_two * select(magnitude < f.tanh_clamp, magnitude, f.tanh_clamp), f)
    large = (f.one - e) / (f.one + e)
    result = select(magnitude < f.tanh_small, small, select(x < f.zero, -large, large))
    return select(x != x, x, result)


def sigmoid(x: Any, f: FloatFormat) -> Any:
    """1 / (1 + e**-x) of a float scalar, `f` the constants of its type, within 2 ulp."""
    positive = x >= f.zero
    e = exp(select(positive, -x, x), f)
    denominator = f.one + e
    return select(positive, f.one / denominator, e / denominator)


_FUNCTIONS = {"exp": exp, "tanh": tanh, "sigmoid": sigmoid}
_FORMATS = {np.float32: FLOAT32, np.float64: FLOAT64}


def _elementwise(name: str, x: Any) -> Any:
    """The function `name` of x, a float32 or float64 scalar, or of each element of x, an
    array (Python; in numba, the overloads that `register` declares)."""
    x = np.asarray(x)
    function, f = _FUNCTIONS[name], _FORMATS[x.dtype.type]
    if x.ndim == 0:
        return function(x[()], f)
    return np.vectorize(lambda v: function(v, f), otypes=[x.dtype])(x)


def fast_exp(x: Any) -> Any:
    """e**x of a float32 or float64 scalar, or elementwise of an array (see `exp`)."""
    return _elementwise("exp", x)


def fast_tanh(x: Any) -> Any:
    """tanh of a float32 or float64 scalar, or elementwise of an array (see `tanh`)."""
    return _elementwise("tanh", x)


def fast_sigmoid(x: Any) -> Any:
    """sigmoid of a float32 or float64 scalar, or elementwise of an array."""
    return _elementwise("sigmoid", x)


def _sum_block(flat: Any, start: Any, count: Any) -> Any:
    """numpy's sum of `count` <= 128 elements of `flat` from `start`: in order below 8,
    else in eight interleaved partial sums added pairwise, then the tail in order."""
    if count < 8:
        total = flat.dtype.type(0)
        for i in range(start, start + count):
            total += flat[i]
        return total
    r0, r1, r2, r3 = flat[start], flat[start + 1], flat[start + 2], flat[start + 3]
    r4, r5, r6, r7 = flat[start + 4], flat[start + 5], flat[start + 6], flat[start + 7]
    end = start + count - count % 8
    for i in range(start + 8, end, 8):
        r0 += flat[i]
        r1 += flat[i + 1]
        r2 += flat[i + 2]
        r3 += flat[i + 3]
        r4 += flat[i + 4]
        r5 += flat[i + 5]
        r6 += flat[i + 6]
        r7 += flat[i + 7]
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    for i in range(end, start + count):
        total += flat[i]
    return total


def copy_slab(dst: Any, k: Any, src: Any, j: Any) -> None:
    """`dst[:, k, :] = src[:, j, :]` for 3-D arrays of equal first and last sizes, as a
    loop: numba compiles a slice assignment anew at every site (0.16 s each, and 3 s for
    the first in a process) where this is compiled once per signature."""
    for a in range(dst.shape[0]):
        for b in range(dst.shape[2]):
            dst[a, k, b] = src[a, j, b]


def add_slab(dst: Any, k: Any, src: Any, j: Any) -> None:
    """`dst[:, k, :] += src[:, j, :]` (see `copy_slab`)."""
    for a in range(dst.shape[0]):
        for b in range(dst.shape[2]):
            dst[a, k, b] += src[a, j, b]


def copy_row(dst: Any, n: Any, src: Any, m: Any) -> None:
    """`dst[n, :] = src[m, :]` for 2-D arrays of equal row lengths (see `copy_slab`)."""
    for b in range(dst.shape[1]):
        dst[n, b] = src[m, b]


def add_row(dst: Any, n: Any, src: Any, m: Any) -> None:
    """`dst[n, :] += src[m, :]` (see `copy_row`)."""
    for b in range(dst.shape[1]):
        dst[n, b] += src[m, b]


def pairwise_sum(x: Any) -> Any:
    """The sum of a float array's elements (C order) as numpy's `np.sum` adds them: blocks
    of up to 128 (`_sum_block`), a longer run split in two at half its length rounded down
    to a multiple of 8, the halves' sums added. numba's `np.sum` adds in order, which in
    float32 drifts far from numpy's (1e-5 relative over 1e5 elements). The recursion is
    walked with explicit stacks (numba compiles no recursive jitable)."""
    flat = np.ascontiguousarray(x).reshape(x.size)
    if flat.size <= 128:  # one block: no stacks to allocate
        return _sum_block(flat, 0, flat.size)
    starts = np.empty(64, np.int64)  # 64 levels: halving reaches 128 from any int64 size
    counts = np.empty(64, np.int64)
    lefts = np.empty(64, flat.dtype)
    right_pending = np.zeros(64, np.bool_)
    depth = 0
    starts[0] = 0
    counts[0] = flat.size
    while True:
        start, count = starts[depth], counts[depth]
        if count > 128:  # descend into the left half first
            half = count // 2
            half -= half % 8
            right_pending[depth] = True
            depth += 1
            starts[depth] = start
            counts[depth] = half
            continue
        total = _sum_block(flat, start, count)
        while depth > 0:  # climb: start a pending right half, or add finished halves
            depth -= 1
            if right_pending[depth]:
                right_pending[depth] = False
                lefts[depth] = total
                half = counts[depth] // 2
                half -= half % 8
                starts[depth + 1] = starts[depth] + half
                counts[depth + 1] = counts[depth] - half
                depth += 1
                break
            total = lefts[depth] + total
        else:
            return total


def fit(value: Any, like: Any) -> Any:
    """`value` as dtype `like` (a numpy scalar type) in a numba kernel: a no-op for an array
    of that dtype, so that int32 arithmetic wraps like TensorFlow's where numba would widen
    it to int64."""
    raise NotImplementedError("fit runs only in numba-compiled code")


def _fit_typing(value, like):
    """numba's implementation of `fit` for the types of `value` and `like` (no annotations:
    numba requires the implementation's signature to equal the typer's)."""
    from numba import types
    target = like.instance_type
    if isinstance(value, types.Array):
        if value.dtype == target:
            return lambda value, like: value
        return lambda value, like: value.astype(like)
    return lambda value, like: like(value)


def assign(dst: Any, src: Any) -> None:
    """`dst[...] = src` in a numba kernel, for an array `dst` (a view, say) and `src` an
    array of its shape or a scalar, as a loop nest: numba compiles a slice assignment anew
    at every site (0.2 s each, and 2.5 s for the first in a process) where this is compiled
    once per signature. An array of another shape raises ValueError (nothing broadcasts)."""
    raise NotImplementedError("assign runs only in numba-compiled code")


@functools.lru_cache(maxsize=None)
def _assign_loops(rank: int, from_array: bool) -> Callable[..., None]:
    """numba's implementation of `assign` for arrays of rank `rank` (its source written for
    that rank), from an array of that rank or from a scalar."""
    index = ", ".join("i%d" % d for d in range(rank)) or "()"
    lines = ["def assign(dst, src):"]
    if from_array:
        lines += ["    if src.shape != dst.shape:",
                  "        raise ValueError('assign: the value and the array differ in shape')"]
    for d in range(rank):
        lines.append("    " * (d + 1) + "for i%d in range(dst.shape[%d]):" % (d, d))
    lines.append("    " * (rank + 1) + "dst[%s] = %s" % (
        index, "src[%s]" % index if from_array else "src"))
    namespace: dict[str, Any] = {}
    exec("\n".join(lines), namespace)  # noqa: S102 - our own source, one per rank
    return namespace["assign"]


def _assign_typing(dst, src):
    """numba's implementation of `assign` for the types of `dst` and `src`."""
    from numba import types
    if not isinstance(dst, types.Array):
        return None
    if isinstance(src, types.Array):
        return _assign_loops(dst.ndim, True) if src.ndim == dst.ndim else None
    return _assign_loops(dst.ndim, False)


def run_once(function: Callable[[], None]) -> Callable[[], None]:
    """`function` made to run once per process: the first call runs it, under a lock (a
    background compile may call at the same time), and every later call returns at once."""
    done = False
    lock = threading.Lock()

    def call() -> None:
        nonlocal done
        if done:
            return
        with lock:
            if not done:
                function()
                done = True
    call.__doc__ = function.__doc__
    return call


def _register() -> None:
    """Makes this module's functions compilable by numba (once per process)."""
    from numba import types
    from numba.extending import intrinsic, overload, register_jitable

    # (the ignores below: numba's type stubs leave out Integer.bitwidth, which its __init__
    # sets, and type an intrinsic's call as its typing function's, typingctx first)
    @intrinsic
    def bitcast(typingctx: Any, bits: Any, like: Any) -> Any:
        if not isinstance(bits, types.Integer) or like not in (types.float32, types.float64):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            from llvmlite import ir
            width = like.bitwidth
            value = args[0]
            if bits.bitwidth > width:  # type: ignore[attr-defined]
                value = builder.trunc(value, ir.IntType(width))
            elif bits.bitwidth < width:  # type: ignore[attr-defined]
                value = builder.sext(value, ir.IntType(width))
            return builder.bitcast(value, ir.FloatType() if width == 32 else ir.DoubleType())
        return like(bits, like), codegen

    @intrinsic
    def to_integer(typingctx: Any, value: Any) -> Any:
        if value not in (types.float32, types.float64):
            return None
        integer = types.int32 if value == types.float32 else types.int64

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            from llvmlite import ir
            return builder.fptosi(args[0], ir.IntType(integer.bitwidth))  # type: ignore[union-attr]
        return integer(value), codegen

    @intrinsic
    def select_value(typingctx: Any, condition: Any, if_true: Any, if_false: Any) -> Any:
        if not isinstance(condition, types.Boolean) or if_true != if_false:
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.select(*args)
        return if_true(condition, if_true, if_false), codegen

    # (numba's inliner also fails on some graphs where the inlined code branches; LLVM
    # unrolls `polynomial` once it is inlined)
    overload(integer_of)(
        lambda value: lambda value: to_integer(value))  # type: ignore[call-arg]
    overload(float_from_bits)(
        lambda bits, like: lambda bits, like: bitcast(bits, like))  # type: ignore[call-arg]
    overload(select)(lambda condition, if_true, if_false:
                     lambda condition, if_true, if_false:
                     select_value(condition, if_true, if_false))  # type: ignore[call-arg]
    overload(fit)(_fit_typing)
    overload(assign)(_assign_typing)
    register_jitable(polynomial)
    register_jitable(_sum_block)
    register_jitable(pairwise_sum)
    for copy in (copy_slab, add_slab, copy_row, add_row):
        register_jitable(copy)
    for function in _FUNCTIONS.values():
        register_jitable(function)
    for name, generic in (("exp", fast_exp), ("tanh", fast_tanh), ("sigmoid", fast_sigmoid)):
        overload(generic)(_overload_for(name, types))


register = run_once(_register)


def _overload_for(name: str, types: Any) -> Any:
    """numba's typing of a generic function: its scalar function on a float32 or float64,
    or a loop over an array of them."""
    function = _FUNCTIONS[name]

    # no annotations: numba requires the implementation's signature to equal the typer's
    def typer(x):
        dtype = x.dtype if isinstance(x, types.Array) else x
        if dtype not in (types.float32, types.float64):
            return None
        np_dtype = np.float32 if dtype == types.float32 else np.float64
        f = _FORMATS[np_dtype]
        if not isinstance(x, types.Array):
            return lambda x: function(x, f)

        def on_array(x):
            flat = np.ascontiguousarray(x).reshape(x.size)
            out = np.empty(x.size, np_dtype)
            for i in range(x.size):
                out[i] = function(flat[i], f)
            return out.reshape(x.shape)
        return on_array
    return typer
