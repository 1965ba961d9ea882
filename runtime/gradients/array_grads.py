"""Gradient rules of the array ops (runtime/ops/array_ops.py), of variable reads and of the
io ops. Ops that only move or select elements send the gradient back to where each element
came from; shape queries, constants and index computations carry no gradient.
"""

import numpy as np

from runtime.ops import array_ops as A
from runtime.ops import manipulation_ops as Manip
from runtime.ops import reduction_ops as Red
from runtime.ops import selection_ops as Sel
from runtime.ops import slicing as Slicing
from runtime.ops.gradient_ops import fully_known, sum_to
from runtime.ops.registry import execute1
from runtime.ops.selection_ops import GATHER_GRAD
from runtime.ops.slicing import STRIDED_SLICE_GRAD


def identity_grad(ctx, grads):
    return [grads[0]]




def fill_grad(ctx, grads):
    return [None, Red.reduce_sum(grads[0]) if ctx.needed[1] else None]


def reshape_back(ctx, grads):
    """Reshape, ExpandDims, Squeeze: the gradient takes the input's shape back."""
    g = grads[0]
    x_shape = ctx.input_shape(0)
    if fully_known(x_shape):
        if g._shape_tuple() == x_shape:
            return [g] + [None] * (len(ctx.needed) - 1)
        return [Manip.reshape(g, list(x_shape))] + [None] * (len(ctx.needed) - 1)
    return [Manip.reshape(g, A.shape(ctx.input(0)))] + [None] * (len(ctx.needed) - 1)




def transpose_grad(ctx, grads):
    perm = ctx.attrs["perm"]
    if perm is None:
        return [Manip.transpose(grads[0])]
    return [Manip.transpose(grads[0], [int(p) for p in np.argsort(perm)])]


def concat_grad(ctx, grads):
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
            A.shape(ctx.input(i))[axis]
        end = start + size
        if need:
            index = (slice(None),) * axis + (slice(start, end),)
            out.append(Slicing.strided_slice_from_index(g, index))
        else:
            out.append(None)
        start = end
    return out


def pack_grad(ctx, grads):
    parts = Manip.unstack(grads[0], num=len(ctx.needed), axis=ctx.attrs["axis"])
    return [p if need else None for p, need in zip(parts, ctx.needed)]


def unpack_grad(ctx, grads):
    parts = [g if g is not None else A.zeros_like(ctx.output(i)) for i, g in enumerate(grads)]
    return [Manip.stack(parts, axis=ctx.attrs["axis"])]


def tile_grad(ctx, grads):
    g = grads[0]
    multiples = ctx.attrs["multiples"]
    shape = ctx.input_shape(0)
    if fully_known(shape):
        split = [n for m, d in zip(multiples, shape) for n in (m, d)]
    else:
        dims = A.shape(ctx.input(0))
        split = Manip.stack([n for k, m in enumerate(multiples)
                         for n in (A.constant(m, dtype=dims.dtype), dims[k])])
    spread = Manip.reshape(g, split)
    return [Red.reduce_sum(spread, axis=list(range(0, 2 * len(multiples), 2)))]


def broadcast_to_grad(ctx, grads):
    return [sum_to(grads[0], ctx, 0)]


def gather_grad(ctx, grads):
    if not ctx.needed[0]:
        return [None, None]
    return [execute1(GATHER_GRAD, [grads[0], ctx.input(0), ctx.input(1)],
                     {"axis": ctx.attrs["axis"]}), None]


def select_grad(ctx, grads):
    g = grads[0]
    condition = ctx.input(0)
    zeros = A.zeros_like(g)
    return [None,
            sum_to(Sel.where(condition, g, zeros), ctx, 1) if ctx.needed[1] else None,
            sum_to(Sel.where(condition, zeros, g), ctx, 2) if ctx.needed[2] else None]


def strided_slice_grad(ctx, grads):
    dynamic = [ctx.input(i) for i in range(1, len(ctx.needed))]
    out = execute1(STRIDED_SLICE_GRAD, [grads[0], ctx.input(0)] + dynamic,
                   {"spec": ctx.attrs["spec"]})
    return [out] + [None] * len(dynamic)


# -- variables ---------------------------------------------------------------------------------


def read_variable_grad(ctx, grads):
    """The gradient of a read flows to the variable (its handle); a variable's gradient is
    the sum over its reads."""
    return [grads[0]]



# -- io and data -------------------------------------------------------------------------------

