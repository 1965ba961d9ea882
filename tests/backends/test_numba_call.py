"""The call of a numba kernel (runtime/backends/numba_call.py): what it passes and what it
gives back, for every kind of parameter and output (the cached call's numba path)."""

import numpy as np
import pytest

import autograph.tf as tf
from runtime import errors

numba = pytest.importorskip("numba")


def _numba(f):
    return tf.function(f, backend="numba", strict=True)


@pytest.mark.parametrize("dtype,value", [
    (tf.float32, 1.5), (tf.float64, 1.5), (tf.int32, 7), (tf.int64, 7), (tf.bool, True)])
def test_a_scalar_result_holds_a_numpy_scalar_of_its_dtype_as_on_the_executor(dtype, value):
    def f(x):
        return tf.logical_not(x) if dtype is tf.bool else x + tf.cast(1, dtype)

    x = tf.constant(value, dtype)
    got, expected = _numba(f)(x), tf.function(f, backend="numpy")(x)
    assert type(got._value) is dtype.as_numpy_dtype  # numba itself returns a Python number
    assert type(got._value) is type(expected._value)
    assert got.numpy() == expected.numpy()


def test_several_outputs_of_every_rank_come_back_in_order():
    f = _numba(lambda s, v: (s * 2.0, v + s, tf.reduce_sum(v) > s, tf.cast(s, tf.int32)))
    scalar, vector, flag, count = f(tf.constant(2.5), tf.constant([1.0, 2.0]))
    assert type(scalar._value) is np.float32 and scalar.numpy() == 5.0
    assert vector.numpy().dtype == np.float32 and vector.numpy().tolist() == [3.5, 4.5]
    assert type(flag._value) is np.bool_ and flag.numpy()
    assert type(count._value) is np.int32 and count.numpy() == 2


def test_one_array_output_and_array_constants_are_passed():
    table = np.arange(4, dtype=np.float32)
    f = _numba(lambda v: v * tf.constant(table) + tf.constant(table[::-1].copy()))
    got = f(tf.constant(np.ones(4, np.float32)))
    assert got.shape == (4,) and got.numpy().tolist() == [3.0, 3.0, 3.0, 3.0]


def _called_directly(function, *args):
    """True when the cached calls of `function`'s trace for `args` run the kernel's own
    direct call (runtime.fast_call), skipping the concrete function's run."""
    fast = function.get_concrete_function(*args).fast_call()
    return fast is not None and fast.direct


@pytest.mark.parametrize("value", [2.5, [1.0, -2.0, 3.0]])
def test_a_pure_one_output_kernel_is_called_directly_with_the_executors_results(value):
    def f(x):
        return tf.tanh(x) * 2.0 + 1.0

    x = tf.constant(value)
    function, expected = _numba(f), tf.function(f, backend="numpy")(x)
    results = [function(x) for _ in range(4)]  # the first calls, then the cached ones
    assert _called_directly(function, x)
    for got in results:
        assert type(got) is type(expected) and got.dtype == expected.dtype
        assert type(got._value) is type(expected._value) and got.shape == expected.shape
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)


def test_a_result_fed_back_as_an_argument_runs_again():
    f = _numba(lambda x: x * 2.0)
    y = f(f(tf.constant(1.5)))  # the second call is fed a numpy scalar, not a 0-d array
    assert y.numpy() == 6.0 and f.experimental_get_tracing_count() == 1


def test_a_scalar_argument_of_another_signature_retraces():
    f = _numba(lambda x: x + 1)
    assert f(tf.constant(1)).numpy() == 2
    assert f(tf.constant(1.0)).numpy() == 2.0
    assert f(tf.constant([1.0, 2.0])).numpy().tolist() == [2.0, 3.0]
    assert f.experimental_get_tracing_count() == 3


def test_a_function_without_outputs_runs_its_assignments():
    v = tf.Variable(1.0)

    @tf.function(backend="numba", strict=True)
    def bump(x):
        v.assign_add(x)

    assert bump(tf.constant(2.0)) is None
    assert v.numpy() == 3.0


def test_a_variable_kernel_returns_numpy_scalars_and_keeps_assignments_made_before_a_failure():
    v = tf.Variable(0)

    @tf.function(backend="numba", strict=True)
    def step(a, b):
        v.assign_add(a)
        return a // b + v.read_value()

    result = step(tf.constant(6), tf.constant(3))
    assert type(result._value) is np.int32 and result.numpy() == 8 and v.numpy() == 6
    with pytest.raises(errors.InvalidArgumentError, match="integer division by zero"):
        step(tf.constant(1), tf.constant(0))
    assert v.numpy() == 7


def test_a_failed_check_names_the_op_and_the_users_line():
    def f(a, b):
        return a // b

    with pytest.raises(errors.InvalidArgumentError) as caught:
        _numba(f)(tf.constant(1), tf.constant(0))
    line = f.__code__.co_firstlineno + 1
    assert "(FloorDiv) of f failed: integer division by zero" in str(caught.value)
    assert "test_numba_call.py:%d in f" % line in str(caught.value)


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64, tf.int32, tf.int64])
def test_scalar_results_keep_their_exact_value_at_the_extremes(dtype):
    f = _numba(lambda x: -x)
    info = np.finfo(dtype.as_numpy_dtype) if dtype.is_floating else np.iinfo(
        dtype.as_numpy_dtype)
    values = [info.max, -info.max if dtype.is_floating else info.min + 1, 0]
    if dtype.is_floating:
        values += [np.inf, np.nan, info.tiny, info.smallest_subnormal]
    for value in values:
        x = np.array(value, dtype.as_numpy_dtype)
        got = f(tf.constant(x))._value
        assert type(got) is dtype.as_numpy_dtype
        np.testing.assert_array_equal(got, -x)
        assert np.signbit(got) == np.signbit(-x)  # -0.0 stays negative


def _releases_gil(f, *args):
    compiled = _numba(f)
    compiled(*args)
    source = compiled.get_concrete_function(*args).backend_source
    assert ("nogil=True" in source) != ("nogil=False" in source)
    return "nogil=True" in source


def test_a_kernel_releases_the_gil_unless_it_is_loop_free_code_on_scalars():
    assert not _releases_gil(lambda x, y: tf.maximum(x * 2.0, y) + 1.0, tf.constant(1.0),
                             tf.constant(3.0))

    def count(n):
        i = tf.constant(0)
        while i < n:
            i += 1
        return i

    assert _releases_gil(count, tf.constant(3))
    assert _releases_gil(lambda x: x * 2.0, tf.constant([1.0, 2.0]))  # an array argument
    assert _releases_gil(lambda x: tf.reduce_sum(tf.stack([x, x * 2.0])), tf.constant(1.0))
