"""Where a SparseTensor's values sit: `tf.sparse` functions that move, select or add stored
elements (reorder, reshape, expand_dims, transpose, concat, slice, split, retain,
reset_shape, fill_empty_rows, to_indicator).

New coordinates are computed by the index ops of runtime.ops.sparse_ops; the stored values
follow them through `gather`, so gradients reach the input's values wherever TensorFlow
gives them. Results are in row-major order wherever TensorFlow's are.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime import dtypes
from runtime.composite.base import refuse
from runtime.composite.sparse import SparseTensor, require_sparse, to_dense
from runtime.ops import (
    array_ops,
    check_ops,
    concat_split_ops,
    math_ops,
    reduction_ops,
    reshape_ops,
    selection_ops,
    sparse_ops,
)
from runtime.ops.common import constant_value, convert_to_tensor
from runtime.tensor import Tensor


def _static_int(value: Any, op: str, what: str) -> int:
    known = constant_value(value) if isinstance(value, Tensor) else value
    if known is None or np.ndim(known) != 0 or isinstance(known, (bool, np.bool_)):
        refuse(TypeError, "%s: %s must be an integer known while tracing, got %r"
                          % (op, what, value))
    if not np.issubdtype(np.asarray(known).dtype, np.integer):
        refuse(TypeError, "%s: %s must be an integer, got %r" % (op, what, known))
    return int(known)


def _known_rank(sp: SparseTensor, op: str) -> int:
    if sp.rank is None:
        refuse(ValueError, "%s needs a SparseTensor of known rank" % op)
    return sp.rank


def _axis(axis: Any, rank: int, op: str, extra: int = 0) -> int:
    """`axis` in [-rank - extra, rank + extra) made non-negative."""
    axis = _static_int(axis, op, "axis")
    if not -rank - extra <= axis < rank + extra:
        refuse(ValueError, "%s: axis %d is out of range for a SparseTensor of rank %d "
                           "(expected %d <= axis < %d)" % (op, axis, rank, -rank - extra,
                                                            rank + extra))
    return axis + rank + extra if axis < 0 else axis


def _columns(indices: Tensor, columns: list[int]) -> Tensor:
    return selection_ops.gather(indices, np.asarray(columns, np.int64), axis=1)


def _entries(dense_shape: Tensor, entries: list[int]) -> Tensor:
    return selection_ops.gather(dense_shape, np.asarray(entries, np.int64))


def _moved(sp: SparseTensor, indices: Tensor, order: Tensor, dense_shape: Tensor,
           values: Tensor | None = None) -> SparseTensor:
    """The sparse tensor holding `values` (default sp's) taken in `order` at `indices`."""
    source = sp.values if values is None else values
    return SparseTensor._make(indices, selection_ops.gather(source, order), dense_shape)


def reorder(sp_input: SparseTensor, name: str | None = None) -> SparseTensor:
    """The same tensor with its indices in canonical row-major order (the values move with
    them; repeated indices keep their relative order)."""
    sp = require_sparse(sp_input, "tf.sparse.reorder")
    order = sparse_ops.reorder_permutation(sp.indices, sp.dense_shape)
    return _moved(sp, selection_ops.gather(sp.indices, order), order, sp.dense_shape)


def reshape(sp_input: SparseTensor, shape: Any, name: str | None = None) -> SparseTensor:
    """The same values laid out in the dense shape `shape` (at most one entry -1, inferred
    from the number of dense elements), keeping their row-major positions."""
    sp = require_sparse(sp_input, "tf.sparse.reshape")
    new_shape = convert_to_tensor(shape, dtype_hint=dtypes.int64)
    if not new_shape.dtype.is_integer:
        refuse(TypeError, "tf.sparse.reshape: shape must be integers, got %s"
                          % new_shape.dtype.name)
    new_shape = math_ops.cast(new_shape, dtypes.int64)
    static = None
    wanted, dims = constant_value(new_shape), sp._static_shape
    if wanted is not None and dims is not None and None not in dims:
        wanted = [int(d) for d in np.reshape(wanted, [-1])]
        if wanted.count(-1) > 1:
            refuse(ValueError, "At most one dimension can be inferred (-1). Found: %s" % wanted)
        size = int(np.prod(dims, dtype=np.int64))
        known = int(np.prod([d for d in wanted if d != -1], dtype=np.int64))
        if -1 in wanted and known and 0 not in wanted:
            wanted[wanted.index(-1)] = size // known
            known = int(np.prod(wanted, dtype=np.int64))
        if -1 not in wanted and known != size:
            refuse(ValueError, "Cannot reshape a tensor with %d elements to shape %s (%d "
                               "elements)." % (size, wanted, known))
        if -1 not in wanted:
            static = convert_to_tensor(np.asarray(wanted, np.int64))
    indices, dense_shape = sparse_ops.sparse_reshape(sp.indices, sp.dense_shape, new_shape)
    return SparseTensor._make(indices, sp.values, dense_shape if static is None else static)


def expand_dims(sp_input: SparseTensor, axis: Any = None,
                name: str | None = None) -> SparseTensor:
    """The tensor with a dimension of size 1 inserted at `axis` (in [-rank - 1, rank];
    -1, the last, when None); indices stay in their order."""
    op = "tf.sparse.expand_dims"
    sp = require_sparse(sp_input, op)
    if sp.rank is None:  # e.g. a loop variable whose rank changes: checked when run
        indices, dense_shape = sparse_ops.sparse_expand_dims(
            sp.indices, sp.dense_shape, _static_int(-1 if axis is None else axis, op, "axis"))
        return SparseTensor._make(indices, sp.values, dense_shape)
    rank = sp.rank
    axis = _axis(-1 if axis is None else axis, rank, op, extra=1)
    before, after = list(range(axis)), list(range(axis, rank))
    nnz = array_ops.shape(sp.indices, out_type=dtypes.int64)[0]
    zeros = array_ops.fill(_pair(nnz, 1), np.int64(0))
    indices = concat_split_ops.concat(
        [_columns(sp.indices, before), zeros, _columns(sp.indices, after)], 1)
    dense_shape = concat_split_ops.concat(
        [_entries(sp.dense_shape, before), np.ones(1, np.int64),
         _entries(sp.dense_shape, after)], 0)
    return SparseTensor._make(indices, sp.values, dense_shape)


def _pair(first: Any, second: Any) -> Tensor:
    """The int64 vector [first, second] of two scalars (tensors or ints)."""
    return concat_split_ops.concat(
        [reshape_ops.reshape(math_ops.cast(convert_to_tensor(v, dtype_hint=dtypes.int64),
                                                dtypes.int64), [1]) for v in (first, second)],
        0)


def transpose(sp_input: SparseTensor, perm: Any = None,
              name: str | None = None) -> SparseTensor:
    """The tensor with its dimensions permuted by `perm` (reversed when None), indices
    reordered."""
    op = "tf.sparse.transpose"
    sp = require_sparse(sp_input, op)
    rank = _known_rank(sp, op)
    if perm is None:
        order = list(range(rank))[::-1]
    else:
        known = constant_value(perm) if isinstance(perm, Tensor) else perm
        if known is None:
            refuse(TypeError, "%s: perm must be known while tracing" % op)
        order = [int(p) for p in np.reshape(known, [-1])]
        if sorted(order) != list(range(rank)):
            refuse(ValueError, "%s: perm %s is not a permutation of the %d dimensions"
                               % (op, order, rank))
    moved = SparseTensor._make(_columns(sp.indices, order), sp.values,
                               _entries(sp.dense_shape, order))
    return reorder(moved)


def concat(axis: Any, sp_inputs: Any, expand_nonconcat_dims: bool = False,
           name: str | None = None) -> SparseTensor:
    """The SparseTensors of `sp_inputs` joined along `axis`; other dimensions must agree
    unless `expand_nonconcat_dims`, which grows each to the largest. Indices of the result
    are in row-major order."""
    op = "tf.sparse.concat"
    inputs = list(sp_inputs) if isinstance(sp_inputs, (list, tuple)) else None
    if not inputs:
        refuse(ValueError, "%s: sp_inputs must be a non-empty list of SparseTensors" % op)
    inputs = [require_sparse(sp, op, "sp_inputs[%d]" % k) for k, sp in enumerate(inputs)]
    rank = _known_rank(inputs[0], op)
    for k, sp in enumerate(inputs):
        if sp.rank is not None and sp.rank != rank:
            refuse(ValueError, "%s: all inputs must have the same rank, but sp_inputs[0] has "
                               "rank %d and sp_inputs[%d] has rank %d" % (op, rank, k, sp.rank))
        if sp.dtype is not inputs[0].dtype:
            refuse(TypeError, "%s: all inputs must have the same dtype, but sp_inputs[0] is "
                              "%s and sp_inputs[%d] is %s"
                              % (op, inputs[0].dtype.name, k, sp.dtype.name))
    axis = _axis(axis, rank, op)
    if len(inputs) == 1:
        return inputs[0]
    shapes = [sp._static_shape for sp in inputs]
    if not expand_nonconcat_dims:
        for k, dims in enumerate(shapes[1:], 1):
            for d in range(rank):
                pair = (shapes[0][d], dims[d])
                if d != axis and None not in pair and pair[0] != pair[1]:
                    refuse(ValueError, "%s: sp_inputs[%d] has dense shape %s, which differs "
                                       "from sp_inputs[0]'s %s in dimension %d (not the "
                                       "concatenation axis %d)" % (
                                           op, k, list(dims), list(shapes[0]), d, axis))
    indices, order, dense_shape = sparse_ops.sparse_concat(
        [sp.indices for sp in inputs], [sp.dense_shape for sp in inputs], axis,
        bool(expand_nonconcat_dims))
    values = concat_split_ops.concat([sp.values for sp in inputs], 0)
    if all(dims is not None and None not in dims for dims in shapes):
        joined = [max(dims[d] for dims in shapes) for d in range(rank)]
        joined[axis] = sum(dims[axis] for dims in shapes)
        dense_shape = convert_to_tensor(np.asarray(joined, np.int64))
    return _moved(inputs[0], indices, order, dense_shape, values)


def slice(sp_input: SparseTensor, start: Any, size: Any,  # noqa: A001
          name: str | None = None) -> SparseTensor:
    """The part of the tensor in the box from `start` spanning `size` (clipped to the dense
    shape), with indices relative to `start`."""
    sp = require_sparse(sp_input, "tf.sparse.slice")
    start_t = math_ops.cast(convert_to_tensor(start, dtype_hint=dtypes.int64), dtypes.int64)
    size_t = math_ops.cast(convert_to_tensor(size, dtype_hint=dtypes.int64), dtypes.int64)
    indices, kept, dense_shape = sparse_ops.sparse_slice(sp.indices, sp.dense_shape, start_t,
                                                         size_t)
    return _moved(sp, indices, kept, dense_shape)


def split(sp_input: SparseTensor | None = None, num_split: Any = None, axis: Any = None,
          name: str | None = None) -> list[SparseTensor]:
    """`num_split` SparseTensors cut from `sp_input` along `axis`: the first
    `size % num_split` pieces are one longer than the others."""
    op = "tf.sparse.split"
    for what, given in (("sp_input", sp_input), ("num_split", num_split), ("axis", axis)):
        if given is None:
            refuse(ValueError, "%s is required" % what)
    sp = require_sparse(sp_input, op)
    rank = _known_rank(sp, op)
    count = _static_int(num_split, op, "num_split")
    if count < 1:
        refuse(ValueError, "%s: num_split must be at least 1, got %d" % (op, count))
    axis = _axis(axis, rank, op)
    along = np.zeros(rank, np.int64)
    along[axis] = 1
    size = sp.dense_shape[axis]
    base, extra = math_ops.floordiv(size, count), math_ops.floormod(size, count)
    pieces = []
    for i in range(count):
        longer = math_ops.minimum(math_ops.maximum(math_ops.subtract(extra, i), 0), 1)
        length = math_ops.add(base, longer)
        begin = math_ops.add(math_ops.multiply(base, i), math_ops.minimum(extra, i))
        start = math_ops.multiply(along, begin)
        box = math_ops.add(math_ops.multiply(sp.dense_shape, 1 - along),
                           math_ops.multiply(along, length))
        pieces.append(slice(sp, start, box))
    return pieces


def retain(sp_input: SparseTensor, to_retain: Any) -> SparseTensor:
    """The tensor keeping only the stored values where the boolean vector `to_retain` (one
    entry per stored value) is True."""
    op = "tf.sparse.retain"
    sp = require_sparse(sp_input, op)
    keep = convert_to_tensor(to_retain)
    if keep.dtype is not dtypes.bool_:
        refuse(TypeError, "%s: to_retain must be bool, got %s" % (op, keep.dtype.name))
    shape, stored = keep._shape_tuple(), sp.values._shape_tuple()
    if shape is not None and len(shape) != 1:
        refuse(ValueError, "%s: to_retain must be a vector, got shape %s" % (op, list(shape)))
    given = None if shape is None else shape[0]
    count = None if stored is None else stored[0]
    if given is not None and count is not None and given != count:
        refuse(ValueError, "%s: to_retain has %d entries but the SparseTensor stores %d "
                           "values" % (op, given, count))
    kept = reshape_ops.reshape(selection_ops.where(keep), [-1])
    return _moved(sp, selection_ops.gather(sp.indices, kept), kept, sp.dense_shape)


def reset_shape(sp_input: SparseTensor, new_shape: Any = None) -> SparseTensor:
    """The same stored values with dense shape `new_shape` (same rank, no dimension
    smaller), or when None the tightest shape holding them (each largest index + 1)."""
    op = "tf.sparse.reset_shape"
    sp = require_sparse(sp_input, op)
    if new_shape is None:
        width = array_ops.shape(sp.indices, out_type=dtypes.int64)[1]
        below = array_ops.fill(_pair(1, width), np.int64(-1))  # 0 when nothing is stored
        tight = reduction_ops.reduce_max(concat_split_ops.concat([sp.indices, below], 0), 0)
        return SparseTensor._make(sp.indices, sp.values, math_ops.add(tight, 1))
    shape = math_ops.cast(convert_to_tensor(new_shape, dtype_hint=dtypes.int64), dtypes.int64)
    wanted, old = constant_value(shape), sp._static_shape
    if wanted is None or old is None or None in old:  # checked when it runs
        check_ops.assert_less_equal(sp.dense_shape, shape, message="%s: new_shape must not "
                                    "be smaller than the dense shape in any dimension" % op)
    if wanted is not None and old is not None:
        wanted = [int(d) for d in np.reshape(wanted, [-1])]
        if len(wanted) != len(old):
            refuse(ValueError, "%s: new_shape %s has rank %d but the SparseTensor has rank %d"
                               % (op, wanted, len(wanted), len(old)))
        small = [d for d in range(len(old)) if old[d] is not None and wanted[d] < old[d]]
        if small:
            refuse(ValueError, "%s: new_shape %s is smaller than the dense shape %s in "
                               "dimension %d" % (op, wanted, list(old), small[0]))
    return SparseTensor._make(sp.indices, sp.values, shape)


def fill_empty_rows(sp_input: SparseTensor, default_value: Any,
                    name: str | None = None) -> tuple[SparseTensor, Tensor]:
    """`(filled, empty_row_indicator)`: the tensor with `default_value` stored at `[r, 0,
    ...]` for each row r that stores nothing, and a bool vector marking those rows."""
    sp = require_sparse(sp_input, "tf.sparse.fill_empty_rows")
    default = convert_to_tensor(default_value, dtype=sp.dtype)
    indices, order, empty, added = sparse_ops.sparse_fill_empty_rows(sp.indices,
                                                                     sp.dense_shape)
    values = concat_split_ops.concat(
        [sp.values, array_ops.fill(reshape_ops.reshape(added, [1]), default)], 0)
    return _moved(sp, indices, order, sp.dense_shape, values), empty


def to_indicator(sp_input: SparseTensor, vocab_size: Any,
                 name: str | None = None) -> Tensor:
    """A dense bool tensor of shape `dense_shape[:-1] + [vocab_size]`: True at `[..., v]`
    for each stored id `v` of the row `[...]` (ids must be in [0, vocab_size))."""
    op = "tf.sparse.to_indicator"
    sp = require_sparse(sp_input, op)
    if not sp.dtype.is_integer:
        refuse(TypeError, "%s: the SparseTensor's values must be integer ids, got %s"
                          % (op, sp.dtype.name))
    rank = _known_rank(sp, op)
    if rank < 1:
        refuse(ValueError, "%s needs a SparseTensor of rank 1 or more" % op)
    leading = list(range(rank - 1))
    ids = reshape_ops.reshape(math_ops.cast(sp.values, dtypes.int64), [-1, 1])
    indices = concat_split_ops.concat([_columns(sp.indices, leading), ids], 1)
    size = math_ops.cast(convert_to_tensor(vocab_size, dtype_hint=dtypes.int64),
                         dtypes.int64)
    dense_shape = concat_split_ops.concat(
        [_entries(sp.dense_shape, leading), reshape_ops.reshape(size, [1])], 0)
    marks = array_ops.ones_like(sp.values, dtype=dtypes.bool_)
    return to_dense(SparseTensor._make(indices, marks, dense_shape), False,
                    validate_indices=False)


def cross(inputs: Any, name: str | None = None, separator: str | None = None) -> SparseTensor:
    """The feature crosses of each row of `inputs` (2-D SparseTensors and dense tensors of
    strings or integers, one row per example): a string SparseTensor holding, per row, every
    combination of one value from each input joined by `separator` ('_X_'), sparse inputs
    first, the last input varying fastest, as TensorFlow's."""
    op = "tf.sparse.cross"
    if not inputs:
        refuse(ValueError, "%s needs at least one input" % op)
    sparse, dense = [], []
    for item in inputs:
        if isinstance(item, SparseTensor):
            if _known_rank(item, op) != 2:
                refuse(ValueError, "%s: inputs must be 2-D (a row per example)" % op)
            sparse.append((item.indices, item.values, item.dense_shape))
        else:
            tensor = convert_to_tensor(item)
            if tensor.shape.rank != 2:
                refuse(ValueError, "%s: inputs must be 2-D (a row per example)" % op)
            dense.append(tensor)
    indices, values, dense_shape = sparse_ops.sparse_cross(
        sparse, dense, "_X_" if separator is None else separator)
    return SparseTensor._make(indices, values, dense_shape)
