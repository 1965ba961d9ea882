"""float32 exp and softmax give TensorFlow's last digits (runtime/ops/float32_kernels.py):
bit for bit against what TensorFlow 2.21 computed (data/float32_tf.npz, made once with real
TensorFlow, inputs chosen where its digits differ from numpy's), eagerly and traced, when
asked for (`set_digits("tensorflow")`, autograph.config's float32_digits); by default, and
for other dtypes, numpy's."""

import os

import numpy as np
import pytest

from runtime import dtypes
from runtime.function import function
from runtime.ops import array_ops, float32_kernels, math_ops, nn_ops

_FIXTURE = np.load(os.path.join(os.path.dirname(__file__), "data", "float32_tf.npz"))
_LENGTHS = sorted(int(k[len("softmax_x"):]) for k in _FIXTURE.files if k.startswith("softmax_x"))


@pytest.fixture
def tensorflow_digits():
    float32_kernels.set_digits("tensorflow")
    yield
    float32_kernels.set_digits(None)


def _assert_same_bits(got, expected):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype == np.float32 and got.shape == expected.shape
    same = (got.view(np.int32) == expected.view(np.int32)) | (np.isnan(got) & np.isnan(expected))
    assert same.all(), "%d of %d values differ from TensorFlow's" % ((~same).sum(), same.size)


@pytest.mark.usefixtures("tensorflow_digits")
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_exp_of_float32_is_tensorflows_bit_for_bit(traced):
    # (the numpy executor's kernels: numba and JAX keep their own exp, whatever
    # AUTOGRAPH_BACKEND sends other graphs to)
    exp = function(math_ops.exp, backend="numpy") if traced else math_ops.exp
    _assert_same_bits(exp(array_ops.constant(_FIXTURE["exp_x"])).numpy(), _FIXTURE["exp_y"])


@pytest.mark.usefixtures("tensorflow_digits")
@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("length", _LENGTHS)
def test_softmax_of_float32_is_tensorflows_bit_for_bit(length, traced):
    softmax = function(nn_ops.softmax, backend="numpy") if traced else nn_ops.softmax
    rows = _FIXTURE["softmax_x%d" % length]
    expected = _FIXTURE["softmax_y%d" % length]
    _assert_same_bits(softmax(array_ops.constant(rows)).numpy(), expected)
    # along another axis: the same values, transposed
    _assert_same_bits(softmax(array_ops.constant(rows.T), axis=0).numpy(), expected.T)


@pytest.mark.usefixtures("tensorflow_digits")
def test_softmax_of_the_guide_prints_tensorflows_digits():
    logits = array_ops.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    assert str(nn_ops.softmax(logits).numpy()) == (
        "[[0.09003057 0.24472848 0.6652409 ]\n [0.09003057 0.24472848 0.6652409 ]]")
    pair = nn_ops.softmax(array_ops.constant([[4.0, 5.0], [10.0, 1.0]])).numpy()
    assert pair.tolist() == [[np.float32(0.26894143), np.float32(0.73105854)],
                             [np.float32(0.9998766), np.float32(1.2339458e-04)]]


def test_exp_and_softmax_of_float64_stay_numpys():
    x = np.linspace(-50, 50, 1001)
    np.testing.assert_array_equal(math_ops.exp(array_ops.constant(x)).numpy(), np.exp(x))
    row = array_ops.constant(x[None, :], dtypes.float64)
    e = np.exp(x - x.max())
    np.testing.assert_array_equal(nn_ops.softmax(row).numpy()[0], e / e.sum())


def test_the_fused_multiply_add_rounds_once_where_float64_lands_on_a_float32_midpoint():
    f = np.float32
    # (2^-24 (1 + 2^-23)) (1 - 2^-23) + (1 + 2^-23) is just below the midpoint of
    # 1 + 2^-23 and 1 + 2^-22: rounded once it is 1 + 2^-23; rounded through float64 it
    # would be the midpoint, then 1 + 2^-22 (ties to even)
    a = np.array([2.0 ** -24 * (1 + 2.0 ** -23), 1.0, 3.0], f)
    b = np.array([1 - 2.0 ** -23, 1.0, 0.1], f)
    c = np.array([1 + 2.0 ** -23, 2.0 ** -24, -0.3], f)
    got = float32_kernels._fma(a, b, c)
    exact = float(f(3.0)) * float(f(0.1)) - float(f(0.3))  # exact in float64
    assert got.tolist() == [1 + 2.0 ** -23, 1.0, float(f(exact))]


def test_by_default_float32_exp_and_softmax_are_numpys():
    assert float32_kernels.digits() == "numpy"
    x = _FIXTURE["exp_x"]
    with np.errstate(over="ignore"):
        numpys = np.exp(x.astype(np.float32))
    np.testing.assert_array_equal(math_ops.exp(array_ops.constant(x)).numpy(), numpys)
    rows = _FIXTURE["softmax_x%d" % _LENGTHS[0]]
    with np.errstate(all="ignore"):  # (rows of infinities give NaN, as the op does)
        e = np.exp(rows - rows.max(axis=1, keepdims=True))
        numpys_softmax = e / e.sum(axis=1, keepdims=True)
    np.testing.assert_array_equal(nn_ops.softmax(array_ops.constant(rows)).numpy(),
                                  numpys_softmax)
    assert not np.array_equal(numpys, _FIXTURE["exp_y"])
