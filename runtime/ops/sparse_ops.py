"""The ops behind SparseTensor (runtime.composite.sparse): densify, gather the stored values
from a dense tensor, add two sparse tensors, multiply by a dense matrix.

A sparse tensor's components are `indices` (int64, (nnz, rank)), `values` ((nnz,)) and
`dense_shape` (int64, (rank,)). Kernels check the indices against the dense shape (and, where
TensorFlow requires it, their row-major order) and raise naming the offending entry; the
registry adds the op's name and its operands' dtypes and shapes. Gradients flow to `values`
(rules declared beside the ops).
"""

import numpy as np

from runtime import dtypes, lowering_api
from runtime.ops import (
    array_ops,
    manipulation_ops,
    math_ops,
    reduction_ops,
    selection_ops,
)
from runtime.ops.common import SpecError, convert_to_tensor
from runtime.ops.registry import KERNEL_CALL, execute, execute1, register

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
        raise SpecError("shape", "indices have %d columns but dense_shape has %d entries"
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
        picked = selection_ops.gather(manipulation_ops.transpose(b) if adjoint_b else b,
                                      indices[:, columns])
        values_grad = reduction_ops.reduce_sum(math_ops.multiply(rows, picked), axis=1)
    if ctx.needed[3]:
        inner = ctx.input_shape(3)
        inner = None if inner is None else inner[1 if adjoint_b else 0]
        b_grad = sparse_dense_matmul(indices, values, dense_shape, g, inner,
                                            adjoint_a=not adjoint_a)
        if adjoint_b:
            b_grad = manipulation_ops.transpose(b_grad)
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
