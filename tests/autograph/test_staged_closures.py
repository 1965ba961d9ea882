"""Nested functions that rebind a variable of the enclosing function (`nonlocal`), called from
a conditional or loop on a tensor: the call modifies that variable, so the statement carries
it as state like an assignment written in its own body, and the result is Python's."""

import pytest

import autograph.tf as tf


def value(result):
    return result.numpy().tolist() if hasattr(result, "numpy") else result


def accumulate_through_a_closure(n):
    s = tf.constant(0)

    def add(v):
        nonlocal s
        s = s + v
    for i in tf.range(n):
        add(i)
    return s


def count_through_two_closures(n):
    total = 0

    def bump():
        nonlocal total
        total = total + 1

    def bump_twice():
        bump()
        bump()
    i = 0
    while i < n:
        bump_twice()
        i += 1
    return total


def set_through_a_closure_in_a_branch(x):
    best = 0

    def keep(v):
        nonlocal best
        best = v
    if x > 0:
        keep(x * 2)
    return best


def closure_reading_the_loop_state(n):
    s = 1

    def double():
        nonlocal s
        s = s * 2
    for i in tf.range(n):
        if s < 50:
            double()
    return s


@pytest.mark.parametrize("function", [accumulate_through_a_closure, count_through_two_closures,
                                      closure_reading_the_loop_state])
@pytest.mark.parametrize("n", [0, 1, 5])
def test_nonlocal_written_by_a_closure_called_in_a_staged_loop_is_loop_state(function, n):
    assert value(tf.function(function)(tf.constant(n))) == value(function(n))


@pytest.mark.parametrize("x", [3, -3])
def test_nonlocal_written_by_a_closure_called_in_one_branch_is_merged(x):
    got = tf.function(set_through_a_closure_in_a_branch)(tf.constant(x))
    assert value(got) == set_through_a_closure_in_a_branch(x)
