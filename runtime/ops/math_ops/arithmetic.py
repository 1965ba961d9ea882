"""Arithmetic, elementwise: add, subtract, multiply, divide, floor division and modulo,
squared_difference and add_n on two or more tensors; negative, abs and sign of real numbers,
square, reciprocal and the complex conjugate on one.

The gradients of complex functions multiply by the conjugate of the derivative
(`conj_if_complex`); `chain` makes a unary op's gradient rule from its derivative, for the
ops here and the functions of `functions`. `abs` and `sign` of any tensor (a complex one's
magnitude and phase) are in `complex_numbers`.
"""

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime import dtypes
from runtime.ops import batching, common
from runtime.ops.common import (
    INEXACT,
    NUMERIC,
    REAL,
    binary_operands,
    convert_to_tensor,
    require_kind,
    require_same_dtype,
)
from runtime.ops.composite_dispatch import TYPES, binary, dispatchable
from runtime.ops.gradient_ops import sum_to
from runtime.ops.math_lowerings import lowering as _lowering
from runtime.ops.math_ops import elementwise
from runtime.ops.math_ops.casting import cast
from runtime.ops.math_ops.elementwise import (
    binary_rule,
    ignore_errors,
    operator_emit,
    quiet,
    require_numeric,
    unary_rule,
    zeros_like,
)
from runtime.ops.registry import KERNEL_CALL, NOT_DIFFERENTIABLE, execute1, register

_CALL = KERNEL_CALL
_NONE = NOT_DIFFERENTIABLE

OPS = {}


def _is_integer(value):
    return isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in "iu"


def _check_divisor(y, what):
    """Integer division by zero fails, as in TensorFlow (numpy would warn and give 0)."""
    zero = y == 0
    if zero.any() if isinstance(zero, np.ndarray) else zero:
        raise ZeroDivisionError("integer %s by zero" % what)


def _floordiv_kernel(x, y):
    """Integers: the floor of the exact quotient. Floats: TensorFlow's floor of the rounded
    quotient, `floor(x / y)` in the operands' dtype, not numpy's (and Python's) floor of the
    exact quotient: 1.0 // 0.1 is 10.0 (float32 and float64; numpy says 9.0), -inf // 1 is
    -inf (numpy: nan)."""
    if _is_integer(y):
        _check_divisor(y, "division")
        with np.errstate(all="ignore"):  # the minimum // -1 wraps
            return np.floor_divide(x, y)
    with np.errstate(all="ignore"):  # inf and nan
        return np.floor(np.divide(x, y))


def _mod_kernel(x, y):
    """Integers: numpy's (and Python's) modulo. Floats: TensorFlow's, fmod's remainder moved
    into the divisor's sign; a zero keeps fmod's sign, the dividend's (-4.0 % 2.0 is -0.0,
    where numpy's mod gives the divisor's sign, 0.0)."""
    if _is_integer(y):
        _check_divisor(y, "modulo")
        return np.mod(x, y)  # with no zero divisor, integer modulo has nothing to warn about
    with np.errstate(all="ignore"):
        remainder = np.fmod(x, y)
        return np.where((remainder != 0) & ((y < 0) != (remainder < 0)), remainder + y,
                        remainder)


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


def _negative_emit(outs, ins, attrs, emitter):
    """`-x`, which is np.negative for arrays (the kernel where it could warn on overflow)."""
    if not common.wraps_silently(ins, emitter):
        return None
    return "%s = -%s" % (outs[0], ins[0])


def _sign_grad(ctx, grads):
    return [zeros_like(grads[0])]


def _add_grad(ctx, grads):
    g = grads[0]
    return [sum_to(g, ctx, 0) if ctx.needed[0] else None,
            sum_to(g, ctx, 1) if ctx.needed[1] else None]


def _sub_grad(ctx, grads):
    g = grads[0]
    return [sum_to(g, ctx, 0) if ctx.needed[0] else None,
            sum_to(negative(g), ctx, 1) if ctx.needed[1] else None]


def conj_if_complex(t):
    """conj(t) for a complex tensor, else t: TensorFlow's gradients of complex functions
    multiply by the conjugate of the derivative."""
    return conj(t) if t.dtype.is_complex else t


def _mul_grad(ctx, grads):
    g = grads[0]
    x, y = conj_if_complex(ctx.input(0)), conj_if_complex(ctx.input(1))
    return [sum_to(multiply(g, y), ctx, 0) if ctx.needed[0] else None,
            sum_to(multiply(x, g), ctx, 1) if ctx.needed[1] else None]


def _div_grad(ctx, grads):
    g = grads[0]
    y = conj_if_complex(ctx.input(1))
    dx = sum_to(truediv(g, y), ctx, 0) if ctx.needed[0] else None
    dy = None
    if ctx.needed[1]:
        # d(x/y)/dy = -x / y**2
        dy = sum_to(multiply(g, negative(truediv(truediv(conj_if_complex(ctx.input(0)), y),
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


def _conj_grad(ctx, grads):
    return [conj(grads[0])]


def chain(derivative):
    """The gradient rule of a unary op from its derivative: `grads[0] * derivative(ctx)`,
    with `ctx.input(0)` / `ctx.output(0)` the op's input and output."""
    def rule(ctx, grads):
        return [multiply(grads[0], conj_if_complex(derivative(ctx)))]
    return rule


_BINARY: dict[str, tuple[Any, ...]] = {
    # op name: (node name, kernel, dtype kinds, result dtype, emit rule, gradient)
    "AddV2": ("add", np.add, NUMERIC, None, operator_emit("+"), _add_grad),
    # TF's name for string concatenation
    "Add": ("add", np.add, {"string"}, None, operator_emit("+"), _NONE),
    "Sub": ("sub", np.subtract, NUMERIC, None, operator_emit("-"), _sub_grad),
    "Mul": ("mul", np.multiply, NUMERIC, None, operator_emit("*"), _mul_grad),
    "RealDiv": ("truediv", ignore_errors(np.true_divide), INEXACT, None, _CALL,
                _div_grad),
    "FloorDiv": ("floordiv", _floordiv_kernel, REAL, None, _integer_division_emit("//"),
                 _NONE),
    "FloorMod": ("mod", _mod_kernel, REAL, None, _integer_division_emit("%"),
                 _floormod_grad),
    "SquaredDifference": ("SquaredDifference", _squared_difference_kernel, NUMERIC, None,
                          _CALL, _squared_difference_grad),
}


# integer division by zero raises; strings stay on the host
_TRAITS = {"FloorDiv": ("may_raise", "elementwise"), "FloorMod": ("may_raise", "elementwise"),
           "Add": ("host_only",)}
for _name, (_node, _kernel, _kinds, _result, _emit, _grad) in _BINARY.items():
    OPS[_name] = register(_name, _kernel, binary_rule(_kinds, _result), node_name=_node,
                          grad=_grad, emit=_emit, lowerings=_lowering(_name),
                          traits=_TRAITS.get(_name, ("elementwise",)))


# The API functions the table's gradients are written with, made by _unary_api below.
negative: Callable[..., Any]
square: Callable[..., Any]
_real_sign: Callable[..., Any]

_UNARY: dict[str, tuple[Any, ...]] = {
    # op name: (kernel, dtype kinds, result dtype, emit rule, gradient)
    "Neg": (np.negative, NUMERIC, None, _negative_emit, _neg_grad),
    "Abs": (np.abs, REAL, None, _CALL, chain(lambda ctx: _real_sign(ctx.input(0)))),
    "Sign": (np.sign, REAL, None, _CALL, _sign_grad),
    "Square": (np.square, NUMERIC, None, _CALL,
               chain(lambda ctx: multiply(ctx.input(0), 2.0))),
    "Reciprocal": (quiet(np.reciprocal), INEXACT, None, _CALL,
                   chain(lambda ctx: negative(square(ctx.output(0))))),
}


for _name, (_kernel, _kinds, _result, _emit, _grad) in _UNARY.items():
    OPS[_name] = register(_name, _kernel, unary_rule(_kinds, _result), grad=_grad,
                          emit=_emit, lowerings=_lowering(_name), traits=("elementwise",))


def _binary(op_name, x, y, name=None):
    return elementwise.binary_call(OPS[op_name], x, y, name)


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


def squared_difference(x, y, name=None):
    """(x - y) ** 2 elementwise."""
    return _binary("SquaredDifference", x, y, name)


def _unary_api(op_name, doc):
    return elementwise.unary_api(OPS[op_name], doc, __name__)


negative = _unary_api("Neg", "-x elementwise.")
square = _unary_api("Square", "x * x elementwise.")
reciprocal = _unary_api("Reciprocal", "1 / x elementwise.")

# the sign of a real tensor, which Abs's gradient is written with (`abs` and `sign` of any
# tensor are in complex_numbers)
_real_sign = _unary_api("Sign", "The sign of x (-1, 0 or 1) elementwise.")


OPS["Conj"] = register("Conj", np.conj, unary_rule({"complex"}), grad=_conj_grad,
                       emit=KERNEL_CALL, lowerings=_lowering("Conj"), traits=("elementwise",))


def conj(x, name=None):
    """The complex conjugate; a real tensor unchanged."""
    x = convert_to_tensor(x)
    if not x.dtype.is_complex:
        require_numeric(x, "conj")
        return x
    return execute1(OPS["Conj"], [x], name=name)


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


# -- batching rules (runtime/ops/batching.py: a Jacobian's rows at once) -----------------------


def _add_n_batched(batcher, node, args, batched):
    return batcher.rerun(node, batching.all_batched(batcher, args, batched))


batching.declare(OPS["AddN"], _add_n_batched)
