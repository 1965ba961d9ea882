"""Datasets read from files: TextLineDataset, and TFRecordDataset with tf.train.Example
records parsed by parse_example / parse_single_example, against files TensorFlow 2.21
wrote (tests/data/tfrecord, see its README) and TensorFlow's values for them."""

import json
import os

import numpy as np
import pytest
from dataset_values import both, eager

from runtime import data, dtypes, errors
from runtime.composite import parsing
from runtime.io import example, tfrecord
from runtime.ops.parsing_ops import FixedLenFeature, VarLenFeature

FIXTURES = os.path.join(os.path.dirname(__file__), os.pardir, "data", "tfrecord")
EXAMPLES = os.path.join(FIXTURES, "examples_tf.tfrecord")


def _read(name, mode="r"):
    with open(os.path.join(FIXTURES, name), mode) as f:
        return f.read()


WANT = json.loads(_read("examples_tf.json"))

SPEC = {"id": FixedLenFeature([], dtypes.int64),
        "score": VarLenFeature(dtypes.float32),
        "name": FixedLenFeature([], dtypes.string, default_value=""),
        "tags": VarLenFeature(dtypes.string)}


def test_text_lines_without_their_endings(tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_bytes(b"one\r\ntwo\n\nthree")
    b.write_bytes("héllo\n".encode())
    ds = data.TextLineDataset([str(a), str(b)])
    assert both(ds) == [b"one", b"two", b"", b"three", "héllo".encode()]
    assert ds.element_spec.dtype is dtypes.string


def test_a_missing_text_file_is_not_found(tmp_path):
    with pytest.raises(errors.NotFoundError, match="cannot open"):
        eager(data.TextLineDataset(str(tmp_path / "none.txt")))


def test_tfrecord_dataset_reads_tensorflows_records():
    ds = data.TFRecordDataset(os.path.join(FIXTURES, "plain_tf.tfrecord"))
    assert both(ds) == [b"", b"one", b"\x00\xff" * 40]
    assert eager(data.TFRecordDataset(EXAMPLES)) == [bytes.fromhex(h)
                                                     for h in WANT["raw_records_hex"]]


def test_a_corrupt_record_is_data_loss_naming_file_and_record(tmp_path):
    damaged = bytearray(_read("examples_tf.tfrecord", "rb"))
    damaged[-3] ^= 0xFF
    path = tmp_path / "damaged.tfrecord"
    path.write_bytes(bytes(damaged))
    with pytest.raises(errors.DataLossError, match=r"damaged.tfrecord: record 2 .*checksum"):
        eager(data.TFRecordDataset(str(path)))


def _records():
    return [r.numpy() for r in data.TFRecordDataset(EXAMPLES)]


def test_parse_single_example_gives_tensorflows_values():
    for record, want in zip(_records(), WANT["records"]):
        parsed = parsing.parse_single_example(record, SPEC)
        assert parsed["id"].numpy() == want["id"]
        assert parsed["name"].numpy().decode() == want["name"]
        assert parsed["score"].values.numpy().tolist() == want["score"]
        assert [t.decode() for t in parsed["tags"].values.numpy()] == want["tags"]
        assert parsed["score"].dense_shape.numpy().tolist() == [len(want["score"])]


def test_parse_example_batches_as_tensorflow_does():
    parsed = parsing.parse_example(np.array(_records(), object), SPEC)
    assert parsed["id"].numpy().tolist() == [r["id"] for r in WANT["records"]]
    assert parsed["score"].indices.numpy().tolist() == WANT["batched_score_indices"]
    assert parsed["score"].values.numpy().tolist() == WANT["batched_score_values"]
    assert parsed["score"].dense_shape.numpy().tolist() == WANT["batched_score_dense_shape"]


def test_ragged_features_give_a_row_per_record_as_tensorflow_does():
    records = np.array(_records(), object)
    spec = {"score": parsing.RaggedFeature(dtypes.float32),
            "labels": parsing.RaggedFeature(dtypes.string, value_key="tags")}
    parsed = parsing.parse_example(records, spec)
    assert set(parsed) == {"score", "labels"}
    assert parsed["score"].to_list() == [r["score"] for r in WANT["records"]]
    assert [[t.decode() for t in row] for row in parsed["labels"].to_list()] == [
        r["tags"] for r in WANT["records"]]
    one = parsing.parse_single_example(records[0], spec)
    assert one["score"].numpy().tolist() == WANT["records"][0]["score"]


def test_parsing_in_a_dataset_map_eagerly_and_traced():
    ds = data.TFRecordDataset(EXAMPLES).map(lambda r: parsing.parse_single_example(
        r, {"id": SPEC["id"], "name": SPEC["name"]}))
    assert both(ds) == [{"id": r["id"], "name": r["name"].encode()} for r in WANT["records"]]


def test_written_examples_match_the_file_tensorflow_read_back(tmp_path):
    m = example.messages()
    rows = [([7], [0.5, 1.25], [b"alpha"], [b"x", b"y"]), ([-3], [], ["béta".encode()], [])]
    path = tmp_path / "ours.tfrecord"
    with tfrecord.TFRecordWriter(str(path)) as writer:
        for ids, scores, names, tags in rows:
            feature = {"id": m["Feature"](int64_list=m["Int64List"](value=ids)),
                       "score": m["Feature"](float_list=m["FloatList"](value=scores)),
                       "name": m["Feature"](bytes_list=m["BytesList"](value=names)),
                       "tags": m["Feature"](bytes_list=m["BytesList"](value=tags))}
            writer.write(m["Example"](features=m["Features"](feature=feature))
                         .SerializeToString(deterministic=True))  # map entries by key
    assert path.read_bytes() == _read("examples_autograph.tfrecord", "rb")


def test_bad_examples_are_named():
    records = _records()
    with pytest.raises(errors.InvalidArgumentError, match="Key: id.  Data types don't match"):
        parsing.parse_single_example(records[0], {"id": FixedLenFeature([], dtypes.float32)})
    with pytest.raises(errors.InvalidArgumentError, match="Feature: missing .* is required"):
        parsing.parse_single_example(records[0], {"missing": FixedLenFeature([],
                                                                             dtypes.int64)})
    with pytest.raises(errors.InvalidArgumentError, match="not a serialized tf.train.Example"):
        parsing.parse_single_example(b"\xff\xff\xff", {"id": SPEC["id"]})
    with pytest.raises(errors.InvalidArgumentError, match="has 2 values where its shape"):
        parsing.parse_single_example(records[0], {"score": FixedLenFeature([], dtypes.float32)})
    with pytest.raises(ValueError, match="int64, float32 or string"):
        VarLenFeature(dtypes.int32)


TABLE = os.path.join(FIXTURES, "table.csv")


def test_csv_dataset_gives_tensorflows_rows():
    ds = data.CsvDataset(TABLE, [dtypes.int64, np.float32(-1.0), "none"], header=True)
    got = [[v.decode() if isinstance(v, bytes) else v for v in row] for row in both(ds)]
    assert got == json.loads(_read("table_tf.json"))


def test_csv_dataset_select_and_exclude_columns():
    picked = data.CsvDataset(TABLE, [dtypes.int64, "?"], header=True, select_cols=[0, 2])
    assert eager(picked) == [(1, b"cat, tabby"), (2, b"dog"), (3, b"?")]
    excluded = data.CsvDataset(TABLE, [dtypes.int64, "?"], header=True, exclude_cols=[1])
    assert eager(excluded) == eager(picked)


def test_csv_dataset_errors_name_the_file_and_record(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("1,x\n")
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"bad.csv: Field 1 in record 0 is not a valid int64: x"):
        eager(data.CsvDataset(str(path), [dtypes.int64, dtypes.int64]))
    with pytest.raises(errors.InvalidArgumentError, match="required but missing"):
        eager(data.CsvDataset(TABLE, [dtypes.int64, dtypes.float32, "?"], header=True))


def test_make_csv_dataset_gives_tensorflows_batches():
    ds = data.make_csv_dataset(TABLE, batch_size=2, shuffle=False, num_epochs=1,
                               column_defaults=[0, 0.0, ""])
    got = [{k: [x.decode() if isinstance(x, bytes) else x for x in v] for k, v in b.items()}
           for b in eager(ds)]
    assert got == json.loads(_read("table_make_csv_tf.json"))


def test_make_csv_dataset_infers_dtypes_and_splits_off_the_label():
    ds = data.make_csv_dataset(TABLE, batch_size=3, shuffle=False, num_epochs=1,
                               label_name="label")
    features, label = ds.element_spec
    assert features["id"].dtype is dtypes.int32 and features["weight"].dtype is dtypes.float32
    assert label.dtype is dtypes.string
    assert both(ds) == [({"id": [1, 2, 3], "weight": [0.5, 0.0, 1.5]},
                         [b"cat, tabby", b"dog", b""])]


def test_make_csv_dataset_forever_drops_the_partial_batch():
    ds = data.make_csv_dataset(TABLE, batch_size=2, shuffle=False, column_defaults=[0, 0.0, ""])
    first = [b["id"] for b in eager(ds.take(3))]
    assert first == [[1, 2], [3, 1], [2, 3]]
    assert ds.element_spec["id"].shape.as_list() == [2]
