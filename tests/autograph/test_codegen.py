"""autograph.pyct.codegen: gast -> readable source -> a live function registered with linecache,
with a map from generated lines back to the user's lines, and closures rebound (not copied)."""

import ast
import inspect
import linecache
import sys
import traceback

import gast
import pytest
from source_lines import line_of
from traceback_checks import printed

import autograph.tf as tf
from autograph import conversion
from autograph.pyct import codegen, parsing, translation
from runtime import errors as runtime_errors

GLOBAL_SCALE = 3


def halve(x):
    y = x + 1
    while y > 0:
        y = y - 2
    return y


# -- source ----------------------------------------------------------------------------------


def test_to_source_is_readable_python_that_parses_back():
    module, _ = parsing.parse_source("def f(a, b):\n    if a:\n        return b\n    return -b\n")
    source = codegen.to_source(module)
    assert source == "def f(a, b):\n    if a:\n        return b\n    return -b\n"
    ast.parse(source)


SPELLED_ALIKE_ON_EVERY_PYTHON = """\
a, b = t
(a, b), c = t
x, = t
a, *b = t
() = t
x = (a, b)
for i, (j, k) in items:
    f = lambda: 0
    g = lambda v, *w: (v, w)
h = [(k, v) for k, v in d]
y = t[1, 2]
"""


def test_generated_code_is_spelled_as_python_3_11_spells_it_on_every_version():
    # 3.10's ast.unparse writes `lambda : 0` and `(a, b) = t`.
    source = codegen.to_source(gast.parse(SPELLED_ALIKE_ON_EVERY_PYTHON))
    assert source == SPELLED_ALIKE_ON_EVERY_PYTHON
    assert ast.dump(ast.parse(source)) == ast.dump(ast.parse(SPELLED_ALIKE_ON_EVERY_PYTHON))


def test_to_ast_fills_missing_locations_of_generated_nodes():
    call = gast.Call(func=gast.Name(id="g", ctx=gast.Load(), annotation=None, type_comment=None),
                     args=[], keywords=[])
    module = gast.Module(body=[gast.Expr(value=call)], type_ignores=[])
    tree = codegen.to_ast(module)
    for node in ast.walk(tree):
        if "lineno" in node._attributes:
            assert isinstance(node.lineno, int)
    compile(tree, "<test>", "exec")


# -- linecache and the line map ------------------------------------------------------------------


_EVERY_KIND_OF_NODE = """
import os.path as p, sys
from . import x as y
@decorator(1)
async def f(a, /, b: int = 2, *args, c, d=3, **kwargs) -> 'r':
    global g
    x = y = [1, 2.5, 'a', b'b', None, ...]
    x += {k: v for k, v in kwargs.items() if k}
    del y
    for i, (j, k) in enumerate(args):
        if i: continue
        elif j: break
        else: pass
    else:
        pass
    while (n := len(x)) > 3:
        x = x[1:-1:2]
    try:
        raise ValueError('e') from None
    except (ValueError, TypeError) as e:
        print(f"{e!r:>10}")
    except Exception:
        pass
    finally:
        assert x, 'msg'
    with open(a) as fa, open(b):
        yield from (q async for q in fa)
    async with c as cc:
        await cc
    lam = lambda u, *w, z=1: u if z else -u
    s = {1, 2} | {e for e in x} & {*x}
    t = not a and b or c is not d in x
    return lam(*args, **kwargs)[0].attr @ m
class C(B, metaclass=M):
    z: int = 1
    def m(self):
        nonlocal_value = [e for e in range(3) for _ in 'ab']
        match nonlocal_value:
            case [1, *rest] | {'k': 2, **rest}:
                pass
            case C(a=1) if rest:
                pass
            case _:
                pass
"""


def test_gast_translation_gives_gasts_own_trees_both_ways():
    tree = ast.parse(_EVERY_KIND_OF_NODE)
    as_gast = translation.ast_to_gast(tree)
    assert ast.dump(as_gast, include_attributes=True) == ast.dump(
        gast.ast_to_gast(tree), include_attributes=True)
    back = translation.gast_to_ast(as_gast)
    assert type(back) is ast.Module and type(as_gast) is gast.Module
    assert ast.dump(back, include_attributes=True) == ast.dump(
        gast.gast_to_ast(as_gast), include_attributes=True)
    assert ast.unparse(back) == ast.unparse(tree)


def test_converted_code_is_registered_with_linecache():
    converted = conversion.convert(halve)
    filename = converted.__code__.co_filename
    assert filename.startswith("<ag__ converted") and "halve" in filename
    source = "".join(linecache.getlines(filename))
    assert "def ag__halve(x):" in source
    assert "ag__.while_stmt(loop_test, loop_body, get_state, set_state, ('y',))" in source
    compile(source, filename, "exec")


def test_inspect_reads_the_converted_source():
    converted = conversion.convert(halve)
    source = inspect.getsource(converted)
    assert source.lstrip().startswith("def ag__halve(x):")


def test_every_user_statement_line_maps_back_to_its_user_line():
    converted = conversion.convert(halve)
    filename = converted.__code__.co_filename
    generated = linecache.getlines(filename)
    for text in ("y = x + 1", "y = y - 2", "return y"):
        (gen_line,) = [i + 1 for i, line in enumerate(generated) if line.strip() == text]
        user_file, user_line = runtime_errors.translate_location(filename, gen_line)
        assert user_file == __file__
        assert user_line == line_of(halve, text)
    # The generated loop machinery maps to the user's `while` line.
    (call_line,) = [i + 1 for i, line in enumerate(generated) if "ag__.while_stmt" in line]
    assert runtime_errors.translate_location(filename, call_line) == (
        __file__, line_of(halve, "while y > 0"))


def test_unrelated_files_are_not_translated():
    assert runtime_errors.translate_location(__file__, 7) == (__file__, 7)


def test_each_conversion_gets_its_own_file_name():
    def first(x):
        return x

    def second(x):
        return x

    a = conversion.convert(first).__code__.co_filename
    b = conversion.convert(second).__code__.co_filename
    assert a != b
    assert linecache.getlines(a) != linecache.getlines(b)


class Shape:
    def area(self, w, h):
        if w > h:
            w, h = h, w
        return w * h


def test_method_lines_map_back_through_the_dedent():
    converted = conversion.convert(Shape().area)
    filename = converted.__code__.co_filename
    generated = linecache.getlines(filename)
    (gen_line,) = [i + 1 for i, line in enumerate(generated) if "return w * h" in line]
    assert runtime_errors.translate_location(filename, gen_line) == (
        __file__, line_of(Shape.area, "return w * h"))


def python_error_inside(x):
    total = 0
    for i in range(x):
        total += 10 // (i - 2)
    return total


def test_unfiltered_traceback_through_converted_code_shows_the_generated_source(monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_TRACEBACK_FILTERING", "off")
    converted = conversion.convert(python_error_inside)
    with pytest.raises(ZeroDivisionError) as info:
        converted(5)
    text = "".join(traceback.format_exception(info.type, info.value, info.tb))
    assert 'File "%s"' % converted.__code__.co_filename in text
    assert "total += 10 // (i - 2)" in text


def test_filtered_traceback_through_converted_code_shows_the_users_file_and_line():
    converted = conversion.convert(python_error_inside)
    with pytest.raises(ZeroDivisionError) as info:
        converted(5)
    text = printed(info.value)
    assert "<ag__" not in text
    assert 'File "%s", line %d, in python_error_inside\n    total += 10 // (i - 2)' % (
        __file__, line_of(python_error_inside, "total += 10")) in text


# -- errors name the user's line -----------------------------------------------------------------


def reshape_in_loop(x):
    s = tf.constant([1.0, 2.0, 3.0])
    for i in tf.range(x):
        s = tf.reshape(s, [7])
    return s


def test_error_while_tracing_converted_code_names_the_user_line():
    with pytest.raises(ValueError) as info:
        tf.function(reshape_in_loop)(tf.constant(2))
    message = str(info.value)
    assert "in user code:" in message
    assert "%s:%d" % (__file__, line_of(reshape_in_loop, "tf.reshape")) in message
    assert "s = tf.reshape(s, [7])" in message
    assert "<ag__" not in message


def divide_in_loop(x):
    for i in tf.range(x):
        x = x // (i - i)
    return x


def test_error_while_running_the_graph_names_the_user_line():
    function = tf.function(divide_in_loop)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        function(tf.constant(2))
    message = str(info.value)
    assert "%s:%d" % (__file__, line_of(divide_in_loop, "x // (i - i)")) in message
    assert "<ag__" not in message


def missing_key(x):
    values = {"a": x}
    return values["c"]


def test_python_error_while_tracing_names_the_user_line():
    with pytest.raises(KeyError) as info:
        tf.function(missing_key)(tf.constant(1))
    where = "%s:%d" % (__file__, line_of(missing_key, 'values["c"]'))
    assert where in "\n".join(info.value.__notes__)
    last = info.tb
    while last.tb_next is not None:
        last = last.tb_next
    assert not last.tb_frame.f_code.co_filename.startswith("<ag__")


def test_error_message_lists_the_user_frames_of_nested_converted_calls():
    def inner(v):
        if v > 100:
            v = v - 1
        return v.no_such_attribute

    def outer(x):
        return inner(x) + 1

    with pytest.raises(AttributeError) as info:
        tf.function(outer)(tf.constant(1))
    message = "\n".join([str(info.value)] + info.value.__notes__)
    assert message.count("in user code:") == 1
    assert message.index("return inner(x) + 1") < message.index("return v.no_such_attribute")


# -- binding: globals, closures, defaults ---------------------------------------------------------


def uses_global(x):
    if x > 0:
        x = x * GLOBAL_SCALE
    return x


def test_converted_function_shares_the_originals_globals(monkeypatch):
    converted = conversion.convert(uses_global)
    assert converted.__globals__ is uses_global.__globals__
    assert converted(2) == 6
    monkeypatch.setattr(sys.modules[__name__], "GLOBAL_SCALE", 10)
    assert converted(2) == 20


def test_closure_cells_are_rebound_not_copied():
    factor = 2

    def scaled(x):
        if x > 0:
            x = x * factor
        return x

    converted = conversion.convert(scaled)
    assert converted(5) == 10
    factor = 7  # read through the shared cell
    assert converted(5) == 35
    original_cells = dict(zip(scaled.__code__.co_freevars, scaled.__closure__))
    converted_cells = dict(zip(converted.__code__.co_freevars, converted.__closure__))
    assert converted_cells["factor"] is original_cells["factor"]


class Unknown:
    pass


def annotated(x: Unknown, y: "NotDefinedAnywhere" = GLOBAL_SCALE, *, z: int = 4) -> Unknown:  # noqa: F821
    """Doc of annotated."""
    if x > 0:
        x = x + y + z
    return x


def test_defaults_docstring_and_module_survive_and_annotations_are_not_evaluated():
    converted = conversion.convert(annotated)
    assert converted.__defaults__ == (GLOBAL_SCALE,)
    assert converted.__kwdefaults__ == {"z": 4}
    assert converted(1) == 1 + GLOBAL_SCALE + 4
    assert converted(1, 10, z=100) == 111
    assert converted.__doc__ == "Doc of annotated."
    assert converted.__module__ == __name__
    assert converted.__wrapped_original__ is annotated
    assert "def ag__annotated" in converted.__autograph_source__


def test_load_binds_one_code_object_to_several_function_objects():
    def make(k):
        def add(x):
            if x > 0:
                x = x + k
            return x
        return add

    module, info = parsing.parse_function(make(0))
    converted_node = conversion.convert_node(module, info, "add")
    loaded = codegen.load(converted_node, info, ("k",))
    from autograph import namespace
    one = loaded.bind(make(1), namespace.ag__)
    ten = loaded.bind(make(10), namespace.ag__)
    assert one.__code__ is ten.__code__ is loaded.code
    assert (one(5), ten(5), one(-5)) == (6, 15, -5)


class CodeError(Exception):
    pass


def raises_own_error(x):
    if x > 100:
        x = 1
    raise CodeError("code123")


def test_users_own_exception_keeps_its_arguments():
    with pytest.raises(CodeError) as info:
        conversion.convert(raises_own_error)(1)
    assert info.value.args == ("code123",)
    assert "raise CodeError" in "\n".join(info.value.__notes__)


def recurse(n):
    if n > 0:
        return recurse(n - 1)
    return {}["missing"]


def test_deep_recursion_lists_a_bounded_number_of_frames():
    with pytest.raises(KeyError) as info:
        conversion.convert(recurse)(40)
    notes = "\n".join(info.value.__notes__)
    assert "more frames" in notes
    assert 0 < notes.count("in recurse") <= 12


def outer_with_nested_function(x):
    def nested(v):
        if v > 0:
            v = v + 1
        return v[5]
    return nested(x)


def test_errors_in_nested_converted_functions_name_the_users_file():
    with pytest.raises(ValueError) as info:
        tf.function(outer_with_nested_function)(tf.constant(3))
    where = "%s:%d" % (__file__, line_of(outer_with_nested_function, "return v[5]"))
    assert where in str(info.value)
    assert "<ag__" not in str(info.value)
