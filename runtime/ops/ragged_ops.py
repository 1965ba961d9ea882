"""The ops behind RaggedTensor (runtime.composite.ragged): row partitions checked, padded to
a dense tensor, and the stored values gathered back from a dense one.

A ragged tensor's components are `values` (its rows concatenated, (nvals, ...)) and
`row_splits` (int64, (nrows + 1,)): row i is `values[row_splits[i]:row_splits[i + 1]]`.
Gradients flow to `values` (rules declared beside the ops).
"""

from typing import Any

import numpy as np

from runtime import dtypes, errors, lowering_api
from runtime.ops import array_ops, attr_types, math_ops, segment_ops, selection_ops, sparse_ops
from runtime.ops.common import SpecError, convert_to_tensor
from runtime.ops.registry import KERNEL_CALL, NOT_DIFFERENTIABLE, execute, execute1, register

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


_INVALID = "Arguments to from_row_splits do not form a valid RaggedTensor:"


def check_splits(splits, nvals):
    """Raises ValueError unless `splits` partition `nvals` values into rows."""
    splits = np.asarray(splits)
    if splits.size == 0:
        raise ValueError("row_splits must not be empty (it holds nrows + 1 entries)")
    if splits[0] != 0:
        raise ValueError("%szero: row_splits must start at 0, got %d" % (_INVALID, splits[0]))
    steps = np.diff(splits)
    if steps.size and steps.min() < 0:
        k = int(np.argmax(steps < 0))
        raise ValueError("%smonotonic: row_splits must not decrease, got %d then %d at "
                         "position %d" % (_INVALID, splits[k], splits[k + 1], k + 1))
    if splits[-1] != nvals:
        raise ValueError("Arguments to _from_row_partition do not form a valid "
                         "RaggedTensor: row_splits ends at %d, but there are %d values"
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


def assert_equal_message(x, y, summarize=3):
    """TensorFlow's eager tf.debugging.assert_equal message for vectors x and y of one
    length that differ (the words a ragged op's mismatched partitions raise with)."""
    where = np.argwhere(x != y)[:summarize]
    return ("Condition x == y did not hold.\nIndices of first %d different values:\n%s\n"
            "Corresponding x values:\n%s\nCorresponding y values:\n%s\n"
            "First %d elements of x:\n%s\nFirst %d elements of y:\n%s"
            % (len(where), where, x[tuple(where.T)], y[tuple(where.T)],
               min(summarize, x.size), x[:summarize], min(summarize, y.size), y[:summarize]))


def _same_splits_kernel(a, b):
    if a.shape == b.shape and np.any(a != b):
        raise errors.InvalidArgumentError(assert_equal_message(a, b), "RaggedSameSplits")
    if a.shape != b.shape:
        raise ValueError("Inputs must have identical ragged splits: the operands are "
                         "partitioned differently (row_splits %s and %s)"
                         % (a.tolist(), b.tolist()))
    return a


def _same_splits_infer(specs, attrs):
    _require_splits(specs[0])
    _require_splits(specs[1])
    a, b = specs[0][1], specs[1][1]
    if a is not None and b is not None and None not in (a[0], b[0]) and a != b:
        raise SpecError("shape", "Inputs must have identical ragged splits: the operands "
                        "have %d and %d rows" % (a[0] - 1, b[0] - 1))
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


# -- partitions in other encodings: value_rowids, ranges, bounding shapes ------------------


def _vector(dtype, rows=None):
    return [(dtype, (rows,))]


_INVALID_ROWIDS = "Arguments to from_value_rowids do not form a valid RaggedTensor"


def _rowids_to_splits_kernel(rowids, nrows, require_sorted):
    rowids = np.asarray(rowids, np.int64)
    nrows = int(nrows)
    if rowids.size and rowids.min() < 0:
        raise ValueError("%s: value_rowids must be non-negative, got %d"
                         % (_INVALID_ROWIDS, rowids.min()))
    if require_sorted and rowids.size > 1 and np.any(np.diff(rowids) < 0):
        raise ValueError("%s: value_rowids must be sorted in ascending order"
                         % _INVALID_ROWIDS)
    largest = int(rowids.max()) if rowids.size else -1
    if nrows < 0:
        nrows = largest + 1
    elif largest >= nrows:
        raise ValueError("%s: value_rowids must be less than nrows = %d, got %d"
                         % (_INVALID_ROWIDS, nrows, largest))
    counts = np.bincount(rowids, minlength=nrows)
    return np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)


def _rowids_to_splits_infer(specs, attrs):
    _require_splits(specs[0], "value_rowids")
    if specs[1][1] not in ((), None):
        raise SpecError("shape", "nrows must be a scalar")
    return _vector(dtypes.int64)


OPS["RaggedRowidsToSplits"] = register(
    "RaggedRowidsToSplits", _rowids_to_splits_kernel, _rowids_to_splits_infer,
    grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, lowerings=_RAGGED_ON_HOST)


def splits_from_rowids(value_rowids, nrows=-1, require_sorted=True):
    """The row_splits of rows where value i is in row `value_rowids[i]` (sorted unless
    `require_sorted` is False: then only the counts per row matter); `nrows` -1 means one
    past the largest row id."""
    return execute1(OPS["RaggedRowidsToSplits"],
                    [convert_to_tensor(value_rowids, dtype_hint=dtypes.int64),
                     convert_to_tensor(nrows, dtype_hint=dtypes.int64)],
                    {"require_sorted": bool(require_sorted)})


def _splits_to_rowids_kernel(splits):
    return np.repeat(np.arange(len(splits) - 1), np.diff(splits)).astype(np.int64)


def _splits_to_rowids_infer(specs, attrs):
    _require_splits(specs[0])
    return _vector(dtypes.int64)


OPS["RaggedSplitsToRowids"] = register(
    "RaggedSplitsToRowids", _splits_to_rowids_kernel, _splits_to_rowids_infer,
    grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, lowerings=_RAGGED_ON_HOST)


def rowids_from_splits(row_splits):
    """The row of each value (int64, (nvals,)) of the partition `row_splits`."""
    return execute1(OPS["RaggedSplitsToRowids"], [row_splits])


def _range_kernel(starts, limits, deltas):
    starts, limits, deltas = np.broadcast_arrays(starts, limits, deltas)
    if starts.ndim > 1:
        raise ValueError("starts, limits and deltas must be scalars or vectors")
    starts, limits, deltas = (np.atleast_1d(a) for a in (starts, limits, deltas))
    if np.any(deltas == 0):
        raise ValueError("Requires delta != 0")
    sizes = np.maximum(np.ceil((limits - starts) / deltas), 0).astype(np.int64)
    splits = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    values = np.concatenate([s + d * np.arange(n, dtype=np.asarray(s).dtype)
                             for s, d, n in zip(starts, deltas, sizes)]) if len(sizes) else \
        np.zeros(0, starts.dtype)
    return splits, values.astype(starts.dtype)


def _range_infer(specs, attrs):
    dtype = specs[0][0]
    for spec in specs:
        if spec[0] is not dtype:
            raise SpecError("dtype", "starts, limits and deltas must have one dtype")
        if spec[1] is not None and len(spec[1]) > 1:
            raise SpecError("shape", "starts, limits and deltas must be scalars or vectors")
    return [(dtypes.int64, (None,)), (dtype, (None,))]


OPS["RaggedRange"] = register("RaggedRange", _range_kernel, _range_infer,
                              grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                              lowerings=_RAGGED_ON_HOST)


def ragged_range(starts, limits, deltas):
    """(row_splits, values): row i counts from `starts[i]` to `limits[i]` by `deltas[i]`."""
    return execute(OPS["RaggedRange"], [starts, limits, deltas])


def _slice_rows_kernel(splits, start, stop, step):
    new_splits, indices = [0], []  # type: list[int], list[Any]
    for first, last in zip(splits[:-1], splits[1:]):
        picked = range(int(first), int(last))[slice(start, stop, step)]
        indices.extend(picked)
        new_splits.append(len(indices))
    return np.asarray(new_splits, np.int64), np.asarray(indices, np.int64)


def _slice_rows_infer(specs, attrs):
    _require_splits(specs[0])
    return [specs[0], (dtypes.int64, (None,))]


OPS["RaggedSliceRows"] = register("RaggedSliceRows", _slice_rows_kernel, _slice_rows_infer,
                                  grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                                  lowerings=_RAGGED_ON_HOST,
                                  attr_types=dict.fromkeys(("start", "stop", "step"),
                                                           attr_types.optional(attr_types.INT)))


def slice_rows(row_splits, start, stop, step):
    """(row_splits, value indices) of `row[start:stop:step]` taken from every row."""
    return execute(OPS["RaggedSliceRows"], [row_splits],
                   {"start": start, "stop": stop, "step": step})


def _index_rows_kernel(splits, index):
    lengths = np.diff(splits)
    picked = np.where(np.asarray(index) < 0, lengths + index, index)
    bad = (picked < 0) | (picked >= lengths)
    if np.any(bad):
        row = int(np.argmax(bad))
        raise IndexError("slice index %d of dimension 1 out of bounds: row %d has %d "
                         "values" % (index, row, lengths[row]))
    return (np.asarray(splits[:-1]) + picked).astype(np.int64)


def _index_rows_infer(specs, attrs):
    _require_splits(specs[0])
    shape = specs[0][1]
    rows = None if shape is None or shape[0] is None else shape[0] - 1
    return _vector(dtypes.int64, rows)


OPS["RaggedIndexRows"] = register("RaggedIndexRows", _index_rows_kernel, _index_rows_infer,
                                  grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                                  lowerings=_RAGGED_ON_HOST)


def index_rows(row_splits, index):
    """The value index of `row[index]` in every row (IndexError when a row is too short)."""
    return execute1(OPS["RaggedIndexRows"], [row_splits], {"index": index})


def _bounding_shape_kernel(flat_values, *nested_splits):
    dims = [len(nested_splits[0]) - 1]
    for splits in nested_splits:
        lengths = np.diff(splits)
        dims.append(int(lengths.max()) if lengths.size else 0)
    return np.asarray(dims + list(np.shape(flat_values)[1:]), np.int64)


def _bounding_shape_infer(specs, attrs):
    for spec in specs[1:]:
        _require_splits(spec)
    inner = specs[0][1]
    rank = None if inner is None else len(specs) + len(inner) - 1
    return _vector(dtypes.int64, rank)


OPS["RaggedBoundingShape"] = register(
    "RaggedBoundingShape", _bounding_shape_kernel, _bounding_shape_infer,
    grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, lowerings=_RAGGED_ON_HOST)


def bounding_shape(flat_values, nested_splits):
    """int64 vector: the number of rows, the longest row of each ragged dimension, then the
    uniform inner dimensions."""
    return execute1(OPS["RaggedBoundingShape"], [flat_values] + list(nested_splits))


def _sparse_indices_kernel(flat_values, *nested_splits):
    paths = np.arange(len(nested_splits[0]) - 1, dtype=np.int64).reshape(-1, 1)
    for splits in nested_splits:
        rows = np.repeat(np.arange(len(splits) - 1), np.diff(splits))
        columns = np.arange(int(splits[-1])) - np.asarray(splits)[:-1][rows]
        paths = np.concatenate([paths[rows], columns.reshape(-1, 1)], axis=1)
    inner = np.shape(flat_values)[1:]
    if inner:
        cells = np.stack(np.unravel_index(np.arange(int(np.prod(inner))), inner), axis=1)
        count = len(cells)
        paths = np.concatenate([np.repeat(paths, count, axis=0),
                                np.tile(cells, (len(paths), 1))], axis=1)
    return paths.astype(np.int64)


def _sparse_indices_infer(specs, attrs):
    inner = specs[0][1]
    rank = None if inner is None else len(specs) + len(inner) - 1
    return [(dtypes.int64, (None, rank))]


OPS["RaggedToSparseIndices"] = register(
    "RaggedToSparseIndices", _sparse_indices_kernel, _sparse_indices_infer,
    grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, lowerings=_RAGGED_ON_HOST)


def sparse_indices(flat_values, nested_splits):
    """int64 (nvals, rank): the index of each stored value (in row-major order)."""
    return execute1(OPS["RaggedToSparseIndices"], [flat_values] + list(nested_splits))


def _lengths_from_padding_kernel(tensor, padding):
    same = tensor == padding
    same = same.reshape(same.shape[:2] + (-1,)).all(axis=2)
    # a row's length ends after its last value that is not padding
    keep = ~same
    width = tensor.shape[1]
    last = width - np.argmax(keep[:, ::-1], axis=1)
    return np.where(keep.any(axis=1), last, 0).astype(np.int64)


def _lengths_from_padding_infer(specs, attrs):
    shape = specs[0][1]
    if shape is not None and len(shape) < 2:
        raise SpecError("shape", "the tensor must have rank 2 or more")
    return _vector(dtypes.int64, None if shape is None else shape[0])


OPS["RaggedLengthsFromPadding"] = register(
    "RaggedLengthsFromPadding", _lengths_from_padding_kernel, _lengths_from_padding_infer,
    grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, lowerings=_RAGGED_ON_HOST)


def lengths_from_padding(tensor, padding):
    """The length of each row of `tensor` once its trailing `padding` cells are dropped."""
    return execute1(OPS["RaggedLengthsFromPadding"],
                    [tensor, convert_to_tensor(padding, dtype=tensor.dtype)])


def _lengths_to_splits_kernel(lengths):
    lengths = np.asarray(lengths)
    if lengths.size and lengths.min() < 0:
        k = int(np.argmax(lengths < 0))
        raise ValueError("lengths[%d] = %d is negative" % (k, lengths[k]))
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def _lengths_to_splits_infer(specs, attrs):
    _require_splits(specs[0], "lengths")
    shape = specs[0][1]
    rows = None if shape is None or shape[0] is None else shape[0] + 1
    return _vector(dtypes.int64, rows)


OPS["RaggedLengthsToSplits"] = register(
    "RaggedLengthsToSplits", _lengths_to_splits_kernel, _lengths_to_splits_infer,
    grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, lowerings=_RAGGED_ON_HOST)


def splits_from_lengths_unchecked(lengths):
    """The row_splits of rows of `lengths` (non-negative), whatever the values."""
    return execute1(OPS["RaggedLengthsToSplits"], [lengths])


# -- reductions and row-wise joins over ragged dimensions ----------------------------------

_IDENTITIES = {"max": "lowest", "min": "highest", "prod": 1, "any": False, "all": True}
_UFUNCS = {"max": np.maximum, "min": np.minimum, "prod": np.multiply,
           "any": np.logical_or, "all": np.logical_and}


def _identity(reducer, dtype):
    identity = _IDENTITIES[reducer]
    if identity == "lowest":
        return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min
    if identity == "highest":
        return np.finfo(dtype).max if dtype.kind == "f" else np.iinfo(dtype).max
    return identity


def _segment_reduce_kernel(data, ids, count, reducer):
    out = np.full((int(count),) + data.shape[1:], _identity(reducer, data.dtype), data.dtype)
    _UFUNCS[reducer].at(out, np.asarray(ids, np.int64), data)
    return out


def _segment_reduce_infer(specs, attrs):
    (dtype, shape), ids = specs[0], specs[1]
    _require_splits(ids, "segment ids")
    if attrs["reducer"] in ("any", "all") and dtype is not dtypes.bool_:
        raise SpecError("dtype", "reduce_%s needs bool values, got %s"
                        % (attrs["reducer"], dtype.name))
    return [(dtype, None if shape is None else (None,) + tuple(shape[1:]))]


def _segment_reduce_grad(ctx, grads):
    """max/min: the gradient goes to the values equal to their segment's result, shared
    among ties (as TensorFlow's unsorted segment max/min); prod: the product of the other
    values of the segment."""
    g = grads[0]
    if g is None or not ctx.needed[0]:
        return [None, None, None]
    data, ids, count = ctx.input(0), ctx.input(1), ctx.input(2)
    reducer = ctx.attrs["reducer"]
    if reducer == "prod":
        return [execute1(OPS["RaggedSegmentProdGrad"], [data, ids, count, g]), None, None]
    picked = math_ops.equal(data, selection_ops.gather(ctx.output(0), ids))
    ties = segment_ops.unsorted_segment_sum(math_ops.cast(picked, g.dtype), ids, count)
    # every segment that a value reaches has at least that value tied: no division by 0
    shared = selection_ops.gather(math_ops.truediv(g, math_ops.maximum(ties, 1)), ids)
    return [selection_ops.where(picked, shared, array_ops.zeros_like(shared)), None, None]


OPS["RaggedSegmentReduce"] = register(
    "RaggedSegmentReduce", _segment_reduce_kernel, _segment_reduce_infer,
    grad=_segment_reduce_grad, emit=KERNEL_CALL, lowerings=_RAGGED_ON_HOST,
    attr_types={"reducer": attr_types.choice(*_UFUNCS)})


def _segment_prod_grad_kernel(data, ids, count, g):
    ids = np.asarray(ids, np.int64)
    zero = data == 0
    nonzero = np.where(zero, 1, data)
    products = np.ones((int(count),) + data.shape[1:], data.dtype)
    np.multiply.at(products, ids, nonzero)
    zeros = np.zeros((int(count),) + data.shape[1:], np.int64)
    np.add.at(zeros, ids, zero.astype(np.int64))
    others_nonzero = products[ids]
    zeros_here = zeros[ids]
    with np.errstate(divide="ignore", invalid="ignore"):
        without_self = np.where(zero, np.where(zeros_here == 1, others_nonzero, 0),
                                np.where(zeros_here == 0, others_nonzero / nonzero, 0))
    return (without_self * g[ids]).astype(data.dtype)


def _segment_prod_grad_infer(specs, attrs):
    return [specs[0]]


OPS["RaggedSegmentProdGrad"] = register(
    "RaggedSegmentProdGrad", _segment_prod_grad_kernel, _segment_prod_grad_infer,
    grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, lowerings=_RAGGED_ON_HOST)


def segment_reduce(data, segment_ids, num_segments, reducer):
    """`reducer` ('max', 'min', 'prod', 'any' or 'all') of the rows of `data` per segment;
    an empty segment holds the reducer's identity (the lowest value for 'max')."""
    return execute1(OPS["RaggedSegmentReduce"],
                    [data, segment_ids, convert_to_tensor(num_segments, dtype=dtypes.int64)],
                    {"reducer": reducer})


def _level_coordinates(nested_splits):
    """For each level of a ragged partition, the coordinates (row, column, ...) of its
    items, in row-major order: level 0 holds the rows, the last level the flat values."""
    levels = [np.arange(len(nested_splits[0]) - 1, dtype=np.int64).reshape(-1, 1)]
    for splits in nested_splits:
        splits = np.asarray(splits, np.int64)
        parents = np.repeat(np.arange(len(splits) - 1), np.diff(splits))
        columns = np.arange(int(splits[-1]), dtype=np.int64) - splits[:-1][parents]
        levels.append(np.concatenate([levels[-1][parents], columns.reshape(-1, 1)], axis=1))
    return levels


def _reduce_layout_kernel(*nested_splits, axis):
    """The row partition of a reduction over ragged `axis` (below the innermost ragged
    dimension) and the segment of each flat value: position j of the reduced rows gathers
    position j of every row reduced, so a reduced row is as long as the longest of them."""
    levels = _level_coordinates(nested_splits)
    ragged_rank = len(nested_splits)
    kept = [levels[m] if m < axis else np.delete(levels[m + 1], axis, axis=1)
            for m in range(ragged_rank)]
    items: list[Any] = [None] * ragged_rank
    for m in range(ragged_rank):
        items[m] = kept[m] if m < axis else np.unique(kept[m], axis=0)
    out = []
    for m in range(max(axis - 1, 0), ragged_rank - 1):
        index = {tuple(row): i for i, row in enumerate(items[m].tolist())}
        parents = [index[tuple(row[:-1])] for row in items[m + 1].tolist()]
        counts = np.bincount(np.asarray(parents, np.int64), minlength=len(items[m]))
        out.append(np.concatenate([[0], np.cumsum(counts)]).astype(np.int64))
    flat_index = {tuple(row): i for i, row in enumerate(items[-1].tolist())}
    ids = np.asarray([flat_index[tuple(row)] for row in
                      np.delete(levels[-1], axis, axis=1).tolist()], np.int64)
    return tuple(out) + (ids, np.asarray(len(items[-1]), np.int64))


def _reduce_layout_infer(specs, attrs):
    for spec in specs:
        _require_splits(spec)
    axis, ragged_rank = attrs["axis"], len(specs)
    if not 0 <= axis < ragged_rank:
        raise SpecError("shape", "axis %d is not a ragged axis above the innermost one" % axis)
    count = ragged_rank - 1 - max(axis - 1, 0)
    return [(dtypes.int64, (None,))] * count + [(dtypes.int64, (None,)), (dtypes.int64, ())]


OPS["RaggedReduceLayout"] = register(
    "RaggedReduceLayout", _reduce_layout_kernel, _reduce_layout_infer,
    grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, lowerings=_RAGGED_ON_HOST)


def reduce_layout(nested_splits, axis):
    """(new row_splits, segment ids, number of segments) of reducing ragged dimension
    `axis` (0 <= axis < ragged rank) of a ragged tensor partitioned by `nested_splits`:
    the row_splits of the result's levels from max(axis - 1, 0) on."""
    outputs = execute(OPS["RaggedReduceLayout"], list(nested_splits), {"axis": axis})
    return outputs[:-2], outputs[-2], outputs[-1]


def _interleave_kernel(*nested):
    offsets = np.cumsum([0] + [int(s[-1]) for s in nested])
    rows = len(nested[0]) - 1
    new_splits, indices = [0], []  # type: list[int], list[Any]
    for i in range(rows):
        for offset, splits in zip(offsets, nested):
            indices.extend(range(offset + splits[i], offset + splits[i + 1]))
        new_splits.append(len(indices))
    return np.asarray(new_splits, np.int64), np.asarray(indices, np.int64)


def _interleave_infer(specs, attrs):
    rows = None
    for spec in specs:
        _require_splits(spec)
        if spec[1] is not None and spec[1][0] is not None:
            if rows is not None and rows != spec[1][0]:
                raise SpecError("shape", "the inputs have %d and %d rows" % (
                    rows - 1, spec[1][0] - 1))
            rows = spec[1][0]
    return [(dtypes.int64, (rows,)), (dtypes.int64, (None,))]


def _check_rows_kernel(*nested):
    if len({len(s) for s in nested}) > 1:
        raise ValueError("Input tensors at index 0 (=x) and 1 (=y) have incompatible shapes: "
                         "rows %s" % [len(s) - 1 for s in nested])
    return _interleave_kernel(*nested)


OPS["RaggedInterleaveRows"] = register(
    "RaggedInterleaveRows", _check_rows_kernel, _interleave_infer,
    grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, lowerings=_RAGGED_ON_HOST)


def interleave_rows(nested_splits):
    """(row_splits, value indices) joining row i of every input (given by its row_splits)
    in order, the indices into the inputs' values concatenated."""
    return execute(OPS["RaggedInterleaveRows"], list(nested_splits))
