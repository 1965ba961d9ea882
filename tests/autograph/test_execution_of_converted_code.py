"""Executing the graphs of converted code: integer loops that overflow, check_numerics in
loops, errors that name the user's line with and without conversion, a function named like
one of the executor's own names."""

import re
import warnings

import numpy as np
import pytest

import autograph.tf as tf


def _source(function, *args):
    return function.get_concrete_function(*args).executor_source


def _kernel_calls(source, op_type):
    return len(re.findall(r"\bk_%s_\d+\(" % op_type, source))


AUTOGRAPH = pytest.mark.parametrize("autograph", [False, True], ids=["as written", "converted"])


INTEGER_DTYPES = pytest.mark.parametrize("dtype", [tf.int32, tf.int64], ids=["int32", "int64"])


@pytest.fixture
def warnings_are_errors():
    """Any warning (numpy's overflow warnings included) fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


@pytest.mark.parametrize("autograph", [False, True], ids=["as written", "converted"])
def test_a_failing_constant_expression_fails_at_run_time_naming_the_node(autograph):
    def f():
        return tf.gather(tf.constant([1, 2]), tf.constant(5))  # failing gather

    cf = tf.function(f, autograph=autograph).get_concrete_function()
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        cf()
    message = str(info.value)
    assert "GatherV2" in message
    assert "failing gather" in message


@AUTOGRAPH
def test_runtime_error_names_the_node_and_the_user_line(autograph):
    def lookup(table, index):
        doubled = table * 2
        return tf.gather(doubled, index)  # the gather line

    lookup = tf.function(lookup, autograph=autograph)
    table = tf.constant([1, 2, 3])
    assert lookup(table, tf.constant(2)).numpy() == 6
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        lookup(table, tf.constant(7))
    message = str(info.value)
    assert "GatherV2" in message
    assert "test_execution_of_converted_code.py:" in message
    assert "the gather line" in message
    assert "indices = 7 is not in [0, 3)" in message  # TensorFlow's words
    assert info.value.op_name == "GatherV2"


@AUTOGRAPH
def test_runtime_error_reports_the_user_line_number_and_function(autograph):
    def index_into(x, i):
        return x[i]

    line = index_into.__code__.co_firstlineno + 1
    f = tf.function(index_into, autograph=autograph)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant([1, 2]), tf.constant(9))
    message = str(info.value)
    assert "test_execution_of_converted_code.py:%d in index_into" % line in message
    assert "strided_slice" in message


@AUTOGRAPH
def test_runtime_error_inside_a_python_loop_names_the_right_line(autograph):
    def f(x, indices):
        total = tf.constant(0)
        for i in indices:
            total += tf.gather(x, i)  # the looped gather
        return total

    f = tf.function(f, autograph=autograph)
    assert f(tf.constant([1, 2, 3]), [0, 2]).numpy() == 4
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant([1, 2, 3]), [tf.constant(0), tf.constant(8)])
    assert "the looped gather" in str(info.value)


@AUTOGRAPH
def test_failing_assertion_in_a_graph_names_the_user_line(autograph):
    def f(x):
        tf.debugging.assert_equal(x, 0, message="x must be zero")  # the assertion
        return x

    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.function(f, autograph=autograph)(tf.constant(1))
    assert "x must be zero" in str(info.value)
    assert "test_execution_of_converted_code.py" in str(info.value)


@INTEGER_DTYPES
def test_integer_overflow_in_a_loop_wraps_silently(dtype, warnings_are_errors):
    big = np.iinfo(dtype.np_dtype).max // 3

    @tf.function
    def f(n):
        i = tf.constant(0, dtype)
        s = tf.constant(0, dtype)
        while i < n:
            s += i * big
            s = s * 3 - i
            i += 1
        return s

    expected = np.zeros([1], dtype.np_dtype)  # arrays wrap silently, as in TensorFlow
    for k in range(50):
        i = np.full([1], k, dtype.np_dtype)
        expected = (expected + i * big) * 3 - i
    result = f(tf.constant(50, dtype))
    assert result.dtype is dtype
    assert result.numpy() == expected[0]
    assert "np.errstate(over='ignore')" in _source(f, tf.constant(50, dtype))


def test_integer_overflow_in_a_for_loop_with_branches_wraps_silently(warnings_are_errors):
    @tf.function
    def f(n):
        s = tf.constant(1)
        for i in tf.range(n):
            if i % 2 == 0:
                s = s * 65536
            else:
                s = -s + i
        return s

    expected = np.ones([1], np.int32)
    for k in range(9):
        i = np.full([1], k, np.int32)
        expected = expected * 65536 if k % 2 == 0 else -expected + i
    assert f(tf.constant(9)).numpy() == expected[0]


def test_sinh_overflow_is_silent_and_in_an_integer_loop_calls_the_ufunc(warnings_are_errors):
    """Sinh's kernel silences overflow itself; inside a loop that computes integers (which
    runs with overflow warnings off) its emit rule writes the bare ufunc."""
    @tf.function
    def f(x, n):
        i = tf.constant(0)
        while i < n:
            x = tf.math.sinh(x)
            i += 1
        return x, tf.math.sinh(x)

    looped, after = f(tf.constant(4.0), tf.constant(3))  # sinh(sinh(sinh(4))) overflows
    assert np.isinf(looped.numpy()) and np.isinf(after.numpy())
    looped, after = f(tf.constant(-4.0), tf.constant(1))
    # each sinh within 4 ulp of numpy's (compiled backends may round differently; chaining
    # two sinh multiplies the first one's rounding error by about 27)
    np.testing.assert_array_max_ulp(looped.numpy(), np.sinh(np.float32(-4.0)), 4)
    np.testing.assert_array_max_ulp(after.numpy(), np.sinh(looped.numpy()), 4)
    source = _source(f, tf.constant(4.0), tf.constant(3))
    assert source.count("np.sinh(") == 1  # in the loop; after it, the quiet kernel
    assert _kernel_calls(source, "Sinh") == 1


def test_rank0_loop_inputs_are_read_once_as_scalars():
    @tf.function
    def f(n, step):
        total = tf.constant(0.0)
        unchanged = tf.constant(2.5)
        i = tf.constant(0)
        while i < n:
            total += step * unchanged
            i += 1
        return total, unchanged, i

    source = _source(f, tf.constant(4), tf.constant(0.5))
    loop = source.index("while True:")
    assert re.search(r"\w+ = in0\[\(\)\]", source[:loop]), source
    assert re.search(r"\w+ = in1\[\(\)\]", source[:loop]), source
    total, unchanged, i = f(tf.constant(4), tf.constant(0.5))
    assert (total.dtype, unchanged.dtype, i.dtype) == (tf.float32, tf.float32, tf.int32)
    assert (total.numpy(), unchanged.numpy(), i.numpy()) == (5.0, 2.5, 4)
    assert type(total.numpy()) is np.float32


def test_a_function_named_like_an_executor_constant_keeps_its_constants():
    """The executor's generated function is named after the user's; named like one of the
    executor's constants (`c<N>`) or like the module its code calls (`np`), it replaces
    neither."""
    def c8(n):
        items = [1, 2, 3]
        for i in tf.range(n):
            items[1] = items[1] + i
        return items

    def np(n):
        return n * 2 + tf.reduce_sum(tf.ones([2], tf.int32))
    assert [t.numpy() for t in tf.function(c8)(tf.constant(3))] == [1, 5, 3]
    assert tf.function(np)(tf.constant(3)).numpy() == 8


def test_nested_integer_loops_turn_overflow_warnings_off_once():
    @tf.function
    def f(n):
        s = tf.constant(0)
        i = tf.constant(0)
        while i < n:
            j = tf.constant(0)
            while j < i:
                s += j
                j += 1
            i += 1
        return s

    source = _source(f, tf.constant(5))
    assert source.count("np.errstate") == 1, source
    assert f(tf.constant(5)).numpy() == 10


def test_float_loops_do_not_touch_warnings():
    @tf.function
    def f(x):
        while tf.reduce_sum(x) > 1:
            x = tf.tanh(x)
        return x

    assert "errstate" not in _source(f, tf.ones([5]))


def test_check_numerics_still_catches_inf_in_scalar_loops():
    @tf.function
    def f(x, n):
        i = tf.constant(0)
        while i < n:
            x = x * 1e30
            i += 1
        return x

    tf.debugging.enable_check_numerics()
    try:
        assert f(tf.constant(1.0), tf.constant(1)).numpy() == np.float32(1e30)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Inf"):
            f(tf.constant(1.0), tf.constant(2))
    finally:
        tf.debugging.disable_check_numerics()
