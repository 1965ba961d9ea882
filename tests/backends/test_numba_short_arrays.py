"""numba lowers tanh/exp of arrays shorter than one vector step (8 elements) to numpy's ufunc
(the C library's tanhf/expf) and float sums of fewer than 8 elements to `np.sum` (in order,
as numpy adds them): faster there, and still within 4 ulp of the float64 reference."""

import numpy as np
import pytest

import autograph.tf as tf
from runtime.ops import math_lowerings

pytest.importorskip("numba")


def _ulps(got, reference):
    wanted = reference.astype(np.float32)
    return np.abs(got.astype(np.float64) - wanted) / np.spacing(np.abs(wanted))


def _compiled(f, x):
    compiled = tf.function(f, backend="numba", strict=True)
    result = compiled(x).numpy()
    source = compiled.get_concrete_function(x)._compiled.source
    return result, source


@pytest.mark.parametrize("name", ["tanh", "exp"])
def test_short_arrays_use_the_ufunc_within_4_ulp(name):
    values = np.linspace(-9.0, 9.0, 7001).astype(np.float32)
    rows = values[:7000].reshape(-1, 7)
    function = getattr(tf, name) if name == "tanh" else tf.exp
    compiled = tf.function(lambda x: function(x), backend="numba", strict=True)
    worst = 0.0
    for row in rows[::50]:
        got = compiled(tf.constant(row)).numpy()
        worst = max(worst, float(np.max(_ulps(got, getattr(np, name)(row.astype(np.float64))))))
    assert worst <= 4
    source = compiled.get_concrete_function(tf.constant(rows[0]))._compiled.source
    assert "np.%s(" % name in source and "fast_%s" % name not in source


def test_long_arrays_keep_the_vectorised_functions():
    x = tf.constant(np.linspace(-3, 3, 8).astype(np.float32))
    _, source = _compiled(lambda x: tf.tanh(x), x)
    assert "numba_math.fast_tanh(" in source


def test_the_guide_loop_on_five_elements_agrees_with_the_executor():
    def guide(x):
        while tf.reduce_sum(x) > 1:
            x = tf.tanh(x)
        return x

    x = tf.ones([5])
    got, source = _compiled(guide, x)
    want = tf.function(guide, backend="numpy")(x).numpy()
    assert np.max(_ulps(got, want.astype(np.float64))) <= 4
    assert "xp.sum(" in source and "pairwise_sum" not in source


@pytest.mark.parametrize("size", [1, 5, 7, 8, 9, 130])
def test_float_sums_equal_numpys_on_either_side_of_eight(size):
    values = (np.random.default_rng(size).standard_normal(size) * 1e4).astype(np.float32)
    got, source = _compiled(lambda x: tf.reduce_sum(x), tf.constant(values))
    assert got == np.sum(values)
    assert ("pairwise_sum" in source) == (size >= 8)


def test_a_kernel_uses_the_fast_functions_within_its_budget(monkeypatch):
    monkeypatch.setattr(math_lowerings, "_FAST_MATH_BUDGET", 2)  # 32 by default

    def chain(x):
        for _ in range(4):  # unrolled: 4 Tanh ops in one kernel
            x = tf.tanh(x) * 1.5
        return x

    x = tf.constant(np.linspace(-1, 1, 16).astype(np.float32))
    got, source = _compiled(chain, x)
    want = tf.function(chain, backend="numpy")(x).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert source.count("numba_math.fast_tanh(") + source.count("numba_math.tanh(") == 2
