"""Small ops that gradient rules need, declared with their own gradients, and the helpers that
emit them (`sum_to`, `shaped`); the gradient ops of one family live with it (ReduceGrad and
ProdOthers with the reductions, GatherGrad with gather, StridedSliceGrad with slicing).

  * `SumToShape(x, like)`: `x` summed over the axes along which `like` was broadcast, and
    reshaped to `like`'s shape (the gradient of an operand of a broadcasting op). Used when
    the static shapes do not already show that nothing was broadcast.
  * `BroadcastLike(x, like)`: `x` broadcast to `like`'s shape (its transpose).
  * `ReluGrad(g, y)`: `g` where the Relu's output `y` is positive, else 0.

Each takes the tensor whose shape it needs as an operand, so the same op works when shapes
are known only at run time.
"""

import numpy as np

from runtime import lowering_api
from runtime.ops import batching
from runtime.ops.numba_lowerings import (
    dims,
    finish,
    product,
    shape_tuple,
    sum_leading_axes,
    transposed,
    type_name,
)
from runtime.ops.registry import KERNEL_CALL, execute1, register

# -- shared by the gradient ops of every family (ReduceGrad, GatherGrad, StridedSliceGrad) ---


def target_shape(like, shape):
    """The shape a gradient op's kernel restores: its `like` operand's, else `shape`."""
    return shape if not like else np.shape(like[0])


def like_infer(specs, attrs):
    """The dtype of the first input; the static shape `shape`, or else the second input's."""
    shape = attrs.get("shape")
    return [(specs[0][0], shape if shape is not None else specs[1][1])]


def target_shape_jax(node, ins):
    """A JAX rule's target shape: its `like` operand's, else its `shape` attribute."""
    if len(ins) > 1:
        return tuple(np.shape(ins[1]))
    return lowering_api.static_shape(node.attrs["shape"], "the target shape")


def lowered_on_jax(rule):
    """Declined by the array backends; lowered by JAX's `rule`."""
    return dict(lowering_api.GRADIENTS_ON_HOST, jax=rule)


# -- the helpers gradient rules call -----------------------------------------------------------


def fully_known(shape):
    """True for a static shape with every dimension known."""
    return shape is not None and None not in shape


def shaped(op, x, like, shape, attrs=None):
    """Runs helper op `op` on `x` towards the shape of `like`: given as the static `shape`
    attribute when fully known (then `like` is not an input, and with a constant `x` the
    executor folds the op), else read from `like` at run time."""
    attrs = dict(attrs or (), shape=tuple(shape) if fully_known(shape) else None)
    if attrs["shape"] is not None:
        return execute1(op, [x], attrs)
    return execute1(op, [x, like() if callable(like) else like], attrs)


def sum_to(g, ctx, i):
    """Gradient `g` of a broadcasting op's output reduced to the shape of input `i`."""
    if g is None:
        return None
    shape = ctx.input_shape(i)
    if fully_known(shape) and g._shape_tuple() == shape:
        return g
    return shaped(SUM_TO_SHAPE, g, lambda: ctx.input(i), shape)


# -- SumToShape, BroadcastLike ------------------------------------------------------------------


def _sum_to_shape(x, *like, shape):
    shape = target_shape(like, shape)
    have = np.shape(x)
    if have == shape:
        return x
    lead = len(have) - len(shape)
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and have[lead + i] != 1)
    if axes:
        x = np.add.reduce(x, axis=axes, keepdims=True)
    return np.reshape(x, shape)


def _broadcast_like(x, *like, shape):
    return np.broadcast_to(x, target_shape(like, shape))


def target_shape_numba(lowerer, node, ins):
    """The target dimensions of a gradient helper: its `like` input's, else `shape`."""
    if len(ins) > 1:
        return dims(ins[1])
    shape = node.attrs["shape"]
    if shape is None or None in shape:
        raise lowering_api.Unsupported("a target shape known only at run time")
    return [str(int(d)) for d in shape]


def _sum_to_shape_numba(lowerer, node, ins, outs):
    """SumToShape to a target of static shape: the leading axes and those where the target
    has 1 summed (an axis of 1 sums to itself), then reshaped."""
    x, out = ins[0], outs[0]
    if out.shape is None or None in out.shape:
        raise lowering_api.Unsupported("a target shape known only at run time")
    target = out.shape
    if x.rank0:
        lowerer.assign(out, x if out.rank0 else "np.full(%s, %s)" % (
            lowerer.literal(target), x))
        return
    have = dims(x)
    lead = len(have) - len(target)
    if lead < 0:
        raise lowering_api.Unsupported("a sum to a shape of higher rank")
    axes = list(range(lead)) + [lead + i for i, d in enumerate(target) if d == 1]
    kept = [a for a in range(len(have)) if a not in axes]
    rows, length = product([have[a] for a in kept]), product([have[a] for a in axes])
    summed = sum_leading_axes(lowerer, x, out, axes, length, rows)
    if summed is not None:
        finish(lowerer, out, summed, [str(d) for d in target])
        return
    moved, result, row = (lowerer.fresh(p) for p in ("t", "r", "j"))
    lowerer.line("%s = np.ascontiguousarray(%s).reshape((%s, %s))" % (
        moved, transposed(x, kept + axes), rows, length))
    lowerer.line("%s = np.empty(%s, %s)" % (result, rows, type_name(out.dtype)))
    lowerer.line("for %s in range(%s):" % (row, rows))
    with lowerer.block():
        lowerer.line("%s[%s] = np.sum(%s[%s])" % (result, row, moved, row))
    finish(lowerer, out, result, [str(d) for d in target])


def _sum_to_shape_grad(ctx, grads):
    out = shaped(BROADCAST_LIKE, grads[0], lambda: ctx.input(0), ctx.input_shape(0))
    return [out] + [None] * (len(ctx.needed) - 1)


def _sum_to_shape_jax(lw, node, ins):
    """SumToShape: summed over the broadcast axes, as the kernel picks them."""
    x, shape = ins[0], target_shape_jax(node, ins)
    have = tuple(np.shape(x))
    if have == shape:
        return [x]
    lead = len(have) - len(shape)
    if lead < 0:
        raise lowering_api.Unsupported("sums to a shape of higher rank")
    axes = tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(shape) if d == 1 and have[lead + i] != 1)
    if axes:
        x = lw.jnp.sum(x, axis=axes, keepdims=True)
    if int(np.prod(np.shape(x))) != int(np.prod(shape)):
        raise lowering_api.Unsupported("sums %s to %s" % (have, shape))
    return [lw.jnp.reshape(x, shape)]


SUM_TO_SHAPE = register("SumToShape", _sum_to_shape, like_infer,
                        grad=_sum_to_shape_grad, emit=KERNEL_CALL, traits=("view",),
                        lowerings=dict(lowered_on_jax(_sum_to_shape_jax),
                                       numba=_sum_to_shape_numba))


def _broadcast_like_jax(lw, node, ins):
    """BroadcastLike: broadcast to the target shape."""
    try:
        return [lw.jnp.broadcast_to(ins[0], target_shape_jax(node, ins))]
    except ValueError as e:
        raise lowering_api.Unsupported("cannot broadcast: %s" % e) from None


def _broadcast_like_grad(ctx, grads):
    return [sum_to(grads[0], ctx, 0)] + [None] * (len(ctx.needed) - 1)


def _broadcast_like_numba(lowerer, node, ins, outs):
    """BroadcastLike: `x` broadcast to the target shape, as a C-contiguous copy."""
    x, out = ins[0], outs[0]
    target = target_shape_numba(lowerer, node, ins)
    if out.rank0:
        lowerer.assign(out, x if x.rank0 else "%s.reshape(1)[0]" % x)
        return
    source = "np.full(1, %s)" % x if x.rank0 else "np.ascontiguousarray(%s)" % x
    lowerer.assign(out, "np.ascontiguousarray(np.broadcast_to(%s, %s))" % (
        source, shape_tuple(target)))


BROADCAST_LIKE = register("BroadcastLike", _broadcast_like, like_infer,
                          grad=_broadcast_like_grad, emit=KERNEL_CALL,
                          traits=("view",),
                          lowerings=dict(lowered_on_jax(_broadcast_like_jax),
                                         numba=_broadcast_like_numba))


# -- ReluGrad ----------------------------------------------------------------------------------

# ReluGrad on numba, elementwise on arrays and (in fused loops) scalars: g * 1 or g * 0, as
# the kernel's product with a boolean; a loop even alone, without the boolean array numba's
# array expression makes first (a training step's 256x128: 9.8 us -> 1.9 us)
_RELU_GRAD_NUMBA = lowering_api.loop_alone("{0} * ({1} > 0)")


def _relu_grad_jax(lw, node, ins):
    """ReluGrad: g where the output is positive, else 0 (g * (y > 0), as the kernel)."""
    g = lw.jnp.asarray(ins[0])
    return [g * (lw.jnp.asarray(ins[1]) > 0).astype(g.dtype)]


def _relu_grad(g, y):
    return g * (y > 0)


def _relu_grad_grad(ctx, grads):
    return [execute1(RELU_GRAD, [grads[0], ctx.input(1)]), None]


RELU_GRAD = register("ReluGrad", _relu_grad, lambda specs, attrs: [specs[0]],
                     grad=_relu_grad_grad, emit=KERNEL_CALL,
                     lowerings=dict(lowered_on_jax(_relu_grad_jax), numba=_RELU_GRAD_NUMBA),
                     traits=("elementwise",))


# -- batching rules (runtime/ops/batching.py: a Jacobian's rows at once) -----------------------


def _like_target(batcher, node, args, batched):
    """The example shape a SumToShape or BroadcastLike restores: its static `shape`, else its
    `like` operand's (which must be unbatched and of static shape)."""
    shape = node.attrs["shape"]
    if shape is None:
        if len(args) < 2 or batched[1]:
            batcher.unbatchable("%s towards a batched shape" % node.op.name)
        shape = batcher.example_shape(args[1], False)
    if None in shape:
        batcher.unbatchable("%s towards a shape known only at run time" % node.op.name)
    return tuple(shape)


def _sum_to_shape_batched(batcher, node, args, batched):
    target = _like_target(batcher, node, args, batched)
    x = args[0]
    lead = batcher.rank(x, True) - len(target)
    if lead > 0:  # the example's leading axes, not the batch's, are summed
        x = batcher.reduce_sum(x, list(range(1, lead + 1)))
    x = batcher.expand(x, len(target))
    return [execute1(SUM_TO_SHAPE, [x], dict(node.attrs, shape=(batcher.size,) + target))]


def _broadcast_like_batched(batcher, node, args, batched):
    target = _like_target(batcher, node, args, batched)
    x = batcher.expand(args[0], len(target))
    return [execute1(BROADCAST_LIKE, [x], dict(node.attrs, shape=(batcher.size,) + target))]


batching.declare(SUM_TO_SHAPE, _sum_to_shape_batched)
batching.declare(BROADCAST_LIKE, _broadcast_like_batched)
