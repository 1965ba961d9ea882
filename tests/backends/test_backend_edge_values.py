"""Compiled backends on edge inputs (narrow, big-endian or half-precision arguments, float
sums, unknown ranks, out-of-range casts), each checked against the numpy executor."""

import numpy as np
import pytest

import autograph.tf as tf
from runtime.backends import BackendFallbackWarning

BACKENDS = ["numpy"] + [name for name, module in (("numba", "numba"), ("jax", "jax"))
                        if __import__("importlib").util.find_spec(module) is not None]


def _function(f, backend):
    return tf.function(f, backend=backend, **({} if backend == "numpy" else {"strict": True}))


# -- numpy arguments of a dtype that is not the tensor's own storage -------------------------

@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("np_dtype, expected", [
    (np.uint8, [156, 156]),  # a uint8 argument is a uint8 tensor: 100 - 100 - 100 wraps at 256
    (np.int8, [-100, -100]),
    (np.int16, [-100, -100]),
])
def test_a_narrow_integer_argument_keeps_its_dtype_and_wraps_as_it(backend, np_dtype,
                                                                   expected):
    f = _function(lambda x: x - x - x, backend)
    f(np.full((2,), 1, np_dtype))  # the second call takes the cached path
    result = f(np.full((2,), 100, np_dtype))
    assert result.dtype == tf.as_dtype(np_dtype)
    assert result.numpy().dtype == np_dtype
    np.testing.assert_array_equal(result.numpy(), np.array(expected).astype(np_dtype))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_big_endian_argument_is_computed_as_float32(backend):
    x = np.arange(4, dtype=np.float32).astype(">f4")
    f = _function(lambda x: x * 2.0 + 1.0, backend)
    f(x)
    result = f(x)  # the cached path
    assert result.numpy().dtype == np.float32
    np.testing.assert_array_equal(result.numpy(), [1.0, 3.0, 5.0, 7.0])


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_half_argument_is_a_float16_tensor(backend):
    x = np.arange(4, dtype=np.float16)
    f = tf.function(lambda x: x * 2.0 + 1.0, backend=backend)
    if backend == "numba":  # numba has no half floats: it declines, saying so
        with pytest.warns(BackendFallbackWarning, match="numba has no float16 arithmetic"):
            f(x)
    else:
        f(x)
    result = f(x)  # the cached path
    assert result.dtype == tf.float16
    assert result.numpy().dtype == np.float16
    np.testing.assert_array_equal(result.numpy(), [1.0, 3.0, 5.0, 7.0])


# -- numba: float sums add as numpy does (pairwise along the innermost reduced axes) ---------

def _long_floats(shape, dtype):
    return (np.arange(np.prod(shape), dtype=np.float64) * 0.1).astype(dtype).reshape(shape)


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduce, shape, axis", [
    (tf.reduce_sum, (100001,), None),
    (tf.reduce_mean, (100001,), None),
    (tf.reduce_sum, (3, 10000), 1),
    (tf.reduce_mean, (3, 10000), -1),
    (tf.reduce_sum, (2, 3, 700), (1, 2)),
    (tf.reduce_sum, (10000, 3), 0),  # numpy adds in order along an outer axis
    (tf.reduce_mean, (300, 7), None),
])
def test_numba_float_sums_give_the_executors_value(reduce, shape, axis, dtype, dynamic):
    pytest.importorskip("numba")
    x = _long_floats(shape, dtype)
    options = {"input_signature": [tf.TensorSpec([None] * len(shape), tf.as_dtype(dtype))]}
    f = lambda x: reduce(x, axis=axis)  # noqa: E731
    expected = tf.function(f, backend="numpy")(x).numpy()
    compiled = tf.function(f, backend="numba", strict=True, **(options if dynamic else {}))
    got = compiled(x).numpy()
    assert compiled.get_concrete_function(x).backend == "numba"
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


# -- ensure_shape on a value of unknown rank (a py_function's result) -------------------------

def test_ensure_shape_accepts_a_value_of_unknown_rank_and_checks_it_when_run():
    def f(x):
        y = tf.py_function(lambda a: a * 2, [x], tf.float32)  # of unknown rank
        return tf.ensure_shape(y, [2])

    function = tf.function(f, backend="numpy")
    np.testing.assert_array_equal(function(np.ones(2, np.float32)).numpy(), [2.0, 2.0])
    with pytest.raises(Exception, match="not compatible with the expected shape"):
        function(np.ones(3, np.float32))


# -- JAX: a float cast to an integer type out of its range gives numpy's integer -------------

@pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")
@pytest.mark.parametrize("target", [tf.int32, tf.int64])
@pytest.mark.parametrize("source", [np.float32, np.float64])
def test_jax_casts_floats_out_of_an_integer_range_as_numpy_does(source, target):
    pytest.importorskip("jax")
    x = np.array([3e9, -3e9, 1e10, np.nan, np.inf, -np.inf, 1e19, 9.3e18, 2.5, -2.5, 2**31 - 128],
                 source)
    f = lambda x: tf.cast(x, target)  # noqa: E731
    expected = tf.function(f, backend="numpy")(x).numpy()
    compiled = tf.function(f, backend="jax", strict=True)
    np.testing.assert_array_equal(compiled(x).numpy(), expected)
    assert compiled.get_concrete_function(x).backend == "jax"


# -- float division and remainder ------------------------------------------------------------

@pytest.mark.parametrize("backend, np_dtype", [
    (backend, np_dtype) for backend in BACKENDS for np_dtype in (np.float16, np.float32, np.float64)
    if (backend, np_dtype) != ("numba", np.float16)])  # (numba has no half arithmetic)
def test_float_floordiv_is_the_floor_of_the_rounded_quotient_on_every_backend(backend,
                                                                              np_dtype):
    # TensorFlow's kernel; numpy's and JAX's floor_divide floor the exact quotient (9.0)
    f = _function(lambda x, y: x // y, backend)
    x = np.array([1.0, -1.0, 7.0, -np.inf, 6e4, 1.0, 0.0], np_dtype)
    y = np.array([0.1, 0.1, 0.7, 1.0, -np.inf, 0.0, 0.0], np_dtype)
    f(x, y)  # the second call takes the cached path
    result = f(x, y).numpy()
    np.testing.assert_array_equal(result, [10.0, -10.0, 10.0, -np.inf, -0.0, np.inf, np.nan])
    assert np.signbit(result[4])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", [[8], [None]])
def test_a_zero_float_remainder_keeps_the_dividends_sign_on_every_backend(backend, shape):
    # TensorFlow's kernel (fmod's zero); numpy gives the divisor's sign, numba's mod +0.0
    spec = [tf.TensorSpec(shape, tf.float32)] * 2
    f = tf.function(lambda x, y: (x % y, x[0] % y[1], x % 2.0), backend=backend,
                    input_signature=spec, **({} if backend == "numpy" else {"strict": True}))
    x = np.float32([-4.0, 4.0, -4.0, -0.0, -1.0, 5.5, -5.5, 1.0])
    y = np.float32([2.0, -2.0, -2.0, 3.0, np.inf, 2.0, 2.0, 0.0])
    pairwise, scalars, by_constant = (r.numpy() for r in f(x, y))
    np.testing.assert_array_equal(pairwise, [0.0, 0.0, 0.0, 0.0, np.inf, 1.5, 0.5, np.nan])
    assert np.signbit(pairwise[:4]).tolist() == [True, False, True, True]
    assert scalars == 0.0 and np.signbit(scalars)  # -4.0 % -2.0, both scalars
    assert np.signbit(by_constant[:4]).tolist() == [True, False, True, True]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_broadcast_negative_zero_divisor_gives_an_infinity_of_the_quotients_sign(backend):
    # TensorFlow's 1.0 / -0.0 is -inf, as numpy's (JAX's exact division by a broadcast
    # divisor must not make its zero positive)
    f = _function(lambda x, y: (x / y, x // y, x / -0.0, x // -0.0), backend)
    x = np.float32([1.0, -2.0, 3.0])
    for y in (np.float32(-0.0), np.float32([-0.0])):
        for result in f(x, y):
            np.testing.assert_array_equal(result.numpy(), [-np.inf, np.inf, -np.inf])


_UNSIGNED = (np.uint8, np.uint32, np.uint64)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", [[3], [None]])
def test_unsigned_division_by_the_largest_value_gives_the_executors_values(backend, shape):
    # (a signed divisor of -1 is special-cased: the maximum is an unsigned type's -1 bits)
    spec = [tf.TensorSpec(shape, tf.as_dtype(t)) for t in _UNSIGNED for _ in range(2)]
    f = tf.function(lambda *xy: [(x // y, x % y) for x, y in zip(xy[::2], xy[1::2])],
                    backend=backend, input_signature=spec,
                    **({} if backend == "numpy" else {"strict": True}))
    arguments = []
    for t in _UNSIGNED:
        big = np.iinfo(t).max
        arguments += [np.array([big, 5, big - 1], t), np.array([big, big, 3], t)]
    for t, (quotient, remainder) in zip(_UNSIGNED, f(*arguments)):
        big = np.iinfo(t).max
        np.testing.assert_array_equal(quotient.numpy(), np.array([1, 0, (big - 1) // 3], t))
        np.testing.assert_array_equal(remainder.numpy(), np.array([0, 5, (big - 1) % 3], t))


# -- shifts by amounts outside the width -----------------------------------------------------

@pytest.mark.parametrize("backend", [b for b in BACKENDS if b != "numpy"])
@pytest.mark.parametrize("np_dtype", [np.int8, np.int32, np.uint32, np.int64, np.uint64])
def test_shifts_by_amounts_outside_the_width_give_the_executors_values(backend, np_dtype):
    # numpy (the executor): 0, or the sign for a signed right shift; a machine shift takes
    # the amount modulo the width (1 << 32 would be 1)
    def shifts(x, y):
        left, right = tf.bitwise.left_shift(x, y), tf.bitwise.right_shift(x, y)
        # (on numba: a fused loop of both; then each alone on a vector, its array form:
        # the slices between them keep them apart)
        vector_left = tf.bitwise.left_shift(x[-1], y[-1])
        vector_right = tf.bitwise.right_shift(x[-2], y[-2])
        return left, right, left + right, vector_left, vector_right

    bits = 8 * np.dtype(np_dtype).itemsize
    signed = np.dtype(np_dtype).kind == "i"
    amounts = np.arange(-2 if signed else 0, 2 * bits + 2)
    values = [1, 3, np.iinfo(np_dtype).max, np.iinfo(np_dtype).min] + ([-8] if signed else [])
    x = np.repeat(np.array(values, np_dtype)[:, None], len(amounts), 1)
    y = np.repeat(amounts.astype(np_dtype)[None, :], len(values), 0)
    for e, g in zip(_function(shifts, "numpy")(x, y), _function(shifts, backend)(x, y)):
        assert e.dtype == g.dtype
        np.testing.assert_array_equal(e.numpy(), g.numpy())


@pytest.mark.parametrize("backend", [b for b in BACKENDS if b != "numpy"])
@pytest.mark.parametrize("np_dtype", [np.uint64, np.int64, np.float32])
def test_relu_of_wide_integers_keeps_every_bit(backend, np_dtype):
    # (a zero of another dtype would make numba compute uint64 in float64)
    info = np.iinfo(np_dtype) if np.dtype(np_dtype).kind in "iu" else np.finfo(np_dtype)
    x = np.array([info.max, info.max - 4, info.min, 7, 0, 2**53 + 1], np_dtype)
    relu = lambda x: (tf.nn.relu(x), tf.nn.relu(x[1:]) - x[1:])  # noqa: E731 - alone, fused
    for e, g in zip(_function(relu, "numpy")(x), _function(relu, backend)(x)):
        assert e.dtype == g.dtype
        np.testing.assert_array_equal(e.numpy(), g.numpy())
