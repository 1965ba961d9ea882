"""Each layer, given the weights and input real Keras 3.15 was given, computes Keras's
output (fixtures made by data/make_keras_fixtures.py): convolutions with strides, padding
and dilation, pooling, embeddings, normalizations (batch statistics and moving ones), and
the recurrent layers (forwards and backwards, GRU with the reset gate before and after)."""

import os

import numpy as np
import pytest

import autograph.tf as tf

keras = tf.keras

# the layers of make_keras_fixtures.py's LAYERS: (make the layer, call with training=True)
LAYERS = {
    "dense_relu": (lambda: keras.layers.Dense(3, activation="relu"), False),
    "conv1d_same_strided": (lambda: keras.layers.Conv1D(3, 3, strides=2, padding="same"),
                            False),
    "conv1d_dilated": (lambda: keras.layers.Conv1D(2, 2, dilation_rate=2, activation="tanh"),
                       False),
    "conv2d_same_strided": (lambda: keras.layers.Conv2D(2, (3, 2), strides=(2, 1),
                                                        padding="same"), False),
    "conv2d_dilated": (lambda: keras.layers.Conv2D(2, 2, dilation_rate=2), False),
    "max_pooling2d_same": (lambda: keras.layers.MaxPooling2D(2, padding="same"), False),
    "average_pooling2d_strided": (lambda: keras.layers.AveragePooling2D(3, strides=2), False),
    "global_average_pooling2d": (lambda: keras.layers.GlobalAveragePooling2D(), False),
    "embedding": (lambda: keras.layers.Embedding(10, 4), False),
    "batch_normalization_training": (lambda: keras.layers.BatchNormalization(), True),
    "batch_normalization_inference": (lambda: keras.layers.BatchNormalization(), False),
    "layer_normalization": (lambda: keras.layers.LayerNormalization(), False),
    "simple_rnn_sequences": (lambda: keras.layers.SimpleRNN(3, return_sequences=True), False),
    "lstm": (lambda: keras.layers.LSTM(3), False),
    "lstm_backwards_sequences": (lambda: keras.layers.LSTM(2, return_sequences=True,
                                                           go_backwards=True), False),
    "gru": (lambda: keras.layers.GRU(3), False),
    "gru_reset_before": (lambda: keras.layers.GRU(2, reset_after=False,
                                                  return_sequences=True), False),
}


@pytest.fixture(scope="module")
def fixture():
    with np.load(os.path.join(os.path.dirname(__file__), "data", "layers.npz")) as data:
        return {key: data[key] for key in data.files}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_the_layer_computes_keras_output_for_the_same_weights(fixture, name):
    make, training = LAYERS[name]
    x = fixture[name + "__x"]
    layer = make()
    layer.build(tf.TensorShape(x.shape))
    count = sum(1 for key in fixture if key.startswith(name + "__weight_"))
    layer.set_weights([fixture["%s__weight_%d" % (name, i)] for i in range(count)])
    y = layer(x, training=True) if training else layer(x)
    np.testing.assert_allclose(y.numpy(), fixture[name + "__y"], rtol=1e-5, atol=1e-6)
    if training:  # the moving statistics moved as Keras's did
        for i, weight in enumerate(layer.get_weights()):
            np.testing.assert_allclose(weight, fixture["%s__after_%d" % (name, i)],
                                       rtol=1e-5, atol=1e-6)
