"""Shape and assembly ops: reshape, transpose, expand_dims, squeeze and broadcast_to give a
tensor another shape or axis order; concat, stack, unstack and tile join tensors, take one
apart along an axis, or repeat one whole.

Cutting, padding and reordering elements along a dimension (split, pad, slice, reverse, roll,
repeat) is in `layout_ops`.
"""

import builtins

import numpy as np

from runtime import lowering_api
from runtime import shape as shape_lib
from runtime.ops import (
    array_ops,
    batching,
    common,
    math_ops,
    reduction_ops,
    slicing,
)
from runtime.ops.array_ops import dims_tensor, identity
from runtime.ops.common import SpecError, convert_to_tensor, require_same_dtype
from runtime.ops.common import stack as stack  # re-exported: tf.stack is the Pack op below
from runtime.ops.composite_dispatch import dispatchable
from runtime.ops.gradient_ops import fully_known, sum_to
from runtime.ops.numba_lowerings import axis_of, dims, finish, product, shape_tuple
from runtime.ops.registry import KERNEL_CALL, execute, execute1, register
from runtime.tensor import Tensor

# lowering rules that decline, saying why (see runtime/lowering_api.py)
_NOT_LOWERED = {"array": lowering_api.unsupported("not lowered yet")}


OPS = {}




def _reshape_infer(specs, attrs):
    dtype, shape = specs[0]
    target = attrs["static_shape"]
    if target is None:
        return [(dtype, None)]
    total = shape_lib.num_elements(shape)
    if target.count(None) == 1 and total is not None:
        known = 1
        for d in target:
            if d is not None:
                known *= d
        if known == 0 or total % known:
            raise SpecError("shape", "cannot reshape %d elements to %s"
                            % (total, shape_lib.to_string(target)))
        if attrs["has_wildcard"]:
            target = tuple(total // known if d is None else d for d in target)
    elif None not in target and total is not None and total != shape_lib.num_elements(target):
        raise SpecError("shape", "cannot reshape a tensor of %d elements to shape %s"
                        % (total, shape_lib.to_string(target)))
    return [(dtype, target)]


def _reshape_kernel(x, dims, static_shape, has_wildcard):
    return np.reshape(x, tuple(int(d) for d in np.reshape(dims, [-1])))


def _reshape_lowering(lowerer, node, ins, outs):
    shape = ins[1].value
    if shape is None:
        raise lowering_api.Unsupported("a reshape to a computed shape")
    dims = tuple(int(d) for d in shape)
    if not dims or ins[0].rank0:
        raise lowering_api.Unsupported("a reshape from or to rank 0")
    lowerer.assign(outs[0], "xp.reshape(%s, %s)" % (ins[0], lowerer.literal(dims)))


_RESHAPE_LOWERINGS = {"array": _reshape_lowering}


def _reshape_back(ctx, grads):
    """Reshape, ExpandDims, Squeeze: the gradient takes the input's shape back."""
    g = grads[0]
    x_shape = ctx.input_shape(0)
    if fully_known(x_shape):
        if g._shape_tuple() == x_shape:
            return [g] + [None] * (len(ctx.needed) - 1)
        return [reshape(g, list(x_shape))] + [None] * (len(ctx.needed) - 1)
    return [reshape(g, array_ops.shape(ctx.input(0)))] + [None] * (len(ctx.needed) - 1)


OPS["Reshape"] = register("Reshape", _reshape_kernel, _reshape_infer,
                          grad=_reshape_back, emit=KERNEL_CALL, traits=("view",),
                          lowerings=_RESHAPE_LOWERINGS)


@dispatchable
def reshape(tensor, shape, name=None):
    """`tensor` with its elements rearranged to `shape` (one entry may be -1)."""
    tensor = convert_to_tensor(tensor)
    dims_t = dims_tensor(shape)
    raw = common.constant_value(dims_t)
    static = common.partial_shape_value(dims_t)
    has_wildcard = raw is not None and bool(np.any(np.asarray(raw) == -1))
    return execute1(OPS["Reshape"], [tensor, dims_t],
                    {"static_shape": static, "has_wildcard": has_wildcard}, name=name)


def _transpose_infer(specs, attrs):
    dtype, shape = specs[0]
    perm = attrs["perm"]
    if shape is None:
        return [(dtype, None if perm is None else (None,) * len(perm))]
    if perm is None:
        return [(dtype, shape[::-1])]
    if sorted(perm) != list(builtins.range(len(shape))):
        raise SpecError("shape", "perm %r is not a permutation of the %d dimensions"
                        % (list(perm), len(shape)))
    return [(dtype, tuple(shape[p] for p in perm))]


def _transpose_grad(ctx, grads):
    perm = ctx.attrs["perm"]
    if perm is None:
        return [transpose(grads[0])]
    return [transpose(grads[0], [int(p) for p in np.argsort(perm)])]


OPS["Transpose"] = register("Transpose", lambda x, perm: np.transpose(x, perm),
                            _transpose_infer,
                            grad=_transpose_grad, emit=KERNEL_CALL, traits=("view",),
                            lowerings={"array": "xp.transpose({0}, {perm})"})


def transpose(a, perm=None, name="transpose", conjugate=False):
    """`a` with its dimensions permuted by `perm` (reversed when None), and conjugated with
    `conjugate=True` (a complex tensor's; a real one is its own conjugate)."""
    a = convert_to_tensor(a)
    if conjugate and a.dtype.is_complex:
        a = math_ops.conj(a)
    return execute1(OPS["Transpose"], [a], {"perm": common.static_int_list(perm, "perm")},
                    name=name)


def _expand_infer(specs, attrs):
    dtype, shape = specs[0]
    if shape is None:
        return [(dtype, None)]
    axis = common.normalize_axis(attrs["axis"], len(shape) + 1)
    return [(dtype, shape[:axis] + (1,) + shape[axis:])]


OPS["ExpandDims"] = register("ExpandDims", lambda x, axis: np.expand_dims(x, axis),
                             _expand_infer,
                             grad=_reshape_back, emit=KERNEL_CALL, traits=("view",),
                             lowerings={"array": "xp.expand_dims({0}, {axis})"})


@dispatchable
def expand_dims(input, axis, name=None):  # noqa: A002
    """`input` with a new dimension of size 1 inserted at `axis`."""
    return execute1(OPS["ExpandDims"], [convert_to_tensor(input)], {"axis": int(axis)},
                    name=name)


def _squeeze_infer(specs, attrs):
    dtype, shape = specs[0]
    axis = attrs["axis"]
    if shape is None:
        return [(dtype, None)]
    if axis is None:
        if None in shape:
            return [(dtype, None)]
        return [(dtype, tuple(d for d in shape if d != 1))]
    axes = {common.normalize_axis(a, len(shape)) for a in axis}
    for a in axes:
        if shape[a] not in (1, None):
            raise SpecError("shape", "cannot squeeze dimension %d of size %d" % (a, shape[a]))
    return [(dtype, tuple(d for i, d in enumerate(shape) if i not in axes))]


def _squeeze_jax(lw, node, ins):
    """Squeeze the size-1 dimensions (those of `axis`, when given)."""
    x = lw.jnp.asarray(ins[0])
    axis = node.attrs["axis"]
    if axis is not None:
        axis = tuple(a % x.ndim if x.ndim else a for a in axis)
        if any(x.shape[a] != 1 for a in axis):
            raise lowering_api.Unsupported("squeezes a dimension whose size is not 1")
    return [lw.jnp.squeeze(x, axis)]


def _squeeze_numba(lowerer, node, ins, outs):
    """Squeeze: a reshape, each squeezed dimension known only at run time checked to be 1."""
    x, out = ins[0], outs[0]
    if x.rank0 or out.shape is None:
        raise lowering_api.Unsupported("a squeeze of unknown result rank")
    parts = dims(x)
    axis = node.attrs["axis"]
    if axis is None:
        if None in x.shape:
            raise lowering_api.Unsupported("a squeeze of every size-1 dimension of a dynamic shape")
        axes = {i for i, d in enumerate(x.shape) if d == 1}
    else:
        axes = {a % len(parts) for a in axis}
    for a in sorted(axes):
        if x.shape[a] is None:
            lowerer.check("%s != 1" % parts[a], ValueError,
                          "cannot select an axis to squeeze out which has size not equal "
                          "to one")
    array = lowerer.fresh("c")
    lowerer.line("%s = np.ascontiguousarray(%s)" % (array, x))
    finish(lowerer, out, array, [p for i, p in enumerate(parts) if i not in axes])


OPS["Squeeze"] = register("Squeeze", lambda x, axis: np.squeeze(x, axis), _squeeze_infer,
                          grad=_reshape_back, emit=KERNEL_CALL, traits=("view",),
                          lowerings=dict(_NOT_LOWERED, numba=_squeeze_numba,
                                                       jax=_squeeze_jax))


def squeeze(input, axis=None, name=None):  # noqa: A002
    """`input` without its size-1 dimensions (only those in `axis`, when given)."""
    return execute1(OPS["Squeeze"], [convert_to_tensor(input)],
                    {"axis": common.static_int_list(axis, "axis")}, name=name)


# -- concat / stack / unstack / tile ---------------------------------------------------------


def _concat_infer(specs, attrs):
    dtype = require_same_dtype(specs)
    shapes = [s for _, s in specs]
    known = [s for s in shapes if s is not None]
    if not known:
        return [(dtype, None)]
    rank = len(known[0])
    if rank == 0:
        raise SpecError("shape", "cannot concatenate scalars; use stack")
    axis = common.normalize_axis(attrs["axis"], rank)
    out = list(known[0])
    total: int | None = 0
    for s in known:
        if len(s) != rank:
            raise SpecError("shape", "concat operands have different ranks")
        for i, (a, b) in enumerate(zip(out, s)):
            if i != axis and a is not None and b is not None and a != b:
                raise SpecError("shape", "concat operands differ in dimension %d" % i)
            if i != axis and a is None:
                out[i] = b
    for s in shapes:
        if s is None or s[axis] is None or total is None:
            total = None
        else:
            total += s[axis]
    out[axis] = total
    return [(dtype, tuple(out))]


def _concat_jax(lw, node, ins):
    """ConcatV2."""
    return [lw.jnp.concatenate(ins, axis=node.attrs["axis"])]


def _concat_grad(ctx, grads):
    g = grads[0]
    rank = len(ctx.output_shape(0)) if ctx.output_shape(0) is not None else None
    if rank is None:
        raise NotImplementedError("the gradient of concat needs operands of known rank")
    axis = ctx.attrs["axis"] % rank
    out = []
    start = 0
    for i, need in enumerate(ctx.needed):
        shape = ctx.input_shape(i)
        size = shape[axis] if shape is not None and shape[axis] is not None else \
            array_ops.shape(ctx.input(i))[axis]
        end = start + size
        if need:
            index = (slice(None),) * axis + (slice(start, end),)
            out.append(slicing.strided_slice_from_index(g, index))
        else:
            out.append(None)
        start = end
    return out


def _concat_numba(lowerer, node, ins, outs):
    """ConcatV2: numpy's concatenate, after checking at run time the dimensions only known
    then (numpy's error when they differ)."""
    if any(x.rank0 for x in ins):
        raise lowering_api.Unsupported("a concat of scalars")
    shapes = [dims(x) for x in ins]
    rank_ = len(shapes[0])
    axis = axis_of(node, rank_)
    for i, x in enumerate(ins[1:], 1):
        for d in range(rank_):
            if d == axis or (x.shape[d] is not None and ins[0].shape[d] is not None):
                continue
            lowerer.check_values(
                "%s != %s" % (shapes[0][d], shapes[i][d]), ValueError,
                "all the input array dimensions except for the concatenation axis must match "
                "exactly, but along dimension %d, the array at index 0 has size %%d and the "
                "array at index %d has size %%d" % (d, i), (shapes[0][d], shapes[i][d]))
    lowerer.assign(outs[0], "np.concatenate((%s), %d)" % ("".join(
        "np.ascontiguousarray(%s), " % x for x in ins), axis))


OPS["ConcatV2"] = register("ConcatV2", lambda *xs, axis: np.concatenate(xs, axis=axis),
                           _concat_infer, node_name="concat",
                           grad=_concat_grad, emit=KERNEL_CALL,
                           lowerings=dict(_NOT_LOWERED, jax=_concat_jax,
                                          numba=_concat_numba))


@dispatchable
def concat(values, axis, name="concat"):
    """The tensors of `values` joined along existing dimension `axis`. Values that are not
    tensors (Python lists, numbers, arrays) become tensors of the first tensor's dtype, as in
    TensorFlow (`tf.concat((v, [i]), 0)` with an int32 `v` and an int64 tensor `i`)."""
    first = next((v.dtype for v in values if isinstance(v, Tensor)), None)
    tensors = [convert_to_tensor(v, None if isinstance(v, Tensor) else first) for v in values]
    if len(tensors) == 1:
        return identity(tensors[0])
    return execute1(OPS["ConcatV2"], tensors, {"axis": int(axis)}, name=name)


OPS["Pack"] = common.PACK  # declared with convert_to_tensor, which packs lists of tensors


OPS["Unpack"] = common.UNPACK  # declared beside Pack, whose gradient unstacks


def unstack(value, num=None, axis=0, name="unstack"):
    """The slices of `value` along `axis`, as a list of tensors."""
    value = convert_to_tensor(value)
    dims = value._shape_tuple()
    if num is None:
        if dims is None or dims[axis] is None:
            raise ValueError("cannot unstack a dimension of unknown size without `num`")
        num = dims[axis]
    return execute(OPS["Unpack"], [value], {"num": int(num), "axis": int(axis)}, name=name)


def _tile_infer(specs, attrs):
    dtype, shape = specs[0]
    multiples = attrs["multiples"]
    if shape is None:
        return [(dtype, (None,) * len(multiples))]
    if len(multiples) != len(shape):
        raise SpecError("shape", "tile multiples must have one entry per dimension")
    return [(dtype, tuple(None if d is None else d * m for d, m in zip(shape, multiples)))]


def _tile_grad(ctx, grads):
    g = grads[0]
    multiples = ctx.attrs["multiples"]
    shape = ctx.input_shape(0)
    if fully_known(shape):
        split = [n for m, d in zip(multiples, shape) for n in (m, d)]
    else:
        dims = array_ops.shape(ctx.input(0))
        split = stack([n for k, m in enumerate(multiples)
                         for n in (array_ops.constant(m, dtype=dims.dtype), dims[k])])
    spread = reshape(g, split)
    return [reduction_ops.reduce_sum(spread, axis=list(range(0, 2 * len(multiples), 2)))]


def _tile_jax(lw, node, ins):
    """Tile by the static multiples."""
    multiples = tuple(node.attrs["multiples"])
    if len(multiples) != np.ndim(ins[0]):
        raise lowering_api.Unsupported("has one multiple per dimension only at run time")
    return [lw.jnp.tile(ins[0], multiples)]


def _tile_numba(lowerer, node, ins, outs):
    """Tile: the input broadcast along a new axis before each of its own, then merged."""
    x = ins[0]
    if x.rank0:
        raise lowering_api.Unsupported("a tile of a scalar")
    parts = dims(x)
    multiples = [int(m) for m in node.attrs["multiples"]]
    spread = []
    for p in parts:
        spread += ["1", p]
    target = []
    for m, p in zip(multiples, parts):
        target += [str(m), p]
    array = lowerer.fresh("c")
    lowerer.line("%s = np.ascontiguousarray(np.broadcast_to(np.ascontiguousarray(%s).reshape("
                 "%s), %s))" % (array, x, shape_tuple(spread), shape_tuple(target)))
    finish(lowerer, outs[0], array, [product([str(m), p]) for m, p in zip(multiples, parts)])


OPS["Tile"] = register("Tile", lambda x, multiples: np.tile(x, multiples), _tile_infer,
                       grad=_tile_grad, emit=KERNEL_CALL,
                       lowerings=dict(_NOT_LOWERED, numba=_tile_numba,
                                                    jax=_tile_jax))


@dispatchable
def tile(input, multiples, name=None):  # noqa: A002
    """`input` repeated `multiples[i]` times along dimension i."""
    return execute1(OPS["Tile"], [convert_to_tensor(input)],
                    {"multiples": common.static_int_list(multiples, "multiples")}, name=name)


def _broadcast_to_infer(specs, attrs):
    dtype, shape = specs[0]
    target = attrs["shape"]
    try:
        shape_lib.broadcast(shape, target)
    except ValueError:
        raise SpecError("shape", "cannot broadcast %s to %s"
                        % (shape_lib.to_string(shape), shape_lib.to_string(target))) from None
    return [(dtype, target)]


def _broadcast_to_grad(ctx, grads):
    return [sum_to(grads[0], ctx, 0)]


def _broadcast_to_jax(lw, node, ins):
    """BroadcastTo a static shape."""
    shape = lowering_api.static_shape(node.attrs["shape"], "the target shape")
    try:
        return [lw.jnp.broadcast_to(ins[0], shape)]
    except ValueError as e:
        raise lowering_api.Unsupported("cannot broadcast: %s" % e) from None


def _broadcast_to_numba(lowerer, node, ins, outs):
    """BroadcastTo of an input of static shape (numpy's own broadcasting error is not
    repeated for dynamic shapes: those are declined)."""
    x, out = ins[0], outs[0]
    if x.shape is None or None in x.shape or out.shape is None or None in out.shape:
        raise lowering_api.Unsupported("a broadcast of a dynamic shape")
    if out.rank0:
        lowerer.assign(out, x)
        return
    source = "np.full(1, %s)" % x if x.rank0 else "np.ascontiguousarray(%s)" % x
    lowerer.assign(out, "np.ascontiguousarray(np.broadcast_to(%s, %s))" % (
        source, lowerer.literal(tuple(out.shape))))


OPS["BroadcastTo"] = register("BroadcastTo", lambda x, shape: np.broadcast_to(x, shape),
                              _broadcast_to_infer,
                              grad=_broadcast_to_grad, emit=KERNEL_CALL,
                              traits=("view",),
                              lowerings=dict(_NOT_LOWERED, numba=_broadcast_to_numba,
                                                           jax=_broadcast_to_jax))


def broadcast_to(input, shape, name=None):  # noqa: A002
    """`input` broadcast to `shape`."""
    return execute1(OPS["BroadcastTo"], [convert_to_tensor(input)],
                    {"shape": common.static_int_list(shape, "shape")}, name=name)


# -- batching rules (runtime/ops/batching.py: a Jacobian's rows at once) -----------------------


def _reshape_batched(batcher, node, args, batched):
    x, dims_t = args
    if batched[1]:
        batcher.unbatchable("a reshape to a batched shape")
    known = common.constant_value(dims_t)
    if known is not None:
        target = [batcher.size] + [int(d) for d in np.reshape(known, [-1])]
        return [reshape(x, target)]
    lead = np.array([batcher.size], dims_t.dtype.np_dtype)
    return [reshape(x, concat([lead, dims_t], 0))]


def _transpose_batched(batcher, node, args, batched):
    perm = node.attrs["perm"]
    if perm is None:
        perm = builtins.range(batcher.rank(args[0], True) - 1, -1, -1)
    return [transpose(args[0], [0] + [int(p) + 1 for p in perm])]


def _expand_dims_batched(batcher, node, args, batched):
    return [expand_dims(args[0], batching.shifted_axis(node.attrs["axis"]))]


def _squeeze_batched(batcher, node, args, batched):
    axis = node.attrs["axis"]
    if axis is None:
        shape = batcher.example_shape(args[0])
        if None in shape:
            batcher.unbatchable("a squeeze of every size-1 dimension of a dynamic shape")
        axis = [i for i, d in enumerate(shape) if d == 1]
    return [squeeze(args[0], [batching.shifted_axis(a) for a in axis])]


def _broadcast_to_batched(batcher, node, args, batched):
    shape = list(node.attrs["shape"])
    return [broadcast_to(batcher.expand(args[0], len(shape)), [batcher.size] + shape)]


def _tile_batched(batcher, node, args, batched):
    return [tile(args[0], [1] + [int(m) for m in node.attrs["multiples"]])]


def _joined_batched(batcher, node, args, batched):
    """ConcatV2, Pack: every operand batched, the axis shifted past the batch."""
    return batcher.rerun(node, batching.all_batched(batcher, args, batched),
                         dict(node.attrs, axis=batching.shifted_axis(node.attrs["axis"])))


def _unstack_batched(batcher, node, args, batched):
    return batcher.rerun(node, args,
                         dict(node.attrs, axis=batching.shifted_axis(node.attrs["axis"])))


batching.declare(OPS["Reshape"], _reshape_batched)
batching.declare(OPS["Transpose"], _transpose_batched)
batching.declare(OPS["ExpandDims"], _expand_dims_batched)
batching.declare(OPS["Squeeze"], _squeeze_batched)
batching.declare(OPS["BroadcastTo"], _broadcast_to_batched)
batching.declare(OPS["Tile"], _tile_batched)
batching.declare(OPS["ConcatV2"], _joined_batched)
batching.declare(OPS["Pack"], _joined_batched)
batching.declare(OPS["Unpack"], _unstack_batched)
