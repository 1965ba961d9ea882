"""Opening a file that may come from anyone (a saved model's, a checkpoint's, a record file)
without blocking, following links out of its folder, or reading from a device.

`open_regular(path, folder)` opens with `O_NOFOLLOW | O_NONBLOCK` and checks the opened
descriptor with `fstat` before a byte is read: a FIFO, a device (`/dev/zero`, `/dev/stdin`), a
directory or a socket is refused at once instead of blocking or reading forever, and a file
swapped in between the checks is refused too. A symbolic link is followed only when it leads
to a file inside `folder` (any file, without a folder). Each refusal is a `RefusedFile`
naming the path and the reason; callers turn it into their own error (`SavedModelError`,
TensorFlow's `NotFoundError` / `DataLossError`).

    fd = open_regular("model/graphs.json", "model")
    size = os.fstat(fd).st_size      # then read at most what the caller declared
"""

from __future__ import annotations

import os
import stat


class RefusedFile(Exception):
    """A file that was not opened: `path`, `reason` (a phrase: 'is a FIFO (named pipe), not a
    regular file'), and `missing` (True when nothing is there)."""

    def __init__(self, path: str, reason: str, missing: bool = False) -> None:
        super().__init__("%s: %s" % (path, reason))
        self.path = path
        self.reason = reason
        self.missing = missing


_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
          | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0))


def open_regular(path: str, folder: str | None = None) -> int:
    """A read-only descriptor of `path`, refused (RefusedFile) unless it is a regular file,
    reached through links only inside `folder` when one is given."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        raise RefusedFile(path, "cannot read the file: no such file", missing=True) from None
    except OSError as e:
        raise RefusedFile(path, "cannot read the file (%s)" % (e.strerror or e)) from None
    target = path
    if stat.S_ISLNK(info.st_mode):
        target = os.path.realpath(path)
        if folder is not None:
            home = os.path.realpath(folder)
            if os.path.commonpath([home, target]) != home:
                raise RefusedFile(path, "is a symbolic link leading out of the folder %s (to "
                                        "%s)" % (folder, target))
    try:
        fd = os.open(target, _FLAGS)
    except FileNotFoundError:
        raise RefusedFile(path, "is a link to %s, which does not exist" % target,
                          missing=True) from None
    except OSError as e:
        raise RefusedFile(path, "cannot read the file (%s)" % (e.strerror or e)) from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as e:
        os.close(fd)
        raise RefusedFile(path, "cannot read the file (%s)" % (e.strerror or e)) from None
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise RefusedFile(path, "is %s, not a regular file" % special_kind(mode))
    return fd


def special_kind(mode: int) -> str:
    """What a file of `mode` that is not regular is, as a phrase ('a FIFO (named pipe)')."""
    for test, text in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return text
    return "a special file"


def is_regular_file(path: str, limit: int) -> bool:
    """True when `path` names a regular file (links followed) of at most `limit` bytes: the
    only kind of file whose lines may be read for a message (a FIFO would block, a device
    would be read forever)."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(found.st_mode) and found.st_size <= limit
