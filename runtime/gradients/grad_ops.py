"""Small ops that gradient rules need, with their own gradients, and shape helpers.

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

from runtime.ops import array_ops, math_ops
from runtime.ops.array_ops import _decode_index
from runtime.ops.registry import execute1, register

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
    out[_decode_index(spec, dynamic)] = g
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


SUM_TO_SHAPE = register("SumToShape", _sum_to_shape, _like_infer)
BROADCAST_LIKE = register("BroadcastLike", _broadcast_like, _like_infer)
REDUCE_GRAD = register("ReduceGrad", _reduce_grad, _like_infer)
GATHER_GRAD = register("GatherGrad", _gather_grad, _like_infer)
STRIDED_SLICE_GRAD = register("StridedSliceGrad", _strided_slice_grad, _like_infer)
PROD_OTHERS = register("ProdOthers", _prod_others, lambda specs, attrs: [specs[0]])
RELU_GRAD = register("ReluGrad", _relu_grad, lambda specs, attrs: [specs[0]])

# -- helpers used by the rules ---------------------------------------------------------------


def fully_known(shape):
    """True for a static shape with every dimension known."""
    return shape is not None and None not in shape


def _shaped(op, x, like, shape, attrs=None):
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
    return _shaped(SUM_TO_SHAPE, g, lambda: ctx.input(i), shape)


def reduce_grad(g, like, axis, keepdims, mean=False):
    """The gradient of Sum/Mean: `g` spread back over `like`'s shape (`like` may be a
    function giving the tensor, called only when its shape is not static)."""
    shape = like.shape_hint if isinstance(like, _Like) else like._shape_tuple()
    return _shaped(REDUCE_GRAD, g, like, shape,
                   {"axis": axis, "keepdims": bool(keepdims), "mean": bool(mean)})


class _Like:
    """A tensor known by its static shape, made only if that shape is not fully known."""

    def __init__(self, shape_hint, make):
        self.shape_hint = shape_hint
        self._make = make

    def __call__(self):
        return self._make()


def like_input(ctx, i):
    """Input `i` of an op as the `like` of `reduce_grad`."""
    return _Like(ctx.input_shape(i), lambda: ctx.input(i))


def zeros_for(t):
    """Zeros shaped like tensor `t`."""
    return array_ops.zeros_like(t)


# -- gradients of the helper ops ---------------------------------------------------------------


def _sum_to_shape_grad(ctx, grads):
    out = _shaped(BROADCAST_LIKE, grads[0], lambda: ctx.input(0), ctx.input_shape(0))
    return [out] + [None] * (len(ctx.needed) - 1)


def _broadcast_like_grad(ctx, grads):
    return [sum_to(grads[0], ctx, 0)] + [None] * (len(ctx.needed) - 1)


def _reduce_grad_grad(ctx, grads):
    attrs = ctx.attrs
    reduce = math_ops.reduce_mean if attrs["mean"] else math_ops.reduce_sum
    return [reduce(grads[0], attrs["axis"], attrs["keepdims"])] + [None] * (
        len(ctx.needed) - 1)


def _gather_grad_grad(ctx, grads):
    return [array_ops.gather(grads[0], ctx.input(2), axis=ctx.attrs["axis"]), None, None]


def _strided_slice_grad_grad(ctx, grads):
    dynamic = [ctx.input(i) for i in range(2, len(ctx.needed))]
    out = execute1(array_ops.OPS["StridedSlice"], [grads[0]] + dynamic,
                   {"spec": ctx.attrs["spec"]})
    return [out, None] + [None] * len(dynamic)


def _relu_grad_grad(ctx, grads):
    return [execute1(RELU_GRAD, [grads[0], ctx.input(1)]), None]


SUM_TO_SHAPE.grad = _sum_to_shape_grad
RELU_GRAD.grad = _relu_grad_grad
BROADCAST_LIKE.grad = _broadcast_like_grad
REDUCE_GRAD.grad = _reduce_grad_grad
GATHER_GRAD.grad = _gather_grad_grad
STRIDED_SLICE_GRAD.grad = _strided_slice_grad_grad
