"""Source of functions, methods, nested functions and lambdas, parsed into gast trees.

The parsed function keeps where it came from (file and first line), so that generated code
can be mapped back to the user's lines.
"""

import ast
import copy
import functools
import inspect
import textwrap
import types

import gast

from autograph.pyct import translation
from autograph.pyct.errors import ConversionError, SourceUnavailableError, UnsupportedConstructError


class SourceInfo:
    """Where a parsed function came from: `filename`, and `line_offset` to add to node lines."""

    __slots__ = ("filename", "line_offset", "source")

    def __init__(self, filename, line_offset, source):
        self.filename = filename
        self.line_offset = line_offset
        self.source = source


def parse_source(source, filename="<string>", line_offset=0):
    """Parses module source text into a gast Module."""
    return (translation.parse(source, filename=filename),
            SourceInfo(filename, line_offset, source))


def parse_function(func):
    """Returns (gast FunctionDef, SourceInfo) for `func`; lambdas come back as a FunctionDef
    named after the lambda whose body returns the lambda's expression.

    The source is found from `func`'s own code object, never by following `__wrapped__`:
    the function converted is the one that runs (a `functools.wraps` wrapper, not the
    function it wraps)."""
    code = getattr(func, "__code__", None)
    name = getattr(code, "co_qualname", None) or getattr(func, "__qualname__", func)
    if not isinstance(code, types.CodeType):
        raise SourceUnavailableError("cannot convert %s: its source code is not available "
                                     "(it is not a Python function)" % (name,))
    try:
        filename = inspect.getsourcefile(code) or inspect.getfile(code)
        if code.co_name == "<lambda>":
            lines, _ = inspect.findsource(code)
        else:
            lines, first_line = inspect.getsourcelines(code)
    except (OSError, TypeError) as e:
        raise SourceUnavailableError("cannot convert %s: its source code is not available (%s)"
                                     % (name, e)) from None
    if code.co_name == "<lambda>":
        return _parse_lambda(code, lines, filename)
    source = textwrap.dedent("".join(lines))
    try:
        module = translation.parse(source)
    except SyntaxError as e:
        raise ConversionError("cannot parse the source of %s (%s:%d): %s"
                              % (name, filename, first_line, e.msg)) from None
    node = module.body[0] if module.body else None
    if not isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)) or \
            node.name != code.co_name:
        # the lines at the function's place are another text: converting them would run
        # other code (a file edited since it was imported; a name that many texts share, as
        # '<string>' is for `python -c` and exec on Python 3.13)
        raise SourceUnavailableError(
            "cannot convert %s: its source code is not available (the text at %s:%d is not "
            "its definition: the file changed after it was loaded, or its name is shared)"
            % (name, filename, first_line))
    if isinstance(node, gast.AsyncFunctionDef):
        raise UnsupportedConstructError("%s:%d: async functions cannot be converted"
                                        % (filename, first_line + node.lineno - 1))
    node.decorator_list = []
    return node, SourceInfo(filename, first_line - 1, source)


# -- lambdas -----------------------------------------------------------------------------------
#
# The lines `inspect` gives for a lambda need not parse on their own (a lambda on the
# continuation line of a call or a list). So the whole file is parsed, and the lambda is
# found there: by its line (`co_firstlineno`), its parameters, and, when several lambdas
# remain, by where its instructions come from (`co_positions`, Python 3.11+) or, before
# 3.11, by compiling each one and comparing the result with the lambda's code. A file that
# does not parse as a whole (an IPython cell with magics) is searched in runs of lines
# around the lambda instead.

_AROUND = 30  # lines before and after a lambda that the fallback search looks at


@functools.lru_cache(maxsize=16)
def _parse_file(source):
    """The stdlib ast of a whole file's `source`, or None when it does not parse. Cached: a
    file often holds many lambdas."""
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def _trees_around(lines, line):
    """Trees of the runs of `lines` that start at or above `line` (1-based), end at or below
    it and parse, nearest first; node lines are the file's lines, columns are kept."""
    for start in range(line, max(line - _AROUND, 0), -1):
        first = lines[start - 1]
        prefix = "if 1:\n" if first[:1] in (" ", "\t") else ""  # an indented run: a block
        for end in range(line, min(line + _AROUND, len(lines)) + 1):
            try:
                tree = ast.parse(prefix + "".join(lines[start - 1:end]))
            except (SyntaxError, ValueError):
                continue
            yield ast.increment_lineno(tree, start - 1 - (1 if prefix else 0))


def _parameter_names(code):
    """Names of `code`'s parameters, in `co_varnames` order (positional, keyword-only,
    *args, **kwargs)."""
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & inspect.CO_VARARGS)
    count += bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return list(code.co_varnames[:count])


def _lambda_parameter_names(args):
    names = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return names


def _span(node):
    return (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)


def _by_positions(candidates, code):
    """The innermost candidate whose source span holds every instruction of `code` (none if
    no candidate does)."""
    spans = [((line, col), (end_line, end_col)) for line, end_line, col, end_col
             in code.co_positions()
             if None not in (line, end_line, col, end_col)
             and (line, col) != (end_line, end_col)]  # zero width: RESUME, RETURN_VALUE
    if not spans:
        return candidates
    matching = []
    for candidate in candidates:
        start, end = _span(candidate)
        if all(start <= first and last <= end for first, last in spans):
            matching.append(candidate)
    # Nested lambdas contain one another: the one compiled to `code` starts last.
    return [max(matching, key=lambda c: _span(c)[0])] if matching else []


def _code_key(code):
    """What compiling a lambda's text decides about its code object, recursively (nested
    lambdas and comprehensions are constants); lines and columns left out."""
    consts = []
    for i, const in enumerate(code.co_consts):
        if isinstance(const, types.CodeType):
            consts.append(_code_key(const))
        elif not (isinstance(const, str) and i and isinstance(code.co_consts[i - 1],
                                                              types.CodeType)):
            consts.append((type(const), const))
        # else: before 3.11, the qualified name of the function made from the code before;
        # it names the scope the lambda was compiled in, which recompiling changes.
    flags = code.co_flags & ~inspect.CO_NESTED  # recompiled lambdas are always nested
    return (code.co_code, tuple(consts), code.co_names, code.co_varnames, code.co_freevars,
            code.co_cellvars, flags, code.co_argcount, code.co_posonlyargcount,
            code.co_kwonlyargcount)


def _compiled_alone(candidate, freevars):
    """The code object of Lambda node `candidate`, compiled inside a function whose locals
    are `freevars`, so that the names it reads from enclosing scopes compile as they did."""
    assignments = "".join("    %s = None\n" % name for name in freevars)
    module = ast.parse("def outer():\n%s    return None\n" % assignments)
    outer, = module.body
    assert isinstance(outer, ast.FunctionDef) and isinstance(outer.body[-1], ast.Return)
    outer.body[-1].value = copy.deepcopy(candidate)
    outer_code = next(c for c in compile(module, "<lambda>", "exec").co_consts
                      if isinstance(c, types.CodeType))
    return next(c for c in outer_code.co_consts if isinstance(c, types.CodeType))


def _by_compiled_code(candidates, code):
    """The candidates that compile to the same instructions, constants and names as `code`:
    one when they are the same lambda text (any of them converts alike); all when none does
    (a name mangled in a class), which leaves it undecided."""
    key = _code_key(code)
    matching = []
    for candidate in candidates:
        try:
            same = _code_key(_compiled_alone(candidate, code.co_freevars)) == key
        except (SyntaxError, ValueError, TypeError):
            same = False
        if same:
            matching.append(candidate)
    if len({ast.dump(c) for c in matching}) == 1:
        return matching[:1]
    return matching or candidates


def _by_origin(candidates, code):
    """The candidates that `code` was compiled from: by instruction columns where the
    interpreter records them (3.11+), else by compiling each candidate again."""
    if hasattr(code, "co_positions"):
        return _by_positions(candidates, code)
    return _by_compiled_code(candidates, code)


def _lambdas_of(tree, code, check_origin):
    """The Lambda nodes of `tree` that may have compiled to `code`."""
    names = _parameter_names(code)
    candidates = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)
                  and n.lineno == code.co_firstlineno
                  and _lambda_parameter_names(n.args) == names]
    if check_origin or len(candidates) > 1:
        candidates = _by_origin(candidates, code)
    return candidates


def _parse_lambda(code, lines, filename):
    line = code.co_firstlineno
    tree = _parse_file("".join(lines))
    if tree is not None:
        candidates = _lambdas_of(tree, code, check_origin=False)
    else:  # only part of the file parses: a run of lines around the lambda that holds it
        candidates = next((found for around in _trees_around(lines, line)
                           for found in [_lambdas_of(around, code, check_origin=True)]
                           if found), [])
    if not candidates:
        raise ConversionError("cannot find the source of the lambda at %s:%d (did the file "
                              "change after it was imported?)" % (filename, line))
    if len(candidates) > 1:
        raise ConversionError("cannot tell which lambda on %s:%d to convert; define it with "
                              "`def` instead" % (filename, line))
    lam = translation.ast_to_gast(candidates[0])
    ret = gast.Return(value=lam.body)
    gast.copy_location(ret, lam.body)
    node = gast.FunctionDef(name="lambda__", args=lam.args, body=[ret], decorator_list=[],
                            returns=None, type_comment=None, type_params=[])
    gast.copy_location(node, lam)
    # Node lines are the file's own lines: no offset to add.
    return node, SourceInfo(filename, 0, "".join(lines))
