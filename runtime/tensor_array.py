"""`tf.TensorArray`, and the lists that loops on tensors append to (`StagedList`).

A `TensorArray` is a value object: ONE handle tensor (dtype `variant`, see
`runtime.ops.tensor_array_ops`) plus static metadata: the element dtype, the element shape
known so far, whether it may grow, and its size when known before running. `write`,
`unstack` and `scatter` return a new TensorArray (as in TensorFlow) and leave the old one
unchanged. It is a composite for `runtime.nest`, with the handle as its one component, so
staged loops and conditionals carry it like a tensor; between iterations or branches its
metadata is joined (`join`): an element shape learned inside a loop body is kept for the
loop's result, so `ta.stack()` after the loop has a static shape.

`StagedList` is what a Python list becomes when a loop on a tensor appends to it (see
`runtime.operators.staging`): a list-like wrapper around a growing TensorArray, which
`tf.stack`, `tf.convert_to_tensor`, `len`, indexing and `for` understand, and which turns
back into a plain list of tensors when a Function returns it.
"""

import builtins
import threading

import numpy as np

from runtime import dtypes, nest
from runtime import shape as shape_lib
from runtime.ops import array_ops, common, math_ops
from runtime.ops import tensor_array_ops as ops
from runtime.ops.tensor_array_ops import refine_shape
from runtime.tensor import EagerTensor, Tensor, make_eager
from runtime.variables import Variable


def _int32(value, what):
    if isinstance(value, Variable):
        value = value.read_value()
    tensor = common.convert_to_tensor(value, dtype_hint=dtypes.int32)
    if not tensor.dtype.is_integer:
        raise TypeError("a TensorArray %s must be an integer, got %s" % (what,
                                                                       tensor.dtype.name))
    return tensor


def _static_int(tensor):
    known = common.constant_value(tensor)
    return None if known is None else int(known)


def join_shapes(a, b):
    """The element shape after a join (loop iterations, branches): what both say; a side
    that knows nothing (None) takes the other's shape, differing dimensions become None."""
    if a is None:
        return b
    if b is None:
        return a
    if len(a) != len(b):
        return None
    return tuple(x if x == y else None for x, y in zip(a, b))


class TensorArray:
    """A list of tensors of one dtype and shape, usable eagerly, in graphs and as the state
    of staged loops and conditionals. `write`/`unstack`/`scatter` return the new array.

        ta = tf.TensorArray(tf.float32, size=3)
        for i in tf.range(3):
            ta = ta.write(i, x[i] * 2.0)
        ta.stack()
    """

    __slots__ = ("_handle", "_dtype", "_element_shape", "_dynamic_size", "_static_size",
                 "_infer_shape")

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        if handle is not None or flow is not None:
            raise NotImplementedError("TensorArray(handle=..., flow=...) is not supported")
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._element_shape = shape_lib.normalize(element_shape)
        # False: the elements may differ in shape (to be joined by `concat`); writes do not
        # narrow `element_shape`, only check that values fit it.
        self._infer_shape = bool(infer_shape)
        size = _int32(0 if size is None else size, "size")
        self._static_size = _static_int(size)
        if self._static_size is not None and self._static_size < 0:
            raise ValueError("TensorArray size must not be negative, got %d"
                             % self._static_size)
        self._handle = ops.create(size, self._dtype, self._element_shape, self._dynamic_size,
                                  self._infer_shape)

    @classmethod
    def _make(cls, handle, dtype, element_shape, dynamic_size, static_size, infer_shape=True):
        """A TensorArray on an existing handle, with the given static metadata."""
        ta = object.__new__(cls)
        ta._handle = handle
        ta._dtype = dtype
        ta._element_shape = element_shape
        ta._dynamic_size = dynamic_size
        ta._static_size = static_size
        ta._infer_shape = infer_shape
        return ta

    def _with(self, handle, element_shape=None, static_size=None, dtype=None):
        """The array on a new handle. `element_shape` and `dtype` default to this array's;
        `static_size` does not: None means the new size is not known statically."""
        return TensorArray._make(handle, dtype or self._dtype,
                                 element_shape if element_shape is not None
                                 else self._element_shape,
                                 self._dynamic_size, static_size, self._infer_shape)

    def _refined(self, shape):
        """The element shape after writing values of element shape `shape`."""
        if not self._infer_shape:
            return self._element_shape
        return refine_shape(self._element_shape, shape)

    # -- metadata ---------------------------------------------------------------------------
    @property
    def dtype(self):
        """The element dtype."""
        return self._dtype

    @property
    def element_shape(self):
        """The static shape of the elements (as much as is known), a TensorShape."""
        return shape_lib.TensorShape(self._element_shape)

    @property
    def dynamic_size(self):
        """True when writes past the end grow the array."""
        return self._dynamic_size

    @property
    def handle(self):
        """The variant tensor holding the array."""
        return self._handle

    flow = handle

    # -- operations -------------------------------------------------------------------------
    def _element(self, value):
        if isinstance(value, Variable):
            value = value.read_value()
        if isinstance(value, Tensor):
            return value
        return common.convert_to_tensor(value, dtype_hint=self._dtype)

    def write(self, index, value, name=None):
        """The array with element `index` set to `value`; the array itself is unchanged.

        Writing past the end of a fixed-size array raises InvalidArgumentError (when the
        op runs: at once eagerly, when the graph runs in a Function)."""
        index = _int32(index, "index")
        value = self._element(value)
        handle = ops.write(self._handle, index, value, self._dtype, self._element_shape)
        known = _static_int(index)
        size = self._static_size
        if self._dynamic_size:
            size = None if size is None or known is None else max(size, known + 1)
        return self._with(handle, self._refined(value._shape_tuple()), size, value.dtype)

    def read(self, index, name=None):
        """Element `index`: InvalidArgumentError (naming the index) when it is out of range
        or was never written."""
        return ops.read(self._handle, _int32(index, "index"), self._dtype,
                        self._element_shape)

    def stack(self, name=None):
        """The elements stacked along a new first dimension: (size, *element_shape). An
        empty array gives shape (0, *element_shape) when element_shape is fully known."""
        return ops.stack(self._handle, self._dtype, self._element_shape, self._static_size)

    def concat(self, name=None):
        """The elements joined along their first dimension: (total length, *rest). They may
        differ in length when the array was made with infer_shape=False."""
        return ops.concat(self._handle, self._dtype, self._element_shape, self._static_size)

    def gather(self, indices, name=None):
        """The elements at `indices`, stacked: (*indices.shape, *element_shape)."""
        return ops.gather(self._handle, _int32(indices, "indices"), self._dtype,
                          self._element_shape)

    def unstack(self, value, name=None):
        """The array with element i set to value[i] for every i < len(value)."""
        value = self._element(value)
        shape = value._shape_tuple()
        handle = ops.unstack(self._handle, value, self._dtype, self._element_shape)
        count = None if shape is None else shape[0]
        size = self._static_size
        if self._dynamic_size:
            size = None if size is None or count is None else max(size, count)
        return self._with(handle, self._refined(None if shape is None else shape[1:]),
                          size, value.dtype)

    def scatter(self, indices, value, name=None):
        """The array with element indices[i] set to value[i]."""
        value = self._element(value)
        shape = value._shape_tuple()
        handle = ops.scatter(self._handle, _int32(indices, "indices"), value, self._dtype,
                             self._element_shape)
        size = self._static_size if not self._dynamic_size else None
        return self._with(handle, self._refined(None if shape is None else shape[1:]),
                          size, value.dtype)

    def size(self, name=None):
        """The number of elements, as an int32 scalar tensor."""
        if self._static_size is not None:
            return common.convert_to_tensor(self._static_size, dtype=dtypes.int32)
        return ops.size(self._handle)

    def identity(self):
        """The same array (a new handle tensor)."""
        return self._with(array_ops.identity(self._handle), static_size=self._static_size)

    def close(self, name=None):
        """Nothing to release (TensorFlow compatibility)."""

    # -- composite protocol (runtime.nest) --------------------------------------------------
    def _nest_components(self):
        return (self._handle,)

    def _nest_rebuild(self, components):
        (handle,) = components
        return self._with(handle, static_size=self._static_size)

    def _nest_signature(self):
        return "TensorArray"

    def _entering_loop(self):
        if self._dynamic_size and self._static_size is not None:
            return TensorArray._make(self._handle, self._dtype, self._element_shape, True, None,
                                     self._infer_shape)
        return self

    def _static_sizes(self):
        return self._static_size

    def join(self, other, name, where):
        """This array with its metadata joined with `other`'s (the same variable in the other
        branch, or after a loop iteration). Returns self when nothing changes."""
        if not isinstance(other, TensorArray):
            raise TypeError("'%s' is a TensorArray %s but %r %s" % (
                name, where[0], other, where[1]))
        dtype = self._dtype or other._dtype
        if other._dtype is not None and dtype is not other._dtype:
            raise TypeError("'%s' is a TensorArray of %s %s but of %s %s; a TensorArray keeps "
                            "one element dtype" % (name, dtype.name, where[0],
                                                    other._dtype.name, where[1]))
        shape = join_shapes(self._element_shape, other._element_shape)
        dynamic = self._dynamic_size or other._dynamic_size
        size = self._static_size if self._static_size == other._static_size else None
        infer = self._infer_shape and other._infer_shape
        if (dtype, shape, dynamic, size, infer) == (self._dtype, self._element_shape,
                                                    self._dynamic_size, self._static_size,
                                                    self._infer_shape):
            return self
        return TensorArray._make(self._handle, dtype, shape, dynamic, size, infer)

    def __repr__(self):
        return "<TensorArray dtype=%s element_shape=%s size=%s%s>" % (
            self._dtype.name if self._dtype else "?", shape_lib.to_string(self._element_shape),
            "?" if self._static_size is None else self._static_size,
            " dynamic" if self._dynamic_size else "")


nest.register_composite(TensorArray)


# -- lists appended to in a loop on a tensor ------------------------------------------------------


_NUMBERS = (bool, int, float, np.number, np.bool_)


class ListOrigin:
    """What the staging of a loop learns about one list variable, shared by every
    StagedList standing for it: the Python list it started as (`values`), whether the body
    appended tensors to it, whether it appended anything else (`unstageable`), and the
    outcome: `python` when the list stays a Python list (see runtime.operators.staging)."""

    __slots__ = ("name", "values", "appended", "unstageable", "trial", "python")

    def __init__(self, name, values):
        self.name = name
        self.values = values
        self.appended = False
        self.unstageable = False
        self.trial = True  # until the first traced iteration decides
        self.python = False


class StagedList:
    """A Python list appended to inside a loop on a tensor, staged as a growing
    TensorArray (DESIGN: 'list.append on a list built in a tensor loop').

    Supports what code does with such a list: `append`, `len` (a tensor when the length is
    known only at run time), indexing (negative indices count from the end; a slice gives a
    tensor), `for` over it, `tf.stack` / `tf.convert_to_tensor` (all elements stacked).
    Returned from a Function, it comes back as a plain list of tensors.

    While a loop finds out that the list is only a Python side effect (it appends other
    values to it), the StagedList passes appends and reads on to the Python list."""

    __slots__ = ("_ta", "_origin")

    def __init__(self, ta, origin):
        self._ta = ta
        self._origin = origin

    @classmethod
    def candidate(cls, values, name):
        """A StagedList holding the elements of Python list `values`, or None when they are
        not tensors that one TensorArray can hold."""
        if not all(isinstance(v, Tensor) for v in values):
            return None
        try:
            if values:
                stacked = array_ops.stack(values)
                ta = TensorArray(stacked.dtype, size=len(values), dynamic_size=True,
                                 element_shape=stacked._shape_tuple()[1:])
                ta = ta.unstack(stacked)
            else:
                ta = TensorArray._make(
                    ops.create(common.convert_to_tensor(0, dtype=dtypes.int32), None, None,
                               True), None, None, True, 0)
        except (TypeError, ValueError):
            return None
        return cls(ta, ListOrigin(name, values))

    @property
    def tensor_array(self):
        """The TensorArray holding the elements."""
        return self._ta

    def copy(self):
        """Another StagedList with the same elements so far; appends to either stay its own
        (each branch of a staged `if` appends to its own copy)."""
        return StagedList(self._ta, self._origin)

    def append(self, value):
        """Appends `value` (a tensor, or a number converted to the elements' dtype)."""
        origin = self._origin
        if origin.python:
            origin.values.append(value)
            return
        if isinstance(value, Variable):
            value = value.read_value()
        if not isinstance(value, Tensor):
            if origin.trial and not isinstance(value, _NUMBERS):
                # Not a number: a trace-time log (strings, objects), kept in Python.
                origin.unstageable = True
                origin.values.append(value)
                return
            try:
                value = common.convert_to_tensor(value, dtype_hint=self._ta.dtype)
            except TypeError:
                raise TypeError(
                    "'%s' is a list appended to in a loop on a tensor, staged as a "
                    "TensorArray: it can only hold tensors of one dtype and shape, got %r"
                    % (self._origin.name, value)) from None
        _record_mutation(self)
        self._origin.appended = True
        ta = self._ta
        try:
            self._ta = ta.write(ta.size(), value)
        except (TypeError, ValueError) as e:
            raise type(e)("'%s' is a list appended to in a loop on a tensor, staged as a "
                          "TensorArray, so its elements must share one dtype and shape: %s"
                          % (self._origin.name, e)) from None

    def stack(self):
        """All elements stacked into one tensor."""
        if self._origin.python:
            return array_ops.stack(self._origin.values)
        return self._ta.stack()

    def _as_tensor(self):
        return self.stack()

    def _static_len(self):
        if self._origin.python:
            return len(self._origin.values)
        return self._ta._static_size

    def __len__(self):
        known = self._static_len()
        if known is None:
            raise TypeError("the length of '%s' (a list appended to in a loop on a tensor) is "
                            "known only when the graph runs: use len() in converted code, or "
                            "tf.size(tf.stack(...))" % self._origin.name)
        return known

    def _len(self):
        known = self._static_len()
        return known if known is not None else self._ta.size()

    def __getitem__(self, index):
        if self._origin.python:
            return self._origin.values[index]
        if isinstance(index, slice):
            return self._ta.stack()[index]
        if isinstance(index, (int,)) and not isinstance(index, bool):
            if index < 0:
                known = self._static_len()
                index = known + index if known is not None else \
                    math_ops.add(self._ta.size(), index)
            return self._ta.read(index)
        index = _int32(index, "index")
        known = common.constant_value(index)
        if known is not None and known >= 0:
            return self._ta.read(index)
        size = self._ta.size()
        return self._ta.read(array_ops.where(math_ops.less(index, 0),
                                             math_ops.add(index, size), index))

    def __iter__(self):
        if self._origin.python:
            return iter(self._origin.values)
        known = self._static_len()
        if known is None:
            raise TypeError("cannot iterate in Python over '%s', a list appended to in a loop "
                            "on a tensor: its length is known only when the graph runs. A "
                            "`for` loop in converted code is staged" % self._origin.name)
        return (self._ta.read(i) for i in builtins.range(known))

    def __ag_for_stmt__(self, extra_test, body, get_state, set_state, symbol_names):
        from runtime.operators import loops
        items = self._origin.values if self._origin.python else self._ta.stack()
        return loops.for_stmt(items, extra_test, body, get_state, set_state, symbol_names)

    # -- composite protocol -----------------------------------------------------------------
    def _nest_components(self):
        return (self._ta,)

    def _nest_rebuild(self, components):
        (ta,) = components
        if isinstance(ta._handle, EagerTensor):
            # A Function's result: the list's values, as plain Python would give them.
            array = ta._handle._value[()]
            return [make_eager(e, ta._dtype) for e in array.elements(builtins.range(array.size))]
        return StagedList(ta, self._origin)

    def _nest_signature(self):
        return "StagedList"

    def _entering_loop(self):
        ta = self._ta._entering_loop()
        return self if ta is self._ta else StagedList(ta, self._origin)

    def _static_sizes(self):
        return self._ta._static_size

    def join(self, other, name, where):
        """This list with its array's metadata joined with `other`'s (see TensorArray)."""
        if not isinstance(other, StagedList):
            raise TypeError("'%s' is a list staged as a TensorArray %s but %r %s"
                            % (name, where[0], other, where[1]))
        ta = self._ta.join(other._ta, name, where)
        return self if ta is self._ta else StagedList(ta, self._origin)

    def __repr__(self):
        return "<StagedList '%s' of %r>" % (self._origin.name, self._ta)


nest.register_composite(StagedList)


def entering_loop(structure):
    """`structure` as a loop variable's template: a dynamic-size array's size is unknown in
    the loop body (it may grow there)."""
    return nest.map_composites(lambda c: c._entering_loop(), structure)


def static_sizes(structure):
    """The static sizes of the TensorArrays in `structure` (None where unknown)."""
    sizes = []
    nest.map_composites(lambda c: sizes.append(c._static_sizes()) or c, structure)
    return sizes


def join(name, a, b, where):
    """`a` with the metadata of its TensorArrays and StagedLists joined with those of `b`
    (same structure). `where` = (what a is, what b is) for error messages, e.g.
    ('in the if branch', 'in the else branch')."""
    return nest.map_composites(lambda x, y: x.join(y, name, where), a, b)


# -- branches being traced must not change the lists of the other branch ----------------------

_journals = threading.local()


def _record_mutation(staged):
    stack = getattr(_journals, "stack", None)
    if stack:
        stack[-1].append((staged, staged._ta))


def isolate_mutations(fn):
    """Calls `fn()` (a branch being traced) and returns its result, undoing afterwards the
    appends it made to StagedLists: the result holds copies with the appended arrays, and
    the lists themselves are as before for the next branch."""
    stack = getattr(_journals, "stack", None)
    if stack is None:
        stack = _journals.stack = []
    entries = []
    stack.append(entries)
    try:
        result = fn()
        if entries:
            result = nest.map_composites(
                lambda c: StagedList(c._ta, c._origin) if isinstance(c, StagedList) else c,
                result)
        return result
    finally:
        stack.pop()
        for staged, ta in reversed(entries):
            staged._ta = ta


# -- converted code: tf.stack and len of a StagedList -------------------------------------------


def _register_overloads():
    """`tf.stack(lst)` and `len(lst)` in converted code, for StagedLists whose length is
    known only at run time (Python's `len` must return an int; `tf.stack` iterates)."""
    from runtime.operators import py_builtins

    plain_stack = array_ops.stack
    plain_len = py_builtins.OVERLOADS.get(builtins.len, builtins.len)

    def stack(values, axis=0, name="stack"):
        if not isinstance(values, StagedList):
            return plain_stack(values, axis, name)
        stacked = values.stack()
        if axis == 0:
            return stacked
        rank = stacked.ndim
        if rank is None:
            raise ValueError("tf.stack(axis=%d) of '%s' needs the rank of its elements"
                             % (axis, values._origin.name))
        axis = axis + rank if axis < 0 else axis
        perm = list(builtins.range(1, rank))
        perm.insert(axis, 0)
        return array_ops.transpose(stacked, perm)

    def len_(value):
        if isinstance(value, StagedList):
            return value._len()
        return plain_len(value)

    stack.__doc__ = plain_stack.__doc__
    len_.__doc__ = getattr(plain_len, "__doc__", None)
    py_builtins.OVERLOADS[array_ops.stack] = stack
    py_builtins.OVERLOADS[builtins.len] = len_


_register_overloads()
