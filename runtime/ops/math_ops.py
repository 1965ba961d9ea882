"""Elementwise math ops: arithmetic, comparisons, logic, unary functions, cast, add_n and
clip_by_value.

Reductions and argmax/argmin are in `reduction_ops`, cumsum and cumprod in `cumulative_ops`,
matmul in `linalg_ops`.

Each op is declared once with its kernel, inference rule, emit rule, gradient (a unary
op's from its derivative, right in its table row; the others as functions above the tables)
and lowerings; the functions below it are the public API
(`tf.add`, `tf.exp`, ...), which convert arguments and call `execute`.
"""

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime import dtypes, lowering_api
from runtime.ops import attr_types, batching, common
from runtime.ops.common import (
    ANY,
    FLOAT,
    INEXACT,
    NUMERIC,
    REAL,
    SpecError,
    binary_operands,
    convert_to_tensor,
    require_kind,
    require_same_dtype,
)
from runtime.ops.composite_dispatch import TYPES, binary, dispatchable, unary
from runtime.ops.gradient_ops import RELU_GRAD, sum_to
from runtime.ops.math_lowerings import lowering as _lowering
from runtime.ops.registry import KERNEL_CALL, NOT_DIFFERENTIABLE, execute1, register

# -- elementwise binary ------------------------------------------------------------------


def _binary_rule(kinds, result_dtype=None):
    def infer(specs, attrs):
        dtype = require_same_dtype(specs)
        require_kind(dtype, kinds)
        return [(result_dtype or dtype, common.broadcast_specs(specs))]
    return infer


def _ignore_errors(func):
    def kernel(x, y):
        with np.errstate(all="ignore"):
            return func(x, y)
    return kernel


def _is_integer(value):
    return isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in "iu"


def _check_divisor(y, what):
    """Integer division by zero fails, as in TensorFlow (numpy would warn and give 0)."""
    zero = y == 0
    if zero.any() if isinstance(zero, np.ndarray) else zero:
        raise ZeroDivisionError("integer %s by zero" % what)


def _floordiv_kernel(x, y):
    if _is_integer(y):
        _check_divisor(y, "division")
    with np.errstate(all="ignore"):  # floats: inf and nan; integers: the minimum // -1 wraps
        return np.floor_divide(x, y)


def _mod_kernel(x, y):
    if _is_integer(y):
        _check_divisor(y, "modulo")
        return np.mod(x, y)  # with no zero divisor, integer modulo has nothing to warn about
    with np.errstate(all="ignore"):
        return np.mod(x, y)


# -- how the executor writes elementwise binary ops ---------------------------------------


def _operator_emit(symbol, may_overflow=True, kinds=None):
    """`x <symbol> y`, which is the op's ufunc for arrays. The kernel call stays for operands
    of dtype kinds other than `kinds` (when given), and for integer arithmetic that could warn
    on overflow (`may_overflow`, see `common.wraps_silently`)."""
    def emit(outs, ins, attrs, emitter):
        if kinds is not None and ins[0].dtype.kind not in kinds:
            return None
        if may_overflow and not common.wraps_silently(ins, emitter):
            return None
        x, y = common.elementwise_operands(ins)
        return "%s = %s %s %s" % (outs[0], x, symbol, y)
    return emit


def _integer_division_emit(symbol):
    """`x // c` and `x % c` for integers when the divisor is a constant with no zero, so that
    the kernel's check cannot fail (and for `//` with no -1, the one divisor that can
    overflow). Otherwise the kernel call, which checks the divisor and silences warnings."""
    def emit(outs, ins, attrs, emitter):
        divisor = ins[1].value
        if not ins[0].dtype.is_integer or divisor is None or np.any(divisor == 0):
            return None
        if symbol == "//" and np.any(divisor == -1):
            return None
        x, y = common.elementwise_operands(ins)
        return "%s = %s %s %s" % (outs[0], x, symbol, y)
    return emit


def _comparison_emit(symbol, kinds=None):
    return _operator_emit(symbol, may_overflow=False, kinds=kinds)


_COMPARABLE = NUMERIC | {"bool"}
_INTEGER = frozenset(["int"])  # strings: np.equal on object arrays, kept as the kernel

_CALL = KERNEL_CALL
_NONE = NOT_DIFFERENTIABLE


# -- select and the filled-like ops -------------------------------------------------------
# SelectV2 (the elementwise `tf.where(c, x, y)`) is declared here, with the math ops whose
# gradients are written with it and with ZerosLike and OnesLike (Pow, Maximum, Minimum, Sign,
# ClipByValue below); ZerosLike and OnesLike are declared in common, beside Unpack, whose
# gradient fills zeros. The API functions are selection_ops.where, array_ops.zeros_like and
# array_ops.ones_like.

ZEROS_LIKE = common.ZEROS_LIKE
ONES_LIKE = common.ONES_LIKE


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
    zeros = _zeros_like(g)
    return [None,
            sum_to(_select(condition, g, zeros), ctx, 1) if ctx.needed[1] else None,
            sum_to(_select(condition, zeros, g), ctx, 2) if ctx.needed[2] else None]


SELECT_V2 = register("SelectV2", lambda c, x, y: np.where(c, x, y), _select_infer,
                     grad=_select_grad, emit=KERNEL_CALL,
                     lowerings={"array": "xp.where({0}, {1}, {2})",
                                "numba": _select_scalars}, traits=("elementwise",))


def _zeros_like(x):
    return execute1(ZEROS_LIKE, [x])


def _ones_like(x):
    return execute1(ONES_LIKE, [x])


def _select(condition, x, y):
    return execute1(SELECT_V2, [condition, x, y])


# -- the gradients written with them -------------------------------------------------------


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
        safe_log = _select(usable, log(_select(usable, x, _ones_like(x))),
                             _zeros_like(x))
        dy = sum_to(multiply(g, conj(multiply(ctx.output(0), safe_log))), ctx, 1)
    return [dx, dy]


def _select_winner_grad(ctx, grads, x_wins):
    """Maximum/Minimum: the gradient goes to x where `x_wins`, else to y."""
    g = grads[0]
    zeros = _zeros_like(g)
    return [sum_to(_select(x_wins, g, zeros), ctx, 0) if ctx.needed[0] else None,
            sum_to(_select(x_wins, zeros, g), ctx, 1) if ctx.needed[1] else None]


def _maximum_grad(ctx, grads):
    return _select_winner_grad(ctx, grads, greater_equal(ctx.input(0), ctx.input(1)))


def _minimum_grad(ctx, grads):
    return _select_winner_grad(ctx, grads, less_equal(ctx.input(0), ctx.input(1)))


def _sign_grad(ctx, grads):
    return [_zeros_like(grads[0])]


def _clip_grad(ctx, grads):
    g = grads[0]
    x, lo, hi = ctx.input(0), ctx.input(1), ctx.input(2)
    zeros = _zeros_like(g)
    below, above = less(x, lo), greater(x, hi)
    inside = logical_not(logical_or(below, above))
    return [_select(inside, g, zeros) if ctx.needed[0] else None,
            sum_to(_select(below, g, zeros), ctx, 1) if ctx.needed[1] else None,
            sum_to(_select(above, g, zeros), ctx, 2) if ctx.needed[2] else None]


def _add_grad(ctx, grads):
    g = grads[0]
    return [sum_to(g, ctx, 0) if ctx.needed[0] else None,
            sum_to(g, ctx, 1) if ctx.needed[1] else None]


def _sub_grad(ctx, grads):
    g = grads[0]
    return [sum_to(g, ctx, 0) if ctx.needed[0] else None,
            sum_to(negative(g), ctx, 1) if ctx.needed[1] else None]


def _conj_if_complex(t):
    """conj(t) for a complex tensor, else t: TensorFlow's gradients of complex functions
    multiply by the conjugate of the derivative."""
    return conj(t) if t.dtype.is_complex else t


def _mul_grad(ctx, grads):
    g = grads[0]
    x, y = _conj_if_complex(ctx.input(0)), _conj_if_complex(ctx.input(1))
    return [sum_to(multiply(g, y), ctx, 0) if ctx.needed[0] else None,
            sum_to(multiply(x, g), ctx, 1) if ctx.needed[1] else None]


def _div_grad(ctx, grads):
    g = grads[0]
    y = _conj_if_complex(ctx.input(1))
    dx = sum_to(truediv(g, y), ctx, 0) if ctx.needed[0] else None
    dy = None
    if ctx.needed[1]:
        # d(x/y)/dy = -x / y**2
        dy = sum_to(multiply(g, negative(truediv(truediv(_conj_if_complex(ctx.input(0)), y),
                                                 y))), ctx, 1)
    return [dx, dy]


def _floormod_grad(ctx, grads):
    g = grads[0]
    dx = sum_to(g, ctx, 0) if ctx.needed[0] else None
    dy = None
    if ctx.needed[1]:
        quotient = floordiv(ctx.input(0), ctx.input(1))
        dy = sum_to(negative(multiply(g, quotient)), ctx, 1)
    return [dx, dy]


def _squared_difference_kernel(x, y):
    """(x - y) ** 2; for complex operands (x - y) * conj(x - y), as TensorFlow computes it."""
    d = x - y
    return d * np.conj(d) if d.dtype.kind == "c" else np.square(d)


def _squared_difference_grad(ctx, grads):
    # 2 g (x - y), unconjugated for complex operands: TensorFlow's rule
    d = multiply(multiply(grads[0], 2.0), subtract(ctx.input(0), ctx.input(1)))
    return [sum_to(d, ctx, 0) if ctx.needed[0] else None,
            sum_to(negative(d), ctx, 1) if ctx.needed[1] else None]


def _neg_grad(ctx, grads):
    return [negative(grads[0])]


def _log_grad(ctx, grads):
    return [truediv(grads[0], _conj_if_complex(ctx.input(0)))]


def _log1p_grad(ctx, grads):
    return [truediv(grads[0], _conj_if_complex(add(ctx.input(0), 1.0)))]


def _sqrt_grad(ctx, grads):
    return [truediv(grads[0], _conj_if_complex(multiply(ctx.output(0), 2.0)))]


def _relu_grad(ctx, grads):
    return [execute1(RELU_GRAD, [grads[0], ctx.output(0)])]


_BINARY = {
    # op name: (node name, kernel, dtype kinds, result dtype, emit rule, gradient)
    "AddV2": ("add", np.add, NUMERIC, None, _operator_emit("+"), _add_grad),
    # TF's name for string concatenation
    "Add": ("add", np.add, {"string"}, None, _operator_emit("+"), _NONE),
    "Sub": ("sub", np.subtract, NUMERIC, None, _operator_emit("-"), _sub_grad),
    "Mul": ("mul", np.multiply, NUMERIC, None, _operator_emit("*"), _mul_grad),
    "RealDiv": ("truediv", _ignore_errors(np.true_divide), INEXACT, None, _CALL,
                _div_grad),
    "FloorDiv": ("floordiv", _floordiv_kernel, REAL, None, _integer_division_emit("//"),
                 _NONE),
    "FloorMod": ("mod", _mod_kernel, REAL, None, _integer_division_emit("%"),
                 _floormod_grad),
    "Pow": ("pow", _ignore_errors(np.power), NUMERIC, None, _CALL, _pow_grad),
    "Maximum": ("Maximum", np.maximum, REAL, None, _CALL, _maximum_grad),
    "Minimum": ("Minimum", np.minimum, REAL, None, _CALL, _minimum_grad),
    "SquaredDifference": ("SquaredDifference", _squared_difference_kernel, NUMERIC, None,
                          _CALL, _squared_difference_grad),
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
    # tf.bitwise: integers only, as TensorFlow's kernels
    "BitwiseAnd": ("BitwiseAnd", np.bitwise_and, _INTEGER, None, _CALL, _NONE),
    "BitwiseOr": ("BitwiseOr", np.bitwise_or, _INTEGER, None, _CALL, _NONE),
    "BitwiseXor": ("BitwiseXor", np.bitwise_xor, _INTEGER, None, _CALL, _NONE),
    "LeftShift": ("LeftShift", np.left_shift, _INTEGER, None, _CALL, _NONE),
    "RightShift": ("RightShift", np.right_shift, _INTEGER, None, _CALL, _NONE),
}


OPS = {}
# integer division by zero and negative integer powers raise; strings stay on the host
_TRAITS = {"FloorDiv": ("may_raise", "elementwise"), "FloorMod": ("may_raise", "elementwise"),
           "Pow": ("may_raise", "elementwise"), "Add": ("host_only",)}
for _name, (_node, _kernel, _kinds, _result, _emit, _grad) in _BINARY.items():
    OPS[_name] = register(_name, _kernel, _binary_rule(_kinds, _result), node_name=_node,
                          grad=_grad, emit=_emit, lowerings=_lowering(_name),
                          traits=_TRAITS.get(_name, ("elementwise",)))


def _binary(op_name, x, y, name=None):
    if TYPES and (type(x) in TYPES or type(y) in TYPES):
        return binary(lambda a, b, name=None: _binary(op_name, a, b, name), x, y, name=name)
    x, y = binary_operands(x, y)
    return execute1(OPS[op_name], [x, y], name=name)


def add(x, y, name=None):
    """x + y elementwise: op AddV2 for numbers, op Add (concatenation) for strings."""
    if TYPES and (type(x) in TYPES or type(y) in TYPES):
        return binary(add, x, y, name=name)
    x, y = binary_operands(x, y)
    op_name = "Add" if x.dtype is dtypes.string else "AddV2"
    return execute1(OPS[op_name], [x, y], name=name)


def subtract(x, y, name=None):
    """x - y elementwise."""
    return _binary("Sub", x, y, name)


def multiply(x, y, name=None):
    """x * y elementwise."""
    return _binary("Mul", x, y, name)


def truediv(x, y, name=None):
    """x / y; integer operands are first cast to float64, as in TensorFlow."""
    if TYPES and (type(x) in TYPES or type(y) in TYPES):
        return binary(truediv, x, y, name=name)
    x, y = binary_operands(x, y)
    if x.dtype.is_integer and y.dtype is x.dtype:
        # TensorFlow's rule: the narrow integers divide as float32, the wide ones as float64
        target = dtypes.float32 if x.dtype.size <= 2 else dtypes.float64
        x, y = cast(x, target), cast(y, target)
    return execute1(OPS["RealDiv"], [x, y], name=name)


divide = truediv


def floordiv(x, y, name=None):
    """x // y (floor division)."""
    return _binary("FloorDiv", x, y, name)


def floormod(x, y, name=None):
    """x % y with the sign of y, as Python's %."""
    return _binary("FloorMod", x, y, name)


mod = floormod


def pow(x, y, name=None):  # noqa: A001 - TensorFlow's name
    """x ** y elementwise."""
    return _binary("Pow", x, y, name)


def maximum(x, y, name=None):
    """Elementwise maximum."""
    return _binary("Maximum", x, y, name)


def minimum(x, y, name=None):
    """Elementwise minimum."""
    return _binary("Minimum", x, y, name)


def squared_difference(x, y, name=None):
    """(x - y) ** 2 elementwise."""
    return _binary("SquaredDifference", x, y, name)


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


def bitwise_and(x, y, name=None):
    """Elementwise bitwise and of integer tensors."""
    return _binary("BitwiseAnd", x, y, name)


def bitwise_or(x, y, name=None):
    """Elementwise bitwise or of integer tensors."""
    return _binary("BitwiseOr", x, y, name)


def bitwise_xor(x, y, name=None):
    """Elementwise bitwise exclusive or of integer tensors."""
    return _binary("BitwiseXor", x, y, name)


def left_shift(x, y, name=None):
    """x shifted left by y bits, elementwise (integers)."""
    return _binary("LeftShift", x, y, name)


def right_shift(x, y, name=None):
    """x shifted right by y bits, elementwise (arithmetic for signed integers)."""
    return _binary("RightShift", x, y, name)


def logical_xor(x, y, name=None):
    """Elementwise exclusive or of bool tensors."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)), name=name)


# -- elementwise unary --------------------------------------------------------------------


def _unary_rule(kinds, result_dtype=None):
    def infer(specs, attrs):
        dtype, shape = specs[0]
        require_kind(dtype, kinds)
        return [(result_dtype or dtype, shape)]
    return infer


def _quiet(func):
    def kernel(x):
        with np.errstate(all="ignore"):
            return func(x)
    return kernel


def _sigmoid(x):
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


def _softplus(x):
    with np.errstate(over="ignore"):
        return np.logaddexp(0, x).astype(x.dtype)


def _negative_emit(outs, ins, attrs, emitter):
    """`-x`, which is np.negative for arrays (the kernel where it could warn on overflow)."""
    if not common.wraps_silently(ins, emitter):
        return None
    return "%s = -%s" % (outs[0], ins[0])


def _unsilenced_emit(ufunc):
    """`np.<ufunc>(x)`, without the `_quiet` kernel's `np.errstate` (about a microsecond a
    call), where the generated code already runs with overflow warnings off (a loop that
    computes integers); else the kernel call. For ufuncs whose only warning is overflow."""
    def emit(outs, ins, attrs, emitter):
        if not emitter.overflow_ignored:
            return None
        return "%s = np.%s(%s)" % (outs[0], ufunc, ins[0])
    return emit


def _chain(derivative):
    """The gradient rule of a unary op from its derivative: `grads[0] * derivative(ctx)`,
    with `ctx.input(0)` / `ctx.output(0)` the op's input and output."""
    def rule(ctx, grads):
        return [multiply(grads[0], _conj_if_complex(derivative(ctx)))]
    return rule


# The API functions the table's gradients are written with, made by _unary_api below.
negative: Callable[..., Any]
square: Callable[..., Any]
sigmoid: Callable[..., Any]
sin: Callable[..., Any]
cos: Callable[..., Any]
sinh: Callable[..., Any]
cosh: Callable[..., Any]

_UNARY = {
    # op name: (kernel, dtype kinds, result dtype, emit rule, gradient)
    "Neg": (np.negative, NUMERIC, None, _negative_emit, _neg_grad),
    "Abs": (np.abs, REAL, None, _CALL, _chain(lambda ctx: sign(ctx.input(0)))),
    "Sign": (np.sign, REAL, None, _CALL, _sign_grad),
    "Square": (np.square, NUMERIC, None, _CALL,
               _chain(lambda ctx: multiply(ctx.input(0), 2.0))),
    "Reciprocal": (_quiet(np.reciprocal), INEXACT, None, _CALL,
                   _chain(lambda ctx: negative(square(ctx.output(0))))),
    "Tanh": (np.tanh, INEXACT, None, _CALL,
             _chain(lambda ctx: subtract(1.0, square(ctx.output(0))))),
    "Exp": (_quiet(np.exp), INEXACT, None, _CALL, _chain(lambda ctx: ctx.output(0))),
    "Expm1": (_quiet(np.expm1), INEXACT, None, _CALL, _chain(lambda ctx: add(ctx.output(0), 1.0))),
    "Log": (_quiet(np.log), INEXACT, None, _CALL, _log_grad),
    "Log1p": (_quiet(np.log1p), INEXACT, None, _CALL, _log1p_grad),
    "Sqrt": (_quiet(np.sqrt), INEXACT, None, _CALL, _sqrt_grad),
    "Rsqrt": (_quiet(lambda x: 1 / np.sqrt(x)), INEXACT, None, _CALL,
              _chain(lambda ctx: multiply(multiply(ctx.output(0), square(ctx.output(0))),
                                          -0.5))),
    "Sigmoid": (_sigmoid, INEXACT, None, _CALL,
                _chain(lambda ctx: multiply(ctx.output(0), subtract(1.0, ctx.output(0))))),
    "Softplus": (_softplus, FLOAT, None, _CALL, _chain(lambda ctx: sigmoid(ctx.input(0)))),
    "Sin": (np.sin, INEXACT, None, _CALL, _chain(lambda ctx: cos(ctx.input(0)))),
    "Cos": (np.cos, INEXACT, None, _CALL, _chain(lambda ctx: negative(sin(ctx.input(0))))),
    "Tan": (np.tan, INEXACT, None, _CALL, _chain(lambda ctx: add(square(ctx.output(0)), 1.0))),
    "Sinh": (_quiet(np.sinh), INEXACT, None, _unsilenced_emit("sinh"),
             _chain(lambda ctx: cosh(ctx.input(0)))),
    "Cosh": (_quiet(np.cosh), INEXACT, None, _unsilenced_emit("cosh"),
             _chain(lambda ctx: sinh(ctx.input(0)))),
    "Floor": (np.floor, FLOAT, None, _CALL, _NONE),
    "Ceil": (np.ceil, FLOAT, None, _CALL, _NONE),
    "Round": (np.round, FLOAT, None, _CALL, _NONE),
    "IsNan": (np.isnan, FLOAT, dtypes.bool_, _CALL, _NONE),
    "IsInf": (np.isinf, FLOAT, dtypes.bool_, _CALL, _NONE),
    "IsFinite": (np.isfinite, FLOAT, dtypes.bool_, _CALL, _NONE),
    "LogicalNot": (np.logical_not, {"bool"}, None, _CALL, _NONE),
    "Invert": (np.invert, _INTEGER, None, _CALL, _NONE),
    "Relu": (lambda x: np.maximum(x, 0), REAL, None, _CALL, _relu_grad),
}


for _name, (_kernel, _kinds, _result, _emit, _grad) in _UNARY.items():
    OPS[_name] = register(_name, _kernel, _unary_rule(_kinds, _result), grad=_grad, emit=_emit,
                          lowerings=_lowering(_name), traits=("elementwise",))


def _unary(op_name, x, name=None):
    return execute1(OPS[op_name], [convert_to_tensor(x)], name=name)


def _unary_api(op_name: str, doc: str) -> Callable[..., Any]:
    def api(x, name=None):
        if type(x) in TYPES:
            return unary(api, x, name=name)
        return _unary(op_name, x, name)
    api.__doc__ = doc
    api.__name__ = op_name.lower()
    return api


negative = _unary_api("Neg", "-x elementwise.")
_real_abs = _unary_api("Abs", "|x| elementwise.")


def abs(x, name=None):  # noqa: A001 - TensorFlow's name
    """|x| elementwise; for a complex tensor its magnitude, of the real type."""
    if type(x) in TYPES:  # a composite tensor: on its values (see composite_dispatch)
        return unary(abs, x, name=name)
    x = convert_to_tensor(x)
    if x.dtype.is_complex:
        return execute1(OPS["ComplexAbs"], [x], name=name)
    return _real_abs(x, name=name)


_real_sign = _unary_api("Sign", "The sign of x (-1, 0 or 1) elementwise.")


def sign(x, name=None):
    """The sign of x (-1, 0 or 1) elementwise; for a complex x, x / |x| (0 where x is 0),
    computed as TensorFlow does (so its gradient is that of the division, not zero)."""
    if type(x) in TYPES:
        return unary(sign, x, name=name)
    x = convert_to_tensor(x)
    if not x.dtype.is_complex:
        return _real_sign(x, name=name)
    magnitude = execute1(OPS["ComplexAbs"], [x])
    zero = equal(magnitude, 0.0)
    safe = _select(zero, _ones_like(magnitude), magnitude)
    unit = truediv(x, complex(safe, zeros_like_real(safe)))
    return execute1(SELECT_V2, [zero, _zeros_like(unit), unit], name=name)
square = _unary_api("Square", "x * x elementwise.")
reciprocal = _unary_api("Reciprocal", "1 / x elementwise.")
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
is_nan = _unary_api("IsNan", "True where x is NaN.")
is_inf = _unary_api("IsInf", "True where x is infinite.")
is_finite = _unary_api("IsFinite", "True where x is finite.")
logical_not = _unary_api("LogicalNot", "Elementwise not of a bool tensor.")
relu = _unary_api("Relu", "max(x, 0) elementwise.")
invert = _unary_api("Invert", "The bits of an integer tensor flipped, elementwise.")

# -- cast -----------------------------------------------------------------------------------


def _cast_infer(specs, attrs):
    source, shape = specs[0]
    target = attrs["dtype"]
    if (source is dtypes.string) != (target is dtypes.string):
        raise SpecError("dtype", "cannot cast %s to %s" % (source.name, target.name))
    return [(target, shape)]


def _cast_kernel(x, dtype):
    x = np.asarray(x)
    if x.dtype.kind == "c" and dtype.kind != "complex":
        x = x.real  # TensorFlow drops the imaginary part
    with np.errstate(invalid="ignore", over="ignore"):  # out-of-range floats: as the C cast
        return x.astype(dtype.np_dtype)


def _cast_grad(ctx, grads):
    """The gradient passes (cast back) between floating and complex types, as in TF."""
    source = ctx.input_dtype(0)
    inexact = ("float", "complex")
    if source.kind not in inexact or ctx.attrs["dtype"].kind not in inexact:
        return [None]
    return [cast(grads[0], source)]


OPS["Cast"] = register("Cast", _cast_kernel, _cast_infer,
                       grad=_cast_grad, emit=KERNEL_CALL,
                       lowerings=_lowering("Cast"), traits=("elementwise",))


def cast(x, dtype, name=None):
    """`x` converted to `dtype`: floats to ints truncate toward zero, complex to real drops
    the imaginary part, integers wrap (use `saturate_cast` to clamp)."""
    dtype = dtypes.as_dtype(dtype)
    if type(x) in TYPES:
        return unary(cast, x, dtype, name=name)
    x = convert_to_tensor(x, dtype_hint=dtype)
    if x.dtype is dtype:
        return x
    return execute1(OPS["Cast"], [x], {"dtype": dtype}, name=name)


def _saturation_limits(source, target):
    """The clamp bounds, in `source`'s type, that keep every value of `source` inside
    `target`'s range once cast (a bound that rounds outward steps one value inward)."""
    low, high = source.min, source.max
    store = source.np_dtype.type
    if target.min > low:
        low = store(target.min)
        if source.is_floating and float(low) < target.min:
            low = np.nextafter(low, store(np.inf))
    if target.max < high:
        high = store(target.max)
        if source.is_floating and float(high) > target.max:
            high = np.nextafter(high, store(-np.inf))
    return low, high


def saturate_cast(value, dtype, name=None):
    """`value` cast to `dtype`, values beyond `dtype`'s range clamped to its limits first
    (complex to real keeps the real part; complex to complex clamps both parts)."""
    dtype = dtypes.as_dtype(dtype)
    value = convert_to_tensor(value)
    source = value.dtype
    if source.is_complex and not dtype.is_complex:
        value, source = real(value), source.real_dtype
    if source.is_complex:
        parts = [real(value), imag(value)]
        bounds = _saturation_limits(source.real_dtype, dtype.real_dtype)
        parts = [clip_by_value(p, *bounds) for p in parts]
        return cast(complex(*parts), dtype, name=name)
    if not source.is_numeric or not (dtype.is_numeric or dtype.is_bool):
        raise TypeError("saturate_cast: cannot cast %s to %s" % (source.name, dtype.name))
    real_target = dtype.real_dtype
    if real_target.is_numeric and (real_target.min > source.min
                                   or real_target.max < source.max):
        value = clip_by_value(value, *_saturation_limits(source, real_target))
    return cast(value, dtype, name=name)


# -- bitcast --------------------------------------------------------------------------------

_BITCASTABLE = frozenset(["int", "float", "complex"])


def _bitcast_infer(specs, attrs):
    source, shape = specs[0]
    target = attrs["type"]
    for dtype in (source, target):
        require_kind(dtype, _BITCASTABLE, "bitcast type")
    small, large = source.size, target.size
    if shape is None or small == large:
        return [(target, shape)]
    if small > large:
        return [(target, shape + (small // large,))]
    if not shape or shape[-1] not in (None, large // small):
        raise SpecError("shape", "Cannot bitcast from %s to %s: the last dimension must be "
                        "%d, got shape %s" % (source.name, target.name, large // small,
                                              common.shape_lib.to_string(shape)))
    return [(target, shape[:-1])]


def _bitcast_kernel(x, type):  # noqa: A002 - the op's attribute name
    x = np.ascontiguousarray(x)
    source = x.dtype.itemsize
    if source > type.size:
        return x.reshape(x.shape + (1,)).view(type.np_dtype)
    result = x.view(type.np_dtype)
    return result.reshape(result.shape[:-1]) if source < type.size else result


def _bitcast_jax(lw, node, ins):
    """XLA's bitcast_convert_type, whose shape rule is TensorFlow's."""
    return [lw.lax.bitcast_convert_type(lw.jnp.asarray(ins[0]), node.attrs["type"].np_dtype)]


OPS["Bitcast"] = register("Bitcast", _bitcast_kernel, _bitcast_infer, grad=NOT_DIFFERENTIABLE,
                          emit=KERNEL_CALL,
                          lowerings={"numba": lowering_api.unsupported(
                              "bitcast reinterprets memory, which the numba lowering does not "
                              "express"), "jax": _bitcast_jax},
                          attr_types={"type": attr_types.DTYPE})


def bitcast(input, type, name=None):  # noqa: A002 - TensorFlow's argument names
    """The bits of `input` read as `type`, without copying values: a wider `type` takes the
    last dimension's elements (which must be the size ratio), a narrower one adds a dimension
    of the ratio."""
    return execute1(OPS["Bitcast"], [convert_to_tensor(input)],
                    {"type": dtypes.as_dtype(type)}, name=name)


# -- complex numbers ------------------------------------------------------------------------


def _part_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, {"complex"})
    return [(dtype.real_dtype, shape)]


def _complex_infer(specs, attrs):
    dtype = require_same_dtype(specs)
    if dtype not in (dtypes.float32, dtypes.float64):
        raise SpecError("dtype", "operand of dtype %s is not supported (expected float32 or "
                        "float64)" % dtype.name)
    result = dtypes.complex64 if dtype is dtypes.float32 else dtypes.complex128
    return [(result, common.broadcast_specs(specs))]


def _real_grad(ctx, grads):
    return [complex(grads[0], zeros_like_real(grads[0]))]


def _imag_grad(ctx, grads):
    return [complex(zeros_like_real(grads[0]), grads[0])]


def _conj_grad(ctx, grads):
    return [conj(grads[0])]


def _complex_grad(ctx, grads):
    g = grads[0]
    return [sum_to(real(g), ctx, 0) if ctx.needed[0] else None,
            sum_to(imag(g), ctx, 1) if ctx.needed[1] else None]


def _angle_grad(ctx, grads):
    """-grad / (imag(x) + i real(x)), TensorFlow's rule."""
    x = ctx.input(0)
    as_complex = complex(grads[0], zeros_like_real(grads[0]))
    return [negative(truediv(as_complex, complex(imag(x), real(x))))]


def _complex_abs_grad(ctx, grads):
    """grad * x / |x|, 0 where x is 0."""
    x = ctx.input(0)
    magnitude = ctx.output(0)
    safe = add(magnitude, cast(equal(magnitude, 0.0), magnitude.dtype))  # 1 where x is 0
    direction = truediv(x, complex(safe, zeros_like_real(safe)))
    return [multiply(complex(grads[0], zeros_like_real(grads[0])), direction)]


def zeros_like_real(x):
    """Zeros of a real tensor's dtype and shape (the imaginary part of a real value)."""
    return subtract(x, x)


OPS["Real"] = register("Real", np.real, _part_infer, grad=_real_grad, emit=KERNEL_CALL,
                       lowerings=_lowering("Real"), traits=("elementwise",))
OPS["Imag"] = register("Imag", np.imag, _part_infer, grad=_imag_grad, emit=KERNEL_CALL,
                       lowerings=_lowering("Imag"), traits=("elementwise",))
OPS["Angle"] = register("Angle", np.angle, _part_infer, grad=_angle_grad, emit=KERNEL_CALL,
                        lowerings=_lowering("Angle"), traits=("elementwise",))
OPS["ComplexAbs"] = register("ComplexAbs", np.abs, _part_infer, grad=_complex_abs_grad,
                             emit=KERNEL_CALL, lowerings=_lowering("ComplexAbs"),
                             traits=("elementwise",))
OPS["Conj"] = register("Conj", np.conj, _unary_rule({"complex"}), grad=_conj_grad,
                       emit=KERNEL_CALL, lowerings=_lowering("Conj"), traits=("elementwise",))
OPS["Complex"] = register("Complex", lambda x, y: x + 1j * y, _complex_infer,
                          grad=_complex_grad, emit=KERNEL_CALL, lowerings=_lowering("Complex"),
                          traits=("elementwise",))


def real(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """The real part of a complex tensor; a real tensor unchanged."""
    x = convert_to_tensor(input)
    if not x.dtype.is_complex:
        _require_numeric(x, "real")
        return x
    return execute1(OPS["Real"], [x], name=name)


def imag(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """The imaginary part of a complex tensor; zeros for a real tensor."""
    x = convert_to_tensor(input)
    if not x.dtype.is_complex:
        _require_numeric(x, "imag")
        return zeros_like_real(x)
    return execute1(OPS["Imag"], [x], name=name)


def conj(x, name=None):
    """The complex conjugate; a real tensor unchanged."""
    x = convert_to_tensor(x)
    if not x.dtype.is_complex:
        _require_numeric(x, "conj")
        return x
    return execute1(OPS["Conj"], [x], name=name)


def angle(input, name=None):  # noqa: A002 - TensorFlow's argument name
    """The argument of each complex element, in (-pi, pi]; for a real tensor pi where it is
    negative, else 0."""
    x = convert_to_tensor(input)
    if not x.dtype.is_complex:
        _require_numeric(x, "angle")
        pi = convert_to_tensor(np.pi, dtype=x.dtype) if x.dtype.is_floating else None
        if pi is None:
            raise TypeError("angle: expected a floating or complex tensor, got %s"
                            % x.dtype.name)
        return multiply(pi, cast(less(x, 0), x.dtype), name=name)
    return execute1(OPS["Angle"], [x], name=name)


def complex(real, imag, name=None):  # noqa: A001 - TensorFlow's name
    """real + i * imag: complex64 from float32 parts, complex128 from float64."""
    real, imag = binary_operands(real, imag)
    return execute1(OPS["Complex"], [real, imag], name=name)


def _require_numeric(x, what):
    if not x.dtype.is_numeric:
        raise TypeError("%s: expected a numeric tensor, got %s" % (what, x.dtype.name))


# -- n-ary -------------------------------------------------------------------------


def _add_n_infer(specs, attrs):
    dtype = require_same_dtype(specs)
    require_kind(dtype, NUMERIC)
    return [(dtype, common.broadcast_specs(specs))]


def _add_n_kernel(*values):
    total = values[0]
    for v in values[1:]:
        total = total + v
    return total


def _add_n_grad(ctx, grads):
    return [sum_to(grads[0], ctx, i) if need else None for i, need in enumerate(ctx.needed)]


OPS["AddN"] = register("AddN", _add_n_kernel, _add_n_infer,
                       grad=_add_n_grad, emit=KERNEL_CALL,
                       traits=("view",),  # the sum of one tensor is that tensor
                       lowerings=_lowering("AddN"))


@dispatchable
def add_n(inputs, name=None):
    """The elementwise sum of a list of tensors."""
    tensors = [convert_to_tensor(t) for t in inputs]
    if not tensors:
        raise ValueError("add_n needs at least one tensor")
    return execute1(OPS["AddN"], tensors, name=name)


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


# -- batching rules (runtime/ops/batching.py: a Jacobian's rows at once) -----------------------


def _add_n_batched(batcher, node, args, batched):
    return batcher.rerun(node, batching.all_batched(batcher, args, batched))


batching.declare(OPS["AddN"], _add_n_batched)
