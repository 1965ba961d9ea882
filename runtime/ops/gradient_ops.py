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
from runtime.ops import numba_lowerings, numba_scans
from runtime.ops.registry import KERNEL_CALL, NO_GRADIENT, not_saveable, register
from runtime.ops.slicing import decode_index, strided_slice_grad_numba

# lowering rules that decline, saying why (see runtime/backends/lowering.py)
_GRADIENTS_ON_HOST = {"array": lowering_api.unsupported("gradient ops run on the numpy executor")}


def _lowered_on_jax(rule):
    """Declined by the array backends; JAX's `rule` of runtime/backends/jax_array_rules.py."""
    return dict(_GRADIENTS_ON_HOST, jax=lowering_api.jax_array_rule(rule))

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
                        lowerings=dict(_lowered_on_jax("sum_to_shape"),
                                       numba=numba_scans.sum_to_shape))
BROADCAST_LIKE = register("BroadcastLike", _broadcast_like, _like_infer,
                          grad=_RULES + "broadcast_like_grad", emit=KERNEL_CALL,
                          traits=("view",),
                          lowerings=dict(_lowered_on_jax("broadcast_like"),
                                         numba=numba_scans.broadcast_like))
REDUCE_GRAD = register("ReduceGrad", _reduce_grad, _like_infer,
                       grad=_RULES + "reduce_grad_grad", emit=KERNEL_CALL, traits=("view",),
                       lowerings=dict(_lowered_on_jax("reduce_grad"),
                                      numba=numba_scans.reduce_grad))
GATHER_GRAD = register("GatherGrad", _gather_grad, _like_infer,
                       grad=_RULES + "gather_grad_grad", emit=KERNEL_CALL,
                       lowerings=dict(_lowered_on_jax("gather_grad"),
                                      numba=numba_lowerings.gather_grad))
STRIDED_SLICE_GRAD = register("StridedSliceGrad", _strided_slice_grad, _like_infer,
                              grad=_RULES + "strided_slice_grad_grad", emit=KERNEL_CALL,
                              lowerings=dict(_lowered_on_jax("strided_slice_grad"),
                                             numba=strided_slice_grad_numba))
PROD_OTHERS = register("ProdOthers", _prod_others, lambda specs, attrs: [specs[0]],
                       grad=NO_GRADIENT, emit=KERNEL_CALL,
                       lowerings=_GRADIENTS_ON_HOST)
RELU_GRAD = register("ReluGrad", _relu_grad, lambda specs, attrs: [specs[0]],
                     grad=_RULES + "relu_grad_grad", emit=KERNEL_CALL,
                     lowerings=dict(_lowered_on_jax("relu_grad"), numba=_RELU_GRAD_NUMBA),
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
