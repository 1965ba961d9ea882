"""Tensor bundles: TensorFlow's checkpoint files, written and read by tensor name.

    PREFIX.index                  a table (see `table`): key '' -> BundleHeaderProto, then
                                  each tensor's name -> BundleEntryProto (dtype, shape, shard,
                                  offset, size, masked CRC-32C of the stored bytes)
    PREFIX.data-00000-of-00001    the tensors' bytes, one after another

A number is stored as its little-endian bytes in C order. A string tensor is stored as the
varint length of each element, a masked CRC-32C of those lengths (each taken as a 4-byte
little-endian integer), then the elements' bytes; its entry's CRC covers the lengths (as
4-byte integers), the length checksum and the bytes.

Reading treats the files as untrusted: every declared size, offset and shape is checked
against the dtype and the file before anything is allocated, and every checksum is
verified. Partitioned (sliced) tensors, big-endian bundles and dtypes this runtime has no
storage for are refused by name.
"""

from __future__ import annotations

import os
import struct

import numpy as np

from runtime import dtypes, errors
from runtime.checkpoint import files, protos, table
from runtime.io import crc32c, protowire

# TensorFlow's DataType enum (types.proto): number -> (dtype name, little-endian numpy storage,
# None for strings), from the one table of runtime.dtypes
DTYPES: dict[int, tuple[str, np.dtype | None]] = {
    d.enum: (d.name, None if d is dtypes.string else d.np_dtype.newbyteorder("<"))
    for d in dtypes.ALL}
DT_STRING = dtypes.string.enum
_BY_NAME = {name: number for number, (name, _) in DTYPES.items()}


def dtype_enum(name: str) -> int:
    """TensorFlow's DataType number for dtype `name`."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise TypeError("no checkpoint encoding for dtype %s" % name) from None


def index_path(prefix: str) -> str:
    """The index file of checkpoint `prefix`."""
    return prefix + ".index"


def data_path(prefix: str, shard: int = 0, shards: int = 1) -> str:
    """Data file `shard` of `shards` of checkpoint `prefix`."""
    return "%s.data-%05d-of-%05d" % (prefix, shard, shards)


# -- writing -------------------------------------------------------------------------------------
def _string_bytes(array: np.ndarray) -> tuple[bytes, int]:
    elements = [_as_bytes(item) for item in array.reshape(-1)]
    lengths = b"".join(protowire.varint(len(item)) for item in elements)
    checksum = 0
    for item in elements:
        width = "<I" if len(item) <= 0xFFFFFFFF else "<Q"
        checksum = crc32c.extend(checksum, struct.pack(width, len(item)))
    length_checksum = struct.pack("<I", crc32c.mask(checksum))
    checksum = crc32c.extend(checksum, length_checksum)
    body = b"".join(elements)
    return lengths + length_checksum + body, crc32c.extend(checksum, body)


def _as_bytes(item: object) -> bytes:
    if isinstance(item, bytes):
        return item
    if isinstance(item, str):
        return item.encode("utf-8")
    raise TypeError("a string tensor holds %r, not bytes" % (item,))


def write(prefix: str, tensors: list[tuple[str, str, np.ndarray]]) -> None:
    """Writes checkpoint `prefix` holding `tensors`, (name, dtype name, value) each, the data
    in the order given; each file is replaced atomically, the index last, so a checkpoint
    whose index exists is complete."""
    entries: dict[str, protos.BundleEntry] = {}
    with files.atomic_write(data_path(prefix)) as out:
        offset = 0
        for name, dtype_name, value in tensors:
            if not name:
                raise ValueError("a checkpoint tensor needs a name")
            if name in entries:
                raise ValueError("the tensor name %r appears twice in a checkpoint" % name)
            dtype = dtype_enum(dtype_name)
            array = np.asarray(value)
            if dtype == DT_STRING:
                stored, checksum = _string_bytes(array)
            else:
                storage = DTYPES[dtype][1]
                assert storage is not None
                stored = np.ascontiguousarray(array, dtype=storage).tobytes()
                checksum = crc32c.value(stored)
            out.write(stored)
            entries[name] = protos.BundleEntry(dtype, tuple(array.shape), 0, offset,
                                               len(stored), crc32c.mask(checksum))
            offset += len(stored)
    rows = [(b"", protos.BundleHeader().encode())]
    rows += [(name.encode("utf-8"), entries[name].encode()) for name in
             sorted(entries, key=lambda n: n.encode("utf-8"))]
    files.write_bytes(index_path(prefix), table.build(rows))


# -- reading -------------------------------------------------------------------------------------
class BundleReader:
    """The tensors of checkpoint `prefix`, read on request: `entries` (name -> entry,
    read at once from the index) and `tensor(name)` (read, checked, converted)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.folder = os.path.dirname(prefix) or "."
        path = index_path(prefix)
        if not os.path.lexists(path):
            raise errors.NotFoundError(
                "Unsuccessful TensorSliceReader constructor: Failed to find any matching "
                "files for %s (no %s)" % (prefix, path))
        with files.CheckpointFile(path, self.folder) as index:
            rows = table.read(index)
        if not rows or rows[0][0] != b"":
            raise errors.DataLossError("%s: no header entry (the first key must be '')" % path)
        try:
            self.header = protos.BundleHeader.decode(rows[0][1])
        except protowire.WireFormatError as error:
            raise errors.DataLossError("%s: unreadable header (%s)" % (path, error)) from None
        self._check_header(path)
        self.entries: dict[str, protos.BundleEntry] = {}
        for key, value in rows[1:]:
            name = key.decode("utf-8", errors="backslashreplace")
            try:
                self.entries[name] = protos.BundleEntry.decode(value)
            except protowire.WireFormatError as error:
                raise errors.DataLossError("%s: the entry of %r is unreadable (%s)"
                                           % (path, name, error)) from None

    def _check_header(self, path: str) -> None:
        header = self.header
        if header.endianness != 0:
            raise errors.DataLossError("%s: a big-endian checkpoint; only little-endian ones "
                                       "are read" % path)
        if not 1 <= header.num_shards <= 100000:
            raise errors.DataLossError("%s: header declares %d data files"
                                       % (path, header.num_shards))
        if header.min_consumer > 1 or 1 in header.bad_consumers:
            raise errors.DataLossError(
                "%s: written by a newer checkpoint format (min_consumer %d) that this "
                "reader does not understand" % (path, header.min_consumer))

    def tensor(self, name: str) -> np.ndarray:
        """The value stored under `name`, as numpy (strings: an object array of bytes)."""
        entry = self.entries.get(name)
        if entry is None:
            raise errors.NotFoundError("Key %s not found in checkpoint %s" % (name, self.prefix))
        what = "tensor %r" % name
        index = index_path(self.prefix)
        if entry.sliced:
            raise errors.DataLossError("%s: %s is partitioned into slices, which this reader "
                                       "does not support" % (index, what))
        if entry.dtype not in DTYPES or (entry.dtype != DT_STRING
                                         and DTYPES[entry.dtype][1] is None):
            label = DTYPES[entry.dtype][0] if entry.dtype in DTYPES else "enum %d" % entry.dtype
            raise errors.DataLossError("%s: %s has dtype %s, which this runtime cannot hold"
                                       % (index, what, label))
        if any(d < 0 for d in entry.shape) or not 0 <= entry.shard_id < self.header.num_shards:
            raise errors.DataLossError("%s: %s has an invalid shape %s or shard %d"
                                       % (index, what, list(entry.shape), entry.shard_id))
        count = 1
        for dim in entry.shape:
            count *= dim
        storage = DTYPES[entry.dtype][1]
        if storage is not None and entry.size != count * storage.itemsize:
            raise errors.DataLossError(
                "%s: %s declares %d bytes, but %d elements of %s take %d: Invalid size in "
                "bundle entry" % (index, what, entry.size, count, DTYPES[entry.dtype][0],
                                  count * storage.itemsize))
        if storage is None and count and entry.size < count + 4:
            raise errors.DataLossError("%s: %s declares %d bytes, too few for %d strings"
                                       % (index, what, entry.size, count))
        path = data_path(self.prefix, entry.shard_id, self.header.num_shards)
        with files.CheckpointFile(path, self.folder) as data:
            raw = data.read_at(entry.offset, entry.size, what)
        array: np.ndarray
        if storage is None:
            values, checksum = _read_strings(raw, count, path, what)
            flat = np.empty(count, dtype=object)
            flat[:] = values
            array = flat.reshape(entry.shape)
        else:
            checksum = crc32c.value(raw)
            array = np.frombuffer(raw, dtype=storage).reshape(entry.shape).astype(
                storage.newbyteorder("="))
        if checksum != crc32c.unmask(entry.crc32c):
            raise errors.DataLossError("%s: checksum mismatch for %s: the data is corrupt"
                                       % (path, what))
        return array


def _read_strings(raw: bytes, count: int, path: str, what: str) -> tuple[list[bytes], int]:
    if count == 0:
        return [], 0
    lengths = []
    position = 0
    checksum = 0
    try:
        for _ in range(count):
            length, position = protowire.read_varint(raw, position, what)
            lengths.append(length)
            width = "<I" if length <= 0xFFFFFFFF else "<Q"
            checksum = crc32c.extend(checksum, struct.pack(width, length))
    except protowire.WireFormatError as error:
        raise errors.DataLossError("%s: %s: corrupt string lengths (%s)"
                                   % (path, what, error)) from None
    if position + 4 + sum(lengths) != len(raw):
        raise errors.DataLossError("%s: %s: the string lengths add up to %d bytes, the entry "
                                   "holds %d" % (path, what, position + 4 + sum(lengths),
                                                 len(raw)))
    stored = raw[position:position + 4]
    if crc32c.unmask(struct.unpack("<I", stored)[0]) != checksum:
        raise errors.DataLossError("%s: %s: the length checksum does not match" % (path, what))
    checksum = crc32c.extend(checksum, stored)
    position += 4
    values = []
    for length in lengths:
        values.append(raw[position:position + length])
        position += length
    return values, crc32c.extend(checksum, raw[position - sum(lengths):position])
