"""`tf.TensorArray`: a growable array of tensors, staged as one handle.

A `TensorArray` is a value object: ONE handle tensor (dtype `variant`, see
`runtime.tensor_array.ops`) plus static metadata: the element dtype, the element shape
known so far, whether it may grow, and its size when known before running. `write`,
`unstack` and `scatter` return a new TensorArray (as in TensorFlow) and leave the old one
unchanged. It is a composite for `runtime.nest`, with the handle as its one component, so
staged loops and conditionals carry it like a tensor; between iterations or branches its
metadata is joined (`join`): an element shape learned inside a loop body is kept for the
loop's result, so `ta.stack()` after the loop has a static shape.

The lists that loops on tensors append to (`StagedList`, a converted-code concept built on
TensorArray) are in `runtime.operators.staged_lists`.
"""

from runtime import dtypes, nest
from runtime import shape as shape_lib
from runtime.ops import array_ops, common
from runtime.tensor import Tensor
from runtime.tensor_array import ops
from runtime.tensor_array.ops import refine_shape
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


def entering_loop(structure):
    """`structure` as a loop variable's template: a dynamic-size array's size is unknown in
    the loop body (it may grow there)."""
    return nest.map_composites(lambda c: c._entering_loop(), structure)


def static_sizes(structure):
    """The static sizes of the TensorArrays in `structure` (None where unknown)."""
    sizes = []

    def note(composite):
        sizes.append(composite._static_sizes())
        return composite

    nest.map_composites(note, structure)
    return sizes


def join(name, a, b, where):
    """`a` with the metadata of its TensorArrays and StagedLists joined with those of `b`
    (same structure). `where` = (what a is, what b is) for error messages, e.g.
    ('in the if branch', 'in the else branch')."""
    return nest.map_composites(lambda x, y: x.join(y, name, where), a, b)
