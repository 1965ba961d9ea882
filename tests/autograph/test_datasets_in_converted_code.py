"""Datasets in converted code: Python loops over datasets and iterators, `Dataset.map`'s
conversion of its function."""


import pytest
from dataset_values import as_python, eager
from source_lines import line_of

import autograph
import autograph.tf as tf
from runtime import context, nest


def in_graph(ds):
    flat_seen = []

    def record(*values):
        flat_seen.append([as_python(v.numpy()) for v in values])

    @tf.function
    def run(dataset):
        for element in dataset:
            tf.py_function(record, nest.flatten(element), Tout=None)

    run(ds)
    spec = ds.element_spec
    if not nest.is_nested(spec):
        return [values[0] for values in flat_seen]
    return [nest.pack_sequence_as(spec, values) for values in flat_seen]


def both(ds):
    """The elements, checked to be the same eagerly and in a graph."""
    values = eager(ds)
    assert in_graph(ds) == values
    return values


def spec(shape, dtype):
    return tf.TensorSpec(shape, dtype)


def graph_op_types(f, *args):
    return [n.op for n in f.get_concrete_function(*args).graph.as_graph_def().node]


def test_map_function_is_converted_and_traced_once(capsys):
    def clip(x):
        print("tracing clip")
        if x > 2:  # a tensor condition: needs autograph
            x = x * 0 + 2
        return x

    ds = tf.data.Dataset.range(5).map(clip)
    assert capsys.readouterr().out == "tracing clip\n"
    assert both(ds) == [0, 1, 2, 2, 2]
    assert both(ds) == [0, 1, 2, 2, 2]
    assert capsys.readouterr().out == ""


def test_map_outside_any_traced_function_uses_the_default_converter():
    previous = context.function_converter()
    assert previous is not None  # importing autograph installs its compiler's
    seen = []
    context.set_default_converter(lambda f: seen.append(f) or f)
    try:
        tf.data.Dataset.range(2).map(abs)
    finally:
        context.set_default_converter(previous)
    assert seen == [abs]


def test_map_inside_a_function_captures_its_tensors():
    @tf.function
    def scaled_sum(values, k):
        ds = tf.data.Dataset.from_tensor_slices(values).map(lambda v: v * k)
        total = 0.0
        for v in ds:
            total += v
        return total

    assert scaled_sum(tf.constant([1.0, 2.0, 3.0]), tf.constant(10.0)).numpy() == 60.0
    assert scaled_sum(tf.constant([1.0, 2.0, 4.0]), tf.constant(0.5)).numpy() == 3.5
    assert scaled_sum.experimental_get_tracing_count() == 1


def test_loop_over_an_iterator_in_a_function_consumes_only_what_it_uses():
    @tf.function
    def sum_until_over(it, limit):
        total = 0
        for x in it:
            total += x
            if total > limit:
                break
        return total

    it = iter(tf.data.Dataset.from_tensor_slices([1, 2, 3, 4, 5, 6]))
    assert sum_until_over(it, 2).numpy() == 3    # 1 + 2
    assert next(it).numpy() == 3                  # break left the next element in place
    assert sum_until_over(it, 100).numpy() == 15  # the rest: 4 + 5 + 6


def test_for_over_a_dataset_is_one_while_op(capsys):
    @tf.function
    def total(ds):
        print("tracing")
        s = tf.constant(0, tf.int64)
        for x in ds:
            print("tracing the body")
            s += x
        return s

    small, large = tf.data.Dataset.range(3), tf.data.Dataset.range(1000)
    assert total(small).numpy() == 3
    assert total(large).numpy() == 499500
    assert graph_op_types(total, small) == graph_op_types(total, large)
    assert graph_op_types(total, small).count("While") == 1
    out = capsys.readouterr().out
    assert out.count("tracing\n") == 1  # datasets of one element_spec share a trace (as TF)


def test_datasets_of_one_element_spec_reuse_the_trace():
    @tf.function
    def count(ds):
        n = 0
        for _ in ds:
            n += 1
        return n

    ds = tf.data.Dataset.range(4)
    assert count(ds).numpy() == 4
    assert count(ds).numpy() == 4
    assert count.experimental_get_tracing_count() == 1
    assert count(tf.data.Dataset.range(2)).numpy() == 2
    assert count.experimental_get_tracing_count() == 1  # keyed by element_spec, as in TF
    assert count(tf.data.Dataset.range(2).map(lambda x: tf.cast(x, tf.int32))).numpy() == 2
    assert count.experimental_get_tracing_count() == 2


def test_break_continue_and_return_in_a_dataset_loop():
    @tf.function
    def first_over(ds, limit):
        for x in ds:
            if x > limit:
                return x
        return tf.constant(-1, tf.int64)

    @tf.function
    def odd_sum_until(ds, stop):
        s = tf.constant(0, tf.int64)
        for x in ds:
            if x == stop:
                break
            if x % 2 == 0:
                continue
            s += x
        return s

    ds = tf.data.Dataset.range(10)
    assert first_over(ds, 3).numpy() == 4
    assert first_over(ds, 30).numpy() == -1
    assert odd_sum_until(ds, 6).numpy() == 1 + 3 + 5
    assert odd_sum_until(ds, 100).numpy() == 25


def test_nested_dataset_loops_restart_the_inner_dataset():
    @tf.function
    def products(a, b):
        t = 0
        for x in a:
            for y in b:
                t += x * y
        return t

    a = tf.data.Dataset.from_tensor_slices([1, 2])
    b = tf.data.Dataset.from_tensor_slices([10, 20, 30])
    assert products(a, b).numpy() == 180


def test_a_variable_first_set_in_the_loop_and_a_loop_without_state(capsys):
    @tf.function
    def last(ds):
        for x in ds:
            y = x
        return y

    @tf.function
    def show(ds):
        for x, y in ds:
            tf.print(x, y)

    assert last(tf.data.Dataset.from_tensor_slices([1, 2, 7])).numpy() == 7
    show(tf.data.Dataset.from_tensor_slices(([1, 2], [3, 4])))
    assert capsys.readouterr().err == "1 3\n2 4\n"


def test_dataset_built_inside_a_function_from_its_arguments():
    @tf.function
    def batch_sums(x):
        sums = tf.constant(0)
        for b in tf.data.Dataset.from_tensor_slices(x).batch(2):
            sums = sums * 100 + tf.reduce_sum(b)
        return sums

    assert batch_sums(tf.constant([1, 2, 3, 4, 5])).numpy() == 3 * 10000 + 7 * 100 + 5


def test_converted_loop_over_a_dataset_runs_in_python_eagerly():
    def total(ds):
        s = 0
        for x in ds:
            if x > 2:
                break
            s += x
        return s

    converted = tf.autograph.to_graph(total)
    assert converted(tf.data.Dataset.range(10)).numpy() == 3
    it = iter(tf.data.Dataset.range(10))
    assert converted(it).numpy() == 3
    assert next(it).numpy() == 4  # the element after the one that broke the loop


def test_a_list_built_in_a_dataset_loop_is_staged():
    @tf.function
    def doubled(ds):
        out = []
        for x in ds:
            out.append(x * 2)
        return tf.stack(out)

    assert doubled(tf.data.Dataset.range(4)).numpy().tolist() == [0, 2, 4, 6]


def test_enumerate_and_zip_of_datasets_in_converted_code_are_dataset_ops():
    @tf.function
    def weighted(ds):
        s = tf.constant(0, tf.int64)
        for i, x in enumerate(ds):
            s += x * i
        return s

    @tf.function
    def dot(a, b):
        s = tf.constant(0, tf.int64)
        for x, y in zip(a, b):
            s += x * y
        return s

    assert int(weighted(tf.data.Dataset.range(4)).numpy()) == 14
    assert int(dot(tf.data.Dataset.range(4), tf.data.Dataset.range(4)).numpy()) == 14


def take_until_stop(it, n):
    s = tf.constant(0, tf.int64)
    try:
        while n > 0:
            s += next(it)
            n -= 1
    except StopIteration:
        s = s + 100
    return s


def test_staged_loop_taking_next_inside_try_except_stop_iteration_is_staged():
    function = tf.function(take_until_stop)
    assert function(iter(tf.data.Dataset.range(4)), tf.constant(2)).numpy() == 0 + 1


def test_iterator_ending_in_a_staged_loop_inside_try_except_stop_iteration_raises_at_run_time():
    """Python runs the handler; the graph raises OutOfRangeError (TensorFlow's answer),
    naming the line of `next`: never the handler's value traced in as if it had run."""
    function = tf.function(take_until_stop)
    with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence") as info:
        function(iter(tf.data.Dataset.range(4)), tf.constant(10))
    assert "%s:%d" % (__file__, line_of(take_until_stop, "s += next(it)")) in str(info.value)


def test_converted_loop_taking_next_inside_try_except_stop_iteration_runs_the_handler():
    converted = autograph.to_graph(take_until_stop)
    assert converted(iter(tf.data.Dataset.range(4)), 10).numpy() == 0 + 1 + 2 + 3 + 100
    assert converted(iter(tf.data.Dataset.range(4)), 2).numpy() == 1


def test_staged_loop_inside_try_except_out_of_range_error_is_still_refused():
    @tf.function
    def take(it, n):
        s = tf.constant(0, tf.int64)
        try:
            while n > 0:
                s += it.get_next()
                n -= 1
        except (tf.errors.OutOfRangeError, StopIteration):
            s = s + 100
        return s

    with pytest.raises(NotImplementedError, match="cannot be staged inside the `try`"):
        take(iter(tf.data.Dataset.range(4)), tf.constant(2))
