"""The guide's functions that a saved model can hold, as the source of a module that the
round-trip test writes to a temporary file, imports, saves and then deletes, and the calls
made on each (in the saving process, and on the loaded model in a fresh one).

MODELS maps a model name to (the module attribute saved, [call, ...]); a call is
(path, args, kwargs) as tests/saved_model/runner.py reads them. SIGNATURES names the method
saved as the serving signature of a model with several functions."""

SOURCE = '''
import numpy as np

import autograph.tf as tf


@tf.function
def add(a, b):
    return a + b


@tf.function
def dense_layer(x, w, b):
    return add(tf.matmul(x, w), b)


@tf.function
def double(a):
    return a + a


@tf.function
def simple_loop(x):
    while tf.reduce_sum(x) > 1:
        tf.print(x)
        x = tf.tanh(x)
    return x


@tf.function
def fizzbuzz(n):
    for i in tf.range(1, n + 1):
        if i % 15 == 0:
            tf.print("FizzBuzz")
        elif i % 3 == 0:
            tf.print("Fizz")
        elif i % 5 == 0:
            tf.print("Buzz")
        else:
            tf.print(i)


@tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
def next_collatz(x):
    return tf.where(x % 2 == 0, x // 2, 3 * x + 1)


@tf.function
def sum_even(items):
    s = 0
    for c in items:
        if c % 2 > 0:
            continue
        s += c
    return s


def rnn_step(inp, state):
    return tf.tanh(inp + state)


@tf.function
def dynamic_rnn(input_data, initial_state):
    input_data = tf.transpose(input_data, [1, 0, 2])
    max_seq_len = input_data.shape[0]
    states = tf.TensorArray(tf.float32, size=max_seq_len)
    state = initial_state
    for i in tf.range(max_seq_len):
        state = rnn_step(input_data[i], state)
        states = states.write(i, state)
    return tf.transpose(states.stack(), [1, 0, 2])


class Count(tf.Module):
    def __init__(self):
        super().__init__()
        self.count = tf.Variable(0)

    @tf.function(input_signature=[])
    def __call__(self):
        self.count.assign_add(1)
        return self.count.read_value()


count = Count()

xs = np.random.RandomState(0).randn(12, 3).astype(np.float32)
ys = (xs @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)


class Regression(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(np.ones((3, 1), np.float32))
        self.b = tf.Variable(np.zeros((1,), np.float32))

    @tf.function
    def train(self, steps, lr):
        history = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        loss = tf.constant(0.0)
        for step in tf.range(steps):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((tf.matmul(xs, self.w) + self.b - ys) ** 2)
            gw, gb = tape.gradient(loss, [self.w, self.b])
            self.w.assign_sub(lr * gw)
            self.b.assign_sub(lr * gb)
            history = history.write(step, loss)
        return loss, history.stack()

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def predict(self, x):
        return {"y": tf.matmul(x, self.w) + self.b, "mean": tf.reduce_mean(x)}


regression = Regression()


@tf.function
def noisy(x):
    return x + tf.random.uniform([3], seed=7)


@tf.function
def checked_sqrt(x):
    tf.debugging.assert_equal(tf.reduce_all(x >= 0.0), True, message="negative input")
    return tf.sqrt(x)


@tf.function
def words(n):
    return tf.constant(["a", "bc"]) + tf.constant("!"), n * 2
'''


def _t(values, dtype="float32"):
    return {"tensor": values, "dtype": dtype}


MODELS = {
    "add": ("add", [([], [_t([[1.0, 1.0], [1.0, 1.0]]), _t([[1.0, 1.0], [1.0, 1.0]])], {}),
                    ([], [1.5, 2], {}), ([], [_t([1, 2], "int32"), _t([3, 4], "int32")], {})]),
    "dense_layer": ("dense_layer", [([], [_t([[1.0, 2.0]]), _t([[1.0, 0.0, 2.0],
                                                             [0.5, 1.0, -1.0]]),
                                          _t([0.1, 0.2, 0.3])], {})]),
    "double": ("double", [([], [_t(1, "int32")], {}), ([], [_t(1.1)], {}),
                          ([], [_t("a", "string")], {})]),
    "simple_loop": ("simple_loop", [([], [_t([0.9, 0.8, 0.7])], {})]),
    "fizzbuzz": ("fizzbuzz", [([], [_t(15, "int32")], {})]),
    "next_collatz": ("next_collatz", [([], [_t([1, 2, 3, 4, 5, 27], "int32")], {}),
                                      (["signatures", "serving_default"], [],
                                       {"x": _t([6, 7], "int32")})]),
    "sum_even": ("sum_even", [([], [_t([10, 12, 15, 20], "int32")], {})]),
    "dynamic_rnn": ("dynamic_rnn", [([], [_t([[[0.1, 0.2], [0.3, 0.4]]]), _t([[0.0, 0.5]])],
                                     {})]),
    "count": ("count", [([], [], {}), ([], [], {}), (["assign", "count"], [_t(10, "int32")], {}),
                        ([], [], {})]),
    "regression": ("regression", [(["train"], [_t(3, "int32"), _t(0.05)], {}),
                                  (["predict"], [_t([[1.0, 2.0, 3.0]])], {}),
                                  (["train"], [_t(2, "int32"), _t(0.05)], {}),
                                  (["signatures", "serving_default"], [],
                                   {"x": _t([[0.0, 1.0, 0.0]])})]),
    "noisy": ("noisy", [([], [_t([1.0, 2.0, 3.0])], {}), ([], [_t([1.0, 2.0, 3.0])], {})]),
    "checked_sqrt": ("checked_sqrt", [([], [_t([4.0, 9.0])], {}), ([], [_t([-4.0, 9.0])], {})]),
    "words": ("words", [([], [_t(3, "int32")], {})]),
}

SIGNATURES = {"regression": "predict"}
