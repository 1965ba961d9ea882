"""TensorArray ops: an array of tensors of one dtype and shape, carried as ONE tensor.

A TensorArray's state is a scalar tensor of dtype `variant` (its "handle") whose run-time
value is a `TensorArrayValue` (`runtime.tensor_array.value`: a persistent array of numpy values), so
a handle is an ordinary value for eager execution, graph building, constant folding,
common-subexpression elimination and the executor, and flows through If/While like any tensor.

The ops (kernel + inference rule + an empty gradient slot, as every op):

    TensorArray         size                  -> handle   attrs: dtype, element_shape,
                                                                 dynamic_size, infer_shape
    TensorArrayWrite    handle, index, value  -> handle
    TensorArrayRead     handle, index         -> value
    TensorArrayStack    handle                -> values (size, *element_shape)
    TensorArrayConcat   handle                -> values (the elements joined along axis 0)
    TensorArrayUnstack  handle, values        -> handle   (element i = values[i])
    TensorArrayGather   handle, indices       -> values (*indices.shape, *element_shape)
    TensorArrayScatter  handle, indices, values -> handle (element indices[i] = values[i])
    TensorArraySize     handle                -> int32 scalar

The ops reading or writing elements take the array's static `dtype` and `element_shape` as
attributes (the handle's static spec is just `variant ()`), so that their inference rules
check written values and give read values their static shape. Errors about an element
(out of range, not written, wrong shape) name its index; eagerly they are raised at once,
in a graph when it runs, as InvalidArgumentError with the user's line of the op.
"""

import numpy as np

from runtime import dtypes, lowering_api
from runtime import shape as shape_lib
from runtime.lowering_api import PendingTensorArray, TensorArrayBuffer, Unsupported, is_concrete
from runtime.ops import attr_types
from runtime.ops.common import SpecError
from runtime.ops.registry import KERNEL_CALL, NOT_DIFFERENTIABLE, execute, execute1, register
from runtime.tensor_array import numba_lowerings as numba_rules
from runtime.tensor_array.grad_ops import (
    CONCAT_GRAD,
    GATHER_GRAD,
    READ_GRAD,
    SCATTER_GRAD,
    STACK_GRAD,
    UNSTACK_GRAD,
    WRITE_GRAD,
)
from runtime.tensor_array.value import TensorArrayValue, value_of_handle, variant

# lowering rules that decline, saying why (see runtime/lowering_api.py)
_TENSOR_ARRAYS_ON_HOST = {
    "array": lowering_api.unsupported("TensorArrays run on the numpy executor")}


# -- JAX rules: a TensorArray of a size known at compile time is a buffer (TensorArrayBuffer,
# or a PendingTensorArray until its first write tells the element shape), written with
# `.at[i].set`; reading an unwritten element fails, as on the numpy executor


def _array_jax(node, value):
    if not isinstance(value, (TensorArrayBuffer, PendingTensorArray)):
        raise Unsupported("gets a TensorArray that is not a fixed-size buffer")
    return value


def _index_fails_jax(lw, array, index):
    known = lw.bounds(index)  # (a counted loop's counter: in range by construction)
    if known is None or known[0] < 0 or known[1] >= array.size:
        lw.fail_if((index < 0) | (index >= array.size))


def _buffer_for_jax(lw, node, array, element_shape):
    if isinstance(array, PendingTensorArray):
        jnp = lw.jnp
        return TensorArrayBuffer(jnp.zeros((array.size,) + element_shape, array.np_dtype),
                                 jnp.zeros(array.size, bool), array.size)
    if tuple(array.data.shape[1:]) != element_shape:
        raise Unsupported("writes an element of shape %s to a TensorArray of %s"
                          % (element_shape, tuple(array.data.shape[1:])))
    return array


def _element_shape_jax(node):
    shape = node.attrs["element_shape"]
    if shape is None or None in shape:
        raise Unsupported("reads a TensorArray of unknown element shape")
    return tuple(shape)


def _all_written_jax(lw, node, array):
    if isinstance(array, PendingTensorArray):
        if array.size:
            raise Unsupported("reads a TensorArray nothing was written to")
        return TensorArrayBuffer(lw.jnp.zeros((0,) + _element_shape_jax(node), array.np_dtype),
                                 lw.jnp.zeros(0, bool), 0)
    if lw.bounds(array.written) != (1, 1):  # (a counted loop filled it whole: known)
        lw.fail_if(lw.jnp.logical_not(lw.jnp.all(array.written)))
    return array


def _on_jax(rule, numba=None):
    """Lowerings: declined by the array backends, for JAX `rule` (a fixed-size buffer), and
    for numba `numba` of runtime.tensor_array.numba_lowerings where given (a buffer too)."""
    lowerings = dict(_TENSOR_ARRAYS_ON_HOST,
                     jax=rule)
    if numba is not None:
        lowerings["numba"] = numba
    return lowerings

OPS = {}


# -- inference helpers ----------------------------------------------------------------------------


def _require_handle(spec):
    if spec[0] is not variant:
        raise SpecError("dtype", "expected a TensorArray handle (variant), got a %s tensor"
                        % spec[0].name)


def _require_index(spec, what="index"):
    dtype, shape = spec
    if dtype.kind != "int":
        raise SpecError("dtype", "a TensorArray %s must be an integer, got %s"
                        % (what, dtype.name))
    if shape not in ((), None):
        raise SpecError("shape", "a TensorArray %s must be a scalar, got shape %s"
                        % (what, shape_lib.to_string(shape)))


def _require_indices(spec):
    """The shape of an integer tensor of TensorArray indices (gather, scatter)."""
    dtype, shape = spec
    if dtype.kind != "int":
        raise SpecError("dtype", "TensorArray indices must be integers, got %s" % dtype.name)
    return shape


def compatible_shapes(a, b):
    """True when some value could have both static shapes (None: unknown rank)."""
    if a is None or b is None:
        return True
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b))


def refine_shape(a, b):
    """The most specific shape with what `a` and `b` both say (they must be compatible)."""
    if a is None:
        return b
    if b is None:
        return a
    return tuple(y if x is None else x for x, y in zip(a, b))


def _require_element(attrs, dtype, shape, what="value"):
    want = attrs["dtype"]
    if want is not None and dtype is not want:
        raise SpecError("dtype", "cannot write a %s of dtype %s to a TensorArray of %s"
                        % (what, dtype.name, want.name))
    if not compatible_shapes(attrs["element_shape"], shape):
        raise SpecError("shape", "cannot write a %s of shape %s to a TensorArray whose "
                        "elements have shape %s"
                        % (what, shape_lib.to_string(shape),
                           shape_lib.to_string(attrs["element_shape"])))


def _require_dtype(attrs):
    if attrs["dtype"] is None:
        raise SpecError("dtype", "the TensorArray's element dtype is not known yet: nothing "
                        "was written to it")
    return attrs["dtype"]


# -- the ops --------------------------------------------------------------------------------------


def _create_infer(specs, attrs):
    _require_index(specs[0], "size")
    if attrs["dtype"] is not None and not isinstance(attrs["dtype"], dtypes.DType):
        raise SpecError("dtype", "a TensorArray's element dtype must be a dtype, got %r"
                        % (attrs["dtype"],))
    return [(variant, ())]


def _create_kernel(size, dtype, element_shape, dynamic_size, infer_shape=True):
    size = int(size)
    if size < 0:
        raise ValueError("TensorArray size must not be negative, got %d" % size)
    return TensorArrayValue.empty(size, dynamic_size, element_shape,
                                  None if dtype is None else dtype.np_dtype, infer_shape)


def _create_jax(lw, node, ins):
    """TensorArray: a buffer (or a pending array until the first write tells the element
    shape) of a size known at compile time."""
    if node.attrs["dynamic_size"]:
        raise Unsupported("makes a TensorArray of dynamic size")
    if not is_concrete(ins[0]):
        raise Unsupported("makes a TensorArray whose size is known only at run time")
    size = int(ins[0])
    if size < 0 or node.attrs["dtype"] is None:
        raise Unsupported("fails (negative size or unknown dtype)")
    np_dtype = node.attrs["dtype"].np_dtype
    shape = node.attrs["element_shape"]
    if shape is None or None in shape:
        return [PendingTensorArray(size, np_dtype)]
    jnp = lw.jnp
    return [TensorArrayBuffer(jnp.zeros((size,) + tuple(shape), np_dtype),
                              jnp.zeros(size, bool), size)]


# A TensorArray's element dtype is None until its first write fixes it (see the module
# docstring): every op on one declares its `dtype` so.
_ARRAY_TYPES = {"dtype": attr_types.optional(attr_types.DTYPE)}


def _register(name, kernel, infer, **rules):
    return register(name, kernel, infer, attr_types=_ARRAY_TYPES, **rules)


OPS["TensorArray"] = _register("TensorArray", _create_kernel, _create_infer,
                              grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                              lowerings=_on_jax(_create_jax, numba_rules.create))


def _write_infer(specs, attrs):
    _require_handle(specs[0])
    _require_index(specs[1])
    _require_element(attrs, *specs[2])
    return [(variant, ())]


def _write_kernel(handle, index, value, dtype, element_shape):
    return value_of_handle(handle).written_one(index, value)


def _write(handle, index, value):
    if type(handle) is not TensorArrayValue:
        handle = value_of_handle(handle)
    return handle.written_one(index, value)


def _write_emit(outs, ins, attrs, emitter):
    # The attributes only serve the inference rule: a plain positional call (loops write
    # once per iteration).
    return "%s = %s(%s, %s, %s)" % (outs[0], emitter.bind(_write), ins[0], ins[1], ins[2])


def _write_grad(ctx, grads):
    dvalue, dhandle = execute(WRITE_GRAD, [grads[0], ctx.input(1), ctx.input(2)])
    return [dhandle if ctx.needed[0] else None, None, dvalue if ctx.needed[2] else None]


def _write_jax(lw, node, ins):
    """TensorArrayWrite: `data.at[i].set(value)`; an index out of range fails."""
    array, index, value = _array_jax(node, ins[0]), ins[1], ins[2]
    array = _buffer_for_jax(lw, node, array, tuple(np.shape(value)))
    _index_fails_jax(lw, array, index)
    return [TensorArrayBuffer(array.data.at[index].set(value),
                              array.written.at[index].set(True), array.size)]


OPS["TensorArrayWrite"] = _register("TensorArrayWrite", _write_kernel, _write_infer,
                                   emit=_write_emit, traits=("view",),  # holds the value
                                   grad=_write_grad,
                                   lowerings=_on_jax(_write_jax, numba_rules.write))


def _read_infer(specs, attrs):
    _require_handle(specs[0])
    _require_index(specs[1])
    return [(_require_dtype(attrs), attrs["element_shape"])]


def _read_kernel(handle, index, dtype, element_shape):
    return value_of_handle(handle).read(index)


def _read_jax(lw, node, ins):
    """TensorArrayRead: element i; TensorArrayGather: the elements at the indices. Out of
    range or unwritten fails."""
    array, index = _array_jax(node, ins[0]), ins[1]
    if isinstance(array, PendingTensorArray):
        raise Unsupported("reads a TensorArray nothing was written to")
    _index_fails_jax(lw, array, index)
    safe = lw.jnp.clip(index, 0, max(array.size - 1, 0))
    lw.fail_if(lw.jnp.logical_not(array.written[safe]))
    return [array.data[safe]]


def _read_grad(ctx, grads):
    return [execute1(READ_GRAD, [ctx.input(0), ctx.input(1), grads[0]]), None]


OPS["TensorArrayRead"] = _register("TensorArrayRead", _read_kernel, _read_infer,
                                  grad=_read_grad, emit=KERNEL_CALL,
                                  traits=("view",),  # the element as written
                                  lowerings=_on_jax(_read_jax, numba_rules.read))


def _stacked(array, elements, dtype, element_shape, lead_shape):
    """`elements` joined along new leading dimensions `lead_shape`."""
    if elements:
        # Writes checked that every element has the same shape: np.array stacks them (and
        # is several times faster than np.stack on many small arrays).
        out = np.array(elements, dtype=dtype.np_dtype)
        return out.reshape(tuple(lead_shape) + out.shape[1:])
    shape = array.element_shape if array.element_shape is not None else element_shape
    if shape is None or None in shape:
        shape = refine_shape(array.element_shape, element_shape)
    if shape is None or None in shape:
        raise ValueError("cannot stack an empty TensorArray whose element shape (%s) is not "
                         "fully known; give element_shape when creating it"
                         % shape_lib.to_string(shape))
    return np.zeros(tuple(lead_shape) + tuple(shape), dtype=dtype.np_dtype)


def _stack_infer(specs, attrs):
    _require_handle(specs[0])
    dtype = _require_dtype(attrs)
    element_shape = attrs["element_shape"]
    if element_shape is None:
        return [(dtype, None)]
    return [(dtype, (attrs["static_size"],) + tuple(element_shape))]


def _stack_kernel(handle, dtype, element_shape, static_size):
    array = value_of_handle(handle)
    elements = array.elements(range(array.size))
    if not array.infer_shape:
        _require_one_shape(elements, "stack")
    return _stacked(array, elements, dtype, element_shape, (array.size,))


def _require_one_shape(elements, what):
    """Elements of an array made with infer_shape=False may differ in shape; `what` (stack,
    gather) needs one."""
    shapes = [np.shape(e) for e in elements]
    for index, shape in enumerate(shapes):
        if shape != shapes[0]:
            raise ValueError("cannot %s TensorArray elements of different shapes: %s at index "
                             "0, %s at index %d (concat joins elements of different lengths)"
                             % (what, shape_lib.to_string(shapes[0]),
                                shape_lib.to_string(shape), index))


def _stack_jax(lw, node, ins):
    """TensorArrayStack: the buffer, every element written."""
    return [_all_written_jax(lw, node, _array_jax(node, ins[0])).data]


def _stack_grad(ctx, grads):
    return [execute1(STACK_GRAD, [ctx.input(0), grads[0]])]


OPS["TensorArrayStack"] = _register("TensorArrayStack", _stack_kernel, _stack_infer,
                                   grad=_stack_grad, emit=KERNEL_CALL,
                                   lowerings=_on_jax(_stack_jax, numba_rules.stack))


def _concat_infer(specs, attrs):
    _require_handle(specs[0])
    dtype = _require_dtype(attrs)
    element_shape = attrs["element_shape"]
    if element_shape is None:
        return [(dtype, None)]
    if element_shape == ():
        raise SpecError("shape", "cannot concat a TensorArray of scalars: its elements need a "
                        "first dimension to join along (use stack)")
    size, first = attrs["static_size"], element_shape[0]
    length = None if size is None or first is None else size * first
    return [(dtype, (length,) + tuple(element_shape[1:]))]


def _concat_kernel(handle, dtype, element_shape, static_size):
    array = value_of_handle(handle)
    elements = array.elements(range(array.size))
    if not elements:
        rest = refine_shape(array.element_shape, element_shape)
        if rest is None or None in rest[1:]:
            raise ValueError("cannot concat an empty TensorArray whose element shape (%s) is "
                             "not known after its first dimension; give element_shape when "
                             "creating it" % shape_lib.to_string(rest))
        return np.zeros((0,) + tuple(rest[1:]), dtype=dtype.np_dtype)
    shapes = [np.shape(e) for e in elements]
    for index, shape in enumerate(shapes):
        if not shape or shape[1:] != shapes[0][1:]:
            raise ValueError("cannot concat TensorArray elements of shapes %s (index 0) and %s "
                             "(index %d): they must have a first dimension and agree after it"
                             % (shape_lib.to_string(shapes[0]), shape_lib.to_string(shape),
                                index))
    return np.concatenate(elements, axis=0).astype(dtype.np_dtype, copy=False)


def _concat_jax(lw, node, ins):
    """TensorArrayConcat: the buffer with its first two dimensions merged."""
    array = _all_written_jax(lw, node, _array_jax(node, ins[0]))
    shape = array.data.shape
    if len(shape) < 2:
        raise Unsupported("concatenates scalars")
    return [array.data.reshape((shape[0] * shape[1],) + tuple(shape[2:]))]


def _concat_grad(ctx, grads):
    return [execute1(CONCAT_GRAD, [ctx.input(0), grads[0]])]


OPS["TensorArrayConcat"] = _register("TensorArrayConcat", _concat_kernel, _concat_infer,
                                    grad=_concat_grad, emit=KERNEL_CALL,
                                    lowerings=_on_jax(_concat_jax))


def _unstack_infer(specs, attrs):
    _require_handle(specs[0])
    dtype, shape = specs[1]
    if shape == ():
        raise SpecError("shape", "cannot unstack a scalar into a TensorArray")
    _require_element(attrs, dtype, None if shape is None else shape[1:], "slice")
    return [(variant, ())]


def _unstack_kernel(handle, value, dtype, element_shape):
    value = np.asarray(value)
    array = value_of_handle(handle)
    if not array.dynamic_size and value.shape[0] > array.size:
        raise ValueError("cannot unstack %d elements into a TensorArray of fixed size %d "
                         "(dynamic_size=False)" % (value.shape[0], array.size))
    return array.written([(i, value[i]) for i in range(value.shape[0])])


def _unstack_jax(lw, node, ins):
    """TensorArrayUnstack: element i = value[i]."""
    array, value = _array_jax(node, ins[0]), ins[1]
    count = np.shape(value)[0]
    if count > array.size:
        raise Unsupported("unstacks more elements than the array holds")
    array = _buffer_for_jax(lw, node, array, tuple(np.shape(value)[1:]))
    return [TensorArrayBuffer(array.data.at[:count].set(value),
                              array.written.at[:count].set(True), array.size)]


def _unstack_grad(ctx, grads):
    dvalues, dhandle = execute(UNSTACK_GRAD, [grads[0], ctx.input(1)])
    return [dhandle if ctx.needed[0] else None, dvalues if ctx.needed[1] else None]


OPS["TensorArrayUnstack"] = _register("TensorArrayUnstack", _unstack_kernel, _unstack_infer,
                                     grad=_unstack_grad, emit=KERNEL_CALL,
                                     traits=("view",),  # holds slices of the value
                                     lowerings=_on_jax(_unstack_jax,
                                                       numba_rules.unstack))


def _gather_infer(specs, attrs):
    _require_handle(specs[0])
    index_shape = _require_indices(specs[1])
    dtype = _require_dtype(attrs)
    if index_shape is None or attrs["element_shape"] is None:
        return [(dtype, None)]
    return [(dtype, tuple(index_shape) + tuple(attrs["element_shape"]))]


def _gather_kernel(handle, indices, dtype, element_shape):
    array = value_of_handle(handle)
    indices = np.asarray(indices)
    elements = array.elements(indices.reshape(-1))
    if not array.infer_shape:
        _require_one_shape(elements, "gather")
    return _stacked(array, elements, dtype, element_shape, indices.shape)


def _gather_grad(ctx, grads):
    return [execute1(GATHER_GRAD, [ctx.input(0), ctx.input(1), grads[0]]), None]


OPS["TensorArrayGather"] = _register("TensorArrayGather", _gather_kernel, _gather_infer,
                                    grad=_gather_grad, emit=KERNEL_CALL,
                                    lowerings=_on_jax(_read_jax))


def _scatter_infer(specs, attrs):
    _require_handle(specs[0])
    index_shape = _require_indices(specs[1])
    if index_shape is not None and len(index_shape) != 1:
        raise SpecError("shape", "TensorArray scatter indices must be a vector, got shape %s"
                        % shape_lib.to_string(index_shape))
    dtype, shape = specs[2]
    if shape == ():
        raise SpecError("shape", "cannot scatter a scalar into a TensorArray")
    if shape is not None and index_shape is not None and None not in (shape[0],
                                                                       index_shape[0]) \
            and shape[0] != index_shape[0]:
        raise SpecError("shape", "scatter got %d indices for %d slices"
                        % (index_shape[0], shape[0]))
    _require_element(attrs, dtype, None if shape is None else shape[1:], "slice")
    return [(variant, ())]


def _scatter_kernel(handle, indices, value, dtype, element_shape):
    indices = np.asarray(indices).reshape(-1)
    value = np.asarray(value)
    if len(indices) != value.shape[0]:
        raise ValueError("scatter got %d indices for %d slices" % (len(indices),
                                                                   value.shape[0]))
    return value_of_handle(handle).written([(i, value[k]) for k, i in enumerate(indices)])


def _scatter_jax(lw, node, ins):
    """TensorArrayScatter: element indices[k] = value[k]; out of range fails."""
    array, indices, value = _array_jax(node, ins[0]), ins[1], ins[2]
    array = _buffer_for_jax(lw, node, array, tuple(np.shape(value)[1:]))
    _index_fails_jax(lw, array, indices)
    return [TensorArrayBuffer(array.data.at[indices].set(value),
                              array.written.at[indices].set(True), array.size)]


def _scatter_grad(ctx, grads):
    dvalues, dhandle = execute(SCATTER_GRAD, [grads[0], ctx.input(1), ctx.input(2)])
    return [dhandle if ctx.needed[0] else None, None, dvalues if ctx.needed[2] else None]


OPS["TensorArrayScatter"] = _register("TensorArrayScatter", _scatter_kernel, _scatter_infer,
                                     grad=_scatter_grad, emit=KERNEL_CALL,
                                     traits=("view",),  # holds slices of the value
                                     lowerings=_on_jax(_scatter_jax))


def _size_infer(specs, attrs):
    _require_handle(specs[0])
    return [(dtypes.int32, ())]


def _size_jax(lw, node, ins):
    """TensorArraySize: known at compile time."""
    return [np.int32(_array_jax(node, ins[0]).size)]


OPS["TensorArraySize"] = _register(
    "TensorArraySize", lambda handle: np.int32(value_of_handle(handle).size), _size_infer,
    grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
    lowerings=_on_jax(_size_jax, numba_rules.size))


# -- op wrappers (tensors in, tensors out; the TensorArray class adds the metadata) ---------------


def _meta(dtype, element_shape):
    return {"dtype": dtype, "element_shape": element_shape}


def create(size, dtype, element_shape, dynamic_size, infer_shape=True):
    """A new handle of `size` (an int32 scalar tensor) unwritten elements."""
    return execute1(OPS["TensorArray"], [size],
                    {"dtype": dtype, "element_shape": element_shape,
                     "dynamic_size": bool(dynamic_size), "infer_shape": bool(infer_shape)})


def write(handle, index, value, dtype, element_shape):
    """The handle with element `index` set to `value`."""
    return execute1(OPS["TensorArrayWrite"], [handle, index, value], _meta(dtype, element_shape))


def read(handle, index, dtype, element_shape):
    """Element `index`."""
    return execute1(OPS["TensorArrayRead"], [handle, index], _meta(dtype, element_shape))


def stack(handle, dtype, element_shape, static_size):
    """All elements stacked along a new first dimension."""
    attrs = _meta(dtype, element_shape)
    attrs["static_size"] = static_size
    return execute1(OPS["TensorArrayStack"], [handle], attrs)


def concat(handle, dtype, element_shape, static_size):
    """All elements joined along their first dimension."""
    attrs = _meta(dtype, element_shape)
    attrs["static_size"] = static_size
    return execute1(OPS["TensorArrayConcat"], [handle], attrs)


def unstack(handle, value, dtype, element_shape):
    """The handle with element i set to `value[i]`."""
    return execute1(OPS["TensorArrayUnstack"], [handle, value], _meta(dtype, element_shape))


def gather(handle, indices, dtype, element_shape):
    """The elements at `indices`, stacked."""
    return execute1(OPS["TensorArrayGather"], [handle, indices], _meta(dtype, element_shape))


def scatter(handle, indices, value, dtype, element_shape):
    """The handle with element indices[i] set to value[i]."""
    return execute1(OPS["TensorArrayScatter"], [handle, indices, value],
                    _meta(dtype, element_shape))


def size(handle):
    """The number of elements, as an int32 scalar."""
    return execute1(OPS["TensorArraySize"], [handle])
