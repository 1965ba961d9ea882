"""The names converted code reserves (the `ag__` namespace, the generated functions, flags
and state variables) are spelled in runtime.reserved_names only: renaming them there renames
them in everything the converters generate."""

import ast
import linecache

import gast
import pytest

import autograph.tf as tf
from autograph import conversion, module_conversion
from autograph.errors import ConversionError
from autograph.explain import _symbol as name_in_the_report
from autograph.pyct import codegen, parsing
from runtime import reserved_names
from runtime.diagnostics import SideEffectWarning
from runtime.operators.undefined import UndefinedReturnValue

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


# -- the runtime and the tools recognise the renamed names --------------------------------------

def _rename_every_reserved_name(monkeypatch):
    for name, value in SPELLED.items():
        monkeypatch.setattr(reserved_names, name, "zq" + value)


_outer_values = []


def stores_into_an_outer_list(x):
    _outer_values.append(x * 2)
    return x


def test_a_renamed_converted_frame_is_still_told_from_the_user_s(monkeypatch):
    """runtime.side_effects finds the converted function's frames by their file and function
    names: an append of a tensor to a list defined outside still warns."""
    _rename_every_reserved_name(monkeypatch)
    with pytest.warns(SideEffectWarning, match="list defined outside the function"):
        tf.function(stores_into_an_outer_list)(tf.constant(1.0))
    _outer_values.clear()


class _Holder:
    def __init__(self):
        self.items = [1, 2, 3]


def names_an_attribute_s_list(n):
    h = _Holder()
    d = [0, 0, 0]
    if n > 0:
        d = h.items
    d[0] = 5
    return h.items[0]


def test_a_renamed_converted_frame_s_variables_are_still_searched_for_aliases(monkeypatch):
    """runtime.operators.aliases reads the variables of the converted function's frames: a
    list that another name (`h.items`) reaches is still refused, naming both."""
    _rename_every_reserved_name(monkeypatch)
    with pytest.raises(ValueError, match=r"'d' and 'h.items' name the same list or dict"):
        tf.function(names_an_attribute_s_list)(tf.constant(1))


def test_the_return_value_marker_and_the_report_name_the_renamed_variables(monkeypatch):
    _rename_every_reserved_name(monkeypatch)
    assert UndefinedReturnValue().symbol_name == "zq" + SPELLED["RETURN_VALUE"]
    for name, words in [("RETURN_FLAG", "(return flag)"), ("RETURN_VALUE", "(return value)"),
                        ("BREAK_FLAG", "(break flag)"), ("CONTINUE_FLAG", "(continue flag)")]:
        renamed = "zq" + SPELLED[name]
        assert name_in_the_report(renamed) == words
        assert name_in_the_report(renamed.rstrip("_") + "_2") == words  # made unique
    assert name_in_the_report(SPELLED["RETURN_FLAG"]) == SPELLED["RETURN_FLAG"]


def test_a_converted_module_binds_and_reserves_the_renamed_names(monkeypatch):
    """`autograph convert` writes its header and decorators with the reserved names, and
    refuses an input that uses them."""
    _rename_every_reserved_name(monkeypatch)
    source = "def f(x):\n    while x > 1:\n        x = x / 2\n    return x\n"
    converted = module_conversion.convert_source(source, "m.py")
    names = identifiers(converted)
    for name in ("NAMESPACE", "ARTIFACT_DECORATOR", "LINE_MAP_FUNCTION"):
        assert "zq" + SPELLED[name] in names, name
    old = sorted(n for n in names if any(n.startswith(v) for v in SPELLED.values()))
    assert not old, converted
    assert module_conversion.is_converted_module(gast.parse(converted))
    module_conversion.convert_source(SPELLED["LINE_MAP_FUNCTION"] + " = 1\n", "m.py")
    with pytest.raises(ConversionError, match="reserved for converted code"):
        module_conversion.convert_source("zq" + SPELLED["LINE_MAP_FUNCTION"] + " = 1\n",
                                         "m.py")
