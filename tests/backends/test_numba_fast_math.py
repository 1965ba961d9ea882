"""The numba backend's fast exp, tanh and sigmoid (runtime/backends/numba_math.py) stay within
4 ulp of a wider reference rounded to the type (float64 for float32, long double for
float64), on a sweep of 4 million values of each type across every exponent, both signs,
and on the special values; the numba lowering uses them, and a loop over them vectorises
(no calls)."""

import re

import numpy as np
import pytest

import autograph.tf as tf
from runtime.backends import numba_math

numba = pytest.importorskip("numba")

MAX_ULP = 4
SWEEP = 2_000_000  # values of each sign, spread evenly over the bit patterns of finite floats
NAMES = ("exp", "tanh", "sigmoid")
FORMATS = {np.float32: numba_math.FLOAT32, np.float64: numba_math.FLOAT64}
INTEGER = {np.float32: np.int32, np.float64: np.int64}
# the float64 results are compared with the long double functions: wider than float64 where
# it is x87's 80 bits (Linux on x86-64), not on every platform
WIDE = np.longdouble if np.finfo(np.longdouble).nmant >= 63 else None


def _sigmoid(x):
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


REFERENCES = {"exp": np.exp, "tanh": np.tanh, "sigmoid": _sigmoid}


def _reference(name, values):
    """The function in a wider type, rounded to the values' type."""
    wide = np.float64 if values.dtype == np.float32 else WIDE
    if wide is None:
        pytest.skip("no float type wider than float64 here")
    with np.errstate(all="ignore"):
        return REFERENCES[name](values.astype(wide)).astype(values.dtype)


def _special_values(dtype):
    info = np.finfo(dtype)
    edges = [0.0, info.tiny, info.smallest_subnormal, info.max, np.inf, 1e-30, 1e-7, 0.5,
             0.625, 1.0, 9.0, 9.1, 10.0, 19.0, 20.0, 88.0, 88.72283, 88.7228394, 89.0,
             100.0, 103.0, 103.27893, 103.972, 104.0, 700.0, 709.78, 709.79, 710.0, 744.0,
             745.13, 745.14, 746.0, 1e10, 1e30, 1e300]
    with np.errstate(over="ignore"):  # the float after the largest is inf
        values = np.array(edges, dtype)
        values = np.concatenate([values, np.nextafter(values, dtype(0)),
                                 np.nextafter(values, dtype(np.inf))])
    return np.concatenate([values, -values, np.array([np.nan, -np.nan], dtype)])


def _sweep(dtype):
    integer = INTEGER[dtype]
    finite = int(np.array(np.inf, dtype).view(integer))  # the bit pattern of inf
    positive = np.linspace(0, finite - 1, SWEEP).astype(integer).view(dtype)
    return np.concatenate([positive, -positive, _special_values(dtype)])


def _ordered(values):
    """The values as integers in the same order, consecutive floats one apart."""
    integer = INTEGER[values.dtype.type]
    bits = values.view(integer).astype(np.int64)
    return np.where(bits < 0, -(bits & np.iinfo(integer).max), bits)


def ulp_distance(got, expected):
    """How many steps of their float type apart: 0 for NaN against NaN, huge for NaN against
    a number (+0 and -0 count as equal here; the signs of zeros are tested apart)."""
    a, b = _ordered(got), _ordered(expected)
    far = 1 << 40
    distance = np.where((a < 0) != (b < 0),  # no overflow in a - b
                        np.minimum(np.abs(a), far) + np.minimum(np.abs(b), far), np.abs(a - b))
    got_nan, expected_nan = np.isnan(got), np.isnan(expected)
    distance[got_nan & expected_nan] = 0
    distance[got_nan ^ expected_nan] = far
    return distance


@pytest.fixture(scope="module")
def loops():
    """(name, dtype) -> a numba function applying the fast scalar function to each element."""
    numba_math.register()
    compiled = {}
    for name in NAMES:
        for dtype, f in FORMATS.items():
            def loop(x, out, function=getattr(numba_math, name), f=f):
                for i in range(x.size):
                    out[i] = function(x[i], f)
            compiled[name, dtype] = numba.njit(error_model="numpy")(loop)
            # compiled here for contiguous arrays, so that each test sees the same first
            # signature whichever tests ran before it (in this worker)
            compiled[name, dtype](np.zeros(2, dtype), np.empty(2, dtype))
    return compiled


def _apply(loops, name, values):
    out = np.empty_like(values)
    loops[name, values.dtype.type](values, out)
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", NAMES)
def test_within_4_ulp_of_a_wider_reference_on_a_sweep_of_every_exponent(loops, name, dtype):
    values = _sweep(dtype)
    assert values.size > 2 * SWEEP
    got = _apply(loops, name, values)
    expected = _reference(name, values)
    distance = ulp_distance(got, expected)
    worst = int(np.argmax(distance))
    assert distance[worst] <= MAX_ULP, "%s(%r) = %r, the reference gives %r (%d ulp)" % (
        name, values[worst], got[worst], expected[worst], distance[worst])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_ulp_distance_counts_steps_of_the_type(dtype):
    one, tiny = np.array([1.0], dtype), np.finfo(dtype).smallest_subnormal
    assert ulp_distance(np.nextafter(one, dtype(2)), one)[0] == 1
    assert ulp_distance(-tiny * one, tiny * one)[0] == 2
    assert ulp_distance(np.array([np.inf], dtype), np.array([-np.inf], dtype))[0] > MAX_ULP
    assert ulp_distance(dtype(np.nan) * one, one)[0] > MAX_ULP


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_special_values_are_exact(loops, dtype):
    tiny = np.finfo(dtype).smallest_subnormal
    values = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, tiny, -tiny], dtype)
    exp, tanh, sigmoid = (_apply(loops, name, values) for name in NAMES)
    np.testing.assert_array_equal(exp[:5], [1.0, 1.0, np.inf, 0.0, np.nan])
    np.testing.assert_array_equal(tanh[:5], [0.0, -0.0, 1.0, -1.0, np.nan])
    assert np.signbit(tanh[1]) and not np.signbit(tanh[0])  # the sign of zero is kept
    np.testing.assert_array_equal(tanh[5:], values[5:])  # tanh(x) is x for a subnormal x
    np.testing.assert_array_equal(sigmoid[:5], [0.5, 0.5, 1.0, 0.0, np.nan])
    beyond = np.array([89.0, -104.0] if dtype is np.float32 else [710.0, -746.0], dtype)
    assert _apply(loops, "exp", beyond).tolist() == [np.inf, 0.0]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_python_functions_compute_what_numba_compiles(loops, dtype):
    values = np.ascontiguousarray(_special_values(dtype)[::3])  # the layout compiled above
    for name in NAMES:
        function = getattr(numba_math, name)
        with np.errstate(all="ignore"):  # numpy warns of the overflow to inf, numba does not
            in_python = np.array([function(v, FORMATS[dtype]) for v in values], dtype)
        np.testing.assert_array_equal(in_python, _apply(loops, name, values))


def test_the_generic_functions_take_scalars_and_arrays_of_any_layout():
    numba_math.register()

    @numba.njit
    def apply(matrix):
        return numba_math.fast_tanh(matrix.T), numba_math.fast_tanh(matrix[1, 2])

    for dtype in (np.float32, np.float64):
        matrix = np.linspace(-4, 4, 12, dtype=dtype).reshape(3, 4)
        array, scalar = apply(matrix)
        np.testing.assert_array_equal(array, numba_math.fast_tanh(matrix.T))
        assert array.shape == (4, 3) and array.dtype == dtype
        assert scalar == numba_math.tanh(matrix[1, 2], FORMATS[dtype])


def test_a_loop_over_them_compiles_without_calls_and_vectorises(loops):
    for (name, dtype), loop in loops.items():
        ir = loop.inspect_llvm(loop.signatures[0])
        # neither the C library's function nor ours (numba compiles ours as a call, which
        # LLVM must inline: its mangled name holds the module's)
        assert not re.search(r"call .*@(tanh|exp|expf|tanhf|numba_)|call .*numba_math", ir), name
        element = "float" if dtype is np.float32 else "double"
        assert re.search(r"<(2|4|8|16) x %s>" % element, ir), (name, dtype)


def _source(f, *args):
    cf = f.get_concrete_function(*args)
    assert cf.backend == "numba"
    return cf._compiled.source


def test_the_numba_backend_uses_them_for_float32_and_float64():
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
        for name in NAMES:  # fused into one loop: the scalar functions
            assert "numba_math.%s(" % name in source
        assert "numba_math.%s)" % x.dtype.name.upper() in source
        assert numba_math.SOURCE_DIGEST in source  # a new cache key when they change


def test_a_lone_float32_tanh_on_an_array_and_on_a_scalar():
    # (8 elements: a shorter array takes numpy's ufunc, see test_numba_short_arrays.py)
    def f(x):
        return tf.tanh(x), tf.tanh(x[0])

    x = tf.constant(np.array([-20.0, -0.0, 0.3, 1.5, 2.0, -3.0, 0.01, 7.0], np.float32))
    compiled = tf.function(f, backend="numba", strict=True)
    array, scalar = compiled(x)
    source = _source(compiled, x)
    assert "numba_math.fast_tanh(" in source and "numba_math.tanh(" in source
    np.testing.assert_array_equal(array.numpy(), numba_math.fast_tanh(x.numpy()))
    assert np.signbit(array.numpy()[1])
    assert scalar.numpy() == np.float32(-1.0) and scalar.dtype == tf.float32
