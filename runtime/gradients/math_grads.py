"""Gradient rules of the math ops that are written with ops declared above runtime/ops/math_ops.py
(`zeros_like`, `ones_like`, `where`): Pow, Maximum, Minimum, Sign and ClipByValue, named by
their declarations. The other math ops declare their rules beside them.

Each rule is `rule(ctx, grads) -> [gradient per input]` (see backprop.GradContext); it
skips inputs that need no gradient (`ctx.needed`) and writes its result with the ops API, so
that it runs eagerly and in graphs alike. Binary ops broadcast: the gradient of an operand
is summed back to its shape (`gradient_ops.sum_to`).
"""

from runtime.ops import array_ops as A
from runtime.ops import math_ops as M
from runtime.ops import selection_ops as Sel
from runtime.ops.gradient_ops import sum_to


def pow_grad(ctx, grads):
    g = grads[0]
    x, y = ctx.input(0), ctx.input(1)
    dx = dy = None
    if ctx.needed[0]:  # complex: times the conjugate derivative, as TensorFlow's rule
        dx = sum_to(M.multiply(g, M.conj(M.multiply(y, M.pow(x, M.subtract(y, 1))))), ctx, 0)
    if ctx.needed[1]:
        # d(x**y)/dy = x**y * log(x), taken as 0 where x <= 0 (as TensorFlow does; for
        # complex x, where x is 0)
        usable = M.not_equal(x, 0) if x.dtype.is_complex else M.greater(x, 0)
        safe_log = Sel.where(usable, M.log(Sel.where(usable, x, A.ones_like(x))),
                             A.zeros_like(x))
        dy = sum_to(M.multiply(g, M.conj(M.multiply(ctx.output(0), safe_log))), ctx, 1)
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


def sign_grad(ctx, grads):
    return [A.zeros_like(grads[0])]


def clip_grad(ctx, grads):
    g = grads[0]
    x, lo, hi = ctx.input(0), ctx.input(1), ctx.input(2)
    zeros = A.zeros_like(g)
    below, above = M.less(x, lo), M.greater(x, hi)
    inside = M.logical_not(M.logical_or(below, above))
    return [Sel.where(inside, g, zeros) if ctx.needed[0] else None,
            sum_to(Sel.where(below, g, zeros), ctx, 1) if ctx.needed[1] else None,
            sum_to(Sel.where(above, g, zeros), ctx, 2) if ctx.needed[2] else None]
