"""Ops on the bits of integers, elementwise: bitwise and, or and exclusive or, left and
right shifts, and invert (TensorFlow's `tf.bitwise`).

Integers only, as TensorFlow's kernels; none is differentiable.
"""

from typing import Any

import numpy as np

from runtime.ops.math_lowerings import lowering as _lowering
from runtime.ops.math_ops import elementwise
from runtime.ops.math_ops.elementwise import binary_rule, unary_rule
from runtime.ops.registry import KERNEL_CALL, NOT_DIFFERENTIABLE, register

_INTEGER = frozenset(["int"])
_CALL = KERNEL_CALL
_NONE = NOT_DIFFERENTIABLE

OPS = {}


_BINARY: dict[str, tuple[Any, ...]] = {
    # op name: (node name, kernel, dtype kinds, result dtype, emit rule, gradient)
    "BitwiseAnd": ("BitwiseAnd", np.bitwise_and, _INTEGER, None, _CALL, _NONE),
    "BitwiseOr": ("BitwiseOr", np.bitwise_or, _INTEGER, None, _CALL, _NONE),
    "BitwiseXor": ("BitwiseXor", np.bitwise_xor, _INTEGER, None, _CALL, _NONE),
    "LeftShift": ("LeftShift", np.left_shift, _INTEGER, None, _CALL, _NONE),
    "RightShift": ("RightShift", np.right_shift, _INTEGER, None, _CALL, _NONE),
}


for _name, (_node, _kernel, _kinds, _result, _emit, _grad) in _BINARY.items():
    OPS[_name] = register(_name, _kernel, binary_rule(_kinds, _result), node_name=_node,
                          grad=_grad, emit=_emit, lowerings=_lowering(_name),
                          traits=("elementwise",))


OPS["Invert"] = register("Invert", np.invert, unary_rule(_INTEGER), grad=NOT_DIFFERENTIABLE,
                         emit=KERNEL_CALL, lowerings=_lowering("Invert"),
                         traits=("elementwise",))


def _binary(op_name, x, y, name=None):
    return elementwise.binary_call(OPS[op_name], x, y, name)


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


def _unary_api(op_name, doc):
    return elementwise.unary_api(OPS[op_name], doc, __name__)


invert = _unary_api("Invert", "The bits of an integer tensor flipped, elementwise.")
