"""Loop options (`tf.autograph.experimental.set_loop_options`) for staged loops.

The compiler finds the call at the top of a loop body and moves its arguments into the
loop statement's `opts`, evaluated once before the loop (so that a shape invariant's tensor
is the loop variable's value entering the loop):

    for i in tf.range(n):                             ag__.for_stmt(..., opts={
        set_loop_options(maximum_iterations=3)   ->       'iterate_names': 'i',
        ...                                               'maximum_iterations': 3})

The options apply to the loop only when it is staged as a While op (as in TensorFlow); a
loop that runs as Python ignores them:
  * shape_invariants, a list of (tensor, shape) pairs: the loop variable whose value
    entering the loop is that tensor (matched by identity) is carried with that static
    shape, so the body traces once for every shape the invariant allows; a value that does
    not fit the invariant (before the loop or after an iteration) raises ValueError naming
    the variable. A pair whose tensor is no loop variable is ignored, as TensorFlow does.
  * maximum_iterations (int or scalar integer tensor): the loop stops after that many
    iterations even if its condition still holds;
  * parallel_iterations, swap_memory: validated and accepted; the numpy executor runs one
    iteration at a time on the host, so they change nothing.

Every kind of staged loop honours them: a `while`, a `for` over a tensor or a range, and a
`for` over a Dataset, an iterator or anything else with its own `__ag_for_stmt__` (which
receives the LoopOptions and stages through loops.stage_loop). A `while` loop that runs as
Python for a few iterations before its condition becomes a tensor matches shape invariants
against the state at that point (the tensors named before the loop match only if the
Python iterations left them unchanged).
"""

from __future__ import annotations

import numbers
from typing import Any, Callable, Mapping, Sequence

from runtime import dtypes, nest
from runtime import shape as shape_lib
from runtime.composite.base import CompositeTensor
from runtime.ops import common, math_ops
from runtime.tensor import Tensor

OPTION_NAMES = ("parallel_iterations", "swap_memory", "maximum_iterations", "shape_invariants")


def set_loop_options(parallel_iterations: int | None = None, swap_memory: bool | None = None,
                     maximum_iterations: int | Tensor | None = None,
                     shape_invariants: Sequence[tuple[Tensor, Any]] | None = None) -> None:
    """Options for the immediately enclosing loop, when it is staged as a While op.

    Must be the first statement of a loop body in a converted function: the compiler reads
    it there (see runtime.operators.loop_options). Called anywhere else (in code that is not
    converted, such as under `run_functions_eagerly(True)`), it has no effect, as in
    TensorFlow, where the options apply only to staged loops."""
    return None


class LoopOptions:
    """The options of one loop statement, checked: see the module docstring."""

    __slots__ = ("maximum_iterations", "shape_invariants", "parallel_iterations",
                 "swap_memory")

    def __init__(self, opts: Mapping[str, Any]) -> None:
        self.maximum_iterations = opts.get("maximum_iterations")
        self.shape_invariants = opts.get("shape_invariants")
        self.parallel_iterations = opts.get("parallel_iterations")
        self.swap_memory = opts.get("swap_memory")
        self._check()

    def _check(self):
        parallel = self.parallel_iterations
        if parallel is not None and (isinstance(parallel, bool) or
                                     not isinstance(parallel, numbers.Integral) or
                                     parallel < 1):
            raise ValueError("set_loop_options: parallel_iterations must be a positive int, "
                             "got %r" % (parallel,))
        if self.swap_memory is not None and not isinstance(self.swap_memory, bool):
            raise TypeError("set_loop_options: swap_memory must be a bool, got %r"
                            % (self.swap_memory,))
        maximum = self.maximum_iterations
        if isinstance(maximum, Tensor):
            if not maximum.dtype.is_integer or maximum._shape_tuple() not in ((), None):
                raise TypeError("set_loop_options: maximum_iterations must be an int or a "
                                "scalar integer tensor, got a %s tensor of shape %s"
                                % (maximum.dtype.name,
                                   shape_lib.to_string(maximum._shape_tuple())))
        elif maximum is not None and (isinstance(maximum, bool) or
                                      not isinstance(maximum, numbers.Integral)):
            raise TypeError("set_loop_options: maximum_iterations must be an int or a scalar "
                            "integer tensor, got %r" % (maximum,))
        invariants = self.shape_invariants
        if invariants is not None:
            if not isinstance(invariants, (list, tuple)) or not all(
                    isinstance(pair, (list, tuple)) and len(pair) == 2 for pair in invariants):
                raise TypeError("set_loop_options: shape_invariants must be a list of "
                                "(tensor, shape) pairs, got %r" % (invariants,))

    def remaining(self, done: Any) -> Any:
        """This options' maximum_iterations less `done` iterations already run in Python,
        as a count for the staged loop (None: unbounded)."""
        maximum = self.maximum_iterations
        if maximum is None:
            return None
        if isinstance(maximum, Tensor):
            maximum = math_ops.cast(maximum, dtypes.int32)
            return math_ops.maximum(maximum - done, 0) if done else maximum
        return max(int(maximum) - done, 0)

    def invariants_for(self, values: Sequence[Any]) -> dict[int, list[Any]]:
        """{index: static shape per leaf} for the values (a loop's state entering it) that
        the shape invariants name, matched by identity."""
        if not self.shape_invariants:
            return {}
        found = {}
        for tensor, shape in self.shape_invariants:
            for index, value in enumerate(values):
                if value is tensor:
                    found[index] = _leaf_shapes(value, shape)
        return found


def _leaf_shapes(value, shape):
    """The invariant's static shape for each tensor leaf of `value` (one shape for a tensor,
    a matching structure of shapes for a nested value)."""
    if not nest.is_nested(value):
        return [shape_lib.normalize(shape)]
    if isinstance(value, CompositeTensor):  # a shape for the value, not per component
        return value.invariant_leaf_shapes(shape)
    shapes = nest.flatten(shape) if isinstance(shape, (tuple, list, dict)) and \
        _all_shapes(shape) else None
    leaves = nest.flatten(value)
    if shapes is None or len(shapes) != len(leaves):
        raise ValueError("set_loop_options: the shape invariant %r does not match the "
                         "structure of its loop variable (%d tensors)" % (shape, len(leaves)))
    return [shape_lib.normalize(s) for s in shapes]


def _all_shapes(structure):
    return all(isinstance(s, shape_lib.TensorShape) for s in nest.flatten(structure))


def bounded(get_state: Callable[[], tuple], set_state: Callable[[tuple], None],
            test: Callable[..., Any], step: Callable[..., Any],
            maximum: Any) -> tuple[Callable[..., Any], ...]:
    """The loop's state functions, test and step with a hidden iteration count carried
    first, the test false once `maximum` iterations have run."""
    count = [common.convert_to_tensor(0, dtype=dtypes.int32)]
    bound = maximum if isinstance(maximum, Tensor) else \
        common.convert_to_tensor(int(maximum), dtype=dtypes.int32)

    def get():
        return (count[0],) + tuple(get_state())

    def set_(values):
        count[0] = values[0]
        set_state(tuple(values[1:]))

    def bounded_test(i):
        keep_going = test(i)
        if not isinstance(keep_going, Tensor):
            keep_going = common.convert_to_tensor(bool(keep_going))
        return math_ops.logical_and(math_ops.less(count[0], bound), keep_going)

    def bounded_step(i):
        out = step(i)
        count[0] = math_ops.add(count[0], 1)
        return out
    return get, set_, bounded_test, bounded_step
