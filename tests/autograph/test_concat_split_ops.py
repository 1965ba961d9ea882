"""Joining and splitting ops (tf.split, tf.repeat): values against numpy, eagerly and traced,
and their static shapes; gradients against finite differences and of second order; clear
errors; tf.split of a dimension known only when the graph runs. Property tests on random
shapes and arguments: values equal numpy's and, the ops being linear, the gradient is their
adjoint (op_checks.check_linear_op). tf.concat, tf.stack, tf.unstack and tf.tile are
checked with the core ops (tests/runtime/test_ops.py)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from op_checks import (
    INTS,
    F,
    GradientOperands,
    check_linear_op,
    gradients_test,
    static_shapes_test,
    values_test,
)

import autograph.tf as tf

_operands = GradientOperands(7)
_u = _operands.uniform

SETTINGS = settings(max_examples=40, deadline=None, database=None)

_shapes = st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)


@st.composite
def _split_or_repeat(draw):
    """(tf function, numpy reference, shape) of a random split or repeat."""
    shape = draw(_shapes)
    rank = len(shape)
    axis = draw(st.integers(-rank, rank - 1))
    if draw(st.booleans()):
        counts = draw(st.one_of(st.integers(0, 3),
                                st.lists(st.integers(0, 3), min_size=shape[axis],
                                         max_size=shape[axis])))
        return (lambda x: tf.repeat(x, counts, axis=axis),
                lambda x: np.repeat(x, counts, axis=axis), shape)
    cut = draw(st.integers(0, shape[axis]))
    part = draw(st.integers(0, 1))
    return (lambda x: tf.split(x, [cut, -1], axis=axis)[part],
            lambda x: np.split(x, [cut], axis=axis)[part], shape)


VALUES = {
    # name: (function of tensors, inputs, numpy reference of the same inputs)
    "split": (lambda x: tf.split(x, 2, axis=1)[1], [F], lambda x: np.split(x, 2, axis=1)[1]),
    "split_sizes": (lambda x: tf.split(x, [1, -1])[1], [F], lambda x: x[1:]),
    "repeat_axis": (lambda x: tf.repeat(x, [1, 0, 2], axis=1), [INTS],
                    lambda x: np.repeat(x, [1, 0, 2], axis=1)),
    "repeat_scalar": (lambda x: tf.repeat(x, 3, axis=0), [INTS], lambda x: np.repeat(x, 3, 0)),
    "repeat_one_count_broadcasts": (lambda x: tf.repeat(x, [2], axis=1), [INTS],
                                    lambda x: np.repeat(x, 2, axis=1)),
    "repeat_zero": (lambda x: tf.repeat(x, 0, axis=0), [INTS], lambda x: x[:0]),
    "repeat_flat": (lambda x: tf.repeat(x, 2), [INTS], lambda x: np.repeat(x, 2)),
}

GRADIENTS = {
    "split": (lambda x: tf.split(x, [1, -1], axis=1)[1] * 2.0, _u(2, 3)),
    "repeat_each": (lambda x: tf.repeat(x, [2, 0, 1], axis=1), _u(2, 3)),
    "repeat_flat": (lambda x: tf.repeat(x, 2), _u(2, 3)),
}


test_values_match_numpy = values_test(VALUES)
test_static_shapes_are_inferred = static_shapes_test(VALUES, ['repeat_axis', 'split'])
test_gradient_matches_finite_differences = gradients_test(GRADIENTS)


def test_sizes_that_do_not_add_up_raise_invalid_argument_naming_the_op():
    with pytest.raises(tf.errors.InvalidArgumentError, match="do not add up") as info:
        tf.split(tf.constant(np.ones((2, 3), np.float32)), [1, 1], axis=1)
    assert "SplitV" in str(info.value)
    assert __file__ in str(info.value)  # the user's line


def test_an_equal_split_of_an_indivisible_static_size_is_a_value_error():
    with pytest.raises(ValueError, match="not divisible"):
        tf.split(tf.ones([3, 4]), 3, axis=1)


def test_second_order_through_repeat():
    """RepeatGrad has a gradient of its own (Repeat)."""
    x = tf.constant(_u(2, 3))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.repeat(x, 2, axis=0) ** 3)
        g = inner.gradient(y, x)
        total = tf.reduce_sum(g * g)
    second = outer.gradient(total, x)
    # y = sum(2 x**3): each element repeated twice; so total = sum(9 * 4 x^4)
    np.testing.assert_allclose(second.numpy(), 36 * 4 * x.numpy() ** 3, rtol=1e-10)


@pytest.mark.property
@SETTINGS
@given(_split_or_repeat(), st.integers(0, 2**31))
def test_split_and_repeat_match_numpy_and_their_gradient_is_the_adjoint(case, seed):
    check_linear_op(*case, seed)


def _halves_of_rows_known_at_run_time():
    """tf.split into two equal parts along a dimension known only when the Function runs
    (TensorFlow's Split op)."""
    return tf.function(lambda x: tf.split(x, 2, axis=0),
                       input_signature=[tf.TensorSpec([None, 3], tf.float32)], autograph=False)


def test_equal_parts_of_an_unknown_dimension():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    first, second = _halves_of_rows_known_at_run_time()(x)
    np.testing.assert_array_equal(first.numpy(), x[:2])
    np.testing.assert_array_equal(second.numpy(), x[2:])
    graph = _halves_of_rows_known_at_run_time().get_concrete_function().graph
    assert [t.shape.as_list() for t in graph.outputs] == [[None, 3], [None, 3]]


def test_an_indivisible_size_fails_when_it_runs():
    with pytest.raises(tf.errors.InvalidArgumentError, match="size 3 is not divisible by 2"):
        _halves_of_rows_known_at_run_time()(np.ones((3, 3), np.float32))


def test_gradient_of_equal_parts_of_an_unknown_dimension():
    def loss(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            first, second = tf.split(x, 2, axis=0)
            total = tf.reduce_sum(tf.multiply(second, 3.0)) + tf.reduce_sum(first)
        return tape.gradient(total, x)
    f = tf.function(loss, input_signature=[tf.TensorSpec([None, 3], tf.float32)],
                    autograph=False)
    expected = np.array([[1.0] * 3] * 2 + [[3.0] * 3] * 2, np.float32)
    np.testing.assert_array_equal(f(np.ones((4, 3), np.float32)).numpy(), expected)
