"""The names converted code reserves (the `ag__` namespace, the generated functions, flags
and state variables) are spelled in runtime.reserved_names only: renaming them there renames
them in everything the converters generate."""

import ast
import linecache

from autograph import conversion
from autograph.pyct import codegen, parsing
from runtime import reserved_names

SPELLED = {name: value for name, value in vars(reserved_names).items()
           if name.isupper() and isinstance(value, str)}


def every_construct(x, d, items, n):
    """if/else, while with break, for with continue, a return in a loop, try/finally with a
    jump, a composite carried as state, a container changed in place, match."""
    total = 0
    if x > 0:
        d["v"] = x
        items.pop()
    else:
        total = -x
    while x < n:
        x = x + 1
        if x > 10:
            break
    for i in range(n):
        if i % 2:
            continue
        try:
            if i > 3:
                return total
        finally:
            total = total + i
    match x:
        case 0:
            total = 1
        case _:
            total = 2
    return total + x


def identifiers(source):
    """The names `source` binds or reads (variables, functions, parameters; not attributes:
    the runtime's entry points, such as `ag__.match_subject`, are no generated names)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.add(node.name)
        elif isinstance(node, ast.arg):
            found.add(node.arg)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            found.update(node.names)
    return found


def converted_sources(function):
    node, info = parsing.parse_function(function)
    converted = conversion.convert_node(node, info, function.__name__)
    loaded = codegen.load(converted, info, ())
    return loaded.source, "".join(linecache.getlines(loaded.filename))


def test_every_reserved_name_of_generated_code_comes_from_reserved_names(monkeypatch):
    for name, value in SPELLED.items():
        monkeypatch.setattr(reserved_names, name, "zq" + value)
    for source in converted_sources(every_construct):
        found = identifiers(source)
        old = sorted(n for n in found if any(n.startswith(value) for value in SPELLED.values()))
        assert not old, "spelled outside runtime.reserved_names: %s\n%s" % (old, source)
        for name in ("NAMESPACE", "FUNCTION_SCOPE", "GET_STATE", "SET_STATE", "IF_BODY",
                     "ELSE_BODY", "LOOP_TEST", "LOOP_BODY", "LOOP_ITEM", "RETURN_FLAG",
                     "RETURN_VALUE", "BREAK_FLAG", "CONTINUE_FLAG",
                     "MATCH_SUBJECT", "STATE_VARIABLES"):
            assert "zq" + SPELLED[name] in found, name
    assert "zq" + SPELLED["FACTORY"] in identifiers(source)
