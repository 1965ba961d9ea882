"""The tf.ragged functions, and TensorFlow ops on RaggedTensor operands.

`tf.reduce_*`, `tf.concat`, `tf.stack`, `tf.gather`, `tf.boolean_mask`, `tf.where`,
`tf.shape`, `tf.size`, `tf.rank`, `tf.tile`, `tf.expand_dims`, `tf.add_n` and the elementwise
APIs outside math_ops' dispatch (`tf.identity`, `tf.ones_like`, `tf.clip_by_value`,
`tf.nn.relu6`, ...) given a RaggedTensor call the handlers here (registered with
runtime.ops.composite_dispatch), as TensorFlow's ragged dispatch does:

    rt = tf.ragged.constant([[3, 1, 4], [], [5]])
    tf.reduce_sum(rt, axis=1)        # [8, 0, 5]: an empty row reduces to the identity
    tf.reduce_max(rt, axis=0)        # [5, 1, 4]: position by position across the rows
    tf.concat([rt, [[9, 9]]], 0)     # dense operands become RaggedTensors first

A reduction over a ragged dimension is a segment reduction of the values (empty rows give
the reduction's identity: 0, 1, the lowest value for max, the highest for min, nan for
mean); over a uniform inner dimension it reduces the flat values.
"""

from __future__ import annotations

from typing import Any

from runtime import dtypes
from runtime.composite import ragged_shape
from runtime.composite.base import refuse
from runtime.composite.ragged import RaggedTensor, _partitioned, _take
from runtime.ops import (
    array_ops,
    check_ops,
    common,
    composite_dispatch,
    concat_split_ops,
    layout_ops,
    math_ops,
    nn_ops,
    ragged_ops,
    reduction_ops,
    reshape_ops,
    scatter_ops,
    segment_ops,
    selection_ops,
    string_ops,
)
from runtime.ops.common import convert_to_tensor
from runtime.tensor import Tensor

# -- reductions --------------------------------------------------------------------------------

_DENSE = {"sum": reduction_ops.reduce_sum, "prod": reduction_ops.reduce_prod,
          "max": reduction_ops.reduce_max, "min": reduction_ops.reduce_min,
          "any": reduction_ops.reduce_any, "all": reduction_ops.reduce_all}


def _segment(kind: str, data: Tensor, ids: Tensor, count: Any) -> Tensor:
    if kind == "sum":
        return segment_ops.unsorted_segment_sum(data, ids, count)
    return ragged_ops.segment_reduce(data, ids, count, kind)


def _reduce_axis(kind: str, rt: RaggedTensor, axis: int) -> Any:
    """`rt` reduced over its dimension `axis` (>= 0)."""
    nested = list(rt.nested_row_splits)
    ragged_rank = len(nested)
    flat = rt.flat_values
    if axis > ragged_rank:
        return rt.with_flat_values(_DENSE[kind](flat, axis=axis - ragged_rank))
    if axis == ragged_rank:
        splits = nested[-1]
        rows = math_ops.subtract(array_ops.shape(splits, out_type=dtypes.int64)[0], 1)
        reduced = _segment(kind, flat, ragged_ops.rowids_from_splits(splits), rows)
        return _partitioned(reduced, nested[:-1])
    splits, ids, count = ragged_ops.reduce_layout(nested, axis)
    reduced = _segment(kind, flat, ids, count)
    return _partitioned(reduced, nested[:max(axis - 1, 0)] + list(splits))


def _axes(rt: RaggedTensor, axis: Any) -> list[int]:
    rank = len(rt._shape_tuple())
    axes = common.static_int_list(axis, "axis")
    if axes is None:
        return list(range(rank))
    out = []
    for a in axes:
        if not -rank <= a < rank:
            refuse(ValueError, "axis=%d out of bounds: expected %d<=axis<%d" % (a, -rank, rank))
        out.append(a % rank)
    return sorted(set(out), reverse=True)


def _reduce(kind: str, rt: RaggedTensor, axis: Any, keepdims: bool) -> Any:
    if axis is None:
        total = _DENSE[kind](rt.flat_values)
        if keepdims:
            return reshape_ops.reshape(total, [1] * len(rt._shape_tuple()))
        return total
    result: Any = rt
    for a in _axes(rt, axis):  # the highest first: the lower axes keep their numbers
        if isinstance(result, RaggedTensor):
            result = _reduce_axis(kind, result, a)
        else:
            result = _DENSE[kind](result, axis=a)
        if keepdims:
            result = reshape_ops.expand_dims(result, a)
    return result


def _reducer(kind: str) -> Any:
    def handler(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                name: str | None = None) -> Any:
        return _reduce(kind, input_tensor, axis, keepdims)
    return handler


def _reduce_mean(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                 name: str | None = None) -> Any:
    rt = input_tensor
    total = _reduce("sum", rt, axis, keepdims)
    ones = rt.with_flat_values(array_ops.ones_like(rt.flat_values, dtype=total.dtype
                                                   if total.dtype.is_floating else None))
    count = _reduce("sum", ones, axis, keepdims)
    return math_ops.truediv(total, count)


# -- joining: concat and stack -----------------------------------------------------------------


def _as_ragged(value: Any, ragged_rank: int) -> RaggedTensor:
    if isinstance(value, RaggedTensor):
        return value
    tensor = convert_to_tensor(value)
    dims = tensor._shape_tuple()
    if dims is None or len(dims) < 2:
        refuse(ValueError, "a dense operand joined with RaggedTensors must have rank 2 or "
                           "more, got shape %s" % tensor.shape)
    return RaggedTensor.from_tensor(tensor, ragged_rank=min(ragged_rank, len(dims) - 1))


def _ragged_operands(values: Any, what: str) -> list[RaggedTensor]:
    values = list(values)
    ragged_rank = max(v.ragged_rank for v in values if isinstance(v, RaggedTensor))
    operands = [_as_ragged(v, ragged_rank) for v in values]
    ranks = {len(v._shape_tuple()) for v in operands}
    if len(ranks) > 1:
        refuse(ValueError, "tf.%s of RaggedTensors: all inputs must have the same rank, got "
                           "shapes %s" % (what, ", ".join(str(v.shape) for v in operands)))
    dtype_set = {v.dtype for v in operands}
    if len(dtype_set) > 1:
        refuse(TypeError, "tf.%s of RaggedTensors: all inputs must have the same dtype, got "
                          "%s" % (what, ", ".join(sorted(d.name for d in dtype_set))))
    return operands


def _concat_rows(operands: list[RaggedTensor]) -> RaggedTensor:
    """The rows of every operand, one after another (axis 0)."""
    first = operands[0]
    if any(v.ragged_rank != first.ragged_rank for v in operands):
        operands = [_deepen(v, max(o.ragged_rank for o in operands)) for v in operands]
    values = [v.values for v in operands]
    if isinstance(values[0], RaggedTensor):
        joined: Any = _concat_rows(values)
    else:
        joined = concat_split_ops.concat(values, 0)
    parts, offset = [operands[0].row_splits], operands[0].row_splits[-1]
    for v in operands[1:]:
        parts.append(math_ops.add(v.row_splits[1:], offset))
        offset = math_ops.add(offset, v.row_splits[-1])
    return RaggedTensor._make(joined, concat_split_ops.concat(parts, 0))


def _deepen(rt: RaggedTensor, ragged_rank: int) -> RaggedTensor:
    if rt.ragged_rank >= ragged_rank:
        return rt
    values = rt.values
    if not isinstance(values, RaggedTensor):
        values = RaggedTensor.from_tensor(values)
    return rt.with_values(_deepen(values, ragged_rank - 1))


def _concat(values: Any, axis: Any, name: str = "concat") -> Any:
    operands = _ragged_operands(values, "concat")
    rank = len(operands[0]._shape_tuple())
    if not isinstance(axis, int) or not -rank <= axis < rank:
        refuse(ValueError, "tf.concat of RaggedTensors: axis must be a Python int in "
                           "[%d, %d), got %r" % (-rank, rank, axis))
    axis %= rank
    if axis == 0:
        return _concat_rows(operands)
    if axis == 1:
        splits, indices = ragged_ops.interleave_rows([v.row_splits for v in operands])
        joined = _concat_rows([RaggedTensor._make(v.values, _whole(v)) for v in operands])
        return RaggedTensor._make(_take(joined.values, indices), splits)
    return _map_rows(lambda parts: _concat(parts, axis - 1), operands)


def _whole(rt: RaggedTensor) -> Tensor:
    """row_splits of one row holding all of `rt`'s values."""
    return concat_split_ops.stack([convert_to_tensor(0, dtype=dtypes.int64), rt.row_splits[-1]])


def _map_rows(join: Any, operands: list[RaggedTensor]) -> RaggedTensor:
    """`join` applied to the values of operands partitioned alike (an inner axis)."""
    splits = operands[0].row_splits
    for v in operands[1:]:
        splits = ragged_ops.same_splits(splits, v.row_splits)
    return RaggedTensor._make(join([v.values for v in operands]), splits)


def _stack(values: Any, axis: int = 0, name: str = "stack") -> Any:
    operands = _ragged_operands(values, "stack")
    rank = len(operands[0]._shape_tuple()) + 1
    if not isinstance(axis, int) or not -rank <= axis < rank:
        refuse(ValueError, "tf.stack of RaggedTensors: axis must be a Python int in "
                           "[%d, %d), got %r" % (-rank, rank, axis))
    axis %= rank
    if axis == 0:
        joined = _concat_rows(operands)
        sizes = [v.nrows() for v in operands]
        zero = convert_to_tensor(0, dtype=dtypes.int64)
        splits, total = [zero], zero
        for size in sizes:
            total = math_ops.add(total, size)
            splits.append(total)
        return RaggedTensor._make(joined, concat_split_ops.stack(splits))
    if axis == 1:
        return _concat([RaggedTensor.from_uniform_row_length(v, 1) for v in operands], 1)
    return _map_rows(lambda parts: _stack(parts, axis - 1), operands)


# -- selection: gather, boolean_mask, where ----------------------------------------------------


def _gather(params: Any, indices: Any, axis: Any = None, batch_dims: int = 0,
            name: str | None = None) -> Any:
    if batch_dims:
        refuse(NotImplementedError, "tf.gather of a RaggedTensor does not support batch_dims")
    if axis not in (None, 0):
        return _gather_inner(params, indices, axis)
    if isinstance(indices, RaggedTensor):
        # Ragged indices keep their rows: each index becomes the slice of params it names.
        if isinstance(params, RaggedTensor):
            refuse(TypeError, "tf.gather with RaggedTensor params and RaggedTensor indices "
                              "is not supported")
        return indices.with_flat_values(selection_ops.gather(params, indices.flat_values))
    indices = convert_to_tensor(indices, dtype_hint=dtypes.int64)
    dims = indices._shape_tuple()
    if dims == ():
        return params[indices]
    if dims is None or len(dims) != 1:
        flat = params._gather_rows(reshape_ops.reshape(indices, [-1]))
        if dims is None:
            refuse(ValueError, "tf.gather of a RaggedTensor needs indices of known rank")
        result: Any = flat
        for size in reversed(dims[1:]):
            result = RaggedTensor.from_uniform_row_length(result, size)
        return result
    return params._gather_rows(indices)


def _gather_inner(params: Any, indices: Any, axis: Any) -> Any:
    """tf.gather of a RaggedTensor (ragged rank 1) along axis 1 (the ragged one: from each
    row, a dense result; an index past a row's end is an error, where TensorFlow reads on
    into the next row) or a uniform inner axis."""
    if not isinstance(params, RaggedTensor) or isinstance(indices, RaggedTensor):
        refuse(TypeError, "tf.gather with a RaggedTensor along axis %r: only RaggedTensor "
                          "params with dense indices are supported" % (axis,))
    rank = len(params._shape_tuple())
    axis = int(axis) + rank if int(axis) < 0 else int(axis)
    if params.ragged_rank != 1 or not 0 < axis < rank:
        refuse(NotImplementedError, "tf.gather along axis %d supports RaggedTensors of ragged "
                                    "rank 1 and axes 1 to %d" % (axis, rank - 1))
    indices = math_ops.cast(convert_to_tensor(indices, dtype_hint=dtypes.int64), dtypes.int64)
    if axis > 1:
        return params.with_flat_values(selection_ops.gather(params.flat_values, indices,
                                                            axis=axis - 1))
    depth = len(indices._shape_tuple())
    per_row = [-1] + [1] * depth  # each row's start and length against every index
    lengths = reshape_ops.reshape(params.row_lengths(), per_row)
    check_ops.assert_less(indices + math_ops.multiply(lengths, 0), lengths,
                          message="tf.gather along the ragged axis: an index is past the end "
                                  "of a row")
    check_ops.assert_non_negative(indices, message="tf.gather along the ragged axis: a "
                                                   "negative index")
    positions = reshape_ops.reshape(params.row_starts(), per_row) + indices
    return selection_ops.gather(params.values, positions)


def _boolean_mask(tensor: Any, mask: Any, axis: Any = None, name: str = "boolean_mask") -> Any:
    return boolean_mask(tensor, mask)


def boolean_mask(data: Any, mask: Any, name: str | None = None) -> Any:
    """The items of `data` where `mask` is True: a bool vector masks the rows; a mask of
    data's (ragged) shape masks the values of each row, which keep their rows."""
    if isinstance(mask, RaggedTensor):
        if not isinstance(data, RaggedTensor):
            refuse(ValueError, "tf.ragged.boolean_mask: a ragged mask needs ragged data")
        if mask.dtype is not dtypes.bool_:
            refuse(TypeError, "mask must be a bool tensor, got %s" % mask.dtype.name)
        if mask.ragged_rank != data.ragged_rank:
            refuse(ValueError, "tf.ragged.boolean_mask: the mask's ragged rank (%d) must "
                               "equal the data's (%d)" % (mask.ragged_rank, data.ragged_rank))
        for a, b in zip(data.nested_row_splits, mask.nested_row_splits):
            ragged_ops.same_splits(a, b)
        return _mask_values(data, mask)
    mask = convert_to_tensor(mask)
    if mask.dtype is not dtypes.bool_:
        refuse(TypeError, "mask must be a bool tensor, got %s" % mask.dtype.name)
    dims = mask._shape_tuple()
    if dims is None or len(dims) != 1:
        refuse(ValueError, "tf.ragged.boolean_mask: a dense mask over a RaggedTensor must be "
                           "a vector over its rows, got shape %s" % mask.shape)
    if not isinstance(data, RaggedTensor):
        return scatter_ops.boolean_mask(data, mask)
    rows = selection_ops.where(mask)[:, 0]
    return data._gather_rows(rows)


def _mask_values(data: RaggedTensor, mask: RaggedTensor) -> RaggedTensor:
    values, keep = data.values, mask.values
    if isinstance(values, RaggedTensor):
        kept: Any = _mask_values(values, keep)
    else:
        kept = scatter_ops.boolean_mask(values, keep)
    counts = segment_ops.unsorted_segment_sum(
        math_ops.cast(_leading_mask(keep), dtypes.int64), data.value_rowids(), data.nrows())
    return RaggedTensor._make(kept, ragged_ops.splits_from_lengths_unchecked(counts))


def _leading_mask(keep: Any) -> Tensor:
    if isinstance(keep, RaggedTensor):
        refuse(ValueError, "tf.ragged.boolean_mask: a ragged mask of ragged rank above 1 is "
                           "not supported")
    return keep


def _where(condition: Any, x: Any = None, y: Any = None, name: str | None = None) -> Any:
    if (x is None) != (y is None):
        refuse(ValueError, "x and y must both be non-None or both be None.")
    if x is None:  # the coordinates of the true values, as TensorFlow gives them
        flat = condition.flat_values
        coordinates = ragged_ops.sparse_indices(flat, condition.nested_row_splits)
        return scatter_ops.boolean_mask(coordinates, reshape_ops.reshape(flat, [-1]))
    operands = [v for v in (condition, x, y) if isinstance(v, RaggedTensor)]
    first = operands[0]
    for other in operands[1:]:
        if other.ragged_rank != first.ragged_rank:
            refuse(ValueError, "tf.where: the RaggedTensor operands have ragged ranks %d "
                               "and %d" % (first.ragged_rank, other.ragged_rank))
    splits = list(first.nested_row_splits)
    for other in operands[1:]:
        splits = [ragged_ops.same_splits(a, b)
                  for a, b in zip(splits, other.nested_row_splits)]

    def values_of(v: Any) -> Any:
        return v.flat_values if isinstance(v, RaggedTensor) else v
    return _partitioned(selection_ops.where(values_of(condition), values_of(x), values_of(y)),
                        splits)


# -- shape, size, rank -------------------------------------------------------------------------


def _size(input: Any, out_type: Any = dtypes.int32, name: str | None = None) -> Any:  # noqa: A002
    return array_ops.size(input.flat_values, out_type=out_type)


def _rank(input: Any, name: str | None = None) -> Any:  # noqa: A002
    return convert_to_tensor(len(input._shape_tuple()), dtype=dtypes.int32)


# -- elementwise APIs beyond runtime.ops.math_ops, tile and expand_dims ------------------------


def _on_flat_values(api: Any) -> Any:
    """A handler applying `api` (elementwise in its first argument) to the flat values."""
    def handler(x: Any, *args: Any, **kwargs: Any) -> Any:
        if any(isinstance(a, RaggedTensor) for a in list(args) + list(kwargs.values())):
            refuse(TypeError, "%s: only its first argument may be a RaggedTensor"
                              % api.__name__)
        return x.with_flat_values(api(x.flat_values, *args, **kwargs))
    return handler


def _strings_join(inputs: Any, separator: str = "", name: str | None = None) -> Any:
    """tf.strings.join over RaggedTensors (of one partition) and dense strings that
    broadcast against their values: joined two at a time, which the separator allows."""
    def pair(left: Any, right: Any) -> Any:
        return string_ops.join([left, right], separator)
    result = inputs[0]
    for item in inputs[1:]:
        composite = result if isinstance(result, RaggedTensor) else item
        result = composite._elementwise_binary(pair, result, item)
    return result


def _add_n(inputs: Any, name: str | None = None) -> Any:
    total = inputs[0]
    for item in inputs[1:]:
        total = math_ops.add(total, item)
    return total


def _reverse(tensor: Any, axis: Any, name: str | None = None) -> Any:
    """tf.reverse of a RaggedTensor of ragged rank 1: axis 0 reverses the rows, axis 1 the
    values within each row, a later axis the flat values."""
    rt = tensor
    axes = common.static_int_list(axis, "axis")
    rank = len(rt._shape_tuple())
    if axes is None:
        refuse(ValueError, "tf.reverse of a RaggedTensor needs Python int axes")
    if rt.ragged_rank != 1:
        refuse(NotImplementedError, "tf.reverse supports RaggedTensors of ragged rank 1")
    axes = sorted({a + rank if a < 0 else a for a in axes})
    if any(not 0 <= a < rank for a in axes):
        refuse(ValueError, "tf.reverse: axis %r is out of range for rank %d" % (axis, rank))
    result = rt
    inner = [a - 1 for a in axes if a >= 2]
    if inner:
        result = result.with_flat_values(layout_ops.reverse(result.flat_values, inner))
    if 1 in axes:
        ids = result.value_rowids()
        starts = _take(result.row_starts(), ids)
        limits = _take(result.row_limits(), ids)
        position = array_ops.range(math_ops.cast(array_ops.shape(ids)[0], dtypes.int64),
                                   dtype=dtypes.int64)
        result = RaggedTensor._make(_take(result.values, starts + limits - 1 - position),
                                    result.row_splits)
    if 0 in axes:
        rows = math_ops.cast(result.nrows(), dtypes.int64)
        result = result._gather_rows(array_ops.range(rows - 1, -1, -1, dtype=dtypes.int64))
    return result


def _tile(input: Any, multiples: Any, name: str | None = None) -> Any:  # noqa: A002
    rt = input
    counts = common.static_int_list(multiples, "multiples")
    rank = len(rt._shape_tuple())
    if counts is None or len(counts) != rank:
        refuse(ValueError, "tf.tile of a RaggedTensor of rank %d needs %d Python int "
                           "multiples, got %r" % (rank, rank, multiples))
    if rt.ragged_rank != 1:
        refuse(NotImplementedError, "tf.tile supports RaggedTensors of ragged rank 1")
    result = rt
    if any(c != 1 for c in counts[2:]):
        result = result.with_flat_values(concat_split_ops.tile(result.flat_values,
                                                               [1] + list(counts[2:])))
    if counts[1] != 1:
        copies = counts[1]
        starts = reshape_ops.reshape(concat_split_ops.tile(
            reshape_ops.reshape(result.row_starts(), [-1, 1]), [1, copies]), [-1])
        limits = reshape_ops.reshape(concat_split_ops.tile(
            reshape_ops.reshape(result.row_limits(), [-1, 1]), [1, copies]), [-1])
        splits, indices = ragged_ops.ragged_range(starts, limits,
                                                  convert_to_tensor(1, dtype=dtypes.int64))
        result = RaggedTensor._make(_take(result.values, indices), splits[::copies])
    if counts[0] != 1:
        rows = math_ops.cast(result.nrows(), dtypes.int64)
        result = result._gather_rows(concat_split_ops.tile(
            array_ops.range(rows, dtype=dtypes.int64), [counts[0]]))
    return result


def _expand_dims(input: Any, axis: int, name: str | None = None) -> Any:  # noqa: A002
    rt = input
    rank = len(rt._shape_tuple())
    if not isinstance(axis, int) or not -rank - 1 <= axis <= rank:
        refuse(ValueError, "tf.expand_dims of a RaggedTensor of rank %d: axis must be a "
                           "Python int in [%d, %d], got %r" % (rank, -rank - 1, rank, axis))
    if axis < 0:
        axis += rank + 1
    if axis == 0:
        return RaggedTensor._make(rt, concat_split_ops.stack(
            [convert_to_tensor(0, dtype=dtypes.int64), rt.nrows()]))
    if axis == 1:
        return RaggedTensor.from_uniform_row_length(rt, 1)
    if axis > rt.ragged_rank:
        return rt.with_flat_values(reshape_ops.expand_dims(rt.flat_values,
                                                                axis - rt.ragged_rank))
    return rt.with_values(_expand_dims(rt.values, axis - 1))


# -- tf.ragged ---------------------------------------------------------------------------------


def map_flat_values(op: Any, *args: Any, **kwargs: Any) -> Any:
    """`op` applied to the flat values of the RaggedTensor arguments (partitioned alike),
    its result partitioned as they are; other arguments are passed as they are."""
    found: list[RaggedTensor] = []

    def swap(value: Any) -> Any:
        if isinstance(value, RaggedTensor):
            found.append(value)
            return value.flat_values
        if isinstance(value, (list, tuple)):
            return type(value)(swap(v) for v in value)
        if isinstance(value, dict):
            return {k: swap(v) for k, v in value.items()}
        return value
    new_args = swap(list(args))
    new_kwargs = swap(kwargs)
    if not found:
        return op(*new_args, **new_kwargs)
    splits = list(found[0].nested_row_splits)
    for other in found[1:]:
        if other.ragged_rank != len(splits):
            refuse(ValueError, "map_flat_values: the RaggedTensor arguments have different "
                               "ragged ranks")
        splits = [ragged_ops.same_splits(a, b) for a, b in zip(splits, other.nested_row_splits)]
    return _partitioned(op(*new_args, **new_kwargs), splits)


def range(starts: Any, limits: Any = None, deltas: Any = 1, dtype: Any = None,  # noqa: A001
          name: str | None = None, row_splits_dtype: Any = dtypes.int64) -> RaggedTensor:
    """Row i counts from `starts[i]` up to (not including) `limits[i]` by `deltas[i]`
    (scalars broadcast); with one argument, from 0 to `starts[i]`."""
    if limits is None:
        starts, limits = 0, starts
    parts = [convert_to_tensor(v, dtype=dtype) if dtype is not None else convert_to_tensor(v)
             for v in (starts, limits, deltas)]
    kinds = [p.dtype for p in parts]
    floats = [d for d in kinds if d.is_floating]
    common_dtype = max(floats or kinds, key=lambda d: d.np_dtype.itemsize)
    parts = [math_ops.cast(p, common_dtype) for p in parts]
    splits, values = ragged_ops.ragged_range(*parts)
    return RaggedTensor._make(values, splits)


def stack(values: Any, axis: int = 0, name: str | None = None) -> Any:
    """The RaggedTensors (or dense tensors) of `values` stacked along a new `axis`."""
    if not any(isinstance(v, RaggedTensor) for v in values):
        return _stack([RaggedTensor.from_tensor(convert_to_tensor(v)) for v in values], axis)
    return _stack(values, axis)


def segment_ids_to_row_splits(segment_ids: Any, num_segments: Any = None,
                              out_type: Any = None, name: str | None = None) -> Tensor:
    """The row_splits of rows as long as the number of times each id occurs in
    `segment_ids`, with `num_segments` rows (default: one past the largest id)."""
    splits = ragged_ops.splits_from_rowids(
        segment_ids, -1 if num_segments is None else num_segments, require_sorted=False)
    return math_ops.cast(splits, dtypes.int64 if out_type is None else out_type)


def row_splits_to_segment_ids(splits: Any, name: str | None = None,
                              out_type: Any = None) -> Tensor:
    """The row of each value of the partition `splits`."""
    ids = ragged_ops.rowids_from_splits(convert_to_tensor(splits, dtype_hint=dtypes.int64))
    return math_ops.cast(ids, dtypes.int64 if out_type is None else out_type)


for _kind in _DENSE:
    composite_dispatch.register_api(_DENSE[_kind], RaggedTensor, _reducer(_kind))
composite_dispatch.register_api(reduction_ops.reduce_mean, RaggedTensor, _reduce_mean)
composite_dispatch.register_api(concat_split_ops.concat, RaggedTensor, _concat)
composite_dispatch.register_api(common.stack, RaggedTensor, _stack)
composite_dispatch.register_api(selection_ops.gather, RaggedTensor, _gather)
composite_dispatch.register_api(selection_ops.where, RaggedTensor, _where)
composite_dispatch.register_api(scatter_ops.boolean_mask, RaggedTensor, _boolean_mask)
composite_dispatch.register_api(array_ops.shape, RaggedTensor, ragged_shape.shape)
composite_dispatch.register_api(array_ops.size, RaggedTensor, _size)
composite_dispatch.register_api(array_ops.rank, RaggedTensor, _rank)
for _api in (array_ops.identity, array_ops.zeros_like, array_ops.ones_like,
             math_ops.clip_by_value, nn_ops.relu6, nn_ops.leaky_relu, nn_ops.elu, nn_ops.gelu,
             nn_ops.silu, string_ops.length, string_ops.lower, string_ops.upper,
             string_ops.strip, string_ops.regex_full_match, string_ops.regex_replace,
             string_ops.to_number, string_ops.as_string, string_ops.substr,
             string_ops.to_hash_bucket_fast):
    composite_dispatch.register_api(_api, RaggedTensor, _on_flat_values(_api))
composite_dispatch.register_api(math_ops.add_n, RaggedTensor, _add_n)
composite_dispatch.register_api(string_ops.join, RaggedTensor, _strings_join)
composite_dispatch.register_api(concat_split_ops.tile, RaggedTensor, _tile)
composite_dispatch.register_api(layout_ops.reverse, RaggedTensor, _reverse)
composite_dispatch.register_api(reshape_ops.expand_dims, RaggedTensor, _expand_dims)
