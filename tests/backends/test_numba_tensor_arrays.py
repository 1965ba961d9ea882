"""TensorArrays on the numba backend: preallocated buffers written in place.
Each result is compared with the numpy executor's; strict=True proves the graph lowered, and
graphs where an older version of an array is used after a write are declined (the executor
runs them), never given a wrong value."""

import numpy as np
import pytest
from numba_compare import executor_and_numba

import autograph.tf as tf
from runtime import backends

numba = pytest.importorskip("numba")
_both = executor_and_numba


def _assert_same(expected, got):
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = got if isinstance(got, tuple) else (got,)
    for e, g in zip(expected, got):
        e, g = e.numpy(), g.numpy()
        assert e.dtype == g.dtype and e.shape == g.shape
        np.testing.assert_allclose(e, g, rtol=1e-5, atol=1e-6)


def _same_error(f, *args):
    """The error f raises on the executor and compiled with numba: same class, and the
    compiled one names the op and this file."""
    with pytest.raises(Exception) as on_numpy:
        tf.function(f, backend="numpy")(*args)
    compiled = tf.function(f, backend="numba", strict=True)
    with pytest.raises(Exception) as on_numba:
        compiled(*args)
    assert compiled.get_concrete_function(*args).backend == "numba"
    assert type(on_numba.value) is type(on_numpy.value)
    assert "test_numba_tensor_arrays.py" in str(on_numba.value)
    return on_numba.value


def _rnn(w):
    def f(xs, state):
        steps = xs.shape[0]
        states = tf.TensorArray(tf.float32, size=steps)
        for i in tf.range(steps):
            state = tf.tanh(tf.matmul(xs[i], w) + state)
            states = states.write(i, state)
        return states.stack()
    return f


def test_a_loop_writing_one_element_per_iteration_then_stacking_compiles():
    rng = np.random.RandomState(0)
    w = tf.constant(rng.standard_normal((4, 4)).astype(np.float32) / 2)
    xs = tf.constant(rng.uniform(-1, 1, (12, 3, 4)).astype(np.float32))
    _assert_same(*_both(_rnn(w), xs, tf.constant(np.zeros((3, 4), np.float32))))


def test_scalar_elements_with_a_declared_shape_read_back_and_size():
    def f(n):
        squares = tf.TensorArray(tf.int32, size=10, element_shape=())
        for i in tf.range(10):
            squares = squares.write(i, i * i + n)
        return squares.stack(), squares.read(3) + squares.read(9), squares.size()

    _assert_same(*_both(f, tf.constant(3)))


def test_an_array_never_written_stacks_to_zeros_of_its_declared_shape():
    def f(x):
        empty = tf.TensorArray(tf.float32, size=0, element_shape=(2,))
        return empty.stack() + x

    _assert_same(*_both(f, tf.constant(1.0)))


def test_reading_an_unwritten_element_fails_like_the_executor():
    def f(x, i):
        ta = tf.TensorArray(tf.float32, size=3).write(0, x)
        return ta.read(i)

    x = tf.constant([1.0, 2.0])
    assert tf.function(f, backend="numba", strict=True)(x, tf.constant(0)).numpy().tolist() \
        == [1.0, 2.0]
    assert "index 1 was read before it was written" in str(_same_error(f, x, tf.constant(1)))


@pytest.mark.parametrize("index", [3, -1])
def test_writing_or_reading_out_of_range_fails_like_the_executor(index):
    def write(i):
        return tf.TensorArray(tf.float32, size=3).write(i, 1.0).stack()

    def read(i):
        full = tf.TensorArray(tf.float32, size=3)
        for k in tf.range(3):
            full = full.write(k, tf.cast(k, tf.float32))
        return full.read(i)

    for f in (write, read):
        assert "TensorArray index %d is" % index in str(_same_error(f, tf.constant(index)))


def test_stacking_with_an_unwritten_element_fails_like_the_executor():
    def f(n):
        ta = tf.TensorArray(tf.float32, size=4)
        for i in tf.range(n):
            ta = ta.write(i, tf.cast(i, tf.float32))
        return ta.stack()

    _assert_same(*_both(f, tf.constant(4)))
    assert "index 3 was read before it was written" in str(_same_error(f, tf.constant(3)))


def test_an_index_past_the_input_fails_like_the_executor():
    def f(xs, i):
        return xs[i] * 2.0

    _assert_same(*_both(f, tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant(-1)))
    error = _same_error(f, tf.constant([[1.0, 2.0], [3.0, 4.0]]), tf.constant(2))
    assert "index 2 is out of bounds for axis 0 with size 2" in str(error)


def _declined(f, *args):
    """f is declined by numba (strict raises), and falls back to the executor's value."""
    with pytest.raises(backends.Unsupported):
        tf.function(f, backend="numba", strict=True)(*args)
    expected = tf.function(f, backend="numpy")(*args)
    fallback = tf.function(f, backend="numba")
    with pytest.warns(backends.BackendFallbackWarning):
        got = fallback(*args)
    np.testing.assert_array_equal(expected.numpy(), got.numpy())


def test_an_older_version_read_after_a_write_is_declined():
    def f(x):
        first = tf.TensorArray(tf.float32, size=2).write(0, x)
        second = first.write(0, x + 1.0)
        return first.read(0) + second.read(0)

    _declined(f, tf.constant(1.0))


def test_one_version_written_twice_is_declined():
    def f(x):
        base = tf.TensorArray(tf.float32, size=2).write(1, x)
        a = base.write(0, x)
        b = base.write(0, x * 10.0)
        return a.stack() + b.stack()

    _declined(f, tf.constant(1.0))


def test_a_loop_writing_an_array_it_captured_is_declined():
    # each iteration writes to the same unwritten version: reading the element the previous
    # iteration wrote fails (in place, it would give a value)
    def f(x):
        outside = tf.TensorArray(tf.float32, size=3).write(0, x)
        total = tf.constant(0.0)
        for i in tf.range(1, 3):
            total += outside.write(i, x).read(i - 1)
        return total

    with pytest.raises(backends.Unsupported, match="captured|sub-graph"):
        tf.function(f, backend="numba", strict=True)(tf.constant(2.0))
    with pytest.raises(Exception) as on_numpy:
        tf.function(f, backend="numpy")(tf.constant(2.0))
    with pytest.warns(backends.BackendFallbackWarning), pytest.raises(Exception) as fallback:
        tf.function(f, backend="numba")(tf.constant(2.0))
    assert type(fallback.value) is type(on_numpy.value)
    assert "read before it was written" in str(fallback.value)


def test_an_array_of_a_size_only_known_when_run_is_declined():
    def f(n):
        ta = tf.TensorArray(tf.float32, size=n)
        for i in tf.range(n):
            ta = ta.write(i, tf.cast(i, tf.float32))
        return ta.stack()

    _declined(f, tf.constant(3))
