"""The ops that compute TensorArray gradients (see runtime/tensor_array/grads.py,
which holds their gradient rules and those of the TensorArray ops).

The gradient of a TensorArray handle is a *gradient array* (a `TensorArrayValue` of the same
size whose element i is the gradient of element i; an unwritten element is zero).
"""

from typing import Any

import numpy as np

from runtime import lowering_api
from runtime.ops.registry import (
    KERNEL_CALL,
    NO_GRADIENT,
    NOT_DIFFERENTIABLE,
    execute,
    execute1,
    register,
)
from runtime.tensor_array.value import TensorArrayValue, variant


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


def zeros_like_array(array):
    return _like(_array(array), [])


def add_arrays(a, b):
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
        total = add_arrays(total, h)
    return total


def _zeros_kernel(handle):
    return zeros_like_array(handle)


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
    sums: dict[Any, Any] = {}
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




def add_gradient_arrays(grads):
    """The sum of gradient arrays (one TensorArrayGradAdd)."""
    return execute1(GRAD_ADD, list(grads))


# -- second order: the gradient ops declared below are linear in their gradient inputs ---------
#
#    op                                  gradient, for cotangents (C of an array, c of a value)
#    add(G1, ..., Gk) -> G               dGi = C
#    write_grad(G, i, v) -> (dv, dh)     dG = C_dh with element i cleared, plus c_dv at i
#    read_grad(h, i, g) -> G             dg = C[i]
#    stack_grad(h, g) -> G               dg = C's elements stacked
#    unstack_grad(G, values) -> (dv, dh) dG = C_dh with rows cleared, plus the rows of c_dv


def _sum_arrays(parts):
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else add_gradient_arrays(parts)


def _add_grad(ctx, grads):
    return [grads[0]] * len(ctx.needed)


GRAD_ADD = register("TensorArrayGradAdd", _add_kernel, _handle_infer,
                    grad=_add_grad, emit=KERNEL_CALL,
                    lowerings=lowering_api.GRADIENTS_ON_HOST)
ZEROS_LIKE = register("TensorArrayZerosLike", _zeros_kernel, _handle_infer,
                      grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                      lowerings=lowering_api.GRADIENTS_ON_HOST)


def _write_grad_grad(ctx, grads):
    c_value, c_array = grads
    parts = []
    if c_array is not None:
        parts.append(execute(WRITE_GRAD, [c_array, ctx.input(1), ctx.input(2)])[1])
    if c_value is not None:
        parts.append(execute1(READ_GRAD, [ctx.input(0), ctx.input(1), c_value]))
    return [_sum_arrays(parts), None, None]


WRITE_GRAD = register("TensorArrayWriteGrad", _write_grad_kernel, _value_and_handle_infer(2),
                      grad=_write_grad_grad, emit=KERNEL_CALL,
                      lowerings=lowering_api.GRADIENTS_ON_HOST)


def _read_grad_grad(ctx, grads):
    dg = execute(WRITE_GRAD, [grads[0], ctx.input(1), ctx.input(2)])[0]
    return [None, None, dg]


READ_GRAD = register("TensorArrayReadGrad", _read_grad_kernel, _handle_infer,
                     grad=_read_grad_grad, emit=KERNEL_CALL,
                     lowerings=lowering_api.GRADIENTS_ON_HOST)


def _stack_grad_grad(ctx, grads):
    return [None, execute(UNSTACK_GRAD, [grads[0], ctx.input(1)])[0]]


STACK_GRAD = register("TensorArrayStackGrad", _stack_grad_kernel, _handle_infer,
                      grad=_stack_grad_grad, emit=KERNEL_CALL,
                      lowerings=lowering_api.GRADIENTS_ON_HOST)
CONCAT_GRAD = register("TensorArrayConcatGrad", _concat_grad_kernel, _handle_infer,
                       grad=NO_GRADIENT, emit=KERNEL_CALL,
                       lowerings=lowering_api.GRADIENTS_ON_HOST)


def _unstack_grad_grad(ctx, grads):
    c_values, c_array = grads
    parts = []
    if c_array is not None:
        parts.append(execute(UNSTACK_GRAD, [c_array, ctx.input(1)])[1])
    if c_values is not None:
        parts.append(execute1(STACK_GRAD, [ctx.input(0), c_values]))
    return [_sum_arrays(parts), None]


UNSTACK_GRAD = register("TensorArrayUnstackGrad", _unstack_grad_kernel,
                        _value_and_handle_infer(1),
                        grad=_unstack_grad_grad, emit=KERNEL_CALL,
                        lowerings=lowering_api.GRADIENTS_ON_HOST)
GATHER_GRAD = register("TensorArrayGatherGrad", _gather_grad_kernel, _handle_infer,
                       grad=NO_GRADIENT, emit=KERNEL_CALL,
                       lowerings=lowering_api.GRADIENTS_ON_HOST)
SCATTER_GRAD = register("TensorArrayScatterGrad", _scatter_grad_kernel,
                        _value_and_handle_infer(2), grad=NO_GRADIENT, emit=KERNEL_CALL,
                        lowerings=lowering_api.GRADIENTS_ON_HOST)
