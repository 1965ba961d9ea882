"""The lists that loops on tensors append to (`StagedList`), a converted-code concept.

A `StagedList` is what a Python list becomes when a loop on a tensor appends to it (see
`runtime.operators.staging`): a list-like wrapper around a growing TensorArray, which
`tf.stack`, `tf.convert_to_tensor`, `len`, indexing and `for` understand, and which turns
back into a plain list of tensors when a Function returns it. `len` and `tf.stack` of one
are routed by `runtime.operators.py_builtins`; a `for` over one by `runtime.operators.loops`.
"""

from __future__ import annotations

import builtins
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from runtime import context, dtypes, errors, nest
from runtime import shape as shape_lib
from runtime.dtypes import DType
from runtime.ops import common, concat_split_ops, math_ops, selection_ops
from runtime.shape import TensorShape
from runtime.tensor import EagerTensor, Tensor, make_eager
from runtime.tensor_array import TensorArray, _int32, ops
from runtime.variables import Variable

# -- declared element types (tf.autograph.experimental.set_element_type) ------------------------

# root graph being traced -> {id(list): (the list, dtype, element shape)}; the entries go
# with the graph (they hold the lists, so that the ids stay theirs).
_declared: weakref.WeakKeyDictionary[Any, dict[int, tuple[list, dtypes.DType,
                                                          shape_lib.Shape]]] = \
    weakref.WeakKeyDictionary()


def set_element_type(entity: object, dtype: DType,
                     shape: TensorShape | Sequence[int | None] | None = None) -> None:
    """Declares the dtype (and element shape, None dims allowed) of what Python list
    `entity` will hold: when a loop on a tensor stages the list as a TensorArray, the array
    has that dtype and element shape from the start (so a loop that runs zero times still
    gives `tf.stack` a typed, empty result), and appending anything else is an error naming
    the list. Outside a trace, or for anything but a list, it does nothing (as in
    TensorFlow, where it affects only staged lists)."""
    graph = context.current_graph()
    if graph is None or type(entity) is not list:
        return
    _declared.setdefault(graph.root, {})[id(entity)] = (
        entity, dtypes.as_dtype(dtype), shape_lib.normalize(shape))


def declared_element_type(values: list) -> tuple[dtypes.DType | None, shape_lib.Shape]:
    """(dtype, element shape) that `set_element_type` declared for list `values` in this
    trace, or (None, None)."""
    graph = context.current_graph()
    found = _declared.get(graph.root, {}).get(id(values)) if graph is not None else None
    if found is None or found[0] is not values:
        return None, None
    return found[1], found[2]


# -- lists appended to in a loop on a tensor ------------------------------------------------------


_NUMBERS = (bool, int, float, np.number, np.bool_)


class ListOrigin:
    """What the staging of a loop learns about one list variable, shared by every
    StagedList standing for it: the Python list it started as (`values`), whether the body
    appended tensors to it, whether it appended anything else (`unstageable`), and the
    outcome: `python` when the list stays a Python list (see runtime.operators.staging)."""

    __slots__ = ("name", "values", "appended", "unstageable", "trial", "python")

    def __init__(self, name: str, values: list) -> None:
        self.name = name
        self.values = values
        self.appended = False
        self.unstageable = False
        self.trial = True  # until the first traced iteration decides
        self.python = False


_LIST_METHODS = frozenset(name for name in dir(list) if not name.startswith("_"))


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

    def __init__(self, ta: TensorArray, origin: ListOrigin) -> None:
        self._ta = ta
        self._origin = origin

    @classmethod
    def candidate(cls, values: Any, name: str) -> "StagedList | None":
        """A StagedList holding the elements of Python list `values`, or None when they are
        not tensors that one TensorArray can hold."""
        if not all(isinstance(v, Tensor) for v in values):
            return None
        dtype, element_shape = declared_element_type(values)
        try:
            if values:
                stacked = concat_split_ops.stack(values)
                ta = TensorArray(dtype or stacked.dtype, size=len(values), dynamic_size=True,
                                 element_shape=element_shape or stacked._shape_tuple()[1:])
                ta = ta.unstack(stacked)
            else:
                ta = TensorArray._make(
                    ops.create(common.convert_to_tensor(0, dtype=dtypes.int32), dtype,
                               element_shape, True), dtype, element_shape, True, 0)
        except (TypeError, ValueError):
            if dtype is not None:
                raise TypeError("'%s' holds elements that do not fit its declared element "
                                "type %s %s (set_element_type)" % (
                                    name, dtype.name, shape_lib.to_string(element_shape)))
            return None
        return cls(ta, ListOrigin(name, values))

    @property
    def tensor_array(self) -> TensorArray:
        """The TensorArray holding the elements."""
        return self._ta

    def copy(self) -> "StagedList":
        """Another StagedList with the same elements so far; appends to either stay its own
        (each branch of a staged `if` appends to its own copy)."""
        return StagedList(self._ta, self._origin)

    def append(self, value: Any) -> None:
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
        self._origin.appended = True
        ta = self._ta
        try:
            self._ta = ta.write(ta.size(), value)
        except (TypeError, ValueError) as e:
            raise type(e)("'%s' is a list appended to in a loop on a tensor, staged as a "
                          "TensorArray, so its elements must share one dtype and shape: %s"
                          % (self._origin.name, e)) from None

    def __getattr__(self, name):
        # Only for what the class lacks: the other list methods. A list kept as Python
        # has them all; a staged one refuses them by name (an AttributeError was a crash).
        origin = object.__getattribute__(self, "_origin")
        if origin.python:
            return getattr(origin.values, name)
        if name in _LIST_METHODS:
            raise NotImplementedError(errors.with_user_location(
                "'%s' is a list appended to in a loop on a tensor, staged as a TensorArray, "
                "which supports append, len, indexing, iteration and tf.stack: %s.%s() "
                "cannot be staged. Build the values another way (a new list, or "
                "tf.TensorArray operations) or keep '%s' out of the staged loop"
                % (origin.name, origin.name, name, origin.name), errors.user_location(2)))
        raise AttributeError("'StagedList' object has no attribute %r" % name)

    def stack(self) -> Tensor:
        """All elements stacked into one tensor."""
        if self._origin.python:
            return concat_split_ops.stack(self._origin.values)
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
            raise TypeError(errors.with_user_location(
                "the length of '%s' (a list appended to in a loop on a tensor) is known only "
                "when the graph runs: use len() in converted code, or tf.size(tf.stack(...))"
                % self._origin.name, errors.user_location()))
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
        return self._ta.read(selection_ops.where(math_ops.less(index, 0),
                                             math_ops.add(index, size), index))

    def __iter__(self):
        if self._origin.python:
            return iter(self._origin.values)
        known = self._static_len()
        if known is None:
            raise TypeError(errors.with_user_location(
                "cannot iterate in Python over '%s', a list appended to in a loop on a "
                "tensor: its length is known only when the graph runs. A `for` loop over it "
                "in converted code is staged, and so are len(), sum() and tf.stack() of it"
                % self._origin.name, errors.user_location()))
        return (self._ta.read(i) for i in builtins.range(known))

    def loop_items(self) -> Any:
        """What a `for` loop over the list iterates: the Python list when it stayed one,
        otherwise its elements stacked into one tensor."""
        return self._origin.values if self._origin.python else self._ta.stack()

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

    def join(self, other: Any, name: str, where: tuple[str, str]) -> "StagedList":
        """This list with its array's metadata joined with `other`'s (see TensorArray)."""
        if not isinstance(other, StagedList):
            raise TypeError("'%s' is a list staged as a TensorArray %s but %r %s"
                            % (name, where[0], other, where[1]))
        ta = self._ta.join(other._ta, name, where)
        return self if ta is self._ta else StagedList(ta, self._origin)

    def __repr__(self):
        return "<StagedList '%s' of %r>" % (self._origin.name, self._ta)


nest.register_composite(StagedList)
