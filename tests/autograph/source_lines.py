"""Where things are in the tests' own source: for asserting that messages and tracebacks
name the user's line."""

import inspect


def line_of(fn, text):
    """The absolute line in its file of the first line of `fn`'s source containing `text`."""
    lines, first = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line:
            return first + i
    raise AssertionError("%r not in %s" % (text, fn.__name__))
