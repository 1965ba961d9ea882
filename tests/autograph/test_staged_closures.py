"""Nested functions that rebind a variable of the enclosing function (`nonlocal`), called from
a conditional or loop on a tensor: the call modifies that variable, so the statement carries
it as state like an assignment written in its own body, and the result is Python's. A nested
function's own `global` and `nonlocal` declarations leave the enclosing function's locals
local."""

import pytest

import autograph
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


total = 1000  # a module global named like a local of the function below


def local_named_like_a_global_of_a_nested_function(n):
    total = 0

    def read_global():
        global total
        return total
    for i in tf.range(n):
        total += i
    return total


def nonlocal_in_a_nested_function(n):
    for i in tf.range(n):
        last = i

    def bump():
        nonlocal last
        last = last + 10
    bump()
    return last


@pytest.mark.parametrize("function", [local_named_like_a_global_of_a_nested_function,
                                      nonlocal_in_a_nested_function])
def test_declarations_of_a_nested_function_leave_the_enclosing_locals_local(function):
    expected = function(3)
    assert value(autograph.to_graph(function)(3)) == expected
    assert value(tf.function(function)(tf.constant(3))) == expected


@pytest.mark.parametrize("x", [3, -3])
def test_nonlocal_written_by_a_closure_called_in_one_branch_is_merged(x):
    got = tf.function(set_through_a_closure_in_a_branch)(tf.constant(x))
    assert value(got) == set_through_a_closure_in_a_branch(x)
