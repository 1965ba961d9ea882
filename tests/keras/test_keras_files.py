"""Whole models in Keras 3's .keras files: model.save / tf.keras.models.load_model round
trips (Sequential, functional, registered subclassed models, compile state), a file
written by Keras 3.15 (data/make_keras_file_fixture.py), the layout Keras reads, and
clear errors for files that are not ones or that would run code."""

import io
import json
import os
import sys
import zipfile

import numpy as np
import pytest

import autograph.tf as tf

h5py = pytest.importorskip("h5py")
keras = tf.keras
DATA = os.path.join(os.path.dirname(__file__), "data")
X = np.linspace(-1.0, 1.0, 15, dtype=np.float32).reshape(5, 3)


def _sequential():
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"),
                              keras.layers.BatchNormalization(), keras.layers.Dense(2)])
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    model.fit(X, np.ones((5, 2), np.float32), epochs=2, verbose=0)
    return model


def _functional():
    x = keras.Input((3,), name="features")
    h = keras.layers.Dense(4, activation="tanh")(x)
    added = keras.layers.Add()([h, keras.layers.Dense(4)(x)])
    return keras.Model(x, keras.layers.Dense(1)(added), name="residual")


@tf.keras.saving.register_keras_serializable(package="Tests")
class TwoDense(keras.Model):
    """A subclassed model with a config."""

    def __init__(self, units=3, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.first = keras.layers.Dense(units, activation="relu")
        self.second = keras.layers.Dense(1)

    def call(self, x):
        return self.second(self.first(x))

    def get_config(self):
        return dict(super().get_config(), units=self.units)


def _members(path):
    with zipfile.ZipFile(path) as archive:
        config = json.loads(archive.read("config.json"))
        store = h5py.File(io.BytesIO(archive.read("model.weights.h5")), "r")
        names = []
        store.visititems(lambda name, obj: names.append(name))
        return archive.namelist(), config, names


def test_a_sequential_model_round_trips_with_its_weights_and_compile_state(tmp_path):
    model = _sequential()
    path = str(tmp_path / "m.keras")
    model.save(path)
    restored = keras.models.load_model(path)
    np.testing.assert_array_equal(restored.predict(X, verbose=0), model.predict(X, verbose=0))
    assert type(restored.optimizer).__name__ == "Adam"
    assert restored.optimizer.learning_rate.numpy() == pytest.approx(0.01)
    assert int(restored.optimizer.iterations.numpy()) == 2
    for mine, theirs in zip(model.optimizer.variables, restored.optimizer.variables):
        np.testing.assert_array_equal(mine.numpy(), theirs.numpy())
    assert restored.loss == "mse"
    restored.fit(X, np.ones((5, 2), np.float32), epochs=1, verbose=0)  # trains on


def test_a_functional_model_round_trips(tmp_path):
    model = _functional()
    path = tmp_path / "f.keras"
    tf.keras.saving.save_model(model, path)
    restored = tf.keras.saving.load_model(path)
    assert [layer.name for layer in restored.layers] == [layer.name for layer in model.layers]
    np.testing.assert_allclose(restored.predict(X, verbose=0), model.predict(X, verbose=0))
    assert restored.name == "residual"


def test_a_registered_subclassed_model_round_trips(tmp_path):
    model = TwoDense(units=5)
    model(X)
    model.save(tmp_path / "s.keras")
    restored = keras.models.load_model(tmp_path / "s.keras")
    assert isinstance(restored, TwoDense) and restored.units == 5
    assert tf.keras.saving.get_registered_name(TwoDense) == "Tests>TwoDense"
    assert tf.keras.saving.serialize_keras_object(model)["registered_name"] == "Tests>TwoDense"
    np.testing.assert_array_equal(restored(X).numpy(), model(X).numpy())


def test_the_file_has_the_layout_keras_reads(tmp_path):
    _sequential().save(tmp_path / "m.keras")
    members, config, names = _members(tmp_path / "m.keras")
    assert sorted(members) == ["config.json", "metadata.json", "model.weights.h5"]
    assert (config["module"], config["class_name"]) == ("keras", "Sequential")
    dense = config["config"]["layers"][1]
    assert (dense["class_name"], dense["config"]["units"]) == ("Dense", 4)
    assert config["compile_config"]["optimizer"]["class_name"] == "Adam"
    # layers in a list are named by class, as Keras names them; Adam's slots interleaved
    assert {"layers/dense/vars/0", "layers/batch_normalization/vars/3",
            "layers/dense_1/vars/1", "optimizer/vars/13"} <= set(names)


@pytest.mark.parametrize("name", ["keras_sequential", "keras_recurrent"])
def test_a_file_written_by_keras_loads_and_predicts_as_keras_did(name):
    expected = np.load(os.path.join(DATA, name + "_outputs.npz"))
    model = keras.models.load_model(os.path.join(DATA, name + ".keras"))
    np.testing.assert_allclose(model.predict(expected["x"], verbose=0),
                               expected["predictions"], rtol=1e-5, atol=1e-6)
    if name == "keras_sequential":  # compiled and trained one step
        assert int(model.optimizer.iterations.numpy()) == 1


def _dict_batch(expected):
    return {"price": expected["price"], "words": expected["words"]}


def test_a_dict_input_model_written_by_keras_loads_and_predicts_as_keras_did():
    expected = np.load(os.path.join(DATA, "keras_dict_inputs_outputs.npz"))
    model = keras.models.load_model(os.path.join(DATA, "keras_dict_inputs.keras"))
    assert sorted(model._inputs_struct) == ["price", "words"]
    np.testing.assert_allclose(model.predict(_dict_batch(expected), verbose=0),
                               expected["predictions"], rtol=1e-6, atol=1e-6)


def test_a_dict_input_model_round_trips_with_its_inputs_by_name(tmp_path):
    expected = np.load(os.path.join(DATA, "keras_dict_inputs_outputs.npz"))
    inputs = {"words": keras.Input((4,), name="words"),
              "price": keras.Input((3,), name="price")}
    hidden = keras.layers.Dense(4, activation="relu")(inputs["price"])
    joined = keras.layers.Concatenate()([hidden, inputs["words"]])
    model = keras.Model(inputs, keras.layers.Dense(2)(joined))
    model.compile(optimizer="adam", loss="mse")
    model.fit(_dict_batch(expected), np.ones((5, 2), np.float32), verbose=0)
    model.save(tmp_path / "d.keras")
    _, config, _ = _members(tmp_path / "d.keras")
    # Keras's layout: a dict of [layer, call, index] by input name, in the model's order
    assert config["config"]["input_layers"] == {"words": ["words", 0, 0],
                                                "price": ["price", 0, 0]}
    restored = keras.models.load_model(tmp_path / "d.keras")
    np.testing.assert_array_equal(restored.predict(_dict_batch(expected), verbose=0),
                                  model.predict(_dict_batch(expected), verbose=0))


def test_a_keras_file_read_back_and_saved_again_keeps_its_initializers(tmp_path):
    model = keras.models.load_model(os.path.join(DATA, "keras_dict_inputs.keras"))
    model.save(tmp_path / "again.keras")
    _, config, _ = _members(tmp_path / "again.keras")
    dense = next(layer for layer in config["config"]["layers"]
                 if layer["class_name"] == "Dense")
    assert dense["config"]["kernel_initializer"]["config"] == {"seed": None}
    keras.models.load_model(tmp_path / "again.keras")


def test_model_inputs_given_as_anything_but_layer_entries_are_refused(tmp_path):
    _functional().save(tmp_path / "f.keras")
    with zipfile.ZipFile(tmp_path / "f.keras") as archive:
        parts = {name: archive.read(name) for name in archive.namelist()}
    config = json.loads(parts["config.json"])
    config["config"]["input_layers"] = "a"
    parts["config.json"] = json.dumps(config).encode()
    with zipfile.ZipFile(tmp_path / "s.keras", "w") as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    with pytest.raises(ValueError, match="given as 'a', not as \\[layer, call, index\\]"):
        keras.models.load_model(tmp_path / "s.keras")


def test_recurrent_and_convolutional_layers_round_trip_with_weights_in_cells(tmp_path):
    layers = keras.layers
    tokens = keras.Input((6,), dtype="int32")
    embedded = layers.Embedding(10, 4)(tokens)
    merged = layers.Concatenate()([layers.LSTM(3)(embedded), layers.GRU(3)(embedded),
                                   layers.Flatten()(layers.Conv1D(2, 3)(embedded))])
    model = keras.Model(tokens, layers.Dense(2)(layers.LayerNormalization()(merged)))
    model.save(tmp_path / "r.keras")
    _, _, names = _members(tmp_path / "r.keras")
    assert {"layers/lstm/cell/vars/2", "layers/gru/cell/vars/2",
            "layers/conv1d/vars/1"} <= set(names)  # where Keras keeps them
    ids = np.arange(12).reshape(2, 6) % 10
    restored = keras.models.load_model(tmp_path / "r.keras")
    np.testing.assert_allclose(restored.predict(ids, verbose=0), model.predict(ids, verbose=0))


def test_an_unregistered_custom_class_needs_custom_objects(tmp_path):
    model = TwoDense()
    model(X)
    model.save(tmp_path / "s.keras")
    with zipfile.ZipFile(tmp_path / "s.keras") as archive:
        parts = {name: archive.read(name) for name in archive.namelist()}
    config = json.loads(parts["config.json"])
    config["registered_name"] = "Elsewhere>TwoDense"
    parts["config.json"] = json.dumps(config).encode()
    with zipfile.ZipFile(tmp_path / "u.keras", "w") as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    with pytest.raises(ValueError, match="unknown class 'TwoDense'.*custom_objects"):
        keras.models.load_model(tmp_path / "u.keras")
    restored = keras.models.load_model(tmp_path / "u.keras",
                                       custom_objects={"TwoDense": TwoDense})
    np.testing.assert_array_equal(restored(X).numpy(), model(X).numpy())


def test_a_lambda_layer_is_refused_without_running_its_code(tmp_path):
    _functional().save(tmp_path / "f.keras")
    with zipfile.ZipFile(tmp_path / "f.keras") as archive:
        parts = {name: archive.read(name) for name in archive.namelist()}
    config = json.loads(parts["config.json"])
    config["config"]["layers"][1]["class_name"] = "Lambda"
    config["config"]["layers"][1]["module"] = "keras.layers"
    parts["config.json"] = json.dumps(config).encode()
    with zipfile.ZipFile(tmp_path / "l.keras", "w") as archive:
        for name, data in parts.items():
            archive.writestr(name, data)
    with pytest.raises(ValueError, match="Lambda layer.*never does"):
        keras.models.load_model(tmp_path / "l.keras")


def test_files_that_are_not_keras_files_are_clear_errors(tmp_path):
    (tmp_path / "text.keras").write_text("not a zip")
    with pytest.raises(ValueError, match="is not a .keras file"):
        keras.models.load_model(tmp_path / "text.keras")
    with zipfile.ZipFile(tmp_path / "empty.keras", "w") as archive:
        archive.writestr("config.json", "{}")
    with pytest.raises(ValueError, match="lacks.*model.weights.h5"):
        keras.models.load_model(tmp_path / "empty.keras")
    with pytest.raises(ValueError, match="File format not supported.*legacy .h5"):
        keras.models.load_model(tmp_path / "m.h5")
    with pytest.raises(ValueError, match="File not found"):
        keras.models.load_model(tmp_path / "missing.keras")


def test_a_path_that_is_not_a_regular_file_is_refused_without_reading(tmp_path):
    (tmp_path / "folder.keras").mkdir()
    with pytest.raises(ValueError, match="is a folder, not a regular file"):
        keras.models.load_model(tmp_path / "folder.keras")
    os.mkfifo(tmp_path / "pipe.keras")  # opening it to read would block
    with pytest.raises(ValueError, match="is a FIFO"):
        keras.models.load_model(tmp_path / "pipe.keras")


def test_members_declaring_more_than_they_may_hold_are_refused_before_inflating(tmp_path):
    bomb = tmp_path / "bomb.keras"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("config.json", b" " * (65 << 20))  # 65 MiB of spaces, a few KiB zipped
        archive.writestr("model.weights.h5", b"")
    with pytest.raises(ValueError, match="config.json declares 68157440 bytes, more than"):
        keras.models.load_model(bomb)
    lying = tmp_path / "lying.keras"
    with zipfile.ZipFile(lying, "w") as archive:
        archive.writestr("config.json", "{}")
        archive.writestr("model.weights.h5", b"x" * 100)
    content = bytearray(lying.read_bytes())
    for header in (b"PK\x03\x04", b"PK\x01\x02"):  # the member's declared size: 2**31
        at = content.rfind(header)
        size_at = at + (22 if header == b"PK\x03\x04" else 24)
        content[size_at:size_at + 4] = (1 << 31).to_bytes(4, "little")
    lying.write_bytes(bytes(content))
    with pytest.raises(ValueError, match="more than compression can give"):
        keras.models.load_model(lying)


def test_a_model_that_can_not_be_saved_leaves_no_file(tmp_path):
    x = keras.Input((3,))
    model = keras.Model(x, keras.layers.Dense(2)(x) * 2.0)
    with pytest.raises(TypeError, match="made by an operator on Keras tensors"):
        model.save(tmp_path / "m.keras")
    with pytest.raises(ValueError, match="add a `.keras` extension"):
        model.save(tmp_path / "m.h5")
    assert not list(tmp_path.iterdir())


def test_overwrite_false_keeps_an_existing_file(tmp_path):
    path = tmp_path / "m.keras"
    path.write_bytes(b"mine")
    with pytest.raises(FileExistsError, match="overwrite=False"):
        tf.keras.models.save_model(_functional(), path, overwrite=False)
    assert path.read_bytes() == b"mine"


def test_without_h5py_saving_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "h5py", None)
    with pytest.raises(ImportError, match=r"autograph\[keras\]"):
        _functional().save(tmp_path / "m.keras")
    assert not list(tmp_path.iterdir())
