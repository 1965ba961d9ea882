"""`GradientTape.jacobian` and `batch_jacobian`: every derivative of a target's elements.

    with GradientTape() as tape:
        y = x * x                      # x: shape [3]
    tape.jacobian(y, x)                # shape [3, 3]: diag(2x)

Row i of a Jacobian is the gradient of target element i: the backward pass under an output
gradient that is one at that element and zero elsewhere. With `experimental_use_pfor=True`
(TensorFlow's default) the backward pass is built once, for a symbolic output gradient, in a
scratch graph, and then vectorised (runtime/gradients/vectorize.py): every op that reads
the output gradient is batched by its op's rule over all the rows at once, and the result is
emitted in the graph being built, or run eagerly. A backward pass with an op that has no
batching rule (control flow, a stateful op) is logged on the `autograph` logger (at DEBUG
level: which op) and computed the other way, as with `experimental_use_pfor=False`: inside a
trace, the backward pass is traced once as the body of a While loop over the rows that
writes each row to a TensorArray (so the graph's size does not grow with the target's);
eagerly, one pass over the tape's records per row. `parallel_iterations` is accepted for
compatibility. The target's shape (beyond the batch dimension, for `batch_jacobian`) must
be known.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, Union, cast

import numpy as np

from runtime import context, diagnostics, dtypes, nest
from runtime.dtypes import DType
from runtime.functional import control_flow
from runtime.gradients import vectorize
from runtime.graph import Graph
from runtime.ops import array_ops, common, concat_split_ops, math_ops, reshape_ops
from runtime.shape import Shape
from runtime.tensor import SymbolicTensor, Tensor
from runtime.tensor_array import TensorArray
from runtime.variables import Variable

# A Jacobian's source: a tensor or a Variable.
Source = Union[Tensor, Variable]


class Tape(Protocol):
    """What a Jacobian uses of its GradientTape (runtime.gradients.tape, which imports this
    module)."""

    def _check_usable(self) -> None: ...

    def _spent(self) -> None: ...

    def _gradients(self, flat_targets: list[Any], flat_sources: list[Source],
                   flat_output_grads: list[Any],
                   into_graph: bool = False) -> list[Tensor | None]: ...


def _static(shape: Shape, what: str) -> list[int]:
    if shape is None or None in shape:
        raise ValueError("%s: the shape of the target must be known to compute a Jacobian "
                         "(got %s); give the function a fixed shape"
                         % (what, "an unknown rank" if shape is None else list(shape)))
    return cast(list[int], list(shape))  # every dimension known (checked above)


def _source_shape(source: Source, what: str) -> list[int]:
    value = source.read_value() if isinstance(source, Variable) else source
    shape = value._shape_tuple()
    if shape is None or None in shape:
        raise ValueError("%s: the shape of each source must be known (got %s)"
                         % (what, "an unknown rank" if shape is None else list(shape)))
    return cast(list[int], list(shape))  # every dimension known (checked above)


def _as_target(target: Source) -> Tensor:
    return target.read_value() if isinstance(target, Variable) else target


def _check_unconnected(unconnected: str) -> None:
    if unconnected not in ("none", "zero"):
        raise ValueError("unconnected_gradients must be 'none' or 'zero', got %r"
                         % (unconnected,))


def _staged(target: Tensor) -> bool:
    """Whether the rows are computed in a graph being built (as a loop), not eagerly."""
    return context.current_graph() is not None and isinstance(target, SymbolicTensor)


class _Rows:
    """How the rows of a Jacobian are made: `seed(i)` is row i's output gradient (i a
    tensor, for the loop), `seeds()` all of them stacked ([size, *target shape]), and
    `pick(i)` row i's as a value (i a Python int, for the eager passes)."""

    def __init__(self, size: int, seed: Callable[[Tensor], Tensor], seeds: Callable[[], Tensor],
                 pick: Callable[[int], Tensor | np.ndarray]) -> None:
        self.size = size
        self.seed = seed
        self.seeds = seeds
        self.pick = pick


def _vectorized_rows(tape: Tape, target: Tensor, flat_sources: list[Source],
                     rows: _Rows) -> list[Tensor | None] | None:
    """For each source, its rows stacked ([size, *row shape]), or None where the target
    does not reach it, from one backward pass batched over the rows; None when the pass
    cannot be batched (logged)."""
    graph = Graph("jacobian_backward", outer=context.current_graph())
    try:
        with graph.as_default():
            seed = graph.add_placeholder("output_gradient", target.dtype,
                                         target._shape_tuple())
            grads = tape._gradients([target], flat_sources, [seed], into_graph=True)
    except Exception as e:  # the row-by-row passes raise any real error again
        reason = "its backward pass cannot be traced: %s: %s" % (type(e).__name__, e)
    else:
        try:
            return vectorize.vectorize(graph, seed, rows.seeds(), grads, rows.size)
        except vectorize.Unbatchable as e:
            reason = str(e)
    diagnostics.logger.debug("GradientTape.jacobian: the backward pass is not vectorised "
                             "(%s); its %d rows are computed one by one", reason, rows.size)
    return None


def _looped_rows(tape: Tape, target: Tensor, flat_sources: list[Source],
                 row_shapes: Sequence[Sequence[int | None]], rows: _Rows) -> list[Tensor | None]:
    """For each source, its rows stacked ([size, *row shape]) by a While loop whose body
    backpropagates under `seed(i)`, the output gradient of row i; None for a source the
    target does not reach (found when the body is traced: it is traced once)."""
    reached = [False] * len(flat_sources)
    values = [_as_target(s) for s in flat_sources]
    arrays = [TensorArray(v.dtype, size=rows.size, element_shape=shape)
              for v, shape in zip(values, row_shapes)]

    # `i`: the loop's counter, an int32 tensor (Any: tensor arithmetic is not typed)
    def body(i: Any, arrays: list[TensorArray]) -> tuple[Any, list[TensorArray]]:
        grads = tape._gradients([target], flat_sources, [rows.seed(i)])
        written = []
        for k, (array, grad, value) in enumerate(zip(arrays, grads, values)):
            reached[k] = reached[k] or grad is not None
            row = array_ops.zeros_like(value) if grad is None else grad
            written.append(array.write(i, row))
        return i + 1, written

    start = common.convert_to_tensor(0, dtype=dtypes.int32)
    _, arrays = control_flow.while_loop(lambda i, _: i < rows.size, body, (start, arrays))
    return [array.stack() if hit else None for array, hit in zip(arrays, reached)]


def _eager_rows(tape: Tape, target: Tensor, flat_sources: list[Source],
                rows: _Rows) -> list[Tensor | None]:
    """For each source, its rows stacked, one backward pass per row (None if no row
    reaches the source)."""
    per_source: list[list[Tensor | None]] = [[] for _ in flat_sources]
    for i in range(rows.size):
        grads = tape._gradients([target], flat_sources, [rows.pick(i)])
        for found, grad in zip(per_source, grads):
            found.append(grad)
    stacked: list[Tensor | None] = []
    for source, found in zip(flat_sources, per_source):
        if all(row is None for row in found):
            stacked.append(None)
            continue
        zeros = array_ops.zeros_like(_as_target(source))
        stacked.append(concat_split_ops.stack([zeros if row is None else row
                                               for row in found]))
    return stacked


def _all_rows(tape: Tape, target: Tensor, flat_sources: list[Source],
              row_shapes: Sequence[Sequence[int | None]], rows: _Rows,
              use_pfor: bool) -> list[Tensor | None]:
    """For each source, [size, *row shape] or None (unconnected), the fastest way there is."""
    if use_pfor:
        found = _vectorized_rows(tape, target, flat_sources, rows)
        if found is not None:
            return found
    if _staged(target):
        return _looped_rows(tape, target, flat_sources, row_shapes, rows)
    return _eager_rows(tape, target, flat_sources, rows)


def _one_hot(i: Tensor, size: int, shape: list[int], dtype: DType) -> Tensor:
    """Row i's pick: one at flat position i of `shape`, zero elsewhere (i a tensor)."""
    hits = math_ops.equal(np.arange(size, dtype=np.int32), i)
    return reshape_ops.reshape(math_ops.cast(hits, dtype), shape)


def jacobian(tape: Tape, target: Source, sources: Any, unconnected: str = "none",
             use_pfor: bool = True) -> Any:
    """See the module docstring and `GradientTape.jacobian`."""
    tape._check_usable()
    _check_unconnected(unconnected)
    target = _as_target(target)
    target_shape = _static(target._shape_tuple(), "jacobian")
    size = int(np.prod(target_shape, dtype=np.int64))
    flat_sources = nest.flatten(sources)
    source_shapes = [_source_shape(s, "jacobian") for s in flat_sources]
    dtype = target.dtype
    if size == 0:
        tape._spent()
        return nest.pack_sequence_as(sources, [
            array_ops.zeros(target_shape + shape, _as_target(source).dtype)
            for source, shape in zip(flat_sources, source_shapes)])
    rows = _Rows(size, lambda i: _one_hot(i, size, target_shape, dtype),
                 lambda: vectorize.one_hot_rows(size, target_shape, dtype),
                 lambda i: np.eye(1, size, i, dtype=dtype.np_dtype).reshape(target_shape))
    stacked = _all_rows(tape, target, flat_sources, source_shapes, rows, use_pfor)
    tape._spent()
    results: list[Tensor | None] = []
    for source, shape, found in zip(flat_sources, source_shapes, stacked):
        if found is None and unconnected == "zero":
            found = array_ops.zeros([size] + shape, _as_target(source).dtype)
        results.append(None if found is None else
                       reshape_ops.reshape(found, target_shape + shape))
    return nest.pack_sequence_as(sources, results)


def batch_jacobian(tape: Tape, target: Source, source: Source, unconnected: str = "none",
                   use_pfor: bool = True) -> Tensor | None:
    """See the module docstring and `GradientTape.batch_jacobian`."""
    tape._check_usable()
    _check_unconnected(unconnected)
    target = _as_target(target)
    shape = target._shape_tuple()
    if shape is None or len(shape) < 1:
        raise ValueError("batch_jacobian: the target must have a batch dimension first "
                         "(rank >= 1), got shape %s" % (shape,))
    example_shape = _static(shape[1:], "batch_jacobian")
    source_shape = (_as_target(source))._shape_tuple()
    if source_shape is None or len(source_shape) < 1:
        raise ValueError("batch_jacobian: the source must have a batch dimension first "
                         "(rank >= 1), got shape %s" % (source_shape,))
    if shape[0] is not None and source_shape[0] is not None and shape[0] != source_shape[0]:
        raise ValueError("batch_jacobian: the first dimension of the target (%d) and of the "
                         "source (%d) must match" % (shape[0], source_shape[0]))
    size = int(np.prod(example_shape, dtype=np.int64))
    value = _as_target(source)
    result_shape = concat_split_ops.concat(
        [array_ops.shape(value)[:1], np.array(example_shape + list(source_shape[1:]), np.int32)],
        0)
    if size == 0:
        tape._spent()
        return array_ops.zeros(result_shape, value.dtype)
    ones = array_ops.ones_like(target)
    dtype = target.dtype

    def seeds() -> Tensor:
        picks = np.eye(size, dtype=dtype.np_dtype).reshape([size, 1] + example_shape)
        return math_ops.multiply(reshape_ops.expand_dims(ones, 0), picks)

    rows = _Rows(size, lambda j: math_ops.multiply(ones, _one_hot(j, size, example_shape,
                                                                  dtype)),
                 seeds,
                 lambda j: math_ops.multiply(
                     ones, np.eye(1, size, j, dtype=dtype.np_dtype).reshape(example_shape)))
    (stacked,) = _all_rows(tape, target, [source], [list(source_shape)], rows, use_pfor)
    tape._spent()
    if stacked is None:
        if unconnected == "none":
            return None
        return array_ops.zeros(result_shape, value.dtype)
    # [size, batch, *source example] -> [batch, size, *source example]
    perm = [1, 0] + list(range(2, len(source_shape) + 1))
    return reshape_ops.reshape(reshape_ops.transpose(stacked, perm), result_shape)
