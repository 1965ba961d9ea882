"""`tf.autograph.experimental.Feature` with `experimental_autograph_options`: accepted,
checked, carried into the converted code and to the functions it calls; BUILTIN_FUNCTIONS
stages print/enumerate/zip/abs/max/min/sum/any/all on tensors; NAME_SCOPES names the ops
after the converted function; the features that are always on change nothing."""

import numpy as np
import pytest

import autograph
import autograph.tf as tf
from autograph import conversion

Feature = tf.autograph.experimental.Feature


def _helper(x):
    print("helper:", x)
    return x * 2


def _double(x):
    return x * 2


def test_feature_has_tensorflow_members_and_helpers():
    assert [f.name for f in Feature] == ["ALL", "AUTO_CONTROL_DEPS", "ASSERT_STATEMENTS",
                                         "BUILTIN_FUNCTIONS", "EQUALITY_OPERATORS", "LISTS",
                                         "NAME_SCOPES"]
    assert Feature.ALL in Feature.all()
    assert Feature.LISTS not in Feature.all_but(Feature.LISTS)
    assert Feature.ALL not in Feature.all_but([Feature.LISTS])


def test_options_must_be_features():
    for bad in ("BUILTIN_FUNCTIONS", ["LISTS"], 3):
        with pytest.raises(TypeError, match="experimental_autograph_options"):
            tf.function(lambda x: x, experimental_autograph_options=bad)


def test_print_of_a_tensor_runs_at_every_call_with_builtin_functions(capsys):
    @tf.function(experimental_autograph_options=Feature.BUILTIN_FUNCTIONS)
    def f(x):
        print("x is", x, sep=": ")
        return x + 1

    f(tf.constant([1, 2]))
    f(tf.constant([3, 4]))
    assert capsys.readouterr().out == "x is: [1 2]\nx is: [3 4]\n"
    assert f.experimental_get_tracing_count() == 1


def test_print_of_a_tensor_runs_once_while_tracing_by_default(capsys):
    @tf.function
    def f(x):
        print("x is", x)
        return x + 1

    with pytest.warns(autograph.SideEffectWarning, match="use tf.print"):
        f(tf.constant([1, 2]))
    f(tf.constant([3, 4]))
    out = capsys.readouterr().out
    assert out.count("x is") == 1 and "Tensor(" in out


def test_called_functions_are_converted_with_the_same_features(capsys):
    @tf.function(experimental_autograph_options=(Feature.BUILTIN_FUNCTIONS,))
    def f(x):
        return _helper(x)

    np.testing.assert_array_equal(f(tf.constant([1.0])).numpy(), [2.0])
    f(tf.constant([5.0]))
    assert capsys.readouterr().out == "helper: [1.]\nhelper: [5.]\n"
    # and the plain conversion of the helper is cached apart, without the feature
    assert "BUILTIN_FUNCTIONS" not in autograph.to_code(_helper)
    assert "BUILTIN_FUNCTIONS" in autograph.to_code(
        _helper, experimental_optional_features=Feature.BUILTIN_FUNCTIONS)
    assert "converted_call(print" in autograph.to_code(
        _helper, experimental_optional_features=Feature.BUILTIN_FUNCTIONS)


def test_enumerate_and_zip_over_tensors_become_one_while_loop():
    @tf.function(experimental_autograph_options=Feature.ALL)
    def f(x, y):
        total = tf.constant(0.0)
        for i, v in enumerate(x, 1):
            total += tf.cast(i, tf.float32) * v
        for a, b in zip(x, y):
            total += a * b
        return total

    x, y = tf.constant([1.0, 2.0, 3.0]), tf.constant([10.0, 20.0])
    expected = sum(i * v for i, v in enumerate([1.0, 2.0, 3.0], 1)) + 1 * 10 + 2 * 20
    assert f(x, y).numpy() == expected
    assert f(tf.constant([1.0] * 50), tf.constant([1.0] * 50)).numpy() == 1275 + 50
    graph = f.get_concrete_function(tf.TensorSpec([None]), tf.TensorSpec([None])).graph
    assert sum(n.type.endswith("While") for n in graph.get_operations()) == 2


def test_reducing_builtins_on_tensors_give_pythons_values():
    @tf.function(experimental_autograph_options=Feature.BUILTIN_FUNCTIONS)
    def f(x, s):
        return (max(x), min(x), sum(x), sum(x, 10.0), abs(-x), any(x > 2.5), all(x > 0),
                max(s, 2.0), min(s, 2.0, 0.5))

    values = [1.5, -2.0, 3.0]
    got = [t.numpy() for t in f(tf.constant(values), tf.constant(1.0))]
    assert got[:4] == [max(values), min(values), sum(values), sum(values, 10.0)]
    np.testing.assert_array_equal(got[4], [abs(-v) for v in values])
    assert got[5:] == [any(v > 2.5 for v in values), all(v > 0 for v in values),
                       max(1.0, 2.0), min(1.0, 2.0, 0.5)]


def test_builtins_raise_where_python_raises():
    @tf.function(experimental_autograph_options=Feature.BUILTIN_FUNCTIONS)
    def scalar_max(x):
        return max(x)

    @tf.function(experimental_autograph_options=Feature.BUILTIN_FUNCTIONS)
    def matrix_any(x):
        return any(x)

    with pytest.raises(TypeError, match="0-d tensor"):
        scalar_max(tf.constant(1.0))
    with pytest.raises(ValueError, match="rank 2"):
        matrix_any(tf.ones((2, 2)))


def test_name_scopes_name_the_ops_after_each_converted_function():
    @tf.function(experimental_autograph_options=Feature.NAME_SCOPES)
    def outer(x):
        return _double(x) + 1

    names = [n.name for n in outer.get_concrete_function(tf.constant(1.0)).graph
             .as_graph_def().node]
    assert any(n.startswith("outer/_double/") for n in names)
    assert any(n.startswith("outer/") and not n.startswith("outer/_double/") for n in names)
    plain = tf.function(lambda x: _double(x) + 1)
    assert not any("/" in n.name for n in plain.get_concrete_function(tf.constant(1.0))
                   .graph.as_graph_def().node)


def test_the_always_on_features_change_nothing():
    def f(x):
        assert tf.reduce_sum(x) > 0, "positive"
        items = []
        for v in x:
            if v == 2.0:
                items.append(v)
        return tf.stack(items) if items else x

    default = autograph.to_code(f)
    for feature in (Feature.AUTO_CONTROL_DEPS, Feature.ASSERT_STATEMENTS,
                    Feature.EQUALITY_OPERATORS, Feature.LISTS):
        assert autograph.to_code(f, experimental_optional_features=feature) == default
        with_feature = tf.function(f, experimental_autograph_options=feature)
        np.testing.assert_array_equal(with_feature(tf.constant([1.0, 2.0])).numpy(), [2.0])
        with pytest.raises(AssertionError):
            with_feature(tf.constant([-1.0, -2.0]))


def test_conversions_with_different_features_are_cached_apart():
    def f(x):
        print(x)
        return x

    plain = conversion.convert(f)
    staged = conversion.convert(f, ("BUILTIN_FUNCTIONS",))
    assert plain is not staged
    assert conversion.convert(f) is plain
    assert conversion.convert(f, ("BUILTIN_FUNCTIONS",)) is staged
    assert "FunctionScope('f', ('BUILTIN_FUNCTIONS',))" in conversion.source_of(
        f, ("BUILTIN_FUNCTIONS",))


def test_set_element_type_types_a_staged_list_from_the_start():
    def rows_of(shape):
        @tf.function
        def rows(n):
            items = []
            tf.autograph.experimental.set_element_type(items, tf.float32, shape)
            for i in tf.range(n):
                items.append(tf.ones([2]) * tf.cast(i, tf.float32))
            return tf.stack(items)
        return rows

    known, loose = rows_of([2]), rows_of([None])
    assert known(tf.constant(0)).shape.as_list() == [0, 2]
    np.testing.assert_array_equal(loose(tf.constant(2)).numpy(), [[0, 0], [1, 1]])
    # the declared element shape (None,) is what the staged list holds, not the body's (2,)
    assert loose.get_concrete_function(tf.constant(1)).structured_outputs.shape.as_list() \
        == [None, None]


def test_set_element_type_refuses_other_elements_naming_the_list():
    @tf.function
    def wrong(n):
        items = []
        tf.autograph.experimental.set_element_type(items, tf.int32)
        for i in tf.range(n):
            items.append(tf.ones([2]))
        return tf.stack(items)

    with pytest.raises(TypeError, match="'items' is a list appended to.*float32 to a "
                       "TensorArray of int32"):
        wrong(tf.constant(2))


def test_set_element_type_outside_a_trace_does_nothing():
    items = []
    assert tf.autograph.experimental.set_element_type(items, tf.int32) is None
    items.append("anything")
    assert items == ["anything"]


def test_builtin_functions_keep_enumerate_and_zip_of_datasets_as_dataset_loops():
    def f():
        total = tf.constant(0, tf.int64)
        for i, x in enumerate(tf.data.Dataset.range(5)):
            total += x * tf.cast(i, tf.int64)
        for a, b in zip(tf.data.Dataset.range(3), tf.data.Dataset.range(3)):
            total += a * b
        return total

    staged = tf.function(f, experimental_autograph_options=Feature.BUILTIN_FUNCTIONS)
    assert staged().numpy() == tf.function(f)().numpy() == 30 + 5
