"""numba lowering rules of the TensorArray ops: a TensorArray as a preallocated buffer.

In the numba kernel a TensorArray handle is a tuple `(elements, written)`: an array of
shape (size, *element_shape) and a bool array marking the elements written. Writes store
into it in place, so a While loop writing one element per iteration and stacking after
runs as one kernel. This holds only where no older version of the array is used after a
write: the numba backend checks that before lowering a graph (`tensor_array_use` below),
and declines otherwise.

The buffer is allocated where the array is created, with a size known when the graph is
lowered (the array's size is a constant) and an element dtype and shape declared or given
by the first write lowered; the allocation line is written when the whole graph is lowered
(`allocation`). Elements whose static shape is not fully known are declined: the graph runs
on the numpy executor.

A dynamically sized array (dynamic_size=True) is a growable buffer: its handle has a third
member, a one-element int64 array holding its size (the highest index written plus one, at
least the size it was made with), and a write past the capacity makes a new tuple with
arrays of twice the capacity (or up to the index) holding the old elements, under the
write's output name (the older version is not used again: see numba_handles).

Reads, writes and stacks check indices and written elements as the executor's kernels do,
raising the same error classes (IndexError, ValueError).
"""

from collections.abc import Callable
from typing import Any

from runtime import lowering_api
from runtime.tensor_array.value import value_of_handle


def _declare_use(rule: Callable[..., Any], use: str) -> None:
    """Marks numba rule `rule` with its `tensor_array_use` (READ or WRITE)."""
    setattr(rule, "tensor_array_use", use)


READ = "read"    # a rule's `tensor_array_use`: only reads its handle input
WRITE = "write"  # writes its handle input in place; its first output is the new version


class Buffer:
    """A TensorArray's buffer in lowered code: its `size`, element `np_dtype` and `shape`
    (None until known), and the `token` its allocation line holds until then."""

    def __init__(self, token, size, np_dtype, shape, dynamic=False):
        self.token = token
        self.size = size
        self.np_dtype = np_dtype
        self.shape = shape
        self.dynamic = dynamic

    def learn(self, np_dtype, shape):
        """Records the dtype and static shape of an element written; Unsupported where they
        are not fully known or differ from what is known."""
        if shape is None or None in shape:
            raise lowering_api.Unsupported("a TensorArray element of a shape not fully known")
        shape = tuple(shape)
        if self.np_dtype is None:
            self.np_dtype = np_dtype
        elif self.np_dtype != np_dtype:
            raise lowering_api.Unsupported("TensorArray elements of two dtypes")
        if self.shape is None or None in self.shape:
            if self.shape is not None and (len(self.shape) != len(shape) or any(
                    a is not None and a != b for a, b in zip(self.shape, shape))):
                raise lowering_api.Unsupported("a TensorArray element of another shape")
            self.shape = shape
        elif self.shape != shape:
            raise lowering_api.Unsupported("a TensorArray element of another shape")

    def allocation(self):
        """The expression allocating the buffer; Unsupported when its element is unknown."""
        if self.np_dtype is None or self.shape is None or None in self.shape:
            raise lowering_api.Unsupported("a TensorArray whose element dtype and shape are not "
                                       "known when it is created or first written")
        if self.dynamic:
            return "(%s, np.zeros(%d, np.bool_), np.full(1, %d, np.int64))" % (
                self.elements(str(self.size)), self.size, self.size)
        return "(%s, np.zeros(%d, np.bool_))" % (self.elements(str(self.size)), self.size)

    def elements(self, capacity):
        """The expression allocating the elements of `capacity` (an expression)."""
        name = "bool_" if self.np_dtype.kind == "b" else self.np_dtype.name
        return "np.empty((%s, %s), np.%s)" % (
            capacity, "".join("%d, " % d for d in self.shape), name)

    def size_of(self, handle):
        """The expression of the array's size: a literal, or its run-time size."""
        return "%s[2][0]" % handle if self.dynamic else str(self.size)


def new_buffer(lowerer, size, dynamic_size, element_shape, np_dtype, written=False):
    """A Buffer for a new array, registered with `lowerer` (its `tensor_arrays` list), and the
    token standing for its allocation until `allocation` replaces it."""
    if written:
        raise lowering_api.Unsupported("a TensorArray constant with elements")
    buffers = lowerer.tensor_arrays
    token = "__tensor_array_%d__" % len(buffers)
    buffer = Buffer(token, int(size), np_dtype, None if element_shape is None
                    else tuple(element_shape), bool(dynamic_size))
    buffers.append(buffer)
    return buffer, token


def _buffer_of(lowerer, handle):
    buffer = lowerer.handle_buffers.get(str(handle))
    if buffer is None:
        raise lowering_api.Unsupported("a TensorArray handle of unknown origin")
    return buffer


def _hand_on(lowerer, out, buffer):
    lowerer.handle_buffers[str(out)] = buffer


def _check_index(lowerer, index, buffer, reading, handle):
    """The executor's checks of an index (TensorArrayValue._check_index), naming it."""
    lowerer.check_values("%s < 0" % index, IndexError, "TensorArray index %d is negative",
                         (index,))
    if buffer.dynamic:
        if reading:
            size = buffer.size_of(handle)
            lowerer.check_values("%s >= %s and %s == 1" % (index, size, size), IndexError,
                                 "TensorArray index %d is out of range: the array has 1 "
                                 "element", (index,))
            lowerer.check_values("%s >= %s" % (index, size), IndexError,
                                 "TensorArray index %d is out of range: the array has %d "
                                 "elements", (index, size))
        return
    if reading:
        message = "TensorArray index %%d is out of range: the array has %d element%s" % (
            buffer.size, "" if buffer.size == 1 else "s")
    else:
        message = ("TensorArray index %%d is out of range: the array has a fixed size of %d "
                   "(dynamic_size=False)" % buffer.size)
    lowerer.check_values("%s >= %d" % (index, buffer.size), IndexError, message, (index,))


def _check_written(lowerer, buffer, handle, index, failed):
    """Fails where `failed` (an expression) holds: element `index` was never written."""
    message = "TensorArray index %d was read before it was written (the array has size %d)"
    lowerer.check_values(failed, IndexError, message, (index, buffer.size_of(handle)))


def _grow(lowerer, handle, out, buffer, needed):
    """`out` = `handle`, or a copy with room for `needed` elements when it has less."""
    capacity = "%s[0].shape[0]" % handle
    lowerer.line("if %s > %s:" % (needed, capacity))
    with lowerer.block():
        larger = lowerer.fresh("n")
        lowerer.line("%s = max(%s, 2 * %s)" % (larger, needed, capacity))
        elements, written = lowerer.fresh("e"), lowerer.fresh("m")
        lowerer.line("%s = %s" % (elements, buffer.elements(larger)))
        lowerer.line("%s[:%s] = %s[0]" % (elements, capacity, handle))
        lowerer.line("%s = np.zeros(%s, np.bool_)" % (written, larger))
        lowerer.line("%s[:%s] = %s[1]" % (written, capacity, handle))
        lowerer.line("%s = (%s, %s, %s[2])" % (out, elements, written, handle))
    lowerer.line("else:")
    with lowerer.block():
        lowerer.line("%s = %s" % (out, handle))
    lowerer.line("%s[2][0] = max(%s[2][0], %s)" % (out, out, needed))


def constant(lowerer, value):
    """A TensorArray constant (a creation the executor folded): the name of a new buffer."""
    try:
        array = value_of_handle(value)
    except TypeError:
        raise lowering_api.Unsupported("a variant constant that is not a TensorArray") from None
    buffer, token = new_buffer(lowerer, array.size, array.dynamic_size, array.element_shape,
                               array.np_dtype, any(e is not None for e in array.items()))
    name = lowerer.fresh("ta")
    lowerer.line("%s = %s" % (name, token))
    _hand_on(lowerer, name, buffer)
    return name


def create(lowerer, node, ins, outs):
    """TensorArray: a buffer of the constant size."""
    size = ins[0].value
    if size is None:
        raise lowering_api.Unsupported("a TensorArray whose size is not a constant")
    if int(size) < 0:
        raise lowering_api.Unsupported("a negative TensorArray size")
    dtype = node.attrs["dtype"]
    buffer, token = new_buffer(lowerer, size, node.attrs["dynamic_size"],
                               node.attrs["element_shape"],
                               None if dtype is None else dtype.np_dtype)
    lowerer.line("%s = %s" % (outs[0], token))
    _hand_on(lowerer, outs[0], buffer)


def write(lowerer, node, ins, outs):
    """TensorArrayWrite: stores the element in place."""
    handle, index, value = ins
    buffer = _buffer_of(lowerer, handle)
    buffer.learn(value.dtype.np_dtype, value.shape)
    _check_index(lowerer, index, buffer, False, handle)
    if buffer.dynamic:
        _grow(lowerer, handle, outs[0], buffer, "%s + 1" % index)
    else:
        lowerer.line("%s = %s" % (outs[0], handle))
    if value.shape is not None and len(value.shape) > 0:  # (a slice assignment, as a loop)
        lowerer.line("numba_math.assign(%s[0][%s], %s)" % (outs[0], index, value))
    else:
        lowerer.line("%s[0][%s] = %s" % (outs[0], index, value))
    lowerer.line("%s[1][%s] = True" % (outs[0], index))
    _hand_on(lowerer, outs[0], buffer)


_declare_use(write, WRITE)


def read(lowerer, node, ins, outs):
    """TensorArrayRead: a copy of the element (a later write must not change it)."""
    handle, index = ins
    buffer = _buffer_of(lowerer, handle)
    _check_index(lowerer, index, buffer, True, handle)
    _check_written(lowerer, buffer, handle, index, "not %s[1][%s]" % (handle, index))
    if outs[0].rank0:
        lowerer.assign(outs[0], "%s[0][%s]" % (handle, index))
    else:
        lowerer.assign(outs[0], "%s[0][%s].copy()" % (handle, index))


_declare_use(read, READ)


def stack(lowerer, node, ins, outs):
    """TensorArrayStack: a copy of the whole buffer, every element written."""
    handle = ins[0]
    buffer = _buffer_of(lowerer, handle)
    size = buffer.size_of(handle)
    _check_written(lowerer, buffer, handle, "np.argmin(%s[1][:%s])" % (handle, size),
                   "not %s[1][:%s].all()" % (handle, size))
    lowerer.assign(outs[0], "%s[0][:%s].copy()" % (handle, size))


_declare_use(stack, READ)


def size(lowerer, node, ins, outs):
    """TensorArraySize: the buffer's size."""
    buffer = _buffer_of(lowerer, ins[0])
    lowerer.assign(outs[0], "np.int32(%s)" % buffer.size_of(ins[0]))


_declare_use(size, READ)


def unstack(lowerer, node, ins, outs):
    """TensorArrayUnstack: the value's rows stored as elements 0, 1, ... in place, after the
    kernel's check that they fit the array's fixed size."""
    handle, value = ins
    if value.shape is None or value.rank0:
        raise lowering_api.Unsupported("an unstack of a value of unknown rank")
    buffer = _buffer_of(lowerer, handle)
    buffer.learn(value.dtype.np_dtype, value.shape[1:])
    count = str(value.shape[0]) if value.shape[0] is not None else "%s.shape[0]" % value
    if buffer.dynamic:
        _grow(lowerer, handle, outs[0], buffer, count)
    else:
        lowerer.check_values("%s > %d" % (count, buffer.size), ValueError,
                             "cannot unstack %%d elements into a TensorArray of fixed size %d "
                             "(dynamic_size=False)" % buffer.size, (count,))
        lowerer.line("%s = %s" % (outs[0], handle))
    lowerer.line("numba_math.assign(%s[0][:%s], %s)" % (outs[0], count, value))
    lowerer.line("%s[1][:%s] = True" % (outs[0], count))
    _hand_on(lowerer, outs[0], buffer)


_declare_use(unstack, WRITE)
