"""N-d indexing ops: gather_nd, scatter_nd, tensor_scatter_nd_update/add/sub/min/max, and
boolean_mask
(a composite of Where and Gather, as in TensorFlow).

An `indices` tensor of shape [..., k] addresses slices of a tensor by its first k dimensions;
an index out of range is an error (InvalidArgumentError), never a wrapped or clipped value.
"""

import numpy as np

from runtime import dtypes, lowering_api
from runtime import shape as shape_lib
from runtime.ops import (
    array_ops,
    common,
    concat_split_ops,
    math_ops,
    numba_nd_indexing,
    reshape_ops,
    selection_ops,
)
from runtime.ops.common import ANY, NUMERIC, SpecError, convert_to_tensor, require_kind
from runtime.ops.composite_dispatch import dispatchable
from runtime.ops.registry import KERNEL_CALL, execute1, register

_NOT_LOWERED = {"array": lowering_api.unsupported("not lowered yet")}

OPS = {}


def _index_depth(indices_shape, target_shape):
    """k, the last dimension of indices, checked against the addressed tensor's rank."""
    if indices_shape is None or not indices_shape:
        if indices_shape == ():
            raise SpecError("shape", "indices must have rank >= 1")
        return None
    depth = indices_shape[-1]
    if depth is not None and target_shape is not None and depth > len(target_shape):
        raise SpecError("shape", "indices address %d dimensions of a tensor of rank %d"
                        % (depth, len(target_shape)))
    return depth


def _require_indices(dtype):
    require_kind(dtype, {"int"}, "indices")


def _address(indices, shape):
    """The numpy index tuple for `indices` [..., k] into a tensor of `shape`, bounds-checked."""
    indices = np.asarray(indices)
    depth = indices.shape[-1]
    bounds = np.asarray(shape[:depth])
    bad = (indices < 0) | (indices >= bounds)
    if bad.any():
        position = tuple(int(i) for i in np.argwhere(bad.any(axis=-1))[0])
        raise IndexError("indices%s = %s does not index into shape %s"
                         % (list(position), indices[position].tolist(), list(shape)))
    return tuple(np.moveaxis(indices, -1, 0))


# -- gather_nd ------------------------------------------------------------------------------


def _gather_nd_infer(specs, attrs):
    (dtype, params), (index_dtype, indices) = specs
    _require_indices(index_dtype)
    depth = _index_depth(indices, params)
    if indices is None or params is None or depth is None:
        return [(dtype, None)]
    return [(dtype, indices[:-1] + params[depth:])]


def _gather_nd_kernel(params, indices):
    indices = np.asarray(indices)
    if indices.shape[-1] == 0:  # each index row names all of params (a copy per row)
        return np.array(np.broadcast_to(params, indices.shape[:-1] + params.shape))
    return params[_address(indices, params.shape)]


def _gather_nd_grad(ctx, grads):
    shape = array_ops.shape(ctx.input(0), out_type=ctx.input_dtype(1))
    return [execute1(OPS["ScatterNd"], [ctx.input(1), grads[0], shape],
                     {"static_shape": ctx.input_shape(0)}), None]


def _gather_nd_lowering(lowerer, node, ins, outs):
    params, indices = ins
    if params.shape is None or indices.shape is None or indices.shape[-1] is None \
            or None in params.shape[:indices.shape[-1]]:
        raise lowering_api.Unsupported("indices into dimensions of unknown size")
    if indices.shape[-1] == 0:  # each index row names all of params
        shape = tuple(indices.shape[:-1]) + tuple(params.shape)
        if None in shape:
            raise lowering_api.Unsupported("indices of depth 0 and a shape known only at run time")
        lowerer.assign(outs[0], "xp.broadcast_to(%s, %s)" % (params, lowerer.literal(shape)))
        return
    bounds = lowerer.literal(tuple(params.shape[:indices.shape[-1]]))
    # the kernel's error, raised on the executor: JAX's rule records the check as a flag
    lowerer.check("xp.any((%s < 0) | (%s >= xp.asarray(%s)))" % (indices, indices, bounds),
                  IndexError, "an index of gather_nd is out of bounds")
    lowerer.assign(outs[0], "%s[tuple(xp.moveaxis(%s, -1, 0))]" % (params, indices))


OPS["GatherNd"] = register("GatherNd", _gather_nd_kernel, _gather_nd_infer,
                           grad=_gather_nd_grad, emit=KERNEL_CALL,
                           lowerings={"array": _gather_nd_lowering,
                                      "numba": numba_nd_indexing.gather_nd})


def gather_nd(params, indices, batch_dims=0, name=None):
    """The slices of `params` at `indices` [..., k]: output shape indices.shape[:-1] +
    params.shape[k:]."""
    if batch_dims:
        raise NotImplementedError("gather_nd with batch_dims is not supported")
    return execute1(OPS["GatherNd"], [convert_to_tensor(params),
                                      convert_to_tensor(indices, dtype_hint=dtypes.int32)],
                    name=name)


# -- scatter_nd and tensor_scatter_nd_* ---------------------------------------------------


def _check_updates(indices, updates, target):
    """updates.shape must be indices.shape[:-1] + target.shape[k:]."""
    depth = _index_depth(indices, target)
    if indices is None or updates is None or target is None or depth is None:
        return
    want = indices[:-1] + target[depth:]
    if len(want) != len(updates) or any(
            a is not None and b is not None and a != b for a, b in zip(want, updates)):
        raise SpecError("shape", "updates of shape %s do not fit indices %s into a tensor of "
                        "shape %s (expected %s)" % tuple(shape_lib.to_string(s) for s in (
                            updates, indices, target, want)))


def _scatter_nd_infer(specs, attrs):
    (index_dtype, indices), (dtype, updates), (shape_dtype, _) = specs
    _require_indices(index_dtype)
    require_kind(dtype, NUMERIC | {"bool"})
    target = attrs["static_shape"]
    _check_updates(indices, updates, target)
    return [(dtype, target)]


def _whole_rows(indices, updates, shape):
    """The updates of index rows of depth 0, each naming the whole tensor (one slice of
    `updates` per row, in order), or None for indices of depth 1 or more."""
    indices = np.asarray(indices)
    if indices.shape[-1] != 0:
        return None
    return np.reshape(updates, (-1,) + tuple(shape))


def _add_rows(out, indices, updates, combine=np.add):
    """Combines `updates` into `out` at `indices` with the ufunc `combine`, row by row
    (duplicates add up, or the least or greatest wins, in order)."""
    rows = _whole_rows(indices, updates, out.shape)
    if rows is None:
        combine.at(out, _address(indices, out.shape), updates)
    else:
        for row in rows:
            combine(out, row, out=out)
    return out


def _scatter_nd_kernel(indices, updates, shape, static_shape):
    out = np.zeros(tuple(int(d) for d in shape), dtype=updates.dtype)
    return _add_rows(out, indices, updates)


def _scatter_nd_grad(ctx, grads):
    return [None, gather_nd(grads[0], ctx.input(0)), None]


OPS["ScatterNd"] = register("ScatterNd", _scatter_nd_kernel, _scatter_nd_infer,
                            grad=_scatter_nd_grad, emit=KERNEL_CALL,
                            lowerings=dict(_NOT_LOWERED, numba=numba_nd_indexing.scatter_nd))


def scatter_nd(indices, updates, shape, name=None):
    """A zero tensor of `shape` with `updates` added at `indices` (duplicates sum)."""
    updates = convert_to_tensor(updates)
    indices = convert_to_tensor(indices, dtype_hint=dtypes.int32)
    shape_t = array_ops.dims_tensor(shape)
    if shape_t.dtype is not indices.dtype:
        shape_t = math_ops.cast(shape_t, indices.dtype)
    return execute1(OPS["ScatterNd"], [indices, updates, shape_t],
                    {"static_shape": common.partial_shape_value(shape_t)}, name=name)


def _tensor_scatter_infer(specs, attrs):
    (dtype, target), (index_dtype, indices), (update_dtype, updates) = specs
    _require_indices(index_dtype)
    require_kind(dtype, ANY)
    if update_dtype is not dtype:
        raise SpecError("dtype", "updates must have the tensor's dtype, got %s and %s"
                        % (dtype.name, update_dtype.name))
    _check_updates(indices, updates, target)
    return [(dtype, target)]


def _tensor_scatter_update_kernel(tensor, indices, updates):
    out = np.array(tensor, copy=True)
    rows = _whole_rows(indices, updates, out.shape)
    if rows is None:
        out[_address(indices, out.shape)] = updates
    elif len(rows):  # the last row's update wins, as duplicates do
        out[...] = rows[-1]
    return out


def _tensor_scatter_add_kernel(tensor, indices, updates):
    return _add_rows(np.array(tensor, copy=True), indices, updates)


def _tensor_scatter_sub_kernel(tensor, indices, updates):
    return _add_rows(np.array(tensor, copy=True), indices, updates, np.subtract)


def _tensor_scatter_min_kernel(tensor, indices, updates):
    return _add_rows(np.array(tensor, copy=True), indices, updates, np.minimum)


def _tensor_scatter_max_kernel(tensor, indices, updates):
    return _add_rows(np.array(tensor, copy=True), indices, updates, np.maximum)


def _tensor_scatter_update_grad(ctx, grads):
    g, indices = grads[0], ctx.input(1)
    gathered = gather_nd(g, indices)
    cleared = execute1(OPS["TensorScatterUpdate"], [g, indices, array_ops.zeros_like(gathered)])
    return [cleared, None, gathered]


def _tensor_scatter_add_grad(ctx, grads):
    return [grads[0], None, gather_nd(grads[0], ctx.input(1))]


def _tensor_scatter_sub_grad(ctx, grads):
    return [grads[0], None, math_ops.negative(gather_nd(grads[0], ctx.input(1)))]


def _tensor_scatter_min_or_max_grad(ctx, grads):
    """TensorFlow's rule: the gradient goes to every input equal to the result, shared
    equally among ties."""
    grad, tensor, indices, updates = grads[0], ctx.input(0), ctx.input(1), ctx.input(2)
    output = ctx.output(0)
    tensor_wins = math_ops.cast(math_ops.equal(tensor, output), grad.dtype)
    update_wins = math_ops.cast(math_ops.equal(updates, gather_nd(output, indices)), grad.dtype)
    winners = math_ops.add(tensor_wins, scatter_nd(indices, update_wins, array_ops.shape(
        tensor, out_type=indices.dtype)))
    tensor_grad = math_ops.truediv(math_ops.multiply(grad, tensor_wins), winners)
    update_grad = math_ops.truediv(math_ops.multiply(gather_nd(grad, indices), update_wins),
                                  gather_nd(winners, indices))
    return [tensor_grad, None, update_grad]


OPS["TensorScatterUpdate"] = register(
    "TensorScatterUpdate", _tensor_scatter_update_kernel, _tensor_scatter_infer,
    grad=_tensor_scatter_update_grad, emit=KERNEL_CALL,
    lowerings=dict(_NOT_LOWERED, numba=numba_nd_indexing.tensor_scatter_update))
OPS["TensorScatterAdd"] = register(
    "TensorScatterAdd", _tensor_scatter_add_kernel, _tensor_scatter_infer,
    grad=_tensor_scatter_add_grad, emit=KERNEL_CALL,
    lowerings=dict(_NOT_LOWERED, numba=numba_nd_indexing.tensor_scatter_add))
OPS["TensorScatterSub"] = register(
    "TensorScatterSub", _tensor_scatter_sub_kernel, _tensor_scatter_infer,
    grad=_tensor_scatter_sub_grad, emit=KERNEL_CALL, lowerings=_NOT_LOWERED)
OPS["TensorScatterMin"] = register(
    "TensorScatterMin", _tensor_scatter_min_kernel, _tensor_scatter_infer,
    grad=_tensor_scatter_min_or_max_grad, emit=KERNEL_CALL, lowerings=_NOT_LOWERED)
OPS["TensorScatterMax"] = register(
    "TensorScatterMax", _tensor_scatter_max_kernel, _tensor_scatter_infer,
    grad=_tensor_scatter_min_or_max_grad, emit=KERNEL_CALL, lowerings=_NOT_LOWERED)


def _tensor_scatter(op_name, tensor, indices, updates, name):
    tensor = convert_to_tensor(tensor)
    return execute1(OPS[op_name], [tensor, convert_to_tensor(indices, dtype_hint=dtypes.int32),
                                   convert_to_tensor(updates, dtype_hint=tensor.dtype)],
                    name=name)


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """A copy of `tensor` with the slices at `indices` replaced by `updates`."""
    return _tensor_scatter("TensorScatterUpdate", tensor, indices, updates, name)


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """A copy of `tensor` with `updates` added at `indices` (duplicates sum)."""
    return _tensor_scatter("TensorScatterAdd", tensor, indices, updates, name)


def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    """A copy of `tensor` with `updates` subtracted at `indices` (duplicates add up)."""
    return _tensor_scatter("TensorScatterSub", tensor, indices, updates, name)


def tensor_scatter_nd_min(tensor, indices, updates, name=None):
    """A copy of `tensor` where each element at `indices` is the least of it and its
    updates."""
    return _tensor_scatter("TensorScatterMin", tensor, indices, updates, name)


def tensor_scatter_nd_max(tensor, indices, updates, name=None):
    """A copy of `tensor` where each element at `indices` is the greatest of it and its
    updates."""
    return _tensor_scatter("TensorScatterMax", tensor, indices, updates, name)


# -- boolean_mask -------------------------------------------------------------------------


@dispatchable
def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """The slices of `tensor` where `mask` is True: `mask` (of rank k) covers dimensions
    axis..axis+k-1 of `tensor`, which become one dimension of unknown size."""
    tensor = convert_to_tensor(tensor)
    mask = convert_to_tensor(mask)
    if mask.dtype is not dtypes.bool_:
        raise TypeError("boolean_mask: mask must be bool, got %s" % mask.dtype.name)
    shape, mask_shape = tensor._shape_tuple(), mask._shape_tuple()
    if mask_shape is None or shape is None:
        raise ValueError("boolean_mask needs tensor and mask of known rank")
    axis = 0 if axis is None else int(axis)
    axis = axis + len(shape) if axis < 0 else axis
    k = len(mask_shape)
    if k == 0 or axis + k > len(shape):
        raise ValueError("boolean_mask: a mask of shape %s does not fit dimensions %d.. of "
                         "a tensor of shape %s" % (shape_lib.to_string(mask_shape), axis,
                                                   shape_lib.to_string(shape)))
    for a, b in zip(shape[axis:axis + k], mask_shape):
        if a is not None and b is not None and a != b:
            raise ValueError("boolean_mask: mask of shape %s does not match dimensions %d.. "
                             "of a tensor of shape %s" % (shape_lib.to_string(mask_shape),
                                                          axis, shape_lib.to_string(shape)))
    if k > 1:
        dims = array_ops.shape(tensor)
        leading, trailing = shape[:axis], shape[axis + k:]
        if None in leading or None in trailing:
            new_shape = concat_split_ops.concat([dims[:axis], [-1], dims[axis + k:]], 0)
        else:
            new_shape = list(leading) + [-1] + list(trailing)
        tensor = reshape_ops.reshape(tensor, new_shape)
        mask = reshape_ops.reshape(mask, [-1])
    positions = reshape_ops.reshape(selection_ops.where(mask), [-1])
    return selection_ops.gather(tensor, positions, axis=axis, name=name)
