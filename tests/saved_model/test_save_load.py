"""tf.saved_model.save / load in one process: what is saved, what is refused (with the op and
the user's line, leaving no folder), the loaded object's functions, signatures and
variables, and the clear errors of a folder that cannot be loaded."""

import io
import json
import os
import sys

import numpy as np
import pytest

import autograph.tf as tf
from runtime.saved_model import NotSaveableError, SavedModelError, schema


def _line(text):
    """The line number of this file's first line (after this function) holding `text`."""
    with open(__file__) as f:
        lines = f.read().splitlines()
    return next(i for i, line in enumerate(lines, 1) if text in line and "_line(" not in line)


def _leftovers(folder):
    """Entries a save left beside `folder` (temporary folders of a failed save)."""
    parent = os.path.dirname(str(folder))
    return [n for n in os.listdir(parent) if n.startswith("." + os.path.basename(str(folder)))]


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.v = tf.Variable([1.0, 2.0])
        self.frozen = tf.Variable(3.0, trainable=False)

    @tf.function(input_signature=[tf.TensorSpec([2], tf.float32)])
    def __call__(self, x):
        return x * self.v + self.frozen


def test_loaded_variables_are_restored_and_assignments_change_later_calls(tmp_path):
    model = Model()
    tf.saved_model.save(model, tmp_path / "m")
    model.v.assign([0.0, 0.0])  # changes after saving are not in the folder
    loaded = tf.saved_model.load(tmp_path / "m")
    x = tf.constant([1.0, 1.0])
    np.testing.assert_array_equal(loaded(x).numpy(), [4.0, 5.0])
    loaded.v.assign([10.0, 20.0])
    np.testing.assert_array_equal(loaded(x).numpy(), [13.0, 23.0])
    assert loaded.v.trainable and not loaded.frozen.trainable
    assert loaded.v.name == "Variable:0"


def test_the_serving_signature_takes_keywords_and_returns_a_dict(tmp_path):
    tf.saved_model.save(Model(), tmp_path / "m")
    signature = tf.saved_model.load(tmp_path / "m").signatures["serving_default"]
    result = signature(x=tf.constant([1.0, 1.0]))
    assert list(result) == ["output_0"]
    np.testing.assert_array_equal(result["output_0"].numpy(), [4.0, 5.0])
    with pytest.raises(TypeError, match="keyword arguments only"):
        signature(tf.constant([1.0, 1.0]))


def test_a_call_matching_no_saved_signature_raises_type_error_listing_them(tmp_path):
    tf.saved_model.save(Model(), tmp_path / "m")
    loaded = tf.saved_model.load(tmp_path / "m")
    with pytest.raises(TypeError, match=r"(?s)saved signatures:.*x: TensorSpec\(shape=\(2,\), "
                                        r"dtype=tf.float32"):
        loaded(tf.constant([1.0, 2.0, 3.0]))


def test_a_py_function_is_refused_naming_the_op_and_the_line_and_no_folder_is_left(tmp_path):
    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def f(x):
        return tf.py_function(lambda a: a * 2, [x], tf.float32)  # the py_function line

    folder = tmp_path / "m"
    with pytest.raises(NotSaveableError) as info:
        tf.saved_model.save(f, folder)
    message = str(info.value)
    assert "EagerPyFunc" in message and "Python function" in message
    assert "%s:%d" % (__file__, _line("# the py_function line")) in message
    assert not folder.exists() and _leftovers(folder) == []


def test_iterating_a_dataset_inside_the_function_is_refused(tmp_path):
    ds = tf.data.Dataset.range(3)

    @tf.function(input_signature=[])
    def f():
        total = tf.constant(0, tf.int64)
        for x in ds:
            total += x
        return total

    with pytest.raises(NotSaveableError, match="Dataset"):
        tf.saved_model.save(f, tmp_path / "m")


def test_a_function_without_traces_or_signature_cannot_be_saved(tmp_path):
    @tf.function
    def f(x):
        return x

    with pytest.raises(NotSaveableError, match="no traces"):
        tf.saved_model.save(f, tmp_path / "m")


def test_a_python_object_argument_cannot_be_saved(tmp_path):
    @tf.function
    def f(step, x):
        return step(x)

    f(tf.tanh, tf.constant(1.0))
    with pytest.raises(NotSaveableError, match="cannot save function f"):
        tf.saved_model.save(f, tmp_path / "m")


def test_an_existing_folder_is_replaced_only_when_it_holds_a_saved_model(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="not empty"):
        tf.saved_model.save(Model(), folder)
    assert (folder / "notes.txt").read_text() == "mine"
    other = tmp_path / "saved"
    tf.saved_model.save(Model(), other)
    model = Model()
    model.frozen.assign(100.0)
    tf.saved_model.save(model, other)  # overwrites the earlier saved model
    loaded = tf.saved_model.load(other)
    assert float(loaded.frozen.numpy()) == 100.0
    assert _leftovers(other) == []


def test_stablehlo_needs_jax_and_unknown_formats_are_refused(tmp_path, monkeypatch):
    from runtime.backends import jax_backend
    monkeypatch.setattr(jax_backend, "unavailable", lambda: "jax is not installed")
    with pytest.raises(ValueError, match="exports through JAX: jax is not installed"):
        tf.saved_model.save(Model(), tmp_path / "m", format="stablehlo")
    with pytest.raises(ValueError, match="unknown saved model format 'onnx'"):
        tf.saved_model.save(Model(), tmp_path / "m", format="onnx")
    assert not (tmp_path / "m").exists()


def _edit_json(path, edit):
    data = json.loads(path.read_text())
    edit(data)
    path.write_text(json.dumps(data))


def test_a_newer_format_version_is_a_clear_error(tmp_path):
    tf.saved_model.save(Model(), tmp_path / "m")
    _edit_json(tmp_path / "m" / schema.MANIFEST, lambda d: d.update(version=2))
    with pytest.raises(SavedModelError, match=r"saved_model.json: version: .*format version 2, "
                                              r"newer than this runtime reads"):
        tf.saved_model.load(tmp_path / "m")


def test_truncated_missing_and_edited_files_are_clear_errors(tmp_path):
    tf.saved_model.save(Model(), tmp_path / "m")
    graphs = tmp_path / "m" / schema.GRAPHS
    content = graphs.read_bytes()
    graphs.write_bytes(content[:100])
    with pytest.raises(SavedModelError, match="graphs.json: holds 100 bytes"):
        tf.saved_model.load(tmp_path / "m")
    graphs.write_bytes(content.replace(b'"x"', b'"y"'))
    with pytest.raises(SavedModelError, match="graphs.json: its SHA-256 differs"):
        tf.saved_model.load(tmp_path / "m")
    graphs.unlink()
    with pytest.raises(SavedModelError, match="graphs.json: cannot read the file"):
        tf.saved_model.load(tmp_path / "m")
    with pytest.raises(SavedModelError, match="no such folder"):
        tf.saved_model.load(tmp_path / "absent")


def _rehash(folder):
    """Updates the manifest to the files' current checksums (a deliberate hand edit)."""
    def update(manifest):
        for name in schema.DATA_FILES:
            content = (folder / name).read_bytes()
            manifest["files"][name] = {"sha256": schema.digest(content), "bytes": len(content)}
    _edit_json(folder / schema.MANIFEST, update)


def test_a_hand_edited_graph_naming_an_unknown_or_unsaveable_op_is_refused(tmp_path):
    tf.saved_model.save(Model(), tmp_path / "m")
    graphs = tmp_path / "m" / schema.GRAPHS
    original = graphs.read_text()
    for op, problem in [("NoSuchOp", "no op named 'NoSuchOp'"),
                        ("EagerPyFunc", "op EagerPyFunc is never saved")]:
        graphs.write_text(original.replace('"op": "Mul"', '"op": "%s"' % op))
        _rehash(tmp_path / "m")
        with pytest.raises(SavedModelError, match=r"graphs.json: functions\.__call___0\.graph"
                                                  r"\.nodes\[\d+\]\.op: %s" % problem):
            tf.saved_model.load(tmp_path / "m")


def test_an_error_in_a_loaded_function_names_the_saved_user_line(tmp_path):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def checked(x):
        tf.debugging.assert_equal(tf.reduce_all(x >= 0.0), True, message="negative")  # check
        return tf.sqrt(x)

    tf.saved_model.save(checked, tmp_path / "m")
    loaded = tf.saved_model.load(tmp_path / "m")
    np.testing.assert_array_equal(loaded(tf.constant([4.0])).numpy(), [2.0])
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        loaded(tf.constant([-4.0]))
    assert "%s:%d" % (__file__, _line("# check")) in str(info.value)
    assert "tf.debugging.assert_equal" in str(info.value)  # the saved text of the line


def test_a_python_assert_on_a_tensor_raises_the_same_error_after_loading(tmp_path):
    @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
    def positive(x):
        assert x > 0, "x must be positive"
        return x

    tf.saved_model.save(positive, tmp_path / "m")
    loaded = tf.saved_model.load(tmp_path / "m")
    assert int(loaded(tf.constant(3))) == 3
    with pytest.raises(AssertionError, match="x must be positive"):
        loaded(tf.constant(-3))


def test_strings_with_nul_and_empty_elements_round_trip(tmp_path):
    @tf.function(input_signature=[tf.TensorSpec([2], tf.string)])
    def join(x):
        return x + tf.constant([b"a\x00", b""])

    tf.saved_model.save(join, tmp_path / "m")
    loaded = tf.saved_model.load(tmp_path / "m")
    assert list(loaded(tf.constant([b"", b"z\x00"])).numpy()) == [b"a\x00", b"z\x00"]


def test_random_ops_continue_their_generators_and_shared_ones_stay_shared(tmp_path):
    @tf.function(input_signature=[])
    def draws():
        return tf.random.uniform([2]), tf.random.uniform([2])

    draws()
    tf.saved_model.save(draws, tmp_path / "m")
    loaded = tf.saved_model.load(tmp_path / "m")
    first, second = loaded()
    want_first, want_second = draws()
    np.testing.assert_array_equal(first.numpy(), want_first.numpy())
    np.testing.assert_array_equal(second.numpy(), want_second.numpy())
    assert not np.array_equal(first.numpy(), second.numpy())


def test_printing_to_stdout_is_saved_and_other_streams_are_refused(tmp_path, capsys):
    @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
    def shout(x):
        tf.print("x is", x, output_stream=sys.stdout)
        return x

    tf.saved_model.save(shout, tmp_path / "m")
    tf.saved_model.load(tmp_path / "m")(tf.constant(7))
    assert capsys.readouterr().out == "x is 7\n"

    @tf.function(input_signature=[])
    def to_buffer():
        tf.print("hi", output_stream=io.StringIO())
        return tf.constant(0)

    with pytest.raises(NotSaveableError, match="attribute 'output_stream'"):
        tf.saved_model.save(to_buffer, tmp_path / "other")


def test_a_gradient_flows_through_a_loaded_function_to_its_inputs_and_variables(tmp_path):
    model = Model()
    tf.saved_model.save(model, tmp_path / "m")
    loaded = tf.saved_model.load(tmp_path / "m")
    x = tf.constant([3.0, 4.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(loaded(x) ** 2)
    dx, dv = tape.gradient(y, [x, loaded.v])
    out = x.numpy() * np.array([1.0, 2.0]) + 3.0
    np.testing.assert_allclose(dx.numpy(), 2 * out * np.array([1.0, 2.0]))
    np.testing.assert_allclose(dv.numpy(), 2 * out * x.numpy())


def test_nested_objects_lists_and_namedtuple_outputs_are_rebuilt(tmp_path):
    import collections
    Pair = collections.namedtuple("Pair", ["low", "high"])

    class Outer(tf.Module):
        def __init__(self):
            super().__init__()
            self.inner = Model()
            self.layers = [tf.Variable(1), {"b": tf.Variable(2)}]

        @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
        def split(self, x):
            return Pair(x - self.layers[0], x + self.layers[1]["b"])

    tf.saved_model.save(Outer(), tmp_path / "m")
    loaded = tf.saved_model.load(tmp_path / "m")
    result = loaded.split(tf.constant(5))
    assert type(result).__name__ == "Pair" and (int(result.low), int(result.high)) == (4, 7)
    loaded.layers[1]["b"].assign(10)
    assert int(loaded.split(tf.constant(5)).high) == 15
    np.testing.assert_array_equal(loaded.inner(tf.constant([1.0, 1.0])).numpy(), [4.0, 5.0])
    assert len(loaded.variables) == 4 and len(loaded.trainable_variables) == 3
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        loaded.missing


def test_a_gradient_taken_inside_through_a_call_and_an_if_is_saved(tmp_path):
    w = tf.Variable(2.0)

    @tf.function
    def inner(x):
        return x * w * x

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def step(x):
        with tf.GradientTape() as tape:
            if x > 0:
                y = inner(x)
            else:
                y = x * w
        return tape.gradient(y, w)

    tf.saved_model.save(step, tmp_path / "m")
    loaded = tf.saved_model.load(tmp_path / "m")
    assert float(loaded(tf.constant(3.0))) == float(step(tf.constant(3.0))) == 9.0
    assert float(loaded(tf.constant(-3.0))) == float(step(tf.constant(-3.0))) == -3.0


def test_the_gradient_of_a_staged_while_loop_inside_the_function_is_refused(tmp_path):
    w = tf.Variable(2.0)

    @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
    def step(x):
        with tf.GradientTape() as tape:
            y = x
            while y < 10.0:
                y = y * w
        return tape.gradient(y, w)

    with pytest.raises(NotSaveableError, match="WhileGrad.*gradient of a tensor-dependent "
                                               "while loop"):
        tf.saved_model.save(step, tmp_path / "m")
    assert not (tmp_path / "m").exists()


def test_attributes_holding_nothing_saveable_are_left_out(tmp_path):
    class Plain:
        def __init__(self):
            self.note = "text"

    class Holder(tf.Module):
        def __init__(self):
            super().__init__()
            self.empty = [Plain(), [Plain()]]
            self.settings = {"rate": 0.1}
            self.w = tf.Variable(1.0)

    tf.saved_model.save(Holder(), tmp_path / "m")
    loaded = tf.saved_model.load(tmp_path / "m")
    assert sorted(vars(loaded)) == ["signatures", "w"]
    assert float(loaded.w.numpy()) == 1.0
