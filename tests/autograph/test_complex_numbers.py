"""Complex numbers as TensorFlow has them: the values and gradients of every op that accepts
complex inputs, against a fixture written by real TensorFlow 2.21
(data/make_complex_fixture.py, over the cases of complex_op_cases.py), eagerly and with the
tape in a Function; and the ops TensorFlow refuses for complex, refused here too."""

import os

import numpy as np
import pytest
from complex_op_cases import CASES, upstream

import autograph.tf as tf

_FIXTURE = np.load(os.path.join(os.path.dirname(__file__), "data", "complex_ops_tf.npz"))
_REFUSED = sorted(k[:-len(":error")] for k in _FIXTURE.files if k.endswith(":error"))
_COMPUTED = sorted(name for name in CASES if name not in _REFUSED)


def _value_and_gradients(func, inputs, wrt, weights):
    tensors = [tf.constant(x) for x in inputs]
    with tf.GradientTape(persistent=True) as tape:
        for t in tensors:
            tape.watch(t)
        value = func(tf, *tensors)
    grads = [tape.gradient(value, tensors[i], output_gradients=weights) for i in wrt]
    return value, grads


def _in_function(func, inputs, wrt, weights):
    @tf.function(autograph=False)
    def run():
        return _value_and_gradients(func, inputs, wrt, weights)
    return run()


def test_the_fixture_covers_every_case():
    assert sorted(_COMPUTED + _REFUSED) == sorted(CASES)
    for name in _COMPUTED:
        assert name + ":value" in _FIXTURE.files


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "tape_in_function"])
@pytest.mark.parametrize("name", _COMPUTED)
def test_value_and_gradient_match_tensorflow(name, traced):
    func, inputs, wrt = CASES[name]
    expected = _FIXTURE[name + ":value"]
    weights = upstream(expected)
    run = _in_function if traced else _value_and_gradients
    value, grads = run(func, inputs, wrt, weights)
    assert value.dtype.as_numpy_dtype == expected.dtype
    np.testing.assert_allclose(value.numpy(), expected, rtol=1e-5, atol=1e-6)
    for i, grad in zip(wrt, grads):
        key = "%s:grad%d" % (name, i)
        if key not in _FIXTURE.files:
            assert grad is None, key
            continue
        assert grad is not None, key
        got = tf.convert_to_tensor(grad).numpy()
        assert got.dtype == _FIXTURE[key].dtype, key
        np.testing.assert_allclose(got, _FIXTURE[key], rtol=1e-5, atol=1e-6, err_msg=key)


@pytest.mark.parametrize("name", _REFUSED)
def test_ops_tensorflow_refuses_for_complex_are_refused_naming_the_dtype(name):
    func, inputs, _ = CASES[name]
    with pytest.raises((TypeError, tf.errors.InvalidArgumentError), match="complex128"):
        func(tf, *[tf.constant(x) for x in inputs])


def test_sign_of_complex_is_the_unit_direction_and_zero_at_zero():
    got = tf.sign(tf.constant([3 + 4j, 0j, -2j], tf.complex64))
    assert got.dtype == tf.complex64
    np.testing.assert_allclose(got.numpy(), [0.6 + 0.8j, 0, -1j], rtol=1e-6)


def test_norm_of_complex_is_complex_as_in_tensorflow():
    got = tf.norm(tf.constant([3 + 4j, 0, -1j], tf.complex64))
    assert got.dtype == tf.complex64
    np.testing.assert_allclose(got.numpy(), 5.0990195 + 0j, rtol=1e-6)
