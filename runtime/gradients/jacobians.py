"""`GradientTape.jacobian` and `batch_jacobian`: every derivative of a target's elements.

    with GradientTape() as tape:
        y = x * x                      # x: shape [3]
    tape.jacobian(y, x)                # shape [3, 3]: diag(2x)

Row i of a Jacobian is the gradient of target element i: the tape backpropagates once per
element of the target (per element of one example, for `batch_jacobian`), with an output
gradient that is one at that element and zero elsewhere, and the rows are stacked. Inside
a trace the rows are unrolled into the graph (its size grows with the target's), eagerly
they are as many passes over the tape's records; TensorFlow's `pfor` vectorisation is not
done, and `experimental_use_pfor` and `parallel_iterations` are accepted for compatibility.
The target's shape (beyond the batch dimension, for `batch_jacobian`) must be known.
"""

from typing import Any

import numpy as np

from runtime import nest
from runtime.ops import array_ops, manipulation_ops, math_ops
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


def _stacked(rows, source, row_shape, unconnected):
    """The rows of one source stacked (a None row is zeros), or None when all are None and
    unconnected gradients are None."""
    if all(row is None for row in rows) and unconnected == "none":
        return None
    value = source.read_value() if isinstance(source, Variable) else source
    zeros = array_ops.zeros(row_shape, value.dtype)
    return manipulation_ops.stack([zeros if row is None else row for row in rows])


def jacobian(tape, target, sources, unconnected="none"):
    """See the module docstring and `GradientTape.jacobian`."""
    tape._check_usable()
    _check_unconnected(unconnected)
    target = _as_target(target)
    target_shape = _static(target._shape_tuple(), "jacobian")
    size = int(np.prod(target_shape, dtype=np.int64))
    flat_sources = nest.flatten(sources)
    source_shapes = [_source_shape(s, "jacobian") for s in flat_sources]
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
                       manipulation_ops.reshape(stacked, target_shape + shape))
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
    dtype = target.dtype.np_dtype
    ones = array_ops.ones_like(target)
    picks = [math_ops.multiply(ones, np.eye(1, size, j, dtype=dtype).reshape(example_shape))
             for j in range(size)]
    (rows,) = _rows(tape, target, [source], picks)
    tape._spent()
    if size > 0 and unconnected == "none" and all(row is None for row in rows):
        return None
    value = _as_target(source)
    result_shape = manipulation_ops.concat(
        [array_ops.shape(value)[:1], np.array(example_shape + list(source_shape[1:]), np.int32)],
        0)
    if size == 0:
        return array_ops.zeros(result_shape, value.dtype)
    rows = [array_ops.zeros_like(value) if row is None else row for row in rows]
    stacked = manipulation_ops.stack(rows, axis=1)  # [batch, size, *source example]
    return manipulation_ops.reshape(stacked, result_shape)
