"""Saving Keras models: save_weights/load_weights as a TensorFlow checkpoint, models held
by tf.train.Checkpoint, and a clear error for weights in HDF5 files (whole models in
.keras files: test_keras_files.py)."""

import numpy as np
import pytest

import autograph.tf as tf

keras = tf.keras


def _sequential():
    return keras.Sequential([keras.Input((3,)), keras.layers.Dense(4),
                             keras.layers.BatchNormalization(), keras.layers.Dense(2)])


def _functional():
    x = keras.Input((3,))
    return keras.Model(x, keras.layers.Dense(2)(keras.layers.Dense(4)(x)))


def _same_weights(a, b):
    return all(np.array_equal(x, y) for x, y in zip(a.get_weights(), b.get_weights()))


@pytest.mark.parametrize("make", [_sequential, _functional])
def test_load_weights_restores_save_weights_into_a_fresh_model(tmp_path, make):
    model = make()
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((4, 3)), np.ones((4, 2)), epochs=2, verbose=0)
    prefix = str(tmp_path / "weights")
    model.save_weights(prefix)
    names = [name for name, _ in tf.train.list_variables(prefix)]
    assert "layers/0/0/.ATTRIBUTES/VARIABLE_VALUE" in names  # the first Dense's kernel
    fresh = make()
    assert not _same_weights(model, fresh)
    fresh.load_weights(prefix)
    assert _same_weights(model, fresh)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(fresh.predict(x, verbose=0), model.predict(x, verbose=0))


def test_weights_of_another_architecture_are_refused_before_any_is_assigned(tmp_path):
    prefix = str(tmp_path / "weights")
    _sequential().save_weights(prefix)
    other = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4),
                              keras.layers.Dense(2)])
    before = other.get_weights()
    with pytest.raises(ValueError, match="the file holds 8 weights, the model has 4"):
        other.load_weights(prefix)
    wider = keras.Sequential([keras.Input((3,)), keras.layers.Dense(5),
                              keras.layers.BatchNormalization(), keras.layers.Dense(2)])
    with pytest.raises(ValueError, match=r"has shape \(3, 5\) in the model but \(3, 4\)"):
        wider.load_weights(prefix)
    assert all(np.array_equal(a, b) for a, b in zip(other.get_weights(), before))


def test_an_unbuilt_model_can_not_save_or_load_weights(tmp_path):
    unbuilt = keras.Sequential([keras.layers.Dense(2)])
    with pytest.raises(ValueError, match="Build it first"):
        unbuilt.save_weights(str(tmp_path / "w"))
    with pytest.raises(ValueError, match="Build it first"):
        unbuilt.load_weights(str(tmp_path / "w"))


def test_weights_in_hdf5_files_are_a_clear_error(tmp_path):
    model = _functional()
    with pytest.raises(ValueError, match="HDF5 and .keras files are not supported"):
        model.save_weights(str(tmp_path / "m.weights.h5"))
    assert not list(tmp_path.iterdir())  # nothing half-written


def test_a_model_inside_a_tf_train_checkpoint_round_trips(tmp_path):
    model = _sequential()
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((4, 3)), np.ones((4, 2)), epochs=1, verbose=0)
    path = tf.train.Checkpoint(model=model).write(str(tmp_path / "ckpt"))
    fresh = _sequential()
    fresh.compile(optimizer="adam", loss="mse")
    tf.train.Checkpoint(model=fresh).read(path).expect_partial()
    assert _same_weights(model, fresh)


def test_a_model_inside_a_saved_model_serves_the_same_outputs(tmp_path):
    model = _functional()

    class Export(tf.Module):
        def __init__(self):
            super().__init__()
            self.model = model

        @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
        def serve(self, x):
            return self.model(x)

    tf.saved_model.save(Export(), str(tmp_path / "exported"))
    loaded = tf.saved_model.load(str(tmp_path / "exported"))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(loaded.serve(x).numpy(), model(x).numpy(), rtol=1e-6)
