"""The run-time value of a TensorArray handle: a persistent array of numpy values.

A TensorArray's state is a scalar tensor of dtype `variant` (its "handle") whose run-time
value is a `TensorArrayValue`: an immutable array of numpy values (unwritten slots empty)
with its size, whether it may grow, and the element shape and dtype learned so far. Every
operation returns a new value and leaves its input as it was, so a handle is an ordinary
value for eager execution, graph building, constant folding, common-subexpression
elimination and the executor, and flows through If/While like any tensor.

Writes cost O(1) however the versions are used: the elements live in one list shared by
all versions of an array; the newest version owns it, and each older version keeps the
few entries that differ from the next one (a "persistent array"). Reading an older version
first moves the list back to it. A lock per array keeps that safe across threads.
"""

import threading

import numpy as np

from runtime import dtypes
from runtime import shape as shape_lib

# The dtype of TensorArray handles (TensorFlow's `variant`): rank-0 tensors whose numpy
# storage is an object holding a TensorArrayValue.
variant = dtypes.variant


class _Version:
    """One version of an array's element list. The newest version holds the shared list in
    `items`; an older one holds `diff`, the (index, element) pairs that, assigned in
    reverse order to the list of `newer`, give this version's list."""

    __slots__ = ("items", "diff", "newer")

    def __init__(self, items, diff=None, newer=None):
        self.items = items
        self.diff = diff
        self.newer = newer


def _reroot(version):
    """Makes `version` the owner of the shared list and returns the list (lock held)."""
    if version.items is not None:
        return version.items
    path = []
    node = version
    while node.items is None:
        path.append(node)
        node = node.newer
    items = node.items
    for older in reversed(path):
        redo = []
        for index, element in reversed(older.diff):
            redo.append((index, items[index]))
            items[index] = element
        node.items, node.diff, node.newer = None, tuple(redo), older
        older.items, older.diff, older.newer = items, None, None
        node = older
    return items


class TensorArrayValue:
    """The run-time value of a TensorArray handle. Immutable: `written` returns a new value.

    `element_shape` is a tuple (entries None while unknown) or None when even the rank is
    unknown; once an element is written it is that element's shape, which every other
    element must have. With `infer_shape` False it stays the shape given at creation, which
    every element must fit, and elements may differ in shape (for `concat`). `np_dtype` is
    the elements' numpy dtype (None before the first write of an array created without a
    dtype)."""

    __slots__ = ("_version", "_lock", "size", "dynamic_size", "element_shape", "np_dtype",
                 "infer_shape")

    def __init__(self, version, lock, size, dynamic_size, element_shape, np_dtype,
                 infer_shape=True):
        self._version = version
        self._lock = lock
        self.size = size
        self.dynamic_size = dynamic_size
        self.element_shape = element_shape
        self.np_dtype = np_dtype
        self.infer_shape = infer_shape

    @classmethod
    def empty(cls, size, dynamic_size, element_shape, np_dtype, infer_shape=True):
        """A new array of `size` unwritten elements."""
        return cls(_Version([None] * size), threading.Lock(), size, dynamic_size,
                   element_shape, np_dtype, infer_shape)

    def _check_index(self, index, reading):
        if index < 0:
            raise IndexError("TensorArray index %d is negative" % index)
        if index < self.size or not reading and self.dynamic_size:
            return
        if reading:
            raise IndexError("TensorArray index %d is out of range: the array has %d "
                             "element%s" % (index, self.size, "" if self.size == 1 else "s"))
        raise IndexError("TensorArray index %d is out of range: the array has a fixed size "
                         "of %d (dynamic_size=False)" % (index, self.size))

    def read(self, index):
        """Element `index`; IndexError when it is out of range or was never written."""
        index = int(index)
        self._check_index(index, reading=True)
        with self._lock:
            element = _reroot(self._version)[index]
        if element is None:
            raise IndexError("TensorArray index %d was read before it was written (the "
                             "array has size %d)" % (index, self.size))
        return element

    def elements(self, indices):
        """The elements at `indices` (ints), checked as `read` does."""
        indices = [int(i) for i in indices]
        for index in indices:
            self._check_index(index, reading=True)
        with self._lock:
            items = _reroot(self._version)
            found = [items[i] for i in indices]
        for index, element in zip(indices, found):
            if element is None:
                raise IndexError("TensorArray index %d was read before it was written (the "
                                 "array has size %d)" % (index, self.size))
        return found

    def items(self):
        """A list of every slot's element (None where unwritten), `size` long at least."""
        with self._lock:
            return list(_reroot(self._version))

    def written(self, pairs):
        """A new value with element `index` set to `element` for each (index, element)."""
        pairs = [(int(i), e) for i, e in pairs]
        element_shape = self.element_shape
        size = self.size
        np_dtype = self.np_dtype
        for index, element in pairs:
            self._check_index(index, reading=False)
            element_shape = _element_shape(element_shape, index, element, self.infer_shape)
            size = max(size, index + 1)
            if np_dtype is None:
                np_dtype = np.asarray(element).dtype
        with self._lock:
            items = _reroot(self._version)
            if size > len(items):
                items.extend([None] * (max(size, 2 * len(items)) - len(items)))
            diff = []
            for index, element in pairs:
                diff.append((index, items[index]))
                items[index] = element
            newer = _Version(items)
            version = self._version
            version.items, version.diff, version.newer = None, tuple(diff), newer
        return TensorArrayValue(newer, self._lock, size, self.dynamic_size, element_shape,
                                np_dtype, self.infer_shape)

    def written_one(self, index, element):
        """`written([(index, element)])`, the common case, kept short (loops call it).

        `index` may be a numpy integer: lists take it as an index directly."""
        size = self.size
        if index >= size or index < 0:
            index = int(index)
            self._check_index(index, reading=False)
            size = index + 1
        element_shape = self.element_shape
        shape = getattr(element, "shape", None)
        if shape is None or shape != element_shape:
            element_shape = _element_shape(element_shape, index, element, self.infer_shape)
        np_dtype = self.np_dtype
        if np_dtype is None:
            np_dtype = np.asarray(element).dtype
        with self._lock:
            version = self._version
            items = version.items
            if items is None:
                items = _reroot(version)
            if size > len(items):
                items.extend([None] * (max(size, 2 * len(items)) - len(items)))
            newer = _Version(items)
            version.items, version.diff, version.newer = None, ((index, items[index]),), newer
            items[index] = element
        return TensorArrayValue(newer, self._lock, size, self.dynamic_size, element_shape,
                                np_dtype, self.infer_shape)

    def __repr__(self):
        return "<TensorArrayValue size=%d element_shape=%s>" % (
            self.size, shape_lib.to_string(self.element_shape))


def _element_shape(known, index, element, infer=True):
    """The array's element shape after writing `element` at `index`, checked against the
    `known` one: the element's shape, or with `infer` False the `known` one unchanged."""
    shape = np.shape(element)
    if known is not None and (len(known) != len(shape) or any(
            k is not None and k != s for k, s in zip(known, shape))):
        raise ValueError(
            "cannot write a value of shape %s at TensorArray index %d: the array's elements "
            "have shape %s" % (shape_lib.to_string(shape), index, shape_lib.to_string(known)))
    return shape if infer else known


def value_of_handle(handle):
    """The TensorArrayValue of a handle's numpy value (a 0-d object array, or the object
    itself where the executor folded it to a constant)."""
    if type(handle) is TensorArrayValue:
        return handle
    if isinstance(handle, np.ndarray):
        handle = handle[()]
    if not isinstance(handle, TensorArrayValue):
        raise TypeError("expected a TensorArray handle, got %r" % (handle,))
    return handle
