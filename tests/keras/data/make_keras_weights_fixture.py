"""Writes keras_mlp.weights.h5 and keras_mlp_weights.npz with real Keras 3.15 (run by hand
where TensorFlow and Keras are installed, never by the tests):

    /tmp/tfenv/bin/python make_keras_weights_fixture.py

A Dense-ReLU-Dense model compiled with Adam and trained 2 steps, then `save_weights`: the
file holds its weights and Adam's state. The npz holds an input batch, Keras's predictions
on it, and the optimizer's variables, so that tests/keras/test_saving.py checks that this
project's `load_weights` restores both."""

import keras
import numpy as np

keras.utils.set_random_seed(5)
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"),
                          keras.layers.Dense(2)])
model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
rng = np.random.default_rng(2)
model.fit(rng.normal(size=(8, 3)).astype("float32"), rng.normal(size=(8, 2)).astype("float32"),
          batch_size=4, epochs=1, verbose=0)
model.save_weights("keras_mlp.weights.h5")
x = rng.normal(size=(5, 3)).astype("float32")
np.savez("keras_mlp_weights.npz", x=x, predictions=model.predict(x, verbose=0),
         **{"optimizer_%d" % i: np.asarray(v) for i, v in enumerate(model.optimizer.variables)})
