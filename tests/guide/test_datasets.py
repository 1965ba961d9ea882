"""Guide sections on tf.data: "Looping over Python data" (measure_graph_size with Python
lists versus Datasets) and "Using Python iterators and generators" (buggy_consume_next
versus good_consume_next).

The guide's node counts come from TensorFlow's graphs (11 and 32 nodes for the lists, 6 for
the datasets); ours differ, so the tests assert the property the guide makes: a loop over a
Python list unrolls and grows with the data, a loop over a Dataset is one While op and the
graph has the same size for any amount of data.
"""

import re

import pytest

import autograph.tf as tf


def measure_graph_size(f, *args):
    g = f.get_concrete_function(*args).graph
    print("{}({}) contains {} nodes in its graph".format(
        f.__name__, ', '.join(map(str, args)), len(g.as_graph_def().node)))


def make_train():
    @tf.function
    def train(dataset):
        loss = tf.constant(0)
        for x, y in dataset:
            loss += tf.abs(y - x)  # Some dummy computation.
        return loss
    return train


def graph_ops(f, *args):
    return [node.op for node in f.get_concrete_function(*args).graph.as_graph_def().node]


def printed_sizes(text):
    return [int(n) for n in re.findall(r"contains (\d+) nodes in its graph", text)]


# -- Looping over Python data ------------------------------------------------------------------


def test_measure_graph_size_lists_grow_datasets_do_not(capsys):
    train = make_train()
    small_data = [(1, 1)] * 3
    big_data = [(1, 1)] * 10
    measure_graph_size(train, small_data)
    measure_graph_size(train, big_data)
    measure_graph_size(train, tf.data.Dataset.from_generator(
        lambda: small_data, (tf.int32, tf.int32)))
    measure_graph_size(train, tf.data.Dataset.from_generator(
        lambda: big_data, (tf.int32, tf.int32)))
    out = capsys.readouterr().out
    small_list, big_list, small_ds, big_ds = printed_sizes(out)
    assert big_list > small_list          # the Python loop unrolled: 7 more copies of the body
    assert small_ds == big_ds             # one While op, whatever the data
    assert small_ds < small_list
    # The guide prints the datasets' types; unknown shapes, as from_generator declares none.
    assert "train(<_FlatMapDataset element_spec=(TensorSpec(shape=<unknown>, " \
           "dtype=tf.int32, name=None), TensorSpec(shape=<unknown>, dtype=tf.int32, " \
           "name=None))>) contains" in out


def dataset_graph(kind, n):
    data = [(1, 2)] * n
    if kind == "from_generator":
        return tf.data.Dataset.from_generator(lambda: data, (tf.int32, tf.int32))
    return tf.data.Dataset.from_tensor_slices(([1] * n, [2] * n))


@pytest.mark.parametrize("kind", ["from_generator", "from_tensor_slices"])
def test_dataset_graphs_do_not_depend_on_the_data(kind):
    train = make_train()
    small, large = dataset_graph(kind, 3), dataset_graph(kind, 300)
    small_ops, large_ops = graph_ops(train, small), graph_ops(train, large)
    assert small_ops == large_ops
    assert small_ops.count("While") == 1
    assert "AnonymousIterator" in small_ops
    assert train(small).numpy() == 3
    assert train(large).numpy() == 300


def test_python_list_graph_grows_with_the_data():
    train = make_train()
    assert len(graph_ops(train, [(1, 2)] * 30)) > len(graph_ops(train, [(1, 2)] * 3)) + 20
    assert "While" not in graph_ops(train, [(1, 2)] * 3)


def test_training_loop_over_a_dataset_gives_the_python_result():
    train = make_train()
    pairs = [(1, 4), (5, 2), (7, 7), (0, 10)]
    expected = sum(abs(y - x) for x, y in pairs)
    assert train(pairs).numpy() == expected
    assert train(tf.data.Dataset.from_generator(lambda: pairs, (tf.int32, tf.int32))
                 ).numpy() == expected
    xs, ys = zip(*pairs)
    ds = tf.data.Dataset.from_tensor_slices((list(xs), list(ys)))
    assert train(ds).numpy() == expected
    assert train(ds).numpy() == expected  # a new pass over the dataset on every call


def test_from_generator_calls_the_generator_on_every_call():
    calls = []

    def gen():
        calls.append(1)
        yield from [(1, 2), (3, 5)]

    train = make_train()
    ds = tf.data.Dataset.from_generator(gen, (tf.int32, tf.int32))
    assert train(ds).numpy() == 3
    assert train(ds).numpy() == 3
    assert len(calls) == 2
    assert train.experimental_get_tracing_count() == 1


# -- Using Python iterators and generators -------------------------------------------------------


def test_buggy_consume_next_prints_the_first_value_each_call(capsys, warns_next_on_python_iterator):
    @tf.function
    def buggy_consume_next(iterator):
        tf.print("Value:", next(iterator))

    iterator = iter([1, 2, 3])
    buggy_consume_next(iterator)
    # This reuses the first value from the iterator, rather than consuming the next value.
    buggy_consume_next(iterator)
    buggy_consume_next(iterator)
    assert capsys.readouterr().err == "Value: 1\nValue: 1\nValue: 1\n"


def test_good_consume_next_consumes_the_next_value_each_call(capsys):
    @tf.function
    def good_consume_next(iterator):
        # This is ok, iterator is a tf.data.Iterator
        tf.print("Value:", next(iterator))

    ds = tf.data.Dataset.from_tensor_slices([1, 2, 3])
    iterator = iter(ds)
    good_consume_next(iterator)
    good_consume_next(iterator)
    good_consume_next(iterator)
    assert capsys.readouterr().err == "Value: 1\nValue: 2\nValue: 3\n"
    assert good_consume_next.experimental_get_tracing_count() == 1
    with pytest.raises(tf.errors.OutOfRangeError, match="good_consume_next"):
        good_consume_next(iterator)  # the error names the user's line
