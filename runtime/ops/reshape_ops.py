"""Ops that give a tensor another shape or axis order: reshape, transpose, expand_dims,
squeeze and broadcast_to.

Joining and taking tensors apart (concat, stack, unstack, split, tile, repeat) is in
`concat_split_ops`; padding and reordering elements along a dimension (pad, reverse, roll) in
`layout_ops`; slices in `slicing`.
"""

import builtins

import numpy as np

from runtime import errors, lowering_api
from runtime import shape as shape_lib
from runtime.ops import (
    array_ops,
    batching,
    common,
    math_ops,
    reshape_sizes,
)
from runtime.ops.array_ops import dims_tensor
from runtime.ops.common import (
    SpecError,
    convert_to_tensor,
)
from runtime.ops.composite_dispatch import dispatchable
from runtime.ops.gradient_ops import fully_known, sum_to
from runtime.ops.numba_lowerings import (
    contiguous_view,
    dims,
    finish,
    transposed,
)
from runtime.ops.registry import KERNEL_CALL, execute, execute1, register

# lowering rules that decline, saying why (see runtime/lowering_api.py)
_NOT_LOWERED = {"array": lowering_api.unsupported("not lowered yet")}

OPS = {}




def _reshape_infer(specs, attrs):
    dtype, shape = specs[0]
    sizes_shape = specs[1][1]
    if sizes_shape is not None and len(sizes_shape) != 1:
        refused = reshape_sizes.sizes_not_a_vector(len(sizes_shape),
                                                   shape_lib.kernel_string(sizes_shape))
        raise SpecError("shape", refused.graph_text, refused.kernel_text)
    target = attrs["static_shape"]
    if target is None:
        return [(dtype, None)]
    wildcards = target.count(None)
    # (with no -1 among the sizes, a None is an entry known only at run time, or negative)
    if shape_lib.num_elements(shape) is not None and wildcards == attrs["has_wildcard"]:
        try:
            target = reshape_sizes.resolve(shape, [-1 if d is None else d for d in target])
        except reshape_sizes.ReshapeRefused as e:
            raise SpecError("shape", e.graph_text, e.kernel_text) from None
    return [(dtype, target)]


def _reshape_kernel(x, dims, static_shape, has_wildcard):
    x = np.asarray(x)
    dims = np.asarray(dims)
    if dims.ndim != 1:
        refused = reshape_sizes.sizes_not_a_vector(dims.ndim, shape_lib.kernel_string(dims.shape))
        raise errors.kernel_check_failed(refused.kernel_text)
    try:
        return np.reshape(x, reshape_sizes.resolve(x.shape, [int(d) for d in dims]))
    except reshape_sizes.ReshapeRefused as e:
        raise errors.kernel_check_failed(e.kernel_text) from None


def _reshape_lowering(lowerer, node, ins, outs):
    shape = ins[1].value
    if shape is None:
        raise lowering_api.Unsupported("a reshape to a computed shape")
    dims = tuple(int(d) for d in shape)
    if not dims or ins[0].rank0:
        raise lowering_api.Unsupported("a reshape from or to rank 0")
    # (numba reshapes only a contiguous array: a transpose's view is copied first)
    lowerer.assign(outs[0], "xp.reshape(%s, %s)" % (contiguous_view(lowerer, ins[0]),
                                                    lowerer.literal(dims)))


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


def _transpose_numba(lowerer, node, ins, outs):
    """Transpose: the view of the permuted shape and strides (numba_lowerings.transposed)."""
    x, perm = ins[0], node.attrs["perm"]
    if perm is None:
        if x.shape is None:
            raise lowering_api.Unsupported("a transpose of unknown rank")
        perm = builtins.range(len(x.shape))[::-1]
    lowerer.assign(outs[0], transposed(x, perm))


OPS["Transpose"] = register("Transpose", lambda x, perm: np.transpose(x, perm),
                            _transpose_infer,
                            grad=_transpose_grad, emit=KERNEL_CALL, traits=("view",),
                            lowerings={"array": "xp.transpose({0}, {perm})",
                                       "numba": _transpose_numba})


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
    length = dims_t._shape_tuple()
    if length is None or length[0] is None:
        batcher.unbatchable("a reshape to a shape of unknown rank")
    # [batch, *dims]: the sizes unstacked and stacked again behind the batch's (concat's
    # module imports this one)
    sizes = execute(common.UNPACK, [dims_t], {"num": int(length[0]), "axis": 0})
    lead = array_ops.constant(batcher.size, dtype=dims_t.dtype)
    return [reshape(x, common.stack([lead] + list(sizes)))]


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


batching.declare(OPS["Reshape"], _reshape_batched)
batching.declare(OPS["Transpose"], _transpose_batched)
batching.declare(OPS["ExpandDims"], _expand_dims_batched)
batching.declare(OPS["Squeeze"], _squeeze_batched)
batching.declare(OPS["BroadcastTo"], _broadcast_to_batched)
