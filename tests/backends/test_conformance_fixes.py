"""Defects found by running the whole suite on a compiled backend (AUTOGRAPH_BACKEND=numba or
jax, issue 11 item 7), each pinned by a test that runs on its backend explicitly."""

import pytest

import autograph.tf as tf


def _loop(n):
    i = tf.constant(0)
    total = tf.constant(0)
    while i < n:
        total += i * 3
        i += 1
    return total


def test_executor_source_is_the_executors_while_numba_runs_the_graph():
    pytest.importorskip("numba")
    compiled = tf.function(_loop, backend="numba", strict=True)
    cf = compiled.get_concrete_function(tf.constant(5))
    assert cf.backend == "numba"
    assert "numba" in cf.backend_source
    numpy_cf = tf.function(_loop, backend="numpy").get_concrete_function(tf.constant(5))
    assert cf.executor_source == numpy_cf.executor_source
