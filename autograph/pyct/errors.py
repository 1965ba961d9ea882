"""The errors of conversion: a function that cannot be converted."""


class ConversionError(ValueError):
    """A function cannot be converted: unsupported syntax, or its source is unavailable.

    The message names the construct and the user's file and line."""


class UnsupportedConstructError(ConversionError, NotImplementedError):
    """The function uses a construct that conversion does not support (`yield`, `async`,
    ...): also a `NotImplementedError`, as TensorFlow's AutoGraph raises for them."""


class SourceUnavailableError(ConversionError):
    """The function's source code cannot be read (defined in a REPL, `exec`, or C)."""


# Users import these from `autograph.errors` (which re-exports them): tracebacks and reprs
# name that public home, not this module.
for _error in (ConversionError, UnsupportedConstructError, SourceUnavailableError):
    _error.__module__ = "autograph.errors"
