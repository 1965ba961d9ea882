"""Errors raised by the compiler."""


class ConversionError(ValueError):
    """A function cannot be converted: unsupported syntax, or its source is unavailable.

    The message names the construct and the user's file and line."""


class UnsupportedConstructError(ConversionError, NotImplementedError):
    """The function uses a construct that conversion does not support (`yield`, `async`,
    ...): also a `NotImplementedError`, as TensorFlow's AutoGraph raises for them."""


class SourceUnavailableError(ConversionError):
    """The function's source code cannot be read (defined in a REPL, `exec`, or C)."""


_MARKER = "in user code:"
_MAX_FRAMES = 12


def user_frames(tb):
    """The user's frames in traceback `tb`, outermost first, with frames of converted code
    translated back to the user's file and line; frames of this project, the standard
    library and numpy are left out."""
    from autograph.namespace import is_library_module
    from runtime import errors as runtime_errors
    frames = []
    while tb is not None:
        frame = tb.tb_frame
        code = frame.f_code
        if not runtime_errors.is_internal_file(code.co_filename) and not is_library_module(
                frame.f_globals.get("__name__", "")):
            filename, lineno = runtime_errors.translate_location(code.co_filename, tb.tb_lineno)
            name = code.co_name[len("ag__"):] if code.co_name.startswith("ag__") else code.co_name
            frames.append(runtime_errors.SourceLocation(filename, lineno, name))
        tb = tb.tb_next
    return frames


def _describe(frames):
    if len(frames) > _MAX_FRAMES:  # deep recursion: the outermost and innermost frames
        keep = _MAX_FRAMES // 2
        skipped = "... %d more frames ..." % (len(frames) - 2 * keep)
        return [str(f) for f in frames[:keep]] + [skipped] + [str(f) for f in frames[-keep:]]
    return [str(f) for f in frames]


def rewrite_in_user_terms(exc, tb):
    """Names the user's frames in `exc` ('in user code: ...') and returns it with its
    traceback cut at the converted function, so that the last frame shown is never
    generated code. Errors whose message already names the user's code keep it.

    The frames go in a note, so the exception's own arguments stay what the user's code
    raised."""
    from runtime import errors as runtime_errors
    frames = user_frames(tb)
    if frames and _MARKER not in str(exc):
        where = "%s\n  %s" % (_MARKER, "\n  ".join(_describe(frames)))
        runtime_errors.add_note(exc, where)
    return exc.with_traceback(None)
