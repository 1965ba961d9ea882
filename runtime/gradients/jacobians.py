"""`GradientTape.jacobian` and `batch_jacobian`: every derivative of a target's elements.

    with GradientTape() as tape:
        y = x * x                      # x: shape [3]
    tape.jacobian(y, x)                # shape [3, 3]: diag(2x)

Row i of a Jacobian is the gradient of target element i: the tape backpropagates once per
element of the target (per element of one example, for `batch_jacobian`), with an output
gradient that is one at that element and zero elsewhere, and the rows are stacked. Eagerly
the rows are as many passes over the tape's records. Inside a trace the backward pass is
traced once, as the body of a While loop over the rows that writes each row to a
TensorArray, so that the graph's size does not grow with the target's (TensorFlow's
`experimental_use_pfor=False` path; its `pfor` rewrite of the loop into batched ops is not
done, and `experimental_use_pfor` and `parallel_iterations` are accepted for
compatibility). The target's shape (beyond the batch dimension, for `batch_jacobian`) must
be known.
"""

from typing import Any

import numpy as np

from runtime import context, dtypes, nest
from runtime.functional import control_flow
from runtime.ops import array_ops, common, concat_split_ops, math_ops, reshape_ops
from runtime.tensor import SymbolicTensor
from runtime.tensor_array import TensorArray
from runtime.variables import Variable


def _static(shape, what):
    if shape is None or None in shape:
        raise ValueError("%s: the shape of the target must be known to compute a Jacobian "
                         "(got %s); give the function a fixed shape"
                         % (what, "an unknown rank" if shape is None else list(shape)))
    return list(shape)


def _source_shape(source, what):
    value = source.read_value() if isinstance(source, Variable) else source
    shape = value._shape_tuple()
    if shape is None or None in shape:
        raise ValueError("%s: the shape of each source must be known (got %s)"
                         % (what, "an unknown rank" if shape is None else list(shape)))
    return list(shape)


def _as_target(target):
    return target.read_value() if isinstance(target, Variable) else target


def _check_unconnected(unconnected):
    if unconnected not in ("none", "zero"):
        raise ValueError("unconnected_gradients must be 'none' or 'zero', got %r"
                         % (unconnected,))


def _rows(tape, target, flat_sources, output_gradients):
    """For each source, its gradient (or None) under each output gradient in turn."""
    per_source: list[list[Any]] = [[] for _ in flat_sources]
    for weights in output_gradients:
        grads = tape._gradients([target], flat_sources, [weights])
        for rows, grad in zip(per_source, grads):
            rows.append(grad)
    return per_source


def _staged(target):
    """Whether the rows are computed in a graph being built (as a loop), not eagerly."""
    return context.current_graph() is not None and isinstance(target, SymbolicTensor)


def _looped_rows(tape, target, flat_sources, row_shapes, seed, size):
    """For each source, its rows stacked ([size, *row shape]) by a While loop whose body
    backpropagates under `seed(i)`, the output gradient of row i; None for a source the
    target does not reach (found when the body is traced: it is traced once)."""
    reached = [False] * len(flat_sources)
    values = [_as_target(s) for s in flat_sources]
    arrays = [TensorArray(v.dtype, size=size, element_shape=shape)
              for v, shape in zip(values, row_shapes)]

    def body(i, arrays):
        grads = tape._gradients([target], flat_sources, [seed(i)])
        written = []
        for k, (array, grad, value) in enumerate(zip(arrays, grads, values)):
            reached[k] = reached[k] or grad is not None
            row = array_ops.zeros_like(value) if grad is None else grad
            written.append(array.write(i, row))
        return i + 1, written

    start = common.convert_to_tensor(0, dtype=dtypes.int32)
    _, arrays = control_flow.while_loop(lambda i, _: i < size, body, (start, arrays))
    return [array.stack() if hit else None for array, hit in zip(arrays, reached)]


def _one_hot(i, size, shape, dtype):
    """Row i's pick: one at flat position i of `shape`, zero elsewhere (i a tensor)."""
    hits = math_ops.equal(np.arange(size, dtype=np.int32), i)
    return reshape_ops.reshape(math_ops.cast(hits, dtype), shape)


def _stacked(rows, source, row_shape, unconnected):
    """The rows of one source stacked (a None row is zeros), or None when all are None and
    unconnected gradients are None."""
    if all(row is None for row in rows) and unconnected == "none":
        return None
    value = source.read_value() if isinstance(source, Variable) else source
    zeros = array_ops.zeros(row_shape, value.dtype)
    return concat_split_ops.stack([zeros if row is None else row for row in rows])


def jacobian(tape, target, sources, unconnected="none"):
    """See the module docstring and `GradientTape.jacobian`."""
    tape._check_usable()
    _check_unconnected(unconnected)
    target = _as_target(target)
    target_shape = _static(target._shape_tuple(), "jacobian")
    size = int(np.prod(target_shape, dtype=np.int64))
    flat_sources = nest.flatten(sources)
    source_shapes = [_source_shape(s, "jacobian") for s in flat_sources]
    if size > 0 and _staged(target):
        looped = _looped_rows(tape, target, flat_sources, source_shapes,
                              lambda i: _one_hot(i, size, target_shape, target.dtype), size)
        tape._spent()
        results = []
        for source, shape, stacked in zip(flat_sources, source_shapes, looped):
            if stacked is None and unconnected == "zero":
                stacked = array_ops.zeros([size] + shape, _as_target(source).dtype)
            results.append(None if stacked is None else
                           reshape_ops.reshape(stacked, target_shape + shape))
        return nest.pack_sequence_as(sources, results)
    dtype = target.dtype.np_dtype
    picks = [np.eye(1, size, i, dtype=dtype).reshape(target_shape) for i in range(size)]
    per_source = _rows(tape, target, flat_sources, picks)
    tape._spent()
    results = []
    for source, shape, rows in zip(flat_sources, source_shapes, per_source):
        if size == 0:
            value = _as_target(source)
            results.append(array_ops.zeros(target_shape + shape, value.dtype))
            continue
        stacked = _stacked(rows, source, shape, unconnected)
        results.append(None if stacked is None else
                       reshape_ops.reshape(stacked, target_shape + shape))
    return nest.pack_sequence_as(sources, results)


def batch_jacobian(tape, target, source, unconnected="none"):
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
    ones = array_ops.ones_like(target)
    if size > 0 and _staged(target):
        def seed(j):
            return math_ops.multiply(ones, _one_hot(j, size, example_shape, target.dtype))
        (stacked,) = _looped_rows(tape, target, [source], [list(source_shape)], seed, size)
        tape._spent()
        if stacked is None:
            if unconnected == "none":
                return None
            return array_ops.zeros(result_shape, value.dtype)
        # [size, batch, *source example] -> [batch, size, *source example]
        perm = [1, 0] + list(range(2, len(source_shape) + 1))
        return reshape_ops.reshape(reshape_ops.transpose(stacked, perm),
                                        result_shape)
    dtype = target.dtype.np_dtype
    picks = [math_ops.multiply(ones, np.eye(1, size, j, dtype=dtype).reshape(example_shape))
             for j in range(size)]
    (rows,) = _rows(tape, target, [source], picks)
    tape._spent()
    if size > 0 and unconnected == "none" and all(row is None for row in rows):
        return None
    if size == 0:
        return array_ops.zeros(result_shape, value.dtype)
    rows = [array_ops.zeros_like(value) if row is None else row for row in rows]
    stacked = concat_split_ops.stack(rows, axis=1)  # [batch, size, *source example]
    return reshape_ops.reshape(stacked, result_shape)
