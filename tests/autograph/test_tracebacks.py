"""Tracebacks and warnings in the user's terms (runtime.tracebacks, runtime.errors.warn).

An exception leaving a Function, a ConcreteFunction, a converted function or a module
written by `autograph convert` keeps the user's frames only, generated code shown as the
user's lines, and ends at the user's line that raised (for a graph that fails as it runs:
the line that created the failing op). Messages name the user's variables, never generated
ones. Warnings point at the user's line."""

import importlib.util
import io
import itertools
import os
import pdb
import re
import subprocess
import sys
import textwrap
import traceback

import pytest
from source_lines import line_of
from traceback_checks import PACKAGES, boundary_frames, printed, user_frames

import autograph
import autograph.tf as tf
from autograph import cli, do_not_convert

HERE = os.path.abspath(__file__)
_modules = itertools.count()


def frames(error):
    """(file, line, function) of each frame of `error`'s traceback, outermost first."""
    return [(f.filename, f.lineno, f.name) for f in traceback.extract_tb(error.__traceback__)]


def innermost(error):
    tb = error.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb


@pytest.fixture(autouse=True)
def filtering_from_the_environment(monkeypatch):
    """Each test starts with filtering on, as a user has it; `config` is reset after it."""
    monkeypatch.delenv("AUTOGRAPH_TRACEBACK_FILTERING", raising=False)
    yield
    autograph.config(traceback_filtering=None)


# -- an error raised by the user's Python code while tracing -----------------------------------


def raises_in_helper(v):
    raise ValueError("bad value %s" % v)


def loops_over_a_tensor(n):
    total = tf.constant(0)
    for i in tf.range(n):
        if i > 1:
            raises_in_helper(i)
        total += i
    return total


def expected_frames(caller):
    return [(HERE, line_of(caller[0], caller[1]), caller[0].__name__),
            (HERE, line_of(loops_over_a_tensor, "raises_in_helper(i)"), "loops_over_a_tensor"),
            (HERE, line_of(raises_in_helper, "raise ValueError"), "raises_in_helper")]


def test_error_in_a_helper_called_from_a_tensor_loop_keeps_only_the_users_frames():
    function = tf.function(loops_over_a_tensor)
    with pytest.raises(ValueError) as info:
        function(tf.constant(3))
    caller = (test_error_in_a_helper_called_from_a_tensor_loop_keeps_only_the_users_frames,
              "function(tf.constant(3))")
    assert user_frames(info.value) == expected_frames(caller)


def test_get_concrete_function_keeps_only_the_users_frames():
    function = tf.function(loops_over_a_tensor)
    with pytest.raises(ValueError) as info:
        function.get_concrete_function(tf.TensorSpec([], tf.int32))
    caller = (test_get_concrete_function_keeps_only_the_users_frames,
              "function.get_concrete_function(")
    assert user_frames(info.value) == expected_frames(caller)


def test_a_converted_function_called_directly_keeps_only_the_users_frames():
    converted = autograph.to_graph(loops_over_a_tensor)
    with pytest.raises(ValueError) as info:
        converted(tf.constant(3))
    caller = (test_a_converted_function_called_directly_keeps_only_the_users_frames,
              "converted(tf.constant(3))")
    assert user_frames(info.value) == expected_frames(caller)


def test_a_method_function_keeps_only_the_users_frames():
    class Model:
        @tf.function
        def run(self, n):
            return loops_over_a_tensor(n)

    with pytest.raises(ValueError) as info:
        Model().run(tf.constant(3))
    names = [name for _, _, name in user_frames(info.value)]
    assert names == ["test_a_method_function_keeps_only_the_users_frames", "run",
                     "loops_over_a_tensor", "raises_in_helper"]
    assert {filename for filename, _, _ in user_frames(info.value)} == {HERE}


def test_innermost_frame_is_the_users_raise_line_where_pdb_lands():
    function = tf.function(loops_over_a_tensor)
    with pytest.raises(ValueError) as info:
        function(tf.constant(3))
    last = innermost(info.value)
    assert last.tb_frame.f_code.co_filename == HERE
    assert last.tb_lineno == line_of(raises_in_helper, "raise ValueError")
    commands = io.StringIO("p v\nwhere\nquit\n")
    output = io.StringIO()
    debugger = pdb.Pdb(stdin=commands, stdout=output, nosigint=True, readrc=False)
    debugger.reset()
    debugger.interaction(None, info.value.__traceback__)
    shown = output.getvalue()
    assert '%s(%d)raises_in_helper()' % (HERE, last.tb_lineno) in shown
    assert 'raise ValueError("bad value %s" % v)' in shown
    assert "tf.Tensor" in shown  # `p v`: the helper's argument, a traced tensor
    internal = [line for line in shown.splitlines()
                if "<ag__" in line or "runtime" + os.sep in line]
    boundary = boundary_frames(info.value)  # pdb's `where` shows it too on CPython 3.10
    assert internal == ["  %s(%d)%s()" % (f.filename, f.lineno, f.name) for f in boundary]


def test_printed_traceback_shows_the_users_lines_and_no_library_frame():
    function = tf.function(loops_over_a_tensor)
    with pytest.raises(ValueError) as info:
        function(tf.constant(3))
    text = printed(info.value)
    assert 'File "%s", line %d, in loops_over_a_tensor\n    raises_in_helper(i)\n' % (
        HERE, line_of(loops_over_a_tensor, "raises_in_helper(i)")) in text
    for hidden in ("<ag__", "loop_body", "if_body") + PACKAGES:
        assert hidden not in text


def recurses(n):
    if n > 0:
        return recurses(n - 1)
    return {}["missing"]


def test_recursion_keeps_one_frame_per_call():
    with pytest.raises(KeyError) as info:
        tf.function(recurses)(3)
    names = [name for _, _, name in user_frames(info.value)]
    assert names[1:] == ["recurses"] * 4


def user_code_with_a_library_call(x):
    if x > 0:
        x = textwrap.dedent(None)
    return x


def test_standard_library_frames_that_converted_code_calls_are_dropped():
    # Converted code calls through autograph's converted_call: the library frames after it
    # go with autograph's, and the traceback ends at the user's call.
    with pytest.raises((TypeError, AttributeError)) as info:
        tf.function(user_code_with_a_library_call)(tf.constant(1))
    assert user_frames(info.value)[1:] == [
        (HERE, line_of(user_code_with_a_library_call, "dedent"), "user_code_with_a_library_call")]


def test_standard_library_frames_that_unconverted_user_code_calls_stay():
    @do_not_convert
    def unconverted(x):
        return textwrap.dedent(None)

    with pytest.raises((TypeError, AttributeError)) as info:
        tf.function(unconverted)(tf.constant(1))
    filenames = [filename for filename, _, _ in user_frames(info.value)]
    assert filenames[:2] == [HERE, HERE]
    assert filenames[-1] == textwrap.__file__  # where Python itself ends


def adds_a_string(x):
    if x > 0:
        x = x + "a"
    return x


def test_dataset_map_keeps_only_the_users_frames():
    dataset = tf.data.Dataset.range(3)
    with pytest.raises(TypeError) as info:
        dataset.map(adds_a_string)
    assert user_frames(info.value) == [
        (HERE, line_of(test_dataset_map_keeps_only_the_users_frames, "dataset.map("),
         "test_dataset_map_keeps_only_the_users_frames"),
        (HERE, line_of(adds_a_string, 'x = x + "a"'), "adds_a_string")]


def test_chained_exceptions_are_filtered_too():
    def reraises(x):
        try:
            raises_in_helper(x)
        except ValueError as e:
            raise RuntimeError("wrapped") from e

    with pytest.raises(RuntimeError) as info:
        tf.function(reraises)(tf.constant(1))
    cause = info.value.__cause__
    assert {filename for filename, _, _ in frames(cause)} == {HERE}
    assert frames(cause)[-1][1] == line_of(raises_in_helper, "raise ValueError")


# -- a graph that fails while it runs -----------------------------------------------------------


def failing_assert(x):
    for i in tf.range(x):
        tf.debugging.assert_equal(i, 100)
    return x


def failing_numerics(x):
    y = tf.math.log(x)
    return tf.debugging.check_numerics(y, "log of a negative number")


def integer_division(x):
    y = x + 1
    return y // (x - x)


def undefined_on_this_path(x):
    if x > 0:
        z = x
    return z


@pytest.mark.parametrize("fn, argument, line_text, error", [
    (failing_assert, tf.constant(3), "tf.debugging.assert_equal(i, 100)",
     tf.errors.InvalidArgumentError),
    (failing_numerics, tf.constant(-1.0), "tf.debugging.check_numerics(y",
     tf.errors.InvalidArgumentError),
    (integer_division, tf.constant(2), "return y // (x - x)", tf.errors.InvalidArgumentError),
    (undefined_on_this_path, tf.constant(-1), "return z", UnboundLocalError),
])
def test_graph_run_time_error_ends_at_the_line_that_created_the_op(fn, argument, line_text,
                                                                    error):
    function = tf.function(fn)
    for _ in range(2):  # the tracing call, then a cached one
        with pytest.raises(error) as info:
            function(argument)
        found = user_frames(info.value)
        assert [filename for filename, _, _ in found] == [HERE, HERE]
        assert found[-1] == (HERE, line_of(fn, line_text), fn.__name__)
        last = innermost(info.value)
        assert (last.tb_frame.f_code.co_filename, last.tb_lineno) == found[-1][:2]


def test_concrete_function_run_time_error_ends_at_the_line_that_created_the_op():
    concrete = tf.function(integer_division).get_concrete_function(tf.constant(2))
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        concrete(tf.constant(2))
    assert user_frames(info.value)[-1] == (
        HERE, line_of(integer_division, "return y // (x - x)"), "integer_division")
    assert len(user_frames(info.value)) == 2


@tf.function
def divides_inside(x):
    y = x * 2
    return y // (x - x)


def calls_a_function_that_fails(x):
    z = divides_inside(x) + 1
    return z


def test_run_time_error_in_a_called_function_shows_the_call_then_the_op_line():
    with pytest.raises(tf.errors.InvalidArgumentError, match="'floordiv'.* of divides_inside"
                       ) as info:
        tf.function(calls_a_function_that_fails)(tf.constant(3))
    assert user_frames(info.value)[1:] == [
        (HERE, line_of(calls_a_function_that_fails, "divides_inside(x) + 1"),
         "calls_a_function_that_fails"),
        (HERE, line_of(divides_inside, "y // (x - x)"), "divides_inside")]


def lookup(a):
    raise KeyError("missing %s" % a)


def calls_python(x):
    return tf.py_function(lookup, [x], tf.int32)


def test_py_function_error_shows_the_op_line_then_the_python_function():
    with pytest.raises(KeyError) as info:
        tf.function(calls_python)(tf.constant(1))
    assert user_frames(info.value)[1:] == [
        (HERE, line_of(calls_python, "tf.py_function"), "calls_python"),
        (HERE, line_of(lookup, "raise KeyError"), "lookup")]


# -- a module written by `autograph convert` ----------------------------------------------------


def test_converted_module_errors_end_at_the_original_files_lines(tmp_path):
    original = tmp_path / "model.py"
    original.write_text(textwrap.dedent('''\
        import autograph.tf as tf


        def check(v):
            raise ValueError("checked %s" % v)


        @tf.function
        def run(n):
            for i in tf.range(n):
                check(i)
            return n
    '''), encoding="utf-8")
    converted = str(tmp_path / "model_converted.py")
    assert cli.main(["convert", str(original), "-o", converted]) == 0
    spec = importlib.util.spec_from_file_location("converted_%d" % next(_modules), converted)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(ValueError) as info:
        module.run(tf.constant(2))
    assert user_frames(info.value)[1:] == [(str(original), 11, "run"),
                                           (str(original), 5, "check")]


# -- turning filtering off ----------------------------------------------------------------------


def test_environment_variable_off_shows_every_frame(monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_TRACEBACK_FILTERING", "off")
    with pytest.raises(ValueError) as info:
        tf.function(loops_over_a_tensor)(tf.constant(3))
    filenames = [filename for filename, _, _ in frames(info.value)]
    assert any(name.endswith(os.path.join("runtime", "function.py")) for name in filenames)
    assert any(name.startswith("<ag__ converted") for name in filenames)


def test_config_turns_filtering_off_and_back(monkeypatch):
    autograph.config(traceback_filtering=False)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.function(integer_division)(tf.constant(2))
    assert any("runtime" + os.sep in filename for filename, _, _ in frames(info.value))
    autograph.config(traceback_filtering=True)
    monkeypatch.setenv("AUTOGRAPH_TRACEBACK_FILTERING", "off")  # config wins over it
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.function(integer_division)(tf.constant(2))
    assert {filename for filename, _, _ in user_frames(info.value)} == {HERE}


def test_config_refuses_unknown_settings_and_values():
    with pytest.raises(TypeError, match="'traceback_filter'.*traceback_filtering"):
        autograph.config(traceback_filter=False)
    with pytest.raises(TypeError, match="True, False or None"):
        autograph.config(traceback_filtering="off")


# -- messages name the user's variables -----------------------------------------------------------


_GENERATED_NAMES = re.compile(
    r"loop_body|loop_test|if_body|else_body|get_state|set_state|extra_test|retval_|"
    r"do_return|break_|continue_|loop_counter|loop counter|match_subject|\bitr\b|fscope|"
    r"ag__|'value'")


@do_not_convert
def as_python_bool(v):
    return 1 if v else 0


def loop_variable_as_python_bool(n):
    s = 0
    for i in tf.range(n):
        s += as_python_bool(i)
    return s


def loop_variable_numpy(n):
    for i in tf.range(n):
        i.numpy()
    return n


def returns_two_dtypes(x):
    if x > 0:
        return 1
    return 1.5


def returns_from_a_loop_with_another_dtype(x):
    for i in tf.range(x):
        if i > 2:
            return i
    return "none"


def list_grown_in_a_loop(x):
    s = [1, 2]
    for i in tf.range(x):
        s = s + [i]
    return s


def and_of_two_dtypes(x):
    return x > 0 and "yes"


def loop_variable_changes_dtype(x):
    i = 0
    while i < x:
        i = "a"
    return i


def reshape_in_a_loop(x):
    for i in tf.range(x):
        x = tf.reshape(x, [3])
    return x


@pytest.mark.parametrize("fn, user_name", [
    (loop_variable_as_python_bool, "i"),
    (loop_variable_numpy, "i"),
    (returns_two_dtypes, "the return value of returns_two_dtypes"),
    (returns_from_a_loop_with_another_dtype,
     "the return value of returns_from_a_loop_with_another_dtype"),
    (list_grown_in_a_loop, "'s'"),
    (and_of_two_dtypes, "`and` expression"),
    (loop_variable_changes_dtype, "'i'"),
    (reshape_in_a_loop, "reshape_in_a_loop"),
])
def test_messages_name_the_users_variables_and_functions(fn, user_name):
    with pytest.raises(Exception) as info:
        tf.function(fn)(tf.constant(3))
    text = printed(info.value)
    assert _GENERATED_NAMES.search(text) is None, text
    assert user_name in text


# -- warnings point at the user's line ----------------------------------------------------------


def function_without_source():
    scope = {}
    exec("def no_source(x):\n    return x * 3\n", scope)  # noqa: S102 - no source on purpose
    return scope["no_source"]


def test_warning_about_a_function_that_cannot_be_converted_points_at_the_call():
    function = autograph.function(function_without_source())
    with pytest.warns(UserWarning, match="source code is not available") as caught:
        function(tf.constant(2))
    assert (caught[0].filename, caught[0].lineno) == (
        HERE, line_of(test_warning_about_a_function_that_cannot_be_converted_points_at_the_call,
                      "function(tf.constant(2))"))


NO_SOURCE = function_without_source()


def calls_a_function_without_source(x):
    if x > 0:
        x = NO_SOURCE(x)
    return x


@pytest.mark.parametrize("run", [
    lambda f: tf.function(f)(tf.constant(1)),
    lambda f: autograph.to_graph(f)(1),
])
def test_warning_from_converted_code_points_at_the_users_call_line(run):
    with pytest.warns(UserWarning, match="could not convert no_source") as caught:
        run(calls_a_function_without_source)
    assert (caught[0].filename, caught[0].lineno) == (
        HERE, line_of(calls_a_function_without_source, "x = NO_SOURCE(x)"))


def test_warning_in_a_script_without_a_source_loader_points_at_its_line():
    # `python -c`: the __main__ module's loader has no source; the warning must not fail.
    # The script's code is compiled under a name that linecache cannot read (`-c` source
    # itself is readable from CPython 3.13), so the lambda's source is unavailable.
    script = ("import autograph.tf as tf\n"
              "f = tf.function(lambda x: x + 1)\n"
              "f(tf.constant(1))\n")
    command = "exec(compile(%r, '<script without source>', 'exec'))" % script
    root = os.path.dirname(PACKAGES[0].rstrip(os.sep))
    done = subprocess.run([sys.executable, "-W", "always", "-c", command], cwd=root,
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=root))
    assert done.returncode == 0, done.stderr
    assert "<script without source>:3: UserWarning: cannot convert" in done.stderr
