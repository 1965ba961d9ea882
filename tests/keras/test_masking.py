"""Masks: `Embedding(mask_zero=True)` marks index 0 as padding, and inside a Sequential or
functional model the layers after it skip those steps as Keras 3.15 skips them (recurrent
layers keep their state and repeat their output, GlobalAveragePooling1D averages the real
steps only); against outputs and losses Keras computed for the same weights (fixture made by
data/make_keras_mask_fixtures.py)."""

import os
import warnings

import numpy as np
import pytest

import autograph.tf as tf

keras = tf.keras
layers = keras.layers
DATA = os.path.join(os.path.dirname(__file__), "data")
TOLERANCE = {"rtol": 1e-5, "atol": 1e-6}


@pytest.fixture(scope="module")
def data():
    with np.load(os.path.join(DATA, "masking.npz")) as fixture:
        return {key: fixture[key] for key in fixture.files}


def _sequence_model():
    return keras.Sequential([keras.Input((5,), dtype="int32"),
                             layers.Embedding(10, 4, mask_zero=True),
                             layers.LSTM(3, return_sequences=True),
                             layers.GlobalAveragePooling1D(),
                             layers.Dense(1)])


def _functional_model():
    ids = keras.Input((5,), dtype="int32")
    embedded = layers.Embedding(10, 4, mask_zero=True)(ids)
    last = layers.GRU(3)(embedded)
    pooled = layers.GlobalAveragePooling1D()(layers.SimpleRNN(2, return_sequences=True)(
        embedded))
    return keras.Model(ids, layers.Dense(2)(layers.Concatenate()([last, pooled])))


def _with_weights(model, data, name):
    model.set_weights([data["%s__initial_%d" % (name, i)]
                       for i in range(len(model.get_weights()))])
    return model


@pytest.mark.parametrize("name, make", [("sequence", _sequence_model),
                                        ("functional", _functional_model)])
def test_padding_steps_are_skipped_as_keras_skips_them(data, name, make):
    model = _with_weights(make(), data, name)
    np.testing.assert_allclose(model.predict(data["ids"], verbose=0),
                               data[name + "__outputs"], **TOLERANCE)
    traced = tf.function(lambda ids: model(ids))
    np.testing.assert_allclose(traced(tf.constant(data["ids"])).numpy(),
                               data[name + "__outputs"], **TOLERANCE)


def test_a_masked_sequence_model_trains_to_keras_losses(data):
    model = _with_weights(_sequence_model(), data, "sequence")
    model.compile(optimizer=keras.optimizers.SGD(0.1),
                  loss=keras.losses.BinaryCrossentropy(from_logits=True))
    history = model.fit(data["ids"], data["sequence__labels"], batch_size=2, epochs=2,
                        shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], data["sequence__losses"], **TOLERANCE)


def test_a_mask_passed_by_hand_gives_what_the_model_gives(data):
    model = _with_weights(_sequence_model(), data, "sequence")
    embedding, lstm, pooling, dense = model.layers
    ids = data["ids"]
    mask = embedding.compute_mask(ids)
    np.testing.assert_array_equal(mask.numpy(), ids != 0)
    steps = lstm(embedding(ids), mask=mask)
    by_hand = dense(pooling(steps, mask=mask))
    np.testing.assert_allclose(by_hand.numpy(), data["sequence__outputs"], **TOLERANCE)
    assert lstm.compute_mask(ids, mask) is mask and pooling.compute_mask(steps, mask) is None


def test_a_layer_without_masking_drops_the_mask_with_keras_warning_and_merges_refuse_it():
    with pytest.warns(UserWarning, match="does not support masking and will therefore "
                                         "destroy the mask"):
        model = keras.Sequential([keras.Input((3,), dtype="int32"),
                                  layers.Embedding(5, 2, mask_zero=True), layers.Flatten()])
        model(np.array([[1, 0, 2]], np.int32))
    ids = keras.Input((3,), dtype="int32")
    embedded = layers.Embedding(5, 2, mask_zero=True)(ids)
    merged = keras.Model(ids, layers.Add()([embedded, embedded]))
    with warnings.catch_warnings(), pytest.raises(NotImplementedError,
                                                  match="masks through merging layers"):
        merged(np.array([[1, 0, 2]], np.int32))


def test_a_mask_zero_embedding_is_saved_and_loaded(tmp_path, data):
    model = _with_weights(_sequence_model(), data, "sequence")
    model.save(tmp_path / "m.keras")
    restored = keras.models.load_model(tmp_path / "m.keras")
    assert restored.layers[0].mask_zero
    np.testing.assert_allclose(restored.predict(data["ids"], verbose=0),
                               data["sequence__outputs"], **TOLERANCE)
