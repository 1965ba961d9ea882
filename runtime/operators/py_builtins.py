"""Python builtins that need a tensor-aware version inside converted code.

Converted code calls builtins through `converted_call`, which routes these names here:
`range` with tensor bounds becomes `tf.range` (so that a `for` over it is one While op),
`len` of a tensor with an unknown first dimension reads its dynamic shape, and `int`/
`float`/`bool` on tensors become casts. `len`, `sum` and `tf.stack` of a StagedList (whose
length may be known only at run time) go to the list.
"""

import builtins
from typing import Any

from runtime import context, dtypes, errors
from runtime.operators import try_regions
from runtime.operators.deferred_errors import DeferredError
from runtime.operators.staged_lists import StagedList
from runtime.ops import (
    array_ops,
    common,
    concat_split_ops,
    io_ops,
    math_ops,
    reduction_ops,
    reshape_ops,
)
from runtime.tensor import SymbolicTensor, Tensor


def range_(*args: Any) -> Any:
    """`range(...)`, or `tf.range(...)` when any bound is a tensor. A step of 0 inside a
    staged branch or loop body raises a RangeStepError: that code raises when it runs, as
    Python raises only if it gets there."""
    if any(isinstance(a, Tensor) for a in args):
        return array_ops.range(*args)
    if len(args) == 3 and args[2] == 0 and _in_staged_code():
        raise RangeStepError(errors.user_location())
    return builtins.range(*args)


class RangeStepError(DeferredError, ValueError):
    """Python's error for a range step of 0, met while tracing a branch or loop body of
    staged control flow: that code raises it when it runs (see deferred_errors)."""

    def __init__(self, location: errors.SourceLocation | None) -> None:
        super().__init__(errors.with_user_location(array_ops.RANGE_ZERO_DELTA, location))
        self.location = location

    def stage(self) -> None:
        check_range_step(common.convert_to_tensor(0), self.location)


def _in_staged_code():
    """Whether the current graph is a branch or loop body of another (staged control flow)."""
    graph = context.current_graph()
    return graph is not None and graph.outer is not None


def check_range_step(step: Any, location: errors.SourceLocation | None = None) -> None:
    """Stages the check that `step`, a range's step, is not 0: when the graph runs there, it
    raises InvalidArgumentError (the graph's form of Python's ValueError) naming the line
    (`location`, default the user's current line). Refused inside a `try` whose handlers or
    `finally:` jump could have caught it."""
    try_regions.refuse_error_inside_try("a range step of 0")
    location = location or errors.user_location()
    where = " at %s:%d" % (location.filename, location.lineno) if location else ""
    try_regions.note_run_time_check(
        "the range%s may have a step of 0 when the graph runs" % where,
        "Give the range a step that is never 0", location)
    io_ops.assert_that(math_ops.not_equal(step, 0), [], array_ops.RANGE_ZERO_DELTA,
                       error_class=ValueError, location=location)


def len_(value: Any) -> Any:
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


def sum_(iterable: Any, start: Any = 0) -> Any:
    """`sum(iterable, start)`; of a StagedList whose length is known only at run time, the
    sum of its elements as a tensor (the elements stacked and reduced over the first axis,
    plus `start`), which is Python's answer for each length, 0 included."""
    if not isinstance(iterable, StagedList) or iterable._static_len() is not None:
        return builtins.sum(iterable, start)
    total = reduction_ops.reduce_sum(iterable.stack(), axis=0)
    return total if _is_zero(start) else start + total


def _is_zero(value):
    return type(value) is int and value == 0


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


def bool_(value: Any = False) -> Any:
    """`bool(value)`; for a symbolic tensor, `value != 0` as a bool tensor."""
    if isinstance(value, SymbolicTensor):
        if value.dtype is dtypes.bool_:
            return value
        return math_ops.not_equal(value, 0)
    return builtins.bool(value)


def stack(values: Any, axis: int = 0, name: str = "stack") -> Any:
    """`tf.stack(values)`; a StagedList is stacked by its TensorArray (`len` and iteration
    in Python need its length, known only at run time)."""
    if not isinstance(values, StagedList):
        return concat_split_ops.stack(values, axis, name)
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
    return reshape_ops.transpose(stacked, perm)


OVERLOADS = {builtins.range: range_, builtins.len: len_, builtins.sum: sum_,
             builtins.int: int_, builtins.float: float_, builtins.bool: bool_,
             concat_split_ops.stack: stack}
