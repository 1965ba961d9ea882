"""Joining and splitting ops (tf.split, tf.repeat, tf.concat, tf.stack, tf.unstack,
tf.tile): values against numpy, eagerly and traced,
and their static shapes; gradients against finite differences and of second order; clear
errors; tf.split of a dimension known only when the graph runs. Property tests on random
shapes and arguments: values equal numpy's and, the ops being linear, the gradient is their
adjoint (op_checks.check_linear_op). tf.concat, tf.stack, tf.unstack and tf.tile against the
runtime alone (tests/op_cases.py): values eagerly and traced with exact and unknown static
shapes, mixed dtypes, incompatible shapes, gradient rules."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from op_cases import (
    CUBE,
    F1,
    F2,
    I1,
    I2,
    MAT_A,
    RuleOperands,
    case,
    eager_values_test,
    gradient_rules_test,
    incompatible_shapes_tests,
    mixed_dtypes_tests,
    static_shapes_with_an_unknown_dimension,
    traced_values_test,
    unknown_dims_test,
)
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
from runtime import dtypes
from runtime.function import function
from runtime.ops import array_ops, concat_split_ops

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


# -- against the runtime alone (tests/op_cases.py): values eagerly and traced, with exact
# and with unknown static shapes; mixed dtypes and incompatible shapes; gradient rules -----


def _runtime_cases():
    out = []
    out.append(case("concat axis 0", lambda a, b: concat_split_ops.concat([a, b], 0), (F1, F2),
                    lambda a, b: np.concatenate([a, b], 0), dtypes.float32))
    out.append(case("concat axis 1", lambda a, b: concat_split_ops.concat([a, b], axis=1), (I1, I2),
                    lambda a, b: np.concatenate([a, b], 1), dtypes.int32))
    out.append(case("concat axis -1 three", lambda a, b: concat_split_ops.concat([a, b, a], -1),
                    (F1, MAT_A), lambda a, b: np.concatenate([a, b, a], -1), dtypes.float32))
    out.append(case("stack", lambda a, b: concat_split_ops.stack([a, b]), (F1, F2),
                    lambda a, b: np.stack([a, b]), dtypes.float32))
    out.append(case("stack axis 1", lambda a, b: concat_split_ops.stack([a, b], axis=1), (I1, I2),
                    lambda a, b: np.stack([a, b], axis=1), dtypes.int32))
    out.append(case("stack axis -1", lambda a, b: concat_split_ops.stack([a, b], axis=-1), (I1, I2),
                    lambda a, b: np.stack([a, b], axis=-1), dtypes.int32))
    out.append(case("unstack", concat_split_ops.unstack, (CUBE,), lambda x: list(x), dtypes.float32,
                    relaxable=False))
    out.append(case("unstack axis 1", lambda x: concat_split_ops.unstack(x, axis=1), (F1,),
                    lambda x: [x[:, i] for i in range(3)], dtypes.float32, relaxable=False))
    out.append(case("tile", lambda x: concat_split_ops.tile(x, [2, 3]), (I1,),
                    lambda x: np.tile(x, (2, 3)),
                    dtypes.int32))
    return out


RUNTIME_CASES = _runtime_cases()

test_eager_result_matches_numpy = eager_values_test(RUNTIME_CASES)
test_traced_result_equals_eager_and_static_shape_is_exact = traced_values_test(RUNTIME_CASES)
test_traced_with_unknown_dims_gives_compatible_static_shape = unknown_dims_test(RUNTIME_CASES)


@pytest.mark.lowerings
def test_static_shapes_keep_known_dims_when_others_are_unknown():
    shapes = static_shapes_with_an_unknown_dimension(lambda x, y: {
        "concat": concat_split_ops.concat([x, x], axis=1),
        "stack": concat_split_ops.stack([x, x])})
    assert shapes == {"concat": (None, 6), "stack": (2, None, 3)}


DTYPE_MISMATCH = [
    ("concat", lambda a, b: concat_split_ops.concat([a, b], 0), "ConcatV2"),
    ("stack", lambda a, b: concat_split_ops.stack([a, b]), "Pack"),
]

test_mixed_dtypes_raise_invalid_argument_eagerly, \
    test_mixed_dtypes_raise_type_error_while_tracing = mixed_dtypes_tests(DTYPE_MISMATCH)

SHAPE_MISMATCH = [
    ("concat", lambda a, b: concat_split_ops.concat([a, b], 0), [(2, 3), (2, 2)], "ConcatV2"),
    ("concat ranks", lambda a, b: concat_split_ops.concat([a, b], 0), [(2, 3), (3,)],
     "ConcatV2"),
    ("stack", lambda a, b: concat_split_ops.stack([a, b]), [(2,), (3,)], "Pack"),
    ("tile multiples", lambda a, b: concat_split_ops.tile(a, [2]), [(2, 3), (1,)], "Tile"),
    ("unstack num", lambda a, b: concat_split_ops.unstack(a, num=3), [(2, 3), (1,)], "Unpack"),
]

test_incompatible_shapes_raise_invalid_argument_eagerly, \
    test_incompatible_shapes_raise_value_error_while_tracing = \
    incompatible_shapes_tests(SHAPE_MISMATCH)


@pytest.mark.lowerings
def test_unstack_of_a_single_slice_drops_the_axis_eagerly_and_in_graphs():
    t = array_ops.constant([[1.0, 2.0, 3.0]])
    (part,) = concat_split_ops.unstack(t)
    assert part.shape == (3,)

    @function(autograph=False)
    def first_doubled(x):
        return concat_split_ops.unstack(x)[0] * 2

    np.testing.assert_array_equal(first_doubled(t).numpy(), [2.0, 4.0, 6.0])


_rule_u = RuleOperands(42).uniform

GRADIENT_RULES = {
    "concat": (lambda x, y: concat_split_ops.concat([x, y, x], axis=1), _rule_u(2, 2),
               _rule_u(2, 3)),
    "concat_axis0": (lambda x, y: concat_split_ops.concat([x, y], axis=0), _rule_u(1, 3),
                     _rule_u(2, 3)),
    "stack": (lambda x, y: concat_split_ops.stack([x, y], axis=1), _rule_u(2, 3), _rule_u(2, 3)),
    "stack_one": (lambda x: concat_split_ops.stack([x], axis=1) * 2.0, _rule_u(2, 3)),
    "unstack": (lambda x: concat_split_ops.unstack(x)[0] * 2.0 + concat_split_ops.unstack(x)[2],
                _rule_u(3, 2)),
    "tile": (lambda x: concat_split_ops.tile(x, [2, 3]), _rule_u(2, 2)),
}

test_rule_matches_finite_differences = gradient_rules_test(GRADIENT_RULES)
