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
`autograph.function` and `converted_call` never convert it a second time. Functions marked
not to be converted are copied unchanged: decorated with `do_not_convert` under any name the
file imports or assigns it as, or with a decorator called with `autograph=False`, or wrapped
so by a module-level call (`tf.function(f, autograph=False)`). A lambda assigned to a name
outside functions (`f = lambda z: ...`) becomes a converted `def f(z)`. A module that is
already converted (it imports the artifact mark) is returned unchanged.

The header of the converted module registers, when it is imported, a map from its lines to
the original file's (`original_lines`), so that errors located in it name the original file
and lines. The file is parsed, never imported or run.
"""

import ast
import io
import os
import tokenize

import gast

from autograph import conversion
from autograph.errors import ConversionError, UnsupportedConstructError
from autograph.pyct import codegen, parsing
from runtime import reserved_names


# The names converted code binds at module level (runtime.reserved_names spells them), read
# when a module is converted: the input must not use them.
def _reserved_module_names():
    return frozenset([reserved_names.NAMESPACE, reserved_names.ARTIFACT_DECORATOR,
                      reserved_names.LINE_MAP_FUNCTION])


_HEADER = ("# Converted by `autograph convert` from {filename}.\n"
           "from autograph.namespace import {namespace}\n"
           "from autograph.module_conversion import autograph_artifact as {artifact}\n"
           "from autograph.module_conversion import original_lines as {line_map}\n"
           "{line_map}(globals(), {original!r}, {runs!r})\n")
_HEADER_LINES = _HEADER.count("\n")


def autograph_artifact(func):
    """Marks `func` as already converted: conversion returns it unchanged.

    The mark is `func`'s own code object, so a wrapper that copies `func`'s attributes
    (`functools.wraps`) is not mistaken for converted code."""
    setattr(func, conversion.ARTIFACT, func.__code__)
    return func


def original_lines(module_globals, original, runs):
    """Called by a converted module as it is imported: errors located in it name
    `original` (relative to the converted file's folder, unless absolute) and its lines.
    `runs` holds (first converted line, first original line, count, step) runs."""
    converted = module_globals.get("__file__")
    if not converted or original is None:
        return
    directory = os.path.dirname(os.path.abspath(converted))
    original = os.path.normpath(os.path.join(directory, original))
    lines = {first + i: user_first + i * step for first, user_first, count, step in runs
             for i in range(count)}
    for name in {converted, os.path.abspath(converted)}:
        codegen.register_line_map(name, original, lines)


def convert_source(source, filename="<string>", original=None):
    """The converted module for Python `source` read from `filename`.

    `original` is how the converted module names `filename` in its map back to the original
    lines (relative to the converted file's folder, or absolute; None for no map); by
    default `filename` itself. A module that `autograph convert` wrote already is returned
    unchanged. Raises SyntaxError for source that does not parse, and ConversionError
    (naming `filename` and the line) for a function that cannot be converted."""
    module, source_info = parsing.parse_source(source, filename)
    if is_converted_module(module):
        return source
    _check_reserved_names(module, filename)
    lines = io.StringIO(source, newline="").readlines()  # the parser's idea of a line
    if lines and not lines[-1].endswith(("\n", "\r")):
        lines[-1] += "\n"
    converted = [(definition_lines(node), convert_function(node, source_info))
                 for node in functions_to_convert(module)]  # first error in source order
    lines, origins = _splice(lines, converted)
    at = _header_line(module, lines)
    header = _HEADER.format(filename=filename, original=filename if original is None
                            else original, runs=_runs(origins, at),
                            namespace=reserved_names.NAMESPACE,
                            artifact=reserved_names.ARTIFACT_DECORATOR,
                            line_map=reserved_names.LINE_MAP_FUNCTION)
    lines.insert(at, header)
    result = "".join(lines)
    try:
        ast.parse(result, filename)  # a splicing mistake must never reach the user's disk
    except SyntaxError as e:
        raise RuntimeError("internal error: the converted module does not parse (line %s: %s)"
                           % (e.lineno, e.msg)) from None
    return result


def is_converted_module(module):
    """True for a module that `autograph convert` wrote (it imports the artifact mark)."""
    for statement in module.body:
        if isinstance(statement, gast.ImportFrom) and \
                statement.module == "autograph.module_conversion" and \
                any(alias.asname == reserved_names.ARTIFACT_DECORATOR
                    for alias in statement.names):
            return True
    return False


def _splice(lines, converted):
    """`lines` with each converted definition put in place of the original one, and the
    original line of each resulting line."""
    result: list[str] = []
    origins: list[int] = []
    next_line = 1
    for (first, last), (text, text_lines) in converted:
        result.extend(lines[next_line - 1:first - 1])
        origins.extend(range(next_line, first))
        header = lines[first - 1]
        indent = header[:len(header) - len(header.lstrip(" \t"))]
        text = indent_source(text, indent)
        for number, line in enumerate(io.StringIO(text, newline="").readlines(), 1):
            result.append(line)
            origins.append(text_lines.get(number, origins[-1] if origins else first))
        next_line = last + 1
    result.extend(lines[next_line - 1:])
    origins.extend(range(next_line, len(lines) + 1))
    return result, origins


def _runs(origins, header_at):
    """(first converted line, first original line, count, step) runs for the lines of the
    converted module: `origins` with the header inserted before index `header_at`; a run's
    original lines go up by `step` (0 or 1) from one line to the next."""
    before = origins[header_at - 1] if header_at else 1
    origins = origins[:header_at] + [before] * _HEADER_LINES + origins[header_at:]
    runs: list[list[int]] = []
    for line, original in enumerate(origins, 1):
        if runs:
            first, user_first, count, step = run = runs[-1]
            last = user_first + (count - 1) * step
            if count == 1 and original - last in (0, 1):
                run[2:] = [2, original - last]
                continue
            if original == last + step:
                run[2] += 1
                continue
        runs.append([line, original, 1, 0])
    return tuple(tuple(run) for run in runs)


def functions_to_convert(module):
    """The function definitions of `module` not inside other functions, in source order,
    except those marked not to be converted (`do_not_convert` under any name it is imported
    as, `function(autograph=False)`); and the assignments of a lambda to a name there."""
    skipped = _decorator_names(module)
    not_converted = _not_converted_names(module, skipped)
    found = []

    def visit(node):
        for child in gast.iter_child_nodes(node):
            if isinstance(child, (gast.FunctionDef, gast.AsyncFunctionDef)):
                if not any(_skips_conversion(d, skipped) for d in child.decorator_list) \
                        and child.name not in not_converted:
                    found.append(child)
            elif _is_lambda_assignment(child, node):
                if child.targets[0].id not in not_converted:
                    found.append(child)
            elif isinstance(child, (gast.stmt, gast.excepthandler, gast.match_case)):
                visit(child)
    visit(module)
    return found


def definition_lines(node):
    """(first, last) line of function `node`'s definition, decorators included."""
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return first, node.end_lineno


def convert_function(node, source_info):
    """(source of function `node` converted, under its own name, marked as an artifact;
    {line of that source: line of the original}). A lambda assigned to a name becomes a
    function of that name."""
    if isinstance(node, gast.Assign):
        node = _lambda_as_function(node)
    if isinstance(node, gast.AsyncFunctionDef):
        raise UnsupportedConstructError(
            "%s:%d: async functions (async def) are not supported in converted functions; "
            "mark the function with autograph.do_not_convert to keep it as plain Python"
            % (source_info.filename, node.lineno))
    decorators, node.decorator_list = node.decorator_list, []
    name = node.name
    converted = conversion.convert_node(node, source_info, name)
    converted.name = name
    marker = gast.Name(id=reserved_names.ARTIFACT_DECORATOR, ctx=gast.Load(), annotation=None,
                       type_comment=None)
    converted.decorator_list = decorators + [marker]
    return codegen.to_source_with_lines(converted)


def _is_lambda_assignment(statement, parent):
    """True for `name = lambda ...: ...` alone on its lines of `parent`'s body."""
    if not (isinstance(statement, gast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], gast.Name)
            and isinstance(statement.value, gast.Lambda)):
        return False
    for field in ("body", "orelse", "finalbody"):
        body = getattr(parent, field, None)
        if isinstance(body, list) and any(statement is s for s in body):
            return all(s is statement or s.end_lineno < statement.lineno
                       or s.lineno > statement.end_lineno for s in body)
    return False


def _lambda_as_function(assignment):
    """`name = lambda args: value` as `def name(args): return value`."""
    lam = assignment.value
    ret = gast.copy_location(gast.Return(value=lam.body), lam.body)
    node = gast.FunctionDef(name=assignment.targets[0].id, args=lam.args, body=[ret],
                            decorator_list=[], returns=None, type_comment=None,
                            type_params=[])
    return gast.copy_location(node, assignment)


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
    inside: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type in string_types:
            inside.update(range(token.start[0] + 1, token.end[0] + 1))
    return inside


def _decorator_names(module):
    """The plain names that `do_not_convert` goes by in `module`: its own, those it is
    imported as (`from autograph import do_not_convert as dnc`) or assigned to."""
    names = {"do_not_convert"}
    for node in gast.walk(module):
        if isinstance(node, gast.ImportFrom):
            names.update(alias.asname or alias.name for alias in node.names
                         if alias.name == "do_not_convert")
    for node in gast.walk(module):
        if isinstance(node, gast.Assign) and _is_do_not_convert(node.value, names):
            names.update(t.id for t in node.targets if isinstance(t, gast.Name))
    return names


def _is_do_not_convert(expression, names):
    """True for `do_not_convert` under one of `names`, or as `x.do_not_convert`."""
    if isinstance(expression, gast.Attribute):
        return expression.attr == "do_not_convert"
    return isinstance(expression, gast.Name) and expression.id in names


def _skips_conversion(decorator, names):
    """True for `@do_not_convert` (any name of it, called or not), and for a decorator
    called with `autograph=False` (`@tf.function(autograph=False)`)."""
    if isinstance(decorator, gast.Call):
        if any(k.arg == "autograph" and isinstance(k.value, gast.Constant)
               and not k.value.value for k in decorator.keywords):
            return True
        decorator = decorator.func
    return _is_do_not_convert(decorator, names)


def _not_converted_names(module, names):
    """Names of functions that code outside functions wraps without conversion:
    `do_not_convert(f)`, `tf.function(f, autograph=False)`."""
    found = set()
    stack = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, gast.Call) and node.args and isinstance(node.args[0], gast.Name) \
                and _skips_conversion(node, names):
            found.add(node.args[0].id)
        stack.extend(child for child in gast.iter_child_nodes(node)
                     if not isinstance(child, (gast.FunctionDef, gast.AsyncFunctionDef,
                                               gast.Lambda)))
    return found


def _check_reserved_names(module, filename):
    """Raises ConversionError where the input uses a name that converted code defines."""
    reserved = _reserved_module_names()
    for node in gast.walk(module):
        names = []
        if isinstance(node, gast.Name):
            names = [node.id]
        elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            names = [node.name]
        elif isinstance(node, gast.alias):
            names = [node.asname or node.name.split(".")[0]]
        for name in names:
            if name in reserved:
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
