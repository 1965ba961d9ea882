"""The model of data/make_tf_fixture.py, written with autograph.tf: the same attributes in
the same order, so that its checkpoint should be TensorFlow's, byte for byte."""

import numpy as np

import autograph.tf as tf

DATA = __file__.rsplit("/", 1)[0] + "/data"


class Dense(tf.Module):
    def __init__(self, inputs, outputs, seed):
        super().__init__()
        values = np.arange(inputs * outputs, dtype=np.float32).reshape(inputs, outputs)
        self.kernel = tf.Variable(values / (seed + 10.0), name="kernel")
        self.bias = tf.Variable(np.full([outputs], seed, np.float32), name="bias")


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.matrix = tf.Variable([[1.5, -2.0, 3.25], [0.0, 1e-3, -7.5]], name="matrix")
        self.counts = tf.Variable(np.array([1, -2, 2**40], np.int64), name="counts")
        self.label = tf.Variable(b"hello \xff checkpoint", name="label")
        self.flag = tf.Variable(True, name="flag")
        self.steps = tf.Variable(np.int32(7), name="steps")
        self.precise = tf.Variable(np.float64(np.pi), name="precise")
        self.encoder = Dense(2, 3, seed=1)
        self.layers = [Dense(3, 2, seed=2), Dense(2, 1, seed=3)]


def zeroed(model):
    """`model` with every variable set to zero (or empty), so that a restore shows."""
    for variable in model.variables:
        if variable.dtype == tf.string:
            variable.assign(b"")
        else:
            variable.assign(tf.zeros_like(variable))
    return model
