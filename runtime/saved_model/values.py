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
    """The arrays of one loaded `.npz` file, handed out by their JSON references.

    The file is untrusted: an array is read only when a reference names it, only as a stored
    (uncompressed) member, as `save` writes them, and only after its `.npy` header has been
    checked against the reference's dtype and shape and against the member's size, so that
    nothing is allocated beyond what the file holds."""

    def __init__(self, path: str, content: bytes) -> None:
        self.path = path
        self.reader = Reader(path)
        try:
            self._zip = zipfile.ZipFile(io.BytesIO(content))
            self._members = {name[:-4]: info for info in self._zip.infolist()
                             for name in (info.filename,) if name.endswith(".npy")}
        except (ValueError, OSError, EOFError, KeyError, zipfile.BadZipFile, zlib.error,
                NotImplementedError, RuntimeError) as e:
            raise SavedModelError(path, "not a readable .npz file (%s: %s)"
                                  % (type(e).__name__, e)) from None
        self._read: dict[str, np.ndarray] = {}

    def get(self, ref: Any, where: str, json_reader: Reader) -> np.ndarray:
        """The array that JSON reference `ref` (read from `json_reader`'s file) names,
        checked against the dtype and shape it records."""
        ref = json_reader.obj(ref, where, ("key", "dtype", "shape"))
        key = json_reader.text(ref["key"], where + ".key")
        dtype = json_reader.text(ref["dtype"], where + ".dtype")
        shape = tuple(json_reader.integer(d, where + ".shape")
                      for d in json_reader.seq(ref["shape"], where + ".shape"))
        if dtype == STRING:
            return self._string_array(key, shape)
        if dtype not in NUMERIC:
            json_reader.fail(where + ".dtype", "unknown array dtype %r" % dtype)
        return self._stored(key, NUMERIC[dtype], shape)

    def _stored(self, key: str, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
        found = self._read.get(key)
        if found is None:
            found = self._read[key] = self._member(key, dtype, shape)
        if found.dtype != dtype:
            self.reader.fail(key, "holds %s values where %s are expected" % (found.dtype, dtype))
        if found.shape != shape:
            self.reader.fail(key, "has shape %s where %s is expected" % (found.shape, shape))
        return found

    def _member(self, key: str, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
        """Member `key` read as an array of `dtype` and `shape`, its header checked first."""
        info = self._members.get(key)
        if info is None:
            self.reader.fail(key, "no such array in the file")
        if info.compress_type != zipfile.ZIP_STORED:
            self.reader.fail(key, "is a compressed member (a saved model stores its arrays "
                                  "uncompressed)")
        try:
            with self._zip.open(info) as member:
                version = np.lib.format.read_magic(member)
                if version == (1, 0):
                    header = np.lib.format.read_array_header_1_0(member)
                elif version == (2, 0):
                    header = np.lib.format.read_array_header_2_0(member)
                else:
                    self.reader.fail(key, "unknown .npy format version %s" % (version,))
                stored_shape, fortran, stored_dtype = header
                if stored_dtype != dtype or stored_dtype.hasobject:
                    self.reader.fail(key, "holds %s values where %s are expected"
                                     % (stored_dtype, dtype))
                if tuple(stored_shape) != shape:
                    self.reader.fail(key, "has shape %s where %s is expected"
                                     % (tuple(stored_shape), shape))
                size = dtype.itemsize * _count(shape)
                if size != info.file_size - member.tell():
                    self.reader.fail(key, "its .npy header declares %d bytes of data, the "
                                          "member holds %d" % (size, info.file_size
                                                                - member.tell()))
                data = bytearray(size)
                if member.readinto(data) != size or member.read(1):  # type: ignore[attr-defined]
                    self.reader.fail(key, "the member is shorter than its header declares")
        except SavedModelError:
            raise
        except (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error,
                NotImplementedError, RuntimeError, SyntaxError) as e:
            raise SavedModelError(self.path, "%s: not a readable .npy member (%s: %s)"
                                  % (key, type(e).__name__, e)) from None
        array = np.frombuffer(data, dtype=dtype)
        if fortran:
            return array.reshape(shape[::-1]).T
        return array.reshape(shape)

    def _string_array(self, key: str, shape: tuple[int, ...]) -> np.ndarray:
        lengths = self._stored(key + ".lengths", np.dtype(np.int64), shape)
        info = self._members.get(key + ".bytes")
        total = sum(lengths.reshape(-1).tolist())
        if np.any(lengths < 0) or info is None or total > info.file_size:
            self.reader.fail(key, "string lengths do not match the stored bytes")
        data = self._stored(key + ".bytes", np.dtype(np.uint8), (total,))
        raw = data.tobytes()
        result = np.empty(lengths.shape, dtype=object)
        offset = 0
        flat = result.reshape(-1)
        for i, n in enumerate(lengths.reshape(-1).tolist()):
            flat[i] = raw[offset:offset + n]
            offset += n
        return result


def _count(shape: tuple[int, ...]) -> int:
    count = 1
    for d in shape:
        count *= d
    return count
