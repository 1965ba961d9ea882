"""The ops behind SparseTensor (runtime.composite.sparse and the tf.sparse functions of
sparse_layout and sparse_math): densify, gather the stored values from a dense tensor, add
two sparse tensors, multiply by a dense matrix; and the index ops, which compute new
coordinates on the host (reorder, reshape, slice, concat, fill empty rows, union, reduction
groups, bincount) while the values follow through `gather`.

A sparse tensor's components are `indices` (int64, (nnz, rank)), `values` ((nnz,)) and
`dense_shape` (int64, (rank,)). Kernels check the indices against the dense shape (and, where
TensorFlow requires it, their row-major order) and raise naming the offending entry; the
registry adds the op's name and its operands' dtypes and shapes. Gradients flow to `values`
(rules declared beside the ops).
"""

import itertools

import numpy as np

from runtime import dtypes, lowering_api
from runtime.ops import (
    array_ops,
    attr_types,
    math_ops,
    reduction_ops,
    reshape_ops,
    selection_ops,
)
from runtime.ops.common import SpecError, convert_to_tensor
from runtime.ops.registry import (
    KERNEL_CALL,
    NO_GRADIENT,
    NOT_DIFFERENTIABLE,
    execute,
    execute1,
    register,
)

_SPARSE_ON_HOST = {"array": lowering_api.unsupported("sparse tensors run on the numpy executor")}

OPS = {}


def _require_int64(spec, what):
    if spec[0] is not dtypes.int64:
        raise SpecError("dtype", "%s must be int64, got %s" % (what, spec[0].name))


def _rank_of(specs):
    """The rank the index components agree on (None when unknown); checks their ranks."""
    (_, indices), (_, values), (_, dense_shape) = specs[:3]
    if indices is not None and len(indices) != 2:
        raise SpecError("shape", "indices must be a matrix (nnz, rank)")
    if values is not None and len(values) != 1:
        raise SpecError("shape", "values must be a vector (nnz,)")
    if dense_shape is not None and len(dense_shape) != 1:
        raise SpecError("shape", "dense_shape must be a vector (rank,)")
    rank = None if dense_shape is None else dense_shape[0]
    if indices is not None and None not in (rank, indices[1]) and indices[1] != rank:
        raise SpecError("shape", "indices have %s columns but dense_shape has %s entries"
                        % (indices[1], rank))
    return rank if rank is not None else (None if indices is None else indices[1])


def linear_positions(indices, dims):
    """Each index row's row-major position in a dense tensor of shape `dims`; raises
    ValueError naming the first row out of bounds."""
    indices = np.asarray(indices, dtype=np.int64)
    if indices.ndim != 2 or indices.shape[1] != len(dims):
        raise ValueError("indices of shape %s do not index a tensor of shape %s"
                         % (list(indices.shape), list(dims)))
    if not dims:
        return np.zeros(len(indices), np.int64)
    try:  # checks the bounds too; the message below names the first row out of them
        return np.ravel_multi_index(tuple(indices.T), dims)
    except ValueError:
        pass
    bad = np.nonzero(np.any((indices < 0) | (indices >= np.asarray(dims, np.int64)), axis=1))[0]
    k = int(bad[0])
    raise ValueError("indices[%d] = %s is out of bounds: need 0 <= index < %s"
                     % (k, indices[k].tolist(), list(dims)))


def check_order(indices, positions):
    """Raises ValueError naming the first index row out of row-major order or repeated."""
    steps = positions[1:] - positions[:-1]
    if steps.size and steps.min() <= 0:
        k = int(np.argmax(steps <= 0)) + 1
        raise ValueError("indices[%d] = %s is %s: indices must be in row-major order without "
                         "repeats" % (
                             k, indices[k].tolist(),
                             "repeated" if steps[k - 1] == 0 else "out of order"))


def _dims(dense_shape, static):
    dims = tuple(np.reshape(dense_shape, [-1]).tolist())
    if any(d < 0 for d in dims):
        raise ValueError("dense_shape %s has a negative entry" % list(dims))
    if static is not None and any(s is not None and s != d for s, d in zip(static, dims)):
        raise ValueError("dense_shape %s does not match the static shape %s"
                         % (list(dims), list(static)))
    return dims


# -- SparseToDense: the dense tensor --------------------------------------------------------


def _to_dense_kernel(indices, values, dense_shape, default_value, shape, validate, accumulate):
    dims = _dims(dense_shape, shape)
    if len(indices) != len(values):
        raise ValueError("%d index rows but %d values" % (len(indices), len(values)))
    positions = linear_positions(indices, dims)
    if validate:
        check_order(indices, positions)
    out = np.full(int(np.prod(dims, dtype=np.int64)), default_value, dtype=values.dtype)
    if accumulate:
        np.add.at(out, positions, values)
    else:
        out[positions] = values
    return out.reshape(dims)


def _to_dense_infer(specs, attrs):
    _require_int64(specs[0], "indices")
    _require_int64(specs[2], "dense_shape")
    if specs[3][0] is not specs[1][0]:
        raise SpecError("dtype", "default_value is %s but values are %s"
                        % (specs[3][0].name, specs[1][0].name))
    if specs[3][1] not in ((), None):
        raise SpecError("shape", "default_value must be a scalar")
    rank = _rank_of(specs)
    shape = attrs["shape"]
    if shape is None and rank is not None:
        shape = (None,) * rank
    return [(specs[1][0], shape)]


def padding_grad(g, stored_grad):
    """The gradient of a scalar default value: the sum of `g` where nothing is stored."""
    return math_ops.subtract(reduction_ops.reduce_sum(g), reduction_ops.reduce_sum(stored_grad))


def _sparse_to_dense_grad(ctx, grads):
    g = grads[0]
    values = sparse_gather(g, ctx.input(0))
    default = padding_grad(g, values) if ctx.needed[3] else None
    return [None, values if ctx.needed[1] else None, None, default]


OPS["SparseToDense"] = register("SparseToDense", _to_dense_kernel, _to_dense_infer,
                                grad=_sparse_to_dense_grad, emit=KERNEL_CALL,
                                lowerings=_SPARSE_ON_HOST)


def sparse_to_dense(indices, values, dense_shape, default_value, shape, validate=True,
                    accumulate=False):
    """The dense tensor of static shape `shape` (None entries unknown) holding `values` at
    `indices` and `default_value` elsewhere; `accumulate` sums repeated indices."""
    default_value = convert_to_tensor(default_value, dtype=values.dtype)
    return execute1(OPS["SparseToDense"], [indices, values, dense_shape, default_value],
                    {"shape": shape, "validate": validate, "accumulate": accumulate})


# -- SparseGather: the values at given indices of a dense tensor ------------------------------


def _gather_kernel(dense, indices):
    dense = np.asarray(dense)
    positions = linear_positions(indices, dense.shape)
    return dense.reshape(-1)[positions]


def _gather_infer(specs, attrs):
    (dtype, dense), (index_dtype, indices) = specs
    if index_dtype is not dtypes.int64:
        raise SpecError("dtype", "indices must be int64, got %s" % index_dtype.name)
    if indices is not None and len(indices) != 2:
        raise SpecError("shape", "indices must be a matrix (nnz, rank)")
    if None not in (dense, indices) and indices[1] not in (None, len(dense)):
        raise SpecError("shape", "indices have %d columns for a rank-%d tensor"
                        % (indices[1], len(dense)))
    return [(dtype, (None if indices is None else indices[0],))]


def _sparse_gather_grad(ctx, grads):
    if not ctx.needed[0] or grads[0] is None:
        return [None, None]
    dense = ctx.input(0)
    shape = array_ops.shape(dense, out_type=dtypes.int64)
    return [sparse_to_dense(ctx.input(1), grads[0], shape, 0, ctx.input_shape(0),
                                   validate=False, accumulate=True), None]


OPS["SparseGather"] = register("SparseGather", _gather_kernel, _gather_infer,
                               grad=_sparse_gather_grad, emit=KERNEL_CALL,
                               lowerings=_SPARSE_ON_HOST)


def sparse_gather(dense, indices):
    """`dense`'s elements at the rows of `indices` (int64, (n, rank)), as a vector."""
    return execute1(OPS["SparseGather"], [convert_to_tensor(dense), indices])


# -- SparseAdd: the sum of two sparse tensors ------------------------------------------------


def _add_kernel(a_indices, a_values, a_shape, b_indices, b_values, b_shape, threshold):
    dims = _dims(a_shape, None)
    if dims != _dims(b_shape, None):
        raise ValueError("the operands' dense shapes differ: %s and %s"
                         % (list(dims), [int(d) for d in b_shape]))
    positions = np.concatenate([linear_positions(a_indices, dims),
                                linear_positions(b_indices, dims)])
    unique, inverse = np.unique(positions, return_inverse=True)
    values = np.zeros(len(unique), dtype=a_values.dtype)
    np.add.at(values, inverse.reshape(-1), np.concatenate([a_values, b_values]))
    if threshold:
        keep = np.abs(values) >= threshold
        unique, values = unique[keep], values[keep]
    indices = np.stack(np.unravel_index(unique, dims), axis=1) if dims else \
        np.zeros((len(unique), 0), np.int64)
    return indices.astype(np.int64), values


def _add_infer(specs, attrs):
    a, b = specs[:3], specs[3:]
    if a[1][0] is not b[1][0]:
        raise SpecError("dtype", "values are %s and %s" % (a[1][0].name, b[1][0].name))
    ranks = [_rank_of(a), _rank_of(b)]
    if None not in ranks and ranks[0] != ranks[1]:
        raise SpecError("shape", "ranks %d and %d differ" % tuple(ranks))
    rank = ranks[0] if ranks[0] is not None else ranks[1]
    return [(dtypes.int64, (None, rank)), (a[1][0], (None,))]


def _sparse_add_grad(ctx, grads):
    g = grads[1]
    if g is None:
        return [None] * 6
    dense = sparse_to_dense(ctx.output(0), g, ctx.input(2), 0, None, validate=False)
    return [None, sparse_gather(dense, ctx.input(0)) if ctx.needed[1] else None, None,
            None, sparse_gather(dense, ctx.input(3)) if ctx.needed[4] else None, None]


OPS["SparseAdd"] = register("SparseAdd", _add_kernel, _add_infer,
                            grad=_sparse_add_grad, emit=KERNEL_CALL,
                            lowerings=_SPARSE_ON_HOST)


def sparse_add(a_components, b_components, threshold=0):
    """(indices, values) of the sum of two sparse tensors given as their components; sums
    with magnitude below `threshold` are dropped."""
    return execute(OPS["SparseAdd"], list(a_components) + list(b_components),
                   {"threshold": threshold})


# -- SparseTensorDenseMatMul ---------------------------------------------------------------


def _matmul_kernel(indices, values, dense_shape, b, adjoint_a, adjoint_b, rows):
    dims = _dims(dense_shape, None)
    if len(dims) != 2:
        raise ValueError("the sparse operand must be a matrix, got dense shape %s"
                         % list(dims))
    linear_positions(indices, dims)
    rows, cols = indices[:, 0], indices[:, 1]
    if adjoint_a:
        rows, cols = cols, rows
        dims = dims[::-1]
    b = np.asarray(b)
    if adjoint_b:
        b = b.T
    if b.shape[0] != dims[1]:
        raise ValueError("cannot multiply a %s sparse matrix by a %s matrix%s" % (
            list(dims), list(b.shape), " (both after adjoints)" if adjoint_a or adjoint_b
            else ""))
    out = np.zeros((dims[0], b.shape[1]), dtype=np.result_type(values, b))
    np.add.at(out, rows, values[:, None] * b[cols])
    return out


def _matmul_infer(specs, attrs):
    if specs[1][0] is not specs[3][0]:
        raise SpecError("dtype", "values are %s but the dense matrix is %s"
                        % (specs[1][0].name, specs[3][0].name))
    rank = _rank_of(specs)
    if rank not in (None, 2):
        raise SpecError("shape", "the sparse operand must be a matrix")
    b = specs[3][1]
    if b is not None and len(b) != 2:
        raise SpecError("shape", "the dense operand must be a matrix")
    columns = None if b is None else b[0 if attrs["adjoint_b"] else 1]
    return [(specs[1][0], (attrs["rows"], columns))]


def _sparse_matmul_grad(ctx, grads):
    g = grads[0]
    indices, values, dense_shape, b = (ctx.input(i) for i in range(4))
    adjoint_a, adjoint_b = ctx.attrs["adjoint_a"], ctx.attrs["adjoint_b"]
    values_grad = b_grad = None
    if ctx.needed[1]:
        columns = 1 - int(adjoint_a)  # which index column picks rows of b
        rows = selection_ops.gather(g, indices[:, 1 - columns])
        picked = selection_ops.gather(reshape_ops.transpose(b) if adjoint_b else b,
                                      indices[:, columns])
        values_grad = reduction_ops.reduce_sum(math_ops.multiply(rows, picked), axis=1)
    if ctx.needed[3]:
        inner = ctx.input_shape(3)
        inner = None if inner is None else inner[1 if adjoint_b else 0]
        b_grad = sparse_dense_matmul(indices, values, dense_shape, g, inner,
                                            adjoint_a=not adjoint_a)
        if adjoint_b:
            b_grad = reshape_ops.transpose(b_grad)
    return [None, values_grad, None, b_grad]


OPS["SparseTensorDenseMatMul"] = register(
    "SparseTensorDenseMatMul", _matmul_kernel, _matmul_infer,
    grad=_sparse_matmul_grad, emit=KERNEL_CALL,
    lowerings=_SPARSE_ON_HOST)


def sparse_dense_matmul(indices, values, dense_shape, b, rows, adjoint_a=False,
                        adjoint_b=False):
    """The matrix product of a sparse matrix (its components) and dense matrix `b`; `rows`
    is the result's static number of rows (or None)."""
    return execute1(OPS["SparseTensorDenseMatMul"], [indices, values, dense_shape, b],
                    {"adjoint_a": adjoint_a, "adjoint_b": adjoint_b, "rows": rows})


# -- index bookkeeping: new coordinates computed on the host, values moved by `gather` -------
#
# The ops below read and write coordinates only: each returns new indices (and where the
# stored values move, the positions to gather them from), so that the values reach their new
# places through `gather`, whose gradient carries them back. They are not differentiable
# themselves: integer coordinates have no gradient.


def _positions_infer_rank(specs):
    if specs[0][0] is not dtypes.int64:
        raise SpecError("dtype", "indices must be int64, got %s" % specs[0][0].name)
    indices = specs[0][1]
    if indices is not None and len(indices) != 2:
        raise SpecError("shape", "indices must be a matrix (nnz, rank)")
    return None if indices is None else indices[1]


def _reorder_kernel(indices, dense_shape):
    positions = linear_positions(indices, _dims(dense_shape, None))
    return np.argsort(positions, kind="stable").astype(np.int64)


def _reorder_infer(specs, attrs):
    _positions_infer_rank(specs)
    rows = specs[0][1]
    return [(dtypes.int64, (None if rows is None else rows[0],))]


OPS["SparseReorder"] = register("SparseReorder", _reorder_kernel, _reorder_infer,
                                grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                                lowerings=_SPARSE_ON_HOST)


def reorder_permutation(indices, dense_shape):
    """The permutation that sorts the rows of `indices` into row-major order (stable)."""
    return execute1(OPS["SparseReorder"], [indices, dense_shape])


def _resolve_new_shape(dims, new_shape):
    """`new_shape` with its one -1 entry inferred so that it holds prod(dims) elements."""
    new_shape = [int(d) for d in np.reshape(new_shape, [-1])]
    wild = [i for i, d in enumerate(new_shape) if d == -1]
    if len(wild) > 1:
        raise ValueError("only one output dimension may be -1, not both %d and %d"
                         % tuple(wild[:2]))
    bad = [d for d in new_shape if d < -1]
    if bad:
        raise ValueError("the new shape %s has a negative entry %d" % (new_shape, bad[0]))
    total = int(np.prod(dims, dtype=np.int64))
    known = int(np.prod([d for d in new_shape if d != -1], dtype=np.int64))
    if wild:
        if known == 0 or total % known:
            raise ValueError("Input to reshape is a SparseTensor with %d dense values, but "
                             "the requested shape requires a multiple of %d"
                             % (total, known))
        new_shape[wild[0]] = total // known
    elif known != total:
        raise ValueError("Input to reshape is a tensor with %d dense values, but the "
                         "requested shape has %d" % (total, known))
    return new_shape


def _reshape_kernel(indices, dense_shape, new_shape):
    dims = _dims(dense_shape, None)
    positions = linear_positions(indices, dims)
    out = _resolve_new_shape(dims, new_shape)
    if out:
        new_indices = np.stack(np.unravel_index(positions, out), axis=1)
    else:
        new_indices = np.zeros((len(positions), 0))
    return new_indices.astype(np.int64), np.asarray(out, np.int64)


def _reshape_infer(specs, attrs):
    _positions_infer_rank(specs)
    new_shape = specs[2][1]
    if new_shape is not None and len(new_shape) != 1:
        raise SpecError("shape", "the new shape must be a vector")
    rank = None if new_shape is None else new_shape[0]
    rows = specs[0][1]
    return [(dtypes.int64, (None if rows is None else rows[0], rank)),
            (dtypes.int64, (rank,))]


OPS["SparseReshape"] = register("SparseReshape", _reshape_kernel, _reshape_infer,
                                grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                                lowerings=_SPARSE_ON_HOST)


def sparse_reshape(indices, dense_shape, new_shape):
    """(indices, dense_shape) of the same values laid out in `new_shape` (one -1 entry is
    inferred)."""
    return execute(OPS["SparseReshape"], [indices, dense_shape, new_shape])


def _slice_kernel(indices, dense_shape, start, size):
    dims = _dims(dense_shape, None)
    start = np.reshape(start, [-1]).astype(np.int64)
    size = np.reshape(size, [-1]).astype(np.int64)
    if len(start) != len(dims) or len(size) != len(dims):
        raise ValueError("start and size must have one entry per dimension (%d), got %d and "
                         "%d" % (len(dims), len(start), len(size)))
    if (start < 0).any() or (size < 0).any():
        raise ValueError("start %s and size %s must not be negative"
                         % (start.tolist(), size.tolist()))
    linear_positions(indices, dims)
    limit = np.minimum(start + size, np.asarray(dims, np.int64))
    out_shape = np.maximum(limit - start, 0)
    inside = np.all((indices >= start) & (indices < limit), axis=1)
    kept = np.nonzero(inside)[0].astype(np.int64)
    return (indices[kept] - start).astype(np.int64), kept, out_shape.astype(np.int64)


def _slice_infer(specs, attrs):
    rank = _positions_infer_rank(specs)
    return [(dtypes.int64, (None, rank)), (dtypes.int64, (None,)), (dtypes.int64, (rank,))]


OPS["SparseSlice"] = register("SparseSlice", _slice_kernel, _slice_infer,
                              grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                              lowerings=_SPARSE_ON_HOST)


def sparse_slice(indices, dense_shape, start, size):
    """(indices, kept, dense_shape) of the part of a sparse tensor in the box `start`,
    `start + size` (clipped to the dense shape): `kept` are the positions of its stored
    values."""
    return execute(OPS["SparseSlice"], [indices, dense_shape, start, size])


def _concat_kernel(*components, axis, expand_nonconcat_dims):
    half = len(components) // 2
    all_indices, shapes = components[:half], [_dims(s, None) for s in components[half:]]
    rank = len(shapes[0])
    for k, dims in enumerate(shapes):
        if len(dims) != rank:
            raise ValueError("all inputs must have the same rank: input 0 has rank %d, input "
                             "%d has rank %d" % (rank, k, len(dims)))
    out = [max(d[i] for d in shapes) for i in range(rank)]
    for k, dims in enumerate(shapes):
        for i in range(rank):
            if i != axis and dims[i] != out[i] and not expand_nonconcat_dims:
                raise ValueError(
                    "input %d has shape %s, which differs from input 0's shape %s in "
                    "dimension %d, which is not the concatenation axis %d"
                    % (k, list(dims), list(shapes[0]), i, axis))
    offsets = np.cumsum([0] + [d[axis] for d in shapes])
    out[axis] = int(offsets[-1])
    moved = []
    for indices, dims, offset in zip(all_indices, shapes, offsets):
        linear_positions(indices, dims)
        shifted = np.array(indices, dtype=np.int64, copy=True)
        shifted[:, axis] += offset
        moved.append(shifted)
    joined = np.concatenate(moved) if moved else np.zeros((0, rank), np.int64)
    order = np.argsort(linear_positions(joined, out), kind="stable").astype(np.int64)
    return joined[order], order, np.asarray(out, np.int64)


def _concat_infer(specs, attrs):
    half = len(specs) // 2
    ranks = {_positions_infer_rank([s]) for s in specs[:half]} - {None}
    rank = ranks.pop() if len(ranks) == 1 else None
    return [(dtypes.int64, (None, rank)), (dtypes.int64, (None,)), (dtypes.int64, (rank,))]


OPS["SparseConcat"] = register("SparseConcat", _concat_kernel, _concat_infer,
                               grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                               lowerings=_SPARSE_ON_HOST)


def sparse_concat(all_indices, dense_shapes, axis, expand_nonconcat_dims):
    """(indices, order, dense_shape) of the concatenation along `axis` (non-negative) of
    sparse tensors: `order` picks, from their values concatenated, the values in row-major
    order."""
    return execute(OPS["SparseConcat"], list(all_indices) + list(dense_shapes),
                   {"axis": axis, "expand_nonconcat_dims": expand_nonconcat_dims})


def _fill_empty_rows_kernel(indices, dense_shape):
    dims = _dims(dense_shape, None)
    if not dims:
        raise ValueError("fill_empty_rows needs a SparseTensor of rank 1 or more")
    linear_positions(indices, dims)
    empty = np.ones(dims[0], dtype=bool)
    empty[indices[:, 0]] = False
    rows = np.nonzero(empty)[0]
    added = np.zeros((len(rows), len(dims)), np.int64)
    added[:, 0] = rows
    joined = np.concatenate([np.asarray(indices, np.int64), added])
    order = np.argsort(joined[:, 0], kind="stable").astype(np.int64)
    return joined[order], order, empty, np.int64(len(rows))


def _fill_empty_rows_infer(specs, attrs):
    rank = _positions_infer_rank(specs)
    return [(dtypes.int64, (None, rank)), (dtypes.int64, (None,)), (dtypes.bool_, (None,)),
            (dtypes.int64, ())]


OPS["SparseFillEmptyRows"] = register("SparseFillEmptyRows", _fill_empty_rows_kernel,
                                      _fill_empty_rows_infer, grad=NOT_DIFFERENTIABLE,
                                      emit=KERNEL_CALL, lowerings=_SPARSE_ON_HOST)


def sparse_fill_empty_rows(indices, dense_shape):
    """(indices, order, empty_row_indicator, added): the indices with one entry `[r, 0,
    ...]` added per empty row r, sorted by row; `order` picks from the values followed by
    `added` defaults."""
    return execute(OPS["SparseFillEmptyRows"], [indices, dense_shape])


def _union_kernel(a_indices, a_shape, b_indices, b_shape):
    dims = _dims(a_shape, None)
    if dims != _dims(b_shape, None):
        raise ValueError("the operands' dense shapes differ: %s and %s"
                         % (list(dims), [int(d) for d in b_shape]))
    a_positions = linear_positions(a_indices, dims)
    b_positions = linear_positions(b_indices, dims)
    check_order(a_indices, a_positions)
    check_order(b_indices, b_positions)
    union = np.union1d(a_positions, b_positions)

    def where_in(positions):
        at = np.searchsorted(positions, union)
        found = (at < len(positions)) & (positions[np.minimum(at, len(positions) - 1)] == union) \
            if len(positions) else np.zeros(len(union), bool)
        return np.where(found, at, -1).astype(np.int64)

    if dims:
        indices = np.stack(np.unravel_index(union, dims), axis=1)
    else:
        indices = np.zeros((len(union), 0), np.int64)
    return indices.astype(np.int64), where_in(a_positions), where_in(b_positions)


def _union_infer(specs, attrs):
    rank = _positions_infer_rank(specs)
    return [(dtypes.int64, (None, rank)), (dtypes.int64, (None,)), (dtypes.int64, (None,))]


OPS["SparseIndexUnion"] = register("SparseIndexUnion", _union_kernel, _union_infer,
                                   grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                                   lowerings=_SPARSE_ON_HOST)


def sparse_index_union(a_indices, a_shape, b_indices, b_shape):
    """(indices, a_at, b_at): the union of two ordered index sets, and where each of its
    rows is in either operand (-1 where absent)."""
    return execute(OPS["SparseIndexUnion"], [a_indices, a_shape, b_indices, b_shape])


def _reduce_groups_kernel(indices, dense_shape, axes, keepdims):
    dims = _dims(dense_shape, None)
    linear_positions(indices, dims)
    kept_axes = [i for i in range(len(dims)) if i not in axes]
    if keepdims:
        out_dims = [1 if i in axes else d for i, d in enumerate(dims)]
        out_indices = np.array(indices, dtype=np.int64, copy=True)
        out_indices[:, list(axes)] = 0
    else:
        out_dims = [dims[i] for i in kept_axes]
        out_indices = np.asarray(indices, np.int64)[:, kept_axes]
    if out_dims:
        keys = np.ravel_multi_index(tuple(out_indices.T), out_dims)
    else:
        keys = np.zeros(len(indices), np.int64)
    unique, group = np.unique(keys, return_inverse=True)
    if out_dims:
        groups = np.stack(np.unravel_index(unique, out_dims), axis=1)
    else:
        groups = np.zeros((len(unique), 0), np.int64)
    return (groups.astype(np.int64), group.reshape(-1).astype(np.int64),
            np.asarray(out_dims, np.int64))


def _reduce_groups_infer(specs, attrs):
    rank = _positions_infer_rank(specs)
    out_rank = None
    if rank is not None:
        out_rank = rank if attrs["keepdims"] else rank - len(attrs["axes"])
    return [(dtypes.int64, (None, out_rank)), (dtypes.int64, (None,)),
            (dtypes.int64, (out_rank,))]


OPS["SparseReduceGroups"] = register("SparseReduceGroups", _reduce_groups_kernel,
                                     _reduce_groups_infer, grad=NOT_DIFFERENTIABLE,
                                     emit=KERNEL_CALL, lowerings=_SPARSE_ON_HOST)


def sparse_reduce_groups(indices, dense_shape, axes, keepdims):
    """(group_indices, group, dense_shape) of reducing over `axes` (non-negative, sorted):
    the coordinates of each group that holds a value, in row-major order, and the group of
    each stored value."""
    return execute(OPS["SparseReduceGroups"], [indices, dense_shape],
                   {"axes": tuple(axes), "keepdims": keepdims})


def _segment_max_kernel(values, group, count):
    out = np.full(int(count), -np.inf if values.dtype.kind == "f" else
                  np.iinfo(values.dtype).min if values.dtype.kind in "iu" else 0,
                  dtype=values.dtype)
    np.maximum.at(out, group, values)
    return out


def _segment_max_infer(specs, attrs):
    return [(specs[0][0], (None,))]


OPS["SparseSegmentMax"] = register("SparseSegmentMax", _segment_max_kernel,
                                   _segment_max_infer, grad=NO_GRADIENT, emit=KERNEL_CALL,
                                   lowerings=_SPARSE_ON_HOST)


def sparse_segment_max(values, group, count):
    """The maximum of the values of each of `count` groups (every group holds a value)."""
    return execute1(OPS["SparseSegmentMax"], [values, group, count])


def _same_indices_kernel(*all_indices):
    first = np.asarray(all_indices[0])
    for k, other in enumerate(all_indices[1:], 1):
        if np.shape(other) != first.shape or not np.array_equal(first, other):
            raise ValueError("SparseTensors passed to map_values must have the same indices: "
                             "operand %d differs from operand 0" % k)
    return first


def _same_indices_infer(specs, attrs):
    _positions_infer_rank(specs)
    return [specs[0]]


OPS["SparseSameIndices"] = register("SparseSameIndices", _same_indices_kernel,
                                    _same_indices_infer, grad=NOT_DIFFERENTIABLE,
                                    emit=KERNEL_CALL, lowerings=_SPARSE_ON_HOST)


def same_indices(all_indices):
    """The first of `all_indices`, checked (at run time) to equal the others."""
    return execute1(OPS["SparseSameIndices"], list(all_indices))


def _bincount_kernel(values, weights, rows, nrows, minlength, maxlength, axis,
                     binary_output):
    values = np.asarray(values)
    if values.size and values.min() < 0:
        raise ValueError("bincount: values must be non-negative, got %d" % values.min())
    if weights.size and weights.shape != values.shape:
        raise ValueError("bincount: weights of shape %s do not match values of shape %s"
                         % (list(weights.shape), list(values.shape)))
    size = int(values.max()) + 1 if values.size else 0
    if minlength >= 0:
        size = max(size, minlength)
    if maxlength >= 0:
        size = min(size, maxlength)
    ids = values.reshape(-1)
    weights = None if weights.size == 0 else weights.reshape(-1)
    if axis == 0:
        rows, nrows = np.zeros(ids.size, np.int64), 1
    elif rows.size or values.ndim == 1:  # a SparseTensor's values: the row of each given
        nrows = int(nrows)
    else:
        rows, nrows = np.repeat(np.arange(values.shape[0]), values.shape[1]), values.shape[0]
    inside = ids < size
    rows, ids = rows[inside], ids[inside]
    keys = rows * size + ids
    unique, inverse = np.unique(keys, return_inverse=True)
    dtype = values.dtype if weights is None else weights.dtype
    counts = np.zeros(len(unique), dtype=dtype)
    if binary_output:
        counts[:] = 1
    else:
        np.add.at(counts, inverse.reshape(-1), 1 if weights is None else weights[inside])
    if axis == 0:
        indices = (unique % max(size, 1))[:, None]
        shape = [size]
    else:
        indices = np.stack([unique // max(size, 1), unique % max(size, 1)], axis=1)
        shape = [nrows, size]
    return indices.astype(np.int64), counts, np.asarray(shape, np.int64)


def _bincount_infer(specs, attrs):
    if not specs[0][0].is_integer:
        raise SpecError("dtype", "values must be integers, got %s" % specs[0][0].name)
    rank = 1 if attrs["axis"] == 0 else 2
    dtype = specs[0][0] if specs[1][1] == (0,) else specs[1][0]
    return [(dtypes.int64, (None, rank)), (dtype, (None,)), (dtypes.int64, (rank,))]


OPS["SparseBincount"] = register("SparseBincount", _bincount_kernel, _bincount_infer,
                                 grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                                 lowerings=_SPARSE_ON_HOST)


def sparse_bincount(values, weights, minlength, maxlength, axis, binary_output, rows=None,
                    nrows=0):
    """(indices, counts, dense_shape) of the (weighted) count of each value: one vector
    (`axis=0`) or one row per row (`axis=-1`) of a matrix, or of a SparseTensor whose
    values' rows are `rows` (int64, one per value) among `nrows`; `weights` empty for plain
    counts."""
    if rows is None:
        rows = np.zeros(0, np.int64)
    return execute(OPS["SparseBincount"],
                   [values, weights, convert_to_tensor(rows, dtype=dtypes.int64),
                    convert_to_tensor(nrows, dtype=dtypes.int64)],
                   {"minlength": minlength, "maxlength": maxlength, "axis": axis,
                    "binary_output": binary_output})


def _expand_dims_kernel(indices, dense_shape, axis):
    rank = len(dense_shape)
    if not -rank - 1 <= axis <= rank:
        raise ValueError("axis %d is out of range for a SparseTensor of rank %d (expected "
                         "%d <= axis <= %d)" % (axis, rank, -rank - 1, rank))
    at = axis + rank + 1 if axis < 0 else axis
    indices = np.reshape(np.asarray(indices, np.int64), (-1, rank))
    new_indices = np.insert(indices, at, 0, axis=1)
    return new_indices.astype(np.int64), np.insert(np.asarray(dense_shape, np.int64), at, 1)


def _expand_dims_infer(specs, attrs):
    rank = _positions_infer_rank(specs)
    rank = None if rank is None else rank + 1
    rows = specs[0][1]
    return [(dtypes.int64, (None if rows is None else rows[0], rank)),
            (dtypes.int64, (rank,))]


OPS["SparseExpandDims"] = register("SparseExpandDims", _expand_dims_kernel,
                                   _expand_dims_infer, grad=NOT_DIFFERENTIABLE,
                                   emit=KERNEL_CALL, lowerings=_SPARSE_ON_HOST)


def sparse_expand_dims(indices, dense_shape, axis):
    """(indices, dense_shape) with a dimension of size 1 inserted at `axis`, for a rank
    known only at run time."""
    return execute(OPS["SparseExpandDims"], [indices, dense_shape], {"axis": axis})


# -- SparseCross: the feature crosses of rows -------------------------------------------------


def _cross_text(value):
    return value if isinstance(value, bytes) else str(int(value)).encode()


def _cross_kernel(*inputs, num_sparse, separator):
    sparse = [inputs[3 * k:3 * k + 3] for k in range(num_sparse)]
    dense = inputs[3 * num_sparse:]
    batch = int(sparse[0][2][0]) if sparse else np.shape(dense[0])[0]
    columns: list[list[list[bytes]]] = []  # per input: the list of its values in each row
    for indices, values, dense_shape in sparse:
        if int(dense_shape[0]) != batch:
            raise ValueError("sparse.cross: inputs have %d and %d rows"
                             % (batch, int(dense_shape[0])))
        rows: list[list[bytes]] = [[] for _ in range(batch)]
        for (r, *_), v in zip(np.asarray(indices), values):
            rows[int(r)].append(_cross_text(v))
        columns.append(rows)
    for d in dense:
        if np.shape(d)[0] != batch:
            raise ValueError("sparse.cross: inputs have %d and %d rows" % (batch, np.shape(d)[0]))
        columns.append([[_cross_text(v) for v in np.reshape(d[r], [-1])] for r in range(batch)])
    indices, values, widest = [], [], 0
    for r in range(batch):
        crosses = [separator.encode().join(parts)
                   for parts in itertools.product(*(column[r] for column in columns))]
        indices.extend([r, k] for k in range(len(crosses)))
        values.extend(crosses)
        widest = max(widest, len(crosses))
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return (np.asarray(indices, np.int64).reshape(-1, 2), out,
            np.asarray([batch, widest], np.int64))


def _cross_infer(specs, attrs):
    for dtype, _ in specs:
        if dtype not in (dtypes.string, dtypes.int64, dtypes.int32):
            raise SpecError("dtype", "sparse.cross: inputs must be string or integer, got %s"
                            % dtype.name)
    return [(dtypes.int64, (None, 2)), (dtypes.string, (None,)), (dtypes.int64, (2,))]


OPS["SparseCross"] = register("SparseCross", _cross_kernel, _cross_infer,
                              grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                              traits=("host_only", "may_raise"),
                              attr_types={"num_sparse": attr_types.INT,
                                          "separator": attr_types.STR})


def sparse_cross(sparse_components, dense_inputs, separator="_X_"):
    """(indices, values, dense_shape) of the string crosses of each row: every combination
    of one value per input, sparse inputs first (as TensorFlow orders them), joined by
    `separator`."""
    flat = [t for components in sparse_components for t in components]
    return execute(OPS["SparseCross"], flat + list(dense_inputs),
                   {"num_sparse": len(sparse_components), "separator": separator})
