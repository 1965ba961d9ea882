"""Fast float32 exp, tanh and sigmoid for numba kernels, within 4 ulp of float64's; numpy's
pairwise summation (`pairwise_sum`), so that a float sum gives the numpy executor's value.

numba calls the C library for `np.tanh` and `np.exp`, one call per element, which keeps LLVM
from vectorising the loop around it. These are written with arithmetic, comparisons and
selects only (no calls, no branches once LLVM has turned `a if c else b` into a select), so a
loop over them vectorises. Every constant is a float32 and numba does no fast-math
reassociation, so each operation rounds as written (as numpy's float32 arithmetic does).

  exp(x)    x clamped to [-104, 89] (outside it the result is 0 or inf anyway, which the
            arithmetic below produces itself); k = round(x / ln 2) by adding and subtracting
            1.5 * 2**23; r = x - k ln 2 with ln 2 split in two (Cody and Waite: k * LN2_HI is
            exact), |r| <= 0.35; e**r = 1 + r + r**2 q(r), q a degree-4 polynomial fitted to
            (e**r - 1 - r) / r**2 (minimax in relative error); the result is e**r * 2**k1 * 2**k2
            with k = k1 + k2, the powers of two built from their bits, so that a result in the
            subnormal range is rounded once (e**r * 2**k1 is exact).
  tanh(x)   |x| < 0.625: x (1 + x**2 q(x**2)), q of degree 4 fitted to (tanh x - x) / x**3 (so
            tanh(-0) is -0 and a subnormal x is returned as is); else (1 - e) / (1 + e) with
            e = exp(-2 |x|), |x| clamped to 10 (tanh is 1.0 in float32 beyond 9.1), and the
            sign of x.
  sigmoid   e = exp(-|x|) <= 1; 1 / (1 + e) for x >= 0, e / (1 + e) below (no overflow: the
            result reaches the subnormals for x near -103).

NaN is returned for NaN. Measured against the float64 functions rounded to float32 over a
sweep of every exponent (tests/backends/test_numba_fast_math.py): at most 1 ulp for exp and
tanh, 2 for sigmoid. float64 keeps numpy's (libm's) functions.

The coefficients were fitted with Lawson's iteratively reweighted least squares against
mpmath on a dense Chebyshev grid, then rounded to float32.

`register()` makes the functions compilable by numba (it imports numba): the scalar ones
(`exp_f32`, ...), inlined where they are called (so a loop calling them vectorises), and
`fast_exp(x)`, `fast_tanh(x)`, `fast_sigmoid(x)`, which take a float32 array (a new
C-contiguous array of the results) or a scalar; the kernels' source calls both. The generated
module names `SOURCE_DIGEST`, so editing this file gives kernels a new cache key.
"""

from __future__ import annotations

import hashlib
import pathlib
from typing import Any

import numpy as np

SOURCE_DIGEST = hashlib.sha256(pathlib.Path(__file__).read_bytes()).hexdigest()[:16]

_F = np.float32
_ZERO, _ONE, _MINUS_TWO = _F(0.0), _F(1.0), _F(-2.0)
_EXP_HIGH = _F(89.0)      # exp(89) > the largest float32: inf
_EXP_LOW = _F(-104.0)     # exp(-104) < half the smallest subnormal: 0
_LOG2E = _F(1.4426950408889634)
_LN2_HI = _F(0.693145751953125)  # 16 significant bits: k * _LN2_HI is exact for |k| <= 256
_LN2_LO = _F(1.4286068203094173e-06)  # ln 2 - _LN2_HI
_ROUNDER = _F(12582912.0)  # 1.5 * 2**23: v + _ROUNDER - _ROUNDER is v rounded, |v| < 2**22
# q(r) ~ (e**r - 1 - r) / r**2 on [-0.36, 0.36]: c4 r**4 + ... + c0, highest first
_EXP_Q = tuple(_F(c) for c in (0.0013902263017371297, 0.008365496061742306,
                               0.04166688397526741, 0.16666562855243683, 0.5))
_TANH_SMALL = _F(0.625)
_TANH_CLAMP = _F(10.0)
# q(s) ~ (tanh x - x) / x**3 with s = x**2 on [0, 0.625**2], highest power first
_TANH_Q = tuple(_F(c) for c in (-0.006096941418945789, 0.020997358486056328,
                                -0.05385095253586769, 0.13332770764827728, -0.333333283662796))
_BIAS = 127  # float32's exponent bias


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


def float32_from_bits(bits: Any) -> Any:
    """The float32 whose bit pattern is the integer `bits` (in numba: a bitcast)."""
    return np.int32(bits).view(np.float32)


def exp_f32(x: Any) -> Any:
    """e**x of a float32 scalar, as a float32 within 1 ulp (see the module docstring)."""
    clamped = select(x < _EXP_HIGH, x, _EXP_HIGH)  # a NaN becomes 89 here, NaN at the end
    clamped = select(clamped > _EXP_LOW, clamped, _EXP_LOW)
    k_float = (clamped * _LOG2E + _ROUNDER) - _ROUNDER
    k = np.int32(k_float)
    r = (clamped - k_float * _LN2_HI) - k_float * _LN2_LO
    q = polynomial(r, _EXP_Q)
    p = _ONE + (r + r * r * q)
    half = k >> 1
    # 2**half and 2**(k - half), each in [2**-75, 2**64], from their bits
    result = (p * float32_from_bits((half + _BIAS) << 23)) * float32_from_bits(
        (k - half + _BIAS) << 23)
    return select(x != x, x, result)


def tanh_f32(x: Any) -> Any:
    """tanh of a float32 scalar, as a float32 within 1 ulp (see the module docstring)."""
    magnitude = select(x >= _ZERO, x, -x)
    s = x * x
    q = polynomial(s, _TANH_Q)
    small = x * (_ONE + s * q)  # not x + x * s * q: -0 + 0 is +0
    e = exp_f32(_MINUS_TWO * select(magnitude < _TANH_CLAMP, magnitude, _TANH_CLAMP))
    large = (_ONE - e) / (_ONE + e)
    result = select(magnitude < _TANH_SMALL, small, select(x < _ZERO, -large, large))
    return select(x != x, x, result)


def sigmoid_f32(x: Any) -> Any:
    """1 / (1 + e**-x) of a float32 scalar, as a float32 within 2 ulp."""
    positive = x >= _ZERO
    e = exp_f32(select(positive, -x, x))
    denominator = _ONE + e
    return select(positive, _ONE / denominator, e / denominator)


def _elementwise(function: Any, x: Any) -> Any:
    """`function` of a float32 scalar or of each element of a float32 array (in Python)."""
    if np.ndim(x) == 0:
        return function(np.float32(x))
    return np.vectorize(function, otypes=[np.float32])(x)


def fast_exp(x: Any) -> Any:
    """`exp_f32` of a float32 scalar or elementwise of a float32 array."""
    return _elementwise(exp_f32, x)


def fast_tanh(x: Any) -> Any:
    """`tanh_f32` of a float32 scalar or elementwise of a float32 array."""
    return _elementwise(tanh_f32, x)


def fast_sigmoid(x: Any) -> Any:
    """`sigmoid_f32` of a float32 scalar or elementwise of a float32 array."""
    return _elementwise(sigmoid_f32, x)


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


_registered = False


def register() -> None:
    """Makes this module's functions compilable by numba (once per process)."""
    global _registered
    if _registered:
        return
    from numba import types
    from numba.extending import intrinsic, overload, register_jitable

    @intrinsic
    def bitcast_to_float32(typingctx: Any, bits: Any) -> Any:
        if not isinstance(bits, types.Integer):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            from llvmlite import ir
            value = args[0]
            if bits.bitwidth > 32:
                value = builder.trunc(value, ir.IntType(32))
            elif bits.bitwidth < 32:
                value = builder.sext(value, ir.IntType(32))
            return builder.bitcast(value, ir.FloatType())
        return types.float32(bits), codegen

    @intrinsic
    def select_value(typingctx: Any, condition: Any, if_true: Any, if_false: Any) -> Any:
        if not isinstance(condition, types.Boolean) or if_true != if_false:
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.select(*args)
        return if_true(condition, if_true, if_false), codegen

    # not inlined by numba (its inliner fails on some graphs) but by LLVM: they are tiny
    overload(float32_from_bits)(lambda bits: lambda bits: bitcast_to_float32(bits))
    overload(select)(lambda condition, if_true, if_false:
                     lambda condition, if_true, if_false: select_value(condition, if_true,
                                                                       if_false))
    register_jitable(polynomial)  # inlined by LLVM, before it unrolls the loop
    register_jitable(_sum_block)
    register_jitable(pairwise_sum)
    for function in (exp_f32, tanh_f32, sigmoid_f32):
        register_jitable(inline="always")(function)
    for generic, scalar in ((fast_exp, exp_f32), (fast_tanh, tanh_f32),
                            (fast_sigmoid, sigmoid_f32)):
        overload(generic)(_overload_for(scalar, types))
    _registered = True


def _overload_for(scalar: Any, types: Any) -> Any:
    """numba's typing of a generic function: `scalar` on a float32, or a loop on an array."""
    # no annotations: numba requires the implementation's signature to equal the typer's
    def typer(x):
        if isinstance(x, types.Array) and x.dtype == types.float32:
            def on_array(x):
                flat = np.ascontiguousarray(x).reshape(x.size)
                out = np.empty(x.size, np.float32)
                for i in range(x.size):
                    out[i] = scalar(flat[i])
                return out.reshape(x.shape)
            return on_array
        if x == types.float32:
            return lambda x: scalar(x)
        return None
    return typer
