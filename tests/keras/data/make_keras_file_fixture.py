"""Writes keras_sequential.keras, keras_recurrent.keras and their *_outputs.npz with real
Keras 3 (run
with a TensorFlow + Keras environment, never by the tests):

    /tmp/tfenv/bin/python tests/keras/data/make_keras_file_fixture.py

A small compiled Sequential model (Dense, BatchNormalization, Dense) trained one step with
Adam, saved with model.save; the npz holds an input batch and Keras's predictions on it,
so that tests/keras/test_keras_files.py checks that this project loads the file and
predicts the same. keras_recurrent.keras: a functional model of Embedding, LSTM, GRU,
SimpleRNN (their weights in Keras's `cell` groups), Concatenate, LayerNormalization, Conv1D."""

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

layers = keras.layers
tokens = keras.Input((6,), dtype="int32")
embedded = layers.Embedding(10, 4)(tokens)
merged = layers.Concatenate()([layers.LSTM(3)(embedded), layers.GRU(3)(embedded),
                               layers.SimpleRNN(3)(embedded),
                               layers.Flatten()(layers.Conv1D(2, 3)(embedded))])
recurrent = keras.Model(tokens, layers.Dense(2, activation="softmax")(
    layers.LayerNormalization()(merged)))
recurrent.save(os.path.join(here, "keras_recurrent.keras"))
ids = rng.integers(0, 10, size=(4, 6)).astype("int32")
np.savez(os.path.join(here, "keras_recurrent_outputs.npz"), x=ids,
         predictions=recurrent.predict(ids, verbose=0))
