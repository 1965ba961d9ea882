"""The executor: graph passes (folding, CSE, dead-node elimination), the generated Python, the
treatment of stateful ops, and errors raised while a compiled graph runs.

The passes are observed through `ConcreteFunction.executor_source`, the Python the executor
generated: one line per computed value between the `def` line and the `return` line.
"""

import io
import re

import numpy as np
import pytest

import autograph.tf as tf


def _source(function, *args):
    return function.get_concrete_function(*args).executor_source


def _body(source):
    """The computing lines of generated source (without `def` and `return`)."""
    lines = [line.strip() for line in source.strip().splitlines()]
    assert lines[0].startswith("def ")
    assert lines[-1].startswith("return")
    return lines[1:-1]


def _kernel_calls(source, op_type):
    return len(re.findall(r"\bk_%s_\d+\(" % op_type, source))


# -- the generated function ---------------------------------------------------------------

def test_generated_source_is_a_function_of_the_fed_tensors():
    @tf.function
    def scale(x, y):
        return x * y

    source = _source(scale, tf.constant(1.0), tf.constant(2.0))
    header = re.match(r"def scale\((\w+), (\w+)\):\n", source)
    assert header, source
    first, second = header.groups()
    assert first != second
    body = _body(source)
    assert len(body) == 1
    assert re.fullmatch(r"\w+ = %s \* %s" % (first, second), body[0]), body


def test_functions_of_many_arguments_pass_attributes_correctly():
    # Every generated parameter and every bound attribute needs its own name.
    @tf.function(autograph=False)
    def f(a, b, c, d, e):
        return tf.reduce_sum(a, axis=0, keepdims=False) + b + c + d + tf.gather(e, [1, 0])

    args = [tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant([10.0, 20.0]),
            tf.constant([100.0, 200.0]), tf.constant([1000.0, 2000.0]),
            tf.constant([0.5, 0.25])]
    expected = tf.reduce_sum(args[0], axis=0) + args[1] + args[2] + args[3] + tf.gather(
        args[4], [1, 0])
    np.testing.assert_array_equal(f(*args).numpy(), expected.numpy())


def test_gathers_with_several_index_arguments():
    @tf.function(autograph=False)
    def f(x, i, j):
        return tf.gather(x, i) + tf.gather(x, j)

    assert f(tf.constant([1, 2, 3]), tf.constant(0), tf.constant(2)).numpy() == 4
    assert f(tf.constant([1, 2, 3]), tf.constant(1), tf.constant(1)).numpy() == 4


def test_identity_nodes_cost_nothing():
    @tf.function
    def f(x):
        return tf.identity(tf.identity(x)), tf.stop_gradient(x)

    source = _source(f, tf.constant(1.0))
    assert _body(source) == []
    assert "Identity" not in source


# -- constant folding ---------------------------------------------------------------------

def test_constant_subexpressions_are_folded():
    @tf.function
    def f(x):
        factor = tf.constant(2.0) * tf.constant(3.0) + 1.0
        return x * factor

    source = _source(f, tf.constant(1.0))
    assert len(_body(source)) == 1
    assert f(tf.constant(2.0)).numpy() == 14.0


def test_fully_constant_function_has_an_empty_body():
    @tf.function
    def f():
        return tf.reduce_sum(tf.range(10)) * 2, tf.constant(0.1) + tf.constant(0.2)

    assert _body(_source(f)) == []
    total, point_three = f()
    assert total.dtype is tf.int32 and total.numpy() == 90
    assert point_three.dtype is tf.float32
    assert point_three.numpy() == (tf.constant(0.1) + tf.constant(0.2)).numpy()


def test_folded_values_keep_their_dtype():
    @tf.function
    def f():
        return tf.constant(7) // tf.constant(2), tf.cast(tf.constant(3), tf.int64) * 2

    a, b = f()
    assert a.dtype is tf.int32 and a.numpy() == 3 and isinstance(a.numpy(), np.int32)
    assert b.dtype is tf.int64 and b.numpy() == 6 and isinstance(b.numpy(), np.int64)


def test_captured_eager_tensors_are_folded_like_constants():
    table = tf.constant([1.0, 2.0, 3.0])

    @tf.function
    def f(x):
        return x + tf.reduce_sum(table * 2.0)

    source = _source(f, tf.constant(0.0))
    assert len(_body(source)) == 1
    assert f(tf.constant(1.0)).numpy() == 13.0


def test_shape_queries_fold_when_the_shape_is_known():
    @tf.function
    def f(x):
        return x * tf.cast(tf.size(x), tf.float32) + tf.cast(tf.rank(x), tf.float32) + \
            tf.cast(tf.shape(x)[0], tf.float32)

    known = _source(f, tf.ones([2, 3]))
    assert _kernel_calls(known, "Size") == 0
    assert _kernel_calls(known, "Rank") == 0
    assert _kernel_calls(known, "Shape") == 0
    np.testing.assert_array_equal(f(tf.ones([2, 3])).numpy(), np.full((2, 3), 10.0))


def test_shape_queries_run_when_the_shape_is_unknown():
    @tf.function
    def f(x):
        return x * tf.cast(tf.size(x), tf.float32)

    cf = f.get_concrete_function(tf.TensorSpec([None]))
    assert _kernel_calls(cf.executor_source, "Size") == 1
    np.testing.assert_array_equal(cf(tf.ones([4])).numpy(), np.full(4, 4.0))
    np.testing.assert_array_equal(cf(tf.ones([2])).numpy(), np.full(2, 2.0))


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


# -- common-subexpression elimination -------------------------------------------------------

def test_identical_expressions_are_computed_once():
    @tf.function
    def f(x, y):
        return (x * y) + (x * y)

    body = _body(_source(f, tf.constant(1.0), tf.constant(2.0)))
    assert len(body) == 2
    assert f(tf.constant(3.0), tf.constant(2.0)).numpy() == 12.0


def test_identical_expressions_with_equal_python_constants_are_computed_once():
    @tf.function
    def f(x):
        return x * 2.0 + x * 2.0

    body = _body(_source(f, tf.constant(1.0)))
    assert len(body) == 2, body
    assert f(tf.constant(3.0)).numpy() == 12.0


def test_identical_reductions_are_merged_but_different_attributes_are_not():
    @tf.function
    def f(x):
        return tf.reduce_sum(x, axis=0), tf.reduce_sum(x, axis=1), tf.reduce_sum(x, axis=0)

    source = _source(f, tf.ones([2, 3]))
    assert _kernel_calls(source, "Sum") == 2
    a, b, c = f(tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    np.testing.assert_array_equal(a.numpy(), [5, 7, 9])
    np.testing.assert_array_equal(b.numpy(), [6, 15])
    np.testing.assert_array_equal(c.numpy(), [5, 7, 9])


def test_expressions_with_different_constants_are_not_merged():
    @tf.function
    def f(x):
        return x + 1.0, x + 2.0

    assert len(_body(_source(f, tf.constant(0.0)))) == 2
    a, b = f(tf.constant(0.0))
    assert (a.numpy(), b.numpy()) == (1.0, 2.0)


def test_merging_follows_chains_of_duplicates():
    @tf.function
    def f(x):
        a = tf.exp(x) + 1.0
        b = tf.exp(x) + 1.0
        return a * b

    source = _source(f, tf.constant(0.0))
    assert _kernel_calls(source, "Exp") == 1
    assert f(tf.constant(0.0)).numpy() == 4.0


# -- dead-node elimination ------------------------------------------------------------------

def test_unused_pure_ops_are_dropped():
    @tf.function
    def f(x):
        tf.exp(x)
        unused = tf.reduce_sum(x) * 3.0  # noqa: F841
        return x + 1.0

    source = _source(f, tf.constant(1.0))
    assert _kernel_calls(source, "Exp") == 0
    assert _kernel_calls(source, "Sum") == 0
    assert len(_body(source)) == 1


def test_ops_feeding_only_dead_ops_are_dropped():
    @tf.function
    def f(x):
        a = tf.tanh(x)
        tf.exp(a)
        return x

    assert _body(_source(f, tf.constant(1.0))) == []


# -- stateful and side-effecting ops -------------------------------------------------------------

def test_random_ops_with_constant_inputs_are_not_folded():
    @tf.function
    def f():
        return tf.random.uniform([4])

    assert _kernel_calls(_source(f), "RandomUniform") == 1
    assert not np.array_equal(f().numpy(), f().numpy())


def test_identical_random_ops_are_not_merged():
    @tf.function
    def f():
        return tf.random.uniform([8]), tf.random.uniform([8])

    assert _kernel_calls(_source(f), "RandomUniform") == 2
    a, b = f()
    assert not np.array_equal(a.numpy(), b.numpy())


def test_variable_reads_are_not_folded_or_merged_across_assignments():
    v = tf.Variable(1.0)

    @tf.function
    def f():
        before = v.read_value()
        v.assign_add(1.0)
        after = v.read_value()
        return before, after, before + after

    results = [t.numpy() for t in f()]
    assert results == [1.0, 2.0, 3.0]
    results = [t.numpy() for t in f()]
    assert results == [2.0, 3.0, 5.0]


def test_two_reads_of_one_variable_stay_two_reads():
    v = tf.Variable(2.0)

    @tf.function
    def f():
        return v.read_value() * v.read_value()

    source = _source(f)
    assert len([line for line in _body(source) if "_value" in line or "ReadVariable" in line]) == 2
    assert f().numpy() == 4.0


def test_assignments_whose_results_are_unused_still_run():
    v = tf.Variable(0)

    @tf.function
    def f():
        v.assign_add(5)
        v.assign_sub(2)
        return tf.constant(0)

    f()
    f()
    assert v.numpy() == 6


def test_tf_print_is_never_dropped_and_prints_in_program_order():
    stream = io.StringIO()
    v = tf.Variable(1)

    @tf.function
    def f(x):
        tf.print("first", x, output_stream=stream)
        v.assign(x * 10)
        tf.print("second", v, output_stream=stream)
        v.assign(x * 100)
        tf.print("third", v.read_value(), output_stream=stream)
        return tf.constant(0)

    f(tf.constant(1))
    f(tf.constant(2))
    assert stream.getvalue().splitlines() == [
        "first 1", "second 10", "third 100", "first 2", "second 20", "third 200"]


def test_identical_prints_are_not_merged():
    stream = io.StringIO()

    @tf.function
    def f(x):
        tf.print(x, output_stream=stream)
        tf.print(x, output_stream=stream)
        return x

    f(tf.constant(5))
    assert stream.getvalue() == "5\n5\n"


def test_py_function_with_unused_result_still_runs_in_order():
    calls = []

    def record(tag):
        def run(x):
            calls.append((tag, int(x)))
            return x
        return run

    @tf.function
    def f(x):
        tf.py_function(record("a"), [x], tf.int32)
        tf.py_function(record("b"), [x + 1], tf.int32)
        tf.py_function(record("a"), [x], tf.int32)
        return tf.constant(0)

    f(tf.constant(1))
    f(tf.constant(10))
    assert calls == [("a", 1), ("b", 2), ("a", 1), ("a", 10), ("b", 11), ("a", 10)]


def test_py_function_with_constant_inputs_is_not_folded():
    counter = []

    def tick():
        counter.append(1)
        return len(counter)

    @tf.function
    def f():
        return tf.py_function(tick, [], tf.int32)

    assert [f().numpy() for _ in range(3)] == [1, 2, 3]


def test_stateful_ops_keep_program_order_relative_to_reads():
    v = tf.Variable(0.0)
    stream = io.StringIO()

    @tf.function
    def f():
        tf.print(v.read_value(), output_stream=stream)
        v.assign_add(1.0)
        tf.print(v.read_value(), output_stream=stream)
        v.assign_add(1.0)
        return v.read_value()

    assert f().numpy() == 2.0
    assert stream.getvalue() == "0\n1\n"


def test_side_effects_whose_inputs_are_folded_still_run():
    stream = io.StringIO()

    @tf.function
    def f():
        tf.print(tf.constant(2) * 3, output_stream=stream)
        return tf.constant(1)

    f()
    f()
    assert stream.getvalue() == "6\n6\n"


# -- errors while running ----------------------------------------------------------------------

AUTOGRAPH = pytest.mark.parametrize("autograph", [False, True], ids=["as written", "converted"])


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
    assert "test_executor.py:" in message
    assert "the gather line" in message
    assert "index 7" in message
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
    assert "test_executor.py:%d in index_into" % line in message
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


def test_runtime_error_does_not_end_in_generated_code():
    @tf.function
    def f(x, i):
        return tf.gather(x, i)

    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant([1.0]), tf.constant(3))
    assert info.value.__cause__ is None


def test_a_failed_call_leaves_the_function_usable():
    @tf.function
    def f(x, i):
        return tf.gather(x, i)

    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.constant([1, 2]), tf.constant(2))
    assert f(tf.constant([1, 2]), tf.constant(1)).numpy() == 2
    assert f.experimental_get_tracing_count() == 1


def test_runtime_integer_division_by_zero_is_invalid_argument():
    @tf.function
    def f(x, y):
        return x // y

    with pytest.raises(tf.errors.InvalidArgumentError, match="FloorDiv"):
        f(tf.constant([4]), tf.constant([0]))


@AUTOGRAPH
def test_failing_assertion_in_a_graph_names_the_user_line(autograph):
    def f(x):
        tf.debugging.assert_equal(x, 0, message="x must be zero")  # the assertion
        return x

    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.function(f, autograph=autograph)(tf.constant(1))
    assert "x must be zero" in str(info.value)
    assert "test_executor.py" in str(info.value)
