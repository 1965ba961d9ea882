"""Saving Keras models: save_weights/load_weights in Keras 3's `.weights.h5` file (against a
file Keras 3.15 wrote: data/make_keras_weights_fixture.py) and Keras 3's errors for other
names, models held by tf.train.Checkpoint (a TensorFlow checkpoint of a model) and by a
SavedModel (whole models in .keras files: test_keras_files.py)."""

import os
import re

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
    first, second = a.get_weights(), b.get_weights()
    return len(first) == len(second) and all(
        np.array_equal(x, y) for x, y in zip(first, second))


@pytest.mark.parametrize("make", [_sequential, _functional])
def test_a_tf_train_checkpoint_restores_a_model_into_a_fresh_one(tmp_path, make):
    model = make()
    model.compile(optimizer="adam", loss="mse")
    model.fit(np.ones((4, 3)), np.ones((4, 2)), epochs=2, verbose=0)
    prefix = tf.train.Checkpoint(model=model).write(str(tmp_path / "weights"))
    fresh = make()
    assert not _same_weights(model, fresh)
    tf.train.Checkpoint(model=fresh).read(prefix).expect_partial()
    assert _same_weights(model, fresh)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(fresh.predict(x, verbose=0), model.predict(x, verbose=0))


def test_save_weights_refuses_a_name_not_ending_in_weights_h5_as_keras_3_does(tmp_path):
    model = _functional()
    for name in ("ckpt", "m.h5", "m.keras"):
        with pytest.raises(ValueError, match=r"^The filename must end in `\.weights\.h5`\. "
                                             r"Received: filepath=.*%s$" % re.escape(name)):
            model.save_weights(str(tmp_path / name))
    assert not list(tmp_path.iterdir())  # nothing written


def test_load_weights_refuses_a_tensorflow_checkpoint_prefix_as_keras_3_does(tmp_path):
    model = _functional()
    prefix = tf.train.Checkpoint(model=model).write(str(tmp_path / "ckpt"))
    with pytest.raises(ValueError, match=r"^File format not supported: filepath=.*ckpt\. "
                                         r"Keras 3 only supports V3 `\.keras` files"):
        model.load_weights(prefix)
    with pytest.raises(ValueError, match="load the whole model with"):
        model.load_weights(str(tmp_path / "m.keras"))


def test_an_unbuilt_model_can_not_save_or_load_weights(tmp_path):
    unbuilt = keras.Sequential([keras.layers.Dense(2)])
    with pytest.raises(ValueError, match="Build it first"):
        unbuilt.save_weights(str(tmp_path / "w.weights.h5"))
    with pytest.raises(ValueError, match="Build it first"):
        unbuilt.load_weights(str(tmp_path / "w.weights.h5"))


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
    assert not _same_weights(model, fresh)
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


def _tampered_weights_file(tmp_path, tamper):
    """A .weights.h5 file of `_sequential()` with `tamper(store, first_group)` applied."""
    h5py = pytest.importorskip("h5py")
    model = _sequential()
    path = str(tmp_path / "model.weights.h5")
    model.save_weights(path)
    with h5py.File(path, "r+") as store:
        groups = []
        store.visititems(lambda name, obj: groups.append(name)
                         if isinstance(obj, h5py.Dataset) else None)
        dataset_path = groups[0]
        parent, key = dataset_path.rsplit("/", 1)
        tamper(store[parent], key, h5py)
    return model, path


def test_weights_kept_in_another_file_are_refused_without_reading_it(tmp_path):
    secret = tmp_path / "secret.bin"
    secret.write_bytes(b"\x7f" * 4096)

    def external(group, key, h5py):
        shape, dtype = group[key].shape, group[key].dtype
        del group[key]
        group.create_dataset(key, shape=shape, dtype=dtype,
                             external=[(str(secret), 0, 4096)])

    model, path = _tampered_weights_file(tmp_path, external)
    before = model.get_weights()
    with pytest.raises(ValueError, match="keeps its data outside the file"):
        model.load_weights(path)
    assert all(np.array_equal(a, b) for a, b in zip(before, model.get_weights()))


@pytest.mark.parametrize("link", ["external", "soft"])
def test_links_in_a_weights_file_are_refused_before_they_are_followed(tmp_path, link):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)  # an external link to it would block the loader forever

    def linked(group, key, h5py):
        del group[key]
        group[key] = (h5py.ExternalLink(str(fifo), "/data") if link == "external"
                      else h5py.SoftLink("/elsewhere"))

    model, path = _tampered_weights_file(tmp_path, linked)
    with pytest.raises(ValueError, match="Link, which is not read"):
        model.load_weights(path)
