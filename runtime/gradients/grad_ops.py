"""Helpers that gradient rules use (summing a broadcast gradient back to an operand's shape,
spreading a reduction's gradient), and the gradient rules of the helper ops they emit (the
ops are declared in runtime/ops/gradient_ops.py).
"""

from runtime.ops import array_ops, reduction_ops, selection_ops, slicing
from runtime.ops.gradient_ops import BROADCAST_LIKE, RELU_GRAD, SUM_TO_SHAPE
from runtime.ops.reduction_ops import REDUCE_GRAD
from runtime.ops.registry import execute1

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


def sum_to_shape_grad(ctx, grads):
    out = _shaped(BROADCAST_LIKE, grads[0], lambda: ctx.input(0), ctx.input_shape(0))
    return [out] + [None] * (len(ctx.needed) - 1)


def broadcast_like_grad(ctx, grads):
    return [sum_to(grads[0], ctx, 0)] + [None] * (len(ctx.needed) - 1)


def reduce_grad_grad(ctx, grads):
    attrs = ctx.attrs
    reduce = reduction_ops.reduce_mean if attrs["mean"] else reduction_ops.reduce_sum
    return [reduce(grads[0], attrs["axis"], attrs["keepdims"])] + [None] * (
        len(ctx.needed) - 1)


def gather_grad_grad(ctx, grads):
    return [selection_ops.gather(grads[0], ctx.input(2), axis=ctx.attrs["axis"]), None, None]


def strided_slice_grad_grad(ctx, grads):
    dynamic = [ctx.input(i) for i in range(2, len(ctx.needed))]
    out = execute1(slicing.OPS["StridedSlice"], [grads[0]] + dynamic,
                   {"spec": ctx.attrs["spec"]})
    return [out, None] + [None] * len(dynamic)


def relu_grad_grad(ctx, grads):
    return [execute1(RELU_GRAD, [grads[0], ctx.input(1)]), None]
