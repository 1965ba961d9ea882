"""tf.data: every Dataset method eagerly and inside tf.function, iterators, errors.

`eager(ds)` lists the elements by iterating eagerly; `in_graph(ds)` lists them from a
`for x in ds` loop inside a tf.function (a While op), recording each element with a
py_function, which runs on every iteration. Elements are compared as nested Python values.
"""

import collections

import numpy as np
import pytest

import autograph.tf as tf
from runtime import context, nest
from runtime.function import Function
from runtime.tensor import EagerTensor

Point = collections.namedtuple("Point", "x y")


def as_python(value):
    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist()
    return value


def element_value(element):
    if isinstance(element, dict):
        return {k: element_value(v) for k, v in element.items()}
    if isinstance(element, tuple):
        items = [element_value(v) for v in element]
        return type(element)(*items) if hasattr(type(element), "_fields") else tuple(items)
    assert isinstance(element, EagerTensor)
    return as_python(element.numpy())


def eager(ds):
    return [element_value(e) for e in ds]


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


# -- from_tensor_slices ------------------------------------------------------------------------


def test_from_tensor_slices_of_a_list():
    ds = tf.data.Dataset.from_tensor_slices([1, 2, 3])
    assert ds.element_spec == spec((), tf.int32)
    assert both(ds) == [1, 2, 3]


def test_from_tensor_slices_of_a_matrix_slices_rows():
    ds = tf.data.Dataset.from_tensor_slices(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    assert ds.element_spec == spec((2,), tf.float32)
    assert both(ds) == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


def test_from_tensor_slices_of_a_tuple_and_a_dict():
    pairs = tf.data.Dataset.from_tensor_slices(([1, 2], [[1.5], [2.5]]))
    assert pairs.element_spec == (spec((), tf.int32), spec((1,), tf.float32))
    assert both(pairs) == [(1, [1.5]), (2, [2.5])]
    records = tf.data.Dataset.from_tensor_slices({"b": [True, False], "a": ["x", "y"]})
    assert records.element_spec == {"a": spec((), tf.string), "b": spec((), tf.bool)}
    assert both(records) == [{"a": b"x", "b": True}, {"a": b"y", "b": False}]


def test_from_tensor_slices_keeps_namedtuples():
    ds = tf.data.Dataset.from_tensor_slices(Point([1, 2], [3, 4]))
    assert both(ds) == [Point(1, 3), Point(2, 4)]
    first = next(iter(ds))
    assert isinstance(first, Point) and first.y.numpy() == 3


def test_from_tensor_slices_rejects_mismatched_lengths_naming_the_components():
    with pytest.raises(ValueError, match=r"\[0\] has 2 and \[1\] has 3"):
        tf.data.Dataset.from_tensor_slices(([1, 2], [1, 2, 3]))
    with pytest.raises(ValueError, match=r"\['b'\] has 1"):
        tf.data.Dataset.from_tensor_slices({"a": [1, 2], "b": [1]})


def test_from_tensor_slices_rejects_scalars():
    with pytest.raises(ValueError, match="scalar"):
        tf.data.Dataset.from_tensor_slices(3)
    with pytest.raises(ValueError, match=r"\[1\] is a scalar"):
        tf.data.Dataset.from_tensor_slices(([1, 2], 5))


def test_from_tensor_slices_rejects_values_that_are_not_tensors():
    with pytest.raises(TypeError, match="cannot be converted to a tensor"):
        tf.data.Dataset.from_tensor_slices([object(), object()])


# -- from_tensors --------------------------------------------------------------------------------


def test_from_tensors_is_one_element():
    ds = tf.data.Dataset.from_tensors(([1, 2, 3], 4.0))
    assert ds.element_spec == (spec((3,), tf.int32), spec((), tf.float32))
    assert both(ds) == [([1, 2, 3], 4.0)]
    assert len(ds) == 1


# -- range ---------------------------------------------------------------------------------------


def test_range_forms():
    assert both(tf.data.Dataset.range(4)) == [0, 1, 2, 3]
    assert both(tf.data.Dataset.range(2, 5)) == [2, 3, 4]
    assert both(tf.data.Dataset.range(10, 0, -3)) == [10, 7, 4, 1]
    assert both(tf.data.Dataset.range(3, 3)) == []
    assert tf.data.Dataset.range(3).element_spec == spec((), tf.int64)
    assert tf.data.Dataset.range(3, output_type=tf.int32).element_spec == spec((), tf.int32)
    assert len(tf.data.Dataset.range(10, 0, -3)) == 4


def test_range_rejects_bad_arguments():
    with pytest.raises(ValueError, match="step"):
        tf.data.Dataset.range(0, 5, 0)
    with pytest.raises(TypeError, match="integer"):
        tf.data.Dataset.range(2.5)
    with pytest.raises(TypeError):
        tf.data.Dataset.range()


# -- from_generator -------------------------------------------------------------------------------


def test_from_generator_with_output_types_and_shapes():
    def gen():
        yield 1, [1.0, 2.0]
        yield 2, [3.0, 4.0]
    ds = tf.data.Dataset.from_generator(gen, (tf.int32, tf.float32), ((), (2,)))
    assert ds.element_spec == (spec((), tf.int32), spec((2,), tf.float32))
    assert both(ds) == [(1, [1.0, 2.0]), (2, [3.0, 4.0])]


def test_from_generator_with_output_signature_and_dicts():
    def gen():
        for i in range(3):
            yield {"id": i, "name": "n%d" % i}
    ds = tf.data.Dataset.from_generator(gen, output_signature={
        "id": tf.TensorSpec((), tf.int64), "name": tf.TensorSpec((), tf.string)})
    assert both(ds) == [{"id": i, "name": b"n%d" % i} for i in range(3)]


def test_from_generator_unknown_shapes_accept_any_shape():
    ds = tf.data.Dataset.from_generator(lambda: [[1], [1, 2, 3]], tf.int32)
    assert ds.element_spec == spec(None, tf.int32)
    assert both(ds) == [[1], [1, 2, 3]]


def test_from_generator_args_are_passed_as_numpy():
    def gen(n, word):
        for i in range(int(n)):
            yield word
    ds = tf.data.Dataset.from_generator(gen, args=(3, "hi"),
                                        output_signature=tf.TensorSpec((), tf.string))
    assert both(ds) == [b"hi"] * 3


def test_from_generator_runs_the_generator_again_for_each_pass():
    calls = []

    def gen():
        calls.append(1)
        yield from range(2)
    ds = tf.data.Dataset.from_generator(gen, tf.int64)
    assert eager(ds) == eager(ds) == [0, 1]
    assert len(calls) == 2


def test_from_generator_wrong_dtype_names_the_element():
    def gen():
        yield 1
        yield 2.5
    ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec((), tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"element 1 \(2\.5\).*int32"):
        eager(ds)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"element 1 \(2\.5\)"):
        in_graph(ds)
    arrays = tf.data.Dataset.from_generator(
        lambda: [(np.ones(2), np.array(["a"]))], (tf.float32, tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"component \[1\], has dtype <U1 where int32 was expected"):
        eager(arrays)


def test_from_generator_wrong_shape_or_structure_names_the_element():
    ds = tf.data.Dataset.from_generator(lambda: [[1, 2], [1, 2, 3]],
                                        output_signature=tf.TensorSpec((2,), tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"element 1 \(\[1, 2, 3\]\).*shape \(3,\) where \(2,\)"):
        eager(ds)
    pairs = tf.data.Dataset.from_generator(lambda: [(1, 2), (1, 2, 3)], (tf.int32, tf.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="element 1 .*structure"):
        eager(pairs)


def test_from_generator_argument_errors():
    with pytest.raises(TypeError, match="callable"):
        tf.data.Dataset.from_generator([1, 2], tf.int32)
    with pytest.raises(TypeError, match="output_signature"):
        tf.data.Dataset.from_generator(lambda: [1])
    with pytest.raises(TypeError, match="TensorSpec"):
        tf.data.Dataset.from_generator(lambda: [1], output_signature=tf.int32)
    with pytest.raises(TypeError, match="not both"):
        tf.data.Dataset.from_generator(lambda: [1], tf.int32,
                                       output_signature=tf.TensorSpec((), tf.int32))


# -- map -------------------------------------------------------------------------------------------


def test_map_applies_the_function():
    ds = tf.data.Dataset.range(4).map(lambda x: x * 10)
    assert ds.element_spec == spec((), tf.int64)
    assert both(ds) == [0, 10, 20, 30]


def test_map_unpacks_tuples_and_passes_dicts_whole():
    pairs = tf.data.Dataset.from_tensor_slices(([1, 2], [10, 20])).map(lambda a, b: (b, a + b))
    assert both(pairs) == [(10, 11), (20, 22)]
    records = tf.data.Dataset.from_tensor_slices({"a": [1, 2]}).map(lambda r: r["a"] * 2)
    assert both(records) == [2, 4]


def test_map_returning_a_list_gives_tuples():
    ds = tf.data.Dataset.range(2).map(lambda x: [x, x + 1])
    assert ds.element_spec == (spec((), tf.int64), spec((), tf.int64))
    assert both(ds) == [(0, 1), (1, 2)]


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


def test_map_in_a_traced_function_uses_that_functions_converter():
    converted = []

    def recording(func):
        converted.append(getattr(func, "__name__", func))
        return func

    def double(x):
        return x * 2

    def outer():
        return tf.data.Dataset.range(3).map(double).reduce(
            tf.constant(0, tf.int64), lambda a, b: a + b)

    assert Function(outer, converter=recording)().numpy() == 6
    assert converted == ["outer", "double", "<lambda>"]
    del converted[:]
    assert Function(outer, autograph=False, converter=recording)().numpy() == 6
    assert converted == []  # autograph=False: no converter, for the dataset functions too


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


def test_map_reads_variables_when_it_runs():
    v = tf.Variable(2)
    ds = tf.data.Dataset.from_tensor_slices([1, 2]).map(lambda x: x * v)
    assert both(ds) == [2, 4]
    v.assign(5)
    assert both(ds) == [5, 10]


def test_map_with_a_tf_function():
    @tf.function
    def double(x):
        return x * 2
    assert both(tf.data.Dataset.range(3).map(double)) == [0, 2, 4]


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


def test_map_errors():
    with pytest.raises(TypeError, match="returned None"):
        tf.data.Dataset.range(2).map(lambda x: None)
    with pytest.raises(TypeError, match="function"):
        tf.data.Dataset.range(2).map(5)


def test_map_run_time_errors_name_the_user_line():
    ds = tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]]).map(
        lambda x: tf.reshape(x, tf.shape(x) * 2))
    with pytest.raises(tf.errors.InvalidArgumentError, match="test_data.py"):
        eager(ds)


# -- filter ----------------------------------------------------------------------------------------


def test_filter_keeps_matching_elements():
    ds = tf.data.Dataset.range(10).filter(lambda x: x % 3 == 0)
    assert ds.element_spec == spec((), tf.int64)
    assert both(ds) == [0, 3, 6, 9]
    pairs = tf.data.Dataset.from_tensor_slices(([1, 2, 3], [3, 2, 1])).filter(
        lambda a, b: a >= b)
    assert both(pairs) == [(2, 2), (3, 1)]


def test_filter_predicate_must_return_a_scalar_bool():
    with pytest.raises(ValueError, match="scalar bool"):
        tf.data.Dataset.range(3).filter(lambda x: x)
    with pytest.raises(ValueError, match="scalar bool"):
        tf.data.Dataset.from_tensor_slices([[1, 2]]).filter(lambda x: x > 0)


# -- batch -----------------------------------------------------------------------------------------


def test_batch_keeps_or_drops_the_remainder():
    ds = tf.data.Dataset.range(5).batch(2)
    assert ds.element_spec == spec((None,), tf.int64)
    assert both(ds) == [[0, 1], [2, 3], [4]]
    dropped = tf.data.Dataset.range(5).batch(2, drop_remainder=True)
    assert dropped.element_spec == spec((2,), tf.int64)
    assert both(dropped) == [[0, 1], [2, 3]]
    assert len(ds) == 3 and len(dropped) == 2


def test_batch_of_structures():
    ds = tf.data.Dataset.from_tensor_slices(({"a": [1, 2, 3]}, [[1.0], [2.0], [3.0]])).batch(2)
    assert ds.element_spec == ({"a": spec((None,), tf.int32)}, spec((None, 1), tf.float32))
    assert both(ds) == [({"a": [1, 2]}, [[1.0], [2.0]]), ({"a": [3]}, [[3.0]])]


def test_batch_of_different_shapes_is_an_error():
    ds = tf.data.Dataset.from_generator(lambda: [[1], [1, 2]], tf.int32).batch(2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="different shapes in component 0"):
        eager(ds)
    with pytest.raises(ValueError, match="positive"):
        tf.data.Dataset.range(3).batch(0)


# -- take / skip / enumerate / zip ----------------------------------------------------------------


def test_take_and_skip():
    ds = tf.data.Dataset.range(6)
    assert both(ds.take(2)) == [0, 1]
    assert both(ds.take(-1)) == list(range(6))
    assert both(ds.take(10)) == list(range(6))
    assert both(ds.skip(4)) == [4, 5]
    assert both(ds.skip(-1)) == []
    assert both(ds.skip(2).take(2)) == [2, 3]
    assert len(ds.skip(4)) == 2 and len(ds.take(10)) == 6


def test_enumerate():
    ds = tf.data.Dataset.from_tensor_slices(["a", "b"]).enumerate()
    assert ds.element_spec == (spec((), tf.int64), spec((), tf.string))
    assert both(ds) == [(0, b"a"), (1, b"b")]
    assert both(tf.data.Dataset.from_tensor_slices([7, 8]).enumerate(start=5)) == [(5, 7), (6, 8)]


def test_zip_tuples_dicts_and_varargs():
    a = tf.data.Dataset.range(3)
    b = tf.data.Dataset.from_tensor_slices(([1, 2, 3, 4], [5, 6, 7, 8]))
    zipped = tf.data.Dataset.zip((a, b))
    assert zipped.element_spec == (spec((), tf.int64), (spec((), tf.int32), spec((), tf.int32)))
    assert both(zipped) == [(0, (1, 5)), (1, (2, 6)), (2, (3, 7))]  # as long as the shortest
    assert both(tf.data.Dataset.zip(a, a)) == [(0, 0), (1, 1), (2, 2)]
    assert both(tf.data.Dataset.zip({"n": a, "m": a.map(lambda x: -x)})) == [
        {"m": 0, "n": 0}, {"m": -1, "n": 1}, {"m": -2, "n": 2}]
    assert len(zipped) == 3
    with pytest.raises(TypeError, match="datasets"):
        tf.data.Dataset.zip((a, [1, 2]))


# -- shuffle / repeat / prefetch / concatenate -----------------------------------------------------


def test_shuffle_with_a_seed_is_deterministic_and_a_permutation():
    first = eager(tf.data.Dataset.range(20).shuffle(5, seed=7))
    again = eager(tf.data.Dataset.range(20).shuffle(5, seed=7))
    assert first == again
    assert sorted(first) == list(range(20))
    assert first != list(range(20))
    assert eager(tf.data.Dataset.range(20).shuffle(5, seed=8)) != first


def test_shuffle_reshuffles_each_pass_unless_told_not_to():
    ds = tf.data.Dataset.range(20).shuffle(20, seed=1)
    passes = [eager(ds), eager(ds), in_graph(ds)]
    assert passes[0] != passes[1] and passes[1] != passes[2]
    assert all(sorted(p) == list(range(20)) for p in passes)
    fixed = tf.data.Dataset.range(20).shuffle(20, seed=1, reshuffle_each_iteration=False)
    assert eager(fixed) == eager(fixed) == in_graph(fixed)


def test_shuffle_follows_the_global_seed():
    tf.random.set_seed(3)
    first = eager(tf.data.Dataset.range(10).shuffle(10))
    tf.random.set_seed(3)
    assert eager(tf.data.Dataset.range(10).shuffle(10)) == first
    tf.random.set_seed(None)


def test_repeat():
    ds = tf.data.Dataset.range(3)
    assert both(ds.repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert both(ds.repeat().take(7)) == [0, 1, 2, 0, 1, 2, 0]
    assert both(ds.take(0).repeat()) == []  # an empty dataset repeated forever stays empty
    assert len(ds.repeat(3)) == 9
    with pytest.raises(TypeError, match="infinite"):
        len(ds.repeat())


def test_prefetch_changes_nothing():
    ds = tf.data.Dataset.range(3).prefetch(tf.data.AUTOTUNE)
    assert ds.element_spec == spec((), tf.int64)
    assert both(ds) == [0, 1, 2]
    assert both(tf.data.Dataset.range(2).prefetch(1)) == [0, 1]


def test_concatenate():
    a = tf.data.Dataset.from_tensor_slices([[1, 2]])
    b = tf.data.Dataset.from_tensor_slices([[3, 4, 5]])
    ds = a.concatenate(b)
    assert ds.element_spec == spec((None,), tf.int32)
    assert both(ds) == [[1, 2], [3, 4, 5]]
    with pytest.raises(TypeError, match="differ"):
        a.concatenate(tf.data.Dataset.range(2))


# -- element_spec, cardinality, reduce, as_numpy_iterator ------------------------------------------


def test_repr_shows_the_element_spec():
    assert repr(tf.data.Dataset.range(2)) == (
        "<_RangeDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>")


def test_cardinality():
    assert tf.data.Dataset.range(5).cardinality().numpy() == 5
    assert tf.data.Dataset.range(5).repeat().cardinality().numpy() == \
        tf.data.INFINITE_CARDINALITY
    assert tf.data.Dataset.range(5).filter(lambda x: x > 1).cardinality().numpy() == \
        tf.data.UNKNOWN_CARDINALITY
    with pytest.raises(TypeError, match="unknown"):
        len(tf.data.Dataset.from_generator(lambda: [1], tf.int32))


def test_reduce_eagerly_and_in_a_function(capsys):
    def add(s, x):
        print("tracing add")
        return s + x

    ds = tf.data.Dataset.range(5)
    assert ds.reduce(tf.constant(0, tf.int64), add).numpy() == 10
    assert capsys.readouterr().out == "tracing add\n"  # traced once, not run per element
    pair = ds.reduce((tf.constant(0, tf.int64), 1.0), lambda s, x: (s[0] + x, s[1] * 2))
    assert [t.numpy() for t in pair] == [10, 32.0]

    @tf.function
    def total(ds):
        return ds.reduce(tf.constant(0, tf.int64), lambda s, x: s + x)

    assert total(ds).numpy() == 10
    assert "While" in [n.op for n in total.get_concrete_function(ds).graph.as_graph_def().node]


def test_as_numpy_iterator():
    values = list(tf.data.Dataset.from_tensor_slices(([1, 2], ["a", "b"])).as_numpy_iterator())
    assert values == [(1, b"a"), (2, b"b")]
    assert isinstance(values[0][0], np.integer)


# -- iterators -------------------------------------------------------------------------------------


def test_eager_iteration_yields_eager_tensors_nested_like_the_elements():
    element = next(iter(tf.data.Dataset.from_tensor_slices(({"a": [1]}, [2.0]))))
    assert isinstance(element, tuple) and isinstance(element[0], dict)
    assert isinstance(element[0]["a"], EagerTensor) and element[0]["a"].dtype is tf.int32
    assert element[1].dtype is tf.float32


def test_next_and_get_next_end_with_stop_iteration_and_out_of_range():
    it = iter(tf.data.Dataset.from_tensor_slices([1, 2]))
    assert it.element_spec == spec((), tf.int32)
    assert next(it).numpy() == 1
    assert it.get_next().numpy() == 2
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(tf.errors.OutOfRangeError):
        it.get_next()
    assert issubclass(tf.errors.OutOfRangeError, tf.errors.OpError)


def test_an_iterator_passed_to_a_function_advances_on_every_call():
    @tf.function
    def take_two(it):
        return next(it) + it.get_next()

    it = iter(tf.data.Dataset.range(5))
    assert take_two(it).numpy() == 1
    assert take_two(it).numpy() == 5
    assert take_two.experimental_get_tracing_count() == 1
    with pytest.raises(tf.errors.OutOfRangeError):
        take_two(it)


def test_iter_and_next_inside_a_function():
    @tf.function
    def first_two(ds):
        it = iter(ds)
        a = next(it)
        return a, next(it)

    ds = tf.data.Dataset.from_tensor_slices([4, 5, 6])
    assert [t.numpy() for t in first_two(ds)] == [4, 5]
    assert [t.numpy() for t in first_two(ds)] == [4, 5]  # a new iterator on every call
    with pytest.raises(tf.errors.OutOfRangeError):
        first_two(tf.data.Dataset.from_tensor_slices([1]))


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


def test_iterator_made_in_a_trace_cannot_be_used_eagerly():
    leaked = []

    @tf.function
    def f(ds):
        leaked.append(iter(ds))
        return 0

    f(tf.data.Dataset.range(2))
    with pytest.raises(TypeError, match="inside a traced function"):
        next(leaked[0])


# -- for loops in functions ------------------------------------------------------------------------


def graph_op_types(f, *args):
    return [n.op for n in f.get_concrete_function(*args).graph.as_graph_def().node]


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
    assert out.count("tracing\n") == 2  # one trace per dataset object (keyed by identity)


def test_same_dataset_object_reuses_the_trace():
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


def test_python_for_over_a_dataset_in_unconverted_code_is_refused():
    @tf.function(autograph=False)
    def f(ds):
        t = 0
        for x in ds:
            t += x
        return t

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="Python for loop"):
        f(tf.data.Dataset.range(3))

    @tf.function(autograph=False)
    def g(ds):
        it = iter(ds)
        return next(it) + next(it)

    assert g(tf.data.Dataset.range(3)).numpy() == 1


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


def test_python_iteration_of_a_dataset_in_a_graph_is_refused_instead_of_hanging():
    @tf.function
    def as_list(ds):
        return list(ds)

    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError, match="advanced 1000 times"):
        as_list(tf.data.Dataset.range(3))
