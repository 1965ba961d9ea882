"""Small ops that gradient rules need, declared with their own gradients (written in
runtime/gradients/grad_ops.py).

  * `SumToShape(x, like)`: `x` summed over the axes along which `like` was broadcast, and
    reshaped to `like`'s shape (the gradient of an operand of a broadcasting op). Used when
    the static shapes do not already show that nothing was broadcast.
  * `BroadcastLike(x, like)`: `x` broadcast to `like`'s shape (its transpose).
  * `ReduceGrad(g, like, axis, keepdims, mean)`: the gradient of a Sum (or Mean) reduction:
    `g` with the reduced axes restored and broadcast to `like`'s shape (divided by the number
    of reduced elements for Mean).
  * `GatherGrad(g, params, indices, axis)`: zeros of `params`' shape with `g` added at
    `indices` (repeated indices add up).
  * `StridedSliceGrad(g, x, *dynamic, spec)`: zeros of `x`'s shape with `g` at `x[index]`.
  * `ProdOthers(x, axis)`: for each element, the product of the other elements of its
    reduced group (the gradient of Prod, exact where elements are zero).
  * `ReluGrad(g, y)`: `g` where the Relu's output `y` is positive, else 0.

Each takes the tensor whose shape it needs as an operand, so the same op works when shapes
are known only at run time.
"""

import numpy as np

from runtime import lowering_api
from runtime.ops import math_lowerings, numba_lowerings, numba_scans, slicing
from runtime.ops.registry import KERNEL_CALL, NO_GRADIENT, not_saveable, register
from runtime.ops.slicing import decode_index, strided_slice_grad_numba

# lowering rules that decline, saying why (see runtime/backends/lowering.py)
_GRADIENTS_ON_HOST = {"array": lowering_api.unsupported("gradient ops run on the numpy executor")}


# -- JAX lowering rules (`rule(lowerer, node, ins) -> [values]`, see runtime/lowering_api.py)


def _target_jax(node, ins):
    """The shape a gradient op restores: its `like` operand's, else its `shape` attribute."""
    if len(ins) > 1:
        return tuple(np.shape(ins[1]))
    return lowering_api.static_shape(node.attrs["shape"], "the target shape")


def _sum_to_shape_jax(lw, node, ins):
    """SumToShape: summed over the broadcast axes, as the kernel picks them."""
    x, shape = ins[0], _target_jax(node, ins)
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


def _broadcast_like_jax(lw, node, ins):
    """BroadcastLike: broadcast to the target shape."""
    try:
        return [lw.jnp.broadcast_to(ins[0], _target_jax(node, ins))]
    except ValueError as e:
        raise lowering_api.Unsupported("cannot broadcast: %s" % e) from None


def _reduce_grad_jax(lw, node, ins):
    """ReduceGrad: the reduced axes restored, broadcast, divided by their size for a mean."""
    g, shape = lw.jnp.asarray(ins[0]), _target_jax(node, ins)
    axis = node.attrs["axis"]
    axes = (tuple(range(len(shape))) if axis is None else
            tuple(sorted(a % len(shape) for a in axis)) if shape else ())
    if not node.attrs["keepdims"]:
        g = lw.jnp.reshape(g, [1 if i in axes else d for i, d in enumerate(shape)])
    try:
        out = lw.jnp.broadcast_to(g, shape)
    except ValueError as e:
        raise lowering_api.Unsupported("cannot broadcast: %s" % e) from None
    if node.attrs["mean"]:
        if out.dtype.kind != "f":
            raise lowering_api.Unsupported("the mean's gradient of %s values" % out.dtype)
        count = int(np.prod([shape[a] for a in axes], dtype=np.int64))
        out = math_lowerings.exact_divide_jax(lw, out,
                                              np.asarray(max(count, 1), dtype=out.dtype))
    return [out]


def _relu_grad_jax(lw, node, ins):
    """ReluGrad: g where the output is positive, else 0 (g * (y > 0), as the kernel)."""
    g = lw.jnp.asarray(ins[0])
    return [g * (lw.jnp.asarray(ins[1]) > 0).astype(g.dtype)]


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


def _strided_slice_grad_jax(lw, node, ins):
    """StridedSliceGrad: zeros with g at `x[index]`; dynamic indices are scalars checked
    against their dimension, as the forward kernel does (dynamic slice bounds decline)."""
    g, x, dynamic = lw.jnp.asarray(ins[0]), ins[1], ins[2:]
    shape = tuple(np.shape(x))
    index = slicing.static_index_jax(lw, node.attrs["spec"], list(dynamic), shape)
    out = lw.jnp.zeros(shape, g.dtype)
    try:
        return [out.at[index].set(g)]
    except (ValueError, TypeError, IndexError) as e:
        raise lowering_api.Unsupported("cannot place the gradient: %s" % e) from None


def _lowered_on_jax(rule):
    """Declined by the array backends; lowered by JAX's `rule`."""
    return dict(_GRADIENTS_ON_HOST, jax=rule)

# -- kernels ------------------------------------------------------------------------------------


def _target_shape(like, shape):
    return shape if not like else np.shape(like[0])


def _sum_to_shape(x, *like, shape):
    shape = _target_shape(like, shape)
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
    return np.broadcast_to(x, _target_shape(like, shape))


def _reduced_axes(rank, axis):
    if axis is None:
        return tuple(range(rank))
    return tuple(sorted(a % rank for a in axis)) if rank else ()


def _reduce_grad(g, *like, axis, keepdims, mean, shape):
    shape = _target_shape(like, shape)
    axes = _reduced_axes(len(shape), axis)
    if not keepdims:
        g = np.reshape(g, [1 if i in axes else d for i, d in enumerate(shape)])
    out = np.broadcast_to(g, shape)
    if mean:
        count = 1
        for a in axes:
            count *= shape[a]
        out = out / np.asarray(max(count, 1), dtype=out.dtype)
    return out


def _gather_grad(g, params, indices, axis):
    out = np.zeros(np.shape(params), dtype=np.asarray(g).dtype)
    index = (slice(None),) * (axis % out.ndim) + (np.asarray(indices),)
    np.add.at(out, index, g)
    return out


def _strided_slice_grad(g, x, *dynamic, spec):
    out = np.zeros(np.shape(x), dtype=np.asarray(g).dtype)
    out[decode_index(spec, dynamic)] = g
    return out


def _prod_others(x, axis):
    x = np.asarray(x)
    rank = x.ndim
    axes = _reduced_axes(rank, axis)
    keep = [a for a in range(rank) if a not in axes]
    perm = keep + list(axes)
    moved = np.transpose(x, perm)
    group = moved.shape[len(keep):]
    flat = moved.reshape(moved.shape[:len(keep)] + (-1,))
    ones = np.ones(flat.shape[:-1] + (1,), dtype=x.dtype)
    left = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    right = np.cumprod(np.concatenate([ones, flat[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    others = (left * right).reshape(moved.shape[:len(keep)] + group)
    return np.transpose(others, np.argsort(perm))


def _relu_grad(g, y):
    return g * (y > 0)


# -- inference rules ---------------------------------------------------------------------------


def _like_infer(specs, attrs):
    """The dtype of the first input; the static shape `shape`, or else the second input's."""
    shape = attrs.get("shape")
    return [(specs[0][0], shape if shape is not None else specs[1][1])]


_RULES = "runtime.gradients.grad_ops:"  # their gradients, written with the ops API
# ReluGrad on numba, elementwise on arrays and (in fused loops) scalars: g * 1 or g * 0, as
# the kernel's product with a boolean
_RELU_GRAD_NUMBA = "{0} * ({1} > 0)"

SUM_TO_SHAPE = register("SumToShape", _sum_to_shape, _like_infer,
                        grad=_RULES + "sum_to_shape_grad", emit=KERNEL_CALL, traits=("view",),
                        lowerings=dict(_lowered_on_jax(_sum_to_shape_jax),
                                       numba=numba_scans.sum_to_shape))
BROADCAST_LIKE = register("BroadcastLike", _broadcast_like, _like_infer,
                          grad=_RULES + "broadcast_like_grad", emit=KERNEL_CALL,
                          traits=("view",),
                          lowerings=dict(_lowered_on_jax(_broadcast_like_jax),
                                         numba=numba_scans.broadcast_like))
REDUCE_GRAD = register("ReduceGrad", _reduce_grad, _like_infer,
                       grad=_RULES + "reduce_grad_grad", emit=KERNEL_CALL, traits=("view",),
                       lowerings=dict(_lowered_on_jax(_reduce_grad_jax),
                                      numba=numba_scans.reduce_grad))
GATHER_GRAD = register("GatherGrad", _gather_grad, _like_infer,
                       grad=_RULES + "gather_grad_grad", emit=KERNEL_CALL,
                       lowerings=dict(_lowered_on_jax(_gather_grad_jax),
                                      numba=numba_lowerings.gather_grad))
STRIDED_SLICE_GRAD = register("StridedSliceGrad", _strided_slice_grad, _like_infer,
                              grad=_RULES + "strided_slice_grad_grad", emit=KERNEL_CALL,
                              lowerings=dict(_lowered_on_jax(_strided_slice_grad_jax),
                                             numba=strided_slice_grad_numba))
PROD_OTHERS = register("ProdOthers", _prod_others, lambda specs, attrs: [specs[0]],
                       grad=NO_GRADIENT, emit=KERNEL_CALL,
                       lowerings=_GRADIENTS_ON_HOST)
RELU_GRAD = register("ReluGrad", _relu_grad, lambda specs, attrs: [specs[0]],
                     grad=_RULES + "relu_grad_grad", emit=KERNEL_CALL,
                     lowerings=dict(_lowered_on_jax(_relu_grad_jax), numba=_RELU_GRAD_NUMBA),
                     traits=("elementwise",))


# -- ops whose kernels are part of the gradient machinery (named, imported at first use) --------


def _out_specs_infer(specs, attrs):
    return list(attrs["out_specs"])


# Replays a While loop and runs its body's VJP backwards (runtime.gradients.control_flow_grads).
# A gradient of a staged while loop runs compiled Python kept in its `plan`: no saved form yet.
_PLAN_NOT_SAVEABLE = not_saveable(
    "it is the gradient of a tensor-dependent while loop, whose plan holds compiled Python "
    "(saving it is not supported yet: take the gradient outside the saved function)")

WHILE_GRAD_OP = register("WhileGrad", "runtime.gradients.control_flow_grads:while_grad_kernel",
                         _out_specs_infer,
                         grad="runtime.gradients.while_grad_grads:while_grad_grad",
                         emit=KERNEL_CALL, traits=("stateful", "view"),
                         saving=_PLAN_NOT_SAVEABLE,
                         lowerings=_GRADIENTS_ON_HOST)
# The gradient of a WhileGrad (runtime.gradients.while_grad_grads).
WHILE_GRAD_GRAD_OP = register(
    "WhileGradGrad", "runtime.gradients.while_grad_grads:while_grad_grad_kernel",
    _out_specs_infer, grad=NO_GRADIENT, emit=KERNEL_CALL, traits=("stateful", "view"),
    saving=_PLAN_NOT_SAVEABLE, lowerings=_GRADIENTS_ON_HOST)
# Runs the tape kept from a py_function's run backwards (runtime.gradients.py_function_grads).
PY_FUNCTION_GRAD_OP = register(
    "EagerPyFuncGrad", "runtime.gradients.py_function_grads:py_function_grad_kernel",
    _out_specs_infer, grad=NO_GRADIENT, emit=KERNEL_CALL,
    traits=("side_effects", "host_only", "shares_state"),
    saving=not_saveable("it runs a py_function's recorded Python gradient"),
    lowerings=_GRADIENTS_ON_HOST)
