"""Lowering rules of the activation, layout, einsum, linalg and check ops:
each lowered graph gives the numpy executor's values on numba and on JAX, and an op a
backend declines makes the graph fall back, naming it."""

import importlib.util

import numpy as np
import pytest
from numba_compare import executor_and_numba

import autograph.tf as tf
from runtime import backends

_INSTALLED = {name: importlib.util.find_spec(name) is not None for name in ("numba", "jax")}
BACKENDS = [pytest.param(name, marks=pytest.mark.skipif(not _INSTALLED[name],
                                                        reason="%s is not installed" % name))
            for name in ("numba", "jax")]


def _values(result):
    return [t.numpy() for t in (result if isinstance(result, (tuple, list)) else (result,))]


def _agree(backend, f, *args, ulp=0, rtol=0.0):
    """f on `backend` (strict: it must lower) gives the numpy executor's values: equal, or
    within `ulp` units in the last place for float math functions, or within `rtol` for
    float sums taken in another order."""
    expected = _values(tf.function(f, backend="numpy")(*args))
    compiled = tf.function(f, backend=backend, strict=True)
    got = _values(compiled(*args))
    assert compiled.get_concrete_function(*args).backend == backend
    assert len(got) == len(expected)
    for e, g in zip(expected, got):
        assert e.dtype == g.dtype and e.shape == g.shape
        if ulp:
            np.testing.assert_array_max_ulp(g, e, maxulp=ulp)
        elif rtol:
            np.testing.assert_allclose(g, e, rtol=rtol, atol=rtol)
        else:
            np.testing.assert_array_equal(g, e)


def _declines(backend, f, *args, op):
    with pytest.raises(backends.Unsupported, match=op):
        tf.function(f, backend=backend, strict=True)(*args)


_FLOATS = np.array([[-7.5, -1.0, -0.0, 0.0], [0.25, 3.0, 6.0, 9.5]], np.float32)


@pytest.mark.parametrize("backend", BACKENDS)
def test_relu6_on_floats_ints_and_scalars(backend):
    def f(x, n, s):
        return tf.nn.relu6(x), tf.nn.relu6(n), tf.nn.relu6(s)

    _agree(backend, f, _FLOATS, np.array([-3, 0, 4, 6, 11], np.int32), tf.constant(7.0))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("alpha", [0.2, 1.5, -0.3])
def test_leaky_relu_scales_in_the_inputs_dtype(backend, alpha):
    def f(x, s):
        return tf.nn.leaky_relu(x, alpha), tf.nn.leaky_relu(s, alpha)

    x = np.linspace(-3, 3, 13).astype(np.float32) * np.float32(1.1)
    _agree(backend, f, x, tf.constant(-2.3))


@pytest.mark.parametrize("backend", BACKENDS)
def test_elu_is_within_4_ulp(backend):
    def f(x, s):
        return tf.nn.elu(x), tf.nn.elu(s)

    x = np.linspace(-20, 3, 47).astype(np.float32)
    _agree(backend, f, x, tf.constant(-0.5), ulp=4)
    _agree(backend, f, x.astype(np.float64), tf.constant(-0.5, tf.float64), ulp=4)


@pytest.mark.parametrize("backend", BACKENDS)
def test_reverse_over_some_axes(backend):
    def f(x):
        return tf.reverse(x, [1]), tf.reverse(x, [0, -1]) * 2.0 + 1.0  # a fused loop on numba

    _agree(backend, f, _FLOATS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_ensure_shape_of_a_known_shape_identity_stop_gradient_and_no_op(backend):
    def f(x):
        with tf.control_dependencies([tf.no_op()]):
            y = tf.ensure_shape(tf.identity(x) * 2.0, [2, 4])
        return tf.stop_gradient(y) + 1.0

    _agree(backend, f, _FLOATS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_custom_gradient_forward_values(backend):
    @tf.custom_gradient
    def clipped(x):
        def grad(g):
            return tf.clip_by_value(g, -1.0, 1.0)
        return x * x, grad

    def f(x):
        return clipped(x) + 1.0

    _agree(backend, f, _FLOATS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_split_into_sizes_along_an_axis(backend):
    def f(x):
        a, b, c = tf.split(x, [1, -1, 2], axis=1)
        first, second = tf.split(x, 2)
        return a, b * 2.0 - 1.0, c, first, second

    _agree(backend, f, _FLOATS)


@pytest.mark.parametrize("backend", BACKENDS)
def test_diag_and_band_part(backend):
    def f(d, x):
        return (tf.linalg.diag(d), tf.linalg.band_part(x, 1, 0), tf.linalg.band_part(x, 0, -1),
                tf.linalg.band_part(x, -1, 2), tf.linalg.band_part(x, -1, -1))

    d = np.array([[1, -2, 3], [4, 5, 6]], np.int32)
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 5
    x[0, 0, 1] = np.nan  # kept or zeroed as the kernel does, never multiplied
    _agree(backend, f, d, x)


@pytest.mark.skipif(not _INSTALLED["jax"], reason="jax is not installed")
def test_a_cond_with_branches_of_different_shapes_falls_back_on_jax():
    def pick(flag, x):
        return tf.cond(flag, lambda: x[1:] * 2.0, lambda: x[:1] + 1.0)

    x = np.array([1.0, 2.0, 3.0], np.float32)
    with pytest.warns(backends.BackendFallbackWarning, match="different shapes"):
        got = tf.function(pick, backend="jax")(tf.constant(False), x)
    np.testing.assert_array_equal(got.numpy(), [2.0])


def _roll(x):
    return tf.roll(x, shift=[1, -1], axis=[0, 1])


def _einsum(a, b):
    return tf.einsum("ij,jk->ik", a, b), tf.einsum("ij->j", a), tf.einsum("ii->i", b[:3])


def _diag_part(x):
    return tf.linalg.diag_part(x)


def _pad(x):
    return (tf.pad(x, [[1, 0], [2, 1]], constant_values=-1.5),
            tf.pad(x, [[1, 1], [2, 3]], mode="REFLECT"),
            tf.pad(x, [[2, 1], [0, 4]], mode="SYMMETRIC"))


def _gather_nd(params, indices):
    return tf.gather_nd(params, indices)


def _top_k(x):
    values, indices = tf.math.top_k(x, 3)
    return values, indices, tf.sort(x, direction="DESCENDING")


@pytest.mark.skipif(not _INSTALLED["jax"], reason="jax is not installed")
def test_top_k_on_jax_orders_ties_zeros_and_nans_as_the_kernel():
    ties = np.array([[1.0, 3.0, 3.0, -0.0, 0.0, 3.0], [0.0, -0.0, 0.0, -1.0, -0.0, 2.0]],
                    np.float32)
    _agree("jax", _top_k, ties)
    _agree("jax", _top_k, np.array([[2, 2, 5, 2], [7, -1, 7, 7]], np.int32))
    with_nan = ties.copy()
    with_nan[0, 4] = np.nan  # the executor's order, through the fallback for this call
    _agree("jax", _top_k, with_nan)


def _repeat(x):
    return tf.repeat(x, 2, axis=1), tf.repeat(x, [1, 0], axis=0), tf.repeat(x, [3, 1], axis=-2)


def _erf(x):
    return tf.math.erf(x)


def _erf_and_erfc(x):
    return tf.math.erf(x), tf.math.erfc(x)


_A = np.arange(12, dtype=np.int32).reshape(3, 4)
_B = np.arange(-6, 6, dtype=np.int32).reshape(4, 3)


@pytest.mark.skipif(not _INSTALLED["jax"], reason="jax is not installed")
def test_roll_einsum_diag_part_and_pad_on_jax():
    _agree("jax", _roll, _FLOATS)
    _agree("jax", _einsum, _A, _B)
    _agree("jax", _einsum, _A.astype(np.float64) / 3, _B.astype(np.float64) / 7, rtol=1e-13)
    _agree("jax", _diag_part, np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    _agree("jax", _pad, _FLOATS)
    _agree("jax", _repeat, _FLOATS)
    _agree("jax", _gather_nd, _FLOATS, np.array([[1, 2], [0, 0], [1, 3]], np.int32))
    _agree("jax", _gather_nd, _FLOATS, np.array([[[1]], [[0]]], np.int64))


@pytest.mark.skipif(not _INSTALLED["jax"], reason="jax is not installed")
@pytest.mark.parametrize("bad", [[[0, 1], [2, 0]], [[0, -1]]])
def test_gather_nd_out_of_bounds_on_jax_raises_the_executors_error(bad):
    bad = np.array(bad, np.int32)
    with pytest.raises(Exception, match="does not index into shape") as on_numpy:
        tf.function(_gather_nd, backend="numpy")(_FLOATS, bad)
    function = tf.function(_gather_nd, backend="jax", strict=True)
    with pytest.raises(on_numpy.type, match="does not index into shape"):
        function(_FLOATS, bad)
    assert function.get_concrete_function(_FLOATS, bad).backend == "jax"


@pytest.mark.skipif(not _INSTALLED["jax"], reason="jax is not installed")
def test_erf_on_jax_is_within_4_ulp():
    x = np.linspace(-4, 4, 81)
    _agree("jax", _erf, x.astype(np.float32), ulp=4)
    _agree("jax", _erf, x, ulp=4)
    # XLA's erfc is not (55 ulp in float64): a graph with one runs on the executor
    _declines("jax", _erf_and_erfc, x, op="Erfc")


@pytest.mark.skipif(not _INSTALLED["numba"], reason="numba is not installed")
def test_numba_einsum_of_integers_and_unsummed_floats_and_declines_float_sums():
    _agree("numba", _einsum, _A, _B)
    _agree("numba", _einsum, _A.astype(np.int64) * 2 ** 40, _B.astype(np.int64) * 2 ** 30)

    def unsummed(a, b, s):
        return (tf.einsum("i,j->ij", a, b), tf.einsum("ij->ji", b[:, None] * a),
                tf.einsum("ii->i", b[:3, None] * a[:3]), tf.einsum("i,i->i", a, b[:4] * s),
                tf.einsum(",ij->ji", s, b[:, None] * a))

    a = np.array([-1.5, 0.0, -0.0, 3.25], np.float32)
    b = np.array([0.0, -0.0, 2.0, -7.0, 1e30], np.float32)
    _agree("numba", unsummed, a, b, np.float32(-1.0))
    _agree("numba", unsummed, a.astype(np.float64), b.astype(np.float64), np.float64(-1.0))
    expected, got = executor_and_numba(unsummed, a, b, np.float32(-1.0))
    for e, g in zip(expected, got):  # the signs of zeros too: numpy adds products to +0.0
        np.testing.assert_array_equal(np.signbit(e.numpy()), np.signbit(g.numpy()))
    _declines("numba", _einsum, _A.astype(np.float32), _B.astype(np.float32), op="Einsum")


@pytest.mark.skipif(not _INSTALLED["numba"], reason="numba is not installed")
def test_pad_erf_gather_nd_and_diag_part_on_numba_are_the_executors_bit_for_bit():
    _agree("numba", _pad, _FLOATS)
    _agree("numba", _diag_part, _FLOATS)
    _agree("numba", _diag_part, np.arange(24, dtype=np.int64).reshape(2, 4, 3))
    tall = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
    expected, got = executor_and_numba(  # matrices of a shape known only at run time
        _diag_part, tall, input_signature=[tf.TensorSpec([None, None, None], tf.float32)])
    np.testing.assert_array_equal(got.numpy(), expected.numpy())
    assert got.numpy().shape == (2, 3)
    _agree("numba", _erf_and_erfc, _FLOATS)
    _agree("numba", _erf_and_erfc, np.linspace(-4, 10, 57))
    _agree("numba", _gather_nd, _FLOATS, np.array([[1, 2], [0, 0], [1, 3]], np.int32))


@pytest.mark.parametrize("backend", BACKENDS)
def test_declined_ops_fall_back_naming_the_op(backend):
    def unique(x):  # its output's shape depends on the values: no backend lowers it
        return tf.unique(x).y

    _declines(backend, unique, _FLOATS[0], op="Unique")
    with pytest.warns(backends.BackendFallbackWarning, match="Unique"):
        got = tf.function(unique, backend=backend)(_FLOATS[0])
    np.testing.assert_array_equal(got.numpy(), tf.unique(_FLOATS[0]).y.numpy())
