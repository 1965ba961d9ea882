"""One home for running a function on the numpy executor and on numba side by side."""

import pytest

import autograph.tf as tf


def executor_and_numba(f, *args, **options):
    """f's results on the numpy executor and on numba (strict: it must lower); `options` go
    to both `tf.function`s (an input_signature, say)."""
    expected = tf.function(f, backend="numpy", **options)(*args)
    compiled = tf.function(f, backend="numba", strict=True, **options)
    got = compiled(*args)
    assert compiled.get_concrete_function(*args).backend == "numba"
    return expected, got


def same_failure(f, *args, **options):
    """f fails on numba (strict: it must lower) as on the numpy executor: the same error
    class and message, which names the op and the user's line. Returns numba's error."""
    with pytest.raises(Exception) as on_numpy:
        tf.function(f, backend="numpy", **options)(*args)
    compiled = tf.function(f, backend="numba", strict=True, **options)
    with pytest.raises(Exception) as on_numba:
        compiled(*args)
    assert compiled.get_concrete_function(*args).backend == "numba"
    assert type(on_numba.value) is type(on_numpy.value)
    assert str(on_numba.value) == str(on_numpy.value)
    return on_numba.value
