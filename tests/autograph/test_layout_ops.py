"""Padding and reordering ops (tf.pad, tf.reverse, tf.roll): values against numpy, eagerly
and traced, and their static shapes; gradients against finite differences and of second
order; clear errors; reverse written as a slice. Property tests on random shapes and
arguments: values equal numpy's and, the ops being linear, the gradient is their adjoint
(op_checks.check_linear_op)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from op_checks import (
    F32,
    INTS,
    F,
    GradientOperands,
    check_linear_op,
    gradients_test,
    mixed_dtypes_test,
    static_shapes_test,
    values_test,
)

import autograph.tf as tf

_operands = GradientOperands(7)
_u = _operands.uniform

SETTINGS = settings(max_examples=40, deadline=None, database=None)

_shapes = st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)


@st.composite
def _pad_roll_or_reverse(draw):
    """(tf function, numpy reference, shape) of a random pad, roll or reverse."""
    shape = draw(_shapes)
    rank = len(shape)
    axis = draw(st.integers(-rank, rank - 1))
    kind = draw(st.sampled_from(["pad", "roll", "reverse"]))
    if kind == "pad":
        mode = draw(st.sampled_from(["CONSTANT", "REFLECT", "SYMMETRIC"]))
        limit = {"CONSTANT": 3, "REFLECT": None, "SYMMETRIC": None}[mode]
        pads = []
        for d in shape:
            most = limit if limit is not None else (d - 1 if mode == "REFLECT" else d)
            pads.append([draw(st.integers(0, most)), draw(st.integers(0, most))])
        return (lambda x: tf.pad(x, pads, mode),
                lambda x: np.pad(x, pads, mode.lower()), shape)
    if kind == "roll":
        shift = draw(st.integers(-5, 5))
        return (lambda x: tf.roll(x, shift, axis),
                lambda x: np.roll(x, shift, axis), shape)
    return lambda x: tf.reverse(x, [axis]), lambda x: np.flip(x, axis), shape


VALUES = {
    # name: (function of tensors, inputs, numpy reference of the same inputs)
    "pad_constant": (lambda x: tf.pad(x, [[1, 2], [0, 1]], constant_values=7), [INTS],
                     lambda x: np.pad(x, [[1, 2], [0, 1]], constant_values=7)),
    "pad_reflect": (lambda x: tf.pad(x, [[2, 2], [3, 1]], "REFLECT"), [F],
                    lambda x: np.pad(x, [[2, 2], [3, 1]], "reflect")),
    "pad_symmetric": (lambda x: tf.pad(x, [[3, 0], [4, 4]], "symmetric"), [F],
                      lambda x: np.pad(x, [[3, 0], [4, 4]], "symmetric")),
    "reverse": (lambda x: tf.reverse(x, [-1]), [INTS], lambda x: x[:, ::-1]),
    "roll": (lambda x: tf.roll(x, [1, -1], [0, 1]), [F], lambda x: np.roll(x, (1, -1), (0, 1))),
}

GRADIENTS = {
    "pad_constant": (lambda x: tf.pad(x, [[1, 0], [2, 1]], constant_values=0.5), _u(2, 3)),
    "pad_reflect": (lambda x: tf.pad(x, [[2, 1], [1, 2]], "REFLECT"), _u(3, 4)),
    "pad_symmetric": (lambda x: tf.pad(x, [[2, 2], [0, 3]], "SYMMETRIC"), _u(3, 4)),
    "reverse": (lambda x: tf.reverse(x, [0, 1]) * x, _u(2, 3)),
    "roll": (lambda x: tf.roll(x, [1, -2], [0, 1]) * x, _u(3, 4)),
}

MIXED_DTYPES = {
    "pad": lambda: tf.pad(tf.constant(F32), [[1, 1], [0, 0]],
                          constant_values=tf.constant(1.0, tf.float64)),
}


test_values_match_numpy = values_test(VALUES)
test_static_shapes_are_inferred = static_shapes_test(VALUES, ['pad_reflect', 'roll'])
test_gradient_matches_finite_differences = gradients_test(GRADIENTS)
test_mixed_dtypes_are_an_error_naming_the_op_and_operands = mixed_dtypes_test(
    MIXED_DTYPES)


def test_a_reflection_wider_than_the_dimension_raises_invalid_argument_naming_the_op():
    with pytest.raises(tf.errors.InvalidArgumentError, match="REFLECT") as info:
        tf.pad(tf.constant(F32), [[2, 2], [0, 0]], "REFLECT")
    assert "PadV2" in str(info.value)
    assert __file__ in str(info.value)  # the user's line


def test_an_unknown_padding_mode_is_a_value_error():
    with pytest.raises(ValueError, match="CONSTANT, REFLECT"):
        tf.pad(tf.ones([2]), [[1, 1]], "WRAP")


def test_reverse_is_written_as_a_slice_where_the_rank_is_known():
    @tf.function(autograph=False)
    def f(x):
        return tf.reverse(x, [-1, 0])
    x = tf.constant(F)
    np.testing.assert_array_equal(f(x).numpy(), F[::-1, ::-1])
    source = f.get_concrete_function(x).executor_source
    assert "[::-1, ::-1]" in source and "k_ReverseV2_" not in source

    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)], autograph=False)
    def unknown_rank(x):
        return tf.reverse(x, [0])
    np.testing.assert_array_equal(unknown_rank(x).numpy(), F[::-1])
    assert "k_ReverseV2_" in unknown_rank.get_concrete_function().executor_source


def test_second_order_through_pad():
    """PadGrad has a gradient of its own (Pad)."""
    x = tf.constant(_u(2, 3))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.pad(x, [[1, 1], [1, 1]], "REFLECT") ** 3)
        g = inner.gradient(y, x)
        total = tf.reduce_sum(g * g)
    second = outer.gradient(total, x)
    # y = sum(m * x**3), m the number of copies of each element in the reflected padding:
    # 2 rows each, columns [1, 3, 1] times; so total = sum(9 m^2 x^4)
    m = 2 * np.array([[1.0, 3.0, 1.0]] * 2)
    np.testing.assert_allclose(second.numpy(), 36 * m ** 2 * x.numpy() ** 3, rtol=1e-10)


@pytest.mark.property
@SETTINGS
@given(_pad_roll_or_reverse(), st.integers(0, 2**31))
def test_pad_roll_and_reverse_match_numpy_and_their_gradient_is_the_adjoint(case, seed):
    check_linear_op(*case, seed)
