"""Checkpoint files on disk: read as untrusted input, written atomically.

Reading never blocks on or reads from anything but a regular file inside the checkpoint's
folder: a name that is a link leading out of the folder, a FIFO, a device or a directory is
refused before it is opened (and checked again on the opened descriptor, opened without
blocking, so a file swapped in between is refused too). Sizes are the file's own, so a
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


class CheckpointFile:
    """A regular file opened for reading at offsets within its size."""

    def __init__(self, path: str, folder: str) -> None:
        self.path = path
        real = checked_path(path, folder)
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
        flags |= getattr(os, "O_BINARY", 0)
        try:
            self._fd = os.open(real, flags)
        except FileNotFoundError:
            raise errors.NotFoundError("%s: no such file" % path) from None
        except OSError as error:
            raise errors.DataLossError("%s: cannot be opened (%s)"
                                       % (path, error.strerror)) from None
        info = os.fstat(self._fd)
        if not stat.S_ISREG(info.st_mode):
            os.close(self._fd)
            raise errors.DataLossError("%s: not a regular file" % path)
        self.size = info.st_size

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


def checked_path(path: str, folder: str) -> str:
    """The real path of `path`, refused unless it is a regular file inside `folder` (a link
    may lead to another file of the folder, never out of it)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise errors.NotFoundError("%s: no such file" % path) from None
    real = os.path.realpath(path)
    if stat.S_ISLNK(info.st_mode):
        home = os.path.realpath(folder)
        if os.path.dirname(real) != home and not real.startswith(home + os.sep):
            raise errors.DataLossError("%s: a link to %s, outside the checkpoint's folder %s: "
                                       "refused" % (path, real, folder))
        try:
            info = os.stat(real)
        except FileNotFoundError:
            raise errors.NotFoundError("%s: a link to %s, which does not exist"
                                       % (path, real)) from None
    if not stat.S_ISREG(info.st_mode):
        raise errors.DataLossError("%s: not a regular file (%s): refused"
                                   % (path, _kind(info.st_mode)))
    return real


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"


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
