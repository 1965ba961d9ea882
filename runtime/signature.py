"""Input signatures: `TensorSpec`, the cache key of a call, and matching calls to traces.

The cache key of a call is computed from its canonical arguments (bound to the Python
function's parameters, defaults applied):
  * tensor or numpy array  -> (dtype, shape); (dtype, shape, ON_DEVICE) when device-resident
  * Variable               -> ('var', dtype, shape): like variables share a trace (TF 2.21)
  * TensorSpec             -> (dtype, shape), shape possibly with None dims
  * Python scalar / None   -> (type, value)
  * list/tuple/dict/namedtuple -> its container type and the keys of its leaves
  * an object traced by its spec (a Dataset: `FedObjectSpec`) -> ('fed', its spec's key):
                              fed to the trace at run time, so objects of one spec share it
  * an object whose class defines `__tf_tracing_type__` -> ('traced_as', its TraceType):
                              a call runs a trace whose type its own is a subtype of
                              (see runtime.trace_type)
  * anything else          -> ('id', id(object)): a trace per object
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from runtime import dtypes, nest, trace_type
from runtime import shape as shape_lib
from runtime.device_tensor import ON_DEVICE, DeviceTensor
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor
from runtime.variables import Variable

# Python values keyed by value (a key part `(type, value)`): each one its own trace.
SCALAR_TYPES = (int, float, bool, str, bytes, type(None))

# A cache key: a tuple of per-argument parts, themselves nested tuples (see module docstring).
Key = tuple[Any, ...]


class TensorSpec:
    """Describes a tensor argument: `TensorSpec(shape, dtype=tf.float32, name=None)`.

    `shape=None` means any rank; a None dimension matches any size."""

    __slots__ = ("_shape", "dtype", "name")

    def __init__(self, shape: Any = None, dtype: Any = dtypes.float32,
                 name: str | None = None) -> None:
        self._shape = shape_lib.normalize(shape)
        self.dtype = dtypes.as_dtype(dtype)
        self.name = name

    @classmethod
    def from_tensor(cls, tensor: Tensor, name: str | None = None) -> TensorSpec:
        """The spec of an existing tensor."""
        return cls(tensor._shape_tuple(), tensor.dtype, name)

    @property
    def shape(self) -> shape_lib.TensorShape:
        """The spec's shape, as a TensorShape."""
        return shape_lib.TensorShape(self._shape)

    def is_compatible_with(self, value: Any) -> bool:
        """True when `value` (a tensor or spec) has this dtype and a fitting shape."""
        if isinstance(value, TensorSpec):
            return value.dtype is self.dtype and shape_lib.is_subtype(value._shape, self._shape)
        if isinstance(value, Tensor):
            return value.dtype is self.dtype and shape_lib.is_compatible(
                self._shape, value._shape_tuple())
        return False

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, TensorSpec) and other._shape == self._shape
                and other.dtype is self.dtype and other.name == self.name)

    def __hash__(self) -> int:
        return hash((self._shape, self.dtype, self.name))

    def __repr__(self) -> str:
        return "TensorSpec(shape=%s, dtype=%r, name=%r)" % (
            shape_lib.to_string(self._shape), self.dtype, self.name)


def part_name(parent: str | None, part: Any) -> str:
    """The name TensorFlow gives the item `part` (an index or a dict key) of an argument
    named `parent`, in a trace's input signature: 'l_0', 'l_1_b'; the key alone for an
    item of **kwargs (`parent` None)."""
    return str(part) if parent is None else "%s_%s" % (parent, part)


class VariableSpec:
    """Describes a Variable argument (its dtype and shape)."""

    __slots__ = ("_shape", "dtype", "name")

    def __init__(self, shape: Any, dtype: dtypes.DType, name: str | None = None) -> None:
        self._shape = shape
        self.dtype = dtype
        self.name = name

    def __repr__(self) -> str:
        return "VariableSpec(shape=%s, dtype=%r, name=%r)" % (
            shape_lib.to_string(self._shape), self.dtype, self.name)


class FedObjectSpec:
    """The spec of an argument that a trace takes as a Python object fed at each run through
    a resource placeholder (a Dataset, keyed by its element_spec as in TensorFlow): calls
    with objects of equal specs share the trace, which keeps none of them alive.

    An object is traced this way when it has a method `_fed_object_spec()` returning its
    spec; a subclass gives `key` (hashable, equal for objects one trace can run),
    `stand_in(placeholder)` (what the traced function sees in the object's place) and
    `describe(value)` (a mismatch's message)."""

    key: Any = None

    def stand_in(self, placeholder: SymbolicTensor) -> Any:
        """The object the traced Python function receives in place of the argument."""
        raise NotImplementedError

    def is_compatible_with(self, value: Any) -> bool:
        """True when `value` can be fed to a trace made for this spec."""
        spec_of = getattr(value, "_fed_object_spec", None)
        return spec_of is not None and spec_of().key == self.key


def leaf_key(value: Any, feeds: list[Any] | None = None) -> Any:
    """The cache-key part of one leaf argument (see module docstring).

    When `feeds` is a list, the leaf's run-time value (numpy array or variable) is appended
    to it, in the order the trace made placeholders, so a call walks its arguments once."""
    kind = type(value)
    if kind is EagerTensor:
        if feeds is not None:
            feeds.append(value._value)
        return (value.dtype, value._value.shape)
    if kind is DeviceTensor:
        if feeds is not None:
            feeds.append(value._array)
        return value._key
    if kind in SCALAR_TYPES:
        return (kind, value)
    if isinstance(value, SymbolicTensor):
        if feeds is not None:
            made = value.node.location
            raise TypeError(
                "a symbolic tensor (%s, made at %s) that leaked out of a traced function was "
                "passed to a Function outside any trace; return it from its function instead"
                % (value.name, made.one_line() if made is not None else "an unknown line"))
        return (value.dtype, value._shape)
    if isinstance(value, Variable):
        if feeds is not None:
            feeds.append(value)
        return ("var", value.dtype, value._static_shape)
    if isinstance(value, TensorSpec):
        if feeds is not None:
            raise TypeError("a TensorSpec can be passed to get_concrete_function, not to a call")
        return (value.dtype, value._shape)
    if isinstance(value, np.ndarray):
        dtype = dtypes.from_numpy(value.dtype)
        if feeds is not None:
            # fed as the tensor's own storage (a uint8, float16 or big-endian array would
            # otherwise compute in its own dtype, or be misread by a compiled backend)
            np_dtype = dtype.np_dtype
            feeds.append(value if value.dtype is np_dtype or value.dtype == np_dtype
                         else value.astype(np_dtype))
        return (dtype, value.shape)
    tracing_type = getattr(kind, "__tf_tracing_type__", None)
    if tracing_type is not None:
        return trace_type.key_part(value, tracing_type)
    spec_of = getattr(value, "_fed_object_spec", None)
    if spec_of is not None:
        if feeds is not None:
            feeds.append(value)
        return ("fed", spec_of().key)
    return ("id", id(value))


# The key part of a device-resident tensor is (dtype, shape, ON_DEVICE) (its `_key`, made once
# per tensor): never equal to a host tensor's, so that a call feeding device arrays finds its
# concrete function in a Function's cache only where that function takes them (see
# `Function._lookup_device`).


def is_device_part(part: Any) -> bool:
    """True when cache-key part `part` is a device tensor's (dtype, shape, ON_DEVICE)."""
    return type(part) is tuple and len(part) == 3 and part[2] is ON_DEVICE


def holds_device(key: Any) -> bool:
    """True when cache key `key` has a device tensor's part (the call fed a device array)."""
    if is_device_part(key):
        return True
    return type(key) is tuple and any(holds_device(part) for part in key)


def host_key(key: Any) -> Any:
    """`key` with each device tensor's part made the part of a host tensor of its kind."""
    if is_device_part(key):
        return key[:2]
    if type(key) is tuple:
        return tuple(host_key(part) for part in key)
    return key


def is_fed_object_key(part: Any) -> bool:
    """True when cache-key part `part` is that of an object traced by its spec."""
    return type(part) is tuple and len(part) == 2 and part[0] == "fed"


def is_tensor_like(value: Any) -> bool:
    """True for leaves that become graph inputs (fed at run time) rather than constants."""
    return isinstance(value, (Tensor, Variable, TensorSpec, np.ndarray))


def make_key(values: Iterable[Any], feeds: list[Any] | None = None) -> Key:
    """The hashable cache key of a sequence of canonical argument values (and, with a
    `feeds` list, their run-time values: see `leaf_key`)."""
    key = []
    for v in values:
        kind = type(v)
        if kind is EagerTensor:  # leaf_key's first cases, inline: a cached call's argument
            value = v._value
            if feeds is not None:
                feeds.append(value)
            key.append((v.dtype, value.shape))
        elif kind is DeviceTensor:
            if feeds is not None:
                feeds.append(v._array)
            key.append(v._key)
        else:
            key.append(_nested_key(v, feeds) if nest.is_nested(v) else leaf_key(v, feeds))
    return tuple(key)


def _nested_key(value: Any, feeds: list[Any] | None) -> Key:
    if nest.is_composite(value):  # a TensorArray: its kind and metadata, and its tensors
        trace_key = getattr(value, "_trace_key", None)
        if trace_key is not None:  # a composite tensor or spec (runtime.composite)
            return trace_key(make_key, feeds)
        return ("composite", type(value), value._nest_signature(),
                make_key(value._nest_components(), feeds))
    if isinstance(value, dict):
        try:
            keys = sorted(value)
        except TypeError:
            keys = sorted(value, key=repr)
        return (type(value), tuple(keys), make_key([value[k] for k in keys], feeds))
    return (type(value), make_key(value, feeds))


def _is_tensor_key(part: Any) -> bool:
    return (isinstance(part, tuple) and len(part) == 2 and isinstance(part[0], dtypes.DType)
            and (part[1] is None or isinstance(part[1], tuple)))


def key_is_subtype(key: Any, general: Any) -> bool:
    """True when a call with cache key `key` can run a trace made for key `general`."""
    if key == general:
        return True
    if isinstance(key, trace_type.TraceType) and isinstance(general, trace_type.TraceType):
        return bool(key.is_subtype_of(general))
    if _is_tensor_key(key) and _is_tensor_key(general):
        return key[0] is general[0] and shape_lib.is_subtype(key[1], general[1])
    if isinstance(key, tuple) and isinstance(general, tuple) and len(key) == len(general) \
            and not _is_tensor_key(key) and not _is_tensor_key(general):
        if key and key[0] == "var" or general and general[0] == "var":
            return key == general
        return all(key_is_subtype(k, g) for k, g in zip(key, general))
    return False


def relax_key(key: Any, general: Any) -> Any:
    """The key whose tensor shapes are relaxed to fit both, or None when they differ otherwise."""
    if key == general:
        return key
    if isinstance(key, trace_type.TraceType) and isinstance(general, trace_type.TraceType):
        return key.most_specific_common_supertype([general])
    if _is_tensor_key(key) and _is_tensor_key(general):
        if key[0] is not general[0]:
            return None
        return (key[0], shape_lib.relax(key[1], general[1]))
    if isinstance(key, tuple) and isinstance(general, tuple) and len(key) == len(general) \
            and not _is_tensor_key(key) and not _is_tensor_key(general):
        if key and key[0] == "var":
            return None
        parts = [relax_key(k, g) for k, g in zip(key, general)]
        return None if any(p is None for p in parts) else tuple(parts)
    return None


def describe(value: Any) -> str:
    """How a signature prints an argument: 'int32 Tensor, shape=(2,)', or the Python value."""
    if isinstance(value, TensorSpec):
        return "%s Tensor, shape=%s" % (value.dtype.name, shape_lib.to_string(value._shape))
    if isinstance(value, VariableSpec):
        return "%s Variable, shape=%s" % (value.dtype.name, shape_lib.to_string(value._shape))
    if isinstance(value, SymbolicTensor):
        return "%s Tensor, shape=%s" % (value.dtype.name, shape_lib.to_string(value._shape))
    if isinstance(value, (list, tuple)):
        inner = ", ".join(describe(v) for v in value)
        return ("List[%s]" if isinstance(value, list) else "Tuple[%s]") % inner
    if isinstance(value, dict):
        return "Dict[%s]" % ", ".join("%r: %s" % (k, describe(v)) for k, v in value.items())
    if value is None:
        return "NoneTensorSpec()"
    return repr(value)
