"""How the elementwise math ops are declared and called: shape/dtype rules for one and two
operands, kernels with numpy's warnings off, emit rules that write Python operators, and the
calls behind the API functions (converting arguments, or applying to a composite tensor's
values, then executing the op).

The ops themselves are declared in the modules beside this one; this module declares none.
"""

from collections.abc import Callable
from typing import Any

import numpy as np

from runtime.ops import common
from runtime.ops.common import (
    binary_operands,
    convert_to_tensor,
    require_kind,
    require_same_dtype,
)
from runtime.ops.composite_dispatch import TYPES, binary, unary
from runtime.ops.registry import OpDef, execute1


def binary_rule(kinds, result_dtype=None):
    """The shape/dtype rule of a binary op: operands of one dtype among `kinds`, broadcast
    shapes, the result of `result_dtype` (the operands' if None)."""
    def infer(specs, attrs):
        dtype = require_same_dtype(specs)
        require_kind(dtype, kinds)
        return [(result_dtype or dtype, common.broadcast_specs(specs))]
    return infer


def unary_rule(kinds, result_dtype=None):
    """The shape/dtype rule of a unary op: an operand of a dtype among `kinds`, the result of
    its shape and of `result_dtype` (the operand's if None)."""
    def infer(specs, attrs):
        dtype, shape = specs[0]
        require_kind(dtype, kinds)
        return [(result_dtype or dtype, shape)]
    return infer


def ignore_errors(func):
    """A binary kernel computing `func` with every numpy floating-point warning off."""
    def kernel(x, y):
        with np.errstate(all="ignore"):
            return func(x, y)
    return kernel


def quiet(func):
    """A unary kernel computing `func` with every numpy floating-point warning off."""
    def kernel(x):
        with np.errstate(all="ignore"):
            return func(x)
    return kernel


def operator_emit(symbol, may_overflow=True, kinds=None):
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


def binary_call(op: OpDef, x: Any, y: Any, name: str | None = None) -> Any:
    """`op` on `x` and `y` converted to tensors of one dtype; on a composite tensor's values
    where either is one (see composite_dispatch)."""
    if TYPES and (type(x) in TYPES or type(y) in TYPES):
        return binary(lambda a, b, name=None: binary_call(op, a, b, name), x, y, name=name)
    x, y = binary_operands(x, y)
    return execute1(op, [x, y], name=name)


def unary_api(op: OpDef, doc: str, module: str) -> Callable[..., Any]:
    """The API function `f(x, name=None)` of unary op `op`, with docstring `doc`, named for
    the op and listed as a function of `module` (where the op is declared)."""
    def api(x, name=None):
        if type(x) in TYPES:
            return unary(api, x, name=name)
        return execute1(op, [convert_to_tensor(x)], name=name)
    api.__doc__ = doc
    api.__name__ = op.name.lower()
    api.__module__ = module
    return api


def zeros_like(x):
    """The ZerosLike op on `x` (the gradients' zeros; `array_ops.zeros_like` is the API)."""
    return execute1(common.ZEROS_LIKE, [x])


def ones_like(x):
    """The OnesLike op on `x` (`array_ops.ones_like` is the API)."""
    return execute1(common.ONES_LIKE, [x])


def require_numeric(x, what):
    """Fails with a TypeError naming `what` unless `x` is numeric."""
    if not x.dtype.is_numeric:
        raise TypeError("%s: expected a numeric tensor, got %s" % (what, x.dtype.name))
