"""The sorted key/value table of a checkpoint's `.index` file (TensorFlow's `io/table`, the
LevelDB table format), written uncompressed as TensorFlow writes it.

    file   = data block* metaindex block, index block, footer
    block  = entry* restart offsets (fixed32 each), restart count (fixed32),
             then a trailer: compression type (1 byte, 0 = none), masked CRC-32C (fixed32)
             of the block and the type byte
    entry  = varint shared, varint unshared, varint value length, key[shared:], value
             (a key shares `shared` leading bytes with the previous key; every 16th entry,
             a restart point, shares none)
    index  = one entry per data block: a key >= the block's last key and < the next block's
             first, and the block's handle (varint offset, varint size)
    footer = metaindex handle, index handle, zero padding to 40 bytes, magic (fixed64)

Reading checks every checksum, length and offset against the file, and that keys are
strictly increasing; anything else is a `DataLossError` naming the file.
"""

from __future__ import annotations

import struct

from runtime import errors
from runtime.checkpoint.files import CheckpointFile
from runtime.io import crc32c, protowire

MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
_TRAILER_SIZE = 5
_BLOCK_SIZE = 262144
_RESTART_INTERVAL = 16


# -- writing -------------------------------------------------------------------------------------
class _BlockBuilder:
    def __init__(self, restart_interval: int) -> None:
        self.restart_interval = restart_interval
        self.buffer = bytearray()
        self.restarts = [0]
        self.count = 0
        self.last_key = b""

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self.count < self.restart_interval:
            limit = min(len(key), len(self.last_key))
            while shared < limit and key[shared] == self.last_key[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buffer))
            self.count = 0
        self.buffer += protowire.varint(shared) + protowire.varint(len(key) - shared)
        self.buffer += protowire.varint(len(value)) + key[shared:] + value
        self.last_key = key
        self.count += 1

    def size_estimate(self) -> int:
        return len(self.buffer) + 4 * len(self.restarts) + 4

    def finish(self) -> bytes:
        restarts = b"".join(struct.pack("<I", r) for r in self.restarts)
        return bytes(self.buffer) + restarts + struct.pack("<I", len(self.restarts))


def _handle(offset: int, size: int) -> bytes:
    return protowire.varint(offset) + protowire.varint(size)


def _separator(start: bytes, limit: bytes) -> bytes:
    """A short key >= start and < limit (LevelDB's bytewise FindShortestSeparator)."""
    common = 0
    while common < min(len(start), len(limit)) and start[common] == limit[common]:
        common += 1
    if common < min(len(start), len(limit)):
        byte = start[common]
        if byte < 0xFF and byte + 1 < limit[common]:
            return start[:common] + bytes([byte + 1])
    return start


def _successor(key: bytes) -> bytes:
    """A short key >= key (LevelDB's bytewise FindShortSuccessor)."""
    for i, byte in enumerate(key):
        if byte != 0xFF:
            return key[:i] + bytes([byte + 1])
    return key


def build(entries: list[tuple[bytes, bytes]]) -> bytes:
    """The table file holding `entries`, given in strictly increasing key order."""
    out = bytearray()
    index = _BlockBuilder(restart_interval=1)
    block = _BlockBuilder(_RESTART_INTERVAL)
    pending: tuple[bytes, int, int] | None = None  # last key, offset, size of a block

    def flush(builder: _BlockBuilder) -> tuple[int, int]:
        contents = builder.finish()
        offset = len(out)
        out.extend(contents)
        out.append(0)  # no compression
        checksum = crc32c.mask(crc32c.extend(crc32c.value(contents), b"\x00"))
        out.extend(struct.pack("<I", checksum))
        return offset, len(contents)

    previous = None
    for key, value in entries:
        if previous is not None and key <= previous:
            raise ValueError("table keys must be strictly increasing: %r after %r"
                             % (key, previous))
        previous = key
        if pending is not None:
            index.add(_separator(pending[0], key), _handle(pending[1], pending[2]))
            pending = None
        block.add(key, value)
        if block.size_estimate() >= _BLOCK_SIZE:
            pending = (block.last_key,) + flush(block)
            block = _BlockBuilder(_RESTART_INTERVAL)
    if block.count:
        pending = (block.last_key,) + flush(block)
    metaindex = flush(_BlockBuilder(_RESTART_INTERVAL))
    if pending is not None:
        index.add(_successor(pending[0]), _handle(pending[1], pending[2]))
    index_handle = flush(index)
    footer = _handle(*metaindex) + _handle(*index_handle)
    out.extend(footer + bytes(FOOTER_SIZE - 8 - len(footer)) + struct.pack("<Q", MAGIC))
    return bytes(out)


# -- reading -------------------------------------------------------------------------------------
def read(file: CheckpointFile) -> list[tuple[bytes, bytes]]:
    """Every (key, value) of table `file`, in key order."""
    if file.size < FOOTER_SIZE:
        raise errors.DataLossError("%s: %d bytes, too short for a checkpoint index (its "
                                   "footer alone is %d bytes)" % (file.path, file.size,
                                                                  FOOTER_SIZE))
    footer = file.read_at(file.size - FOOTER_SIZE, FOOTER_SIZE, "the footer")
    if struct.unpack("<Q", footer[-8:])[0] != MAGIC:
        raise errors.DataLossError("%s: not a checkpoint index (bad magic number in the "
                                   "footer)" % file.path)
    try:
        _, position = _read_handle(footer, 0)  # the metaindex block: nothing we need
        index_handle, _ = _read_handle(footer, position)
    except protowire.WireFormatError as error:
        raise errors.DataLossError("%s: corrupt footer (%s)" % (file.path, error)) from None
    entries: list[tuple[bytes, bytes]] = []
    for _, handle in _block_entries(file, index_handle, "the index block"):
        try:
            data_handle, _ = _read_handle(handle, 0)
        except protowire.WireFormatError as error:
            raise errors.DataLossError("%s: corrupt block handle (%s)"
                                       % (file.path, error)) from None
        block = _block_entries(file, data_handle, "a data block at offset %d" % data_handle[0])
        for key, value in block:
            if entries and key <= entries[-1][0]:
                raise errors.DataLossError("%s: keys out of order (%r after %r)"
                                           % (file.path, key, entries[-1][0]))
            entries.append((key, value))
    return entries


def _read_handle(data: bytes, position: int) -> tuple[tuple[int, int], int]:
    offset, position = protowire.read_varint(data, position, "block handle")
    size, position = protowire.read_varint(data, position, "block handle")
    return (offset, size), position


def _block_entries(file: CheckpointFile, handle: tuple[int, int],
                   what: str) -> list[tuple[bytes, bytes]]:
    offset, size = handle
    raw = file.read_at(offset, size + _TRAILER_SIZE, what)
    contents, kind = raw[:size], raw[size]
    stored = struct.unpack("<I", raw[size + 1:])[0]
    if crc32c.unmask(stored) != crc32c.extend(crc32c.value(contents), raw[size:size + 1]):
        raise errors.DataLossError("%s: checksum mismatch in %s: the file is corrupt"
                                   % (file.path, what))
    if kind != 0:
        raise errors.DataLossError("%s: %s is compressed (type %d); only uncompressed "
                                   "blocks, as TensorFlow writes checkpoints, are read"
                                   % (file.path, what, kind))
    try:
        return _parse_block(contents)
    except protowire.WireFormatError as error:
        raise errors.DataLossError("%s: corrupt %s (%s)" % (file.path, what, error)) from None


def _parse_block(block: bytes) -> list[tuple[bytes, bytes]]:
    if len(block) < 4:
        raise protowire.WireFormatError("shorter than its restart count")
    restarts = struct.unpack("<I", block[-4:])[0]
    if restarts == 0 or 4 * (restarts + 1) > len(block):
        raise protowire.WireFormatError("declares %d restart points" % restarts)
    end = len(block) - 4 * (restarts + 1)
    entries = []
    key = b""
    position = 0
    while position < end:
        shared, position = protowire.read_varint(block, position, "entry")
        unshared, position = protowire.read_varint(block, position, "entry")
        length, position = protowire.read_varint(block, position, "entry")
        if shared > len(key) or unshared + length > end - position:
            raise protowire.WireFormatError("an entry runs past the end of its block")
        key = key[:shared] + block[position:position + unshared]
        position += unshared
        entries.append((key, block[position:position + length]))
        position += length
    return entries
