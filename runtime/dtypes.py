"""Element types of tensors, and TensorFlow's rules for inferring them from Python values.

A `DType` pairs a TensorFlow-style name (`float32`) with the numpy dtype that stores it and
TensorFlow's DataType number (types.proto), the one table that maps between the three.
bfloat16 is stored as `ml_dtypes.bfloat16`, the numpy extension type JAX uses.
Strings are stored as numpy object arrays of `bytes`, so they may have any length.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np


class DType:
    """An element type: a name, the numpy dtype that stores it, its category and its
    TensorFlow DataType number."""

    __slots__ = ("name", "np_dtype", "kind", "enum")

    def __init__(self, name: str, np_dtype: np.dtype, kind: str, enum: int) -> None:
        self.name = name
        self.np_dtype = np_dtype
        self.kind = kind  # 'float', 'int', 'complex', 'bool', 'string', 'resource', 'variant'
        self.enum = enum

    @property
    def is_floating(self) -> bool:
        """True for the real floating types (float16, bfloat16, float32, float64)."""
        return self.kind == "float"

    @property
    def is_integer(self) -> bool:
        """True for the signed and unsigned integer types."""
        return self.kind == "int"

    @property
    def is_unsigned(self) -> bool:
        """True for uint8, uint16, uint32 and uint64."""
        return self.kind == "int" and self.np_dtype.kind == "u"

    @property
    def is_complex(self) -> bool:
        """True for complex64 and complex128."""
        return self.kind == "complex"

    @property
    def is_bool(self) -> bool:
        """True for bool."""
        return self.kind == "bool"

    @property
    def is_numeric(self) -> bool:
        """True for the integer, floating and complex types."""
        return self.kind in ("int", "float", "complex")

    @property
    def is_quantized(self) -> bool:
        """False: the quantized types (qint8, ...) are not supported."""
        return False

    @property
    def base_dtype(self) -> DType:
        """This type (TensorFlow's reference types are not modelled)."""
        return self

    @property
    def real_dtype(self) -> DType:
        """The type of the real and imaginary parts of a complex type; else this type."""
        return {"complex64": float32, "complex128": float64}.get(self.name, self)

    @property
    def as_numpy_dtype(self) -> type:
        """The numpy scalar type that stores elements of this type (TF's spelling)."""
        return self.np_dtype.type

    @property
    def as_datatype_enum(self) -> int:
        """TensorFlow's DataType number for this type."""
        return self.enum

    @property
    def size(self) -> int:
        """Bytes per element (1 for strings and resources, as TensorFlow says)."""
        return 1 if self.kind in ("string", "resource", "variant") else self.np_dtype.itemsize

    @property
    def min(self) -> Any:
        """The smallest representable value (a numpy scalar of this type)."""
        return _limits(self).min

    @property
    def max(self) -> Any:
        """The largest representable value (a numpy scalar of this type)."""
        return _limits(self).max

    @property
    def limits(self) -> tuple[Any, Any]:
        """(min, max) of a numeric type; (0, 1) for bool, as TensorFlow gives."""
        if self.kind == "bool":
            return (False, True)
        return (self.min, self.max)

    def is_compatible_with(self, other: Any) -> bool:
        """True when `other` names this same type."""
        try:
            return as_dtype(other) is self
        except TypeError:
            return False

    def __repr__(self) -> str:
        return "tf." + self.name

    def __str__(self) -> str:
        return "<dtype: %r>" % self.name

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (as_dtype, (self.name,))


def _limits(dtype: DType) -> Any:
    if dtype.kind == "float":
        return ml_dtypes.finfo(dtype.np_dtype)
    if dtype.kind == "int":
        return np.iinfo(dtype.np_dtype)
    raise TypeError("%s has no numeric range" % dtype.name)


float16 = DType("float16", np.dtype(np.float16), "float", 19)
bfloat16 = DType("bfloat16", np.dtype(ml_dtypes.bfloat16), "float", 14)
float32 = DType("float32", np.dtype(np.float32), "float", 1)
float64 = DType("float64", np.dtype(np.float64), "float", 2)
int8 = DType("int8", np.dtype(np.int8), "int", 6)
int16 = DType("int16", np.dtype(np.int16), "int", 5)
int32 = DType("int32", np.dtype(np.int32), "int", 3)
int64 = DType("int64", np.dtype(np.int64), "int", 9)
uint8 = DType("uint8", np.dtype(np.uint8), "int", 4)
uint16 = DType("uint16", np.dtype(np.uint16), "int", 17)
uint32 = DType("uint32", np.dtype(np.uint32), "int", 22)
uint64 = DType("uint64", np.dtype(np.uint64), "int", 23)
complex64 = DType("complex64", np.dtype(np.complex64), "complex", 8)
complex128 = DType("complex128", np.dtype(np.complex128), "complex", 18)
bool_ = DType("bool", np.dtype(np.bool_), "bool", 10)
string = DType("string", np.dtype(object), "string", 7)
resource = DType("resource", np.dtype(object), "resource", 20)
variant = DType("variant", np.dtype(object), "variant", 21)  # a TensorArray's handle

half = float16
double = float64

ALL = (float32, float64, int32, int64, bool_, string, float16, bfloat16, int8, int16,
       uint8, uint16, uint32, uint64, complex64, complex128)
_BY_NAME = {d.name: d for d in ALL + (resource,)}
_BY_NAME.update({"float": float32, "double": float64, "half": float16, "int": int32,
                 "bool_": bool_, "complex": complex128})
_BY_NP = {d.np_dtype: d for d in ALL if d.kind not in ("string", "resource")}
_BY_ENUM = {d.enum: d for d in ALL + (resource, variant)}
_BY_PY = {float: float32, int: int32, bool: bool_, complex: complex128, str: string,
          bytes: string}


def as_dtype(value: Any) -> DType:
    """Returns the `DType` named by `value`: a DType, a name, a numpy dtype, a Python type or
    a TensorFlow DataType number."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        found = _BY_NAME.get(value)
        if found is not None:
            return found
    elif isinstance(value, type) and value in _BY_PY:
        return _BY_PY[value]
    elif isinstance(value, int) and not isinstance(value, bool):
        found = _BY_ENUM.get(value)
        if found is not None:
            return found
    else:
        try:
            np_dtype = np.dtype(value)
        except TypeError:
            np_dtype = None
        if np_dtype is not None:
            found = _BY_NP.get(np_dtype.newbyteorder("=")
                               if np_dtype.byteorder not in "=|" else np_dtype)
            if found is not None:
                return found
            if np_dtype.kind in "SUO":
                return string
    raise TypeError("unsupported dtype %r: expected one of %s"
                    % (value, ", ".join(d.name for d in ALL)))


def from_enum(number: int) -> DType | None:
    """The DType with TensorFlow DataType number `number`, or None for an unknown number."""
    return _BY_ENUM.get(number)


def from_numpy(np_dtype: np.dtype) -> DType:
    """Returns the DType stored as numpy dtype `np_dtype` (uint8 stays uint8, as in TF;
    a byte-swapped array is its native-order type)."""
    if np_dtype.byteorder not in "=|":
        np_dtype = np_dtype.newbyteorder("=")
    found = _BY_NP.get(np_dtype)
    if found is not None:
        return found
    if np_dtype.kind in "SUO":
        return string
    raise TypeError("numpy dtype %s has no tensor dtype" % np_dtype)
