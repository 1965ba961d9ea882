"""The facade's functional control flow and structure names (`tf.nest`, `tf.map_fn`,
`tf.scan`, `tf.foldl`, `tf.foldr`, `tf.switch_case`, `tf.case`, `tf.vectorized_map`,
`tf.numpy_function`, `tf.stop_gradient`, `tf.custom_gradient`) used as TensorFlow code uses
them, in converted functions."""

import collections

import numpy as np
import pytest

import autograph.tf as tf

NAMES = ["map_fn", "scan", "foldl", "foldr", "switch_case", "case", "vectorized_map",
         "numpy_function", "stop_gradient", "custom_gradient"]
NEST_NAMES = ["flatten", "map_structure", "pack_sequence_as", "assert_same_structure",
              "is_nested"]


@pytest.mark.parametrize("name", NAMES)
def test_functional_names_exist_with_docstrings(name):
    assert getattr(tf, name).__doc__


@pytest.mark.parametrize("name", NEST_NAMES)
def test_nest_names_exist_with_docstrings(name):
    assert getattr(tf.nest, name).__doc__


def test_tf_nest_treats_tensor_arrays_as_leaves():
    ta = tf.TensorArray(tf.float32, size=1)
    assert tf.nest.flatten({"b": ta, "a": 1}) == [1, ta]
    assert not tf.nest.is_nested(ta)


def test_tf_nest_round_trip_in_sorted_key_order():
    State = collections.namedtuple("State", "h c")
    structure = {"z": State(1, [2, 3]), "a": (4,)}
    assert tf.nest.flatten(structure) == [4, 1, 2, 3]
    assert tf.nest.pack_sequence_as(structure, [40, 10, 20, 30]) == \
        {"z": State(10, [20, 30]), "a": (40,)}
    with pytest.raises(ValueError, match="same nested structure"):
        tf.nest.assert_same_structure(structure, {"z": State(1, 2), "a": (4,)})


def test_tf_nest_map_structure_in_a_function():
    @tf.function
    def f(state):
        return tf.nest.map_structure(lambda t: t * 2.0, state)
    out = f({"h": tf.constant([1.0]), "c": (tf.constant(2.0),)})
    assert out["h"].numpy().tolist() == [2.0] and out["c"][0].numpy() == 4.0


def test_map_fn_inside_a_converted_loop():
    @tf.function
    def f(x, n):
        total = tf.zeros([3])
        for _ in tf.range(n):
            total += tf.map_fn(lambda row: tf.reduce_sum(row) * 1.0, x)
        return total
    x = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    np.testing.assert_allclose(f(tf.constant(x), tf.constant(2)).numpy(), 2 * x.sum(axis=1))


def test_map_fn_with_a_converted_tensor_condition_in_fn():
    @tf.function
    def f(x):
        def relu_or_square(v):
            if v > 0:
                return v * v
            return -v
        return tf.map_fn(relu_or_square, x)
    np.testing.assert_allclose(f(tf.constant([-2.0, 3.0])).numpy(), [2.0, 9.0])


def test_scan_and_folds_through_the_facade():
    v = tf.constant([1.0, 2.0, 3.0])
    np.testing.assert_allclose(tf.scan(lambda a, x: a + x, v).numpy(), [1.0, 3.0, 6.0])
    assert tf.foldl(lambda a, x: a - x, v).numpy() == -4.0
    assert tf.foldr(lambda a, x: a - x, v).numpy() == 0.0


def test_switch_case_and_case_in_a_training_step():
    w = tf.Variable(2.0)

    @tf.function
    def step(i, x):
        with tf.GradientTape() as tape:
            y = tf.switch_case(i, [lambda: w * x, lambda: w * w * x])
            y = tf.case([(x > 10.0, lambda: y * 0.0)], default=lambda: y)
        return y, tape.gradient(y, w)
    y, g = step(tf.constant(1), tf.constant(3.0))
    assert (y.numpy(), g.numpy()) == (12.0, 12.0)
    y, g = step(tf.constant(0), tf.constant(3.0))
    assert (y.numpy(), g.numpy()) == (6.0, 3.0)


def test_vectorized_map_through_the_facade():
    @tf.function
    def f(x):
        return tf.vectorized_map(lambda row: tf.reduce_max(row), x)
    np.testing.assert_allclose(f(tf.constant([[1.0, 5.0], [7.0, 2.0]])).numpy(), [5.0, 7.0])


def test_numpy_function_runs_on_every_call():
    calls = []

    def numpy_side(a):
        calls.append(1)
        return np.cumsum(a)

    @tf.function
    def f(x):
        return tf.numpy_function(numpy_side, [x], tf.float32)
    for _ in range(3):
        np.testing.assert_allclose(f(tf.constant([1.0, 2.0])).numpy(), [1.0, 3.0])
    assert len(calls) == 3


def test_stop_gradient_blocks_the_gradient():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * tf.stop_gradient(x)
    assert tape.gradient(y, x).numpy() == 3.0


@tf.custom_gradient
def log1pexp(x):
    e = tf.exp(x)

    def grad(upstream):
        return upstream * (1 - 1 / (1 + e))
    return tf.math.log(1 + e), grad


def test_custom_gradient_gives_the_stable_gradient_of_the_guide_example():
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = log1pexp(x)
        return y, tape.gradient(y, x)
    y, g = f(tf.constant([0.0, 100.0], tf.float64))
    np.testing.assert_allclose(y.numpy(), [np.log(2.0), 100.0], rtol=1e-6)
    np.testing.assert_allclose(g.numpy(), [0.5, 1.0])
    x = tf.constant([0.0, 100.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = log1pexp(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.5, 1.0])


@tf.custom_gradient
def _clipped_identity(x):
    if tf.reduce_sum(x) > 0:  # a tensor condition: f is converted inside a Function
        y = x * 1.0
    else:
        y = x * 0.0

    def grad(dy):
        return tf.clip_by_value(dy, -1.0, 1.0)  # not the true gradient (1 or 0)
    return y, grad


def test_custom_gradient_function_is_converted_and_its_grad_fn_used_in_a_function():
    @tf.function
    def f(x, scale):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(_clipped_identity(x) * scale)
        return y, tape.gradient(y, x)
    y, g = f(tf.constant([1.0, 2.0]), tf.constant(5.0))
    assert y.numpy() == 15.0 and g.numpy().tolist() == [1.0, 1.0]
    y, g = f(tf.constant([-1.0, -2.0]), tf.constant(0.5))
    assert y.numpy() == 0.0 and g.numpy().tolist() == [0.5, 0.5]


class _Scaled(tf.Module):
    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    @tf.custom_gradient
    def square(self, x):
        def grad(dy):
            return dy * x * self.factor  # factor 2 gives the true gradient
        return x * x, grad


def test_custom_gradient_on_a_method_binds_the_instance():
    module = _Scaled(10.0)

    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = module.square(x)
        return tape.gradient(y, x)
    x = tf.constant(3.0)
    assert f(x).numpy() == 30.0
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = module.square(x)
    assert (y.numpy(), tape.gradient(y, x).numpy()) == (9.0, 30.0)
