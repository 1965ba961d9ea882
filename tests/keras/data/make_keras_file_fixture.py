"""Writes keras_sequential.keras and keras_sequential_outputs.npz with real Keras 3 (run
with a TensorFlow + Keras environment, never by the tests):

    /tmp/tfenv/bin/python tests/keras/data/make_keras_file_fixture.py

A small compiled Sequential model (Dense, BatchNormalization, Dense) trained one step with
Adam, saved with model.save; the npz holds an input batch and Keras's predictions on it,
so that tests/keras/test_keras_files.py checks that this project loads the file and
predicts the same."""

import os

import keras
import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
keras.utils.set_random_seed(7)
model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"),
                          keras.layers.BatchNormalization(), keras.layers.Dense(2)])
model.compile(optimizer="adam", loss="mse", metrics=["mae"])
rng = np.random.default_rng(0)
model.fit(rng.normal(size=(8, 3)).astype("float32"), rng.normal(size=(8, 2)).astype("float32"),
          batch_size=8, epochs=1, verbose=0)
model.save(os.path.join(here, "keras_sequential.keras"))
x = rng.normal(size=(5, 3)).astype("float32")
np.savez(os.path.join(here, "keras_sequential_outputs.npz"), x=x,
         predictions=model.predict(x, verbose=0))
