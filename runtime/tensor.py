"""Tensors: eager ones wrapping a numpy value, and symbolic ones standing for a graph node's output.

Both kinds share one base class so that user code is written once; operators (`+`, `@`,
indexing...) are installed on the base class by `runtime.ops.tensor_operators`, which routes them
through the op registry. An eager tensor's value is a numpy array or numpy scalar (string
tensors hold `bytes` in object arrays).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np

from runtime import dtypes, errors
from runtime import shape as shape_lib


class Tensor:
    """Base class of eager and symbolic tensors: a dtype, a static shape and the operators."""

    __slots__ = ()
    # Makes numpy defer to our reflected operators (`np.float32(2) * t` gives a Tensor).
    __array_priority__ = 100

    if TYPE_CHECKING:  # provided by the subclasses, and by runtime.ops.tensor_operators
        dtype: dtypes.DType

        def _shape_tuple(self) -> shape_lib.Shape: ...

        def __getitem__(self, key: Any) -> Tensor: ...

    @property
    def shape(self) -> shape_lib.TensorShape:
        """The static shape, as a `TensorShape`."""
        return shape_lib.TensorShape(self._shape_tuple())

    def get_shape(self) -> shape_lib.TensorShape:
        """Same as `.shape`."""
        return self.shape

    @property
    def ndim(self) -> int | None:
        """The rank, or None when unknown."""
        dims = self._shape_tuple()
        return None if dims is None else len(dims)

    def __hash__(self) -> int:
        raise TypeError("Tensor is unhashable (== compares elementwise); use tensor.ref() "
                        "as a dictionary key or set element")

    def ref(self) -> TensorRef[Tensor]:
        """A hashable reference to this tensor, usable as a dictionary key."""
        return TensorRef(self)


def is_tensor(value: Any) -> bool:
    """True for tensors (eager or symbolic)."""
    return isinstance(value, Tensor)


# what a TensorRef refers to: a tensor, or a variable (runtime.variables, above this layer)
_Referent = TypeVar("_Referent")


class TensorRef(Generic[_Referent]):
    """A hashable handle on a tensor, compared by identity (`tensor.ref()`)."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor: _Referent) -> None:
        self._tensor = tensor

    def deref(self) -> _Referent:
        """The tensor this reference points to."""
        return self._tensor

    def __hash__(self) -> int:
        return id(self._tensor)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TensorRef) and other._tensor is self._tensor


def repr_value_text(value: Any) -> str:
    """The `numpy=` part of a tensor's or variable's repr, as TensorFlow writes it: an array's
    repr, and a scalar as the Python number it holds (a float32 27.3 is 27.299999237060547,
    the float it is exactly, where numpy would write 27.3)."""
    if isinstance(value, np.ndarray) and value.ndim > 0:
        return repr(value)
    scalar = value.item() if isinstance(value, (np.ndarray, np.generic)) else value
    return repr(scalar)


def _value_text(value: Any, dtype: dtypes.DType) -> str:
    if dtype is dtypes.string and isinstance(value, np.ndarray) and value.ndim == 0:
        return repr(value[()])
    return str(value)


class EagerTensor(Tensor):
    """A tensor with a concrete value, produced by running ops immediately."""

    __slots__ = ("_value", "dtype")

    def __init__(self, value: Any, dtype: dtypes.DType) -> None:
        self._value = value
        self.dtype = dtype

    def _shape_tuple(self) -> tuple[int, ...]:
        return self._value.shape

    def numpy(self) -> Any:
        """The value as numpy: an ndarray, or a numpy scalar (`bytes` for string scalars).
        A writable array, as TensorFlow's: a copy where the stored value is read-only (a
        device tensor's host copy, an eager view of a variable), else the stored array."""
        value = self._value
        if isinstance(value, np.ndarray):
            if value.ndim == 0:
                return value[()]
            if not value.flags.writeable:
                return value.copy()
        return value

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        value = np.asarray(self._value)
        if dtype is not None:
            return value.astype(dtype)
        return value.copy() if copy else value  # np.array(t) copies, np.asarray(t) may not

    def __bool__(self) -> bool:
        return bool(self._value)

    def __int__(self) -> int:
        return int(self._value)

    def __float__(self) -> float:
        return float(self._value)

    def __index__(self) -> int:
        if not self.dtype.is_integer:
            raise TypeError("only integer scalar tensors can be used as an index, got %s"
                            % self.dtype.name)
        return int(self._value)

    def __len__(self) -> int:
        if not self._value.shape:
            raise TypeError("len() of a scalar tensor")
        return self._value.shape[0]

    def __iter__(self) -> Iterator[EagerTensor]:
        if not self._value.shape:
            raise TypeError("cannot iterate over a scalar tensor")
        dtype = self.dtype
        for item in self._value:
            yield EagerTensor(item, dtype)

    def __format__(self, spec: str) -> str:
        return format(self.numpy(), spec)

    def __str__(self) -> str:
        value_text = _value_text(self._value, self.dtype)
        if "\n" in value_text:
            value_text = "\n" + value_text
        return "tf.Tensor(%s, shape=%s, dtype=%s)" % (
            value_text, shape_lib.to_string(self._value.shape), self.dtype.name)

    def __repr__(self) -> str:
        value_text = repr_value_text(self.numpy())
        if "\n" in value_text:
            value_text = "\n" + value_text
        return "<tf.Tensor: shape=%s, dtype=%s, numpy=%s>" % (
            shape_lib.to_string(self._value.shape), self.dtype.name, value_text)


def make_eager(value: Any, dtype: dtypes.DType) -> EagerTensor:
    """Wraps a kernel's numpy result as an EagerTensor, normalising it to numpy types (a
    compiled backend's result that is a tensor already, device-resident, is kept as it is)."""
    if not isinstance(value, (np.ndarray, np.generic)) or value.dtype != dtype.np_dtype:
        if isinstance(value, EagerTensor):
            return value
        value = np.asarray(value, dtype=dtype.np_dtype)
    return EagerTensor(value, dtype)


class SymbolicTensor(Tensor):
    """An output of a graph node: known dtype and static shape, value known only at run time."""

    __slots__ = ("graph", "node", "index", "dtype", "_shape")

    # `graph` and `node` are a runtime.graph Graph and Node: the graph layer sits above
    # tensors (it makes them), so this module does not name its types.
    def __init__(self, graph: Any, node: Any, index: int, dtype: dtypes.DType,
                 shape: shape_lib.Shape) -> None:
        self.graph = graph
        self.node = node
        self.index = index
        self.dtype = dtype
        self._shape = shape

    def _shape_tuple(self) -> shape_lib.Shape:
        return self._shape

    @property
    def name(self) -> str:
        """'<node name>:<output index>', as in TensorFlow."""
        return "%s:%d" % (self.node.name, self.index)

    @property
    def op(self) -> Any:
        """The graph node that produces this tensor."""
        return self.node

    @property
    def numpy(self) -> Any:
        # TensorFlow's message (a leaked tensor's .numpy() is a plain missing attribute),
        # with the why in a note, which tracebacks show and str(error) leaves out
        error = AttributeError("'SymbolicTensor' object has no attribute 'numpy'")
        errors.add_note(error, "symbolic Tensor %r has no value: it belongs to a traced graph. "
                        "Return it from the function to get its value." % self.name)
        raise error

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        raise TypeError("cannot convert the symbolic tensor %r to a numpy array: its value "
                        "exists only when the graph runs" % self.name)

    def __bool__(self) -> bool:
        raise errors.OperatorNotAllowedInGraphError(errors.with_user_location(
            "using a symbolic tf.Tensor (%s) as a Python bool is not allowed in a traced "
            "function: convert the function with autograph (the default for "
            "autograph.function) so that `if`/`while` on tensors become graph ops" % self.name))

    def __index__(self) -> int:
        raise TypeError("a symbolic tensor (%s) cannot be used as a Python index" % self.name)

    def __len__(self) -> int:
        dims = self._shape
        if dims is None or not dims or dims[0] is None:
            raise TypeError("len is not defined for symbolic tensor %s with shape %s: use "
                            "tf.shape(t)[0]" % (self.name, shape_lib.to_string(dims)))
        return dims[0]

    def __iter__(self) -> Iterator[Tensor]:
        dims = self._shape
        if dims is None or not dims or dims[0] is None:
            raise errors.OperatorNotAllowedInGraphError(errors.with_user_location(
                "iterating over a symbolic tf.Tensor (%s, shape %s) is not allowed in a traced "
                "function: convert the function with autograph so that the loop becomes a "
                "graph op" % (self.name, shape_lib.to_string(dims))))
        return (self[i] for i in range(dims[0]))

    def __str__(self) -> str:
        return 'Tensor("%s", shape=%s, dtype=%s)' % (
            self.name, shape_lib.to_string(self._shape), self.dtype.name)

    def __repr__(self) -> str:
        return "<tf.Tensor '%s' shape=%s dtype=%s>" % (
            self.name, shape_lib.to_string(self._shape), self.dtype.name)


def _python_number(value: int | float, dtype: Any) -> tuple[Any, dtypes.DType] | None:
    """to_numpy's answer for a Python int or float that `dtype` (None: the inferred one) holds
    without overflow, found without the general path's checks and `np.errstate` (which
    cost more than the conversion); None for any other case, left to that path and its
    messages: a float for an integer type, a number out of range, NaN, other types."""
    dtype = _infer_dtype(value) if dtype is None else dtypes.as_dtype(dtype)
    if dtype.kind == "int" and type(value) is float:
        return None
    bounds = _number_bounds.get(dtype)
    if bounds is None:
        if dtype.kind not in ("int", "float"):
            return None
        low, high = dtype.limits
        bounds = _number_bounds[dtype] = ((int(low), int(high)) if dtype.kind == "int" else
                                          (-float(high), float(high)))
    if not bounds[0] <= value <= bounds[1]:
        return None
    return np.asarray(value, dtype=dtype.np_dtype), dtype


# DType -> the (low, high) Python numbers within which _python_number converts directly
_number_bounds: dict[dtypes.DType, tuple[int | float, int | float]] = {}


def _infer_dtype(value: Any) -> dtypes.DType:
    """TensorFlow's dtype for a Python or numpy value (int -> int32, float -> float32)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return dtypes.from_numpy(value.dtype)
    if isinstance(value, bool):
        return dtypes.bool_
    if isinstance(value, int):
        return dtypes.int32 if -2**31 <= value < 2**31 else dtypes.int64
    if isinstance(value, float):
        return dtypes.float32
    if isinstance(value, complex):
        return dtypes.complex128
    if isinstance(value, (str, bytes)):
        return dtypes.string
    if _has_strings(value):
        _check_python_sequence(value)
        return dtypes.string
    try:
        array = np.asarray(value)
    except ValueError:
        _check_python_sequence(value)
        raise
    if array.dtype.kind in "OUS":
        _check_python_sequence(value)
        raise TypeError("cannot convert %r to a tensor" % (value,))
    if array.dtype.kind in "iu":
        if array.size and (array.min() < -2**31 or array.max() >= 2**31):
            return dtypes.int64
        return dtypes.int32
    if array.dtype.kind == "f":
        return dtypes.float32
    if array.dtype.kind == "c":
        return dtypes.complex128
    return dtypes.from_numpy(array.dtype)


def _python_sequence_problem(value: Any) -> str | None:
    """TensorFlow's message for a nested Python list that is no tensor, or None: items of
    one level that are lists and scalars, or strings and numbers, are "mixed types"; lists
    of one level with different lengths are "non-rectangular"."""
    level = [value]
    ragged = False
    while level:
        lists = [v for v in level if isinstance(v, (list, tuple))]
        if lists and len(lists) != len(level):
            return "Can't convert Python sequence with mixed types to Tensor."
        if not lists:
            strings = sum(isinstance(v, (str, bytes)) for v in level)
            if 0 < strings < len(level):
                return "Can't convert Python sequence with mixed types to Tensor."
            break
        ragged = ragged or len({len(v) for v in lists}) > 1
        level = [item for v in lists for item in v]
    if ragged:
        return "Can't convert non-rectangular Python sequence to Tensor."
    return None


def _check_python_sequence(value: Any) -> None:
    """Raises TensorFlow's ValueError for a nested list of mixed types or ragged lengths."""
    problem = _python_sequence_problem(value)
    if problem:
        raise ValueError(problem)


def _has_strings(value: Any) -> bool:
    if isinstance(value, (str, bytes)):
        return True
    if isinstance(value, (list, tuple)) and value:
        return _has_strings(value[0])
    return False


def _encode_strings(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (list, tuple)):
        return [_encode_strings(v) for v in value]
    return value


def to_numpy(value: Any, dtype: Any = None) -> tuple[Any, dtypes.DType]:
    """Converts a Python or numpy value to the numpy storage of a tensor of `dtype`.

    Returns (numpy_value, dtype). Raises TypeError when the value does not fit the dtype.
    """
    if type(value) is int or type(value) is float:  # the commonest: a number in an expression
        found = _python_number(value, dtype)
        if found is not None:
            return found
    inferred = _infer_dtype(value)
    dtype = inferred if dtype is None else dtypes.as_dtype(dtype)
    if dtype is dtypes.string:
        if isinstance(value, (list, tuple)) and np.size(value) == 0:  # [] or [[]]: no values
            return np.empty(np.shape(value), dtype=object), dtype
        if inferred is not dtypes.string:
            raise TypeError("cannot convert %r to a string tensor" % (value,))
        encoded = _encode_strings(value.tolist() if isinstance(value, np.ndarray) else value)
        array = np.empty(np.shape(encoded) if isinstance(encoded, list) else (), dtype=object)
        array[...] = encoded if isinstance(encoded, list) else _encode_strings(encoded)
        return array, dtype
    if inferred is dtypes.string:
        raise TypeError("cannot convert %r to a %s tensor" % (value, dtype.name))
    if inferred.is_complex and not dtype.is_complex:
        raise TypeError("cannot convert the complex value %r to a %s tensor: use tf.math.real "
                        "or tf.cast" % (value, dtype.name))
    if inferred.is_floating and dtype.kind in ("int", "bool") and not isinstance(
            value, (np.ndarray, np.generic)):
        array = np.asarray(value)
        if not np.all(np.equal(np.mod(array, 1), 0)):
            raise TypeError("cannot convert %r to an exact %s tensor" % (value, dtype.name))
    try:
        with np.errstate(over="ignore"):  # a float beyond float16's range is inf, as in TF
            array = np.asarray(value, dtype=dtype.np_dtype)
    except (TypeError, ValueError, OverflowError) as e:
        raise TypeError("cannot convert %r to a %s tensor: %s" % (value, dtype.name, e)) from None
    if dtype.is_integer and not isinstance(value, (np.ndarray, np.generic)):
        values = np.asarray(value)
        if array.size and (values.max() > dtype.max or values.min() < dtype.min):
            raise TypeError("%r is out of range for %s" % (value, dtype.name))
    return array, dtype
