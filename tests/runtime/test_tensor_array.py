"""tf.TensorArray: each method eagerly, in straight graphs, as the state of staged loops and
conditionals; the errors (naming the index, and the user's line when a graph runs); the
persistent run-time value; and Python lists appended to in loops on tensors (staged as
TensorArrays)."""

import random
import threading

import gast
import numpy as np
import pytest

import autograph.tf as tf
from autograph.pyct import parsing
from autograph.pyct.analysis import activity, dataflow
from runtime import nest
from runtime.operators.staged_lists import StagedList
from runtime.ops import tensor_array_value
from runtime.tensor_array import TensorArray


def graph_op_types(concrete):
    return [node.op for node in concrete.graph.as_graph_def().node]


# -- eager ---------------------------------------------------------------------------------------


def test_write_read_stack_size_eagerly():
    ta = tf.TensorArray(tf.float32, size=3)
    ta = ta.write(0, 1.0).write(1, tf.constant(2.0)).write(2, np.float32(3.0))
    assert ta.read(1).numpy() == 2.0
    assert ta.read(tf.constant(2)).numpy() == 3.0
    np.testing.assert_array_equal(ta.stack().numpy(), [1.0, 2.0, 3.0])
    assert ta.stack().dtype is tf.float32
    assert ta.size().numpy() == 3
    assert ta.dtype is tf.float32
    assert ta.element_shape == tf.TensorShape([])


def test_write_returns_a_new_array_and_leaves_the_old_one():
    empty = tf.TensorArray(tf.int32, size=2)
    a = empty.write(0, 1)
    b = empty.write(0, 2)
    a1 = a.write(1, 10)
    b1 = b.write(1, 20)
    np.testing.assert_array_equal(a1.stack().numpy(), [1, 10])
    np.testing.assert_array_equal(b1.stack().numpy(), [2, 20])
    assert a.read(0).numpy() == 1 and b.read(0).numpy() == 2
    with pytest.raises(tf.errors.InvalidArgumentError, match="index 1 was read before"):
        a.read(1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="index 0 was read before"):
        empty.read(0)


def test_unstack_gather_and_scatter_eagerly():
    ta = tf.TensorArray(tf.float32, size=3).unstack([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert ta.element_shape == tf.TensorShape([2])
    np.testing.assert_array_equal(ta.read(2).numpy(), [5.0, 6.0])
    gathered = ta.gather([2, 0])
    assert gathered.shape == (2, 2)
    np.testing.assert_array_equal(gathered.numpy(), [[5.0, 6.0], [1.0, 2.0]])
    np.testing.assert_array_equal(ta.gather([[0], [1]]).numpy(), [[[1.0, 2.0]], [[3.0, 4.0]]])
    scattered = tf.TensorArray(tf.int32, size=3).scatter([2, 0, 1], [[7], [8], [9]])
    np.testing.assert_array_equal(scattered.stack().numpy(), [[8], [9], [7]])


def test_concat_joins_the_elements_along_their_first_dimension():
    ta = tf.TensorArray(tf.float32, size=2).write(0, [[1.0, 2.0]]).write(1, [[3.0, 4.0]])
    joined = ta.concat()
    assert joined.shape == (2, 2)
    np.testing.assert_array_equal(joined.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    empty = tf.TensorArray(tf.int32, size=0, element_shape=[None, 3]).concat()
    assert empty.shape == (0, 3) and empty.dtype is tf.int32
    with pytest.raises(tf.errors.InvalidArgumentError, match="scalars"):
        tf.TensorArray(tf.int32, size=1).write(0, 5).concat()


def test_infer_shape_false_allows_rows_of_different_lengths_joined_by_concat():
    ta = tf.TensorArray(tf.int32, size=3, infer_shape=False)
    ta = ta.write(0, [1]).write(1, [2, 3]).write(2, [4, 5, 6])
    assert ta.element_shape == tf.TensorShape(None)
    assert ta.concat().numpy().tolist() == [1, 2, 3, 4, 5, 6]
    assert ta.read(1).numpy().tolist() == [2, 3]
    with pytest.raises(tf.errors.InvalidArgumentError, match="different shapes.*index 1"):
        ta.stack()
    with pytest.raises(tf.errors.InvalidArgumentError, match="shape"):
        tf.TensorArray(tf.int32, size=2).write(0, [1]).write(1, [2, 3])  # infer_shape=True


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


def test_dynamic_size_grows_when_writing_past_the_end():
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    for i in range(5):
        ta = ta.write(i, i * i)
    assert ta.size().numpy() == 5
    np.testing.assert_array_equal(ta.stack().numpy(), [0, 1, 4, 9, 16])
    sparse = tf.TensorArray(tf.int32, size=1, dynamic_size=True).write(3, 1)
    assert sparse.size().numpy() == 4
    with pytest.raises(tf.errors.InvalidArgumentError, match="index 0 was read before"):
        sparse.stack()


def test_stack_of_an_empty_array_with_a_known_element_shape():
    assert tf.TensorArray(tf.float32, size=0, element_shape=[2, 3]).stack().shape == (0, 2, 3)
    assert tf.TensorArray(tf.int64, size=0, element_shape=()).stack().dtype is tf.int64
    with pytest.raises(tf.errors.InvalidArgumentError, match="element shape .* not fully known"):
        tf.TensorArray(tf.float32, size=0).stack()


def test_element_shape_is_learned_from_the_first_write():
    ta = tf.TensorArray(tf.float32, size=2)
    assert ta.element_shape == tf.TensorShape(None)
    ta = ta.write(0, tf.zeros([2, 3]))
    assert ta.element_shape == tf.TensorShape([2, 3])
    partial = tf.TensorArray(tf.float32, size=1, element_shape=[None, 3])
    assert partial.write(0, tf.zeros([4, 3])).element_shape == tf.TensorShape([4, 3])


def test_writing_past_a_fixed_size_names_the_index():
    ta = tf.TensorArray(tf.float32, size=2)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"index 2 is out of range: .*fixed size of 2 \(dynamic_size=False\)"
                             r"[\s\S]*in user code:[\s\S]*test_tensor_array.py"):
        ta.write(2, 1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="index -1 is negative"):
        ta.write(-1, 1.0)


def test_reading_unwritten_or_out_of_range_indices_names_the_index():
    ta = tf.TensorArray(tf.float32, size=3).write(0, 1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="index 2 was read before it was "
                                                             "written"):
        ta.read(2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="index 5 is out of range"):
        ta.read(5)
    with pytest.raises(tf.errors.InvalidArgumentError, match="index 1 was read before"):
        ta.stack()
    with pytest.raises(tf.errors.InvalidArgumentError, match="index 2 was read before"):
        ta.gather([0, 2])


def test_writing_a_wrong_dtype_or_shape_is_a_clear_error():
    ta = tf.TensorArray(tf.float32, size=2, element_shape=[2])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="cannot write a value of dtype int32 to a TensorArray of float32"):
        ta.write(0, tf.constant([1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"value of shape \(3,\) to a TensorArray whose elements have "
                             r"shape \(2,\)"):
        ta.write(0, tf.zeros([3]))
    learned = tf.TensorArray(tf.float32, size=2).write(0, tf.zeros([2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"shape \(2, 2\)"):
        learned.write(1, tf.zeros([2, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="unstack"):
        tf.TensorArray(tf.float32, size=2).unstack(tf.zeros([3]))


def test_python_values_are_converted_to_the_element_dtype():
    ta = tf.TensorArray(tf.float64, size=2).write(0, 1).write(1, 2.5)
    assert ta.stack().dtype is tf.float64
    np.testing.assert_array_equal(ta.stack().numpy(), [1.0, 2.5])


def test_constructor_checks():
    with pytest.raises(TypeError):
        tf.TensorArray("no such dtype")
    with pytest.raises(ValueError, match="negative"):
        tf.TensorArray(tf.float32, size=-1)
    with pytest.raises(TypeError, match="integer"):
        tf.TensorArray(tf.float32, size=1.5)


# -- persistent run-time value -------------------------------------------------------------------


def test_versions_behave_like_independent_copies():
    rng = random.Random(7)
    start = tensor_array_value.TensorArrayValue.empty(4, True, None, np.dtype(np.int64))
    versions = [(start, [None] * 4)]
    for step in range(400):
        value, model = versions[rng.randrange(len(versions))]
        if rng.random() < 0.3:
            pairs = [(rng.randrange(8), np.int64(rng.randrange(100))) for _ in range(3)]
        else:
            pairs = [(rng.randrange(8), np.int64(step))]
        new_model = list(model)
        for index, element in pairs:
            new_model.extend([None] * (index + 1 - len(new_model)))
            new_model[index] = element
        new = value.written(pairs) if len(pairs) > 1 else value.written_one(*pairs[0])
        versions.append((new, new_model))
        for value, model in rng.sample(versions, min(3, len(versions))):
            assert value.size == len(model)
            for index, expected in enumerate(model):
                if expected is None:
                    with pytest.raises(IndexError, match="index %d" % index):
                        value.read(index)
                else:
                    assert value.read(index) == expected


def test_a_traced_array_is_fresh_on_every_call_and_on_every_thread():
    @tf.function
    def f(n):
        ta = tf.TensorArray(tf.int32, size=3)
        for i in tf.range(3):
            ta = ta.write(i, i * n)
        return ta.stack()

    assert f(tf.constant(1)).numpy().tolist() == [0, 1, 2]
    assert f(tf.constant(2)).numpy().tolist() == [0, 2, 4]
    results = {}

    def run(k):
        results[k] = [f(tf.constant(k)).numpy().tolist() for _ in range(20)]

    threads = [threading.Thread(target=run, args=(k,)) for k in range(1, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(1, 5):
        assert results[k] == [[0, k, 2 * k]] * 20


# -- straight graphs ------------------------------------------------------------------------------


def test_methods_in_a_graph_have_static_shapes():
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=3)
        ta = ta.unstack(x)
        ta = ta.write(1, x[0] * 10.0)
        return ta.stack(), ta.read(2), ta.gather([2, 1]), ta.size()

    cf = f.get_concrete_function(tf.TensorSpec([3, 2], tf.float32))
    stacked, read, gathered, size = cf.structured_outputs
    assert stacked.shape == (3, 2) and read.shape == (2,) and gathered.shape == (2, 2)
    assert size.shape == ()
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    stacked, read, gathered, size = f(x)
    np.testing.assert_array_equal(stacked.numpy(), [[0, 1], [0, 10], [4, 5]])
    np.testing.assert_array_equal(read.numpy(), [4, 5])
    np.testing.assert_array_equal(gathered.numpy(), [[4, 5], [0, 10]])
    assert size.numpy() == 3


def test_graph_errors_are_invalid_argument_errors_naming_the_index_and_line():
    @tf.function
    def read_at(i):
        ta = tf.TensorArray(tf.float32, size=3).write(0, 1.0)
        return ta.read(i)

    assert read_at(tf.constant(0)).numpy() == 1.0
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"index 2 was read before it was written[\s\S]*in user code:"
                             r"[\s\S]*test_tensor_array.py:\d+[\s\S]*return ta.read\(i\)"):
        read_at(tf.constant(2))

    @tf.function
    def write_at(i):
        ta = tf.TensorArray(tf.float32, size=2)
        return ta.write(i, 1.0).stack()

    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"index 7 is out of range[\s\S]*return ta.write\(i, 1.0\)"):
        write_at(tf.constant(7))


def test_wrong_dtype_in_a_graph_fails_when_tracing():
    @tf.function
    def f(x):
        return tf.TensorArray(tf.float32, size=1).write(0, x).stack()

    with pytest.raises(TypeError, match="cannot write a value of dtype int32"):
        f(tf.constant(1))


def test_a_function_can_return_a_tensor_array():
    @tf.function
    def f(x):
        return tf.TensorArray(tf.float32, size=2).write(0, x).write(1, x + 1.0)

    ta = f(tf.constant(1.0))
    assert isinstance(ta, TensorArray)
    np.testing.assert_array_equal(ta.stack().numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(ta.write(1, 5.0).stack().numpy(), [1.0, 5.0])


def test_nest_treats_a_tensor_array_as_one_handle():
    ta = tf.TensorArray(tf.int32, size=2, element_shape=[3])
    flat = nest.flatten({"a": ta, "b": [1]})
    assert len(flat) == 2 and flat[0] is ta.handle
    assert flat[0].dtype is tensor_array_value.variant and flat[0].shape == ()
    rebuilt = nest.pack_sequence_as({"a": ta, "b": [1]}, flat)
    assert isinstance(rebuilt["a"], TensorArray) and rebuilt["a"].element_shape == [3]
    assert nest.structure_signature([ta]) == nest.structure_signature(
        [tf.TensorArray(tf.int32, size=5)])
    assert nest.structure_signature([ta]) != nest.structure_signature([ta.handle])


# -- loops ----------------------------------------------------------------------------------------


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


def test_read_inside_a_loop():
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.float32, size=3).unstack(x)
        total = tf.zeros([2])
        for i in tf.range(ta.size()):
            total += ta.read(i)
        return total

    assert f.get_concrete_function(tf.ones([3, 2])).structured_outputs.shape == (2,)
    np.testing.assert_array_equal(f(tf.ones([3, 2])).numpy(), [3.0, 3.0])


def test_tf_while_loop_with_a_tensor_array():
    @tf.function
    def f(n):
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        _, ta = tf.while_loop(lambda i, ta: i < n,
                              lambda i, ta: (i + 1, ta.write(i, i * 10)), [0, ta])
        return ta.stack()

    assert f(tf.constant(4)).numpy().tolist() == [0, 10, 20, 30]


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


def test_loops_run_eagerly_too():
    ta = tf.TensorArray(tf.float32, size=3)
    for i in tf.range(3):
        ta = ta.write(i, tf.cast(i, tf.float32) / 2)
    np.testing.assert_array_equal(ta.stack().numpy(), [0.0, 0.5, 1.0])


# -- conditionals ---------------------------------------------------------------------------------


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


def test_tf_cond_returning_tensor_arrays():
    @tf.function
    def f(x):
        ta = tf.TensorArray(tf.int32, size=2)
        out = tf.cond(x > 0, lambda: ta.write(0, x).write(1, x), lambda: ta.unstack([x, -x]))
        return out.stack()

    assert f(tf.constant(2)).numpy().tolist() == [2, 2]
    assert f(tf.constant(-2)).numpy().tolist() == [-2, 2]


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


# -- Python lists appended to in loops on tensors -------------------------------------------------


def squares(n):
    out = []
    for i in tf.range(n):
        out.append(i * i)
    return tf.stack(out)


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

    with pytest.raises(ValueError, match="'out' is a Python list that a branch of a conditional "
                                         "on a tensor appends a tensor to"):
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


# -- the analysis: `x.append(...)` modifies x -----------------------------------------------------


def _analyze(source):
    module, _ = parsing.parse_source(source, "snippet.py")
    function = module.body[0]
    return function, dataflow.analyze(function)


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
