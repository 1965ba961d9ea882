"""Arithmetic on SparseTensors: `tf.sparse` functions that combine or reduce stored values
(maximum, minimum, reduce_sum with a sparse output, reduce_max, map_values, segment_sum /
mean / sqrt_n, bincount).

Index bookkeeping runs in the index ops of runtime.ops.sparse_ops; values are combined with
the ordinary ops, so gradients reach the stored values where TensorFlow gives them
(reduce_max and bincount have none, as in TensorFlow).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from runtime import dtypes
from runtime.composite.base import refuse
from runtime.composite.sparse import SparseTensor, require_sparse, to_dense
from runtime.ops import (
    array_ops,
    concat_split_ops,
    math_ops,
    reduction_ops,
    reshape_ops,
    segment_ops,
    selection_ops,
    sparse_ops,
)
from runtime.ops.common import constant_value, convert_to_tensor
from runtime.tensor import Tensor


def _values_at(values: Tensor, at: Tensor) -> Tensor:
    """values[at], and zero where `at` is -1 (an implicit zero of a sparse operand)."""
    present = math_ops.greater_equal(at, 0)
    picked = selection_ops.gather(values, math_ops.maximum(at, 0))
    return selection_ops.where(present, picked, array_ops.zeros_like(picked))


def _elementwise(op: str, combine: Callable[[Tensor, Tensor], Tensor], sp_a: Any,
                 sp_b: Any) -> SparseTensor:
    a = require_sparse(sp_a, op, "sp_a")
    b = require_sparse(sp_b, op, "sp_b")
    if a.dtype is not b.dtype:
        refuse(TypeError, "%s: the operands' values are %s and %s"
                          % (op, a.dtype.name, b.dtype.name))
    if a.rank is not None and b.rank is not None and a.rank != b.rank:
        refuse(ValueError, "%s: the operands have ranks %d and %d" % (op, a.rank, b.rank))
    indices, a_at, b_at = sparse_ops.sparse_index_union(a.indices, a.dense_shape, b.indices,
                                                        b.dense_shape)
    values = combine(_values_at(a.values, a_at), _values_at(b.values, b_at))
    return SparseTensor._make(indices, values, a.dense_shape)


def maximum(sp_a: Any, sp_b: Any, name: str | None = None) -> SparseTensor:
    """The elementwise maximum of two SparseTensors of one dense shape (indices in
    row-major order): stored where either stores, an absent element counting as zero."""
    return _elementwise("tf.sparse.maximum", math_ops.maximum, sp_a, sp_b)


def minimum(sp_a: Any, sp_b: Any, name: str | None = None) -> SparseTensor:
    """The elementwise minimum of two SparseTensors of one dense shape (indices in
    row-major order): stored where either stores, an absent element counting as zero."""
    return _elementwise("tf.sparse.minimum", math_ops.minimum, sp_a, sp_b)


def _axes(axis: Any, rank: int | None, op: str) -> tuple[int, ...]:
    if rank is None:
        refuse(ValueError, "%s needs a SparseTensor of known rank" % op)
    if axis is None:
        return tuple(range(rank))
    known = constant_value(axis) if isinstance(axis, Tensor) else axis
    if known is None:
        refuse(TypeError, "%s: axis must be known while tracing" % op)
    axes = set()
    for a in np.reshape(np.asarray(known), [-1]).tolist():
        if not -rank <= a < rank:
            refuse(ValueError, "%s: axis %d is out of range for a SparseTensor of rank %d"
                               % (op, a, rank))
        axes.add(a + rank if a < 0 else a)
    return tuple(sorted(axes))


def _grouped(sp: SparseTensor, axis: Any, keepdims: Any, op: str) -> tuple[Tensor, ...]:
    axes = _axes(axis, sp.rank, op)
    groups, group, dense_shape = sparse_ops.sparse_reduce_groups(
        sp.indices, sp.dense_shape, axes, bool(keepdims))
    count = array_ops.shape(groups, out_type=dtypes.int64)[0]
    return groups, group, dense_shape, count


def reduce_sum(sp_input: SparseTensor, axis: Any = None, keepdims: Any = None,
               output_is_sparse: bool = False, name: str | None = None) -> Any:
    """The sum of the elements along `axis` (all when None): a dense tensor, or with
    `output_is_sparse` a SparseTensor storing the sum of each group that stores a value."""
    op = "tf.sparse.reduce_sum"
    sp = require_sparse(sp_input, op)
    if not output_is_sparse:
        axes = None if axis is None else list(_axes(axis, sp.rank, op))
        return reduction_ops.reduce_sum(to_dense(sp), axis=axes, keepdims=bool(keepdims))
    groups, group, dense_shape, count = _grouped(sp, axis, keepdims, op)
    sums = segment_ops.unsorted_segment_sum(sp.values, group, count)
    return SparseTensor._make(groups, sums, dense_shape)


def reduce_max(sp_input: SparseTensor, axis: Any = None, keepdims: Any = None,
               output_is_sparse: bool = False, name: str | None = None) -> Any:
    """The maximum of the stored values along `axis` (all when None): unlike
    `tf.reduce_max`, absent elements do not count, and a group storing nothing gives 0.
    A dense tensor, or with `output_is_sparse` a SparseTensor of the groups storing a
    value. Not differentiable (as in TensorFlow)."""
    op = "tf.sparse.reduce_max"
    sp = require_sparse(sp_input, op)
    groups, group, dense_shape, count = _grouped(sp, axis, keepdims, op)
    result = SparseTensor._make(groups, sparse_ops.sparse_segment_max(sp.values, group, count),
                                dense_shape)
    return result if output_is_sparse else to_dense(result)


def softmax(sp_input: SparseTensor, name: str | None = None) -> SparseTensor:
    """The softmax of the stored values of each innermost row (the values sharing all
    coordinates but the last), as a SparseTensor of the same indices; absent elements
    take no part (they are not zeros with weight exp(0))."""
    op = "tf.sparse.softmax"
    sp = require_sparse(sp_input, op)
    if not sp.dtype.is_floating:
        refuse(TypeError, "%s: the values must be floats, got %s" % (op, sp.dtype.name))
    rank = sp.rank
    if rank is None or rank < 2:
        refuse(ValueError, "%s needs a SparseTensor of rank 2 or more, got %s"
                           % (op, "an unknown rank" if rank is None else "rank %d" % rank))
    _, group, _, count = _grouped(sp, rank - 1, False, op)
    # The largest value of each row, for stability only: no gradient flows through it.
    peak = array_ops.stop_gradient(sparse_ops.sparse_segment_max(sp.values, group, count))
    raised = math_ops.exp(math_ops.subtract(sp.values, selection_ops.gather(peak, group)))
    totals = segment_ops.unsorted_segment_sum(raised, group, count)
    return SparseTensor._make(sp.indices, math_ops.divide(
        raised, selection_ops.gather(totals, group)), sp.dense_shape)


def _replace_sparse(value: Any, found: list[SparseTensor]) -> Any:
    if isinstance(value, SparseTensor):
        found.append(value)
        return value.values
    if isinstance(value, (list, tuple)) and not hasattr(type(value), "_fields"):
        return type(value)(_replace_sparse(v, found) for v in value)
    if isinstance(value, dict):
        return {k: _replace_sparse(v, found) for k, v in value.items()}
    return value


def map_values(op: Callable[..., Any], *args: Any, **kwargs: Any) -> SparseTensor:
    """`op` applied to the stored values: each SparseTensor among the arguments is
    replaced by its `values`; all of them must have the same indices and dense shape, and
    the result has those indices."""
    found: list[SparseTensor] = []
    inner_args = _replace_sparse(args, found)
    inner_kwargs = _replace_sparse(kwargs, found)
    if not found:
        refuse(ValueError, "tf.sparse.map_values: no SparseTensor in the arguments")
    first = found[0]
    for k, other in enumerate(found[1:], 1):
        shapes = (first._static_shape, other._static_shape)
        if None not in shapes and any(None not in pair and pair[0] != pair[1]
                                      for pair in zip(*shapes)) \
                or None not in (first.rank, other.rank) and first.rank != other.rank:
            refuse(ValueError, "tf.sparse.map_values: SparseTensor %d has dense shape %s "
                               "but SparseTensor 0 has %s" % (k, other.shape, first.shape))
    indices = first.indices
    if len(found) > 1:
        indices = sparse_ops.same_indices([sp.indices for sp in found])
    values = convert_to_tensor(op(*inner_args, **inner_kwargs))
    return SparseTensor._make(indices, values, first.dense_shape)


def _segment_totals(op: str, data: Any, indices: Any, segment_ids: Any,
                    num_segments: Any) -> tuple[Tensor, Tensor, Tensor]:
    """(sums, counts, data): the sum of the rows `data[indices]` per segment, and each
    segment's number of rows (as data's dtype)."""
    data = convert_to_tensor(data)
    rows = selection_ops.gather(data, convert_to_tensor(indices, dtype_hint=dtypes.int32))
    ids = convert_to_tensor(segment_ids, dtype_hint=dtypes.int32)
    if not ids.dtype.is_integer:
        refuse(TypeError, "%s: segment_ids must be integers, got %s" % (op, ids.dtype.name))
    if num_segments is None:
        num_segments = math_ops.add(reduction_ops.reduce_max(
            concat_split_ops.concat([reshape_ops.reshape(ids, [-1]),
                                     convert_to_tensor([-1], dtype=ids.dtype)], 0)), 1)
    sums = segment_ops.unsorted_segment_sum(rows, ids, num_segments)
    ones = array_ops.ones_like(ids, dtype=data.dtype)
    counts = segment_ops.unsorted_segment_sum(ones, ids, num_segments)
    return sums, counts, data


def _per_row(counts: Tensor, sums: Tensor) -> Tensor:
    """`counts` shaped to divide each row of `sums`."""
    rank = sums._shape_tuple()
    extra = 0 if rank is None else len(rank) - 1
    return reshape_ops.reshape(counts, [-1] + [1] * extra)


def segment_sum(data: Any, indices: Any, segment_ids: Any, num_segments: Any = None,
                name: str | None = None) -> Tensor:
    """The sum, per segment, of the rows `data[indices]`: `segment_ids[i]` is row i's
    segment; there are `num_segments` segments (max id + 1 when None), empty ones 0."""
    return _segment_totals("tf.sparse.segment_sum", data, indices, segment_ids,
                           num_segments)[0]


def segment_mean(data: Any, indices: Any, segment_ids: Any, num_segments: Any = None,
                 name: str | None = None) -> Tensor:
    """The mean, per segment, of the rows `data[indices]` (float data; an empty segment
    gives 0). See `segment_sum`."""
    sums, counts, data = _segment_totals("tf.sparse.segment_mean", data, indices, segment_ids,
                                         num_segments)
    if not data.dtype.is_floating:
        refuse(TypeError, "tf.sparse.segment_mean: data must be floats, got %s"
                          % data.dtype.name)
    return math_ops.divide(sums, _per_row(math_ops.maximum(counts, 1), sums))


def segment_sqrt_n(data: Any, indices: Any, segment_ids: Any, num_segments: Any = None,
                   name: str | None = None) -> Tensor:
    """The sum, per segment, of the rows `data[indices]` divided by the square root of the
    segment's number of rows (float data; an empty segment gives 0)."""
    sums, counts, data = _segment_totals("tf.sparse.segment_sqrt_n", data, indices,
                                         segment_ids, num_segments)
    if not data.dtype.is_floating:
        refuse(TypeError, "tf.sparse.segment_sqrt_n: data must be floats, got %s"
                          % data.dtype.name)
    return math_ops.divide(sums, _per_row(math_ops.sqrt(math_ops.maximum(counts, 1)), sums))


def bincount(values: Any, weights: Any = None, axis: int = 0, minlength: Any = None,
             maxlength: Any = None, binary_output: bool = False,
             name: str | None = None) -> SparseTensor:
    """The count of each non-negative integer in `values` (a dense tensor or the stored
    values of a SparseTensor), as a SparseTensor: one vector of size
    max(values) + 1 (at least `minlength`, at most `maxlength`) with `axis=0`, or one row
    per row of a matrix (or of a rank-2 SparseTensor) with `axis=-1`. `weights` (like
    `values`) sums weights instead; `binary_output` marks presence with 1."""
    op = "tf.sparse.bincount"
    if axis not in (0, -1):
        refuse(ValueError, "%s: axis must be 0 or -1, got %r" % (op, axis))
    rows: Any = None
    nrows: Any = 0
    if isinstance(values, SparseTensor):
        if axis == -1:
            if values.rank not in (None, 2):
                refuse(ValueError, "%s: axis=-1 needs a SparseTensor of rank 2, got rank %d"
                                   % (op, values.rank))
            rows = values.indices[:, 0]
            nrows = values.dense_shape[0]
        if isinstance(weights, SparseTensor):
            weights = weights.values
        values = values.values
    values = convert_to_tensor(values)
    shape = values._shape_tuple()
    if axis == -1 and rows is None and shape is not None and len(shape) != 2:
        refuse(ValueError, "%s: axis=-1 needs a matrix of values, got shape %s"
                           % (op, list(shape)))
    if weights is None:
        weights = np.zeros(0, values.dtype.np_dtype)
    weights = convert_to_tensor(weights)
    limits = [-1 if v is None else int(v) for v in (minlength, maxlength)]
    indices, counts, dense_shape = sparse_ops.sparse_bincount(
        values, weights, limits[0], limits[1], 0 if axis == 0 else -1, bool(binary_output),
        rows, nrows)
    return SparseTensor._make(indices, counts, dense_shape)
