"""autograph.pyct.parsing: functions, methods, nested functions and lambdas to gast trees that
remember their file and first line."""

import functools
import inspect
import linecache
import sys
import types

import gast
import pytest

import autograph
import autograph.tf as tf
from autograph.errors import ConversionError, SourceUnavailableError
from autograph.pyct import parsing


def user_line(info, node):
    """The text of the user's line that `node` came from."""
    return linecache.getline(info.filename, node.lineno + info.line_offset).strip()


def plain(x, y=2):
    z = x + y
    return z * 2


def decorate(f):
    return f


@decorate
@decorate
def decorated(x):
    return x - 1


class Holder:
    def method(self, x):
        if x > 0:
            x = x + 1
        return x

    class Inner:
        def deeper(self, x):
            return x * 3


def make_nested():
    def level_one(a):
        def level_two(b):
            total = a + b
            return total
        return level_two
    return level_one(1)


PAIR = (lambda x: x + 1, lambda x: x * 2)
MIXED_ARGS = (lambda x: x + 1, lambda y: y - 1)
MULTILINE_BODY = (lambda x:
                  x + 5)
FIRST_OF_LIST = [lambda x: x - 1,
                 lambda x: x / 2]


def call_with(*args, **kwargs):
    return args, kwargs


KEYWORD_LAMBDA = call_with(3,
                           fn=lambda x: x * 3)[1]["fn"]
TWO_KEYWORD_LAMBDAS = call_with(0,
                                f=lambda x: x + 1, g=lambda x: x * 2)[1]
STAGED_LAMBDA = tf.function(
    lambda x: x * 2 if x > 0 else -x)
SAME_TEXT_TWICE = (lambda x: x, lambda x: x)
NESTED_LAMBDAS = lambda x: (lambda x: x * 10)(x) + 1
ALL_PARAMETER_KINDS = (lambda a, /, b, *rest, c=1, **extra: a + b + c)
FOLDED_THE_SAME = (lambda x: x + (1 + 1), lambda x: x + 2)


def with_default(x, fn=lambda v: v * 2):
    return fn(x)


def negating(f):
    @functools.wraps(f)
    def wrapper(x):
        return f(-x)
    return wrapper


@negating
def tripled(x):
    return x * 3


async def coroutine(x):
    return x


# -- functions -----------------------------------------------------------------------------


def test_function_parses_to_a_function_def_with_its_body():
    node, info = parsing.parse_function(plain)
    assert isinstance(node, gast.FunctionDef)
    assert node.name == "plain"
    assert [a.id for a in node.args.args] == ["x", "y"]
    assert [type(s) for s in node.body] == [gast.Assign, gast.Return]
    assert info.filename == __file__


def test_function_lines_map_back_to_the_users_file():
    node, info = parsing.parse_function(plain)
    assert node.lineno + info.line_offset == plain.__code__.co_firstlineno
    assert user_line(info, node) == "def plain(x, y=2):"
    assert user_line(info, node.body[0]) == "z = x + y"
    assert user_line(info, node.body[1]) == "return z * 2"


def test_decorators_are_dropped_and_lines_still_match():
    node, info = parsing.parse_function(decorated)
    assert node.decorator_list == []
    assert user_line(info, node) == "def decorated(x):"
    assert user_line(info, node.body[0]) == "return x - 1"


def test_method_source_is_dedented_and_keeps_its_lines():
    node, info = parsing.parse_function(Holder.method)
    assert node.name == "method"
    assert node.col_offset == 0  # dedented: parses as a top-level def
    assert [a.id for a in node.args.args] == ["self", "x"]
    assert user_line(info, node.body[0]) == "if x > 0:"
    assert user_line(info, node.body[0].body[0]) == "x = x + 1"


def test_bound_method_parses_like_its_function():
    node, info = parsing.parse_function(Holder().method)
    assert node.name == "method"
    assert user_line(info, node.body[1]) == "return x"


def test_method_of_a_nested_class_is_dedented_twice():
    node, info = parsing.parse_function(Holder.Inner.deeper)
    assert node.name == "deeper"
    assert user_line(info, node.body[0]) == "return x * 3"


def test_nested_function_is_parsed_alone_with_its_own_lines():
    inner = make_nested()
    node, info = parsing.parse_function(inner)
    assert node.name == "level_two"
    assert [a.id for a in node.args.args] == ["b"]
    assert user_line(info, node.body[0]) == "total = a + b"
    assert node.lineno + info.line_offset == inner.__code__.co_firstlineno


def test_function_defined_inside_a_test_is_parsed():
    def local(v):
        while v > 10:
            v = v // 2
        return v

    node, info = parsing.parse_function(local)
    assert isinstance(node.body[0], gast.While)
    assert user_line(info, node.body[0].body[0]) == "v = v // 2"


# -- lambdas -----------------------------------------------------------------------------------


def _lambda_expression(node):
    assert node.name == "lambda__"
    assert len(node.body) == 1 and isinstance(node.body[0], gast.Return)
    return node.body[0].value


def test_lambda_becomes_a_function_returning_its_expression():
    node, info = parsing.parse_function(PAIR[0])
    body = _lambda_expression(node)
    assert isinstance(body, gast.BinOp) and isinstance(body.op, gast.Add)
    assert [a.id for a in node.args.args] == ["x"]
    assert user_line(info, node.body[0]).startswith("PAIR = (lambda x: x + 1")


@pytest.mark.parametrize("index, op", [(0, gast.Add), (1, gast.Mult)])
def test_several_lambdas_on_one_line_are_told_apart(index, op):
    node, _ = parsing.parse_function(PAIR[index])
    assert isinstance(_lambda_expression(node).op, op)


def test_lambdas_on_one_line_with_different_arguments():
    node, _ = parsing.parse_function(MIXED_ARGS[1])
    body = _lambda_expression(node)
    assert [a.id for a in node.args.args] == ["y"]
    assert isinstance(body.op, gast.Sub)


def test_lambda_with_a_body_on_the_next_line():
    node, info = parsing.parse_function(MULTILINE_BODY)
    body = _lambda_expression(node)
    assert isinstance(body.op, gast.Add) and body.right.value == 5
    assert user_line(info, body) == "x + 5)"


def test_lambda_on_the_first_line_of_a_multiline_list():
    node, _ = parsing.parse_function(FIRST_OF_LIST[0])
    assert isinstance(_lambda_expression(node).op, gast.Sub)


def test_lambda_inside_a_function_body():
    scale = 4
    fn = (lambda v: v * scale)
    node, info = parsing.parse_function(fn)
    assert isinstance(_lambda_expression(node).op, gast.Mult)
    assert user_line(info, node.body[0]) == "fn = (lambda v: v * scale)"


def test_lambda_on_a_continuation_line_of_a_list():
    node, _ = parsing.parse_function(FIRST_OF_LIST[1])
    assert isinstance(_lambda_expression(node).op, gast.Div)


def test_lambda_as_keyword_argument_on_a_continuation_line():
    node, _ = parsing.parse_function(KEYWORD_LAMBDA)
    assert isinstance(_lambda_expression(node).op, gast.Mult)


def test_lambda_on_a_continuation_line_keeps_the_users_lines():
    node, info = parsing.parse_function(FIRST_OF_LIST[1])
    assert user_line(info, node.body[0]) == "lambda x: x / 2]"
    assert "return x / 2" in autograph.to_code(FIRST_OF_LIST[1])


@pytest.mark.parametrize("name, op", [("f", gast.Add), ("g", gast.Mult)])
def test_several_lambdas_on_a_continuation_line_are_told_apart(name, op):
    node, info = parsing.parse_function(TWO_KEYWORD_LAMBDAS[name])
    assert isinstance(_lambda_expression(node).op, op)
    assert user_line(info, node.body[0]) == "f=lambda x: x + 1, g=lambda x: x * 2)[1]"


def test_lambda_given_to_tf_function_on_its_own_line_is_converted_and_staged():
    node, _ = parsing.parse_function(STAGED_LAMBDA.python_function)
    assert isinstance(_lambda_expression(node), gast.IfExp)
    assert "ag__.if_exp(" in autograph.to_code(STAGED_LAMBDA)
    assert STAGED_LAMBDA(tf.constant(-3)).numpy() == 3
    assert STAGED_LAMBDA(tf.constant(4)).numpy() == 8


def test_lambda_in_a_default_argument():
    node, info = parsing.parse_function(with_default.__defaults__[0])
    assert [a.id for a in node.args.args] == ["v"]
    assert isinstance(_lambda_expression(node).op, gast.Mult)
    assert user_line(info, node.body[0]) == "def with_default(x, fn=lambda v: v * 2):"
    assert autograph.function(with_default)(tf.constant(5)).numpy() == 10


def test_inner_and_outer_of_nested_lambdas_are_told_apart():
    inner_code = next(c for c in NESTED_LAMBDAS.__code__.co_consts
                      if isinstance(c, types.CodeType))
    inner = types.FunctionType(inner_code, globals())
    outer_node, _ = parsing.parse_function(NESTED_LAMBDAS)
    inner_node, _ = parsing.parse_function(inner)
    assert isinstance(_lambda_expression(outer_node).op, gast.Add)
    assert isinstance(_lambda_expression(inner_node).op, gast.Mult)
    assert inner_node.col_offset > outer_node.col_offset


def test_lambda_with_every_kind_of_parameter():
    node, _ = parsing.parse_function(ALL_PARAMETER_KINDS)
    args = node.args
    assert [a.id for a in args.posonlyargs + args.args + args.kwonlyargs] == ["a", "b", "c"]
    assert (args.vararg.id, args.kwarg.id) == ("rest", "extra")
    assert autograph.to_graph(ALL_PARAMETER_KINDS)(1, 2, c=3) == 6


def make_closure_beside_a_global():
    x_scale = 3
    return (lambda v: v * x_scale, lambda v: v * X_SCALE)


X_SCALE = 5


@pytest.fixture
def without_columns(monkeypatch):
    """Lambdas told apart as before Python 3.11, where code records no columns."""
    monkeypatch.setattr(parsing, "_by_origin", parsing._by_compiled_code)


@pytest.mark.parametrize("fn, op", [(PAIR[0], gast.Add), (PAIR[1], gast.Mult),
                                    (TWO_KEYWORD_LAMBDAS["g"], gast.Mult),
                                    (FIRST_OF_LIST[1], gast.Div)])
def test_without_columns_lambdas_on_one_line_are_told_apart_by_their_code(
        without_columns, fn, op):
    node, _ = parsing.parse_function(fn)
    assert isinstance(_lambda_expression(node).op, op)


def test_without_columns_a_closure_is_told_apart_from_the_same_text_reading_a_global(
        without_columns):
    local, global_ = make_closure_beside_a_global()
    assert autograph.to_graph(local)(2) == 6
    assert autograph.to_graph(global_)(2) == 10
    assert "x_scale" in autograph.to_code(local) and "X_SCALE" in autograph.to_code(global_)


def test_without_columns_inner_and_outer_of_nested_lambdas_are_told_apart(without_columns):
    inner_code = next(c for c in NESTED_LAMBDAS.__code__.co_consts
                      if isinstance(c, types.CodeType))
    outer_node, _ = parsing.parse_function(NESTED_LAMBDAS)
    inner_node, _ = parsing.parse_function(types.FunctionType(inner_code, globals()))
    assert isinstance(_lambda_expression(outer_node).op, gast.Add)
    assert isinstance(_lambda_expression(inner_node).op, gast.Mult)


def test_without_columns_lambdas_with_the_same_text_convert_alike(without_columns):
    assert [autograph.to_graph(f)(4) for f in SAME_TEXT_TWICE] == [4, 4]


def test_without_columns_lambdas_that_compile_alike_are_refused_naming_the_line(
        without_columns):
    line = FOLDED_THE_SAME[1].__code__.co_firstlineno
    with pytest.raises(ConversionError, match="which lambda on %s:%d" % (__file__, line)):
        parsing.parse_function(FOLDED_THE_SAME[1])


def test_lambdas_that_compile_alike_are_told_apart_where_code_has_columns():
    if not hasattr(FOLDED_THE_SAME[0].__code__, "co_positions"):
        pytest.skip("columns of code need co_positions (Python 3.11+)")
    first, _ = parsing.parse_function(FOLDED_THE_SAME[0])
    second, _ = parsing.parse_function(FOLDED_THE_SAME[1])
    assert isinstance(_lambda_expression(first).right, gast.BinOp)
    assert isinstance(_lambda_expression(second).right, gast.Constant)


@pytest.mark.skipif(sys.version_info < (3, 11), reason="columns of code need co_positions")
def test_lambdas_with_the_same_text_on_one_line_are_told_apart_by_column():
    first, _ = parsing.parse_function(SAME_TEXT_TWICE[0])
    second, _ = parsing.parse_function(SAME_TEXT_TWICE[1])
    assert first.col_offset < second.col_offset


def test_lambda_in_a_file_that_does_not_parse_as_a_whole():
    # An IPython cell with a magic line: only the lines around the lambda parse.
    filename = "<cell with a magic %d>" % id(test_lambda_in_a_file_that_does_not_parse_as_a_whole)
    text = "def helper(v):\n    return v\n\nfs = [lambda x: x - 1,\n      lambda x: x / 2]\n"
    scope = {}
    exec(compile(text, filename, "exec"), scope)  # noqa: S102 - the cell being run
    lines = text.splitlines(True) + ["%timeit helper(1)\n"]
    linecache.cache[filename] = (len("".join(lines)), None, lines, filename)
    try:
        node, info = parsing.parse_function(scope["fs"][1])
        assert isinstance(_lambda_expression(node).op, gast.Div)
        assert user_line(info, node.body[0]) == "lambda x: x / 2]"
    finally:
        del linecache.cache[filename]


# -- functools.wraps ---------------------------------------------------------------------------


def test_wrapper_is_parsed_from_its_own_code_not_the_wrapped_function():
    assert tripled.__wrapped__ is not None and tripled.__name__ == "tripled"
    node, info = parsing.parse_function(tripled)
    assert node.name == "wrapper"
    assert user_line(info, node.body[0]) == "return f(-x)"


# -- failures ----------------------------------------------------------------------------------


def test_function_without_source_raises_source_unavailable():
    namespace = {}
    exec("def generated(x):\n    return x\n", namespace)  # noqa: S102 - no source on purpose
    with pytest.raises(SourceUnavailableError, match="generated"):
        parsing.parse_function(namespace["generated"])
    assert issubclass(SourceUnavailableError, ConversionError)


def test_a_function_whose_place_holds_another_text_has_no_source():
    # `python -c` registers its command as '<string>' on Python 3.13: a function exec'd from
    # another text under that name must not be converted from the command's text
    filename = "<shared name of test_parsing>"
    linecache.cache[filename] = (20, None, ["import sys; print(sys.argv)\n"], filename)
    try:
        namespace = {}
        exec(compile("def generated(x):\n    return x\n", filename, "exec"), namespace)
        with pytest.raises(SourceUnavailableError, match="the text at .* is not its definition"):
            parsing.parse_function(namespace["generated"])
        linecache.cache[filename] = (20, None, ["def other(x):\n", "    return -x\n"], filename)
        with pytest.raises(SourceUnavailableError, match="not its definition"):
            parsing.parse_function(namespace["generated"])
    finally:
        linecache.cache.pop(filename, None)


def test_builtin_has_no_source():
    with pytest.raises(SourceUnavailableError):
        parsing.parse_function(len)


def test_async_function_is_rejected_naming_file_and_line():
    line = inspect.getsourcelines(coroutine)[1]
    with pytest.raises(ConversionError, match="async") as info:
        parsing.parse_function(coroutine)
    assert "%s:%d" % (__file__, line) in str(info.value)
    assert isinstance(info.value, NotImplementedError)


def test_missing_source_is_a_conversion_error_but_no_unsupported_construct():
    assert not issubclass(SourceUnavailableError, NotImplementedError)


def test_to_code_on_a_lambda_shows_the_lambda_body():
    code = autograph.to_code(PAIR[1])
    assert "return x * 2" in code
    assert "x + 1" not in code


def test_parse_source_keeps_filename_and_offset():
    module, info = parsing.parse_source("def f(a):\n    return a\n", "snippet.py", 10)
    assert isinstance(module, gast.Module)
    assert module.body[0].name == "f"
    assert (info.filename, info.line_offset) == ("snippet.py", 10)
    assert module.body[0].body[0].lineno + info.line_offset == 12
