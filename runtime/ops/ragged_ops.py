"""The ops behind RaggedTensor (runtime.composite.ragged): row partitions checked, padded to
a dense tensor, and the stored values gathered back from a dense one.

A ragged tensor's components are `values` (its rows concatenated, (nvals, ...)) and
`row_splits` (int64, (nrows + 1,)): row i is `values[row_splits[i]:row_splits[i + 1]]`.
Gradients flow to `values` (rules declared beside the ops).
"""

import numpy as np

from runtime import dtypes, lowering_api
from runtime.ops import array_ops, sparse_ops
from runtime.ops.common import SpecError, convert_to_tensor
from runtime.ops.registry import KERNEL_CALL, NOT_DIFFERENTIABLE, execute1, register

_RAGGED_ON_HOST = {
    "array": lowering_api.unsupported("ragged row partitions run on the numpy executor")}

OPS = {}


def _require_splits(spec, what="row_splits"):
    dtype, shape = spec
    if not dtype.is_integer:
        raise SpecError("dtype", "%s must be an integer vector, got %s" % (what, dtype.name))
    if shape is not None and len(shape) != 1:
        raise SpecError("shape", "%s must be a vector" % what)


def _require_values(spec):
    if spec[1] is not None and len(spec[1]) < 1:
        raise SpecError("shape", "values must have at least one dimension")


# -- partitions: checked row_splits ----------------------------------------------------------


def check_splits(splits, nvals):
    """Raises ValueError unless `splits` partition `nvals` values into rows."""
    splits = np.asarray(splits)
    if splits.size == 0:
        raise ValueError("row_splits must not be empty (it holds nrows + 1 entries)")
    if splits[0] != 0:
        raise ValueError("row_splits must start at 0, got %d" % splits[0])
    steps = np.diff(splits)
    if steps.size and steps.min() < 0:
        k = int(np.argmax(steps < 0))
        raise ValueError("row_splits must not decrease, got %d then %d at position %d"
                         % (splits[k], splits[k + 1], k + 1))
    if splits[-1] != nvals:
        raise ValueError("row_splits ends at %d, but there are %d values"
                         % (splits[-1], nvals))


def _check_splits_kernel(splits, values):
    check_splits(splits, len(values))
    return splits.astype(np.int64)


def _check_splits_infer(specs, attrs):
    _require_splits(specs[0])
    _require_values(specs[1])
    return [(dtypes.int64, specs[0][1])]


OPS["RaggedCheckSplits"] = register("RaggedCheckSplits", _check_splits_kernel,
                                    _check_splits_infer, grad=NOT_DIFFERENTIABLE,
                                    emit=KERNEL_CALL,
                                    lowerings=_RAGGED_ON_HOST)


def checked_splits(row_splits, values):
    """`row_splits` as int64, checked (at run time) to partition `values` into rows."""
    return execute1(OPS["RaggedCheckSplits"], [convert_to_tensor(row_splits), values])


def _splits_from_lengths_kernel(lengths, values):
    lengths = np.asarray(lengths)
    if lengths.size and lengths.min() < 0:
        k = int(np.argmax(lengths < 0))
        raise ValueError("row_lengths[%d] = %d is negative" % (k, lengths[k]))
    if lengths.sum() != len(values):
        raise ValueError("row_lengths sum to %d, but there are %d values"
                         % (lengths.sum(), len(values)))
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def _splits_from_lengths_infer(specs, attrs):
    _require_splits(specs[0], "row_lengths")
    _require_values(specs[1])
    shape = specs[0][1]
    rows = None if shape is None else shape[0]
    return [(dtypes.int64, (None if rows is None else rows + 1,))]


OPS["RaggedSplitsFromLengths"] = register(
    "RaggedSplitsFromLengths", _splits_from_lengths_kernel, _splits_from_lengths_infer,
    grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
    lowerings=_RAGGED_ON_HOST)


def splits_from_lengths(row_lengths, values):
    """The row_splits of rows of `row_lengths`, checked to partition `values`."""
    return execute1(OPS["RaggedSplitsFromLengths"], [convert_to_tensor(row_lengths), values])


def _same_splits_kernel(a, b):
    if a.shape != b.shape or np.any(a != b):
        raise ValueError("the operands are partitioned differently (row_splits %s and %s); "
                         "an elementwise op on two RaggedTensors needs the same row "
                         "partitioning" % (a.tolist(), b.tolist()))
    return a


def _same_splits_infer(specs, attrs):
    _require_splits(specs[0])
    _require_splits(specs[1])
    a, b = specs[0][1], specs[1][1]
    if a is not None and b is not None and None not in (a[0], b[0]) and a != b:
        raise SpecError("shape", "the operands have %d and %d rows: an elementwise op on "
                        "two RaggedTensors needs the same row partitioning"
                        % (a[0] - 1, b[0] - 1))
    return [specs[0]]


OPS["RaggedSameSplits"] = register("RaggedSameSplits", _same_splits_kernel,
                                   _same_splits_infer, grad=NOT_DIFFERENTIABLE,
                                   emit=KERNEL_CALL, traits=("view",),
                                   lowerings=_RAGGED_ON_HOST)


def same_splits(a, b):
    """Row splits `a`, checked (at run time) to equal `b`."""
    return execute1(OPS["RaggedSameSplits"], [a, b])


# -- RaggedToDense / RaggedGather: padding rows, and back -----------------------------------


def _positions(splits, nvals):
    lengths = np.diff(splits)
    rows = np.repeat(np.arange(len(lengths)), lengths)
    columns = np.arange(nvals) - np.asarray(splits)[:-1][rows]
    return rows, columns, lengths


def _to_dense_kernel(values, splits, default_value, width, static_width):
    rows, columns, lengths = _positions(splits, len(values))
    if width < 0:
        width = int(lengths.max()) if lengths.size else 0
    out = np.empty((len(lengths), width) + values.shape[1:], dtype=values.dtype)
    out[...] = default_value
    keep = columns < width  # a given width truncates longer rows, as TensorFlow does
    out[rows[keep], columns[keep]] = values[keep]
    return out


def _to_dense_infer(specs, attrs):
    (dtype, values), splits, (default_dtype, _), width = specs
    _require_values(specs[0])
    _require_splits(splits)
    if default_dtype is not dtype:
        raise SpecError("dtype", "default_value is %s but values are %s"
                        % (default_dtype.name, dtype.name))
    if width[1] not in ((), None):
        raise SpecError("shape", "the width must be a scalar")
    rows = None if splits[1] is None or splits[1][0] is None else splits[1][0] - 1
    if values is None:
        return [(dtype, None)]
    return [(dtype, (rows, attrs["static_width"]) + tuple(values[1:]))]


def _ragged_to_dense_grad(ctx, grads):
    g = grads[0]
    values = ragged_gather(g, ctx.input(1))
    default = None
    if ctx.needed[2]:
        default = sparse_ops.padding_grad(g, values)
    return [values if ctx.needed[0] else None, None, default, None]


OPS["RaggedToDense"] = register("RaggedToDense", _to_dense_kernel, _to_dense_infer,
                                grad=_ragged_to_dense_grad, emit=KERNEL_CALL,
                                lowerings=_RAGGED_ON_HOST)


def ragged_to_dense(values, row_splits, default_value, width=-1, static_width=None):
    """The rows padded with `default_value` to `width` (-1: the longest row's length) as a
    tensor (nrows, width, *values.shape[1:]); `static_width` is the width when known."""
    default_value = convert_to_tensor(default_value, dtype=values.dtype)
    width = convert_to_tensor(width, dtype=dtypes.int64)
    return execute1(OPS["RaggedToDense"], [values, row_splits, default_value, width],
                    {"static_width": static_width})


def _gather_kernel(dense, splits):
    rows, columns, lengths = _positions(splits, int(splits[-1]))
    if lengths.size and lengths.max() > dense.shape[1]:
        raise ValueError("a row of length %d does not fit a width of %d"
                         % (lengths.max(), dense.shape[1]))
    return dense[rows, columns]


def _gather_infer(specs, attrs):
    (dtype, dense), splits = specs
    _require_splits(splits)
    if dense is not None and len(dense) < 2:
        raise SpecError("shape", "the dense tensor must have rank 2 or more")
    return [(dtype, None if dense is None else (None,) + tuple(dense[2:]))]


def _ragged_gather_grad(ctx, grads):
    if not ctx.needed[0] or grads[0] is None:
        return [None, None]
    dense = ctx.input(0)
    width = array_ops.shape(dense, out_type=dtypes.int64)[1]
    shape = ctx.input_shape(0)
    return [ragged_to_dense(grads[0], ctx.input(1), 0, width,
                                   None if shape is None else shape[1]), None]


OPS["RaggedGather"] = register("RaggedGather", _gather_kernel, _gather_infer,
                               grad=_ragged_gather_grad, emit=KERNEL_CALL,
                               lowerings=_RAGGED_ON_HOST)


def ragged_gather(dense, row_splits):
    """The values of a ragged tensor partitioned by `row_splits`, read from the padded
    dense tensor `dense` (the inverse of `ragged_to_dense`)."""
    return execute1(OPS["RaggedGather"], [dense, row_splits])
