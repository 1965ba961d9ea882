"""A Python loop over layers or functions is the model's structure: however many ops it
adds, it does not warn (no tf.range could replace it); a loop over numbers still does."""

import warnings

import pytest

import autograph
import autograph.tf as tf


def _layers(n):
    def make(k):
        def layer(x):
            return tf.tanh(x * float(k) + 1.0)
        return layer
    return [make(k) for k in range(n)]


def test_a_loop_over_many_layers_does_not_warn():
    layers = _layers(400)  # 400 layers of a few ops each: well over UNROLL_LIMIT ops

    @tf.function
    def model(x):
        for layer in layers:
            x = layer(x)
        return x

    @tf.function
    def numbered(x):
        for i, layer in enumerate(layers):
            x = layer(x) + float(i)
        return x

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model(tf.ones([2]))
        numbered(tf.ones([2]))
    assert len(model.get_concrete_function(tf.ones([2])).graph.nodes) > 1000


def test_a_loop_over_numbers_of_the_same_size_warns():
    scales = [float(k) for k in range(400)]

    @tf.function
    def model(x):
        for scale in scales:
            x = tf.tanh(x * scale + 1.0)
        return x

    with pytest.warns(autograph.UnrollingWarning, match="400 iterations"):
        model(tf.ones([2]))
