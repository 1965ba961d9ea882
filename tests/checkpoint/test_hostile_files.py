"""A checkpoint is untrusted input: corrupted, truncated, oversized or special files are
refused with an error naming the file and what is wrong, never read into a wrong value,
never followed out of the folder, never waited on."""

import os
import struct

import numpy as np
import pytest

import autograph.tf as tf
from runtime.checkpoint import bundle, files, protos, table
from runtime.io import crc32c


def _saved(tmp_path):
    module = tf.Module()
    module.w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    module.s = tf.Variable([b"ab", b"cde"])
    return module, tf.train.Checkpoint(m=module).write(str(tmp_path / "run" / "ck"))


def _restore(module, prefix):
    return tf.train.Checkpoint(m=module).read(prefix)


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def _flip(path, offset):
    data = bytearray(_read(path))
    data[offset] ^= 0x40
    _write(path, bytes(data))


def _rewrite_entry(prefix, key, **changes):
    """Rewrites `key`'s index entry with `changes`, keeping the index's own checksums
    valid, as a deliberate forger would."""
    with files.CheckpointFile(prefix + ".index", os.path.dirname(prefix)) as f:
        rows = table.read(f)
    out = []
    for name, value in rows:
        if name == key.encode():
            entry = protos.BundleEntry.decode(value)
            for field, new in changes.items():
                setattr(entry, field, new)
            value = entry.encode()
        out.append((name, value))
    _write(prefix + ".index", table.build(out))


W = "m/w/.ATTRIBUTES/VARIABLE_VALUE"
S = "m/s/.ATTRIBUTES/VARIABLE_VALUE"


def test_a_flipped_data_byte_fails_the_checksum(tmp_path):
    module, prefix = _saved(tmp_path)
    entry = bundle.BundleReader(prefix).entries[W]
    _flip(prefix + ".data-00000-of-00001", entry.offset + 5)
    with pytest.raises(tf.errors.DataLossError, match="data-00000-of-00001: checksum mismatch "
                                                      "for tensor 'm/w/"):
        _restore(module, prefix)
    assert module.w.numpy()[0, 1] == 1.0  # untouched


def test_a_flipped_string_byte_fails_the_checksum(tmp_path):
    module, prefix = _saved(tmp_path)
    entry = bundle.BundleReader(prefix).entries[S]
    _flip(prefix + ".data-00000-of-00001", entry.offset + entry.size - 1)
    with pytest.raises(tf.errors.DataLossError, match="checksum mismatch for tensor 'm/s/"):
        tf.train.load_checkpoint(prefix).get_tensor(S)


def test_every_flipped_index_byte_is_refused_or_harmless(tmp_path):
    module, prefix = _saved(tmp_path)
    original = _read(prefix + ".index")
    for offset in range(len(original)):
        _flip(prefix + ".index", offset)
        try:
            reader = tf.train.load_checkpoint(prefix)
            values = {k: reader.get_tensor(k) for k in reader.get_variable_to_shape_map()}
        except (tf.errors.DataLossError, tf.errors.NotFoundError):
            pass
        else:  # a byte nothing reads (footer padding): the values are the true ones
            np.testing.assert_array_equal(values[W], module.w.numpy())
        _write(prefix + ".index", original)


@pytest.mark.parametrize("suffix, keep", [(".index", 30), (".index", 0),
                                          (".data-00000-of-00001", 10)])
def test_truncated_files_are_refused(tmp_path, suffix, keep):
    module, prefix = _saved(tmp_path)
    path = prefix + suffix
    os.truncate(path, keep)
    with pytest.raises(tf.errors.DataLossError, match=os.path.basename(path)):
        _restore(module, prefix)


def test_a_declared_size_beyond_the_file_is_refused_before_reading(tmp_path):
    module, prefix = _saved(tmp_path)
    _rewrite_entry(prefix, W, size=1 << 50)
    with pytest.raises(tf.errors.DataLossError, match="declares 1125899906842624 bytes, but 6 "
                                                      "elements of float32 take 24"):
        _restore(module, prefix)
    _rewrite_entry(prefix, W, shape=(1 << 20, 1 << 20), size=4 << 40)
    with pytest.raises(tf.errors.DataLossError, match="past the end of the file"):
        _restore(module, prefix)


def test_a_huge_string_count_is_refused_before_allocating(tmp_path):
    module, prefix = _saved(tmp_path)
    _rewrite_entry(prefix, S, shape=(1 << 40,))
    with pytest.raises(tf.errors.DataLossError, match="too few for 1099511627776 strings"):
        tf.train.load_checkpoint(prefix).get_tensor(S)


def test_negative_dims_unknown_dtypes_and_slices_are_refused_by_name(tmp_path):
    module, prefix = _saved(tmp_path)
    _rewrite_entry(prefix, W, shape=(-1, 3))
    with pytest.raises(tf.errors.DataLossError, match="invalid shape"):
        _restore(module, prefix)
    _rewrite_entry(prefix, W, shape=(2, 3), dtype=21)  # DT_VARIANT
    with pytest.raises(tf.errors.DataLossError, match="dtype enum 21"):
        _restore(module, prefix)


def test_a_bad_magic_number_is_refused(tmp_path):
    module, prefix = _saved(tmp_path)
    _flip(prefix + ".index", os.path.getsize(prefix + ".index") - 1)
    with pytest.raises(tf.errors.DataLossError, match="not a checkpoint index"):
        _restore(module, prefix)


def test_a_compressed_block_is_refused(tmp_path):
    module, prefix = _saved(tmp_path)
    raw = bytearray(_read(prefix + ".index"))
    # the first data block's trailer: its type byte, then a valid checksum for type 1
    index_handle = table._read_handle(bytes(raw[-48:]), table._read_handle(
        bytes(raw[-48:]), 0)[1])[0]
    entries = table._parse_block(bytes(raw[index_handle[0]:index_handle[0] + index_handle[1]]))
    offset, size = table._read_handle(entries[0][1], 0)[0]
    raw[offset + size] = 1
    crc = crc32c.mask(crc32c.value(bytes(raw[offset:offset + size + 1])))
    raw[offset + size + 1:offset + size + 5] = struct.pack("<I", crc)
    _write(prefix + ".index", bytes(raw))
    with pytest.raises(tf.errors.DataLossError, match="is compressed"):
        _restore(module, prefix)


def test_a_link_out_of_the_folder_is_refused(tmp_path):
    module, prefix = _saved(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "secret.data"
    os.replace(prefix + ".data-00000-of-00001", target)
    os.symlink(target, prefix + ".data-00000-of-00001")
    with pytest.raises(tf.errors.DataLossError, match="symbolic link leading out of the folder"):
        _restore(module, prefix)


def test_a_link_inside_the_folder_is_followed(tmp_path):
    module, prefix = _saved(tmp_path)
    os.replace(prefix + ".index", prefix + ".real-index")
    os.symlink(os.path.basename(prefix) + ".real-index", prefix + ".index")
    _restore(module, prefix).assert_consumed()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_waiting(tmp_path):
    module, prefix = _saved(tmp_path)
    os.unlink(prefix + ".data-00000-of-00001")
    os.mkfifo(prefix + ".data-00000-of-00001")
    with pytest.raises(tf.errors.DataLossError,
                       match="is a FIFO \\(named pipe\\), not a regular file"):
        _restore(module, prefix)
    os.unlink(prefix + ".index")
    os.mkfifo(prefix + ".index")
    with pytest.raises(tf.errors.DataLossError,
                       match="is a FIFO \\(named pipe\\), not a regular file"):
        tf.train.load_checkpoint(prefix)


def test_a_directory_in_place_of_a_file_is_refused(tmp_path):
    module, prefix = _saved(tmp_path)
    os.unlink(prefix + ".index")
    os.mkdir(prefix + ".index")
    with pytest.raises(tf.errors.DataLossError, match="is a folder, not a regular file"):
        _restore(module, prefix)


@pytest.mark.parametrize("text, message", [
    ("model_checkpoint_path: ckpt-1\n", "expected a quoted string"),
    ('bogus_field: "x"\n', "unknown field 'bogus_field'"),
    ('last_preserved_timestamp: soon\n', "last_preserved_timestamp is not a number"),
    ("no colon here\n", "expected 'field: value'"),
])
def test_a_malformed_state_file_is_refused_naming_the_line(tmp_path, text, message):
    (tmp_path / "checkpoint").write_text("# written by hand\n" + text)
    with pytest.raises(tf.errors.DataLossError, match="checkpoint, line 2: " + message):
        tf.train.latest_checkpoint(str(tmp_path))


def test_a_state_file_naming_a_missing_checkpoint_gives_none(tmp_path):
    (tmp_path / "checkpoint").write_text('model_checkpoint_path: "ckpt-9"\n')
    assert tf.train.latest_checkpoint(str(tmp_path)) is None


def test_a_failed_write_leaves_the_previous_checkpoint_and_no_temporary_files(tmp_path):
    module, prefix = _saved(tmp_path)
    before = sorted(os.listdir(tmp_path / "run"))
    module.bad = tf.Variable(1.0)
    module.bad._value = None  # a variable without a value cannot be saved
    with pytest.raises(tf.errors.FailedPreconditionError, match="has no value yet"):
        tf.train.Checkpoint(m=module).write(prefix)
    assert sorted(os.listdir(tmp_path / "run")) == before
    del module.bad
    _restore(module, prefix).assert_consumed()


def test_an_object_graph_naming_a_missing_node_is_refused(tmp_path):
    module, prefix = _saved(tmp_path)
    graph = protos.encode_object_graph([protos.TrackableNode(children=[(7, "m")])])
    tensors = [("_CHECKPOINTABLE_OBJECT_GRAPH", "string", np.array(graph, dtype=object))]
    bundle.write(prefix, tensors)
    with pytest.raises(tf.errors.DataLossError, match="child 'm' refers to node 7 of 1"):
        _restore(module, prefix)
