"""Elementwise math ops: arithmetic, comparisons, logic, unary functions, cast, add_n and
clip_by_value.

Reductions, argmax/argmin and cumsum are in `reduction_ops`, matmul in `linalg_ops`.

Each op is declared once with its kernel, inference rule, emit rule, gradient (a unary
op's from its derivative, right in its table row; the others as functions above the tables,
except the five written with ops declared above this module, named in
runtime.gradients.math_grads) and lowerings; the functions below it are the public API
(`tf.add`, `tf.exp`, ...), which convert arguments and call `execute`.
"""

import numpy as np

from runtime import dtypes
from runtime.ops import common
from runtime.ops.common import (
    ANY,
    FLOAT,
    NUMERIC,
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


_COMPARABLE = NUMERIC | {"bool"}  # strings: np.equal on object arrays, kept as the kernel

_GRADS = "runtime.gradients.math_grads:"  # where the rules written with the ops API live
_CALL = KERNEL_CALL
_NONE = NOT_DIFFERENTIABLE


def _add_grad(ctx, grads):
    g = grads[0]
    return [sum_to(g, ctx, 0) if ctx.needed[0] else None,
            sum_to(g, ctx, 1) if ctx.needed[1] else None]


def _sub_grad(ctx, grads):
    g = grads[0]
    return [sum_to(g, ctx, 0) if ctx.needed[0] else None,
            sum_to(negative(g), ctx, 1) if ctx.needed[1] else None]


def _mul_grad(ctx, grads):
    g = grads[0]
    return [sum_to(multiply(g, ctx.input(1)), ctx, 0) if ctx.needed[0] else None,
            sum_to(multiply(ctx.input(0), g), ctx, 1) if ctx.needed[1] else None]


def _div_grad(ctx, grads):
    g = grads[0]
    y = ctx.input(1)
    dx = sum_to(truediv(g, y), ctx, 0) if ctx.needed[0] else None
    dy = None
    if ctx.needed[1]:
        # d(x/y)/dy = -x / y**2
        dy = sum_to(multiply(g, negative(truediv(truediv(ctx.input(0), y), y))),
                    ctx, 1)
    return [dx, dy]


def _floormod_grad(ctx, grads):
    g = grads[0]
    dx = sum_to(g, ctx, 0) if ctx.needed[0] else None
    dy = None
    if ctx.needed[1]:
        quotient = floordiv(ctx.input(0), ctx.input(1))
        dy = sum_to(negative(multiply(g, quotient)), ctx, 1)
    return [dx, dy]


def _squared_difference_grad(ctx, grads):
    d = multiply(multiply(grads[0], 2.0), subtract(ctx.input(0), ctx.input(1)))
    return [sum_to(d, ctx, 0) if ctx.needed[0] else None,
            sum_to(negative(d), ctx, 1) if ctx.needed[1] else None]


def _neg_grad(ctx, grads):
    return [negative(grads[0])]


def _log_grad(ctx, grads):
    return [truediv(grads[0], ctx.input(0))]


def _log1p_grad(ctx, grads):
    return [truediv(grads[0], add(ctx.input(0), 1.0))]


def _sqrt_grad(ctx, grads):
    return [truediv(grads[0], multiply(ctx.output(0), 2.0))]


def _relu_grad(ctx, grads):
    return [execute1(RELU_GRAD, [grads[0], ctx.output(0)])]


_BINARY = {
    # op name: (node name, kernel, dtype kinds, result dtype, emit rule, gradient)
    "AddV2": ("add", np.add, NUMERIC, None, _operator_emit("+"), _add_grad),
    # TF's name for string concatenation
    "Add": ("add", np.add, {"string"}, None, _operator_emit("+"), _NONE),
    "Sub": ("sub", np.subtract, NUMERIC, None, _operator_emit("-"), _sub_grad),
    "Mul": ("mul", np.multiply, NUMERIC, None, _operator_emit("*"), _mul_grad),
    "RealDiv": ("truediv", _ignore_errors(np.true_divide), FLOAT, None, _CALL,
                _div_grad),
    "FloorDiv": ("floordiv", _floordiv_kernel, NUMERIC, None, _integer_division_emit("//"),
                 _NONE),
    "FloorMod": ("mod", _mod_kernel, NUMERIC, None, _integer_division_emit("%"),
                 _floormod_grad),
    "Pow": ("pow", _ignore_errors(np.power), NUMERIC, None, _CALL, _GRADS + "pow_grad"),
    "Maximum": ("Maximum", np.maximum, NUMERIC, None, _CALL, _GRADS + "maximum_grad"),
    "Minimum": ("Minimum", np.minimum, NUMERIC, None, _CALL, _GRADS + "minimum_grad"),
    "SquaredDifference": ("SquaredDifference", lambda x, y: np.square(x - y), NUMERIC, None,
                          _CALL, _squared_difference_grad),
    "Less": ("Less", np.less, NUMERIC, dtypes.bool_, _comparison_emit("<"), _NONE),
    "LessEqual": ("LessEqual", np.less_equal, NUMERIC, dtypes.bool_, _comparison_emit("<="),
                  _NONE),
    "Greater": ("Greater", np.greater, NUMERIC, dtypes.bool_, _comparison_emit(">"), _NONE),
    "GreaterEqual": ("GreaterEqual", np.greater_equal, NUMERIC, dtypes.bool_,
                     _comparison_emit(">="), _NONE),
    "Equal": ("Equal", np.equal, ANY, dtypes.bool_, _comparison_emit("==", _COMPARABLE),
              _NONE),
    "NotEqual": ("NotEqual", np.not_equal, ANY, dtypes.bool_,
                 _comparison_emit("!=", _COMPARABLE), _NONE),
    "LogicalAnd": ("LogicalAnd", np.logical_and, {"bool"}, None, _CALL, _NONE),
    "LogicalOr": ("LogicalOr", np.logical_or, {"bool"}, None, _CALL, _NONE),
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
        x, y = cast(x, dtypes.float64), cast(y, dtypes.float64)
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
        return [multiply(grads[0], derivative(ctx))]
    return rule


_UNARY = {
    # op name: (kernel, dtype kinds, result dtype, emit rule, gradient)
    "Neg": (np.negative, NUMERIC, None, _negative_emit, _neg_grad),
    "Abs": (np.abs, NUMERIC, None, _CALL, _chain(lambda ctx: sign(ctx.input(0)))),
    "Sign": (np.sign, NUMERIC, None, _CALL, _GRADS + "sign_grad"),
    "Square": (np.square, NUMERIC, None, _CALL,
               _chain(lambda ctx: multiply(ctx.input(0), 2.0))),
    "Reciprocal": (_quiet(np.reciprocal), FLOAT, None, _CALL,
                   _chain(lambda ctx: negative(square(ctx.output(0))))),
    "Tanh": (np.tanh, FLOAT, None, _CALL,
             _chain(lambda ctx: subtract(1.0, square(ctx.output(0))))),
    "Exp": (_quiet(np.exp), FLOAT, None, _CALL, _chain(lambda ctx: ctx.output(0))),
    "Expm1": (_quiet(np.expm1), FLOAT, None, _CALL, _chain(lambda ctx: add(ctx.output(0), 1.0))),
    "Log": (_quiet(np.log), FLOAT, None, _CALL, _log_grad),
    "Log1p": (_quiet(np.log1p), FLOAT, None, _CALL, _log1p_grad),
    "Sqrt": (_quiet(np.sqrt), FLOAT, None, _CALL, _sqrt_grad),
    "Rsqrt": (_quiet(lambda x: 1 / np.sqrt(x)), FLOAT, None, _CALL,
              _chain(lambda ctx: multiply(multiply(ctx.output(0), square(ctx.output(0))),
                                          -0.5))),
    "Sigmoid": (_sigmoid, FLOAT, None, _CALL,
                _chain(lambda ctx: multiply(ctx.output(0), subtract(1.0, ctx.output(0))))),
    "Softplus": (_softplus, FLOAT, None, _CALL, _chain(lambda ctx: sigmoid(ctx.input(0)))),
    "Sin": (np.sin, FLOAT, None, _CALL, _chain(lambda ctx: cos(ctx.input(0)))),
    "Cos": (np.cos, FLOAT, None, _CALL, _chain(lambda ctx: negative(sin(ctx.input(0))))),
    "Tan": (np.tan, FLOAT, None, _CALL, _chain(lambda ctx: add(square(ctx.output(0)), 1.0))),
    "Sinh": (_quiet(np.sinh), FLOAT, None, _unsilenced_emit("sinh"),
             _chain(lambda ctx: cosh(ctx.input(0)))),
    "Cosh": (_quiet(np.cosh), FLOAT, None, _unsilenced_emit("cosh"),
             _chain(lambda ctx: sinh(ctx.input(0)))),
    "Floor": (np.floor, FLOAT, None, _CALL, _NONE),
    "Ceil": (np.ceil, FLOAT, None, _CALL, _NONE),
    "Round": (np.round, FLOAT, None, _CALL, _NONE),
    "IsNan": (np.isnan, FLOAT, dtypes.bool_, _CALL, _NONE),
    "IsInf": (np.isinf, FLOAT, dtypes.bool_, _CALL, _NONE),
    "IsFinite": (np.isfinite, FLOAT, dtypes.bool_, _CALL, _NONE),
    "LogicalNot": (np.logical_not, {"bool"}, None, _CALL, _NONE),
    "Relu": (lambda x: np.maximum(x, 0), NUMERIC, None, _CALL, _relu_grad),
}


for _name, (_kernel, _kinds, _result, _emit, _grad) in _UNARY.items():
    OPS[_name] = register(_name, _kernel, _unary_rule(_kinds, _result), grad=_grad, emit=_emit,
                          lowerings=_lowering(_name), traits=("elementwise",))


def _unary(op_name, x, name=None):
    return execute1(OPS[op_name], [convert_to_tensor(x)], name=name)


def _unary_api(op_name, doc):
    def api(x, name=None):
        if type(x) in TYPES:
            return unary(api, x, name=name)
        return _unary(op_name, x, name)
    api.__doc__ = doc
    api.__name__ = op_name.lower()
    return api


negative = _unary_api("Neg", "-x elementwise.")
abs = _unary_api("Abs", "|x| elementwise.")  # noqa: A001
sign = _unary_api("Sign", "The sign of x (-1, 0 or 1) elementwise.")
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

# -- cast -----------------------------------------------------------------------------------


def _cast_infer(specs, attrs):
    source, shape = specs[0]
    target = attrs["dtype"]
    if (source is dtypes.string) != (target is dtypes.string):
        raise SpecError("dtype", "cannot cast %s to %s" % (source.name, target.name))
    return [(target, shape)]


def _cast_kernel(x, dtype):
    return np.asarray(x).astype(dtype.np_dtype)


def _cast_grad(ctx, grads):
    source = ctx.input_dtype(0)
    if not source.is_floating or not ctx.attrs["dtype"].is_floating:
        return [None]
    return [cast(grads[0], source)]


OPS["Cast"] = register("Cast", _cast_kernel, _cast_infer,
                       grad=_cast_grad, emit=KERNEL_CALL,
                       lowerings=_lowering("Cast"), traits=("elementwise",))


def cast(x, dtype, name=None):
    """`x` converted to `dtype` (floats to ints truncate toward zero)."""
    dtype = dtypes.as_dtype(dtype)
    if type(x) in TYPES:
        return unary(cast, x, dtype, name=name)
    x = convert_to_tensor(x, dtype_hint=dtype)
    if x.dtype is dtype:
        return x
    return execute1(OPS["Cast"], [x], {"dtype": dtype}, name=name)


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
    require_kind(dtype, NUMERIC)
    return [(dtype, specs[0][1])]


OPS["ClipByValue"] = register("ClipByValue", lambda x, lo, hi: np.minimum(np.maximum(x, lo), hi),
                              _clip_infer,
                              grad=_GRADS + "clip_grad", emit=KERNEL_CALL,
                              lowerings=_lowering("ClipByValue"), traits=("elementwise",))


@dispatchable
def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """`t` with values below/above the bounds replaced by the bounds."""
    t = convert_to_tensor(t)
    lo = convert_to_tensor(clip_value_min, dtype_hint=t.dtype)
    hi = convert_to_tensor(clip_value_max, dtype_hint=t.dtype)
    return execute1(OPS["ClipByValue"], [t, lo, hi], name=name)
