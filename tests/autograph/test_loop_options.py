"""`tf.autograph.experimental.set_loop_options` in converted loops: the directive's
arguments become the loop's `opts`; shape invariants, maximum_iterations and the errors
that name the variable and the line."""

import numpy as np
import pytest
from source_lines import line_of

import autograph
import autograph.tf as tf
from autograph.errors import ConversionError


def _while_nodes(function, *args):
    graph = function.get_concrete_function(*args).graph
    return [n for n in graph.get_operations() if n.type.endswith("While")]


def test_maximum_iterations_bounds_a_for_loop_over_a_tensor_range():
    @tf.function
    def count(n):
        c = 0
        for i in tf.range(n):
            tf.autograph.experimental.set_loop_options(maximum_iterations=3)
            c += 1
        return c

    assert count(tf.constant(10)).numpy() == 3
    assert count(tf.constant(2)).numpy() == 2
    assert "'maximum_iterations': 3" in autograph.to_code(count)


def test_maximum_iterations_bounds_python_range_over_a_tensor_and_a_while_loop():
    @tf.function
    def count(n):
        c = 0
        for i in range(n):
            tf.autograph.experimental.set_loop_options(maximum_iterations=4)
            c += i
        return c

    @tf.function
    def halve(x, limit):
        steps = 0
        while tf.reduce_sum(x) > 1:
            tf.autograph.experimental.set_loop_options(maximum_iterations=limit)
            x = x / 2
            steps += 1
        return x, steps

    assert count(tf.constant(10)).numpy() == 0 + 1 + 2 + 3
    x, steps = halve(tf.constant([64.0]), tf.constant(2))
    assert steps.numpy() == 2 and x.numpy()[0] == 16.0
    x, steps = halve(tf.constant([64.0]), tf.constant(100))
    assert steps.numpy() == 6 and x.numpy()[0] == 1.0


def test_maximum_iterations_has_no_effect_on_a_python_loop():
    @tf.function
    def count():
        c = 0
        for i in [1, 2, 3, 4]:
            tf.autograph.experimental.set_loop_options(maximum_iterations=1)
            c += i
        return c

    assert count().numpy() == 10


def test_shape_invariant_relaxes_the_loop_variable_in_one_trace_of_the_body():
    traces = []

    @tf.function
    def grow():
        v = tf.constant((0,))
        for i in tf.range(3):
            tf.autograph.experimental.set_loop_options(
                shape_invariants=[(v, tf.TensorShape([None]))])
            traces.append(v.shape)
            v = tf.concat((v, [i]), 0)
        return v

    np.testing.assert_array_equal(grow().numpy(), [0, 0, 1, 2])
    assert grow.get_concrete_function().structured_outputs.shape.as_list() == [None]
    assert [s.as_list() for s in traces] == [[None]]  # no second trace to relax (1,)


def test_shape_invariant_violated_in_the_body_names_the_variable_and_line():
    @tf.function
    def grow():
        v = tf.constant((0,))
        for i in tf.range(3):
            tf.autograph.experimental.set_loop_options(
                shape_invariants=[(v, tf.TensorShape([1]))])
            v = tf.concat((v, [i]), 0)
        return v

    with pytest.raises(ValueError, match=r"loop variable 'v' has shape \(2,\) after an "
                       r"iteration, which does not fit its shape invariant \(1,\)") as info:
        grow()
    assert "test_loop_options.py:%d" % line_of(grow.python_function, "for i in") in str(
        info.value)


body_shapes = []


@autograph.do_not_convert
def note_shape(v):
    body_shapes.append(v.shape.as_list())


def grow_over(items, invariant):
    v = tf.constant((0,), dtype=tf.int64)
    for i in items:
        tf.autograph.experimental.set_loop_options(shape_invariants=[(v, invariant)])
        note_shape(v)
        v = tf.concat((v, [i]), 0)
    return v


LOOPED_OVER = {
    "dataset": lambda: (tf.data.Dataset.range(3),),
    "iterator": lambda: (iter(tf.data.Dataset.range(3)),),
}


@pytest.mark.parametrize("kind", ["dataset", "iterator"])
def test_shape_invariant_relaxes_a_loop_over_a_dataset_or_iterator_in_one_trace(kind):
    body_shapes.clear()
    function = tf.function(lambda items: grow_over(items, tf.TensorShape([None])))
    np.testing.assert_array_equal(function(*LOOPED_OVER[kind]()).numpy(), [0, 0, 1, 2])
    assert body_shapes == [[None]]  # no second trace of the body to relax (1,)


@pytest.mark.parametrize("kind", ["dataset", "iterator"])
def test_shape_invariant_broken_by_a_loop_over_a_dataset_or_iterator_names_the_variable(kind):
    function = tf.function(lambda items: grow_over(items, tf.TensorShape([1])))
    with pytest.raises(ValueError, match=r"loop variable 'v' has shape \(2,\) after an "
                       r"iteration, which does not fit its shape invariant \(1,\)") as info:
        function(*LOOPED_OVER[kind]())
    assert "test_loop_options.py:%d" % line_of(grow_over, "for i in") in str(info.value)


def test_maximum_iterations_bounds_a_loop_over_a_dataset():
    @tf.function
    def total(ds):
        s = tf.constant(0, dtype=tf.int64)
        for i in ds:
            tf.autograph.experimental.set_loop_options(maximum_iterations=2)
            s += i
        return s

    assert total(tf.data.Dataset.range(10)).numpy() == 1


def test_shape_invariant_that_the_initial_value_does_not_fit_is_an_error():
    @tf.function
    def grow(x):
        v = tf.zeros((2, 2))
        while tf.reduce_sum(x) > 0:
            tf.autograph.experimental.set_loop_options(shape_invariants=[(v, [None])])
            x = x - 1
            v = v + 1
        return v

    with pytest.raises(ValueError, match=r"'v' has shape \(2, 2\) before the loop, which "
                       r"does not fit its shape invariant \(None,\)"):
        grow(tf.constant(2))


def test_shape_invariant_of_a_tensor_that_is_no_loop_variable_is_ignored():
    @tf.function
    def loop(n):
        w = tf.constant([1.0])
        total = tf.constant(0.0)
        for i in tf.range(n):
            tf.autograph.experimental.set_loop_options(shape_invariants=[(w, [None])])
            total += tf.reduce_sum(w)
        return total

    assert loop(tf.constant(3)).numpy() == 3.0


def test_parallel_iterations_and_swap_memory_are_accepted_and_checked():
    @tf.function
    def loop(n):
        c = 0
        for i in tf.range(n):
            tf.autograph.experimental.set_loop_options(parallel_iterations=4,
                                                       swap_memory=True)
            c += 2
        return c

    @tf.function
    def bad(n):
        c = 0
        for i in tf.range(n):
            tf.autograph.experimental.set_loop_options(parallel_iterations=0)
            c += 2
        return c

    assert loop(tf.constant(3)).numpy() == 6
    with pytest.raises(ValueError, match="parallel_iterations must be a positive int"):
        bad(tf.constant(3))


def test_directive_outside_a_loop_or_not_first_is_a_conversion_error():
    def outside(x):
        tf.autograph.experimental.set_loop_options(maximum_iterations=3)
        return x

    def not_first(n):
        c = 0
        for i in tf.range(n):
            c += 1
            tf.autograph.experimental.set_loop_options(maximum_iterations=3)
        return c

    for func, text in ((outside, "set_loop_options(max"), (not_first, "set_loop_options(")):
        with pytest.raises(ConversionError, match="must be the first statement of a loop "
                           "body") as info:
            tf.function(func)(tf.constant(3))
        assert "test_loop_options.py:%d" % line_of(func, text) in str(info.value)


def test_unknown_option_is_a_conversion_error():
    def loop(n):
        for i in tf.range(n):
            tf.autograph.experimental.set_loop_options(maximum_iteration=3)
        return n

    with pytest.raises(ConversionError, match="unknown option 'maximum_iteration'"):
        tf.function(loop)(tf.constant(3))


def test_a_function_named_set_loop_options_that_is_not_the_directive_runs_as_written():
    calls = []

    class Options:
        def set_loop_options(self, **kw):
            calls.append(kw)

    options = Options()

    @tf.function
    def loop(n):
        c = 0
        for i in tf.range(n):
            options.set_loop_options(maximum_iterations=1)
            c += 1
        return c

    assert loop(tf.constant(3)).numpy() == 3
    assert calls == [{"maximum_iterations": 1}]  # traced once, a plain call


def test_unconverted_code_ignores_the_options():
    def count(n):
        c = 0
        for i in range(n):
            tf.autograph.experimental.set_loop_options(maximum_iterations=1)
            c += 1
        return c

    tf.config.run_functions_eagerly(True)
    try:
        assert tf.function(count)(3) == 3
    finally:
        tf.config.run_functions_eagerly(False)


def test_options_reach_only_their_own_loop():
    @tf.function
    def nested(n):
        c = 0
        for i in tf.range(n):
            tf.autograph.experimental.set_loop_options(maximum_iterations=2)
            for j in tf.range(n):
                c += 1
        return c

    assert nested(tf.constant(5)).numpy() == 10
    assert len(_while_nodes(nested, tf.constant(5))) == 1  # the inner one is in the body


def test_while_loop_shape_invariants_relax_and_check_the_loop_variables():
    def grow(n, invariant):
        i, v = tf.constant(0), tf.constant([0])
        return tf.while_loop(lambda i, v: i < n,
                             lambda i, v: (i + 1, tf.concat([v, [i]], 0)), [i, v],
                             shape_invariants=[tf.TensorShape([]), invariant])[1]

    relaxed = tf.function(lambda n: grow(n, tf.TensorShape([None])))
    np.testing.assert_array_equal(relaxed(tf.constant(3)).numpy(), [0, 0, 1, 2])
    assert relaxed.get_concrete_function(tf.constant(3)).structured_outputs.shape.as_list() \
        == [None]
    with pytest.raises(ValueError, match=r"has shape \(2,\) after an iteration, which does "
                       r"not fit its shape invariant \(1,\)"):
        tf.function(lambda n: grow(n, tf.TensorShape([1])))(tf.constant(3))
    with pytest.raises(ValueError, match="give 1 shapes for its 2 tensors"):
        tf.function(lambda n: tf.while_loop(
            lambda i, v: i < n, lambda i, v: (i + 1, v), [tf.constant(0), tf.constant(1.0)],
            shape_invariants=[tf.TensorShape([])]))(tf.constant(3))


def test_option_expressions_are_converted_like_the_rest_of_the_function():
    @tf.function
    def count(n, m):
        c = 0
        for i in tf.range(n):
            tf.autograph.experimental.set_loop_options(
                maximum_iterations=tf.minimum(m, 3) if m > 0 else 1)
            c += 1
        return c

    assert count(tf.constant(10), tf.constant(5)).numpy() == 3
    assert count(tf.constant(10), tf.constant(-5)).numpy() == 1  # a staged conditional
