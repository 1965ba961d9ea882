"""A numba kernel reads a variable's buffer without copying it only where nothing can assign
the variable before the value's last use (runtime/backends/numba_backend.py,
reads_without_snapshot): a value read before an assignment keeps the old value whatever op
uses it after, and whether it is returned, viewed or multiplied; a read used at once by a
matmul or arithmetic, and an update's own read, copy nothing."""

import numpy as np
import pytest

import autograph.tf as tf

pytest.importorskip("numba")


def _run(step, variable_value):
    """`step(variable)` on the numba backend and on the executor, each with its own
    variable: the two results, the two variables' values after, and the kernel's source."""
    outcomes = []
    for backend in ("numba", "numpy"):
        variable = tf.Variable(np.asarray(variable_value, np.float32))
        function = tf.function(lambda: step(variable), backend=backend)
        result = function()
        outcomes.append((tf.nest.map_structure(lambda t: t.numpy(), result),
                         variable.numpy()))
        if backend == "numba":
            source = function.get_concrete_function()._compiled.source
    (got, got_after), (want, want_after) = outcomes
    for g, w in zip(tf.nest.flatten(got), tf.nest.flatten(want)):
        np.testing.assert_array_equal(g, w)
    np.testing.assert_array_equal(got_after, want_after)
    return got, source


MATRIX = [[1.0, 2.0], [3.0, 4.0]]


def test_a_value_used_after_an_assignment_keeps_the_old_value():
    def step(v):
        old = v.read_value()
        v.assign(tf.zeros([2, 2]))
        return old * 2.0, tf.matmul(old, old), old + 1.0
    (doubled, product, plus_one), source = _run(step, MATRIX)
    np.testing.assert_array_equal(doubled, np.asarray(MATRIX) * 2)
    np.testing.assert_array_equal(product, np.asarray(MATRIX) @ np.asarray(MATRIX))
    np.testing.assert_array_equal(plus_one, np.asarray(MATRIX) + 1)
    assert ".copy()" in source


def test_a_returned_read_is_a_snapshot():
    def step(v):
        old = v.read_value()
        v.assign_add(tf.ones([2, 2]))
        return old
    old, _ = _run(step, MATRIX)
    np.testing.assert_array_equal(old, MATRIX)


def test_a_view_of_a_read_used_after_an_assignment():
    def step(v):
        flat = tf.reshape(v.read_value(), [4])
        v.assign_sub(tf.ones([2, 2]))
        return flat * 1.0
    flat, source = _run(step, MATRIX)
    np.testing.assert_array_equal(flat, np.ravel(MATRIX))
    assert ".copy()" in source


def test_a_read_in_a_loop_body_before_an_assignment():
    def step(v):
        total = tf.zeros([2, 2])
        for _ in tf.range(3):
            old = v.read_value()
            v.assign(old * 2.0)
            total += old
        return total
    total, _ = _run(step, MATRIX)
    np.testing.assert_array_equal(total, np.asarray(MATRIX) * 7)


def test_reads_used_at_once_and_updates_copy_nothing():
    def step(v):
        x = tf.constant([[1.0, 0.0], [0.0, 1.0]])
        y = tf.matmul(x, v) + v
        v.assign_sub(0.5 * y)
        return y
    y, source = _run(step, MATRIX)
    np.testing.assert_array_equal(y, np.asarray(MATRIX) * 2)
    assert ".copy()" not in source
