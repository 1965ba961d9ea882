"""Writes this folder's Keras fixtures. NOT run by the test suite, and not project code: it
needs real TensorFlow 2.21 with Keras 3.15 (a throwaway virtual environment), which the
project never imports. Run once, from this folder:

    /tmp/tfenv/bin/python make_keras_fixtures.py

Each model starts from fixed weights (made here from a seeded numpy generator, saved with
the fixture) and trains with `fit(..., shuffle=False)` on fixed data, so that the project's
Keras, given the same weights and data, must reproduce every number:

- `mlp_optimizers.npz`: a Dense-ReLU-Dense classifier trained for 3 epochs (batch 8) once
  per optimizer setting in OPTIMIZERS (sparse categorical cross-entropy from logits,
  accuracy): each epoch's loss and accuracy, the final weights, and `evaluate`/`predict`.
- `cnn.npz`: Conv2D-MaxPooling2D-Flatten-Dense trained for 3 epochs with Adam, and
  `validation_split=0.25`: the epoch losses, validation losses and final weights.
- `functional.npz`: a two-input, two-output functional model (Concatenate, per-output
  losses with loss_weights) trained for 2 epochs with SGD: every logged value per epoch.
- `layers.npz`: each layer of LAYERS with random weights, called on a random input (with
  `training=True` where it matters): the weights, the input and the output, and for
  BatchNormalization in training the moving statistics after the call.
"""

import keras
import numpy as np

OPTIMIZERS = {
    "sgd": lambda: keras.optimizers.SGD(0.1),
    "sgd_nesterov": lambda: keras.optimizers.SGD(0.05, momentum=0.9, nesterov=True),
    "sgd_clipnorm": lambda: keras.optimizers.SGD(0.5, clipnorm=0.1),
    "adam": lambda: keras.optimizers.Adam(0.01),
    "adam_amsgrad_decay": lambda: keras.optimizers.Adam(
        keras.optimizers.schedules.ExponentialDecay(0.02, decay_steps=3, decay_rate=0.5),
        amsgrad=True),
    "adamw": lambda: keras.optimizers.AdamW(0.01, weight_decay=0.1),
    "rmsprop": lambda: keras.optimizers.RMSprop(0.01),
    "rmsprop_centered_momentum": lambda: keras.optimizers.RMSprop(
        0.01, rho=0.8, momentum=0.5, centered=True),
    "adagrad": lambda: keras.optimizers.Adagrad(0.1),
}


# name -> (make the layer, input shape, input kind, call with training=True)
LAYERS = {
    "dense_relu": (lambda: keras.layers.Dense(3, activation="relu"), (4, 5), "float", False),
    "conv1d_same_strided": (lambda: keras.layers.Conv1D(3, 3, strides=2, padding="same"),
                            (2, 7, 2), "float", False),
    "conv1d_dilated": (lambda: keras.layers.Conv1D(2, 2, dilation_rate=2, activation="tanh"),
                       (2, 7, 3), "float", False),
    "conv2d_same_strided": (lambda: keras.layers.Conv2D(2, (3, 2), strides=(2, 1),
                                                        padding="same"),
                            (2, 5, 6, 3), "float", False),
    "conv2d_dilated": (lambda: keras.layers.Conv2D(2, 2, dilation_rate=2), (1, 6, 6, 2),
                       "float", False),
    "max_pooling2d_same": (lambda: keras.layers.MaxPooling2D(2, padding="same"),
                           (2, 5, 5, 2), "float", False),
    "average_pooling2d_strided": (lambda: keras.layers.AveragePooling2D(3, strides=2),
                                  (2, 7, 7, 1), "float", False),
    "global_average_pooling2d": (lambda: keras.layers.GlobalAveragePooling2D(),
                                 (2, 3, 4, 5), "float", False),
    "embedding": (lambda: keras.layers.Embedding(10, 4), (3, 5), "int", False),
    "batch_normalization_training": (lambda: keras.layers.BatchNormalization(),
                                     (6, 4), "float", True),
    "batch_normalization_inference": (lambda: keras.layers.BatchNormalization(),
                                      (6, 4), "float", False),
    "layer_normalization": (lambda: keras.layers.LayerNormalization(), (3, 2, 5), "float",
                            False),
    "simple_rnn_sequences": (lambda: keras.layers.SimpleRNN(3, return_sequences=True),
                             (2, 4, 3), "float", False),
    "lstm": (lambda: keras.layers.LSTM(3), (2, 5, 2), "float", False),
    "lstm_backwards_sequences": (lambda: keras.layers.LSTM(2, return_sequences=True,
                                                           go_backwards=True),
                                 (2, 4, 3), "float", False),
    "gru": (lambda: keras.layers.GRU(3), (2, 5, 2), "float", False),
    "gru_reset_before": (lambda: keras.layers.GRU(2, reset_after=False,
                                                  return_sequences=True),
                         (2, 4, 3), "float", False),
}


def make_layers(rng):
    out = {}
    for name, (make, shape, kind, training) in LAYERS.items():
        if kind == "int":
            x = rng.integers(0, 10, size=shape).astype(np.int32)
        else:
            x = rng.normal(size=shape).astype(np.float32)
        layer = make()
        layer.build(shape)
        weights = [rng.normal(0, 0.5, size=w.shape).astype(np.float32)
                   for w in layer.get_weights()]
        if name.startswith("batch_normalization"):
            weights[3] = np.abs(weights[3]) + 0.5  # a moving variance is positive
        layer.set_weights(weights)
        y = layer(x, training=True) if training else layer(x)
        out[name + "__x"] = x
        out[name + "__y"] = np.asarray(y)
        for i, w in enumerate(weights):
            out["%s__weight_%d" % (name, i)] = w
        if training:
            for i, w in enumerate(layer.get_weights()):
                out["%s__after_%d" % (name, i)] = w
    np.savez("layers.npz", **out)


def weights_like(model, rng):
    return [rng.normal(0, 0.5, size=w.shape).astype(np.float32) for w in model.get_weights()]


def mlp():
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                             keras.layers.Dense(3)])


def make_mlp_optimizers(rng):
    x = rng.normal(size=(20, 4)).astype(np.float32)
    y = rng.integers(0, 3, size=20).astype(np.int64)
    start = weights_like(mlp(), rng)
    out = {"x": x, "y": y}
    out.update({"initial_%d" % i: w for i, w in enumerate(start)})
    for name, make in OPTIMIZERS.items():
        model = mlp()
        model.set_weights(start)
        model.compile(optimizer=make(),
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      metrics=["accuracy"])
        history = model.fit(x, y, batch_size=8, epochs=3, shuffle=False, verbose=0).history
        out[name + "__loss"] = np.array(history["loss"])
        out[name + "__accuracy"] = np.array(history["accuracy"])
        for i, w in enumerate(model.get_weights()):
            out["%s__final_%d" % (name, i)] = w
        out[name + "__evaluate"] = np.array(model.evaluate(x, y, batch_size=8, verbose=0))
        out[name + "__predict"] = model.predict(x, batch_size=8, verbose=0)
    np.savez("mlp_optimizers.npz", **out)


def cnn():
    return keras.Sequential([keras.Input((6, 6, 1)),
                             keras.layers.Conv2D(3, 3, activation="relu"),
                             keras.layers.MaxPooling2D(2), keras.layers.Flatten(),
                             keras.layers.Dense(2)])


def make_cnn(rng):
    x = rng.normal(size=(16, 6, 6, 1)).astype(np.float32)
    y = rng.integers(0, 2, size=16).astype(np.int64)
    start = weights_like(cnn(), rng)
    model = cnn()
    model.set_weights(start)
    model.compile(optimizer=keras.optimizers.Adam(0.01),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(x, y, batch_size=4, epochs=3, shuffle=False, verbose=0,
                        validation_split=0.25).history
    out = {"x": x, "y": y, "loss": np.array(history["loss"]),
           "val_loss": np.array(history["val_loss"])}
    out.update({"initial_%d" % i: w for i, w in enumerate(start)})
    out.update({"final_%d" % i: w for i, w in enumerate(model.get_weights())})
    np.savez("cnn.npz", **out)


def functional():
    a = keras.Input((3,), name="a")
    b = keras.Input((2,), name="b")
    hidden = keras.layers.Dense(4, activation="tanh", name="hidden")(a)
    joined = keras.layers.Concatenate(name="joined")([hidden, b])
    classes = keras.layers.Dense(3, name="classes")(joined)
    value = keras.layers.Dense(1, name="value")(hidden)
    return keras.Model([a, b], [classes, value])


def make_functional(rng):
    xa = rng.normal(size=(12, 3)).astype(np.float32)
    xb = rng.normal(size=(12, 2)).astype(np.float32)
    labels = rng.integers(0, 3, size=12).astype(np.int64)
    values = rng.normal(size=(12, 1)).astype(np.float32)
    start = weights_like(functional(), rng)
    model = functional()
    model.set_weights(start)
    model.compile(optimizer=keras.optimizers.SGD(0.1),
                  loss=[keras.losses.SparseCategoricalCrossentropy(from_logits=True), "mse"],
                  loss_weights=[1.0, 0.5], metrics=[["accuracy"], ["mae"]])
    history = model.fit([xa, xb], [labels, values], batch_size=5, epochs=2, shuffle=False,
                        verbose=0).history
    out = {"xa": xa, "xb": xb, "labels": labels, "values": values}
    out.update({"initial_%d" % i: w for i, w in enumerate(start)})
    out.update({"final_%d" % i: w for i, w in enumerate(model.get_weights())})
    out.update({"history__" + name: np.array(v) for name, v in history.items()})
    np.savez("functional.npz", **out)


if __name__ == "__main__":
    rng = np.random.default_rng(23)
    make_mlp_optimizers(rng)
    make_cnn(rng)
    make_functional(rng)
    make_layers(rng)
