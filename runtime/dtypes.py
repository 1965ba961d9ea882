"""Element types of tensors, and TensorFlow's rules for inferring them from Python values.

A `DType` pairs a TensorFlow-style name (`float32`) with the numpy dtype that stores it.
Strings are stored as numpy object arrays of `bytes`, so they may have any length.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class DType:
    """An element type: a name, the numpy dtype that stores it, and its category."""

    __slots__ = ("name", "np_dtype", "kind")

    def __init__(self, name: str, np_dtype: np.dtype, kind: str) -> None:
        self.name = name
        self.np_dtype = np_dtype
        self.kind = kind  # 'float', 'int', 'bool', 'string' or 'resource'

    @property
    def is_floating(self) -> bool:
        """True for float32 and float64."""
        return self.kind == "float"

    @property
    def is_integer(self) -> bool:
        """True for int32 and int64."""
        return self.kind == "int"

    @property
    def is_bool(self) -> bool:
        """True for bool."""
        return self.kind == "bool"

    @property
    def is_numeric(self) -> bool:
        """True for the integer and floating types."""
        return self.kind in ("int", "float")

    @property
    def as_numpy_dtype(self) -> type:
        """The numpy scalar type that stores elements of this type (TF's spelling)."""
        return self.np_dtype.type

    @property
    def min(self) -> Any:
        """The smallest representable value."""
        return _limits(self).min

    @property
    def max(self) -> Any:
        """The largest representable value."""
        return _limits(self).max

    def __repr__(self) -> str:
        return "tf." + self.name

    def __str__(self) -> str:
        return "<dtype: %r>" % self.name

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (as_dtype, (self.name,))


def _limits(dtype: DType) -> Any:
    if dtype.kind == "float":
        return np.finfo(dtype.np_dtype)
    if dtype.kind == "int":
        return np.iinfo(dtype.np_dtype)
    raise TypeError("%s has no numeric range" % dtype.name)


float32 = DType("float32", np.dtype(np.float32), "float")
float64 = DType("float64", np.dtype(np.float64), "float")
int32 = DType("int32", np.dtype(np.int32), "int")
int64 = DType("int64", np.dtype(np.int64), "int")
bool_ = DType("bool", np.dtype(np.bool_), "bool")
string = DType("string", np.dtype(object), "string")
resource = DType("resource", np.dtype(object), "resource")

double = float64

ALL = (float32, float64, int32, int64, bool_, string)
_BY_NAME = {d.name: d for d in ALL + (resource,)}
_BY_NAME.update({"float": float32, "double": float64, "int": int32, "bool_": bool_})
_BY_NP = {float32.np_dtype: float32, float64.np_dtype: float64, int32.np_dtype: int32,
          int64.np_dtype: int64, bool_.np_dtype: bool_}
_BY_PY = {float: float32, int: int32, bool: bool_, str: string, bytes: string}


def as_dtype(value: Any) -> DType:
    """Returns the `DType` named by `value`: a DType, a name, a numpy dtype or a Python type."""
    if isinstance(value, DType):
        return value
    if isinstance(value, str):
        found = _BY_NAME.get(value)
        if found is not None:
            return found
    elif isinstance(value, type) and value in _BY_PY:
        return _BY_PY[value]
    else:
        try:
            np_dtype = np.dtype(value)
        except TypeError:
            np_dtype = None
        if np_dtype is not None:
            found = _BY_NP.get(np_dtype)
            if found is not None:
                return found
            if np_dtype.kind in "SUO":
                return string
    raise TypeError("unsupported dtype %r: expected one of %s"
                    % (value, ", ".join(d.name for d in ALL)))


def from_numpy(np_dtype: np.dtype) -> DType:
    """Returns the DType storing numpy dtype `np_dtype` (int64 stays int64, as in TF)."""
    found = _BY_NP.get(np_dtype)
    if found is not None:
        return found
    if np_dtype.kind in "SUO":
        return string
    if np_dtype.kind == "f":
        return float64 if np_dtype.itemsize > 4 else float32
    if np_dtype.kind in "iu":
        return int64 if np_dtype.itemsize > 4 else int32
    raise TypeError("numpy dtype %s has no tensor dtype" % np_dtype)
