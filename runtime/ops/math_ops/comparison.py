"""Elementwise comparisons and the ops that choose by them: less, greater, equal and the
others, the logical ops, the NaN and infinity tests, SelectV2 (the elementwise
`tf.where(c, x, y)`), maximum, minimum, relu and clip_by_value.

SelectV2 is declared here, with the ops whose gradients are written with it (Maximum,
Minimum, ClipByValue, and Pow and complex `sign` in the modules above); `selection_ops.where`
is its API.
"""

from typing import Any

import numpy as np

from runtime import dtypes
from runtime.ops import common
from runtime.ops.common import (
    ANY,
    FLOAT,
    NUMERIC,
    REAL,
    convert_to_tensor,
    require_kind,
    require_same_dtype,
)
from runtime.ops.composite_dispatch import dispatchable
from runtime.ops.gradient_ops import RELU_GRAD, sum_to
from runtime.ops.math_lowerings import lowering as _lowering
from runtime.ops.math_ops import elementwise
from runtime.ops.math_ops.elementwise import (
    binary_rule,
    operator_emit,
    unary_rule,
    zeros_like,
)
from runtime.ops.registry import KERNEL_CALL, NOT_DIFFERENTIABLE, execute1, register

_COMPARABLE = NUMERIC | {"bool"}
_CALL = KERNEL_CALL
_NONE = NOT_DIFFERENTIABLE

OPS = {}


def _comparison_emit(symbol, kinds=None):
    return operator_emit(symbol, may_overflow=False, kinds=kinds)


def _select_infer(specs, attrs):
    (cond_dtype, cond_shape), x, y = specs
    require_kind(cond_dtype, {"bool"}, "condition")
    dtype = require_same_dtype([x, y])
    return [(dtype, common.broadcast_specs([(cond_dtype, cond_shape), x, y]))]


def _select_scalars(lowerer, node, ins, outs):
    """numba: a conditional expression for rank-0 operands (np.where wants arrays)."""
    if all(x.rank0 for x in ins):
        lowerer.assign(outs[0], "(%s if %s else %s)" % (ins[1], ins[0], ins[2]))
    else:
        lowerer.assign(outs[0], "xp.where(%s, %s, %s)" % tuple(ins))


def _select_grad(ctx, grads):
    g = grads[0]
    condition = ctx.input(0)
    zeros = zeros_like(g)
    return [None,
            sum_to(select(condition, g, zeros), ctx, 1) if ctx.needed[1] else None,
            sum_to(select(condition, zeros, g), ctx, 2) if ctx.needed[2] else None]


SELECT_V2 = register("SelectV2", lambda c, x, y: np.where(c, x, y), _select_infer,
                     grad=_select_grad, emit=KERNEL_CALL,
                     lowerings={"array": "xp.where({0}, {1}, {2})",
                                "numba": _select_scalars}, traits=("elementwise",))


def select(condition, x, y):
    """The SelectV2 op: `x` where `condition`, else `y` (broadcast)."""
    return execute1(SELECT_V2, [condition, x, y])


def _select_winner_grad(ctx, grads, x_wins):
    """Maximum/Minimum: the gradient goes to x where `x_wins`, else to y."""
    g = grads[0]
    zeros = zeros_like(g)
    return [sum_to(select(x_wins, g, zeros), ctx, 0) if ctx.needed[0] else None,
            sum_to(select(x_wins, zeros, g), ctx, 1) if ctx.needed[1] else None]


def _maximum_grad(ctx, grads):
    return _select_winner_grad(ctx, grads, greater_equal(ctx.input(0), ctx.input(1)))


def _minimum_grad(ctx, grads):
    return _select_winner_grad(ctx, grads, less_equal(ctx.input(0), ctx.input(1)))


def _clip_grad(ctx, grads):
    g = grads[0]
    x, lo, hi = ctx.input(0), ctx.input(1), ctx.input(2)
    zeros = zeros_like(g)
    below, above = less(x, lo), greater(x, hi)
    inside = logical_not(logical_or(below, above))
    return [select(inside, g, zeros) if ctx.needed[0] else None,
            sum_to(select(below, g, zeros), ctx, 1) if ctx.needed[1] else None,
            sum_to(select(above, g, zeros), ctx, 2) if ctx.needed[2] else None]


def _relu_grad(ctx, grads):
    return [execute1(RELU_GRAD, [grads[0], ctx.output(0)])]


_BINARY: dict[str, tuple[Any, ...]] = {
    # op name: (node name, kernel, dtype kinds, result dtype, emit rule, gradient)
    "Less": ("Less", np.less, REAL, dtypes.bool_, _comparison_emit("<"), _NONE),
    "LessEqual": ("LessEqual", np.less_equal, REAL, dtypes.bool_, _comparison_emit("<="),
                  _NONE),
    "Greater": ("Greater", np.greater, REAL, dtypes.bool_, _comparison_emit(">"), _NONE),
    "GreaterEqual": ("GreaterEqual", np.greater_equal, REAL, dtypes.bool_,
                     _comparison_emit(">="), _NONE),
    "Equal": ("Equal", np.equal, ANY, dtypes.bool_, _comparison_emit("==", _COMPARABLE),
              _NONE),
    "NotEqual": ("NotEqual", np.not_equal, ANY, dtypes.bool_,
                 _comparison_emit("!=", _COMPARABLE), _NONE),
    "LogicalAnd": ("LogicalAnd", np.logical_and, {"bool"}, None, _CALL, _NONE),
    "LogicalOr": ("LogicalOr", np.logical_or, {"bool"}, None, _CALL, _NONE),
    "Maximum": ("Maximum", np.maximum, REAL, None, _CALL, _maximum_grad),
    "Minimum": ("Minimum", np.minimum, REAL, None, _CALL, _minimum_grad),
}


for _name, (_node, _kernel, _kinds, _result, _emit, _grad) in _BINARY.items():
    OPS[_name] = register(_name, _kernel, binary_rule(_kinds, _result), node_name=_node,
                          grad=_grad, emit=_emit, lowerings=_lowering(_name),
                          traits=("elementwise",))


_UNARY: dict[str, tuple[Any, ...]] = {
    # op name: (kernel, dtype kinds, result dtype, emit rule, gradient)
    "IsNan": (np.isnan, FLOAT, dtypes.bool_, _CALL, _NONE),
    "IsInf": (np.isinf, FLOAT, dtypes.bool_, _CALL, _NONE),
    "IsFinite": (np.isfinite, FLOAT, dtypes.bool_, _CALL, _NONE),
    "LogicalNot": (np.logical_not, {"bool"}, None, _CALL, _NONE),
    "Relu": (lambda x: np.maximum(x, 0), REAL, None, _CALL, _relu_grad),
}


for _name, (_kernel, _kinds, _result, _emit, _grad) in _UNARY.items():
    OPS[_name] = register(_name, _kernel, unary_rule(_kinds, _result), grad=_grad,
                          emit=_emit, lowerings=_lowering(_name), traits=("elementwise",))


def _binary(op_name, x, y, name=None):
    return elementwise.binary_call(OPS[op_name], x, y, name)


def maximum(x, y, name=None):
    """Elementwise maximum."""
    return _binary("Maximum", x, y, name)


def minimum(x, y, name=None):
    """Elementwise minimum."""
    return _binary("Minimum", x, y, name)


def less(x, y, name=None):
    """x < y elementwise (bool)."""
    return _binary("Less", x, y, name)


def less_equal(x, y, name=None):
    """x <= y elementwise (bool)."""
    return _binary("LessEqual", x, y, name)


def greater(x, y, name=None):
    """x > y elementwise (bool)."""
    return _binary("Greater", x, y, name)


def greater_equal(x, y, name=None):
    """x >= y elementwise (bool)."""
    return _binary("GreaterEqual", x, y, name)


def equal(x, y, name=None):
    """x == y elementwise (bool)."""
    return _binary("Equal", x, y, name)


def not_equal(x, y, name=None):
    """x != y elementwise (bool)."""
    return _binary("NotEqual", x, y, name)


def logical_and(x, y, name=None):
    """Elementwise and of bool tensors."""
    return _binary("LogicalAnd", x, y, name)


def logical_or(x, y, name=None):
    """Elementwise or of bool tensors."""
    return _binary("LogicalOr", x, y, name)


def logical_xor(x, y, name=None):
    """Elementwise exclusive or of bool tensors."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


def _unary_api(op_name, doc):
    return elementwise.unary_api(OPS[op_name], doc, __name__)


is_nan = _unary_api("IsNan", "True where x is NaN.")
is_inf = _unary_api("IsInf", "True where x is infinite.")
is_finite = _unary_api("IsFinite", "True where x is finite.")
logical_not = _unary_api("LogicalNot", "Elementwise not of a bool tensor.")
relu = _unary_api("Relu", "max(x, 0) elementwise.")


def _clip_infer(specs, attrs):
    dtype = require_same_dtype(specs)
    require_kind(dtype, REAL)
    return [(dtype, specs[0][1])]


OPS["ClipByValue"] = register("ClipByValue", lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi),
                              _clip_infer,
                              grad=_clip_grad, emit=KERNEL_CALL,
                              lowerings=_lowering("ClipByValue"), traits=("elementwise",))


@dispatchable
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """`t` with values below/above the bounds replaced by the bounds."""
    t = convert_to_tensor(t)
    lo = convert_to_tensor(clip_value_min, dtype_hint=t.dtype)
    hi = convert_to_tensor(clip_value_max, dtype_hint=t.dtype)
    return execute1(OPS["ClipByValue"], [t, lo, hi], name=name)
