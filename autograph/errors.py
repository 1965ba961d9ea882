"""Errors raised by the compiler."""


class ConversionError(ValueError):
    """A function cannot be converted: unsupported syntax, or its source is unavailable.

    The message names the construct and the user's file and line."""


class SourceUnavailableError(ConversionError):
    """The function's source code cannot be read (defined in a REPL, `exec`, or C)."""


_MARKER = "in user code:"


def user_frames(tb):
    """The user's frames in traceback `tb`, outermost first, with frames of converted code
    translated back to the user's file and line; the project's own frames are left out."""
    from runtime import errors as runtime_errors
    frames = []
    while tb is not None:
        code = tb.tb_frame.f_code
        if not runtime_errors.is_internal_file(code.co_filename):
            filename, lineno = runtime_errors.translate_location(code.co_filename, tb.tb_lineno)
            name = code.co_name[len("ag__"):] if code.co_name.startswith("ag__") else code.co_name
            frames.append(runtime_errors.SourceLocation(filename, lineno, name))
        tb = tb.tb_next
    return frames


def rewrite_in_user_terms(exc, tb):
    """Names the user's frames in `exc` ('in user code: ...') and returns it with its
    traceback cut at the converted function, so that the last frame shown is never
    generated code. Errors whose message already names the user's code keep it."""
    frames = user_frames(tb)
    text = str(exc)
    if frames and _MARKER not in text:
        where = "%s\n  %s" % (_MARKER, "\n  ".join(str(f) for f in frames))
        args = exc.args
        if type(exc) is not KeyError and len(args) == 1 and isinstance(args[0], str):
            exc.args = ("%s\n\n%s" % (args[0], where),)
        elif hasattr(exc, "add_note"):  # Python 3.11+
            exc.add_note(where)
    return exc.with_traceback(None)
