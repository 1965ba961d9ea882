"""Sorting ops (tf.sort, tf.argsort, tf.math.top_k, tf.unique): values against numpy, eagerly
and traced; gradients against finite differences (second order too); clear errors."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from op_checks import (
    INTS,
    F,
    GradientOperands,
    check_second_order,
    gradients_test,
    static_shapes_test,
    values_test,
)

import autograph.tf as tf

_operands = GradientOperands(7)
_u, _distinct = _operands.uniform, _operands.distinct


def _unique_in_order(x):
    seen = list(dict.fromkeys(x.tolist()))
    return np.array(seen, x.dtype), np.array([seen.index(v) for v in x.tolist()], np.int32)

VALUES = {
    # name: (function of tensors, inputs, numpy reference of the same inputs)
    "sort": (lambda x: tf.sort(x, axis=0), [F], lambda x: np.sort(x, axis=0)),
    "sort_int_descending": (lambda x: tf.sort(x, direction="DESCENDING"), [INTS],
                            lambda x: -np.sort(-x)),
    "sort_int_extremes": (lambda x: tf.sort(x), [np.array([2**31 - 1, -2**31, 0], np.int32)],
                          lambda x: np.sort(x)),
    "argsort": (lambda x: tf.argsort(x), [INTS], lambda x: np.argsort(x, kind="stable")),
    "argsort_descending_stable": (
        lambda x: tf.argsort(x, direction="DESCENDING", axis=0), [INTS],
        lambda x: np.argsort(-x, axis=0, kind="stable")),
    "top_k_values": (lambda x: tf.math.top_k(x, 2).values, [INTS],
                     lambda x: -np.sort(-x)[:, :2]),
    "top_k_ties_lower_index_first": (lambda x: tf.math.top_k(x, 3).indices, [INTS],
                                     lambda x: np.array([[0, 2, 1], [2, 0, 1]])),
    "unique": (lambda x: tf.unique(x).y, [np.array([4, 1, 4, 0, 1], np.int32)],
               lambda x: _unique_in_order(x)[0]),
    "unique_strings": (lambda x: tf.unique(x).y, [np.array(["b", "a", "b"], object)],
                       lambda x: np.array([b"b", b"a"], object)),
    "unique_idx": (lambda x: tf.unique(x).idx, [np.array([4, 1, 4, 0, 1], np.int32)],
                   lambda x: _unique_in_order(x)[1]),
}

GRADIENTS = {
    "sort": (lambda x: tf.sort(x, axis=0) * tf.constant([[1.0], [2.0], [3.0]], tf.float64),
             _distinct(3, 2)),
    "sort_descending": (
        lambda x: tf.sort(x, direction="DESCENDING") * tf.range(4.0, dtype=tf.float64),
        _distinct(2, 4)),
    "top_k": (lambda x: tf.math.top_k(x, 2).values, _distinct(3, 4)),
}

SECOND_ORDER = {
    "sort": (lambda x: tf.sort(x) ** 3, _distinct(2, 4)),
    "top_k": (lambda x: tf.math.top_k(x, 2).values ** 3, _distinct(2, 4)),
}


test_values_match_numpy = values_test(
    VALUES, keeps_input_dtype=lambda name: not name.startswith('argsort'))
test_static_shapes_are_inferred = static_shapes_test(VALUES, ['sort', 'top_k_values'])
test_gradient_matches_finite_differences = gradients_test(GRADIENTS)


@pytest.mark.parametrize("name", sorted(SECOND_ORDER))
def test_second_order_matches_finite_differences_of_the_gradient(name):
    """The gradients of sort and top_k (TopKGrad) have gradients: the gradient of sum(grad * w)
    matches finite differences of the first-order gradient."""
    check_second_order(*SECOND_ORDER[name])


@pytest.mark.parametrize("fn, op, pattern", [
    (lambda: tf.math.top_k([1.0, 2.0], 3), "TopKV2", "larger than"),
])
def test_bad_values_raise_invalid_argument_naming_the_op(fn, op, pattern):
    with pytest.raises(tf.errors.InvalidArgumentError, match=pattern) as info:
        fn()
    assert op in str(info.value)
    assert __file__ in str(info.value)  # the user's line


@pytest.mark.parametrize("fn, error, pattern", [
    (lambda: tf.sort(tf.constant(["b", "a"])), TypeError, "cannot be sorted"),
])
def test_bad_arguments_raise_clear_python_errors(fn, error, pattern):
    with pytest.raises(error, match=pattern):
        fn()


def test_argsort_positions_get_no_gradient():
    x = tf.constant(_u(2, 3))
    with tf.GradientTape() as tape:
        tape.watch(x)
        sorted_positions = tf.cast(tf.argsort(x), tf.float64)
    assert tape.gradient(sorted_positions, x) is None


@pytest.mark.property
@given(st.lists(st.sampled_from([np.nan, -np.inf, -1.5, -0.0, 0.0, 1.0, 2.5, np.inf]),
                max_size=70))
def test_numba_kernels_sort_rows_in_the_executors_descending_order(values):
    # NaN above every number; equal values, NaNs among them, by position. 70 values make
    # more than one run of numba_sorting's merge sort (plain Python here, as numba compiles it)
    from runtime.backends.numba_sorting import descending_order
    row = np.array(values, np.float32)
    order = np.empty(len(values), np.int64)
    descending_order(row, order)
    np.testing.assert_array_equal(order, tf.math.top_k(row, len(values)).indices)
    if values:
        assert row[order[0]] == np.nanmax(row) if not np.isnan(row).any() \
            else np.isnan(row[order[0]])
