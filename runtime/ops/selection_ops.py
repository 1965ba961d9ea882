"""Ops that pick elements: gather, where (select) and one_hot."""

import numpy as np

from runtime import dtypes, errors, lowering_api
from runtime.ops import (
    attr_types,
    batching,
    common,
    gradient_ops,
)
from runtime.ops.common import convert_to_tensor, require_kind
from runtime.ops.composite_dispatch import dispatchable
from runtime.ops.math_ops import comparison
from runtime.ops.numba_lowerings import (
    as_3d,
    axis_of,
    dims,
    finish,
    product,
    shape_tuple,
    transposed,
    type_name,
)
from runtime.ops.registry import KERNEL_CALL, NOT_DIFFERENTIABLE, execute1, register

# lowering rules that decline, saying why (see runtime/lowering_api.py)
_NOT_LOWERED = {"array": lowering_api.unsupported("not lowered yet")}


OPS = {}


# -- gather / where / one_hot ----------------------------------------------------------------


def _gather_infer(specs, attrs):
    (dtype, params), (index_dtype, indices) = specs
    require_kind(index_dtype, {"int"}, "indices")
    if params is None or indices is None:
        return [(dtype, None)]
    axis = common.normalize_axis(attrs["axis"], len(params))
    return [(dtype, params[:axis] + indices + params[axis + 1:])]


def _gather_kernel(params, indices, axis):
    params = np.asarray(params)
    indices = np.asarray(indices)
    size = params.shape[axis]
    if indices.size and (indices.min() < 0 or indices.max() >= size):
        outside = (indices < 0) | (indices >= size)
        position = np.unravel_index(int(np.argmax(outside)), indices.shape)
        raise errors.kernel_check_failed(_out_of_range_template(indices.ndim)
                                         % (*position, indices[position], size))
    return np.take(params, indices, axis=axis)


def _out_of_range_template(rank):
    """TensorFlow's words for an index outside [0, size) at a position of indices of rank
    `rank`, to format with the position's entries, the index and the size: 'indices[0,1] =
    3 is not in [0, 2)' ('indices = 3 ...' for a scalar)."""
    where = "[%s]" % ",".join(["%d"] * rank) if rank else ""
    return "indices" + where + " = %d is not in [0, %d)"


def _gather_jax(lw, node, ins):
    """GatherV2: `take` along the axis; an index out of range fails."""
    params, indices = ins
    axis = node.attrs["axis"]
    size = np.shape(params)[axis]
    lw.fail_if((indices < 0) | (indices >= size))
    return [lw.jnp.take(params, indices, axis=axis, mode="clip")]


def _gather_v2_grad(ctx, grads):
    if not ctx.needed[0]:
        return [None, None]
    return [execute1(GATHER_GRAD, [grads[0], ctx.input(0), ctx.input(1)],
                     {"axis": ctx.attrs["axis"]}), None]


def _gather_numba(lowerer, node, ins, outs):
    """GatherV2: the slices of the params at each index along the axis, every index checked
    in order as the kernel does."""
    params, indices = ins
    if params.rank0:
        raise lowering_api.Unsupported("a gather from a scalar")
    rank_ = len(dims(params))
    axis = axis_of(node, rank_)
    array, before, size_, after = as_3d(lowerer, params, axis)
    flat = lowerer.fresh("c")
    if indices.rank0:
        count = "1"
        lowerer.line("%s = np.full(1, np.int64(%s))" % (flat, indices))
    else:
        count = product(dims(indices))
        lowerer.line("%s = np.ascontiguousarray(%s).reshape(%s)" % (flat, indices, count))
    result = lowerer.fresh("r")
    lowerer.line("%s = np.empty(%s, %s)" % (result, shape_tuple([before, count, after]),
                                             type_name(outs[0].dtype)))
    k, j = lowerer.fresh("k"), lowerer.fresh("j")
    lowerer.line("for %s in range(%s):" % (k, count))
    with lowerer.block():
        lowerer.line("%s = np.int64(%s[%s])" % (j, flat, k))
        position = _unravelled(k, [] if indices.rank0 else dims(indices))
        lowerer.check_values("%s < 0 or %s >= %s" % (j, j, size_), errors.InvalidArgumentError,
                             _out_of_range_template(len(position)),
                             (*position, j, size_))
        lowerer.line("numba_math.copy_slab(%s, %s, %s, %s)" % (result, k, array, j))
    parts = dims(params)
    index_parts = [] if indices.rank0 else dims(indices)
    finish(lowerer, outs[0], result, parts[:axis] + index_parts + parts[axis + 1:])


def _unravelled(flat, parts):
    """Expressions of the position in an array of dimensions `parts` (expressions) of the
    element at row-major offset `flat`."""
    return ["(%s // (%s)) %% (%s)" % (flat, product(parts[axis + 1:] or ["1"]), part)
            for axis, part in enumerate(parts)]


OPS["GatherV2"] = register("GatherV2", _gather_kernel, _gather_infer,
                           grad=_gather_v2_grad, emit=KERNEL_CALL,
                           lowerings=dict(_NOT_LOWERED, jax=_gather_jax,
                                          numba=_gather_numba))


@dispatchable
def gather(params, indices, axis=None, batch_dims=0, name=None):
    """The slices of `params` at `indices` along `axis` (0 when None)."""
    if batch_dims:
        raise NotImplementedError("gather with batch_dims is not supported")
    return execute1(OPS["GatherV2"], [convert_to_tensor(params), convert_to_tensor(indices)],
                    {"axis": 0 if axis is None else int(axis)}, name=name)


def embedding_lookup(params, ids, max_norm=None, name=None):
    """The rows of the embedding table `params` at `ids` (a tensor, or a RaggedTensor whose
    ragged rows come back as ragged rows of embeddings): `gather(params, ids)`."""
    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            raise NotImplementedError("embedding_lookup over a table sharded in %d parts is "
                                      "not supported; concatenate the shards" % len(params))
        params = params[0]
    if max_norm is not None:
        raise NotImplementedError("embedding_lookup with max_norm is not supported")
    return gather(params, ids, name=name)


# SelectV2 is declared with the math ops, whose gradients are written with it
OPS["SelectV2"] = comparison.SELECT_V2


def _where_infer(specs, attrs):
    dtype, shape = specs[0]
    return [(dtypes.int64, (None, None if shape is None else len(shape)))]


def _where_numba(lowerer, node, ins, outs):
    """Where with one operand: the coordinates of the true elements (numpy's argwhere)."""
    if ins[0].rank0 or ins[0].shape is None:
        raise lowering_api.Unsupported("the coordinates of a scalar")
    lowerer.assign(outs[0], "np.argwhere(%s)" % ins[0])


OPS["Where"] = register("Where", lambda c: np.argwhere(c).astype(np.int64), _where_infer,
                        grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                        lowerings=dict(_NOT_LOWERED, numba=_where_numba))


@dispatchable
def where(condition, x=None, y=None, name=None):
    """With x and y: elements of x where `condition` holds, else of y (broadcasting).
    Alone: the coordinates of the true elements, as an int64 [N, rank] tensor."""
    condition = convert_to_tensor(condition)
    if x is None and y is None:
        return execute1(OPS["Where"], [condition], name=name)
    if x is None or y is None:
        raise ValueError("where needs both x and y, or neither")
    x, y = common.binary_operands(x, y)
    return execute1(OPS["SelectV2"], [condition, x, y], name=name)


def _one_hot_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, {"int"}, "indices")
    if shape is None:
        return [(attrs["dtype"], None)]
    axis = attrs["axis"]
    axis = len(shape) if axis == -1 else axis
    return [(attrs["dtype"], shape[:axis] + (attrs["depth"],) + shape[axis:])]


def _one_hot_kernel(indices, depth, on_value, off_value, axis, dtype):
    indices = np.asarray(indices)
    hot = np.arange(depth) == indices[..., None]
    out = np.where(hot, on_value, off_value).astype(dtype.np_dtype)
    if axis != -1:
        out = np.moveaxis(out, -1, axis)
    return out


def _one_hot_jax(lw, node, ins):
    """OneHot, as the kernel computes it: arange(depth) == index, then where."""
    jnp, attrs = lw.jnp, node.attrs
    indices = jnp.asarray(ins[0])
    hot = jnp.arange(attrs["depth"]) == indices[..., None]
    dtype = attrs["dtype"].np_dtype
    out = jnp.where(hot, jnp.asarray(attrs["on_value"]).astype(dtype),
                    jnp.asarray(attrs["off_value"]).astype(dtype))
    if attrs["axis"] != -1:
        out = jnp.moveaxis(out, -1, attrs["axis"])
    return [out]


def _one_hot_numba(lowerer, node, ins, outs):
    """OneHot: `off_value` everywhere, `on_value` at each index in [0, depth) (both as the
    kernel converts them), the new axis moved into place."""
    indices, out = ins[0], outs[0]
    depth = int(node.attrs["depth"])
    dtype = node.attrs["dtype"]
    on, off = (np.asarray(node.attrs[k]).astype(dtype.np_dtype)[()]
               for k in ("on_value", "off_value"))
    parts = [] if indices.rank0 else dims(indices)
    count = product(parts)
    flat, result, n, i = (lowerer.fresh(p) for p in ("c", "r", "n", "i"))
    if indices.rank0:
        lowerer.line("%s = np.full(1, np.int64(%s))" % (flat, indices))
    else:
        lowerer.line("%s = np.ascontiguousarray(%s).reshape(%s)" % (flat, indices, count))
    lowerer.line("%s = np.full(%s, %s)" % (result, shape_tuple([count, str(depth)]),
                                           lowerer.scalar_literal(off, dtype)))
    lowerer.line("for %s in range(%s):" % (n, count))
    with lowerer.block():
        lowerer.line("%s = np.int64(%s[%s])" % (i, flat, n))
        lowerer.line("if 0 <= %s < %d:" % (i, depth))
        with lowerer.block():
            lowerer.line("%s[%s, %s] = %s" % (result, n, i, lowerer.scalar_literal(on, dtype)))
    axis = node.attrs["axis"]
    rank = len(parts) + 1
    axis = rank - 1 if axis == -1 else axis
    shaped = lowerer.fresh("c")
    lowerer.line("%s = %s.reshape(%s)" % (shaped, result, shape_tuple(parts + [str(depth)])))
    if axis != rank - 1:
        perm = list(range(rank - 1))
        perm.insert(axis, rank - 1)
        lowerer.line("%s = np.ascontiguousarray(%s)" % (shaped, transposed(shaped, perm)))
    lowerer.assign(out, shaped)


OPS["OneHot"] = register("OneHot", _one_hot_kernel, _one_hot_infer,
                         grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                         lowerings=dict(_NOT_LOWERED, numba=_one_hot_numba,
                                                      jax=_one_hot_jax),
                         attr_types={"on_value": attr_types.SCALAR,
                                     "off_value": attr_types.SCALAR})


def one_hot(indices, depth, on_value=1, off_value=0, axis=-1, dtype=dtypes.float32, name=None):
    """One-hot vectors of length `depth` for each index."""
    return execute1(OPS["OneHot"], [convert_to_tensor(indices)],
                    {"depth": int(depth), "on_value": on_value, "off_value": off_value,
                     "axis": int(axis), "dtype": dtypes.as_dtype(dtype)}, name=name)


# -- GatherGrad: the gradient of gather ------------------------------------------------------
# zeros of `params`' shape with `g` added at `indices` (repeated indices add up)


def _gather_grad_kernel(g, params, indices, axis):
    out = np.zeros(np.shape(params), dtype=np.asarray(g).dtype)
    index = (slice(None),) * (axis % out.ndim) + (np.asarray(indices),)
    np.add.at(out, index, g)
    return out


def _gather_grad_jax(lw, node, ins):
    """GatherGrad: zeros with g added at the indices (repeated ones add up); an index out of
    range fails, as numpy's `add.at` raises."""
    g, params, indices = (lw.jnp.asarray(v) for v in ins)
    rank = params.ndim
    if rank == 0:
        raise lowering_api.Unsupported("gathers from a scalar")
    axis = node.attrs["axis"] % rank
    size = params.shape[axis]
    lw.fail_if((indices < -size) | (indices >= size))
    out = lw.jnp.zeros(params.shape, g.dtype)
    return [out.at[(slice(None),) * axis + (indices,)].add(g)]


def _gather_grad_grad(ctx, grads):
    return [gather(grads[0], ctx.input(2), axis=ctx.attrs["axis"]), None, None]


def _gather_grad_numba(lowerer, node, ins, outs):
    """GatherGrad: zeros of the params' shape, each slice of `g` added at its index along
    the axis, in order (np.add.at's order: repeated indices add up, negative ones count
    from the end, one out of range fails with numpy's message)."""
    g, params, indices = ins
    out = outs[0]
    if params.rank0 or out.dtype.kind == "bool":
        raise lowering_api.Unsupported("a gather gradient of a scalar or of booleans")
    parts = dims(params)
    axis = axis_of(node, len(parts))
    before, size_, after = product(parts[:axis]), parts[axis], product(parts[axis + 1:])
    count = "1" if indices.rank0 else product(dims(indices))
    flat, grads, result, view = (lowerer.fresh(p) for p in ("c", "c", "r", "c"))
    lowerer.line("%s = np.ascontiguousarray(%s).reshape(%s)" % (
        flat, "np.full(1, %s)" % indices if indices.rank0 else indices, count))
    lowerer.line("%s = np.ascontiguousarray(%s).reshape(%s)" % (
        grads, "np.full(1, %s)" % g if g.rank0 else g, shape_tuple([before, count, after])))
    lowerer.line("%s = np.zeros(%s, %s)" % (result, shape_tuple(parts), type_name(out.dtype)))
    lowerer.line("%s = %s.reshape(%s)" % (view, result, shape_tuple([before, size_, after])))
    k, j = lowerer.fresh("k"), lowerer.fresh("j")
    lowerer.line("for %s in range(%s):" % (k, count))
    with lowerer.block():
        lowerer.line("%s = np.int64(%s[%s])" % (j, flat, k))
        lowerer.check_values("%s < -(%s) or %s >= %s" % (j, size_, j, size_), IndexError,
                             "index %%d is out of bounds for axis %d with size %%d" % axis,
                             (j, size_))
        lowerer.line("if %s < 0:" % j)
        with lowerer.block():
            lowerer.line("%s += %s" % (j, size_))
        lowerer.line("numba_math.add_slab(%s, %s, %s, %s)" % (view, j, grads, k))
    lowerer.assign(out, result)


GATHER_GRAD = register("GatherGrad", _gather_grad_kernel, gradient_ops.like_infer,
                       grad=_gather_grad_grad, emit=KERNEL_CALL,
                       lowerings=dict(gradient_ops.lowered_on_jax(_gather_grad_jax),
                                      numba=_gather_grad_numba))


# -- batching rules (runtime/ops/batching.py: a Jacobian's rows at once) -----------------------


def _gather_batched(batcher, node, args, batched):
    """GatherV2(params, indices) and GatherGrad(g, params, indices): the axis of the
    params moved past the batch (the indices must not be batched)."""
    if batched[-1]:
        batcher.unbatchable("a gather at batched indices")
    params = len(args) - 2
    rank = batcher.rank(args[params], batched[params])
    if rank == 0:
        batcher.unbatchable("a gather from a scalar")
    operands = batching.all_batched(batcher, args[:-1], batched[:-1]) + [args[-1]]
    return batcher.rerun(node, operands, dict(node.attrs, axis=node.attrs["axis"] % rank + 1))


batching.declare(OPS["GatherV2"], _gather_batched)
batching.declare(GATHER_GRAD, _gather_batched)
