"""TensorArrays and staged lists in converted code: lists appended in tensor loops and
branches, and the analysis that finds appended names."""

import gast
import numpy as np
import pytest

import autograph.tf as tf
from autograph.pyct import parsing
from autograph.pyct.analysis import activity, dataflow
from runtime.operators.staged_lists import StagedList


def graph_op_types(concrete):
    return [node.op for node in concrete.graph.as_graph_def().node]


def squares(n):
    out = []
    for i in tf.range(n):
        out.append(i * i)
    return tf.stack(out)


def _analyze(source):
    module, _ = parsing.parse_source(source, "snippet.py")
    function = module.body[0]
    return function, dataflow.analyze(function)


def test_concat_in_a_graph_of_rows_written_in_a_loop():
    @tf.function
    def triangle(n, element_shape=None):
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True, infer_shape=False,
                            element_shape=element_shape)
        for i in tf.range(n):
            ta = ta.write(i, tf.range(i + 1))
        return ta.concat()

    assert triangle(tf.constant(4)).numpy().tolist() == [0, 0, 1, 0, 1, 2, 0, 1, 2, 3]
    assert triangle(tf.constant(0), [None]).numpy().tolist() == []
    with pytest.raises(tf.errors.InvalidArgumentError, match="empty TensorArray"):
        triangle(tf.constant(0))  # no rows, and nothing says their rank

    @tf.function
    def pairs(x):
        ta = tf.TensorArray(tf.float32, size=3, element_shape=[2])
        for i in tf.range(3):
            ta = ta.write(i, x * tf.cast(i, tf.float32))
        return ta.concat()

    assert pairs.get_concrete_function(tf.constant([1.0, 2.0])).structured_outputs.shape == (6,)
    assert pairs(tf.constant([1.0, 2.0])).numpy().tolist() == [0, 0, 1, 2, 2, 4]


def test_fixed_size_array_in_a_for_loop_keeps_its_element_shape():
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=x.shape[0])
        for i in tf.range(x.shape[0]):
            ta = ta.write(i, x[i] * 2.0)
        return ta.stack()

    cf = f.get_concrete_function(tf.TensorSpec([4, 3], tf.float32))
    assert cf.structured_outputs.shape == (4, 3)
    assert graph_op_types(cf).count("While") + graph_op_types(cf).count("StatelessWhile") == 1
    x = np.random.RandomState(0).rand(4, 3).astype(np.float32)
    np.testing.assert_allclose(f(x).numpy(), x * 2.0)


def test_dynamic_array_in_a_while_loop():
    @tf.function
    def collatz(n):
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        i = 0
        while n != 1:
            ta = ta.write(i, n)
            n = tf.where(n % 2 == 0, n // 2, 3 * n + 1)
            i += 1
        return ta.stack(), ta.size()

    out = collatz.get_concrete_function(tf.constant(6)).structured_outputs
    assert out[0].shape.as_list() == [None]
    values, size = collatz(tf.constant(6))
    assert values.numpy().tolist() == [6, 3, 10, 5, 16, 8, 4, 2]
    assert size.numpy() == 8
    assert collatz(tf.constant(1))[0].numpy().tolist() == []


def test_nested_loops_write_a_matrix():
    @tf.function
    def table(n):
        rows = tf.TensorArray(tf.int32, size=n)
        for i in tf.range(n):
            row = tf.TensorArray(tf.int32, size=n)
            for j in tf.range(n):
                row = row.write(j, i * j)
            rows = rows.write(i, row.stack())
        return rows.stack()

    np.testing.assert_array_equal(table(tf.constant(3)).numpy(),
                                  np.outer(np.arange(3), np.arange(3)))


def test_element_dtype_cannot_change_in_a_loop():
    @tf.function
    def f(n):
        ta = tf.TensorArray(tf.float32, size=3)
        for i in tf.range(n):
            ta = ta.write(i, i)
        return ta.stack()

    with pytest.raises(TypeError, match="cannot write a value of dtype int32"):
        f(tf.constant(3))


def test_array_written_in_branches_of_an_if():
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=2)
        if x > 0:
            ta = ta.write(0, x).write(1, x * 2.0)
        else:
            ta = ta.write(0, -x).write(1, x)
        return ta.stack()

    assert f(tf.constant(3.0)).numpy().tolist() == [3.0, 6.0]
    assert f(tf.constant(-3.0)).numpy().tolist() == [3.0, -3.0]
    assert f.get_concrete_function(tf.constant(1.0)).structured_outputs.shape == (2,)


def test_array_written_in_one_branch_only():
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=1, element_shape=[2])
        ta = ta.write(0, tf.zeros([2]))
        if tf.reduce_sum(x) > 0:
            ta = ta.write(0, x)
        return ta.read(0)

    assert f(tf.constant([1.0, 2.0])).numpy().tolist() == [1.0, 2.0]
    assert f(tf.constant([-1.0, -2.0])).numpy().tolist() == [0.0, 0.0]


def test_branches_with_different_element_dtypes_are_an_error_naming_the_variable():
    @tf.function
    def f(x):
        if x > 0:
            ta = tf.TensorArray(tf.float32, size=1)
        else:
            ta = tf.TensorArray(tf.int32, size=1)
        return ta.size()

    with pytest.raises(TypeError, match="'ta' is a TensorArray of float32 in the if branch but "
                                        "of int32 in the else branch"):
        f(tf.constant(1))


def test_list_appended_in_a_tensor_loop_is_staged():
    f = tf.function(squares)
    assert f(tf.constant(4)).numpy().tolist() == [0, 1, 4, 9]
    assert f(tf.constant(6)).numpy().tolist() == [0, 1, 4, 9, 16, 25]
    assert f.experimental_get_tracing_count() == 1
    assert f(tf.constant(0)).shape == (0,)
    assert squares(4).numpy().tolist() == [0, 1, 4, 9]  # plain Python (eager) agrees


def test_returned_staged_list_comes_back_as_a_list():
    @tf.function
    def f(n):
        out = []
        for i in tf.range(n):
            out.append(tf.cast(i, tf.float32) * 0.5)
        return out

    result = f(tf.constant(3))
    assert isinstance(result, list)
    assert [t.numpy() for t in result] == [0.0, 0.5, 1.0]
    assert f(tf.constant(0)) == []


def test_list_uses_after_and_inside_the_loop():
    @tf.function
    def f(n):
        out = [tf.constant(1)]
        for _ in tf.range(n):
            out.append(out[-1] * 2)
        total = 0
        for v in out:
            total += v
        return tf.stack(out), len(out), out[0], out[-1], total

    stacked, length, first, last, total = f(tf.constant(4))
    assert stacked.numpy().tolist() == [1, 2, 4, 8, 16]
    assert length.numpy() == 5 and first.numpy() == 1 and last.numpy() == 16
    assert total.numpy() == 31


def test_conditional_appends_and_while_loops():
    @tf.function
    def evens(n):
        out = []
        i = 0
        while i < n:
            if i % 2 == 0:
                out.append(i)
            i += 1
        return tf.convert_to_tensor(out)

    assert evens(tf.constant(7)).numpy().tolist() == [0, 2, 4, 6]
    assert evens(tf.constant(0)).numpy().tolist() == []


def test_list_appended_in_nested_loops_and_with_break():
    @tf.function
    def pairs(n):
        out = []
        for i in tf.range(n):
            for j in tf.range(i):
                if i + j > 4:
                    break
                out.append(i * 10 + j)
        return tf.stack(out)

    def reference(n):
        out = []
        for i in range(n):
            for j in range(i):
                if i + j > 4:
                    break
                out.append(i * 10 + j)
        return out

    assert pairs(tf.constant(5)).numpy().tolist() == reference(5)


def test_list_elements_keep_their_static_shape():
    @tf.function
    def rows(x):
        out = []
        for i in tf.range(tf.shape(x)[0]):
            out.append(x[i] + 1.0)
        return tf.stack(out)

    cf = rows.get_concrete_function(tf.TensorSpec([None, 3], tf.float32))
    assert cf.structured_outputs.shape.as_list() == [None, 3]
    np.testing.assert_array_equal(rows(np.zeros([2, 3], np.float32)).numpy(), np.ones([2, 3]))


def test_lists_of_python_values_stay_python_side_effects():
    log = []

    @tf.function
    def f(n):
        trace_log = []
        s = 0
        for i in tf.range(n):
            trace_log.append("step")
            log.append("outer")
            s += i
        return s, len(trace_log)

    s, length = f(tf.constant(4))
    assert s.numpy() == 6 and length.numpy() == 1  # appended once, while tracing
    assert log == ["outer"]


def test_loop_bodies_are_traced_once():
    traces = []

    @tf.function
    def appends(n):
        out = []
        for i in tf.range(n):
            traces.append("appends")
            out.append(i)
        return tf.stack(out)

    @tf.function
    def logs(n):
        log = []
        s = 0
        for i in tf.range(n):
            traces.append("logs")
            log.append("step")
            s += i
        return s

    @tf.function
    def functional(n):
        return tf.while_loop(lambda i, s: i < n,
                             lambda i, s: (traces.append("while_loop") or i + 1, s + i),
                             [tf.constant(0), tf.constant(0)])

    assert appends(tf.constant(3)).numpy().tolist() == [0, 1, 2]
    assert logs(tf.constant(3)).numpy() == 3
    assert [t.numpy() for t in functional(tf.constant(3))] == [3, 3]
    assert traces == ["appends", "logs", "while_loop"]


def test_list_reassigned_in_the_loop_is_an_ordinary_loop_variable():
    @tf.function
    def fib(n):
        pair = [tf.constant(0), tf.constant(1)]
        for _ in tf.range(n):
            pair = [pair[1], pair[0] + pair[1]]
        return pair

    assert [t.numpy() for t in fib(tf.constant(6))] == [8, 13]


def test_mixed_dtypes_in_a_staged_list_name_the_variable():
    @tf.function
    def f(n):
        out = []
        for i in tf.range(n):
            out.append(tf.cast(i, tf.float32))
            out.append(i)
        return tf.stack(out)

    with pytest.raises(TypeError, match="'out' is a list appended to in a loop on a tensor"):
        f(tf.constant(2))


def test_list_grown_in_a_tensor_branch_is_a_clear_error():
    @tf.function
    def f(x):
        out = []
        if x > 0:
            out.append(x * 2)
        return out

    with pytest.raises(ValueError, match=r"'out' is changed in place by out.append\(\) inside a "
                                         r"conditional on a tensor, and its length differs"):
        f(tf.constant(1))


def test_staged_list_helpers():
    @tf.function
    def f(n):
        out = []
        for i in tf.range(n):
            out.append(i)
        assert isinstance(out, StagedList)
        assert isinstance(len(out), tf.Tensor)  # converted code: a run-time length
        with pytest.raises(TypeError, match="known only when the graph runs"):
            out.__len__()  # Python's len must return an int
        with pytest.raises(TypeError, match="cannot iterate in Python"):
            iter(out)
        return out[1:], tf.stack(out, axis=-1)

    sliced, stacked = f(tf.constant(3))
    assert sliced.numpy().tolist() == [1, 2] and stacked.numpy().tolist() == [0, 1, 2]


def test_appended_names_are_found_in_this_scope_only():
    module, _ = parsing.parse_source(
        "def f(a, b):\n"
        "    a.append(1)\n"
        "    g = b.append\n"
        "    c.d.append(2)\n"
        "    def inner():\n"
        "        e.append(3)\n"
        "    [h.append(4) for _ in a]\n", "snippet.py")
    assert activity.appended_names(module.body[0].body) == {"a", "b"}


def test_appending_to_a_local_list_modifies_it_but_not_a_global_one():
    function, annotations = _analyze(
        "def f(n):\n"
        "    out = []\n"
        "    for i in n:\n"
        "        out.append(i)\n"
        "        LOG.append(i)\n"
        "    return out\n")
    loop = next(node for node in gast.walk(function) if isinstance(node, gast.For))
    info = annotations.info(loop)
    assert "out" in info.modified and "LOG" not in info.modified
    assert info.state_names(True) == ("out",)


def test_numbers_appended_in_a_tensor_loop_are_staged_with_the_tensors():
    @tf.function
    def interleaved(n):
        out = []
        for i in tf.range(n):
            out.append(i)
            out.append(7)
        return out

    assert [int(t.numpy()) for t in interleaved(tf.constant(3))] == [0, 7, 1, 7, 2, 7]


def test_tensors_and_strings_appended_to_one_list_in_a_tensor_loop_is_an_error():
    @tf.function
    def mixed(n):
        out = []
        for i in tf.range(n):
            out.append(i)
            out.append("x")
        return out

    with pytest.raises(TypeError, match="'out' is a list that a loop on a tensor appends both"):
        mixed(tf.constant(3))


def test_tensor_arrays_and_staged_lists_pass_into_functions_as_arguments():
    total = tf.function(lambda ta: tf.reduce_sum(ta.stack()))

    @tf.function
    def outer(x):
        return total(tf.TensorArray(tf.float32, size=2).write(0, x).write(1, x))

    assert float(outer(tf.constant(1.0)).numpy()) == 2.0
    first = tf.TensorArray(tf.float32, size=2).write(0, 1.0).write(1, 2.0)
    second = tf.TensorArray(tf.float32, size=2).write(0, 3.0).write(1, 2.0)
    assert [float(total(first).numpy()), float(total(second).numpy())] == [3.0, 5.0]
    assert total.experimental_get_tracing_count() == 1  # keyed by kind and metadata, not object

    @tf.function
    def stacked(values):
        return tf.stack(values)

    @tf.function
    def squares(n):
        out = []
        for i in tf.range(n):
            out.append(i * i)
        return stacked(out)

    assert squares(tf.constant(4)).numpy().tolist() == [0, 1, 4, 9]


def test_list_grown_by_a_tensor_loop_in_one_branch_of_a_tensor_if():
    @tf.function
    def count(x):
        out = []
        if x > 0:
            for i in tf.range(x):
                out.append(i)
        return len(out)

    assert [int(count(tf.constant(v)).numpy()) for v in (3, -1)] == [3, 0]


def test_a_staged_list_is_true_when_not_empty():
    @tf.function
    def any_appended(n):
        out = []
        for i in tf.range(n):
            out.append(i)
        if out:
            return tf.constant(1)
        return tf.constant(0)

    assert [int(any_appended(tf.constant(v)).numpy()) for v in (3, 0)] == [1, 0]


_METHOD_ARGUMENTS = {"pop": (), "extend": ([1],), "insert": (0, 1), "clear": (),
                     "remove": (1,), "reverse": (), "sort": ()}


def _appended_in_a_staged_loop_then(method):
    def f(n):
        L = []
        for i in tf.range(n):
            L.append(i)
        getattr(L, method)(*_METHOD_ARGUMENTS[method])
        return len(L)
    return f


@pytest.mark.parametrize("method", sorted(_METHOD_ARGUMENTS))
def test_other_list_methods_on_a_staged_list_are_refused_naming_the_list(method):
    with pytest.raises(NotImplementedError, match=r"'L' is a list appended to in a loop on a "
                                                  r"tensor.*L\.%s\(\) cannot be staged" % method):
        tf.function(_appended_in_a_staged_loop_then(method))(tf.constant(3))


def _sum_of_appended(n):
    L = []
    for i in range(n):
        L.append(i * i)
    return sum(L) + sum(L, 10)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_sum_of_a_staged_list_gives_pythons_answer_for_every_length(n):
    assert int(tf.function(_sum_of_appended)(tf.constant(n)).numpy()) == _sum_of_appended(n)


def _max_of_appended(n):
    L = []
    for i in range(n):
        L.append(i)
    return max(L)


def test_python_iteration_over_a_staged_list_is_refused_at_trace_naming_the_list_and_line():
    function = tf.function(_max_of_appended)
    with pytest.raises(TypeError, match=r"(?s)cannot iterate in Python over 'L'.*in user "
                                        r"code:.*return max\(L\)"):
        function.get_concrete_function(tf.TensorSpec([], tf.int32))
