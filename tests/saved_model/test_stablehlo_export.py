"""save(..., format="stablehlo"): each saved trace also written through jax.export, runnable
by JAX alone; the folder still loads as a saved model."""

import json

import numpy as np
import pytest

import autograph.tf as tf

jax = pytest.importorskip("jax")
pytest.importorskip("flatbuffers")  # what jax.export serializes with


class Scaler(tf.Module):
    def __init__(self):
        super().__init__()
        self.scale = tf.Variable([2.0, 3.0, 4.0])

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def __call__(self, x):
        total = tf.zeros_like(x)
        for i in tf.range(3):
            total += x * self.scale * tf.cast(i, tf.float32)
        return total


def test_each_saved_trace_runs_in_jax_with_the_same_results(tmp_path):
    model = Scaler()
    path = tmp_path / "m"
    tf.saved_model.save(model, path, format="stablehlo")
    index = json.loads((path / "stablehlo.json").read_text())
    assert index["format"] == "stablehlo" and len(index["functions"]) == 1
    (entry,) = index["functions"].values()
    exported = jax.export.deserialize(bytearray((path / entry["file"]).read_bytes()))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    result, failed = exported.call(x)
    np.testing.assert_allclose(np.asarray(result), model(x).numpy(), rtol=1e-6)
    assert not bool(failed)
    loaded = tf.saved_model.load(path)  # the usual files are there too
    np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy(), rtol=1e-6)


def test_a_trace_jax_cannot_export_fails_the_save_and_leaves_no_folder(tmp_path):
    v = tf.Variable(1.0)

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def bump(x):
        v.assign_add(x)
        return v.read_value()

    with pytest.raises(tf.saved_model.NotSaveableError, match="StableHLO.*assigns variables"):
        tf.saved_model.save(bump, tmp_path / "m", format="stablehlo")
    assert not (tmp_path / "m").exists()
    assert list(tmp_path.iterdir()) == []
