"""autograph.parsing: functions, methods, nested functions and lambdas to gast trees that
remember their file and first line."""

import inspect
import linecache

import gast
import pytest

import autograph
from autograph import parsing
from autograph.errors import ConversionError, SourceUnavailableError


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


@pytest.mark.xfail(strict=True, reason="BUG: a lambda on a continuation line that closes a "
                                         "bracket ('lambda x: x / 2]') cannot be parsed")
def test_lambda_on_a_continuation_line_of_a_list():
    node, _ = parsing.parse_function(FIRST_OF_LIST[1])
    assert isinstance(_lambda_expression(node).op, gast.Div)


@pytest.mark.xfail(strict=True, reason="BUG: a keyword-argument lambda on a continuation line "
                                         "('fn=lambda x: x * 3)') cannot be parsed")
def test_lambda_as_keyword_argument_on_a_continuation_line():
    node, _ = parsing.parse_function(KEYWORD_LAMBDA)
    assert isinstance(_lambda_expression(node).op, gast.Mult)


# -- failures ----------------------------------------------------------------------------------


def test_function_without_source_raises_source_unavailable():
    namespace = {}
    exec("def generated(x):\n    return x\n", namespace)  # noqa: S102 - no source on purpose
    with pytest.raises(SourceUnavailableError, match="generated"):
        parsing.parse_function(namespace["generated"])
    assert issubclass(SourceUnavailableError, ConversionError)


def test_builtin_has_no_source():
    with pytest.raises(SourceUnavailableError):
        parsing.parse_function(len)


def test_async_function_is_rejected_naming_file_and_line():
    line = inspect.getsourcelines(coroutine)[1]
    with pytest.raises(ConversionError, match="async") as info:
        parsing.parse_function(coroutine)
    assert "%s:%d" % (__file__, line) in str(info.value)


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
