"""Gradients of the TensorArray ops (runtime/ops/tensor_array_ops.py).

The gradient of a TensorArray handle is another handle: a *gradient array* of the same
size whose element i is the gradient of element i (an unwritten element is zero). So a
handle's gradient flows through loops and branches like any loop variable, and gradients
of one handle are summed element by element (`TensorArrayGradAdd`).

    op                                  gradient
    write(h, i, v) -> h'                dv = G'[i], dh = G' with element i cleared
    read(h, i) -> v                     dh = an array like h holding g at i
    stack(h) -> values                  dh = an array like h holding the rows of g
    concat(h) -> values                 dh = an array like h holding g split at h's lengths
    unstack(h, values) -> h'            dvalues = G'[0..n) stacked, dh = G' with those cleared
    gather(h, indices) -> values        dh = an array like h with g[k] added at indices[k]
    scatter(h, indices, values) -> h'   dvalues = G'[indices] stacked, dh = G' with those cleared

Each gradient is one small op (runtime/ops/tensor_array_grad_ops.py; zeros stand in for
unwritten elements of a gradient array), with the array's run-time `TensorArrayValue` as its
value.
"""


from runtime.gradients.backprop import register_adder, register_value_rules, register_zeros
from runtime.ops.registry import execute, execute1
from runtime.ops.tensor_array_grad_ops import (
    CONCAT_GRAD,
    GATHER_GRAD,
    GRAD_ADD,
    READ_GRAD,
    SCATTER_GRAD,
    STACK_GRAD,
    UNSTACK_GRAD,
    WRITE_GRAD,
    ZEROS_LIKE,
    add_arrays,
    zeros_like_array,
)
from runtime.ops.tensor_array_value import TensorArrayValue


def add_gradient_arrays(grads):
    """The sum of gradient arrays (one TensorArrayGradAdd)."""
    return execute1(GRAD_ADD, list(grads))


def zeros_like_handle(handle):
    """A gradient array of zeros for TensorArray handle `handle`."""
    return execute1(ZEROS_LIKE, [handle])


register_adder("variant", add_gradient_arrays)
register_zeros("variant", zeros_like_handle)
register_value_rules(TensorArrayValue, zeros_like_array, add_arrays)

# -- rules -----------------------------------------------------------------------------------


def write_grad(ctx, grads):
    dvalue, dhandle = execute(WRITE_GRAD, [grads[0], ctx.input(1), ctx.input(2)])
    return [dhandle if ctx.needed[0] else None, None, dvalue if ctx.needed[2] else None]


def read_grad(ctx, grads):
    return [execute1(READ_GRAD, [ctx.input(0), ctx.input(1), grads[0]]), None]


def stack_grad(ctx, grads):
    return [execute1(STACK_GRAD, [ctx.input(0), grads[0]])]


def concat_grad(ctx, grads):
    return [execute1(CONCAT_GRAD, [ctx.input(0), grads[0]])]


def unstack_grad(ctx, grads):
    dvalues, dhandle = execute(UNSTACK_GRAD, [grads[0], ctx.input(1)])
    return [dhandle if ctx.needed[0] else None, dvalues if ctx.needed[1] else None]


def gather_grad(ctx, grads):
    return [execute1(GATHER_GRAD, [ctx.input(0), ctx.input(1), grads[0]]), None]


def scatter_grad(ctx, grads):
    dvalues, dhandle = execute(SCATTER_GRAD, [grads[0], ctx.input(1), ctx.input(2)])
    return [dhandle if ctx.needed[0] else None, None, dvalues if ctx.needed[2] else None]




# -- second order: the gradient ops above are linear in their gradient inputs --------------------
#
#    op                                  gradient, for cotangents (C of an array, c of a value)
#    add(G1, ..., Gk) -> G               dGi = C
#    write_grad(G, i, v) -> (dv, dh)     dG = C_dh with element i cleared, plus c_dv at i
#    read_grad(h, i, g) -> G             dg = C[i]
#    stack_grad(h, g) -> G               dg = C's elements stacked
#    unstack_grad(G, values) -> (dv, dh) dG = C_dh with rows cleared, plus the rows of c_dv


def add_grad(ctx, grads):
    return [grads[0]] * len(ctx.needed)


def write_grad_grad(ctx, grads):
    c_value, c_array = grads
    parts = []
    if c_array is not None:
        parts.append(execute(WRITE_GRAD, [c_array, ctx.input(1), ctx.input(2)])[1])
    if c_value is not None:
        parts.append(execute1(READ_GRAD, [ctx.input(0), ctx.input(1), c_value]))
    return [_sum_arrays(parts), None, None]


def read_grad_grad(ctx, grads):
    dg = execute(WRITE_GRAD, [grads[0], ctx.input(1), ctx.input(2)])[0]
    return [None, None, dg]


def stack_grad_grad(ctx, grads):
    return [None, execute(UNSTACK_GRAD, [grads[0], ctx.input(1)])[0]]


def unstack_grad_grad(ctx, grads):
    c_values, c_array = grads
    parts = []
    if c_array is not None:
        parts.append(execute(UNSTACK_GRAD, [c_array, ctx.input(1)])[1])
    if c_values is not None:
        parts.append(execute1(STACK_GRAD, [ctx.input(0), c_values]))
    return [_sum_arrays(parts), None]


def _sum_arrays(parts):
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else add_gradient_arrays(parts)
