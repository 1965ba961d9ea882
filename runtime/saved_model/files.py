"""Reads the files of a saved-model folder as untrusted input: only regular files inside the
folder, never more bytes than they are declared to hold.

A file is opened with `O_NOFOLLOW | O_NONBLOCK` and checked with `fstat` before a byte is
read, so that a FIFO, a device (`/dev/zero`, `/dev/stdin`), a directory or a socket is refused
at once instead of blocking or reading forever; a symbolic link is followed only when it leads
to a file inside the folder. The size `fstat` gives is compared with the size the manifest
declares before reading, and reading stops at that size.
"""

from __future__ import annotations

import os
import stat

from runtime.saved_model.errors import SavedModelError

# The most a file whose size no manifest declares (the manifest itself) may hold.
MANIFEST_LIMIT_BYTES = 1 << 20
_CHUNK = 1 << 20


def read_file(folder: str, name: str, size: int | None,
              limit: int = MANIFEST_LIMIT_BYTES) -> bytes:
    """The content of file `name` of `folder`, which must be a regular file inside the
    folder holding exactly `size` bytes (when `size` is None: at most `limit`), read into
    one buffer of that size."""
    path = os.path.join(folder, name)
    fd = _open_regular(folder, path)
    try:
        found = os.fstat(fd).st_size
        if size is None and found > limit:
            raise SavedModelError(path, "holds %d bytes, more than the %d this file may hold"
                                  % (found, limit))
        if size is not None and found != size:
            raise SavedModelError(path, "holds %d bytes where the manifest records %d: the "
                                        "file is truncated or was changed" % (found, size))
        content = bytearray(found)
        view = memoryview(content)
        done = 0
        while done < found:
            count = os.readv(fd, [view[done:done + _CHUNK]])
            if not count:
                break
            done += count
        view.release()
        if done != found or os.read(fd, 1):
            raise SavedModelError(path, "changed size while it was read")
        return content  # type: ignore[return-value] # (a bytearray: no copy into bytes)
    except OSError as e:
        raise SavedModelError(path, "cannot read the file (%s)" % (e.strerror or e)) from None
    finally:
        os.close(fd)


def _open_regular(folder: str, path: str) -> int:
    """A descriptor of `path`, refused unless it is a regular file inside `folder`."""
    target = path
    if os.path.islink(path):
        target = os.path.realpath(path)
        inside = os.path.realpath(folder)
        if os.path.commonpath([inside, target]) != inside:
            raise SavedModelError(path, "is a symbolic link leading out of the folder (a "
                                        "saved model holds its own regular files)")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) \
        | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(target, flags)
    except OSError as e:
        raise SavedModelError(path, "cannot read the file (%s)" % (e.strerror or e)) from None
    try:
        mode = os.fstat(fd).st_mode
    except OSError as e:
        os.close(fd)
        raise SavedModelError(path, "cannot read the file (%s)" % (e.strerror or e)) from None
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise SavedModelError(path, "is %s, not a regular file (a saved model holds regular "
                                    "files only)" % _kind(mode))
    return fd


def _kind(mode: int) -> str:
    for test, text in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return text
    return "a special file"


def is_regular_file(path: str, limit: int) -> bool:
    """True when `path` names a regular file (links followed) of at most `limit` bytes: the
    only kind of file whose lines a traceback may read (a FIFO would block, a device would
    be read forever)."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(found.st_mode) and found.st_size <= limit
