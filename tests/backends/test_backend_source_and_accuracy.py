"""What a compiled Function reports as its sources, and a JAX op that is not accurate enough
left to the executor, each on its backend explicitly."""

import numpy as np
import pytest

import autograph.tf as tf
from runtime import backends


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


@pytest.mark.parametrize("op", [tf.math.sinh, tf.math.cosh])
def test_jax_leaves_float32_sinh_and_cosh_to_the_executor(op):
    """XLA's float32 sinh/cosh are up to 24 ulp off at large |x|: the graph falls back."""
    pytest.importorskip("jax")
    x = tf.constant(np.linspace(-80.0, 80.0, 2001), tf.float32)
    compiled = tf.function(op, backend="jax")
    with pytest.warns(backends.BackendFallbackWarning, match="not accurate enough"):
        got = compiled(x).numpy()
    assert compiled.get_concrete_function(x).backend == "numpy"
    np.testing.assert_array_max_ulp(got, op(x).numpy(), 4)
    wide = tf.constant(np.linspace(-80.0, 80.0, 2001), tf.float64)
    assert tf.function(op, backend="jax", strict=True).get_concrete_function(wide).backend \
        == "jax"
