"""Whole-module conversion: the source of a Python file in, a converted module's source out.

    convert_source(source, filename) -> source of a module that imports and runs on its own

Every function definition that is not inside another function (top-level functions, methods,
functions under module-level `if`/`try`/`with`) goes through the same passes that
`autograph.function` applies, and is spliced back where it was; everything else is kept as
the user wrote it, comments and blank lines included. Nested functions stay inside their
converted enclosing function and are converted when called, as with `autograph.function`.

    @tf.function                          @tf.function
    def f(x):                     ->      @ag__autograph_artifact
        while x > 1:                      def f(x):
            x = x / 2                         with ag__.FunctionScope('f') as fscope:
        return x                                  ...
                                                  ag__.while_stmt(loop_test, loop_body, ...)

`autograph_artifact` (applied innermost) marks a converted function so that
`autograph.function` and `converted_call` never convert it a second time. Functions decorated
with `do_not_convert` are copied unchanged. The file is parsed, never imported or run.
"""

import ast
import io
import re
import tokenize

import gast

from autograph import codegen, conversion, parsing
from autograph.errors import ConversionError, UnsupportedConstructError

ARTIFACT_DECORATOR = "ag__autograph_artifact"
"""The name the converted module gives `autograph_artifact`."""

RESERVED_NAMES = frozenset(["ag__", ARTIFACT_DECORATOR])
"""Module-level names that converted code defines, so the input must not use them."""

_HEADER = ("# Converted by `autograph convert` from {filename}.\n"
           "from autograph.namespace import ag__\n"
           "from autograph.module_conversion import autograph_artifact as "
           + ARTIFACT_DECORATOR + "\n")


def autograph_artifact(func):
    """Marks `func` as already converted: conversion returns it unchanged.

    The mark is `func`'s own code object, so a wrapper that copies `func`'s attributes
    (`functools.wraps`) is not mistaken for converted code."""
    setattr(func, conversion.ARTIFACT, func.__code__)
    return func


def convert_source(source, filename="<string>"):
    """The converted module for Python `source` read from `filename`.

    Raises SyntaxError for source that does not parse, and ConversionError (naming
    `filename` and the line) for a function that cannot be converted."""
    module, source_info = parsing.parse_source(source, filename)
    _check_reserved_names(module, filename)
    lines = io.StringIO(source, newline="").readlines()  # the parser's idea of a line
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n"
    converted = [(definition_lines(node), convert_function(node, source_info))
                 for node in functions_to_convert(module)]  # first error in source order
    for (first, last), text in reversed(converted):  # splice from the end: lines stay put
        indent = re.match(r"[ \t]*", lines[first - 1]).group()
        lines[first - 1:last] = [indent_source(text, indent)]
    at = _header_line(module, lines)
    lines.insert(at, _HEADER.format(filename=filename))
    result = "".join(lines)
    try:
        ast.parse(result, filename)  # a splicing mistake must never reach the user's disk
    except SyntaxError as e:
        raise RuntimeError("internal error: the converted module does not parse (line %s: %s)"
                           % (e.lineno, e.msg)) from None
    return result


def functions_to_convert(module):
    """The function definitions of `module` not inside other functions, in source order,
    except those decorated with `do_not_convert`."""
    found = []

    def visit(node):
        for child in gast.iter_child_nodes(node):
            if isinstance(child, (gast.FunctionDef, gast.AsyncFunctionDef)):
                if not any(_is_do_not_convert(d) for d in child.decorator_list):
                    found.append(child)
            elif isinstance(child, (gast.stmt, gast.excepthandler, gast.match_case)):
                visit(child)
    visit(module)
    return found


def definition_lines(node):
    """(first, last) line of function `node`'s definition, decorators included."""
    first = min([node.lineno] + [d.lineno for d in node.decorator_list])
    return first, node.end_lineno


def convert_function(node, source_info):
    """Source of function `node` converted, under its own name, marked as an artifact."""
    if isinstance(node, gast.AsyncFunctionDef):
        raise UnsupportedConstructError(
            "%s:%d: async functions (async def) are not supported in converted functions; "
            "mark the function with autograph.do_not_convert to keep it as plain Python"
            % (source_info.filename, node.lineno))
    decorators, node.decorator_list = node.decorator_list, []
    name = node.name
    converted = conversion.convert_node(node, source_info, name)
    converted.name = name
    marker = gast.Name(id=ARTIFACT_DECORATOR, ctx=gast.Load(), annotation=None,
                       type_comment=None)
    converted.decorator_list = decorators + [marker]
    return codegen.to_source(converted)


def indent_source(text, indent):
    """`text` with `indent` put before every non-blank line that starts outside a string."""
    if not indent:
        return text
    in_string = _lines_inside_strings(text)
    return "".join(line if number in in_string or not line.strip() else indent + line
                   for number, line in enumerate(text.splitlines(True), 1))


def _lines_inside_strings(text):
    """Numbers of the lines that begin inside a multi-line string literal of `text`."""
    string_types = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", tokenize.STRING)}
    inside = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in string_types:
            inside.update(range(token.start[0] + 1, token.end[0] + 1))
    return inside


def _is_do_not_convert(decorator):
    """True for `@do_not_convert`, `@x.do_not_convert` and calls of them."""
    if isinstance(decorator, gast.Call):
        decorator = decorator.func
    if isinstance(decorator, gast.Attribute):
        return decorator.attr == "do_not_convert"
    return isinstance(decorator, gast.Name) and decorator.id == "do_not_convert"


def _check_reserved_names(module, filename):
    """Raises ConversionError where the input uses a name that converted code defines."""
    for node in gast.walk(module):
        names = []
        if isinstance(node, gast.Name):
            names = [node.id]
        elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            names = [node.name]
        elif isinstance(node, gast.alias):
            names = [node.asname or node.name.split(".")[0]]
        for name in names:
            if name in RESERVED_NAMES:
                line = getattr(node, "lineno", None) or _line_of_alias(module, node)
                raise ConversionError("%s:%d: the name %r is reserved for converted code; "
                                      "rename it" % (filename, line, name))


def _line_of_alias(module, alias):
    """The line of the import statement holding `alias` (aliases have no line before 3.10)."""
    for node in gast.walk(module):
        if isinstance(node, (gast.Import, gast.ImportFrom)) and alias in node.names:
            return node.lineno
    return 0


def _header_line(module, lines):
    """Index in `lines` where the converted module's imports go: after the module docstring
    and `from __future__` imports, or else after the leading comment lines."""
    at = 0
    for statement in module.body:
        is_docstring = (statement is module.body[0] and isinstance(statement, gast.Expr)
                        and isinstance(statement.value, gast.Constant)
                        and isinstance(statement.value.value, str))
        is_future = isinstance(statement, gast.ImportFrom) and statement.module == "__future__"
        if not (is_docstring or is_future):
            break
        at = statement.end_lineno
    if at == 0:
        while at < len(lines) and lines[at].startswith("#"):
            at += 1
    return at
