"""What the `autograph` subcommands share: exit statuses, the one-line error they report,
and atomic writes (nothing half-written on failure)."""

import os
import tempfile

# Exit statuses.
EXIT_OK = 0
EXIT_INTERNAL_ERROR = 1  # a compiler bug
EXIT_BAD_INPUT = 2  # unreadable file, syntax error, unsupported construct; also usage errors


class CommandError(Exception):
    """A failure to report as one line on stderr, with the exit status to return."""

    def __init__(self, message, status=EXIT_BAD_INPUT):
        super().__init__(message)
        self.status = status


def one_line(error: BaseException) -> str:
    """The message of `error` and its notes (where the user's code is: "in user code:
    FILE:LINE in FUNC ..."), on one line."""
    notes = [str(n) for n in getattr(error, "__notes__", None) or ()]
    return " ".join(" ".join([str(error)] + notes).split())


def write_atomically(path, text, encoding):
    """Writes `text` to `path` via a temporary file in the same directory and a rename, so
    `path` is either left as it was or holds the whole of `text`."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, temp = -1, None
    try:
        fd, temp = tempfile.mkstemp(dir=directory, prefix=".%s." % os.path.basename(path),
                                    suffix=".tmp")
        with os.fdopen(fd, "w", encoding=encoding, newline="") as f:
            fd = -1
            f.write(text)
        os.chmod(temp, _mode_for(path))
        os.replace(temp, path)
        temp = None
    except (OSError, UnicodeEncodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else e
        raise CommandError("cannot write %s: %s" % (path, reason)) from None
    finally:
        if fd != -1:
            os.close(fd)
        if temp is not None and os.path.exists(temp):
            os.remove(temp)


def _mode_for(path):
    """The permissions for the new `path`: those of the file it replaces, or the default
    for a new file (mkstemp's temporary files are private)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def produce_atomically(path, produce):
    """Calls `produce(temporary path)` to write a file next to `path`, then renames it to
    `path`; when `produce` raises (CommandError or OSError), `path` is left as it was and
    the temporary file is removed."""
    directory = os.path.dirname(os.path.abspath(path))
    temp = None
    try:
        fd, temp = tempfile.mkstemp(dir=directory, prefix=".%s." % os.path.basename(path),
                                    suffix=".tmp")
        os.close(fd)
        produce(temp)
        os.chmod(temp, _mode_for(path))
        os.replace(temp, path)
        temp = None
    except OSError as e:
        raise CommandError("cannot write %s: %s" % (path, e.strerror or e)) from None
    finally:
        if temp is not None and os.path.exists(temp):
            os.remove(temp)
