"""autograph.conversion and converted_call: the pipeline, its caches, what is left alone
(do_not_convert, library functions, builtins) and what is rejected (yield, ...)."""

import functools
import importlib.util
import inspect
import json
import math
import re
import textwrap
import warnings

import gast
import numpy as np
import pytest

import autograph
import autograph.tf as tf
from autograph import conversion, namespace, user_code
from autograph.converters import base
from autograph.errors import ConversionError
from autograph.pyct import parsing


def branchy(x):
    if x > 0:
        x = x * 2
    else:
        x = -x
    return x


def make_scaler(k):
    def scale(x):
        if x > 0:
            x = x * k
        return x
    return scale


def count_parses(monkeypatch):
    calls = []
    original = parsing.parse_function

    def counting(func):
        calls.append(func)
        return original(func)

    monkeypatch.setattr(parsing, "parse_function", counting)
    return calls


# -- the pipeline -------------------------------------------------------------------------------


def test_convert_returns_a_new_function_behaving_like_the_original():
    converted = conversion.convert(branchy)
    assert converted is not branchy
    assert converted.__name__ == "ag__branchy"
    assert [converted(v) for v in (3, -3, 0)] == [branchy(v) for v in (3, -3, 0)]
    assert "ag__.if_stmt" in converted.__autograph_source__


def test_to_graph_and_to_code_accept_functions_and_Functions():
    function = tf.function(branchy)
    assert autograph.to_graph(function)(4) == 8
    assert autograph.to_code(function) == autograph.to_code(branchy)
    assert autograph.to_code(branchy).startswith("def ag__branchy(x):")
    assert tf.autograph.to_code(branchy) == autograph.to_code(branchy)


# -- caching --------------------------------------------------------------------------------------


def test_converting_the_same_function_twice_returns_the_cached_result(monkeypatch):
    def fresh(x):
        while x > 1:
            x = x // 2
        return x

    calls = count_parses(monkeypatch)
    first = conversion.convert(fresh)
    assert conversion.convert(fresh) is first
    assert len(calls) == 1


def test_closures_of_one_code_object_are_parsed_once_and_bound_separately(monkeypatch):
    def make_offset(k):
        def offset(x):
            if x > 0:
                x = x + k
            return x
        return offset

    calls = count_parses(monkeypatch)
    one, ten = make_offset(1), make_offset(10)
    assert one.__code__ is ten.__code__
    converted_one = conversion.convert(one)
    converted_ten = conversion.convert(ten)
    assert converted_one is not converted_ten
    assert converted_one.__code__ is converted_ten.__code__
    assert (converted_one(5), converted_ten(5), converted_ten(-5)) == (6, 15, -5)
    assert calls == [one]
    assert conversion._cached(one.__code__) is not None


def load_file(path, text):
    """Writes `text` to `path` and imports it as a fresh module."""
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("conversion_test_" + path.stem, str(path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


IDENTICAL = textwrap.dedent("""\
    import autograph.tf as tf


    def reshape_in_loop(x):
        s = tf.constant([1.0, 2.0, 3.0])
        for i in tf.range(x):
            s = tf.reshape(s, [7])
        return s
""")


def test_identical_functions_in_two_files_are_converted_separately(tmp_path):
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    one = load_file(tmp_path / "one" / "same.py", IDENTICAL)
    two = load_file(tmp_path / "two" / "same.py", IDENTICAL)
    assert one.reshape_in_loop.__code__ == two.reshape_in_loop.__code__  # equal by value
    converted_one = conversion.convert(one.reshape_in_loop)
    converted_two = conversion.convert(two.reshape_in_loop)
    assert converted_one.__code__ is not converted_two.__code__
    for module in (one, two):
        with pytest.raises(ValueError) as info:
            tf.function(module.reshape_in_loop)(tf.constant(2))
        assert "%s:7" % module.__file__ in str(info.value)  # the file of the function called


def test_cache_entry_leaves_with_its_code_object():
    scope = {}
    exec("def made():\n    return 1\n", scope)  # noqa: S102 - a code object to drop
    code = scope.pop("made").__code__
    loaded = object()
    conversion._remember(code, loaded)
    assert conversion._cached(code) is loaded
    key = id(code)
    del code
    assert key not in conversion._code_cache or not conversion._WEAK_CODE


def test_function_scope_wraps_the_body_and_keeps_the_docstring_outside():
    def documented(x):
        """Adds one."""
        return x + 1

    code = autograph.to_code(documented)
    assert code.splitlines()[:3] == [
        "def ag__documented(x):",
        "    \"\"\"Adds one.\"\"\"",
        "    with ag__.FunctionScope('documented') as fscope:",
    ]
    assert conversion.convert(documented).__doc__ == "Adds one."


def test_function_returning_in_an_untaken_python_branch_returns_none():
    def maybe(x):
        for i in range(x):
            if i == 2:
                return i

    converted = conversion.convert(maybe)
    assert "fscope.ret(retval_, do_return)" in autograph.to_code(maybe)
    assert (converted(5), converted(1)) == (2, None)


def test_bound_method_is_converted_and_rebound_to_the_same_object():
    class Counter:
        def __init__(self):
            self.limit = 3

        def clamp(self, x):
            if x > self.limit:
                x = self.limit
            return x

    counter = Counter()
    converted = conversion.convert(counter.clamp)
    assert converted.__self__ is counter
    assert (converted(10), converted(1)) == (3, 1)
    counter.limit = 7
    assert converted(10) == 7


def test_partial_is_converted_keeping_its_bound_arguments():
    partial = functools.partial(make_scaler(4), 2)
    converted = conversion.convert(partial)
    assert isinstance(converted, functools.partial)
    assert converted.args == (2,)
    assert converted.func.__name__ == "ag__scale"
    assert converted() == 8


# -- functools.wraps and super() -------------------------------------------------------------------


def negating(f):
    @functools.wraps(f)
    def wrapper(x):
        return f(-x)
    return wrapper


@negating
def tripled(x):
    return x * 3


def test_a_functools_wraps_wrapper_is_converted_as_itself_not_as_the_wrapped_function():
    assert tripled(2) == -6
    assert tf.function(tripled)(tf.constant(2)).numpy() == -6
    assert conversion.convert(tripled)(2) == -6
    code = autograph.to_code(tripled)
    assert code.startswith("def ag__wrapper(x):")
    assert "(-x,)" in code and "x * 3" not in code


class Base:
    def scale(self, x):
        return x * 10

    @classmethod
    def offset(cls, x):
        return x + 1


class Derived(Base):
    def scale(self, x):
        if x > 0:
            x = super().scale(x)
        return x

    def scale_in_loop(self, x):
        n = 0
        while n < 2:
            x = super().scale(x)
            n += 1
        return x

    def scale_lazily(self, x):
        return x > 0 and super().scale(x)

    @classmethod
    def offset(cls, x):
        if x > 0:
            x = super().offset(x)
        return x

    def nested_super(self, x):
        def helper():
            return super().scale(x)  # no arguments: fails in plain Python too
        return helper()


@pytest.mark.parametrize("method, arg, expected", [
    (Derived().scale, 3, 30), (Derived().scale, -3, -3),
    (Derived().scale_in_loop, 2, 200), (Derived.offset, 3, 4), (Derived.offset, -3, -3),
])
def test_zero_argument_super_works_inside_converted_control_flow(method, arg, expected):
    assert method(arg) == expected
    assert tf.function(method)(tf.constant(arg)).numpy() == expected
    assert conversion.convert(method)(arg) == expected


def test_zero_argument_super_works_inside_a_lowered_boolean_operator():
    assert conversion.convert(Derived().scale_lazily)(4) == 40
    assert conversion.convert(Derived().scale_lazily)(-4) is False


def test_zero_argument_super_is_spelled_out_with_the_class_cell_and_first_parameter():
    assert "super(__class__, self).scale" in autograph.to_code(Derived.scale)
    assert "super(__class__, cls).offset" in autograph.to_code(Derived.offset)


def test_super_in_a_nested_function_is_left_as_plain_python_has_it():
    assert "super().scale" in autograph.to_code(Derived.nested_super)
    with pytest.raises(RuntimeError, match="no arguments"):
        Derived().nested_super(1)
    with pytest.raises(RuntimeError, match="no arguments"):
        conversion.convert(Derived().nested_super)(1)


# -- left alone -----------------------------------------------------------------------------------


@autograph.do_not_convert
def left_alone(x):
    if x > 0:
        return x
    return -x


@autograph.do_not_convert()
def left_alone_called(x):
    return x


def test_do_not_convert_returns_the_function_itself():
    assert conversion.convert(left_alone) is left_alone
    assert conversion.convert(left_alone_called) is left_alone_called
    assert conversion.is_marked_do_not_convert(left_alone)
    assert not conversion.is_marked_do_not_convert(branchy)


def test_do_not_convert_source_is_shown_as_written():
    assert autograph.to_code(left_alone) == inspect.getsource(left_alone)


def test_do_not_convert_function_with_a_tensor_if_fails_when_traced():
    @tf.function
    def caller(x):
        return left_alone(x)

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError) as info:
        caller(tf.constant(1))
    assert isinstance(info.value, TypeError)
    assert "%s:%d" % (__file__, inspect.getsourcelines(left_alone)[1] + 2) in str(info.value)


def test_do_not_convert_function_runs_as_written_on_python_values():
    @tf.function
    def caller(x, y):
        return x + left_alone(y)

    assert caller(tf.constant(1), -5).numpy() == 6


class CallableObject:
    def __call__(self, x):
        return x + 1


@pytest.mark.parametrize("func", [np.sum, json.dumps, math.sqrt, len, tf.tanh, tf.reduce_sum,
                                  CallableObject(), CallableObject, autograph.to_code],
                         ids=lambda f: getattr(f, "__name__", type(f).__name__))
def test_library_functions_builtins_and_objects_are_left_alone(func):
    assert conversion.convert(func) is func


def test_is_library_recognises_project_numpy_and_stdlib_modules():
    assert user_code.is_library(np.mean)
    assert user_code.is_library(json.loads)
    assert user_code.is_library(tf.constant)
    assert user_code.is_library(conversion.convert)
    assert not user_code.is_library(branchy)


def test_converted_call_converts_user_functions():
    seen = []

    def spy(x):
        seen.append(type(x))
        if x > 0:
            x = x + 1
        return x

    @tf.function
    def caller(x):
        return spy(x)

    assert [int(caller(tf.constant(v)).numpy()) for v in (1, -1)] == [2, -1]
    assert len(seen) == 1  # traced once, and the tensor `if` did not fail: it was converted


def test_converted_call_routes_builtins_to_tensor_aware_versions():
    @tf.function
    def f(x):
        return len(x), int(tf.reduce_sum(x) / 2), float(x[0]), bool(x[1])

    length, half, first, second = f(tf.constant([1.0, 0.0, 5.0]))
    assert length.numpy() == 3
    assert (half.dtype, half.numpy()) == (tf.int32, 3)
    assert (first.dtype, first.numpy()) == (tf.float32, 1.0)
    assert (second.dtype, bool(second.numpy())) == (tf.bool, False)


def test_converted_call_passes_python_builtins_through():
    assert namespace.converted_call(len, ([1, 2, 3],), None) == 3
    assert list(namespace.converted_call(range, (2, 5), None)) == [2, 3, 4]
    assert namespace.converted_call(max, (1, 9), {"key": lambda v: -v}) == 1


def test_converted_call_warns_and_runs_a_function_it_cannot_convert():
    scope = {}
    exec("def no_source(x):\n    return x * 3\n", scope)  # noqa: S102 - no source on purpose
    with pytest.warns(UserWarning, match="no_source"):
        assert namespace.converted_call(scope["no_source"], (2,), None) == 6


def test_function_without_source_is_traced_unconverted_with_a_warning():
    scope = {}
    exec("def no_source(x):\n    return x * 3\n", scope)  # noqa: S102 - no source on purpose
    function = autograph.function(scope["no_source"])
    with pytest.warns(UserWarning, match="source code is not available"):
        assert function(tf.constant(2)).numpy() == 6


def test_run_functions_eagerly_calls_the_original_python(capsys):
    @tf.function
    def f(x):
        print("python ran")
        if x > 0:
            x = x * 2
        return x

    autograph.run_functions_eagerly(True)
    try:
        assert f(tf.constant(3)).numpy() == 6
        assert f(tf.constant(3)).numpy() == 6
    finally:
        autograph.run_functions_eagerly(False)
    assert capsys.readouterr().out == "python ran\npython ran\n"
    assert f.experimental_get_tracing_count() == 0


# -- rejected -------------------------------------------------------------------------------------


def generator(x):
    for i in range(x):
        yield i


def delegating(x):
    total = x
    yield from range(total)


def nested_generator_is_fine(x):
    def gen():
        yield x
    return x + 1


@pytest.mark.parametrize("func, construct, statement", [
    (generator, "yield", "yield i"),
    (delegating, "yield from", "yield from range(total)"),
])
def test_unsupported_construct_is_a_conversion_error_naming_it_and_its_line(
        func, construct, statement):
    lines, first = inspect.getsourcelines(func)
    line = first + [i for i, text in enumerate(lines) if statement in text][0]
    with pytest.raises(ConversionError) as info:
        conversion.convert(func)
    assert isinstance(info.value, NotImplementedError)  # as TensorFlow's AutoGraph raises
    message = str(info.value)
    assert construct in message
    assert "%s:%d" % (__file__, line) in message
    assert "do_not_convert" in message  # and says how to get around it


def test_tf_function_of_a_generator_fails_with_the_conversion_error():
    with pytest.raises(ConversionError, match="yield"):
        tf.function(generator)(3)


def test_yield_in_a_nested_function_does_not_block_conversion():
    assert conversion.convert(nested_generator_is_fine)(1) == 2


def test_converted_call_runs_generators_unconverted():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert list(namespace.converted_call(generator, (3,), None)) == [0, 1, 2]


def test_converting_a_converted_function_returns_it_unchanged():
    converted = conversion.convert(with_branch_for_reconversion)
    assert conversion.convert(converted) is converted
    assert autograph.to_code(converted) == autograph.to_code(with_branch_for_reconversion)
    assert "ag__ag__" not in autograph.to_code(converted)


def test_to_code_of_a_partial_shows_the_wrapped_function():
    partial = functools.partial(with_branch_for_reconversion, 1)
    assert autograph.to_code(partial) == autograph.to_code(with_branch_for_reconversion)


def with_branch_for_reconversion(a, x):
    if x > a:
        x = x - a
    return x


# API misuse: a TypeError naming the argument.

class _Callable:
    def __call__(self, x):
        return x


@pytest.mark.parametrize("func, what", [
    (len, "the builtin len"),
    ([].append, "the builtin list.append"),
    (_Callable, "the class _Callable"),
    (_Callable(), "an instance of _Callable"),
    (3, "3 (int)"),
    (functools.partial(len), "the builtin len"),
])
def test_to_code_of_something_without_python_source_is_a_type_error(func, what):
    with pytest.raises(TypeError, match=r"to_code expects a Python function or method as "
                                        r"`func`, got %s" % re.escape(what)):
        autograph.to_code(func)


@pytest.mark.parametrize("make", [autograph.function, tf.function])
def test_a_non_callable_to_function_is_a_type_error(make):
    with pytest.raises(TypeError, match=r"function expects a callable .*got 3 \(int\)"):
        make(3)


@pytest.mark.parametrize("make", [autograph.function, tf.function])
def test_a_bare_tensor_spec_as_input_signature_says_to_wrap_it_in_a_list(make):
    spec = tf.TensorSpec([None], tf.float32)
    with pytest.raises(TypeError, match=r"input_signature must be a list or tuple of "
                                        r"TensorSpecs.*wrap it in a list"):
        make(input_signature=spec)(lambda x: x)
    with pytest.raises(TypeError, match=r"input_signature must be a list or tuple"):
        make(lambda x: x, input_signature=5)
    assert make(input_signature=(spec,))(lambda x: x * 2)(
        tf.constant([1.0])).numpy().tolist() == [2.0]


def class_with_a_loop_in_its_body(x):
    class Holder:
        """Built when the function runs."""
        for i in range(3):
            if i > 1:
                break
        last = i
        both = (lambda: 1 and 2)()
    return Holder.last + Holder.both + x


def test_a_class_body_in_a_converted_function_runs_as_plain_python():
    source = conversion.source_of(class_with_a_loop_in_its_body)
    body = source[source.index("class Holder"):source.index("return")]
    assert "ag__" not in body and "break_" not in body
    assert conversion.convert(class_with_a_loop_in_its_body)(1) == 5


def test_the_shared_walk_leaves_nested_scopes_and_keeps_the_docstring():
    class Renamer(base.FunctionTransformer):
        def visit_Name(self, node):
            node.id = node.id.upper()
            return node

    function = parsing.parse_source(textwrap.dedent('''
        def f(a):
            """doc"""
            g = lambda b: b
            def h(c):
                return c
            class K:
                d = 1
            return a
    '''))[0].body[0]
    Renamer(None).visit_body(function)
    names = {n.id for n in gast.walk(function) if hasattr(n, "id")}
    assert {"G", "A", "b", "c"} <= names and not {"B", "C", "D"} & names
    assert base.split_docstring(function.body)[0][0].value.value == "doc"


def test_conversion_errors_are_named_by_their_public_module():
    import traceback

    from autograph import errors

    for error in (errors.ConversionError, errors.UnsupportedConstructError,
                  errors.SourceUnavailableError):
        assert error.__module__ == "autograph.errors"
    line = traceback.format_exception_only(errors.ConversionError, errors.ConversionError("x"))
    assert line[-1].startswith("autograph.errors.ConversionError: x")
