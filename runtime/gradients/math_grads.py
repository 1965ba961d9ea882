"""Gradient rules of the math ops (runtime/ops/math_ops.py) and of the nn ops, named by
their declarations (a unary op's rule from its derivative is declared in math_ops itself).

Each rule is `rule(ctx, grads) -> [gradient per input]` (see backprop.GradContext); it
skips inputs that need no gradient (`ctx.needed`) and writes its result with the ops API, so
that it runs eagerly and in graphs alike. Binary ops broadcast: the gradient of an operand
is summed back to its shape (`gradient_ops.sum_to`).
"""

from runtime.ops import array_ops as A
from runtime.ops import linalg_ops as Lin
from runtime.ops import math_ops as M
from runtime.ops import reduction_ops as Red
from runtime.ops import selection_ops as Sel
from runtime.ops.gradient_ops import RELU_GRAD, sum_to
from runtime.ops.reduction_ops import PROD_OTHERS, like_input, reduce_grad
from runtime.ops.registry import execute1

# -- elementwise binary --------------------------------------------------------------------


def add_grad(ctx, grads):
    g = grads[0]
    return [sum_to(g, ctx, 0) if ctx.needed[0] else None,
            sum_to(g, ctx, 1) if ctx.needed[1] else None]


def sub_grad(ctx, grads):
    g = grads[0]
    return [sum_to(g, ctx, 0) if ctx.needed[0] else None,
            sum_to(M.negative(g), ctx, 1) if ctx.needed[1] else None]


def mul_grad(ctx, grads):
    g = grads[0]
    return [sum_to(M.multiply(g, ctx.input(1)), ctx, 0) if ctx.needed[0] else None,
            sum_to(M.multiply(ctx.input(0), g), ctx, 1) if ctx.needed[1] else None]


def div_grad(ctx, grads):
    g = grads[0]
    y = ctx.input(1)
    dx = sum_to(M.truediv(g, y), ctx, 0) if ctx.needed[0] else None
    dy = None
    if ctx.needed[1]:
        # d(x/y)/dy = -x / y**2
        dy = sum_to(M.multiply(g, M.negative(M.truediv(M.truediv(ctx.input(0), y), y))),
                    ctx, 1)
    return [dx, dy]


def floormod_grad(ctx, grads):
    g = grads[0]
    dx = sum_to(g, ctx, 0) if ctx.needed[0] else None
    dy = None
    if ctx.needed[1]:
        quotient = M.floordiv(ctx.input(0), ctx.input(1))
        dy = sum_to(M.negative(M.multiply(g, quotient)), ctx, 1)
    return [dx, dy]


def pow_grad(ctx, grads):
    g = grads[0]
    x, y = ctx.input(0), ctx.input(1)
    dx = dy = None
    if ctx.needed[0]:
        dx = sum_to(M.multiply(g, M.multiply(y, M.pow(x, M.subtract(y, 1)))), ctx, 0)
    if ctx.needed[1]:
        # d(x**y)/dy = x**y * log(x), taken as 0 where x <= 0 (as TensorFlow does)
        positive = M.greater(x, 0)
        safe_log = Sel.where(positive, M.log(Sel.where(positive, x, A.ones_like(x))),
                           A.zeros_like(x))
        dy = sum_to(M.multiply(g, M.multiply(ctx.output(0), safe_log)), ctx, 1)
    return [dx, dy]


def _select_grad(ctx, grads, x_wins):
    """Maximum/Minimum: the gradient goes to x where `x_wins`, else to y."""
    g = grads[0]
    zeros = A.zeros_like(g)
    return [sum_to(Sel.where(x_wins, g, zeros), ctx, 0) if ctx.needed[0] else None,
            sum_to(Sel.where(x_wins, zeros, g), ctx, 1) if ctx.needed[1] else None]


def maximum_grad(ctx, grads):
    return _select_grad(ctx, grads, M.greater_equal(ctx.input(0), ctx.input(1)))


def minimum_grad(ctx, grads):
    return _select_grad(ctx, grads, M.less_equal(ctx.input(0), ctx.input(1)))


def squared_difference_grad(ctx, grads):
    d = M.multiply(M.multiply(grads[0], 2.0), M.subtract(ctx.input(0), ctx.input(1)))
    return [sum_to(d, ctx, 0) if ctx.needed[0] else None,
            sum_to(M.negative(d), ctx, 1) if ctx.needed[1] else None]



# -- elementwise unary ---------------------------------------------------------------------


def neg_grad(ctx, grads):
    return [M.negative(grads[0])]


def sign_grad(ctx, grads):
    return [A.zeros_like(grads[0])]


def relu_grad(ctx, grads):
    return [execute1(RELU_GRAD, [grads[0], ctx.output(0)])]


def sqrt_grad(ctx, grads):
    return [M.truediv(grads[0], M.multiply(ctx.output(0), 2.0))]


def log_grad(ctx, grads):
    return [M.truediv(grads[0], ctx.input(0))]


def log1p_grad(ctx, grads):
    return [M.truediv(grads[0], M.add(ctx.input(0), 1.0))]




# -- cast --------------------------------------------------------------------------------------


def cast_grad(ctx, grads):
    source = ctx.input_dtype(0)
    if not source.is_floating or not ctx.attrs["dtype"].is_floating:
        return [None]
    return [M.cast(grads[0], source)]


# -- reductions --------------------------------------------------------------------------------


def sum_grad(ctx, grads):
    return [reduce_grad(grads[0], like_input(ctx, 0), ctx.attrs["axis"],
                        ctx.attrs["keepdims"])]


def mean_grad(ctx, grads):
    return [reduce_grad(grads[0], like_input(ctx, 0), ctx.attrs["axis"],
                        ctx.attrs["keepdims"], mean=True)]


def extreme_grad(ctx, grads):
    """Max/Min: the gradient is shared equally by the elements equal to the extreme."""
    x = ctx.input(0)
    axis, keepdims = ctx.attrs["axis"], ctx.attrs["keepdims"]
    spread = reduce_grad(ctx.output(0), x, axis, keepdims)
    hits = M.cast(M.equal(x, spread), x.dtype)
    count = reduce_grad(Red.reduce_sum(hits, axis, keepdims), x, axis, keepdims)
    return [M.multiply(reduce_grad(grads[0], x, axis, keepdims), M.truediv(hits, count))]




def prod_grad(ctx, grads):
    x = ctx.input(0)
    axis, keepdims = ctx.attrs["axis"], ctx.attrs["keepdims"]
    others = execute1(PROD_OTHERS, [x], {"axis": axis})
    return [M.multiply(reduce_grad(grads[0], x, axis, keepdims), others)]



# -- matmul, add_n, clip -----------------------------------------------------------------------


def matmul_grad(ctx, grads):
    g = grads[0]
    a, b = ctx.input(0), ctx.input(1)
    ta, tb = ctx.attrs["transpose_a"], ctx.attrs["transpose_b"]
    da = db = None
    if ctx.needed[0]:
        if not ta:
            da = Lin.matmul(g, b, transpose_b=not tb)
        else:
            da = Lin.matmul(b, g, transpose_a=tb, transpose_b=True)
        da = _batch_sum(da, ctx, 0)
    if ctx.needed[1]:
        if not tb:
            db = Lin.matmul(a, g, transpose_a=not ta)
        else:
            db = Lin.matmul(g, a, transpose_a=True, transpose_b=ta)
        db = _batch_sum(db, ctx, 1)
    return [da, db]


def _batch_sum(d, ctx, i):
    """Sums a batched matmul gradient over the batch dimensions its operand was broadcast
    along (nothing to do for plain matrices)."""
    shape = ctx.input_shape(i)
    if shape is not None and len(shape) == 2 and d._shape_tuple() is not None and \
            len(d._shape_tuple()) == 2:
        return d
    return sum_to(d, ctx, i)


def add_n_grad(ctx, grads):
    return [sum_to(grads[0], ctx, i) if need else None for i, need in enumerate(ctx.needed)]


def clip_grad(ctx, grads):
    g = grads[0]
    x, lo, hi = ctx.input(0), ctx.input(1), ctx.input(2)
    zeros = A.zeros_like(g)
    below, above = M.less(x, lo), M.greater(x, hi)
    inside = M.logical_not(M.logical_or(below, above))
    return [Sel.where(inside, g, zeros) if ctx.needed[0] else None,
            sum_to(Sel.where(below, g, zeros), ctx, 1) if ctx.needed[1] else None,
            sum_to(Sel.where(above, g, zeros), ctx, 2) if ctx.needed[2] else None]


# -- softmax ---------------------------------------------------------------------------------


def softmax_grad(ctx, grads):
    g, y = grads[0], ctx.output(0)
    axis = ctx.attrs["axis"]
    inner = Red.reduce_sum(M.multiply(g, y), axis=axis, keepdims=True)
    return [M.multiply(y, M.subtract(g, inner))]


def log_softmax_grad(ctx, grads):
    g, y = grads[0], ctx.output(0)
    total = Red.reduce_sum(g, axis=ctx.attrs["axis"], keepdims=True)
    return [M.subtract(g, M.multiply(M.exp(y), total))]


