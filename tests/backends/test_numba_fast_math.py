"""The numba backend's fast float32 exp, tanh and sigmoid (runtime/backends/numba_math.py) stay
within 4 ulp of the float64 functions rounded to float32 (issue 11, item 4), on a sweep of
about 4 million float32 values across every exponent, both signs, and on the special values;
the numba lowering uses them for float32 only, and a loop over them vectorises (no calls)."""

import re

import numpy as np
import pytest

import autograph.tf as tf
from runtime.backends import numba_math

numba = pytest.importorskip("numba")

MAX_ULP = 4
STRIDE = 1031  # a prime: every exponent, and mantissas that vary in their low bits
F32 = np.finfo(np.float32)


def _sigmoid64(x):
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


FUNCTIONS = {  # name: (the fast scalar function, the float64 reference)
    "exp": (numba_math.exp_f32, np.exp),
    "tanh": (numba_math.tanh_f32, np.tanh),
    "sigmoid": (numba_math.sigmoid_f32, _sigmoid64),
}


def _special_values():
    edges = [0.0, F32.tiny, F32.smallest_subnormal, F32.max, np.inf, 1e-30, 1e-7, 0.5,
             0.625, 1.0, 9.0, 9.1, 10.0, 20.0, 88.0, 88.72283, 88.7228394, 89.0, 100.0,
             103.0, 103.27893, 103.972, 104.0, 1e10, 1e30]
    values = np.array(edges, np.float32)
    with np.errstate(over="ignore"):  # the float after the largest is inf
        values = np.concatenate([values, np.nextafter(values, np.float32(0)),
                                 np.nextafter(values, np.float32(np.inf))])
    return np.concatenate([values, -values, np.array([np.nan, -np.nan], np.float32)])


def _sweep():
    positive = np.arange(0, 0x7F800000, STRIDE, dtype=np.int64).astype(np.uint32)
    positive = positive.view(np.float32)
    return np.concatenate([positive, -positive, _special_values()])


def _ordered(values):
    """float32 values as integers in the same order, consecutive floats one apart."""
    bits = values.view(np.int32).astype(np.int64)
    return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)


def ulp_distance(got, expected):
    """How many float32 steps apart: 0 for NaN against NaN, huge for NaN against a number
    (and +0 against -0 count as equal here; the signs of zeros are tested apart)."""
    distance = np.abs(_ordered(got) - _ordered(expected))
    got_nan, expected_nan = np.isnan(got), np.isnan(expected)
    distance[got_nan & expected_nan] = 0
    distance[got_nan ^ expected_nan] = 1 << 40
    return distance


@pytest.fixture(scope="module")
def compiled():
    """name -> a numba function applying the fast function to each element of an array."""
    numba_math.register()
    loops = {}
    for name, (function, _) in FUNCTIONS.items():
        def loop(x, out, function=function):
            for i in range(x.size):
                out[i] = function(x[i])
        loops[name] = numba.njit(error_model="numpy")(loop)
    return loops


def _apply(loop, values):
    out = np.empty_like(values)
    loop(values, out)
    return out


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_within_4_ulp_of_float64_on_a_sweep_of_float32(compiled, name):
    values = _sweep()
    assert values.size > 4_000_000
    got = _apply(compiled[name], values)
    with np.errstate(all="ignore"):
        expected = FUNCTIONS[name][1](values.astype(np.float64)).astype(np.float32)
    distance = ulp_distance(got, expected)
    worst = int(np.argmax(distance))
    assert distance[worst] <= MAX_ULP, "%s(%r) = %r, float64 gives %r (%d ulp)" % (
        name, values[worst], got[worst], expected[worst], distance[worst])


def test_ulp_distance_counts_float32_steps():
    one = np.array([1.0], np.float32)
    assert ulp_distance(np.nextafter(one, np.float32(2)), one)[0] == 1
    assert ulp_distance(-F32.smallest_subnormal * one, F32.smallest_subnormal * one)[0] == 2
    assert ulp_distance(np.float32(np.nan) * one, one)[0] > MAX_ULP


def test_special_values_are_exact(compiled):
    values = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, F32.smallest_subnormal,
                       -F32.smallest_subnormal], np.float32)
    exp, tanh, sigmoid = (_apply(compiled[name], values) for name in ("exp", "tanh", "sigmoid"))
    np.testing.assert_array_equal(exp[:5], [1.0, 1.0, np.inf, 0.0, np.nan])
    np.testing.assert_array_equal(tanh[:5], [0.0, -0.0, 1.0, -1.0, np.nan])
    assert np.signbit(tanh[1]) and not np.signbit(tanh[0])  # the sign of zero is kept
    np.testing.assert_array_equal(tanh[5:], values[5:])  # tanh(x) is x for a subnormal x
    np.testing.assert_array_equal(sigmoid[:5], [0.5, 0.5, 1.0, 0.0, np.nan])
    assert _apply(compiled["exp"], np.array([88.8, -104.0], np.float32)).tolist() == [np.inf,
                                                                                        0.0]


def test_the_python_functions_compute_what_numba_compiles(compiled):
    values = np.ascontiguousarray(_special_values()[::3])  # the layout compiled above
    for name, (function, _) in FUNCTIONS.items():
        with np.errstate(all="ignore"):  # numpy warns of the overflow to inf, numba does not
            in_python = np.array([function(v) for v in values], np.float32)
        np.testing.assert_array_equal(in_python, _apply(compiled[name], values))


def test_the_generic_functions_take_scalars_and_arrays_of_any_layout():
    numba_math.register()

    @numba.njit
    def apply(matrix):
        return numba_math.fast_tanh(matrix.T), numba_math.fast_tanh(matrix[1, 2])

    matrix = np.linspace(-4, 4, 12, dtype=np.float32).reshape(3, 4)
    array, scalar = apply(matrix)
    np.testing.assert_array_equal(array, numba_math.fast_tanh(matrix.T))
    assert array.shape == (4, 3) and array.dtype == np.float32
    assert scalar == numba_math.tanh_f32(matrix[1, 2]) and isinstance(scalar, float)


def test_a_loop_over_them_compiles_without_calls_and_vectorises(compiled):
    for name, loop in compiled.items():
        ir = loop.inspect_llvm(loop.signatures[0])
        assert not re.search(r"call .*@(tanh|exp|expf|tanhf|numba_)", ir), name
        assert re.search(r"<(4|8|16) x float>", ir), name


def _source(f, *args):
    cf = f.get_concrete_function(*args)
    assert cf.backend == "numba"
    return cf._compiled.source


def test_the_numba_backend_uses_them_for_float32_only():
    def f(x):
        return tf.tanh(x) + tf.exp(x) * tf.sigmoid(x)

    for dtype in (np.float32, np.float64):
        x = tf.constant(np.linspace(-3, 3, 7).astype(dtype))
        compiled = tf.function(f, backend="numba", strict=True)
        got = compiled(x).numpy()
        expected = tf.function(f, backend="numpy")(x).numpy()
        assert got.dtype == dtype
        np.testing.assert_allclose(got, expected, rtol=4 * np.finfo(dtype).eps)
        source = _source(compiled, x)
        assert ("numba_math.tanh_f32" in source) == (dtype is np.float32)
        assert numba_math.SOURCE_DIGEST in source  # a new cache key when they change


def test_a_lone_float32_tanh_on_an_array_and_on_a_scalar():
    def f(x):
        return tf.tanh(x), tf.tanh(x[0])

    x = tf.constant(np.array([-20.0, -0.0, 0.3, 1.5], np.float32))
    compiled = tf.function(f, backend="numba", strict=True)
    array, scalar = compiled(x)
    source = _source(compiled, x)
    assert "numba_math.fast_tanh" in source and "numba_math.tanh_f32" in source
    np.testing.assert_array_equal(array.numpy(), numba_math.fast_tanh(x.numpy()))
    assert np.signbit(array.numpy()[1])
    assert scalar.numpy() == np.float32(-1.0) and scalar.dtype == tf.float32
