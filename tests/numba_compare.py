"""One home for running a function on the numpy executor and on numba side by side."""

import autograph.tf as tf


def executor_and_numba(f, *args):
    """f's results on the numpy executor and on numba (strict: it must lower)."""
    expected = tf.function(f, backend="numpy")(*args)
    compiled = tf.function(f, backend="numba", strict=True)
    got = compiled(*args)
    assert compiled.get_concrete_function(*args).backend == "numba"
    return expected, got
