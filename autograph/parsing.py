"""Source of functions, methods, nested functions and lambdas, parsed into gast trees.

The parsed function keeps where it came from (file and first line), so that generated code
can be mapped back to the user's lines.
"""

import inspect
import textwrap

import gast

from autograph.errors import ConversionError, SourceUnavailableError


class SourceInfo:
    """Where a parsed function came from: `filename`, and `line_offset` to add to node lines."""

    __slots__ = ("filename", "line_offset", "source")

    def __init__(self, filename, line_offset, source):
        self.filename = filename
        self.line_offset = line_offset
        self.source = source


def parse_source(source, filename="<string>", line_offset=0):
    """Parses module source text into a gast Module."""
    return gast.parse(source, filename=filename), SourceInfo(filename, line_offset, source)


def parse_function(func):
    """Returns (gast FunctionDef, SourceInfo) for `func`; lambdas come back as a FunctionDef
    named after the lambda whose body returns the lambda's expression."""
    try:
        lines, first_line = inspect.getsourcelines(func)
        filename = inspect.getsourcefile(func) or inspect.getfile(func)
    except (OSError, TypeError) as e:
        raise SourceUnavailableError("cannot convert %s: its source code is not available (%s)"
                              % (getattr(func, "__qualname__", func), e)) from None
    source = textwrap.dedent("".join(lines))
    name = func.__name__
    if func.__code__.co_name == "<lambda>":
        return _parse_lambda(source, filename, first_line, func)
    try:
        module = gast.parse(source)
    except SyntaxError as e:
        raise ConversionError("cannot parse the source of %s (%s:%d): %s"
                              % (name, filename, first_line, e.msg)) from None
    node = module.body[0]
    if not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)):
        raise ConversionError("expected a function definition for %s at %s:%d"
                              % (name, filename, first_line))
    if isinstance(node, gast.AsyncFunctionDef):
        raise ConversionError("%s:%d: async functions cannot be converted"
                              % (filename, first_line + node.lineno - 1))
    node.decorator_list = []
    return node, SourceInfo(filename, first_line - 1, source)


def _by_column(candidates, func, wrapped):
    """Narrows lambdas on the same line to the one whose body starts where `func`'s code does."""
    positions = getattr(func.__code__, "co_positions", None)
    if positions is None:
        return candidates
    starts = [(p[0], p[2]) for p in positions()
              if p[0] is not None and p[2] is not None and p[3] is not None and p[3] > p[2]]
    if not starts:
        return candidates
    line, column = min(starts)
    offset = func.__code__.co_firstlineno - 1 - (1 if wrapped else 0)
    matching = [c for c in candidates if c.body.col_offset == column and
                (c.body.lineno + offset == line)]
    if not matching:
        matching = [c for c in candidates if c.body.col_offset == column]
    return matching or candidates


def _parse_lambda(source, filename, first_line, func):
    module = None
    text = source
    # The lines holding a lambda may not parse alone (e.g. the middle of a call): trim.
    for _ in range(2):
        try:
            module = gast.parse(text)
            break
        except SyntaxError:
            text = "(\n" + text.strip().rstrip(",").rstrip("\\") + "\n)"
    if module is None:
        raise ConversionError("cannot parse the source of the lambda at %s:%d"
                              % (filename, first_line))
    offset = first_line - 1 - (1 if text is not source else 0)
    arg_names = list(func.__code__.co_varnames[:func.__code__.co_argcount])
    candidates = [n for n in gast.walk(module) if isinstance(n, gast.Lambda)
                  and [a.id for a in n.args.args] == arg_names]
    if len(candidates) > 1:
        candidates = _by_column(candidates, func, text is not source)
    if len(candidates) != 1:
        raise ConversionError("cannot tell which lambda on %s:%d to convert; define it with "
                              "`def` instead" % (filename, first_line))
    lam = candidates[0]
    ret = gast.Return(value=lam.body)
    gast.copy_location(ret, lam.body)
    node = gast.FunctionDef(name="lambda__", args=lam.args, body=[ret], decorator_list=[],
                            returns=None, type_comment=None, type_params=[])
    gast.copy_location(node, lam)
    return node, SourceInfo(filename, offset, source)
