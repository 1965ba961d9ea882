"""Layout ops (tf.split, tf.pad, tf.slice, tf.strided_slice, tf.reverse, tf.roll, tf.repeat):
values against numpy, eagerly and traced, and their static shapes; gradients against
finite differences; clear errors; tf.split of a dimension known only when the graph runs.
Property tests on random shapes and arguments: values equal numpy's and, the ops being
linear, the gradient is their adjoint: <op(x), w> == <x, grad>, where grad is the tape's
gradient of sum(op(x) * w)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from op_cases import gradient_rules_test
from op_checks import (
    F32,
    INTS,
    SQUARE,
    F,
    GradientOperands,
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
def _layout_case(draw):
    """(tf function, numpy reference, shape) of one random layout op."""
    shape = draw(_shapes)
    rank = len(shape)
    axis = draw(st.integers(-rank, rank - 1))
    kind = draw(st.sampled_from(["pad", "roll", "reverse", "repeat", "split", "slice"]))
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
    if kind == "reverse":
        return lambda x: tf.reverse(x, [axis]), lambda x: np.flip(x, axis), shape
    if kind == "repeat":
        counts = draw(st.one_of(st.integers(0, 3),
                                st.lists(st.integers(0, 3), min_size=shape[axis],
                                         max_size=shape[axis])))
        return (lambda x: tf.repeat(x, counts, axis=axis),
                lambda x: np.repeat(x, counts, axis=axis), shape)
    if kind == "split":
        cut = draw(st.integers(0, shape[axis]))
        part = draw(st.integers(0, 1))
        return (lambda x: tf.split(x, [cut, -1], axis=axis)[part],
                lambda x: np.split(x, [cut], axis=axis)[part], shape)
    begin = [draw(st.integers(0, d - 1)) for d in shape]
    size = [draw(st.integers(-1, d - b)) for d, b in zip(shape, begin)]
    size = [s if s != 0 else -1 for s in size]
    return (lambda x: tf.slice(x, begin, size),
            lambda x: x[tuple(np.s_[b:] if s == -1 else np.s_[b:b + s]
                              for b, s in zip(begin, size))], shape)

VALUES = {
    # name: (function of tensors, inputs, numpy reference of the same inputs)
    "split": (lambda x: tf.split(x, 2, axis=1)[1], [F], lambda x: np.split(x, 2, axis=1)[1]),
    "split_sizes": (lambda x: tf.split(x, [1, -1])[1], [F], lambda x: x[1:]),
    "pad_constant": (lambda x: tf.pad(x, [[1, 2], [0, 1]], constant_values=7), [INTS],
                     lambda x: np.pad(x, [[1, 2], [0, 1]], constant_values=7)),
    "pad_reflect": (lambda x: tf.pad(x, [[2, 2], [3, 1]], "REFLECT"), [F],
                    lambda x: np.pad(x, [[2, 2], [3, 1]], "reflect")),
    "pad_symmetric": (lambda x: tf.pad(x, [[3, 0], [4, 4]], "symmetric"), [F],
                      lambda x: np.pad(x, [[3, 0], [4, 4]], "symmetric")),
    "slice": (lambda x: tf.slice(x, [1, 1], [2, -1]), [F], lambda x: x[1:3, 1:]),
    "strided_slice_masks": (
        lambda x: tf.strided_slice(x, [0, 1, 0], [0, 3, 0], [1, 1, 1], begin_mask=1,
                                   end_mask=1, new_axis_mask=4), [F],
        lambda x: x[:, 1:3, None]),
    "strided_slice_ellipsis": (
        lambda x: tf.strided_slice(x, [0, 1], [0, 3], ellipsis_mask=1), [SQUARE],
        lambda x: x[..., 1:3]),
    "strided_slice_shrink": (lambda x: tf.strided_slice(x, [2, 0], [3, 4], [1, 2],
                                                        shrink_axis_mask=1), [F],
                             lambda x: x[2, 0:4:2]),
    "reverse": (lambda x: tf.reverse(x, [-1]), [INTS], lambda x: x[:, ::-1]),
    "roll": (lambda x: tf.roll(x, [1, -1], [0, 1]), [F], lambda x: np.roll(x, (1, -1), (0, 1))),
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
    "pad_constant": (lambda x: tf.pad(x, [[1, 0], [2, 1]], constant_values=0.5), _u(2, 3)),
    "pad_reflect": (lambda x: tf.pad(x, [[2, 1], [1, 2]], "REFLECT"), _u(3, 4)),
    "pad_symmetric": (lambda x: tf.pad(x, [[2, 2], [0, 3]], "SYMMETRIC"), _u(3, 4)),
    "slice": (lambda x: tf.slice(x, [1, 0], [1, -1]), _u(3, 4)),
    "strided_slice": (lambda x: tf.strided_slice(x, [0, 3], [3, 0], [2, -1]), _u(3, 4)),
    "reverse": (lambda x: tf.reverse(x, [0, 1]) * x, _u(2, 3)),
    "roll": (lambda x: tf.roll(x, [1, -2], [0, 1]) * x, _u(3, 4)),
    "repeat_each": (lambda x: tf.repeat(x, [2, 0, 1], axis=1), _u(2, 3)),
    "repeat_flat": (lambda x: tf.repeat(x, 2), _u(2, 3)),
}

MIXED_DTYPES = {
    "pad": lambda: tf.pad(tf.constant(F32), [[1, 1], [0, 0]],
                          constant_values=tf.constant(1.0, tf.float64)),
}


test_values_match_numpy = values_test(VALUES)
test_static_shapes_are_inferred = static_shapes_test(
    VALUES, ['pad_reflect', 'repeat_axis', 'roll', 'split'])
test_gradient_matches_finite_differences = gradients_test(GRADIENTS)
test_mixed_dtypes_are_an_error_naming_the_op_and_operands = mixed_dtypes_test(
    MIXED_DTYPES)


@pytest.mark.parametrize("fn, op, pattern", [
    (lambda: tf.pad(tf.constant(F32), [[2, 2], [0, 0]], "REFLECT"), "PadV2", "REFLECT"),
    (lambda: tf.split(tf.constant(F32), [1, 1], axis=1), "SplitV", "do not add up"),
])
def test_bad_values_raise_invalid_argument_naming_the_op(fn, op, pattern):
    with pytest.raises(tf.errors.InvalidArgumentError, match=pattern) as info:
        fn()
    assert op in str(info.value)
    assert __file__ in str(info.value)  # the user's line


@pytest.mark.parametrize("fn, error, pattern", [
    (lambda: tf.split(tf.ones([3, 4]), 3, axis=1), ValueError, "not divisible"),
    (lambda: tf.pad(tf.ones([2]), [[1, 1]], "WRAP"), ValueError, "CONSTANT, REFLECT"),
])
def test_bad_arguments_raise_clear_python_errors(fn, error, pattern):
    with pytest.raises(error, match=pattern):
        fn()


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


def test_second_order_through_pad_and_repeat():
    """PadGrad and RepeatGrad have gradients of their own (Pad and Repeat)."""
    x = tf.constant(_u(2, 3))
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = tf.reduce_sum(tf.pad(x, [[1, 1], [1, 1]], "REFLECT") ** 3)
            y += tf.reduce_sum(tf.repeat(x, 2, axis=0) ** 3)
        g = inner.gradient(y, x)
        total = tf.reduce_sum(g * g)
    second = outer.gradient(total, x)
    # y = sum(m * x**3), m the number of copies of each element: 2 rows each, columns
    # [1, 3, 1] times in the reflected padding, and 2 repeats; so total = sum(9 m^2 x^4)
    m = 2 * np.array([[1.0, 3.0, 1.0]] * 2) + 2
    np.testing.assert_allclose(second.numpy(), 36 * m ** 2 * x.numpy() ** 3, rtol=1e-10)


@pytest.mark.property
@SETTINGS
@given(_layout_case(), st.integers(0, 2**31))
def test_layout_ops_match_numpy_and_their_gradient_is_the_adjoint(case, seed):
    fn, reference, shape = case
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    out = fn(tf.constant(x))
    want = reference(x)
    np.testing.assert_array_equal(out.numpy(), want)
    w = rng.standard_normal(want.shape)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = tf.reduce_sum(fn(xt) * w)
    grad = tape.gradient(y, xt)
    grad = np.zeros_like(x) if grad is None else grad.numpy()
    np.testing.assert_allclose(np.sum(want * w), np.sum(x * grad), rtol=1e-9, atol=1e-9)


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


# -- slicing against the runtime alone (tests/op_cases.py) ----------------------------------------

GRADIENT_RULES = {
    "slice": (lambda x: x[1:, ::2], _u(3, 5)),
    "index": (lambda x: x[1] * x[-1], _u(3, 2)),
    "newaxis_ellipsis": (lambda x: x[..., None, 1], _u(2, 3)),
}

test_rule_matches_finite_differences = gradient_rules_test(GRADIENT_RULES)
