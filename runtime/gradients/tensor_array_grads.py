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

Each gradient is one small op below (zeros stand in for unwritten elements of a gradient
array), with the array's run-time `TensorArrayValue` as its value.
"""

import numpy as np

from runtime.gradients.backprop import (grad_for, not_differentiable, register_adder,
                                        register_value_rules, register_zeros)
from runtime.ops.registry import execute, execute1, register
from runtime.ops.tensor_array_ops import TensorArrayValue, variant


def _array(handle):
    """The TensorArrayValue of a handle's run-time value (0-d object array or the value)."""
    if isinstance(handle, np.ndarray):
        handle = handle[()]
    return handle


def _items(array):
    """The elements of `array`, None where unwritten."""
    items = []
    for i in range(array.size):
        try:
            items.append(array.read(i))
        except IndexError:
            items.append(None)
    return items


def _like(array, pairs):
    """A new array with `array`'s size and element spec, holding (index, element) pairs."""
    out = TensorArrayValue.empty(array.size, array.dynamic_size, array.element_shape,
                                 array.np_dtype, array.infer_shape)
    return out.written(pairs) if pairs else out


def _zeros_like_array(array):
    return _like(_array(array), [])


def _add_arrays(a, b):
    a, b = _array(a), _array(b)
    left, right = _items(a), _items(b)
    size = max(len(left), len(right))
    left += [None] * (size - len(left))
    right += [None] * (size - len(right))
    pairs = []
    for i, (x, y) in enumerate(zip(left, right)):
        if x is None and y is None:
            continue
        pairs.append((i, x if y is None else y if x is None else x + y))
    base = a if a.size >= b.size else b
    return _like(base, pairs)


def _element_or_zeros(array, index, like):
    try:
        return array.read(index)
    except IndexError:
        return np.zeros_like(like)


def _cleared(array, indices):
    """`array` with the elements at `indices` set to zeros (where they were written)."""
    pairs = []
    for i in indices:
        try:
            element = array.read(int(i))
        except IndexError:
            continue
        pairs.append((int(i), np.zeros_like(element)))
    return array.written(pairs) if pairs else array


# -- kernels ---------------------------------------------------------------------------------


def _add_kernel(*handles):
    total = _array(handles[0])
    for h in handles[1:]:
        total = _add_arrays(total, h)
    return total


def _zeros_kernel(handle):
    return _zeros_like_array(handle)


def _write_grad_kernel(grad, index, value):
    grad = _array(grad)
    return (np.asarray(_element_or_zeros(grad, int(index), value)),
            _cleared(grad, [int(index)]))


def _read_grad_kernel(handle, index, g):
    return _like(_array(handle), [(int(index), g)])


def _stack_grad_kernel(handle, g):
    g = np.asarray(g)
    return _like(_array(handle), [(i, g[i]) for i in range(g.shape[0])])


def _concat_grad_kernel(handle, g):
    array = _array(handle)
    lengths = [np.shape(element)[0] for element in array.elements(range(array.size))]
    rows = np.split(np.asarray(g), np.cumsum(lengths)[:-1]) if lengths else []
    return _like(array, list(enumerate(rows)))


def _unstack_grad_kernel(grad, values):
    grad = _array(grad)
    values = np.asarray(values)
    rows = [_element_or_zeros(grad, i, values[i]) for i in range(values.shape[0])]
    stacked = np.stack(rows) if rows else np.zeros_like(values)
    return stacked.astype(values.dtype, copy=False), _cleared(grad, range(values.shape[0]))


def _gather_grad_kernel(handle, indices, g):
    array = _array(handle)
    g = np.asarray(g)
    indices = np.asarray(indices)
    rows = g.reshape((indices.size,) + g.shape[indices.ndim:])
    indices = indices.reshape(-1)
    sums = {}
    for k, i in enumerate(indices):
        i = int(i)
        sums[i] = rows[k] if i not in sums else sums[i] + rows[k]
    return _like(array, sorted(sums.items()))


def _scatter_grad_kernel(grad, indices, values):
    grad = _array(grad)
    values = np.asarray(values)
    indices = [int(i) for i in np.asarray(indices).reshape(-1)]
    rows = [_element_or_zeros(grad, i, values[k]) for k, i in enumerate(indices)]
    stacked = np.stack(rows) if rows else np.zeros_like(values)
    return stacked.astype(values.dtype, copy=False), _cleared(grad, indices)


# -- ops -------------------------------------------------------------------------------------


def _handle_infer(specs, attrs):
    return [(variant, ())]


def _value_and_handle_infer(value_input):
    def infer(specs, attrs):
        return [specs[value_input], (variant, ())]
    return infer


GRAD_ADD = register("TensorArrayGradAdd", _add_kernel, _handle_infer)
ZEROS_LIKE = register("TensorArrayZerosLike", _zeros_kernel, _handle_infer)
WRITE_GRAD = register("TensorArrayWriteGrad", _write_grad_kernel, _value_and_handle_infer(2))
READ_GRAD = register("TensorArrayReadGrad", _read_grad_kernel, _handle_infer)
STACK_GRAD = register("TensorArrayStackGrad", _stack_grad_kernel, _handle_infer)
CONCAT_GRAD = register("TensorArrayConcatGrad", _concat_grad_kernel, _handle_infer)
UNSTACK_GRAD = register("TensorArrayUnstackGrad", _unstack_grad_kernel,
                        _value_and_handle_infer(1))
GATHER_GRAD = register("TensorArrayGatherGrad", _gather_grad_kernel, _handle_infer)
SCATTER_GRAD = register("TensorArrayScatterGrad", _scatter_grad_kernel,
                        _value_and_handle_infer(2))


def add_gradient_arrays(grads):
    """The sum of gradient arrays (one TensorArrayGradAdd)."""
    return execute1(GRAD_ADD, list(grads))


def zeros_like_handle(handle):
    """A gradient array of zeros for TensorArray handle `handle`."""
    return execute1(ZEROS_LIKE, [handle])


register_adder("variant", add_gradient_arrays)
register_zeros("variant", zeros_like_handle)
register_value_rules(TensorArrayValue, _zeros_like_array, _add_arrays)

# -- rules -----------------------------------------------------------------------------------


@grad_for("TensorArrayWrite")
def _write_grad(ctx, grads):
    dvalue, dhandle = execute(WRITE_GRAD, [grads[0], ctx.input(1), ctx.input(2)])
    return [dhandle if ctx.needed[0] else None, None, dvalue if ctx.needed[2] else None]


@grad_for("TensorArrayRead")
def _read_grad(ctx, grads):
    return [execute1(READ_GRAD, [ctx.input(0), ctx.input(1), grads[0]]), None]


@grad_for("TensorArrayStack")
def _stack_grad(ctx, grads):
    return [execute1(STACK_GRAD, [ctx.input(0), grads[0]])]


@grad_for("TensorArrayConcat")
def _concat_grad(ctx, grads):
    return [execute1(CONCAT_GRAD, [ctx.input(0), grads[0]])]


@grad_for("TensorArrayUnstack")
def _unstack_grad(ctx, grads):
    dvalues, dhandle = execute(UNSTACK_GRAD, [grads[0], ctx.input(1)])
    return [dhandle if ctx.needed[0] else None, dvalues if ctx.needed[1] else None]


@grad_for("TensorArrayGather")
def _gather_grad(ctx, grads):
    return [execute1(GATHER_GRAD, [ctx.input(0), ctx.input(1), grads[0]]), None]


@grad_for("TensorArrayScatter")
def _scatter_grad(ctx, grads):
    dvalues, dhandle = execute(SCATTER_GRAD, [grads[0], ctx.input(1), ctx.input(2)])
    return [dhandle if ctx.needed[0] else None, None, dvalues if ctx.needed[2] else None]


not_differentiable("TensorArray", "TensorArraySize", "TensorArrayZerosLike")


# -- second order: the gradient ops above are linear in their gradient inputs --------------------
#
#    op                                  gradient, for cotangents (C of an array, c of a value)
#    add(G1, ..., Gk) -> G               dGi = C
#    write_grad(G, i, v) -> (dv, dh)     dG = C_dh with element i cleared, plus c_dv at i
#    read_grad(h, i, g) -> G             dg = C[i]
#    stack_grad(h, g) -> G               dg = C's elements stacked
#    unstack_grad(G, values) -> (dv, dh) dG = C_dh with rows cleared, plus the rows of c_dv


@grad_for("TensorArrayGradAdd")
def _add_grad(ctx, grads):
    return [grads[0]] * len(ctx.needed)


@grad_for("TensorArrayWriteGrad")
def _write_grad_grad(ctx, grads):
    c_value, c_array = grads
    parts = []
    if c_array is not None:
        parts.append(execute(WRITE_GRAD, [c_array, ctx.input(1), ctx.input(2)])[1])
    if c_value is not None:
        parts.append(execute1(READ_GRAD, [ctx.input(0), ctx.input(1), c_value]))
    return [_sum_arrays(parts), None, None]


@grad_for("TensorArrayReadGrad")
def _read_grad_grad(ctx, grads):
    dg = execute(WRITE_GRAD, [grads[0], ctx.input(1), ctx.input(2)])[0]
    return [None, None, dg]


@grad_for("TensorArrayStackGrad")
def _stack_grad_grad(ctx, grads):
    return [None, execute(UNSTACK_GRAD, [grads[0], ctx.input(1)])[0]]


@grad_for("TensorArrayUnstackGrad")
def _unstack_grad_grad(ctx, grads):
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
