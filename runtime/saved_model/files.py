"""Reads the files of a saved-model folder as untrusted input: only regular files inside the
folder, never more bytes than they are declared to hold.

A file is opened as runtime.io.untrusted_files opens one (a FIFO, a device, a directory or a
link out of the folder is refused at once, never read). The size `fstat` gives is compared
with the size the manifest declares before reading, and reading stops at that size.
"""

from __future__ import annotations

import os

from runtime.io import untrusted_files
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
    try:
        return untrusted_files.open_regular(path, folder)
    except untrusted_files.RefusedFile as e:
        raise SavedModelError(path, e.reason) from None


is_regular_file = untrusted_files.is_regular_file
