"""runtime.data: every Dataset method eagerly and inside a traced Function, iterators, errors.

`eager(ds)` lists the elements by iterating eagerly; `in_graph(ds)` lists them from a staged
`for x in ds` loop (`runtime.operators.loops.for_stmt`, what converted code calls) inside a
traced Function (a While op), recording each element with a py_function, which runs on every
iteration. Elements are compared as nested Python values.
"""

import collections

import numpy as np
import pytest
from dataset_values import both, eager, in_graph

from runtime import data, dtypes, errors, variables
from runtime import signature as signature_lib
from runtime.function import Function, function
from runtime.ops import array_ops, random_ops, reshape_ops
from runtime.tensor import EagerTensor

Point = collections.namedtuple("Point", "x y")


def spec(shape, dtype):
    return signature_lib.TensorSpec(shape, dtype)


# -- from_tensor_slices ------------------------------------------------------------------------


def test_from_tensor_slices_of_a_list():
    ds = data.Dataset.from_tensor_slices([1, 2, 3])
    assert ds.element_spec == spec((), dtypes.int32)
    assert both(ds) == [1, 2, 3]


def test_from_tensor_slices_of_a_matrix_slices_rows():
    ds = data.Dataset.from_tensor_slices(array_ops.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    assert ds.element_spec == spec((2,), dtypes.float32)
    assert both(ds) == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


def test_from_tensor_slices_of_a_tuple_and_a_dict():
    pairs = data.Dataset.from_tensor_slices(([1, 2], [[1.5], [2.5]]))
    assert pairs.element_spec == (spec((), dtypes.int32), spec((1,), dtypes.float32))
    assert both(pairs) == [(1, [1.5]), (2, [2.5])]
    records = data.Dataset.from_tensor_slices({"b": [True, False], "a": ["x", "y"]})
    assert records.element_spec == {"a": spec((), dtypes.string), "b": spec((), dtypes.bool_)}
    assert both(records) == [{"a": b"x", "b": True}, {"a": b"y", "b": False}]


def test_from_tensor_slices_keeps_namedtuples():
    ds = data.Dataset.from_tensor_slices(Point([1, 2], [3, 4]))
    assert both(ds) == [Point(1, 3), Point(2, 4)]
    first = next(iter(ds))
    assert isinstance(first, Point) and first.y.numpy() == 3


def test_from_tensor_slices_rejects_mismatched_lengths_naming_the_components():
    with pytest.raises(ValueError, match=r"\[0\] has 2 and \[1\] has 3"):
        data.Dataset.from_tensor_slices(([1, 2], [1, 2, 3]))
    with pytest.raises(ValueError, match=r"\['b'\] has 1"):
        data.Dataset.from_tensor_slices({"a": [1, 2], "b": [1]})


def test_from_tensor_slices_rejects_scalars():
    with pytest.raises(ValueError, match="scalar"):
        data.Dataset.from_tensor_slices(3)
    with pytest.raises(ValueError, match=r"\[1\] is a scalar"):
        data.Dataset.from_tensor_slices(([1, 2], 5))


def test_from_tensor_slices_rejects_values_that_are_not_tensors():
    with pytest.raises(TypeError, match="cannot be converted to a tensor"):
        data.Dataset.from_tensor_slices([object(), object()])


# -- from_tensors --------------------------------------------------------------------------------


def test_from_tensors_is_one_element():
    ds = data.Dataset.from_tensors(([1, 2, 3], 4.0))
    assert ds.element_spec == (spec((3,), dtypes.int32), spec((), dtypes.float32))
    assert both(ds) == [([1, 2, 3], 4.0)]
    assert len(ds) == 1


# -- range ---------------------------------------------------------------------------------------


def test_range_forms():
    assert both(data.Dataset.range(4)) == [0, 1, 2, 3]
    assert both(data.Dataset.range(2, 5)) == [2, 3, 4]
    assert both(data.Dataset.range(10, 0, -3)) == [10, 7, 4, 1]
    assert both(data.Dataset.range(3, 3)) == []
    assert data.Dataset.range(3).element_spec == spec((), dtypes.int64)
    assert data.Dataset.range(3, output_type=dtypes.int32).element_spec == spec((), dtypes.int32)
    assert len(data.Dataset.range(10, 0, -3)) == 4


def test_range_rejects_bad_arguments():
    with pytest.raises(ValueError, match="step"):
        data.Dataset.range(0, 5, 0)
    with pytest.raises(TypeError, match="integer"):
        data.Dataset.range(2.5)
    with pytest.raises(TypeError):
        data.Dataset.range()


# -- from_generator -------------------------------------------------------------------------------


def test_from_generator_with_output_types_and_shapes():
    def gen():
        yield 1, [1.0, 2.0]
        yield 2, [3.0, 4.0]
    ds = data.Dataset.from_generator(gen, (dtypes.int32, dtypes.float32), ((), (2,)))
    assert ds.element_spec == (spec((), dtypes.int32), spec((2,), dtypes.float32))
    assert both(ds) == [(1, [1.0, 2.0]), (2, [3.0, 4.0])]


def test_from_generator_with_output_signature_and_dicts():
    def gen():
        for i in range(3):
            yield {"id": i, "name": "n%d" % i}
    ds = data.Dataset.from_generator(gen, output_signature={
        "id": signature_lib.TensorSpec((), dtypes.int64),
        "name": signature_lib.TensorSpec((), dtypes.string)})
    assert both(ds) == [{"id": i, "name": b"n%d" % i} for i in range(3)]


def test_from_generator_unknown_shapes_accept_any_shape():
    ds = data.Dataset.from_generator(lambda: [[1], [1, 2, 3]], dtypes.int32)
    assert ds.element_spec == spec(None, dtypes.int32)
    assert both(ds) == [[1], [1, 2, 3]]


def test_from_generator_args_are_passed_as_numpy():
    def gen(n, word):
        for i in range(int(n)):
            yield word
    ds = data.Dataset.from_generator(gen, args=(3, "hi"),
                                     output_signature=signature_lib.TensorSpec((), dtypes.string))
    assert both(ds) == [b"hi"] * 3


def test_from_generator_runs_the_generator_again_for_each_pass():
    calls = []

    def gen():
        calls.append(1)
        yield from range(2)
    ds = data.Dataset.from_generator(gen, dtypes.int64)
    assert eager(ds) == eager(ds) == [0, 1]
    assert len(calls) == 2


def test_from_generator_wrong_dtype_names_the_element():
    def gen():
        yield 1
        yield 2.5
    ds = data.Dataset.from_generator(gen,
                                     output_signature=signature_lib.TensorSpec((), dtypes.int32))
    with pytest.raises(errors.InvalidArgumentError, match=r"element 1 \(2\.5\).*int32"):
        eager(ds)
    with pytest.raises(errors.InvalidArgumentError, match=r"element 1 \(2\.5\)"):
        in_graph(ds)
    arrays = data.Dataset.from_generator(
        lambda: [(np.ones(2), np.array(["a"]))], (dtypes.float32, dtypes.int32))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"component \[1\], has dtype <U1 where int32 was expected"):
        eager(arrays)


def test_from_generator_wrong_shape_or_structure_names_the_element():
    ds = data.Dataset.from_generator(lambda: [[1, 2], [1, 2, 3]],
                                     output_signature=signature_lib.TensorSpec((2,), dtypes.int32))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"element 1 \(\[1, 2, 3\]\).*shape \(3,\) where \(2,\)"):
        eager(ds)
    pairs = data.Dataset.from_generator(lambda: [(1, 2), (1, 2, 3)], (dtypes.int32, dtypes.int32))
    with pytest.raises(errors.InvalidArgumentError, match="element 1 .*structure"):
        eager(pairs)


def test_from_generator_argument_errors():
    with pytest.raises(TypeError, match="callable"):
        data.Dataset.from_generator([1, 2], dtypes.int32)
    with pytest.raises(TypeError, match="output_signature"):
        data.Dataset.from_generator(lambda: [1])
    with pytest.raises(TypeError, match="TensorSpec"):
        data.Dataset.from_generator(lambda: [1], output_signature=dtypes.int32)
    with pytest.raises(TypeError, match="not both"):
        data.Dataset.from_generator(lambda: [1], dtypes.int32,
                                    output_signature=signature_lib.TensorSpec((), dtypes.int32))


# -- map -------------------------------------------------------------------------------------------


def test_map_applies_the_function():
    ds = data.Dataset.range(4).map(lambda x: x * 10)
    assert ds.element_spec == spec((), dtypes.int64)
    assert both(ds) == [0, 10, 20, 30]


def test_map_unpacks_tuples_and_passes_dicts_whole():
    pairs = data.Dataset.from_tensor_slices(([1, 2], [10, 20])).map(lambda a, b: (b, a + b))
    assert both(pairs) == [(10, 11), (20, 22)]
    records = data.Dataset.from_tensor_slices({"a": [1, 2]}).map(lambda r: r["a"] * 2)
    assert both(records) == [2, 4]


def test_map_returning_a_list_gives_tuples():
    ds = data.Dataset.range(2).map(lambda x: [x, x + 1])
    assert ds.element_spec == (spec((), dtypes.int64), spec((), dtypes.int64))
    assert both(ds) == [(0, 1), (1, 2)]


def test_map_in_a_traced_function_uses_that_functions_converter():
    converted = []

    def recording(func):
        converted.append(getattr(func, "__name__", func))
        return func

    def double(x):
        return x * 2

    def outer():
        return data.Dataset.range(3).map(double).reduce(
            array_ops.constant(0, dtypes.int64), lambda a, b: a + b)

    assert Function(outer, converter=recording)().numpy() == 6
    assert converted == ["outer", "double", "<lambda>"]
    del converted[:]
    assert Function(outer, autograph=False, converter=recording)().numpy() == 6
    assert converted == []  # autograph=False: no converter, for the dataset functions too


def test_map_reads_variables_when_it_runs():
    v = variables.Variable(2)
    ds = data.Dataset.from_tensor_slices([1, 2]).map(lambda x: x * v)
    assert both(ds) == [2, 4]
    v.assign(5)
    assert both(ds) == [5, 10]


def test_map_with_a_tf_function():
    @function
    def double(x):
        return x * 2
    assert both(data.Dataset.range(3).map(double)) == [0, 2, 4]


def test_map_errors():
    with pytest.raises(TypeError, match="returned None"):
        data.Dataset.range(2).map(lambda x: None)
    with pytest.raises(TypeError, match="function"):
        data.Dataset.range(2).map(5)


def test_map_run_time_errors_name_the_user_line():
    ds = data.Dataset.from_tensor_slices([[1, 2], [3, 4]]).map(
        lambda x: reshape_ops.reshape(x, array_ops.shape(x) * 2))
    with pytest.raises(errors.InvalidArgumentError, match="test_data.py"):
        eager(ds)


# -- filter ----------------------------------------------------------------------------------------


def test_filter_keeps_matching_elements():
    ds = data.Dataset.range(10).filter(lambda x: x % 3 == 0)
    assert ds.element_spec == spec((), dtypes.int64)
    assert both(ds) == [0, 3, 6, 9]
    pairs = data.Dataset.from_tensor_slices(([1, 2, 3], [3, 2, 1])).filter(
        lambda a, b: a >= b)
    assert both(pairs) == [(2, 2), (3, 1)]


def test_filter_predicate_must_return_a_scalar_bool():
    with pytest.raises(ValueError, match="scalar bool"):
        data.Dataset.range(3).filter(lambda x: x)
    with pytest.raises(ValueError, match="scalar bool"):
        data.Dataset.from_tensor_slices([[1, 2]]).filter(lambda x: x > 0)


# -- batch -----------------------------------------------------------------------------------------


def test_batch_keeps_or_drops_the_remainder():
    ds = data.Dataset.range(5).batch(2)
    assert ds.element_spec == spec((None,), dtypes.int64)
    assert both(ds) == [[0, 1], [2, 3], [4]]
    dropped = data.Dataset.range(5).batch(2, drop_remainder=True)
    assert dropped.element_spec == spec((2,), dtypes.int64)
    assert both(dropped) == [[0, 1], [2, 3]]
    assert len(ds) == 3 and len(dropped) == 2


def test_batch_of_structures():
    ds = data.Dataset.from_tensor_slices(({"a": [1, 2, 3]}, [[1.0], [2.0], [3.0]])).batch(2)
    assert ds.element_spec == ({"a": spec((None,), dtypes.int32)}, spec((None, 1), dtypes.float32))
    assert both(ds) == [({"a": [1, 2]}, [[1.0], [2.0]]), ({"a": [3]}, [[3.0]])]


def test_batch_of_different_shapes_is_an_error():
    ds = data.Dataset.from_generator(lambda: [[1], [1, 2]], dtypes.int32).batch(2)
    with pytest.raises(errors.InvalidArgumentError, match="different shapes in component 0"):
        eager(ds)
    with pytest.raises(ValueError, match="positive"):
        data.Dataset.range(3).batch(0)


# -- take / skip / enumerate / zip ----------------------------------------------------------------


def test_take_and_skip():
    ds = data.Dataset.range(6)
    assert both(ds.take(2)) == [0, 1]
    assert both(ds.take(-1)) == list(range(6))
    assert both(ds.take(10)) == list(range(6))
    assert both(ds.skip(4)) == [4, 5]
    assert both(ds.skip(-1)) == []
    assert both(ds.skip(2).take(2)) == [2, 3]
    assert len(ds.skip(4)) == 2 and len(ds.take(10)) == 6


def test_enumerate():
    ds = data.Dataset.from_tensor_slices(["a", "b"]).enumerate()
    assert ds.element_spec == (spec((), dtypes.int64), spec((), dtypes.string))
    assert both(ds) == [(0, b"a"), (1, b"b")]
    assert both(data.Dataset.from_tensor_slices([7, 8]).enumerate(start=5)) == [(5, 7), (6, 8)]


def test_zip_tuples_dicts_and_varargs():
    a = data.Dataset.range(3)
    b = data.Dataset.from_tensor_slices(([1, 2, 3, 4], [5, 6, 7, 8]))
    zipped = data.Dataset.zip((a, b))
    assert zipped.element_spec == (spec((), dtypes.int64),
                                   (spec((), dtypes.int32), spec((), dtypes.int32)))
    assert both(zipped) == [(0, (1, 5)), (1, (2, 6)), (2, (3, 7))]  # as long as the shortest
    assert both(data.Dataset.zip(a, a)) == [(0, 0), (1, 1), (2, 2)]
    assert both(data.Dataset.zip({"n": a, "m": a.map(lambda x: -x)})) == [
        {"m": 0, "n": 0}, {"m": -1, "n": 1}, {"m": -2, "n": 2}]
    assert len(zipped) == 3
    with pytest.raises(TypeError, match="datasets"):
        data.Dataset.zip((a, [1, 2]))


# -- shuffle / repeat / prefetch / concatenate -----------------------------------------------------


def test_shuffle_with_a_seed_is_deterministic_and_a_permutation():
    first = eager(data.Dataset.range(20).shuffle(5, seed=7))
    again = eager(data.Dataset.range(20).shuffle(5, seed=7))
    assert first == again
    assert sorted(first) == list(range(20))
    assert first != list(range(20))
    assert eager(data.Dataset.range(20).shuffle(5, seed=8)) != first


def test_shuffle_reshuffles_each_pass_unless_told_not_to():
    ds = data.Dataset.range(20).shuffle(20, seed=1)
    passes = [eager(ds), eager(ds), in_graph(ds)]
    assert passes[0] != passes[1] and passes[1] != passes[2]
    assert all(sorted(p) == list(range(20)) for p in passes)
    fixed = data.Dataset.range(20).shuffle(20, seed=1, reshuffle_each_iteration=False)
    assert eager(fixed) == eager(fixed) == in_graph(fixed)


def test_shuffle_follows_the_global_seed():
    random_ops.set_seed(3)
    first = eager(data.Dataset.range(10).shuffle(10))
    random_ops.set_seed(3)
    assert eager(data.Dataset.range(10).shuffle(10)) == first
    random_ops.set_seed(None)


def test_repeat():
    ds = data.Dataset.range(3)
    assert both(ds.repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert both(ds.repeat().take(7)) == [0, 1, 2, 0, 1, 2, 0]
    assert both(ds.take(0).repeat()) == []  # an empty dataset repeated forever stays empty
    assert len(ds.repeat(3)) == 9
    with pytest.raises(TypeError, match="infinite"):
        len(ds.repeat())


def test_prefetch_changes_nothing():
    ds = data.Dataset.range(3).prefetch(data.AUTOTUNE)
    assert ds.element_spec == spec((), dtypes.int64)
    assert both(ds) == [0, 1, 2]
    assert both(data.Dataset.range(2).prefetch(1)) == [0, 1]


def test_concatenate():
    a = data.Dataset.from_tensor_slices([[1, 2]])
    b = data.Dataset.from_tensor_slices([[3, 4, 5]])
    ds = a.concatenate(b)
    assert ds.element_spec == spec((None,), dtypes.int32)
    assert both(ds) == [[1, 2], [3, 4, 5]]
    with pytest.raises(TypeError, match="differ"):
        a.concatenate(data.Dataset.range(2))


# -- element_spec, cardinality, reduce, as_numpy_iterator ------------------------------------------


def test_repr_shows_the_element_spec():
    assert repr(data.Dataset.range(2)) == (
        "<_RangeDataset element_spec=TensorSpec(shape=(), dtype=tf.int64, name=None)>")


def test_cardinality():
    assert data.Dataset.range(5).cardinality().numpy() == 5
    assert data.Dataset.range(5).repeat().cardinality().numpy() == \
        data.INFINITE_CARDINALITY
    assert data.Dataset.range(5).filter(lambda x: x > 1).cardinality().numpy() == \
        data.UNKNOWN_CARDINALITY
    with pytest.raises(TypeError, match="unknown"):
        len(data.Dataset.from_generator(lambda: [1], dtypes.int32))


def test_reduce_eagerly_and_in_a_function(capsys):
    def add(s, x):
        print("tracing add")
        return s + x

    ds = data.Dataset.range(5)
    assert ds.reduce(array_ops.constant(0, dtypes.int64), add).numpy() == 10
    assert capsys.readouterr().out == "tracing add\n"  # traced once, not run per element
    pair = ds.reduce((array_ops.constant(0, dtypes.int64), 1.0), lambda s, x: (s[0] + x, s[1] * 2))
    assert [t.numpy() for t in pair] == [10, 32.0]

    @function
    def total(ds):
        return ds.reduce(array_ops.constant(0, dtypes.int64), lambda s, x: s + x)

    assert total(ds).numpy() == 10
    assert "While" in [n.op for n in total.get_concrete_function(ds).graph.as_graph_def().node]


def test_as_numpy_iterator():
    values = list(data.Dataset.from_tensor_slices(([1, 2], ["a", "b"])).as_numpy_iterator())
    assert values == [(1, b"a"), (2, b"b")]
    assert isinstance(values[0][0], np.integer)


# -- iterators -------------------------------------------------------------------------------------


def test_eager_iteration_yields_eager_tensors_nested_like_the_elements():
    element = next(iter(data.Dataset.from_tensor_slices(({"a": [1]}, [2.0]))))
    assert isinstance(element, tuple) and isinstance(element[0], dict)
    assert isinstance(element[0]["a"], EagerTensor) and element[0]["a"].dtype is dtypes.int32
    assert element[1].dtype is dtypes.float32


def test_next_and_get_next_end_with_stop_iteration_and_out_of_range():
    it = iter(data.Dataset.from_tensor_slices([1, 2]))
    assert it.element_spec == spec((), dtypes.int32)
    assert next(it).numpy() == 1
    assert it.get_next().numpy() == 2
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(errors.OutOfRangeError):
        it.get_next()
    assert issubclass(errors.OutOfRangeError, errors.OpError)


def test_an_iterator_passed_to_a_function_advances_on_every_call():
    @function
    def take_two(it):
        return next(it) + it.get_next()

    it = iter(data.Dataset.range(5))
    assert take_two(it).numpy() == 1
    assert take_two(it).numpy() == 5
    assert take_two.experimental_get_tracing_count() == 1
    with pytest.raises(errors.OutOfRangeError):
        take_two(it)


def test_iter_and_next_inside_a_function():
    @function
    def first_two(ds):
        it = iter(ds)
        a = next(it)
        return a, next(it)

    ds = data.Dataset.from_tensor_slices([4, 5, 6])
    assert [t.numpy() for t in first_two(ds)] == [4, 5]
    assert [t.numpy() for t in first_two(ds)] == [4, 5]  # a new iterator on every call
    with pytest.raises(errors.OutOfRangeError):
        first_two(data.Dataset.from_tensor_slices([1]))


def test_iterator_made_in_a_trace_cannot_be_used_eagerly():
    leaked = []

    @function
    def f(ds):
        leaked.append(iter(ds))
        return 0

    f(data.Dataset.range(2))
    with pytest.raises(TypeError, match="inside a traced function"):
        next(leaked[0])


# -- for loops in functions ------------------------------------------------------------------------


def test_python_for_over_a_dataset_in_unconverted_code_is_refused():
    @function(autograph=False)
    def f(ds):
        t = 0
        for x in ds:
            t += x
        return t

    with pytest.raises(errors.OperatorNotAllowedInGraphError, match="Python for loop"):
        f(data.Dataset.range(3))

    @function(autograph=False)
    def g(ds):
        it = iter(ds)
        return next(it) + next(it)

    assert g(data.Dataset.range(3)).numpy() == 1


def test_python_iteration_of_a_dataset_in_a_graph_is_refused_instead_of_hanging():
    @function
    def as_list(ds):
        return list(ds)

    with pytest.raises(errors.OperatorNotAllowedInGraphError, match="advanced 1000 times"):
        as_list(data.Dataset.range(3))
