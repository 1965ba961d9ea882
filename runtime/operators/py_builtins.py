"""Python builtins that need a tensor-aware version inside converted code.

Converted code calls builtins through `converted_call`, which routes these names here:
`range` with tensor bounds becomes `tf.range` (so that a `for` over it is one While op),
`len` of a tensor with an unknown first dimension reads its dynamic shape, and `int`/
`float`/`bool` on tensors become casts. `len` and `tf.stack` of a StagedList (whose length
may be known only at run time) go to the list.
"""

import builtins

from runtime import dtypes
from runtime.operators.staged_lists import StagedList
from runtime.ops import array_ops, manipulation_ops, math_ops
from runtime.tensor import SymbolicTensor, Tensor


def range_(*args):
    """`range(...)`, or `tf.range(...)` when any bound is a tensor."""
    if any(isinstance(a, Tensor) for a in args):
        return array_ops.range(*args)
    return builtins.range(*args)


def len_(value):
    """`len(value)`; for a symbolic tensor of unknown length, or a StagedList whose length
    is known only at run time, a scalar int32 tensor."""
    if isinstance(value, StagedList):
        return value._len()
    if isinstance(value, SymbolicTensor):
        dims = value._shape
        if dims is not None and dims and dims[0] is not None:
            return dims[0]
        if dims == ():
            raise TypeError("len() of a scalar tensor")
        return array_ops.shape(value)[0]
    return builtins.len(value)


def _cast_builtin(python_type, dtype):
    def convert(value=0, *args):
        if isinstance(value, SymbolicTensor) and not args:
            return math_ops.cast(value, dtype)
        return python_type(value, *args)
    convert.__name__ = python_type.__name__ + "_"
    convert.__doc__ = "`%s(value)`, or a cast to %s for symbolic tensors." % (
        python_type.__name__, dtype.name)
    return convert


int_ = _cast_builtin(int, dtypes.int32)
float_ = _cast_builtin(float, dtypes.float32)


def bool_(value=False):
    """`bool(value)`; for a symbolic tensor, `value != 0` as a bool tensor."""
    if isinstance(value, SymbolicTensor):
        if value.dtype is dtypes.bool_:
            return value
        return math_ops.not_equal(value, 0)
    return builtins.bool(value)


def stack(values, axis=0, name="stack"):
    """`tf.stack(values)`; a StagedList is stacked by its TensorArray (`len` and iteration
    in Python need its length, known only at run time)."""
    if not isinstance(values, StagedList):
        return manipulation_ops.stack(values, axis, name)
    stacked = values.stack()
    if axis == 0:
        return stacked
    rank = stacked.ndim
    if rank is None:
        raise ValueError("tf.stack(axis=%d) of '%s' needs the rank of its elements"
                         % (axis, values._origin.name))
    axis = axis + rank if axis < 0 else axis
    perm = list(builtins.range(1, rank))
    perm.insert(axis, 0)
    return manipulation_ops.transpose(stacked, perm)


OVERLOADS = {builtins.range: range_, builtins.len: len_, builtins.int: int_,
             builtins.float: float_, builtins.bool: bool_, manipulation_ops.stack: stack}
