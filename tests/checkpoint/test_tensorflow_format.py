"""Checkpoints cross over to and from TensorFlow: the files in data/ were written by
TensorFlow 2.21 (data/make_tf_fixture.py), and tf_expected.json holds what TensorFlow read
back from them."""

import json
import os
import shutil

import numpy as np
import pytest

import autograph.tf as tf
from runtime.checkpoint import bundle, files, protos, table, trackables

from .models import DATA, Model, zeroed

TF_PREFIX = os.path.join(DATA, "tf_module_ckpt")


def _expected():
    with open(os.path.join(DATA, "tf_expected.json")) as f:
        return json.load(f)


def _expected_value(record):
    """The value TensorFlow read, as numpy (a string scalar as bytes)."""
    if record["dtype"] == "string":
        items = [bytes.fromhex(item) for item in record["value"]["bytes_hex"]]
        if record["shape"] == []:
            return items[0]
        array = np.empty(len(items), dtype=object)
        array[:] = items
        return array.reshape(record["shape"])
    if record["dtype"].startswith("complex"):
        pairs = np.array(record["value"], dtype=np.float64).reshape(record["shape"] + [2])
        return (pairs[..., 0] + 1j * pairs[..., 1]).astype(record["dtype"])
    if record["dtype"] == "bfloat16":
        ml_dtypes = pytest.importorskip("ml_dtypes")
        return np.array(record["value"], dtype=np.float64).astype(ml_dtypes.bfloat16).reshape(
            record["shape"])
    return np.array(record["value"], dtype=record["dtype"]).reshape(record["shape"])


def test_a_tensorflow_checkpoint_restores_every_value_into_the_same_module():
    model = zeroed(Model())
    step = tf.Variable(0, dtype=tf.int64)
    status = tf.train.Checkpoint(model=model, step=step).read(TF_PREFIX)
    status.assert_consumed()
    expected = _expected()["tensors"]
    values = {"model/matrix": model.matrix, "model/counts": model.counts,
              "model/label": model.label, "model/flag": model.flag,
              "model/steps": model.steps, "model/precise": model.precise,
              "model/encoder/kernel": model.encoder.kernel,
              "model/encoder/bias": model.encoder.bias,
              "model/layers/0/kernel": model.layers[0].kernel,
              "model/layers/1/bias": model.layers[1].bias, "step": step}
    for path, variable in values.items():
        record = expected[path + "/.ATTRIBUTES/VARIABLE_VALUE"]
        assert variable.dtype.name == record["dtype"]
        np.testing.assert_array_equal(variable.numpy(), _expected_value(record))
    assert model.layers[1].kernel.numpy().tolist() == [[0.0], [np.float32(1 / 13)]]


def test_load_checkpoint_reads_tensorflows_keys_shapes_dtypes_and_values():
    reader = tf.train.load_checkpoint(TF_PREFIX)
    expected = _expected()["tensors"]
    shapes = reader.get_variable_to_shape_map()
    assert set(shapes) == set(expected) | {trackables.OBJECT_GRAPH_KEY}
    dtypes = reader.get_variable_to_dtype_map()
    for key, record in expected.items():
        assert shapes[key] == record["shape"]
        assert dtypes[key].name == record["dtype"]
        np.testing.assert_array_equal(reader.get_tensor(key), _expected_value(record))
    assert isinstance(reader.get_tensor("model/label/.ATTRIBUTES/VARIABLE_VALUE"), bytes)
    assert reader.has_tensor("step/.ATTRIBUTES/VARIABLE_VALUE")
    assert not reader.has_tensor("step")


def test_every_dtype_tensorflow_writes_reads_back_bit_for_bit():
    expected = _expected()["dtypes"]
    reader = tf.train.load_checkpoint(os.path.join(DATA, "tf_dtypes_ckpt"))
    assert set(reader.get_variable_to_shape_map()) == set(expected) | {
        trackables.OBJECT_GRAPH_KEY}
    for key, record in expected.items():
        value = reader.get_tensor(key)
        wanted = _expected_value(record)
        assert list(value.shape) == record["shape"], key
        if record["dtype"] != "string":
            assert value.dtype.name == record["dtype"], key
        assert value.tobytes() == wanted.tobytes() if value.dtype != object else \
            value.tolist() == wanted.tolist(), key


def test_the_dtypes_of_tensorflows_bundle_are_written_back_identically(tmp_path):
    source = bundle.BundleReader(os.path.join(DATA, "tf_dtypes_ckpt"))
    tensors = [(key, bundle.DTYPES[entry.dtype][0], source.tensor(key))
               for key, entry in sorted(source.entries.items(),  # (in the data's order)
                                        key=lambda item: (item[1].offset, item[1].size > 0))]
    bundle.write(str(tmp_path / "copy"), tensors)
    for suffix in (".index", ".data-00000-of-00001"):
        with open(str(tmp_path / "copy") + suffix, "rb") as ours, \
                open(os.path.join(DATA, "tf_dtypes_ckpt") + suffix, "rb") as theirs:
            assert ours.read() == theirs.read(), suffix


def test_list_variables_of_a_tensorflow_manager_folder_reads_its_latest_checkpoint():
    expected = _expected()
    folder = os.path.join(DATA, "tf_manager")
    latest = tf.train.latest_checkpoint(folder)
    assert os.path.basename(latest) == expected["manager_latest"]
    listed = tf.train.list_variables(folder)
    assert [name for name, _ in listed] == sorted(name for name, _ in listed)
    assert ("save_counter/.ATTRIBUTES/VARIABLE_VALUE", []) in listed
    assert tf.train.load_checkpoint(folder).get_tensor(
        "model/steps/.ATTRIBUTES/VARIABLE_VALUE") == 102


def test_a_manager_on_a_tensorflow_folder_carries_on_its_numbering(tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(os.path.join(DATA, "tf_manager"), folder)
    model = zeroed(Model())
    ckpt = tf.train.Checkpoint(model=model)
    manager = tf.train.CheckpointManager(ckpt, str(folder), max_to_keep=2)
    assert [os.path.basename(p) for p in manager.checkpoints] == ["ckpt-2", "ckpt-3"]
    assert manager.restore_or_initialize() == str(folder / "ckpt-3")
    assert int(model.steps.numpy()) == 102 and int(ckpt.save_counter.numpy()) == 3
    assert os.path.basename(manager.save()) == "ckpt-4"
    assert not os.path.exists(folder / "ckpt-2.index")


def test_our_checkpoint_of_the_same_module_is_tensorflows_byte_for_byte(tmp_path):
    prefix = tf.train.Checkpoint(model=Model(), step=tf.Variable(42, dtype=tf.int64)).write(
        str(tmp_path / "ours"))
    for suffix in (".index", ".data-00000-of-00001"):
        with open(prefix + suffix, "rb") as ours, open(TF_PREFIX + suffix, "rb") as theirs:
            assert ours.read() == theirs.read(), suffix


def test_our_index_has_tensorflows_header_keys_and_object_graph(tmp_path):
    prefix = tf.train.Checkpoint(model=Model(), step=tf.Variable(1, dtype=tf.int64)).write(
        str(tmp_path / "ours"))

    def index(path):
        with files.CheckpointFile(path + ".index", os.path.dirname(path)) as f:
            return table.read(f)

    ours, theirs = index(prefix), index(TF_PREFIX)
    assert [key for key, _ in ours] == [key for key, _ in theirs]
    assert ours[0] == theirs[0] == (b"", protos.BundleHeader(1, 0, 1, 0).encode())
    graph = bundle.BundleReader(prefix).tensor(trackables.OBJECT_GRAPH_KEY).item()
    tf_graph = bundle.BundleReader(TF_PREFIX).tensor(trackables.OBJECT_GRAPH_KEY).item()
    assert protos.decode_object_graph(graph) == protos.decode_object_graph(tf_graph)


def test_the_index_table_is_rebuilt_exactly_from_its_entries():
    with open(TF_PREFIX + ".index", "rb") as f:
        raw = f.read()
    with files.CheckpointFile(TF_PREFIX + ".index", DATA) as f:
        assert table.build(table.read(f)) == raw


@pytest.mark.parametrize("count", [40, 5000])
def test_tables_of_many_keys_span_restarts_and_blocks(tmp_path, count):
    rows = [(b"key/%06d" % i, bytes([i % 256]) * (i % 300)) for i in range(count)]
    path = tmp_path / "t.index"
    path.write_bytes(table.build(rows))
    with files.CheckpointFile(str(path), str(tmp_path)) as f:
        assert table.read(f) == rows
