"""Saving Keras models: save_weights/load_weights as a TensorFlow checkpoint or as Keras 3's
`.weights.h5` file (against a file Keras 3.15 wrote: data/make_keras_weights_fixture.py),
models held by tf.train.Checkpoint, and a clear error for other HDF5 names (whole models in
.keras files: test_keras_files.py)."""

import os

import numpy as np
import pytest

import autograph.tf as tf

keras = tf.keras
DATA = os.path.join(os.path.dirname(__file__), "data")


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


def test_weights_in_other_hdf5_or_keras_names_are_a_clear_error(tmp_path):
    model = _functional()
    for name in ("m.h5", "m.keras"):
        with pytest.raises(ValueError, match="'<name>.weights.h5' or to a TensorFlow "
                                             "checkpoint prefix"):
            model.save_weights(str(tmp_path / name))
    assert not list(tmp_path.iterdir())  # nothing half-written


def _keras_mlp():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"),
                              keras.layers.Dense(2)])
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    return model


def test_a_weights_file_written_by_keras_restores_the_weights_and_adams_state():
    data = np.load(os.path.join(DATA, "keras_mlp_weights.npz"))
    model = _keras_mlp()
    model.optimizer.build(model.trainable_variables)
    model.load_weights(os.path.join(DATA, "keras_mlp.weights.h5"))
    np.testing.assert_allclose(model.predict(data["x"], verbose=0), data["predictions"],
                               rtol=1e-6, atol=1e-6)
    for i, variable in enumerate(model.optimizer.variables):
        np.testing.assert_array_equal(variable.numpy(), data["optimizer_%d" % i])


def test_a_weights_file_round_trips_and_is_refused_when_it_does_not_fit(tmp_path):
    model = _keras_mlp()
    model.fit(np.ones((4, 3), np.float32), np.ones((4, 2), np.float32), verbose=0)
    path = str(tmp_path / "m.weights.h5")
    model.save_weights(path)
    assert sorted(os.listdir(tmp_path)) == ["m.weights.h5"]
    other = _keras_mlp()
    other.optimizer.build(other.trainable_variables)
    other.load_weights(path)
    for mine, theirs in zip(other.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(mine, theirs)
    assert int(other.optimizer.iterations.numpy()) == 1
    with pytest.raises(FileExistsError, match="overwrite=False"):
        model.save_weights(path, overwrite=False)
    wider = keras.Sequential([keras.Input((3,)), keras.layers.Dense(5), keras.layers.Dense(2)])
    with pytest.raises(ValueError):
        wider.load_weights(path)
    (tmp_path / "text.weights.h5").write_text("not hdf5")
    with pytest.raises(ValueError, match="is not an HDF5 file"):
        other.load_weights(str(tmp_path / "text.weights.h5"))
    with pytest.raises(FileNotFoundError, match="No such file"):
        other.load_weights(str(tmp_path / "missing.weights.h5"))


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
