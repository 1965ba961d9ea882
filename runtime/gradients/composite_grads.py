"""Gradient rules of the sparse and ragged ops (runtime/ops/sparse_ops.py, ragged_ops.py),
named by their declarations. Gradients flow to the stored values (and to a padding default
value); indices, shapes and row partitions are integers and get none.

Each rule is `rule(ctx, grads) -> [gradient per input]` (see backprop.GradContext) written
with the ops API, so that it runs eagerly and in graphs alike.
"""

from runtime import dtypes
from runtime.ops import array_ops as A
from runtime.ops import manipulation_ops as Manip
from runtime.ops import math_ops as M
from runtime.ops import ragged_ops as Ragged
from runtime.ops import reduction_ops as Red
from runtime.ops import selection_ops as Sel
from runtime.ops import sparse_ops as Sparse


def _padding_grad(g, stored_grad):
    """The gradient of a scalar default value: the sum of `g` where nothing is stored."""
    return M.subtract(Red.reduce_sum(g), Red.reduce_sum(stored_grad))


def sparse_to_dense_grad(ctx, grads):
    g = grads[0]
    values = Sparse.sparse_gather(g, ctx.input(0))
    default = _padding_grad(g, values) if ctx.needed[3] else None
    return [None, values if ctx.needed[1] else None, None, default]


def sparse_gather_grad(ctx, grads):
    if not ctx.needed[0] or grads[0] is None:
        return [None, None]
    dense = ctx.input(0)
    shape = A.shape(dense, out_type=dtypes.int64)
    return [Sparse.sparse_to_dense(ctx.input(1), grads[0], shape, 0, ctx.input_shape(0),
                                   validate=False, accumulate=True), None]


def sparse_add_grad(ctx, grads):
    g = grads[1]
    if g is None:
        return [None] * 6
    dense = Sparse.sparse_to_dense(ctx.output(0), g, ctx.input(2), 0, None, validate=False)
    return [None, Sparse.sparse_gather(dense, ctx.input(0)) if ctx.needed[1] else None, None,
            None, Sparse.sparse_gather(dense, ctx.input(3)) if ctx.needed[4] else None, None]


def sparse_matmul_grad(ctx, grads):
    g = grads[0]
    indices, values, dense_shape, b = (ctx.input(i) for i in range(4))
    adjoint_a, adjoint_b = ctx.attrs["adjoint_a"], ctx.attrs["adjoint_b"]
    values_grad = b_grad = None
    if ctx.needed[1]:
        columns = 1 - int(adjoint_a)  # which index column picks rows of b
        rows = Sel.gather(g, indices[:, 1 - columns])
        picked = Sel.gather(Manip.transpose(b) if adjoint_b else b, indices[:, columns])
        values_grad = Red.reduce_sum(M.multiply(rows, picked), axis=1)
    if ctx.needed[3]:
        inner = ctx.input_shape(3)
        inner = None if inner is None else inner[1 if adjoint_b else 0]
        b_grad = Sparse.sparse_dense_matmul(indices, values, dense_shape, g, inner,
                                            adjoint_a=not adjoint_a)
        if adjoint_b:
            b_grad = Manip.transpose(b_grad)
    return [None, values_grad, None, b_grad]


def ragged_to_dense_grad(ctx, grads):
    g = grads[0]
    values = Ragged.ragged_gather(g, ctx.input(1))
    default = None
    if ctx.needed[2]:
        default = _padding_grad(g, values)
    return [values if ctx.needed[0] else None, None, default, None]


def ragged_gather_grad(ctx, grads):
    if not ctx.needed[0] or grads[0] is None:
        return [None, None]
    dense = ctx.input(0)
    width = A.shape(dense, out_type=dtypes.int64)[1]
    shape = ctx.input_shape(0)
    return [Ragged.ragged_to_dense(grads[0], ctx.input(1), 0, width,
                                   None if shape is None else shape[1]), None]
