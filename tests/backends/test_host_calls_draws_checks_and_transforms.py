"""Ops that the compiled backends lower beside the arithmetic: random draws and Python calls
made on the host, run-time checks, summaries, Fourier transforms, second-order gradient
helpers and TensorArrays whose size is known only once constants fold. Each graph runs on the
backend (strict: it must lower) and gives the numpy executor's values, draws, errors and
Python side effects."""

import importlib.util

import numpy as np
import pytest

import autograph.tf as tf
from runtime import backends, executor
from tests.summary.events import values as summary_values

_INSTALLED = {name: importlib.util.find_spec(name) is not None for name in ("numba", "jax")}
BACKENDS = [pytest.param(name, marks=pytest.mark.skipif(not _INSTALLED[name],
                                                        reason="%s is not installed" % name))
            for name in ("numba", "jax")]
_on_jax = pytest.mark.skipif(not _INSTALLED["jax"], reason="jax is not installed")

_X = np.array([[-1.5, 0.25, 3.0, 7.0], [2.0, -4.0, 0.5, 1.0]], np.float32)


def _arrays(result):
    return [t.numpy() for t in (result if isinstance(result, (tuple, list)) else (result,))]


def _compiled(backend, f):
    return tf.function(f, backend=backend, strict=True)


def _same_values(backend, f, *args, rtol=0.0, seed=None):
    """f on `backend` (strict) gives the executor's values: equal, or within `rtol` (of the
    largest magnitude) where the backend computes in another order. With `seed`, each
    Function is traced after `tf.random.set_seed(seed)`, so both draw the same streams."""
    if seed is not None:
        tf.random.set_seed(seed)
    expected = _arrays(tf.function(f, backend="numpy")(*args))
    if seed is not None:
        tf.random.set_seed(seed)
    compiled = _compiled(backend, f)
    got = _arrays(compiled(*args))
    assert compiled.get_concrete_function(*args).backend == backend
    assert len(got) == len(expected)
    for e, g in zip(expected, got):
        assert (e.dtype, e.shape) == (g.dtype, g.shape)
        if rtol:
            np.testing.assert_allclose(g, e, rtol=rtol, atol=rtol * max(np.abs(e).max(), 1.0))
        else:
            np.testing.assert_array_equal(g, e)


def _same_error(backend, f, *args):
    """f fails on `backend` (strict) with the executor's error class and message."""
    with pytest.raises(Exception) as on_numpy:
        tf.function(f, backend="numpy")(*args)
    compiled = _compiled(backend, f)
    with pytest.raises(Exception) as on_backend:
        compiled(*args)
    assert compiled.get_concrete_function(*args).backend == backend
    assert type(on_backend.value) is type(on_numpy.value)
    assert str(on_backend.value) == str(on_numpy.value)
    return on_backend.value


# -- random draws -------------------------------------------------------------------------------


def _draws(logits, x):
    return (tf.random.truncated_normal([5], seed=1),
            tf.random.categorical(logits, 6, seed=2),
            tf.random.shuffle(x, seed=3),
            tf.nn.dropout(x, 0.5, seed=4))  # (a draw of the shape of x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_truncated_normal_categorical_shuffle_and_dropout_draw_the_executors_numbers(backend):
    logits = np.log(np.float32([[0.2, 0.3, 0.5], [0.9, 0.05, 0.05]]))
    _same_values(backend, _draws, logits, _X, seed=11)


def _stateless(seed):
    return (tf.random.stateless_uniform([3], seed=seed),
            tf.random.stateless_normal([2, 2], seed=seed, dtype=tf.float64))


@pytest.mark.skipif(not _INSTALLED["numba"], reason="numba is not installed")
def test_stateless_draws_of_a_seed_argument_on_numba_are_the_executors():
    seed = tf.constant([7, 9], tf.int64)  # (an argument: the draws are not folded)
    _same_values("numba", _stateless, seed)
    compiled = _compiled("numba", _stateless)
    first, again = _arrays(compiled(seed)), _arrays(compiled(seed))
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(_arrays(compiled(tf.constant([7, 10], tf.int64)))[0], first[0])


@_on_jax
def test_stateless_draws_on_jax_fall_back_naming_the_op():
    with pytest.raises(backends.Unsupported, match="StatelessRandomUniform"):
        _compiled("jax", _stateless)(tf.constant([7, 9], tf.int64))


# -- run-time checks ------------------------------------------------------------------------------


def _checked(x, n):
    y = tf.debugging.check_numerics(x, "x holds")  # CheckNumerics
    tf.debugging.assert_less(y, 100.0, message="too big")  # Assert
    for i in tf.range(n):
        last = tf.cast(i, tf.float32)
    return y + last  # CheckDefined: `last` is undefined when the loop never ran


@pytest.mark.parametrize("backend", BACKENDS)
def test_assertions_numeric_checks_and_definedness_checks_raise_the_executors_errors(backend):
    _same_values(backend, _checked, _X[0], tf.constant(3))
    assert "too big" in str(_same_error(backend, _checked, _X[0] * 50.0, tf.constant(3)))
    with_nan = _X[0].copy()
    with_nan[1] = np.nan
    assert "x holds: tensor had NaN values" in str(
        _same_error(backend, _checked, with_nan, tf.constant(3)))
    undefined = _same_error(backend, _checked, _X[0], tf.constant(0))
    assert isinstance(undefined, UnboundLocalError) and "'last'" in str(undefined)


# -- Python calls and summaries on the host ---------------------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
def test_python_calls_and_summaries_without_outputs_run_on_the_host_at_every_call(
        backend, tmp_path):
    seen = []
    writer = tf.summary.create_file_writer(str(tmp_path))

    def f(x, n):
        tf.py_function(lambda v: seen.append(("py_function", int(v))), [n], [])
        tf.numpy_function(lambda v: seen.append(("numpy_function", float(v.sum()))), [x], [])
        with writer.as_default():
            tf.summary.scalar("total", tf.reduce_sum(x), step=tf.cast(n, tf.int64))
        return x * 2.0

    compiled = _compiled(backend, f)
    for n in (3, 4):
        np.testing.assert_array_equal(compiled(_X, tf.constant(n)).numpy(), _X * 2.0)
    assert compiled.get_concrete_function(_X, tf.constant(3)).backend == backend
    total = float(_X.sum())
    assert seen == [("py_function", 3), ("numpy_function", total),
                    ("py_function", 4), ("numpy_function", total)]
    writer.flush()
    assert [(step, float(value)) for step, value in summary_values(str(tmp_path), "total")] \
        == [(3, total), (4, total)]


# -- TensorArrays ---------------------------------------------------------------------------------


def _rows(x):
    rows = tf.TensorArray(tf.float32, size=2, element_shape=[4])
    return rows.write(0, x[1]).write(1, x[0] * 2.0).stack()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_graph_compiled_without_folding_makes_its_tensor_array_in_the_compiled_code(backend):
    # (a saved model's graphs are compiled so when loaded; with folding the TensorArray's
    # creation is a constant)
    with executor.checking_without_folding():
        _same_values(backend, _rows, _X)


def _sized_by_a_folded_sum(x):
    size = tf.reduce_sum(tf.constant([1, 1]))  # (no static value: known once folded)
    rows = tf.TensorArray(tf.float32, size=size, element_shape=[4])
    rows = rows.write(0, x[0]).write(1, x[1])
    return rows.stack(), rows.size()


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_size_of_a_tensor_array_sized_by_a_folded_constant(backend):
    _same_values(backend, _sized_by_a_folded_sum, _X)


# -- JAX: Fourier transforms and second-order gradient helpers ----------------------------------


def _transforms(r):
    c = tf.cast(r, tf.complex64) * tf.constant(1 - 0.5j, tf.complex64)
    return (tf.signal.fft(c), tf.signal.ifft(c), tf.signal.fft2d(c), tf.signal.ifft2d(c),
            tf.signal.fft3d(c), tf.signal.ifft3d(c),
            tf.signal.rfft(r), tf.signal.irfft(tf.signal.rfft(r)),
            tf.signal.rfft2d(r), tf.signal.irfft2d(tf.signal.rfft2d(r)),
            tf.signal.rfft3d(r), tf.signal.irfft3d(tf.signal.rfft3d(r)))


@_on_jax
def test_fourier_transforms_of_every_rank_on_jax_are_the_executors_within_rounding():
    r = np.random.default_rng(3).normal(size=(2, 3, 4)).astype(np.float32)
    _same_values("jax", _transforms, r, rtol=1e-5)


def _second_order(x, b, w, c):
    with tf.GradientTape(persistent=True) as outer:
        outer.watch([b, w])
        with tf.GradientTape(persistent=True) as inner:
            inner.watch([b, x])
            z = tf.reduce_sum((x + b) ** 2)
            y = tf.reduce_sum(tf.math.top_k(x, 2).values * w)
        slope = inner.gradient(z, b)
        top_slope = inner.gradient(y, x)  # TopKGrad
        u = tf.reduce_sum(slope * slope) + tf.reduce_sum(top_slope * c)
    return outer.gradient(u, b), outer.gradient(u, w)  # BroadcastLike, TakeAlongLastAxis


@_on_jax
def test_second_order_gradients_broadcast_like_and_take_along_the_last_axis_on_jax():
    w = np.float32([[0.5, -2.0], [1.5, 3.0]])
    _same_values("jax", _second_order, _X, np.float32([1, 2, 3, 4]), w, _X * 0.25, rtol=1e-6)
