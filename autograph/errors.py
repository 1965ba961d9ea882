"""Errors raised by the compiler, and errors of converted code in the user's terms."""

from autograph.pyct.errors import (  # the compiler's errors, raised by the syntax tools too
    ConversionError,
    SourceUnavailableError,
    UnsupportedConstructError,
)
from autograph.user_code import is_library_module
from runtime import errors as runtime_errors
from runtime import tracebacks

__all__ = ["ConversionError", "SourceUnavailableError", "UnsupportedConstructError",
           "rewrite_in_user_terms", "user_frames"]

_MARKER = "in user code:"
_MAX_FRAMES = 12


def user_frames(tb):
    """The user's frames in traceback `tb`, outermost first, as the filtered traceback shows
    them (see runtime.tracebacks): frames of converted code translated back to the user's
    file, line and function; frames of this project, the standard library and numpy left
    out."""
    return [runtime_errors.SourceLocation(entry.filename, entry.lineno, entry.name)
            for entry in tracebacks.user_entries(tb)
            if entry.source is not None or not is_library_module(
                entry.frame.f_globals.get("__name__", ""))]


def _describe(frames):
    if len(frames) > _MAX_FRAMES:  # deep recursion: the outermost and innermost frames
        keep = _MAX_FRAMES // 2
        skipped = "... %d more frames ..." % (len(frames) - 2 * keep)
        return [str(f) for f in frames[:keep]] + [skipped] + [str(f) for f in frames[-keep:]]
    return [str(f) for f in frames]


def rewrite_in_user_terms(exc, tb):
    """Names the user's frames in `exc` ('in user code: ...') and, when tracebacks are
    filtered, gives it the filtered traceback of `tb` (see runtime.tracebacks). Errors whose
    message already names the user's code keep it.

    The frames go in a note, so the exception's own arguments stay what the user's code
    raised; the note keeps them where only the message and notes are shown (logs, or an
    exception re-raised from another)."""
    frames = user_frames(tb)
    if frames and _MARKER not in str(exc):
        where = "%s\n  %s" % (_MARKER, "\n  ".join(_describe(frames)))
        runtime_errors.add_note(exc, where)
    return tracebacks.filter_exception(exc)
