"""Writes this folder's fixtures of the losses a model adds to its compiled loss, and of
weighted metrics. NOT run by the test suite, and not project code: it needs real TensorFlow
2.21 with Keras 3.15 (a throwaway virtual environment), which the project never imports.
Run once, from this folder:

    /tmp/tfenv/bin/python make_keras_loss_fixtures.py

Each model starts from fixed weights (a seeded numpy generator, saved with the fixture) and
trains with `fit(..., shuffle=False)` on fixed data:

- `regularized.npz`: a Dense-Dense classifier whose layers carry kernel, bias and activity
  regularizers (L1, L2, L1L2 objects and the strings 'l1', 'l2'), 3 epochs of SGD: each
  epoch's loss and accuracy, the final weights, `evaluate`, and `model.losses` after a call.
- `add_loss.npz`: a subclassed model whose layer and whose own `call` use `add_loss`,
  3 epochs of SGD: the same records.
- `weighted_metrics.npz`: a regression MLP compiled with `metrics` and `weighted_metrics`,
  fit for 2 epochs with sample weights: every logged value per epoch, and `evaluate` as a
  dict and as a list (both with sample weights).
- `keras_dict_inputs.keras` and `keras_dict_inputs_outputs.npz`: a functional model of two
  named inputs taking a dict, trained one step and saved by Keras; its predictions on a
  fixed batch.
Each npz also holds `metrics_names` after fit.
"""

import keras
import numpy as np
from keras import ops

layers = keras.layers


def weights_like(model, rng):
    return [rng.normal(0, 0.5, size=w.shape).astype(np.float32) for w in model.get_weights()]


def records(model, x, y, epochs, **fit_kwargs):
    history = model.fit(x, y, batch_size=8, epochs=epochs, shuffle=False, verbose=0,
                        **fit_kwargs).history
    out = {"history__" + name: np.array(values) for name, values in history.items()}
    out.update({"final_%d" % i: w for i, w in enumerate(model.get_weights())})
    out["metrics_names"] = np.array(model.metrics_names)
    return out


def regularized():
    return keras.Sequential([
        keras.Input((4,)),
        layers.Dense(5, activation="relu", kernel_regularizer=keras.regularizers.L2(0.02),
                     bias_regularizer="l1",
                     activity_regularizer=keras.regularizers.L1L2(l1=0.001, l2=0.003)),
        layers.Dense(3, kernel_regularizer="l2", bias_regularizer=keras.regularizers.L1(0.05)),
    ])


def make_regularized(rng):
    x = rng.normal(size=(20, 4)).astype(np.float32)
    y = rng.integers(0, 3, size=20).astype(np.int64)
    start = weights_like(regularized(), rng)
    model = regularized()
    model.set_weights(start)
    model.compile(optimizer=keras.optimizers.SGD(0.1),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    out = {"x": x, "y": y}
    out.update({"initial_%d" % i: w for i, w in enumerate(start)})
    out.update(records(model, x, y, 3))
    out["evaluate"] = np.array(model.evaluate(x, y, batch_size=8, verbose=0))
    model(x[:6])
    out["losses_after_call"] = np.array([float(loss) for loss in model.losses])
    np.savez("regularized.npz", **out)


class ActivityPenalty(layers.Layer):
    """Adds rate * mean(inputs ** 2) to the losses; passes its inputs through."""

    def __init__(self, rate, **kwargs):
        super().__init__(**kwargs)
        self.rate = rate

    def call(self, inputs):
        self.add_loss(self.rate * ops.mean(ops.square(inputs)))
        return inputs


class PenalizedMLP(keras.Model):
    """Dense-penalty-Dense; the model adds 0.01 * sum(|outputs|) itself."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = layers.Dense(5, activation="relu")
        self.penalty = ActivityPenalty(0.1)
        self.out = layers.Dense(3)

    def call(self, inputs):
        outputs = self.out(self.penalty(self.hidden(inputs)))
        self.add_loss(0.01 * ops.sum(ops.abs(outputs)))
        return outputs


def make_add_loss(rng):
    x = rng.normal(size=(20, 4)).astype(np.float32)
    y = rng.integers(0, 3, size=20).astype(np.int64)
    model = PenalizedMLP()
    model(x[:1])
    start = weights_like(model, rng)
    model.set_weights(start)
    model.compile(optimizer=keras.optimizers.SGD(0.1),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    out = {"x": x, "y": y}
    out.update({"initial_%d" % i: w for i, w in enumerate(start)})
    out.update(records(model, x, y, 3))
    out["evaluate"] = np.array(model.evaluate(x, y, batch_size=8, verbose=0))
    model(x[:6])
    out["losses_after_call"] = np.array([float(loss) for loss in model.losses])
    np.savez("add_loss.npz", **out)


def regression():
    return keras.Sequential([keras.Input((3,)), layers.Dense(4, activation="relu"),
                             layers.Dense(1)])


def make_weighted_metrics(rng):
    x = rng.normal(size=(20, 3)).astype(np.float32)
    y = rng.normal(size=(20, 1)).astype(np.float32)
    weights = rng.uniform(0.0, 2.0, size=20).astype(np.float32)
    start = weights_like(regression(), rng)
    model = regression()
    model.set_weights(start)
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"],
                  weighted_metrics=["mae", "mse"])
    out = {"x": x, "y": y, "sample_weight": weights}
    out.update({"initial_%d" % i: w for i, w in enumerate(start)})
    out.update(records(model, x, y, 2, sample_weight=weights))
    logs = model.evaluate(x, y, batch_size=8, sample_weight=weights, verbose=0,
                          return_dict=True)
    out.update({"evaluate__" + name: np.array(value) for name, value in logs.items()})
    out["evaluate_list"] = np.array(model.evaluate(x, y, batch_size=8, sample_weight=weights,
                                                   verbose=0))
    np.savez("weighted_metrics.npz", **out)


def make_dict_inputs(rng):
    keras.utils.set_random_seed(11)
    price = keras.Input((3,), name="price")
    words = keras.Input((4,), name="words")
    hidden = layers.Concatenate(name="joined")([layers.Dense(4, activation="relu",
                                                             name="price_hidden")(price),
                                                words])
    model = keras.Model({"price": price, "words": words},
                        layers.Dense(2, name="score")(hidden))
    model.compile(optimizer="adam", loss="mse")
    batch = {"price": rng.normal(size=(8, 3)).astype(np.float32),
             "words": rng.normal(size=(8, 4)).astype(np.float32)}
    model.fit(batch, rng.normal(size=(8, 2)).astype(np.float32), batch_size=8, verbose=0)
    model.save("keras_dict_inputs.keras")
    probe = {"price": rng.normal(size=(5, 3)).astype(np.float32),
             "words": rng.normal(size=(5, 4)).astype(np.float32)}
    np.savez("keras_dict_inputs_outputs.npz", price=probe["price"], words=probe["words"],
             predictions=model.predict(probe, verbose=0))


if __name__ == "__main__":
    generator = np.random.default_rng(29)
    make_regularized(generator)
    make_add_loss(generator)
    make_weighted_metrics(generator)
    make_dict_inputs(generator)
