"""Python operators on tensors (`+`, `@`, `<`, `[...]`, ...), routed through the op registry.

Installed on `Tensor` here rather than defined in `runtime.tensor`, so that the tensor
module does not depend on the op library. Variables get the same set (see variables.py).
"""

from runtime import dtypes
from runtime.ops import linalg_ops, math_ops, reduction_ops, slicing
from runtime.tensor import Tensor


def _logical_or_bitwise(logical_op, bitwise_op, name):
    """`&`, `|`, `^`: logical on bool tensors, bitwise on integer tensors (as TensorFlow)."""
    def operator(x, y):
        x_tensor = x if isinstance(x, Tensor) else y
        if x_tensor.dtype.is_integer:
            return bitwise_op(x, y)
        if x_tensor.dtype is not dtypes.bool_:
            raise TypeError("operator %s is only supported on bool and integer tensors, got %s"
                            % (name, x_tensor.dtype.name))
        return logical_op(x, y)
    return operator


def _invert(x):
    if x.dtype.is_integer:
        return math_ops.invert(x)
    if x.dtype is not dtypes.bool_:
        raise TypeError("operator ~ is only supported on bool and integer tensors, got %s"
                        % x.dtype.name)
    return math_ops.logical_not(x)


BINARY_OPERATORS = {
    "add": math_ops.add,
    "sub": math_ops.subtract,
    "mul": math_ops.multiply,
    "truediv": math_ops.truediv,
    "floordiv": math_ops.floordiv,
    "mod": math_ops.floormod,
    "pow": math_ops.pow,
    "matmul": linalg_ops.matmul,
    "and": _logical_or_bitwise(math_ops.logical_and, math_ops.bitwise_and, "&"),
    "or": _logical_or_bitwise(math_ops.logical_or, math_ops.bitwise_or, "|"),
    "xor": _logical_or_bitwise(math_ops.logical_xor, math_ops.bitwise_xor, "^"),
    "lshift": math_ops.left_shift,
    "rshift": math_ops.right_shift,
}

COMPARISONS = {
    "lt": math_ops.less,
    "le": math_ops.less_equal,
    "gt": math_ops.greater,
    "ge": math_ops.greater_equal,
    "eq": math_ops.equal,
    "ne": math_ops.not_equal,
}


def _safe_equality(func, fallback):
    """== and != are elementwise, but comparing with None or non-tensors gives Python's answer."""
    def operator(x, y):
        if y is None:
            return fallback
        try:
            return func(x, y)
        except (TypeError, ValueError):
            return fallback
    return operator


def contains(container, item):
    """`item in container` for a tensor: whether any element equals `item`, as a bool tensor
    (`reduce_any(equal(container, item))`)."""
    return reduction_ops.reduce_any(math_ops.equal(container, item))


def install(cls, read=lambda x: x):
    """Installs the operators on `cls`; `read` turns an instance into a Tensor first."""
    for name, func in BINARY_OPERATORS.items():
        setattr(cls, "__%s__" % name, lambda x, y, f=func: f(read(x), y))
        setattr(cls, "__r%s__" % name, lambda x, y, f=func: f(y, read(x)))
    for name, func in COMPARISONS.items():
        if name in ("eq", "ne"):
            op = _safe_equality(func, name == "ne")
            setattr(cls, "__%s__" % name, lambda x, y, f=op: f(read(x), y))
        else:
            setattr(cls, "__%s__" % name, lambda x, y, f=func: f(read(x), y))
    cls.__neg__ = lambda x: math_ops.negative(read(x))
    cls.__pos__ = lambda x: read(x)
    cls.__abs__ = lambda x: math_ops.abs(read(x))
    cls.__invert__ = lambda x: _invert(read(x))
    cls.__getitem__ = lambda x, index: slicing.strided_slice_from_index(read(x), index)
    # Python makes a bool of the result: `c in t` works eagerly; converted code calls
    # `ag__.in_`, which keeps the tensor (and so stages `if c in t:`).
    cls.__contains__ = lambda x, item: contains(read(x), item)


install(Tensor)
