"""Guide examples that take gradients with tf.GradientTape.

"Basics" / "Usage": a Function is just like a core op; you can compute gradients of its
result (`add(v, 1.0)` with respect to the variable `v` gives 1.0). "Known issues" /
"Creating tf.Variables": a training step with `tape.gradient(L, [w])`, whose optimizer
creates variables the first time it applies gradients, so a second optimizer in the same
Function fails, and the workaround: one ConcreteFunction per optimizer.

Keras is not part of the runtime, so the optimizers are a minimal stand-in with Keras's
behaviour that matters here: an `iterations` variable created on the first
`apply_gradients`, and plain SGD updates.
"""

import numpy as np
import pytest

import autograph.tf as tf


@tf.function  # The decorator converts `add` into a `Function`.
def add(a, b):
    return a + b


def test_first_example_gradient_of_a_function_result():
    add(tf.ones([2, 2]), tf.ones([2, 2]))  # [[2., 2.], [2., 2.]]
    v = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        result = add(v, 1.0)
    gradient = tape.gradient(result, v)
    assert repr(gradient) == "<tf.Tensor: shape=(), dtype=float32, numpy=1.0>"
    assert float(result) == 2.0


def test_gradient_of_a_matrix_function_result():
    a = tf.ones([2, 2])
    b = tf.ones([2, 2])
    with tf.GradientTape() as tape:
        tape.watch([a, b])
        result = tf.reduce_sum(add(a, b * 3.0))
    ga, gb = tape.gradient(result, [a, b])
    np.testing.assert_array_equal(ga.numpy(), np.ones((2, 2), np.float32))
    np.testing.assert_array_equal(gb.numpy(), np.full((2, 2), 3.0, np.float32))


def test_dense_layer_function_inside_function_gradients():
    @tf.function
    def dense_layer(x, w, b):
        return add(tf.matmul(x, w), b)

    x, w, b = tf.ones([3, 2]), tf.Variable(tf.ones([2, 2])), tf.Variable(tf.ones([2]))
    with tf.GradientTape() as tape:
        out = dense_layer(x, w, b)
    gw, gb = tape.gradient(out, [w, b])
    np.testing.assert_array_equal(out.numpy(), np.full((3, 2), 3.0, np.float32))
    np.testing.assert_array_equal(gw.numpy(), np.full((2, 2), 3.0, np.float32))
    np.testing.assert_array_equal(gb.numpy(), np.full((2,), 3.0, np.float32))


class SGD:
    """Stands in for a Keras optimizer: creates `iterations` on its first apply_gradients."""

    def __init__(self, learning_rate):
        self.learning_rate = learning_rate
        self.iterations = None

    def apply_gradients(self, grads_and_vars):
        if self.iterations is None:
            self.iterations = tf.Variable(0)
        for g, v in grads_and_vars:
            v.assign_sub(self.learning_rate * g)
        self.iterations.assign_add(1)


def train_step(w, x, y, optimizer):
    with tf.GradientTape() as tape:
        L = tf.reduce_sum(tf.square(w * x - y))
    gradients = tape.gradient(L, [w])
    optimizer.apply_gradients(zip(gradients, [w]))


def test_training_step_updates_the_variable_with_its_gradient():
    w = tf.Variable(2.)
    x = tf.constant([-1.])
    y = tf.constant([2.])
    step = tf.function(train_step)
    step(w, x, y, SGD(learning_rate=0.1))
    # L = (w*x - y)^2 = 16 and dL/dw = 2 (w*x - y) x = 8, so w = 2 - 0.1 * 8
    np.testing.assert_allclose(w.numpy(), 1.2, rtol=1e-6)


def test_a_second_optimizer_in_the_same_function_creates_variables_and_fails():
    opt1 = SGD(learning_rate=1e-2)
    opt2 = SGD(learning_rate=1e-3)
    step = tf.function(train_step)
    w = tf.Variable(2.)
    x = tf.constant([-1.])
    y = tf.constant([2.])
    step(w, x, y, opt1)
    with pytest.raises(ValueError, match="variable"):
        step(w, x, y, opt2)


def test_one_concrete_function_per_optimizer_is_the_workaround():
    opt1 = SGD(learning_rate=1e-2)
    opt2 = SGD(learning_rate=1e-3)
    w = tf.Variable(2.)
    x = tf.constant([-1.])
    y = tf.constant([2.])
    # Make a new Function and ConcreteFunction for each optimizer.
    train_step_1 = tf.function(train_step).get_concrete_function(w, x, y, opt1)
    train_step_2 = tf.function(train_step).get_concrete_function(w, x, y, opt2)
    expected = 2.0
    for i in range(10):
        if i % 2 == 0:
            train_step_1(w, x, y)  # `opt1` is not used as a parameter.
            expected -= 1e-2 * 2 * (expected + 2.0)
        else:
            train_step_2(w, x, y)  # `opt2` is not used as a parameter.
            expected -= 1e-3 * 2 * (expected + 2.0)
    np.testing.assert_allclose(w.numpy(), expected, rtol=1e-5)
    assert int(opt1.iterations.numpy()) == 5
    assert int(opt2.iterations.numpy()) == 5


# -- the hand-written training loop: a GradientTape per step inside a staged loop ------------


def _regression_data():
    rng = np.random.RandomState(0)
    xs = rng.randn(12, 3).astype(np.float32)
    ys = (xs @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    return xs, ys


def _numpy_sgd(batches, w, b, lr):
    """The same SGD in numpy: per batch, the gradient of the mean squared error."""
    losses = []
    for x, y in batches:
        r = x @ w + b - y
        losses.append(float((r ** 2).mean()))
        w = w - lr * (x.T @ (2 * r) / r.size)
        b = b - lr * ((2 * r).sum(axis=0) / r.size)
    return w, b, losses


def test_training_loop_over_a_dataset_with_a_tape_per_batch():
    xs, ys = _regression_data()
    ds = tf.data.Dataset.from_tensor_slices((xs, ys)).batch(4)
    w = tf.Variable(np.ones((3, 1), np.float32))
    b = tf.Variable(np.zeros((1,), np.float32))

    @tf.function
    def epoch(lr):
        for x, y in ds:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((tf.matmul(x, w) + b - y) ** 2)
            gw, gb = tape.gradient(loss, [w, b])
            w.assign_sub(lr * gw)
            b.assign_sub(lr * gb)

    epoch(tf.constant(0.1))
    epoch(tf.constant(0.1))
    batches = [(xs[i:i + 4], ys[i:i + 4]) for i in range(0, 12, 4)] * 2
    want_w, want_b, _ = _numpy_sgd(batches, np.ones((3, 1), np.float32),
                                   np.zeros((1,), np.float32), np.float32(0.1))
    np.testing.assert_allclose(w.numpy(), want_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.numpy(), want_b, rtol=1e-5, atol=1e-6)
    assert epoch.experimental_get_tracing_count() == 1


def test_training_loop_over_tf_range_returns_the_last_loss_and_collects_the_losses():
    xs, ys = _regression_data()
    w = tf.Variable(np.ones((3, 1), np.float32))
    b = tf.Variable(np.zeros((1,), np.float32))

    @tf.function
    def train(steps, lr):
        losses = []
        history = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        loss = tf.constant(0.0)
        for step in tf.range(steps):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((tf.matmul(xs, w) + b - ys) ** 2)
            gw, gb = tape.gradient(loss, [w, b])
            w.assign_sub(lr * gw)
            b.assign_sub(lr * gb)
            losses.append(loss)
            history = history.write(step, loss)
        return loss, losses, history.stack()

    last, losses, history = train(tf.constant(4), tf.constant(0.05))
    want_w, want_b, want_losses = _numpy_sgd([(xs, ys)] * 4, np.ones((3, 1), np.float32),
                                             np.zeros((1,), np.float32), np.float32(0.05))
    np.testing.assert_allclose(w.numpy(), want_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(b.numpy(), want_b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(float(last), want_losses[-1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose([float(v) for v in losses], want_losses, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(history.numpy(), want_losses, rtol=1e-5, atol=1e-6)
