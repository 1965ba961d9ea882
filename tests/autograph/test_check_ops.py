"""The tf.debugging.assert_* family: silent when the condition holds, InvalidArgumentError
naming the condition and the values (eagerly, and at each call of a traced function) when
not; rank and type checks are static where the rank or dtype is known."""

import numpy as np
import pytest

import autograph.tf as tf

PASSING = [
    (tf.debugging.assert_equal, ([1, 2], [1, 2])),
    (tf.debugging.assert_none_equal, ([1, 2], [2, 1])),
    (tf.debugging.assert_less, ([1, 2], [2, 3])),
    (tf.debugging.assert_less_equal, ([1, 2], 2)),
    (tf.debugging.assert_greater, (3.0, [1.0, 2.0])),
    (tf.debugging.assert_greater_equal, ([2, 2], 2)),
    (tf.debugging.assert_positive, ([1, 2],)),
    (tf.debugging.assert_negative, ([-1.0],)),
    (tf.debugging.assert_non_negative, ([0, 2],)),
    (tf.debugging.assert_non_positive, ([0, -2],)),
    (tf.debugging.assert_near, ([1.0], [1.0 + 1e-7])),
    (tf.debugging.assert_all_finite, ([1.0], "finite")),
    (tf.debugging.assert_rank, ([[1]], 2)),
    (tf.debugging.assert_rank_at_least, ([[1]], 1)),
    (tf.debugging.assert_type, (tf.constant(1.0), tf.float32)),
    (tf.assert_equal, (1, 1)), (tf.assert_less, (1, 2)), (tf.assert_greater, (2, 1)),
    (tf.assert_rank, ([1], 1)),
]

FAILING = [
    (tf.debugging.assert_equal, ([1, 2], [1, 3]), "x == y"),
    (tf.debugging.assert_none_equal, ([1, 2], [1, 3]), "x != y"),
    (tf.debugging.assert_less, ([1, 2], 2), "x < y"),
    (tf.debugging.assert_less_equal, ([1, 3], 2), "x <= y"),
    (tf.debugging.assert_greater, ([3, 2], 2), "x > y"),
    (tf.debugging.assert_greater_equal, ([1, 3], 2), "x >= y"),
    (tf.debugging.assert_positive, ([1, 0],), "positive"),
    (tf.debugging.assert_negative, ([0.0],), "negative"),
    (tf.debugging.assert_non_negative, ([-1],), "non-negative"),
    (tf.debugging.assert_non_positive, ([1],), "non-positive"),
    (tf.debugging.assert_near, ([1.0], [1.1]), "tolerance"),
    (tf.debugging.assert_all_finite, ([np.inf], "must be finite"), "must be finite"),
]


@pytest.mark.parametrize("check, args", PASSING)
def test_passing_checks_are_silent(check, args):
    assert check(*args) is None


@pytest.mark.parametrize("check, args, pattern", FAILING)
def test_failing_checks_raise_invalid_argument(check, args, pattern):
    with pytest.raises(tf.errors.InvalidArgumentError, match=pattern):
        check(*args)


def test_a_check_in_a_graph_runs_at_every_call():
    @tf.function(autograph=False)
    def checked(x):
        tf.debugging.assert_less(x, 10, message="x too large")
        return x + 1
    assert int(checked(tf.constant(3))) == 4
    with pytest.raises(tf.errors.InvalidArgumentError, match="x too large"):
        checked(tf.constant(12))


def test_assert_equal_passes_silently_and_fails_with_invalid_argument():
    tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="not equal"):
        tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]), message="not equal")


def test_assert_equal_in_a_graph_checks_on_every_call():
    @tf.function(autograph=False)
    def f(x, y):
        tf.debugging.assert_equal(x, y)
        return x + y

    assert f(tf.constant(2), tf.constant(2)).numpy() == 4
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.constant(2), tf.constant(3))


def test_static_rank_and_type_checks_fail_when_written():
    with pytest.raises(ValueError, match="rank 2"):
        tf.debugging.assert_rank(tf.ones([3]), 2)
    with pytest.raises(ValueError, match="at least 2"):
        tf.debugging.assert_rank_at_least(tf.ones([3]), 2)
    with pytest.raises(TypeError, match="float64"):
        tf.debugging.assert_type(tf.ones([3]), tf.float64)


def test_unknown_rank_is_checked_when_the_graph_runs():
    @tf.function(input_signature=[tf.TensorSpec(None, tf.float32)], autograph=False)
    def checked(x):
        tf.debugging.assert_rank(x, 1)
        return x
    checked(tf.ones([2]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="rank 1"):
        checked(tf.ones([2, 2]))


def test_mixed_dtypes_are_a_type_error():
    with pytest.raises(TypeError, match="int32 and float32"):
        tf.debugging.assert_equal(tf.constant(1), tf.constant(1.0))
