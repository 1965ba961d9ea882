"""Loading reads only regular files of the folder, never more than they declare, and computes
nothing: FIFOs, devices, folders and links out of the folder are refused at once (never a
hang), an array is read only when referenced and only after its header matches, nesting is
bounded, and every refusal is a SavedModelError naming the file (never MemoryError or
RecursionError)."""

import io
import json
import os
import sys
import traceback
import tracemalloc
import zipfile

import numpy as np
import pytest

import autograph.tf as tf
from runtime.saved_model import SavedModelError, load, save, schema
from tests.saved_model.tampering import edit_graphs, node_of_op, rehash, within


class Small(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([1.0, 2.0])

    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def __call__(self, x):
        return x * self.w + tf.constant([10.0, 20.0])


@pytest.fixture
def saved(tmp_path):
    folder = tmp_path / "model"
    save(Small(), folder)
    return folder


def _load_quickly(folder):
    return within(30, lambda: load(folder))


def _replace_with_fifo(path):
    path.unlink()
    os.mkfifo(path)


@pytest.mark.parametrize("name", schema.DATA_FILES + (schema.MANIFEST,))
def test_a_fifo_in_place_of_a_file_is_refused_at_once(saved, name):
    _replace_with_fifo(saved / name)
    with pytest.raises(SavedModelError, match=r"%s: is a FIFO \(named pipe\), not a regular "
                                              r"file" % name):
        _load_quickly(saved)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/stdin", "/dev/null"])
def test_a_link_to_a_device_is_refused_as_leaving_the_folder(saved, device):
    (saved / schema.GRAPHS).unlink()
    (saved / schema.GRAPHS).symlink_to(device)
    with pytest.raises(SavedModelError, match=r"graphs\.json: is a symbolic link leading out "
                                              r"of the folder"):
        _load_quickly(saved)


def test_a_link_is_followed_only_to_a_regular_file_inside_the_folder(saved, tmp_path):
    (saved / schema.GRAPHS).rename(saved / "graphs-copy.json")
    (saved / schema.GRAPHS).symlink_to("graphs-copy.json")
    result = _load_quickly(saved)(tf.constant([1.0, 1.0])).numpy()
    np.testing.assert_array_equal(result, [11.0, 22.0])
    outside = tmp_path / "elsewhere.json"
    (saved / "graphs-copy.json").rename(outside)
    (saved / schema.GRAPHS).unlink()
    (saved / schema.GRAPHS).symlink_to(outside)
    with pytest.raises(SavedModelError, match="leading out of the folder"):
        _load_quickly(saved)


def test_a_folder_in_place_of_a_file_is_refused(saved):
    (saved / schema.VARIABLES).unlink()
    (saved / schema.VARIABLES).mkdir()
    with pytest.raises(SavedModelError, match=r"variables\.npz: is a folder, not a regular"):
        _load_quickly(saved)


def test_a_manifest_too_large_is_refused_before_it_is_read(saved):
    with open(saved / schema.MANIFEST, "ab") as f:
        f.write(b" " * (1 << 21))
    with pytest.raises(SavedModelError, match=r"saved_model\.json: holds \d+ bytes, more than"):
        _load_quickly(saved)


def test_a_declared_size_too_large_is_refused_before_reading(saved):
    manifest = json.loads((saved / schema.MANIFEST).read_text())
    manifest["files"][schema.GRAPHS]["bytes"] = 1 << 40
    (saved / schema.MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(SavedModelError, match=r"files\.graphs\.json\.bytes: 1099511627776 "
                                              r"bytes, more than"):
        _load_quickly(saved)


def _rewrite_npz(folder, name, change):
    """Rewrites `name` (an .npz) member by member through `change(zip_out, info, data)`."""
    path = folder / name
    source = zipfile.ZipFile(io.BytesIO(path.read_bytes()))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        for info in source.infolist():
            change(out, info, source.read(info))
    path.write_bytes(buffer.getvalue())
    rehash(folder)


def test_an_unreferenced_member_is_never_decompressed(saved):
    def change(out, info, data):
        if info.filename == "c0.npy":
            out.writestr(info, data)
            unused = zipfile.ZipInfo("unused.npy")
            unused.compress_type = zipfile.ZIP_DEFLATED
            with out.open(unused, "w", force_zip64=True) as member:
                np.lib.format.write_array_header_1_0(
                    member, {"descr": "<f8", "fortran_order": False, "shape": (1 << 26,)})
                zeros = bytes(1 << 20)
                for _ in range(512):
                    member.write(zeros)
        else:
            out.writestr(info, data)
    _rewrite_npz(saved, schema.CONSTANTS, change)
    tracemalloc.start()
    try:
        loaded = _load_quickly(saved)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20
    np.testing.assert_array_equal(loaded(tf.constant([1.0, 1.0])).numpy(), [11.0, 22.0])


def _constant_member(folder):
    data = json.loads((folder / schema.GRAPHS).read_text())
    node = node_of_op(data, "Const")
    return node["attrs"]["value"]["array"]


def test_a_referenced_compressed_member_is_refused(saved):
    key = _constant_member(saved)["key"]

    def change(out, info, data):
        out.writestr(info, data, zipfile.ZIP_DEFLATED if info.filename == key + ".npy"
                     else zipfile.ZIP_STORED)
    _rewrite_npz(saved, schema.CONSTANTS, change)
    with pytest.raises(SavedModelError, match=r"constants\.npz: %s: is a compressed member"
                                              % key):
        _load_quickly(saved)


@pytest.mark.parametrize("shape", [(10 ** 13,), (10 ** 7, 10 ** 6)])
def test_a_npy_header_declaring_more_than_the_member_holds_is_refused(saved, shape):
    key = _constant_member(saved)["key"]

    def change(out, info, data):
        if info.filename == key + ".npy":
            header = io.BytesIO()
            np.lib.format.write_array_header_1_0(header, {"descr": "<f4",
                                                          "fortran_order": False,
                                                          "shape": shape})
            data = header.getvalue() + data[-8:]
        out.writestr(info, data)
    _rewrite_npz(saved, schema.CONSTANTS, change)
    edit_graphs(saved, lambda data: node_of_op(data, "Const")["attrs"]["value"][
        "array"].__setitem__("shape", list(shape)))
    with pytest.raises(SavedModelError, match=r"constants\.npz: %s: its \.npy header declares "
                                              r"\d+ bytes of data, the member holds 8" % key):
        _load_quickly(saved)


@pytest.mark.parametrize("depth", [250, 100_000])
def test_deep_nesting_is_refused_naming_the_limit(saved, depth):
    path = saved / schema.GRAPHS
    text = path.read_text()
    text = text.replace('"generators": []', '"generators": %s%s' % ("[" * depth, "]" * depth))
    path.write_text(text)
    rehash(saved)
    with pytest.raises(SavedModelError, match=r"graphs\.json: lists and objects nested more "
                                              r"than 200 deep"):
        _load_quickly(saved)


class Filled(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def __call__(self, x):
        return x + tf.reduce_sum(tf.fill(tf.constant([5]), 1.0)) * 0.0


def _fill_of(folder, count):
    """Edits Filled's folded constant back into a Fill of `count` ones (the issue's 7 KB
    model whose load once computed 1 GB)."""
    def change(out, info, data):
        if info.filename == "c0.npy":
            buffer = io.BytesIO()
            np.save(buffer, np.array([count], np.int32))
            data = buffer.getvalue()
        out.writestr(info, data)
    _rewrite_npz(folder, schema.CONSTANTS, change)

    def refill(data):
        node = node_of_op(data, "Const")  # the dims, c0
        filled = next(n for n in data["functions"]["__call___0"]["graph"]["nodes"]
                      if n["outputs"] == [["float32", [5]]])
        filled.update(op="Fill", inputs=[node["name"], "Const_1"],
                      attrs={"static_shape": [count]}, outputs=[["float32", [count]]])
    edit_graphs(folder, refill)


def test_loading_computes_nothing_and_the_first_call_folds_within_the_limit(tmp_path):
    folder = tmp_path / "filled"
    save(Filled(), folder)
    _fill_of(folder, 250_000_000)
    tracemalloc.start()
    try:
        _load_quickly(folder)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20  # the Fill (1 GB) is neither folded nor computed
    folder = tmp_path / "small"  # a Fill within the folding limit is folded at the first call
    save(Filled(), folder)
    _fill_of(folder, 1000)
    loaded = _load_quickly(folder)
    assert loaded(tf.constant(2.0)).numpy() == 2.0
    source = loaded.signatures["serving_default"].concrete_function.executor_source
    assert "Fill" not in source and "Sum" not in source  # folded


class Failing(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def __call__(self, x):
        tf.debugging.assert_equal(x, 0.0)
        return x


def test_a_traceback_never_reads_a_fifo_recorded_as_the_source_file(tmp_path):
    folder = tmp_path / "failing"
    save(Failing(), folder)
    fifo = tmp_path / "source.py"
    os.mkfifo(fifo)

    def relocate(data):
        for node in data["functions"]["__call___0"]["graph"]["nodes"]:
            if node["location"] is not None:
                node["location"][0] = str(fifo)
    edit_graphs(folder, relocate)
    loaded = _load_quickly(folder)

    def fail_and_format():
        try:
            loaded(tf.constant(1.0))
        except tf.errors.InvalidArgumentError as e:
            return "".join(traceback.format_exception(e))
        raise AssertionError("the call did not fail")
    text = within(30, fail_and_format)
    assert "<saved model: %s>" % fifo in text
    assert "tf.debugging.assert_equal(x, 0.0)" in text  # the saved text of the line


def test_raw_memory_and_recursion_errors_never_escape(saved, monkeypatch):
    from runtime.saved_model import graph_decode
    for error in (MemoryError, RecursionError):
        def fail(*args, error=error, **kwargs):
            raise error()
        monkeypatch.setattr(graph_decode.Decoder, "function", fail)
        with pytest.raises(SavedModelError, match="graphs.json: objects, graphs or calls "
                           if error is RecursionError else "not enough memory"):
            load(saved)
    assert sys.getrecursionlimit() >= 1000
