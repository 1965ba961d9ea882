"""Checks shared by the op-family tests (tests/autograph/test_*_ops.py), written against the
`autograph.tf` facade: an op's values against a numpy reference, eagerly and traced; its
static shape in a trace; its gradient against central finite differences (float64), eagerly
and with the tape inside a tf.function (the gradient built as graph nodes and compiled)."""

import numpy as np
import pytest
from numeric_gradients import numeric_gradients

import autograph.tf as tf

# Sample operands of the value checks (drawn once, so each family's cases see the same ones)
_rng = np.random.default_rng(3)
F = _rng.standard_normal((3, 4)).astype(np.float32)
D = _rng.standard_normal((2, 3)).astype(np.float64)
INTS = np.array([[3, 1, 3], [0, -2, 5]], np.int32)
SQUARE = (_rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)).astype(np.float32)
IMAGE = _rng.standard_normal((2, 5, 6, 3)).astype(np.float32)
FILTERS = _rng.standard_normal((3, 2, 3, 4)).astype(np.float32)
# Operands of the error checks
F32 = np.ones((2, 3), np.float32)
F64 = np.ones((3, 3), np.float64)


def _as_numpy(value):
    """A sample as numpy gives it to the reference (str items of an object array as bytes)."""
    if isinstance(value, np.ndarray) and value.dtype == object:
        return np.array([v.encode() if isinstance(v, str) else v for v in value.ravel()],
                        object).reshape(value.shape)
    return value


def check_values(fn, inputs, reference, traced, keeps_input_dtype=True):
    """fn(*inputs) (eagerly, or traced in a tf.function) equals reference(*inputs): same
    shape and values; and, where `keeps_input_dtype`, the inputs' dtype for a float result."""
    tensors = [tf.constant(_as_numpy(x)) if np.asarray(x).dtype == object else tf.constant(x)
               for x in inputs]
    run = tf.function(fn, autograph=False) if traced else fn
    got = run(*tensors)
    want = np.asarray(reference(*[_as_numpy(x) for x in inputs]))
    if want.dtype == object:
        assert np.asarray(got.numpy(), object).tolist() == want.tolist()
        return
    value = got.numpy()
    assert value.shape == want.shape
    if want.dtype.kind in "iub":
        np.testing.assert_array_equal(value, want)
    else:
        tolerance = 1e-5 if value.dtype == np.float32 else 1e-10
        np.testing.assert_allclose(value, want, rtol=tolerance, atol=tolerance)
    if inputs:
        assert value.dtype == np.result_type(*[np.asarray(x) for x in inputs]) or \
            want.dtype.kind in "iub" or not keeps_input_dtype


def check_static_shape(fn, inputs, reference):
    """Traced with the inputs' shapes, fn's result has the reference's shape statically."""
    seen = []

    @tf.function(autograph=False)
    def traced(*xs):
        out = fn(*xs)
        seen.append(tuple(out.shape.as_list()))
        return out
    traced(*[tf.constant(x) for x in inputs])
    assert seen == [np.asarray(reference(*inputs)).shape]


def tape_gradients(scalar, arrays, in_function):
    """The tape's gradients of scalar(*tensors)."""
    def run(*xs):
        with tf.GradientTape() as tape:
            tape.watch(list(xs))
            y = scalar(*xs)
        return tape.gradient(y, list(xs))
    xs = [tf.constant(a) for a in arrays]
    grads = tf.function(run, autograph=False)(*xs) if in_function else run(*xs)
    return [g.numpy() for g in grads]


def check_gradients(fn, *arrays, in_function=False, rtol=1e-5, atol=1e-6, seed=0):
    """fn's vector-Jacobian product with random weights matches finite differences."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    out = fn(*[tf.constant(a) for a in arrays])
    weights = tf.constant(np.random.default_rng(seed).uniform(0.5, 1.5, size=out.shape))

    def scalar(*xs):
        return tf.reduce_sum(fn(*xs) * weights)
    want = numeric_gradients(lambda *a: float(scalar(*[tf.constant(b) for b in a])), arrays)
    got = tape_gradients(scalar, arrays, in_function)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def check_second_order(fn, *arrays):
    """The gradient of fn has a gradient: the gradient of sum(grad * w) matches finite
    differences of the first-order gradient."""
    weights = [np.random.default_rng(1).uniform(0.5, 1.5, a.shape) for a in arrays]

    def weighted_gradient(*xs):
        with tf.GradientTape() as tape:
            tape.watch(list(xs))
            y = tf.reduce_sum(fn(*xs))
        grads = tape.gradient(y, list(xs))
        return tf.add_n([tf.reduce_sum(g * w) for g, w in zip(grads, weights)])
    check_gradients(lambda *xs: tf.reshape(weighted_gradient(*xs), [1]), *arrays, rtol=1e-4)


def check_linear_op(fn, reference, shape, seed):
    """`fn`, a linear op of one tensor, gives `reference`'s values on random operands of
    `shape`, and its gradient is its adjoint: <fn(x), w> == <x, grad>, where grad is the
    tape's gradient of sum(fn(x) * w)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    out = fn(tf.constant(x))
    want = reference(x)
    np.testing.assert_array_equal(out.numpy(), want)
    w = rng.standard_normal(want.shape)
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        y = tf.reduce_sum(fn(xt) * w)
    grad = tape.gradient(y, xt)
    grad = np.zeros_like(x) if grad is None else grad.numpy()
    np.testing.assert_allclose(np.sum(want * w), np.sum(x * grad), rtol=1e-9, atol=1e-9)


class GradientOperands:
    """Seeded float64 operands for gradient checks."""

    def __init__(self, seed):
        self._rng = np.random.default_rng(seed)

    def uniform(self, *shape):
        """Values in [-1, 1) of `shape`."""
        return self._rng.uniform(-1.0, 1.0, size=shape)

    def distinct(self, *shape):
        """Values of `shape` far apart (so sorting and max pooling have no near ties)."""
        n = int(np.prod(shape))
        return (self._rng.permutation(n) * 0.1 + 0.05).reshape(shape)


# -- the tests every op-family module makes of its tables ------------------------------------
# A module assigns them to names starting with test_ so that pytest collects them there:
#     test_values_match_numpy = values_test(VALUES)


def values_test(values, keeps_input_dtype=lambda name: True):
    """A test of each VALUES case against numpy, eagerly and traced (`keeps_input_dtype(name)`:
    whether the case's result has its inputs' dtype)."""
    @pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
    @pytest.mark.parametrize("name", sorted(values))
    def test_values_match_numpy(name, traced):
        check_values(*values[name], traced, keeps_input_dtype=keeps_input_dtype(name))
    return test_values_match_numpy


def static_shapes_test(values, names):
    """A test that the cases `names` of VALUES have their result's shape while traced."""
    @pytest.mark.parametrize("name", names)
    def test_static_shapes_are_inferred(name):
        check_static_shape(*values[name])
    return test_static_shapes_are_inferred


def gradients_test(gradients):
    """A test of each GRADIENTS case against finite differences, eagerly and with the tape in
    a tf.function."""
    @pytest.mark.parametrize("in_function", [False, True], ids=["eager", "tape_in_function"])
    @pytest.mark.parametrize("name", sorted(gradients))
    def test_gradient_matches_finite_differences(name, in_function):
        fn, *arrays = gradients[name]
        check_gradients(fn, *arrays, in_function=in_function)
    return test_gradient_matches_finite_differences


def mixed_dtypes_test(cases):
    """A test that each case (an op given float32 and float64 operands) is an error naming
    both dtypes."""
    @pytest.mark.parametrize("name", sorted(cases))
    def test_mixed_dtypes_are_an_error_naming_the_op_and_operands(name):
        with pytest.raises((tf.errors.InvalidArgumentError, TypeError)) as info:
            cases[name]()
        text = str(info.value)
        assert "float32" in text and "float64" in text
    return test_mixed_dtypes_are_an_error_naming_the_op_and_operands
