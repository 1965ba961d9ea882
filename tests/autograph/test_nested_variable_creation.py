"""A tf.function that creates its variables on its first call, when that call happens inside
another function's trace (a Keras-like layer called from a model's tf.function): the
variables get their initial value at once (init_scope lifting), and results equal eager
execution; an initial value that depends on the inner function's arguments is refused with
an error naming the variable and its line."""

import numpy as np
import pytest

import autograph
import autograph.tf as tf


class Dense(tf.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n
        self.w = None

    @tf.function
    def __call__(self, x):
        if self.w is None:
            self.w = tf.Variable(tf.random.normal([x.shape[-1], self.n]))
        return tf.matmul(x, self.w)


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.dense = Dense(3)

    @tf.function
    def __call__(self, x):
        return self.dense(x) * 2.0


def test_a_layer_first_called_inside_a_model_trace_creates_its_weights():
    model = Model()
    x = tf.constant(np.arange(8, dtype=np.float32).reshape(2, 4))
    first = model(x).numpy()
    w = model.dense.w.numpy()
    assert w.shape == (4, 3)
    np.testing.assert_allclose(first, 2.0 * (x.numpy() @ w), rtol=1e-5)
    np.testing.assert_allclose(model(x).numpy(), first)  # the same weights, not new ones
    model.dense.w.assign(np.ones((4, 3), np.float32))
    np.testing.assert_allclose(model(x).numpy(), 2.0 * (x.numpy() @ np.ones((4, 3))))


def _inner(make_initial):
    class Inner(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = None

        @tf.function
        def __call__(self, x):
            if self.v is None:
                self.v = tf.Variable(make_initial())
            return x * self.v + 1.0
    return Inner()


class Outer(tf.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    @tf.function
    def __call__(self, x):
        return self.inner(x) * 3.0


class Outermost(tf.Module):
    def __init__(self, inner):
        super().__init__()
        self.outer = Outer(inner)

    @tf.function
    def __call__(self, x):
        return self.outer(x) - 1.0


INITIAL_VALUES = {
    "python float": lambda: 2.0,
    "numpy array": lambda: np.array([2.0, 3.0], np.float32),
    "tf.constant": lambda: tf.constant([2.0, 3.0]),
    "ops on constants": lambda: tf.fill([2], 1.5) + tf.ones([2]),
}


@pytest.mark.parametrize("make_initial", INITIAL_VALUES.values(), ids=list(INITIAL_VALUES))
@pytest.mark.parametrize("levels", [1, 2])
def test_nested_variable_creation_equals_eager_execution(make_initial, levels):
    x = tf.constant([1.0, 2.0])
    wrap = Outer if levels == 1 else Outermost
    traced = wrap(_inner(make_initial))
    autograph.run_functions_eagerly(True)
    try:
        expected = wrap(_inner(make_initial))(x).numpy()
    finally:
        autograph.run_functions_eagerly(False)
    for _ in range(2):
        np.testing.assert_allclose(traced(x).numpy(), expected)


def test_a_nested_variable_from_the_arguments_is_refused_naming_it_and_its_line():
    class FromArgument(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = None

        @tf.function
        def __call__(self, x):
            if self.v is None:
                self.v = tf.Variable(x * 2.0, name="scale")  # the line the error names
            return x * self.v

    inner = FromArgument()

    @tf.function
    def outer(x):
        return inner(x)

    with pytest.raises(ValueError) as caught:
        outer(tf.constant([1.0, 2.0]))
    message = str(caught.value)
    assert "'scale:0'" in message and "depends on the function's arguments" in message
    assert "self.v = tf.Variable(x * 2.0, name=\"scale\")" in message
    assert "test_nested_variable_creation.py:%d" % _line_of("# the line the error names") \
        in message


def test_a_variable_from_the_arguments_works_when_first_called_outside():
    class FromArgument(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = None

        @tf.function
        def __call__(self, x):
            if self.v is None:
                self.v = tf.Variable(x * 2.0)
            return x * self.v

    inner = FromArgument()

    @tf.function
    def outer(x):
        return inner(x) + 1.0

    x = tf.constant([1.0, 2.0])
    np.testing.assert_allclose(inner(x).numpy(), [2.0, 8.0])
    np.testing.assert_allclose(outer(x).numpy(), [3.0, 9.0])


def _line_of(marker):
    with open(__file__) as source:
        for number, line in enumerate(source, 1):
            if marker in line and "_line_of" not in line:
                return number
    raise AssertionError(marker)
