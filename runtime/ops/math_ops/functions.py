"""Elementary functions, elementwise: exponentials and logarithms, powers and roots, the
trigonometric and hyperbolic functions, sigmoid and softplus, and rounding (floor, ceil,
round).

Each unary function is a row of `_UNARY`: its kernel, dtype kinds, result dtype, emit rule and
gradient (most from the derivative, with `arithmetic.chain`); the compiled backends' lowering
is its row in `math_lowerings`.
"""

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.ops import float32_kernels
from runtime.ops.common import FLOAT, INEXACT, NUMERIC
from runtime.ops.gradient_ops import sum_to
from runtime.ops.math_lowerings import lowering as _lowering
from runtime.ops.math_ops import elementwise
from runtime.ops.math_ops.arithmetic import (
    add,
    chain,
    conj,
    conj_if_complex,
    multiply,
    negative,
    square,
    subtract,
    truediv,
)
from runtime.ops.math_ops.comparison import greater, not_equal, select
from runtime.ops.math_ops.elementwise import (
    binary_rule,
    ignore_errors,
    ones_like,
    quiet,
    unary_rule,
    zeros_like,
)
from runtime.ops.registry import KERNEL_CALL, NOT_DIFFERENTIABLE, register

_CALL = KERNEL_CALL
_NONE = NOT_DIFFERENTIABLE

OPS = {}


def _sigmoid(x):
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


def _softplus(x):
    with np.errstate(over="ignore"):
        return np.logaddexp(0, x).astype(x.dtype)


def _unsilenced_emit(ufunc):
    """`np.<ufunc>(x)`, without the `quiet` kernel's `np.errstate` (about a microsecond a
    call), where the generated code already runs with overflow warnings off (a loop that
    computes integers); else the kernel call. For ufuncs whose only warning is overflow."""
    def emit(outs, ins, attrs, emitter):
        if not emitter.overflow_ignored:
            return None
        return "%s = np.%s(%s)" % (outs[0], ufunc, ins[0])
    return emit


def _pow_grad(ctx, grads):
    g = grads[0]
    x, y = ctx.input(0), ctx.input(1)
    dx = dy = None
    if ctx.needed[0]:  # complex: times the conjugate derivative, as TensorFlow's rule
        dx = sum_to(multiply(g, conj(multiply(y, pow(x, subtract(y, 1))))), ctx, 0)
    if ctx.needed[1]:
        # d(x**y)/dy = x**y * log(x), taken as 0 where x <= 0 (as TensorFlow does; for
        # complex x, where x is 0)
        usable = not_equal(x, 0) if x.dtype.is_complex else greater(x, 0)
        safe_log = select(usable, log(select(usable, x, ones_like(x))), zeros_like(x))
        dy = sum_to(multiply(g, conj(multiply(ctx.output(0), safe_log))), ctx, 1)
    return [dx, dy]


def _log_grad(ctx, grads):
    return [truediv(grads[0], conj_if_complex(ctx.input(0)))]


def _log1p_grad(ctx, grads):
    return [truediv(grads[0], conj_if_complex(add(ctx.input(0), 1.0)))]


def _sqrt_grad(ctx, grads):
    return [truediv(grads[0], conj_if_complex(multiply(ctx.output(0), 2.0)))]


# negative integer powers raise
OPS["Pow"] = register("Pow", ignore_errors(np.power), binary_rule(NUMERIC), node_name="pow",
                      grad=_pow_grad, emit=KERNEL_CALL, lowerings=_lowering("Pow"),
                      traits=("may_raise", "elementwise"))


# The API functions the table's gradients are written with, made by _unary_api below.
sigmoid: Callable[..., Any]
sin: Callable[..., Any]
cos: Callable[..., Any]
sinh: Callable[..., Any]
cosh: Callable[..., Any]

_UNARY = {
    # op name: (kernel, dtype kinds, result dtype, emit rule, gradient)
    "Tanh": (np.tanh, INEXACT, None, _CALL,
             chain(lambda ctx: subtract(1.0, square(ctx.output(0))))),
    "Exp": (float32_kernels.exp, INEXACT, None, _CALL, chain(lambda ctx: ctx.output(0))),
    "Expm1": (quiet(np.expm1), INEXACT, None, _CALL, chain(lambda ctx: add(ctx.output(0), 1.0))),
    "Log": (quiet(np.log), INEXACT, None, _CALL, _log_grad),
    "Log1p": (quiet(np.log1p), INEXACT, None, _CALL, _log1p_grad),
    "Sqrt": (quiet(np.sqrt), INEXACT, None, _CALL, _sqrt_grad),
    "Rsqrt": (quiet(lambda x: 1 / np.sqrt(x)), INEXACT, None, _CALL,
              chain(lambda ctx: multiply(multiply(ctx.output(0), square(ctx.output(0))),
                                         -0.5))),
    "Sigmoid": (_sigmoid, INEXACT, None, _CALL,
                chain(lambda ctx: multiply(ctx.output(0), subtract(1.0, ctx.output(0))))),
    "Softplus": (_softplus, FLOAT, None, _CALL, chain(lambda ctx: sigmoid(ctx.input(0)))),
    "Sin": (np.sin, INEXACT, None, _CALL, chain(lambda ctx: cos(ctx.input(0)))),
    "Cos": (np.cos, INEXACT, None, _CALL, chain(lambda ctx: negative(sin(ctx.input(0))))),
    "Tan": (np.tan, INEXACT, None, _CALL, chain(lambda ctx: add(square(ctx.output(0)), 1.0))),
    "Sinh": (quiet(np.sinh), INEXACT, None, _unsilenced_emit("sinh"),
             chain(lambda ctx: cosh(ctx.input(0)))),
    "Cosh": (quiet(np.cosh), INEXACT, None, _unsilenced_emit("cosh"),
             chain(lambda ctx: sinh(ctx.input(0)))),
    "Floor": (np.floor, FLOAT, None, _CALL, _NONE),
    "Ceil": (np.ceil, FLOAT, None, _CALL, _NONE),
    "Round": (np.round, FLOAT, None, _CALL, _NONE),
}


for _name, (_kernel, _kinds, _result, _emit, _grad) in _UNARY.items():
    OPS[_name] = register(_name, _kernel, unary_rule(_kinds, _result), grad=_grad,
                          emit=_emit, lowerings=_lowering(_name), traits=("elementwise",))


def _binary(op_name, x, y, name=None):
    return elementwise.binary_call(OPS[op_name], x, y, name)


def pow(x, y, name=None):  # noqa: A001 - TensorFlow's name
    """x ** y elementwise."""
    return _binary("Pow", x, y, name)


def _unary_api(op_name, doc):
    return elementwise.unary_api(OPS[op_name], doc, __name__)


tanh = _unary_api("Tanh", "Hyperbolic tangent elementwise.")
exp = _unary_api("Exp", "e ** x elementwise.")
expm1 = _unary_api("Expm1", "e ** x - 1 elementwise.")
log = _unary_api("Log", "Natural logarithm elementwise.")
log1p = _unary_api("Log1p", "log(1 + x) elementwise.")
sqrt = _unary_api("Sqrt", "Square root elementwise.")
rsqrt = _unary_api("Rsqrt", "1 / sqrt(x) elementwise.")
sigmoid = _unary_api("Sigmoid", "1 / (1 + exp(-x)) elementwise.")
softplus = _unary_api("Softplus", "log(1 + exp(x)) elementwise.")
sin = _unary_api("Sin", "Sine elementwise.")
cos = _unary_api("Cos", "Cosine elementwise.")
tan = _unary_api("Tan", "Tangent elementwise.")
sinh = _unary_api("Sinh", "Hyperbolic sine elementwise.")
cosh = _unary_api("Cosh", "Hyperbolic cosine elementwise.")
floor = _unary_api("Floor", "Largest integer not greater than x, elementwise.")
ceil = _unary_api("Ceil", "Smallest integer not less than x, elementwise.")
round = _unary_api("Round", "x rounded half to even, elementwise.")  # noqa: A001
