"""Array values of a saved model (constants, captured tensors, variable values) in `.npz`
files, written and read without pickle.

Numeric and bool arrays are stored as they are. A string array (numpy object array of
`bytes`) is stored as two arrays: `<key>.bytes`, every element's bytes concatenated (uint8),
and `<key>.lengths`, each element's length (int64, with the array's shape). The JSON refers
to each array by key with its dtype and shape: `{"key": "c0", "dtype": "float32",
"shape": [2, 3]}`, and the loader checks the stored array against them.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from typing import Any

import numpy as np

from runtime.saved_model.errors import NotSaveableError, SavedModelError
from runtime.saved_model.schema import Reader

STRING = "bytes"  # the JSON dtype name of a string array
# The numpy dtypes an array may have (besides strings), by their JSON name.
NUMERIC = {name: np.dtype(name) for name in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128")}


class ArrayTable:
    """The arrays being saved to one `.npz` file, each under a key made of `prefix` and a
    count."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.entries: dict[str, np.ndarray] = {}

    def add(self, value: Any) -> dict[str, Any]:
        """Stores array `value`; returns its JSON reference."""
        array = np.asarray(value)
        key = "%s%d" % (self.prefix, len(self.entries))
        if array.dtype == object:
            if not all(isinstance(v, bytes) for v in array.flat):
                raise NotSaveableError("an object array holding %s values cannot be saved "
                                       "(string tensors hold bytes)"
                                       % sorted({type(v).__name__ for v in array.flat}))
            dtype = STRING
        elif array.dtype.name in NUMERIC and array.dtype.isnative:
            dtype = array.dtype.name
        else:
            raise NotSaveableError("an array of dtype %s cannot be saved" % array.dtype)
        self.entries[key] = array
        return {"key": key, "dtype": dtype, "shape": list(array.shape)}

    def to_bytes(self) -> bytes:
        """The `.npz` file holding every stored array."""
        stored: dict[str, np.ndarray] = {}
        for key, array in self.entries.items():
            if array.dtype == object:
                pieces = list(array.flat)
                stored[key + ".bytes"] = np.frombuffer(b"".join(pieces), dtype=np.uint8)
                stored[key + ".lengths"] = np.array([len(p) for p in pieces],
                                                    dtype=np.int64).reshape(array.shape)
            else:
                stored[key] = array
        buffer = io.BytesIO()
        np.savez(buffer, **stored)  # type: ignore[arg-type]
        return buffer.getvalue()


class ArrayStore:
    """The arrays of one loaded `.npz` file, handed out by their JSON references."""

    def __init__(self, path: str, content: bytes) -> None:
        self.path = path
        self.reader = Reader(path)
        try:
            with np.load(io.BytesIO(content), allow_pickle=False) as npz:
                self.arrays = {name: npz[name] for name in npz.files}
        except (ValueError, OSError, EOFError, KeyError, zipfile.BadZipFile, zlib.error,
                NotImplementedError, RuntimeError) as e:
            raise SavedModelError(path, "not a readable .npz file (%s: %s)"
                                  % (type(e).__name__, e)) from None
        self.used: set[str] = set()

    def get(self, ref: Any, where: str, json_reader: Reader) -> np.ndarray:
        """The array that JSON reference `ref` (read from `json_reader`'s file) names,
        checked against the dtype and shape it records."""
        ref = json_reader.obj(ref, where, ("key", "dtype", "shape"))
        key = json_reader.text(ref["key"], where + ".key")
        dtype = json_reader.text(ref["dtype"], where + ".dtype")
        shape = tuple(json_reader.integer(d, where + ".shape")
                      for d in json_reader.seq(ref["shape"], where + ".shape"))
        if dtype == STRING:
            array = self._string_array(key)
        elif dtype in NUMERIC:
            array = self._stored(key)
            if array.dtype != NUMERIC[dtype]:
                self.reader.fail(key, "holds %s values where %s are expected"
                                 % (array.dtype, dtype))
        else:
            json_reader.fail(where + ".dtype", "unknown array dtype %r" % dtype)
        if array.shape != shape:
            self.reader.fail(key, "has shape %s where %s is expected" % (array.shape, shape))
        return array

    def _stored(self, key: str) -> np.ndarray:
        if key not in self.arrays:
            self.reader.fail(key, "no such array in the file")
        self.used.add(key)
        return self.arrays[key]

    def _string_array(self, key: str) -> np.ndarray:
        data = self._stored(key + ".bytes")
        lengths = self._stored(key + ".lengths")
        if data.dtype != np.uint8 or data.ndim != 1 or lengths.dtype != np.int64:
            self.reader.fail(key, "is not a stored string array")
        if np.any(lengths < 0) or int(lengths.sum()) != data.size:
            self.reader.fail(key, "string lengths do not match the stored bytes")
        raw = data.tobytes()
        result = np.empty(lengths.shape, dtype=object)
        offset = 0
        flat = result.reshape(-1)
        for i, n in enumerate(lengths.reshape(-1).tolist()):
            flat[i] = raw[offset:offset + n]
            offset += n
        return result
