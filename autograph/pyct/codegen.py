"""gast tree -> Python source -> live function, with a map back to the user's lines.

The converted source is registered with `linecache` under a name like
`<ag__ converted f#3>` (no temp files), so tracebacks and pdb show it; a line map sends
every generated line to the user's file and line (`translate_location`, which
autograph.conversion gives to `runtime.errors` to name the user's code in error messages).

Closures are rebound, not copied: the converted function gets the original's globals dict
and closure cells, so it sees the same (live) outer variables as the original.
"""

import ast
import itertools
import linecache
import types
from typing import Any

from autograph.pyct import translation, traversal
from autograph.pyct.unparsing import unparse
from runtime import reserved_names

_counter = itertools.count(1)
# generated filename -> (user filename, {generated line: user line} or _PendingLines)
_LINE_MAPS: dict = {}


def translate_location(filename, lineno):
    """(user file, user line) of a line of generated code, or None for other files."""
    found = _LINE_MAPS.get(filename)
    if found is None:
        return None
    user_file, lines = found
    return user_file, lines.get(lineno, lineno)


def to_ast(node):
    """The stdlib `ast` tree of a gast tree, with every node given a line."""
    tree = translation.gast_to_ast(node)
    _fill_locations(tree)
    return tree


def _fill_locations(tree):
    def visit(node, line):
        if hasattr(node, "lineno") and getattr(node, "lineno", None) is not None:
            line = node.lineno
        elif "lineno" in getattr(node, "_attributes", ()):
            node.lineno = line
            node.col_offset = 0
        if "lineno" in getattr(node, "_attributes", ()):
            if getattr(node, "end_lineno", None) is None or node.end_lineno < node.lineno:
                node.end_lineno = node.lineno
            if getattr(node, "end_col_offset", None) is None:
                node.end_col_offset = 0
        for child in traversal.children(node):
            visit(child, line)
    visit(tree, 1)


def to_source(node):
    """Readable source for a gast tree."""
    return unparse(to_ast(node)) + "\n"


def to_source_with_lines(node):
    """(readable source for a gast tree, {line of that source: line of `node`'s nodes})."""
    tree = to_ast(node)
    source = unparse(tree) + "\n"
    return source, _line_map(tree, source, 0, 0)


def register_line_map(generated_filename, user_filename, lines):
    """Makes locations in `generated_filename` translate to `user_filename` and the line
    `lines` ({generated line: user line}) gives: for files written by `autograph convert`."""
    _LINE_MAPS[generated_filename] = (user_filename, dict(lines))


def _line_map(tree, source, line_offset, first_line):
    """{generated line: user line}, by walking the generated and reparsed trees together."""
    reparsed = ast.parse(source).body[0]
    mapping = {}
    for original, again in zip(ast.walk(tree), ast.walk(reparsed)):
        if type(original) is not type(again):
            break
        line = getattr(original, "lineno", None)
        gen_line = getattr(again, "lineno", None)
        if line is not None and gen_line is not None and gen_line + first_line not in mapping:
            mapping[gen_line + first_line] = line + line_offset
    return mapping


class Loaded:
    """A converted function's code, ready to be bound to any function object of the original."""

    def __init__(self, code, source, filename):
        self.code = code
        self.source = source
        self.filename = filename

    def bind(self, original, ag_module):
        """The converted function for `original`: its globals, closure cells and defaults."""
        cells = {}
        if original.__closure__:
            cells = dict(zip(original.__code__.co_freevars, original.__closure__))
        closure = []
        for name in self.code.co_freevars:
            if name == reserved_names.NAMESPACE:
                closure.append(types.CellType(ag_module))
            elif name in cells:
                closure.append(cells[name])
            else:
                closure.append(types.CellType())
        func: Any = types.FunctionType(self.code, original.__globals__, self.code.co_name,
                                  original.__defaults__, tuple(closure))
        func.__kwdefaults__ = original.__kwdefaults__
        func.__doc__ = original.__doc__
        func.__module__ = original.__module__
        func.__autograph_source__ = self.source
        func.__wrapped_original__ = original
        return func


def _has_evaluated_parts(tree: ast.FunctionDef) -> bool:
    """True when `tree` has defaults or annotations (see _without_evaluated_parts)."""
    args = tree.args
    annotated = any(arg is not None and arg.annotation is not None
                    for arg in args.posonlyargs + args.args + args.kwonlyargs +
                    [args.vararg, args.kwarg])
    return bool(args.defaults) or any(d is not None for d in args.kw_defaults) or \
        annotated or tree.returns is not None


def _without_evaluated_parts(tree: ast.FunctionDef) -> ast.FunctionDef:
    """Defaults and annotations are evaluated where the def runs (our factory, without the
    user's globals): drop them; the original's defaults are attached when binding."""
    args = tree.args
    args.defaults = [ast.Constant(value=None) for _ in args.defaults]
    args.kw_defaults = [None if d is None else ast.Constant(value=None)
                        for d in args.kw_defaults]
    for arg in args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]:
        if arg is not None:
            arg.annotation = None
    tree.returns = None
    _fill_locations(tree)
    return tree


class _PendingLines:
    """The line map of one loaded function, made on its first use: only a traceback, an
    error message or a warning from the converted code reads it, and making it parses the
    generated source again (a fifth of a conversion)."""

    def __init__(self, tree: ast.AST, source: str, line_offset: int) -> None:
        self._inputs: "tuple[ast.AST, str, int] | None" = (tree, source, line_offset)
        self._lines: "dict[int, int]" = {}

    def get(self, line: int, default: "int | None" = None) -> "int | None":
        """The user's line of generated line `line`, or `default`."""
        if self._inputs is not None:
            tree, source, line_offset = self._inputs
            self._lines = _line_map(tree, source, line_offset, 2)
            self._inputs = None  # the tree and source are no longer kept
        return self._lines.get(line, default)


def load(function_node, source_info, freevars):
    """Compiles converted `function_node`; returns a `Loaded` to bind per function object."""
    tree = to_ast(function_node)
    display_source = unparse(tree) + "\n"
    if _has_evaluated_parts(tree):
        tree = _without_evaluated_parts(tree)
        source = unparse(tree) + "\n"
    else:
        source = display_source  # the same tree: the same text
    name = function_node.name
    filename = reserved_names.FILE_NAME % (name, next(_counter))
    free = sorted(set(freevars) | {reserved_names.NAMESPACE})
    header = "def %s():\n    %s = None\n" % (reserved_names.FACTORY, " = ".join(free))
    body = "".join("    " + line if line.strip() else line
                   for line in source.splitlines(True))
    module_source = header + body + "    return %s\n" % name
    _LINE_MAPS[filename] = (source_info.filename,
                            _PendingLines(tree, source, source_info.line_offset))
    code = compile(module_source, filename, "exec")
    linecache.cache[filename] = (len(module_source), None, module_source.splitlines(True),
                                 filename)
    namespace: dict = {}
    exec(code, namespace)  # noqa: S102 - our own generated source
    inner = namespace[reserved_names.FACTORY]()
    return Loaded(inner.__code__, display_source, filename)
