"""Checkpoint files on disk: read as untrusted input, written atomically.

Reading never blocks on or reads from anything but a regular file inside the checkpoint's
folder (runtime.io.untrusted_files: a link leading out of the folder, a FIFO, a device or a
directory is refused, never read). Sizes are the file's own, so a
reader never asks for more bytes than the file holds.

Writing goes to a temporary file in the same folder, flushed to disk and renamed over the
final name: a crash leaves the old file or the new one, never half of one.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from typing import IO

from runtime import errors
from runtime.io import untrusted_files


class CheckpointFile:
    """A regular file opened for reading at offsets within its size."""

    def __init__(self, path: str, folder: str) -> None:
        self.path = path
        self._fd = _open(path, folder)
        self.size = os.fstat(self._fd).st_size

    def read_at(self, offset: int, size: int, what: str) -> bytes:
        """`size` bytes from `offset`; `what` names them in the error if the file is shorter."""
        if offset < 0 or size < 0 or offset + size > self.size:
            raise errors.DataLossError(
                "%s: %s lies at bytes [%d, %d), past the end of the file (%d bytes): the "
                "file is truncated or corrupt" % (self.path, what, offset, offset + size,
                                                  self.size))
        chunks = []
        position = offset
        while position < offset + size:
            chunk = os.pread(self._fd, min(offset + size - position, 1 << 26), position)
            if not chunk:
                raise errors.DataLossError("%s: %s: the file ended early" % (self.path, what))
            chunks.append(chunk)
            position += len(chunk)
        return b"".join(chunks)

    def read_all(self) -> bytes:
        """The whole file."""
        return self.read_at(0, self.size, "the file")

    def close(self) -> None:
        """Closes the file."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> CheckpointFile:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _open(path: str, folder: str) -> int:
    """A descriptor of `path`, refused unless it is a regular file inside `folder`
    (NotFoundError when it is missing, DataLossError otherwise)."""
    try:
        return untrusted_files.open_regular(path, folder)
    except untrusted_files.RefusedFile as e:
        error = errors.NotFoundError if e.missing else errors.DataLossError
        raise error(str(e)) from None


def exists(path: str) -> bool:
    """Whether `path` names a regular file (or a link to one), without opening it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


@contextlib.contextmanager
def atomic_write(path: str) -> Iterator[IO[bytes]]:
    """A binary file object to write; on a clean exit its bytes replace `path` at once,
    on an error nothing changes."""
    folder = os.path.dirname(path) or "."
    fd, temporary = tempfile.mkstemp(dir=folder, prefix=".%s." % os.path.basename(path),
                                     suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write_bytes(path: str, data: bytes) -> None:
    """Writes `data` to `path` atomically."""
    with atomic_write(path) as out:
        out.write(data)
