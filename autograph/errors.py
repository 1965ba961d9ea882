"""Errors raised by the compiler."""


class ConversionError(ValueError):
    """A function cannot be converted: unsupported syntax, or its source is unavailable.

    The message names the construct and the user's file and line."""


class SourceUnavailableError(ConversionError):
    """The function's source code cannot be read (defined in a REPL, `exec`, or C)."""
