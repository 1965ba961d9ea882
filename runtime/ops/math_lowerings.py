"""How compiled backends write the elementwise math ops of `math_ops` (their `lowerings`,
passed to each op's `register` call there): templates in numpy-API terms for most, rules for
the ops that must fail like their kernel (integer division by zero, negative integer powers).
See runtime/backends/lowering.py for the protocol."""

import numpy as np

from runtime import dtypes, lowering_api
from runtime import shape as shape_lib


def _division_lowering(function, what):
    """`xp.<function>(x, y)`, failing like the kernel on an integer divisor of zero. A
    signed integer divisor that may be -1 is replaced by 1 there (and a quotient negated): the
    minimum integer divided by -1 wraps in numpy, where machine division may trap or give
    another value."""
    def rule(lowerer, node, ins, outs):
        x, y = ins
        if not x.dtype.is_integer:
            lowerer.check_broadcast(x, y)
            lowerer.assign(outs[0], "xp.%s(%s, %s)" % (function, x, y))
            return
        if y.value is None or np.any(y.value == 0):
            zero = "%s == 0" % y if y.rank0 else "xp.any(%s == 0)" % y
            lowerer.check(zero, ZeroDivisionError, "integer %s by zero" % what)
        lowerer.check_broadcast(x, y)  # (after: the kernel checks the divisor first)
        if y.dtype.np_dtype.kind == "u" or (y.value is not None and not np.any(y.value == -1)):
            # (an unsigned `y == -1` would compare y with the maximum, in JAX, or as floats
            # in numba, which rounds uint64)
            lowerer.assign(outs[0], "xp.%s(%s, %s)" % (function, x, y))
            return
        minus_one = "(%s == -1)" % y
        result = "xp.%s(%s, %s + 2 * %s)" % (function, x, y, minus_one)
        if function == "floor_divide":
            result = "%s * (1 - 2 * %s)" % (result, minus_one)
        lowerer.assign(outs[0], result)
    return lowering_api.checked_before_broadcast(rule)


def _shift_lowering(function):
    """`xp.<function>(x, y)`, with numpy's result (the kernel's) for an amount outside
    [0, bits): 0, or the sign for a signed right shift. A machine shift takes the amount
    modulo the width (x86: 1 << 32 is 1), and LLVM leaves it undefined. Every constant is of
    the operands' dtype, so that no mixed-type promotion widens them (uint64 with int64)."""
    def rule(lowerer, node, ins, outs):
        x, y = ins
        bits = 8 * x.dtype.np_dtype.itemsize
        if y.value is not None and np.all((y.value >= 0) & (y.value < bits)):
            lowerer.assign(outs[0], "xp.%s(%s, %s)" % (function, x, y))
            return
        scalar_type = lowerer.literal(y.dtype)

        def typed(k):
            return "%s(%d)" % (scalar_type, k)

        signed = y.dtype.np_dtype.kind == "i"
        low = "xp.maximum(%s, %s)" % (y, typed(0)) if signed else y
        amount = "xp.minimum(%s, %s)" % (low, typed(bits - 1))
        if function == "right_shift" and signed:  # outside: the sign (a shift by bits - 1)
            lowerer.assign(outs[0], "xp.right_shift(%s, %s + (%s < %s) * %s)" % (
                x, amount, y, typed(0), typed(bits - 1)))
            return
        inside = "((%s >= %s) & (%s < %s))" % (y, typed(0), y, typed(bits)) if signed else \
            "(%s < %s)" % (y, typed(bits))
        lowerer.assign(outs[0], "xp.%s(%s, %s) * %s" % (function, x, amount, inside))
    return rule


def _relu_lowering(lowerer, node, ins, outs):
    """max(x, 0) with a zero of x's own dtype: a plain 0 is an int64 to numba, and uint64
    with int64 computes in float64 (2**64 - 5 came back as 2**64 - 1)."""
    x, = ins
    if x.dtype.np_dtype.kind == "u":
        lowerer.assign(outs[0], str(x))
        return
    lowerer.assign(outs[0], "xp.maximum(%s, %s(0))" % (x, lowerer.literal(x.dtype)))


def _pow_lowering(lowerer, node, ins, outs):
    x, y = ins
    if x.dtype.is_integer and (y.value is None or np.any(y.value < 0)):
        negative = "%s < 0" % y if y.rank0 else "xp.any(%s < 0)" % y
        lowerer.check(negative, ValueError,
                      "Integers to negative integer powers are not allowed.")
    lowerer.assign(outs[0], "xp.power(%s, %s)" % (x, y))


def _cast_lowering(lowerer, node, ins, outs):
    lowerer.assign(outs[0], lowerer.cast(ins[0], node.attrs["dtype"]))


def _complex_lowering(lowerer, node, ins, outs):
    """real + 1j * imag, in the complex type of the parts' precision."""
    lowerer.check_broadcast(ins[0], ins[1])
    lowerer.assign(outs[0], lowerer.cast("(%s + 1j * %s)" % (ins[0], ins[1]),
                                         outs[0].dtype))


def _squared_difference_lowering(lowerer, node, ins, outs):
    """(x - y) ** 2; (x - y) * conj(x - y) for complex operands, as the kernel."""
    if outs[0].dtype.is_complex:
        lowerer.assign(outs[0], "(%s - %s) * xp.conj(%s - %s)" % (ins[0], ins[1], ins[0], ins[1]))
    else:
        lowerer.assign(outs[0], "xp.square(%s - %s)" % (ins[0], ins[1]))


def _add_n_lowering(lowerer, node, ins, outs):
    """The sum from the left, as the kernel adds. Where a dimension is known only at run
    time, one addition at a time, each broadcast checked (numba's own check fails with
    another ValueError)."""
    if all(v.shape is not None and None not in v.shape for v in ins):
        lowerer.assign(outs[0], " + ".join(ins))
        return
    total = ins[0]
    for v in ins[1:-1]:
        lowerer.check_broadcast(total, v)
        partial = lowerer.local(outs[0].dtype, shape_lib.broadcast(total.shape, v.shape), "s")
        lowerer.assign(partial, "%s + %s" % (total, v))
        total = partial
    lowerer.check_broadcast(total, ins[-1])
    lowerer.assign(outs[0], "%s + %s" % (total, ins[-1]) if len(ins) > 1 else str(total))


_LOWERINGS = {
    "AddV2": "{0} + {1}", "Sub": "{0} - {1}", "Mul": "{0} * {1}",
    "RealDiv": "{0} / {1}", "FloorDiv": _division_lowering("floor_divide", "division"),
    "FloorMod": _division_lowering("mod", "modulo"), "Pow": _pow_lowering,
    "Maximum": "xp.maximum({0}, {1})", "Minimum": "xp.minimum({0}, {1})",
    "SquaredDifference": _squared_difference_lowering,
    "Less": "{0} < {1}", "LessEqual": "{0} <= {1}", "Greater": "{0} > {1}",
    "GreaterEqual": "{0} >= {1}", "Equal": "{0} == {1}", "NotEqual": "{0} != {1}",
    "LogicalAnd": "xp.logical_and({0}, {1})", "LogicalOr": "xp.logical_or({0}, {1})",
    "Neg": "-{0}", "Abs": "xp.abs({0})", "Sign": "xp.sign({0})", "Square": "xp.square({0})",
    "Reciprocal": "xp.reciprocal({0})", "Tanh": "xp.tanh({0})", "Exp": "xp.exp({0})",
    "Expm1": "xp.expm1({0})", "Log": "xp.log({0})", "Log1p": "xp.log1p({0})",
    "Sqrt": "xp.sqrt({0})", "Rsqrt": "1 / xp.sqrt({0})",
    "Sigmoid": "1 / (1 + xp.exp(-{0}))", "Softplus": "xp.logaddexp(0, {0})",
    "Sin": "xp.sin({0})", "Cos": "xp.cos({0})", "Tan": "xp.tan({0})", "Sinh": "xp.sinh({0})",
    "Cosh": "xp.cosh({0})", "Floor": "xp.floor({0})", "Ceil": "xp.ceil({0})",
    "Round": "xp.round({0})", "IsNan": "xp.isnan({0})", "IsInf": "xp.isinf({0})",
    "IsFinite": "xp.isfinite({0})", "LogicalNot": "xp.logical_not({0})",
    "Relu": _relu_lowering, "Cast": _cast_lowering, "AddN": _add_n_lowering,
    "ClipByValue": "xp.minimum(xp.maximum({0}, {1}), {2})",
    "Real": "xp.real({0})", "Imag": "xp.imag({0})", "Conj": "xp.conj({0})",
    "BitwiseAnd": "xp.bitwise_and({0}, {1})", "BitwiseOr": "xp.bitwise_or({0}, {1})",
    "BitwiseXor": "xp.bitwise_xor({0}, {1})", "LeftShift": _shift_lowering("left_shift"),
    "RightShift": _shift_lowering("right_shift"), "Invert": "xp.invert({0})",
    "Angle": "xp.angle({0})", "ComplexAbs": "xp.abs({0})", "Complex": _complex_lowering,
}


def _in_float64(template):
    """numba: `template` computed in float64 for a narrower float and rounded back (numba's
    float32 sinh, say, is several ulp off numpy's; float64 then rounding stays within one)."""
    def rule(lowerer, node, ins, outs):
        x = ins[0]
        if x.dtype.is_floating and x.dtype.np_dtype.itemsize < 8:
            x = "xp.float64(%s)" % x if x.rank0 else "%s.astype(xp.float64)" % x
        lowerer.assign(outs[0], template.format(x))
    return rule


def _fast_in_numba(function, otherwise):
    """numba: for float32 and float64, `numba_math.<function>(x, numba_math.FLOAT32)` on a
    scalar, `numba_math.fast_<function>(x)` on an array (runtime/backends/numba_math.py:
    within 2 ulp, and vectorisable in a loop where the C library's function is not); else
    `otherwise`."""
    def rule(lowerer, node, ins, outs):
        x = ins[0]
        # numba inlines each use into its IR, and compiling hundreds of them takes minutes:
        # a kernel's uses beyond the budget take the C library's function instead
        uses = getattr(lowerer, "fast_math_uses", 0)
        if x.dtype not in (dtypes.float32, dtypes.float64) or uses >= _FAST_MATH_BUDGET:
            otherwise(lowerer, node, ins, outs)
            return
        lowerer.fast_math_uses = uses + 1
        if x.rank0:
            lowerer.assign(outs[0], "numba_math.%s(%s, numba_math.%s)" % (
                function, x, x.dtype.name.upper()))
        elif function in _IN_C_LIBRARY and _static_size(x) < _ONE_VECTOR:
            lowerer.assign(outs[0], "np.%s(%s)" % (function, x))
        else:
            lowerer.assign(outs[0], "numba_math.fast_%s(%s)" % (function, x))
    return rule


_FAST_IN_NUMBA = {"Tanh": "tanh", "Exp": "exp", "Sigmoid": "sigmoid"}
# An array shorter than one vector step (8 float32s) would run only the vectorised loop's
# scalar remainder, which is slower than numpy's own ufunc on it (the C library's tanhf and
# expf, within 2 ulp as well): the guide's tanh loop on 5 elements runs 1.6x faster so.
_IN_C_LIBRARY = ("tanh", "exp")
_FAST_MATH_BUDGET = 32  # fast tanh/exp/sigmoid uses per kernel (see _fast_in_numba)
_ONE_VECTOR = 8


def _static_size(value):
    """The number of elements of `value` when its shape is fully known, else infinity."""
    shape = value.shape
    if shape is None or any(d is None for d in shape):
        return float("inf")
    return int(np.prod(shape, dtype=np.int64))
_TRANSCENDENTAL = ("Tanh", "Exp", "Expm1", "Log", "Log1p", "Sin", "Cos", "Tan", "Sinh", "Cosh",
                   "Sigmoid", "Softplus")


def _wide_floats_only_in_jax(function):
    """JAX: `function` (a jnp name) for float64, declined for narrower floats (XLA's float32
    sinh and cosh are up to 24 ulp off for large |x|, beyond the 4 ulp allowed)."""
    def rule(lowerer, node, ins):
        x = lowerer.jnp.asarray(ins[0])
        if x.dtype.itemsize < 8:
            raise lowering_api.Unsupported("XLA's %s %s is not accurate enough"
                                       % (x.dtype.name, function))
        return [getattr(lowerer.jnp, function)(x)]
    return rule


_INACCURATE_IN_XLA = {"Sinh": "sinh", "Cosh": "cosh"}


def exact_divide_jax(lw, x, y):
    """x / y rounded as numpy rounds it. XLA rewrites a division by a broadcast divisor (a
    scalar, a constant) into a multiplication by its rounded reciprocal, an ulp off numpy's
    quotient for about a third of the values; a divisor XLA cannot see as a broadcast (one
    less a zero it cannot prove zero: the population count of the bits of a traced operand
    xor-ed with an iota, shifted right by 8) keeps the division. (Less, not plus: -0.0 + 0.0
    is 0.0, which would turn x / -0.0 from -inf into inf.)"""
    jnp, lax = lw.jnp, lw.lax
    x, y = jnp.asarray(x), jnp.asarray(y)
    out = jnp.broadcast_shapes(x.shape, y.shape)
    if y.shape == out or jnp.result_type(x, y).kind != "f" or not out:
        return x / y
    dtype = jnp.result_type(x, y)
    source = jnp.broadcast_to(jnp.asarray(y if lowering_api.is_concrete(x) else x, dtype), out)
    width = {2: jnp.int16, 4: jnp.int32, 8: jnp.int64}[source.dtype.itemsize]
    count = int(np.prod(out))
    bits = lax.bitcast_convert_type(source, width) ^ lax.iota(width, count).reshape(out)
    zero = lax.shift_right_logical(lax.population_count(bits), jnp.asarray(8, width))
    return x / (jnp.broadcast_to(y, out).astype(dtype) - zero.astype(dtype))


def _real_div_jax(lw, node, ins):
    """RealDiv, rounded as numpy's (see `exact_divide`)."""
    return [exact_divide_jax(lw, ins[0], ins[1])]


@lowering_api.loop_alone
@lowering_api.checked_before_broadcast
def _floor_mod_numba(lowerer, node, ins, outs):
    """FloorMod of floats as the kernel (TensorFlow's): numba's mod gives 0.0 for every zero
    remainder, where the kernel keeps fmod's sign, the dividend's. Integers by the array
    rule. (JAX's mod is the kernel's already.) A loop even alone: over arrays, the fix-up
    would build four temporaries."""
    x, y = ins
    if x.dtype.is_integer:
        _LOWERINGS["FloorMod"](lowerer, node, ins, outs)
        return
    lowerer.check_broadcast(x, y)
    t = lowerer.local(outs[0].dtype, outs[0].shape, "m")
    lowerer.assign(t, "xp.fmod(%s, %s)" % (x, y))
    if x.rank0 and y.rank0:
        lowerer.assign(outs[0], "(%s + %s if %s != 0 and (%s < 0) != (%s < 0) else %s)" % (
            t, y, t, y, t, t))
    else:
        lowerer.assign(outs[0], "xp.where((%s != 0) & ((%s < 0) != (%s < 0)), %s + %s, %s)" % (
            t, y, t, t, y, t))


def _floor_div_jax(lw, node, ins):
    """FloorDiv of floats as the kernel: the floor of the quotient rounded as numpy rounds
    it (jnp.floor_divide is numpy's floor of the exact quotient); integers by the array
    rule. numba's floor_divide of floats is already floor(x / y)."""
    x, y = ins
    if not lw.jnp.issubdtype(lw.jnp.result_type(x, y), lw.jnp.floating):
        return lw.array_rule(node, ins)
    return [lw.jnp.floor(exact_divide_jax(lw, x, y))]


def lowering(name):
    """The op's lowerings: its "array" rule from _LOWERINGS (none for a host-only op), and
    for the transcendental functions a numba rule (fast functions of numba_math for tanh, exp
    and sigmoid, the others computed in float64 for a narrower float), and a JAX rule where
    XLA's float32 function is not accurate enough."""
    if name not in _LOWERINGS:
        return {}
    if name in _TRANSCENDENTAL:
        rules = {"array": _LOWERINGS[name], "numba": _in_float64(_LOWERINGS[name])}
        if name in _FAST_IN_NUMBA:
            rules["numba"] = _fast_in_numba(_FAST_IN_NUMBA[name], rules["numba"])
        if name in _INACCURATE_IN_XLA:
            rules["jax"] = _wide_floats_only_in_jax(_INACCURATE_IN_XLA[name])
        return rules
    if name == "RealDiv":  # XLA divides by a broadcast divisor's reciprocal: not numpy's
        return {"array": _LOWERINGS[name], "jax": _real_div_jax}
    if name == "FloorDiv":
        return {"array": _LOWERINGS[name], "jax": _floor_div_jax}
    if name == "FloorMod":
        return {"array": _LOWERINGS[name], "numba": _floor_mod_numba}
    return {"array": _LOWERINGS[name]}
