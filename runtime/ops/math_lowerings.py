"""How compiled backends write the elementwise math ops of `math_ops` (their `lowerings`,
passed to each op's `register` call there): templates in numpy-API terms for most, rules for
the ops that must fail like their kernel (integer division by zero, negative integer powers).
See runtime/backends/lowering.py for the protocol."""

import numpy as np


def _division_lowering(function, what):
    """`xp.<function>(x, y)`, failing like the kernel on an integer divisor of zero."""
    def rule(lowerer, node, ins, outs):
        x, y = ins
        if x.dtype.is_integer:
            zero = "%s == 0" % y if y.rank0 else "xp.any(%s == 0)" % y
            if y.value is None or np.any(y.value == 0):
                lowerer.check(zero, ZeroDivisionError, "integer %s by zero" % what)
        lowerer.assign(outs[0], "xp.%s(%s, %s)" % (function, x, y))
    return rule


def _pow_lowering(lowerer, node, ins, outs):
    x, y = ins
    if x.dtype.is_integer and (y.value is None or np.any(y.value < 0)):
        negative = "%s < 0" % y if y.rank0 else "xp.any(%s < 0)" % y
        lowerer.check(negative, ValueError,
                      "Integers to negative integer powers are not allowed.")
    lowerer.assign(outs[0], "xp.power(%s, %s)" % (x, y))


def _cast_lowering(lowerer, node, ins, outs):
    lowerer.assign(outs[0], lowerer.cast(ins[0], node.attrs["dtype"]))


def _add_n_lowering(lowerer, node, ins, outs):
    lowerer.assign(outs[0], " + ".join(ins))


_LOWERINGS = {
    "AddV2": "{0} + {1}", "Sub": "{0} - {1}", "Mul": "{0} * {1}",
    "RealDiv": "{0} / {1}", "FloorDiv": _division_lowering("floor_divide", "division"),
    "FloorMod": _division_lowering("mod", "modulo"), "Pow": _pow_lowering,
    "Maximum": "xp.maximum({0}, {1})", "Minimum": "xp.minimum({0}, {1})",
    "SquaredDifference": "xp.square({0} - {1})",
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
    "Relu": "xp.maximum({0}, 0)", "Cast": _cast_lowering, "AddN": _add_n_lowering,
    "ClipByValue": "xp.minimum(xp.maximum({0}, {1}), {2})",
}


def lowering(name):
    """The op's lowerings: its "array" rule from _LOWERINGS (none for a host-only op)."""
    return {"array": _LOWERINGS[name]} if name in _LOWERINGS else {}
