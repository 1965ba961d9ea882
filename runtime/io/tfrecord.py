"""TFRecord framing: the record file format of TensorFlow's event files and of
`tf.data.TFRecordDataset`. Each record is

    length      uint64, little-endian
    masked CRC-32C of those 8 length bytes   (uint32, little-endian)
    data        `length` bytes
    masked CRC-32C of the data                (uint32, little-endian)

    with RecordWriter(path) as w:      # or RecordWriter(open_binary_file)
        w.write(b"one"); w.write(b"two")
    list(read_records(path)) == [b"one", b"two"]

Record files come from anyone, so the reader checks each length's checksum before it
trusts the length, refuses a length beyond what the file still holds (nothing is allocated
for it), and checks each record's checksum before yielding it; every refusal is a
`RecordError` naming the file, the record's number and its offset.
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from typing import IO, Any

from runtime.io import crc32c, untrusted_files

_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")
HEADER_BYTES = _LENGTH.size + _CRC.size
FOOTER_BYTES = _CRC.size


class RecordError(ValueError):
    """A record file that is truncated or corrupt, or is not a regular file."""


def frame(data: bytes) -> bytes:
    """`data` framed as one record (header, data, footer)."""
    length = _LENGTH.pack(len(data))
    return (length + _CRC.pack(crc32c.mask(crc32c.value(length))) + data
            + _CRC.pack(crc32c.mask(crc32c.value(data))))


class RecordWriter:
    """Writes records to a file: a path (created or truncated; opened in binary mode) or an
    open binary file, which `close()` then closes too. Writes go through the file's buffer;
    `flush()` pushes them to the operating system."""

    def __init__(self, target: str | os.PathLike[str] | IO[bytes]) -> None:
        if isinstance(target, (str, os.PathLike)):
            self._file: IO[bytes] = open(target, "wb")  # noqa: SIM115 - closed by close()
        else:
            self._file = target

    def write(self, data: bytes) -> None:
        """Appends one record holding `data`."""
        self._file.write(frame(bytes(data)))

    def flush(self) -> None:
        """Hands the records written so far to the operating system."""
        self._file.flush()

    def close(self) -> None:
        """Flushes and closes the file; closing again does nothing."""
        if not self._file.closed:
            self._file.flush()
            self._file.close()

    @property
    def closed(self) -> bool:
        """Whether `close()` was called."""
        return self._file.closed

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


def read_records(path: str | os.PathLike[str]) -> Iterator[bytes]:
    """The data of each record of the file at `path`, in order, each checked against its
    checksums; RecordError at the first record that is truncated or corrupt."""
    path = os.fspath(path)
    try:  # never a FIFO or a device: those would block or never end (untrusted_files)
        fd = untrusted_files.open_regular(path)
    except untrusted_files.RefusedFile as e:
        raise RecordError(str(e)) from None
    with os.fdopen(fd, "rb") as f:
        remaining = os.fstat(f.fileno()).st_size
        number = 0
        offset = 0
        while remaining:
            where = "%s: record %d (at byte %d)" % (path, number, offset)
            if remaining < HEADER_BYTES:
                raise RecordError("%s: truncated header (%d bytes left, a header has %d)"
                                  % (where, remaining, HEADER_BYTES))
            header = f.read(HEADER_BYTES)
            (length,) = _LENGTH.unpack_from(header)
            (stored,) = _CRC.unpack_from(header, _LENGTH.size)
            if crc32c.mask(crc32c.value(header[:_LENGTH.size])) != stored:
                raise RecordError("%s: the length's checksum does not match: the header is "
                                  "corrupt" % where)
            remaining -= HEADER_BYTES
            if length + FOOTER_BYTES > remaining:
                raise RecordError("%s: declares %d bytes of data but the file holds only %d "
                                  "more: truncated" % (where, length,
                                                       max(remaining - FOOTER_BYTES, 0)))
            data = f.read(length)
            (stored,) = _CRC.unpack(f.read(FOOTER_BYTES))
            if crc32c.mask(crc32c.value(data)) != stored:
                raise RecordError("%s: the data's checksum does not match: the record is "
                                  "corrupt" % where)
            remaining -= length + FOOTER_BYTES
            offset += HEADER_BYTES + length + FOOTER_BYTES
            number += 1
            yield data


class TFRecordWriter(RecordWriter):
    """`tf.io.TFRecordWriter`: writes records to the file at `path` (uncompressed); a
    record is bytes, a str (written as UTF-8) or a scalar string tensor."""

    def __init__(self, path: str | os.PathLike[str], options: Any = None) -> None:
        if options not in (None, ""):
            raise NotImplementedError("TFRecordWriter: options %r are not supported (only "
                                      "uncompressed files)" % (options,))
        super().__init__(os.fspath(path))

    def write(self, record: Any) -> None:
        """Appends one record."""
        if hasattr(record, "numpy"):
            record = record.numpy()
        if isinstance(record, str):
            record = record.encode("utf-8")
        if not isinstance(record, (bytes, bytearray)):
            raise TypeError("TFRecordWriter.write takes bytes or a string, got %s"
                            % type(record).__name__)
        super().write(bytes(record))
