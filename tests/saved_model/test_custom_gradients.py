"""tf.custom_gradient in saved models: the gradient function is saved as a traced graph
(never as code) beside the function that calls it, so that the loaded function's gradient
is the custom one, in a fresh process too (TensorFlow's
SaveOptions(experimental_custom_gradients=True), the default); with False it is left out
and asking for that gradient after loading raises LookupError. The loader checks that a
saved gradient function fits its node."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import autograph.tf as tf
from runtime.saved_model import SavedModelError, schema

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@tf.custom_gradient
def clip_gradients(y):
    def backward(dy):
        return tf.clip_by_norm(dy, 0.5)
    return y, backward


class Clipping(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec(None)])
    def call_custom_grad(self, x):
        return clip_gradients(x)


class Scaled(tf.Module):
    """A custom gradient of two arguments (one without a gradient) reading a variable."""

    def __init__(self):
        super().__init__()
        self.w = tf.Variable(3.0)

    @tf.function(input_signature=[tf.TensorSpec([2]), tf.TensorSpec([2])])
    def __call__(self, x, mask):
        @tf.custom_gradient
        def scaled(x, mask):
            def grad(dy, variables):
                return (dy * 10.0, None), [tf.reduce_sum(dy) * 100.0]
            return x * self.w * mask, grad
        return scaled(x, mask)


def _gradient(function, v):
    with tf.GradientTape() as tape:
        output = function(v * v)
    return tape.gradient(output, v)


def test_a_loaded_function_keeps_its_custom_gradient(tmp_path):
    tf.saved_model.save(Clipping(), tmp_path / "m",
                        options=tf.saved_model.SaveOptions(experimental_custom_gradients=True))
    loaded = tf.saved_model.load(tmp_path / "m")
    v = tf.Variable(2.0)
    assert float(_gradient(loaded.call_custom_grad, v)) == 2.0  # 4 clipped to 0.5, times 4
    assert float(loaded.call_custom_grad(tf.constant(3.0))) == 3.0


def test_custom_gradients_are_saved_by_default_as_a_graph_not_code(tmp_path):
    tf.saved_model.save(Clipping(), tmp_path / "m")
    functions = json.loads((tmp_path / "m" / schema.GRAPHS).read_text())["functions"]
    ops = {key: [node["op"] for node in f["graph"]["nodes"]] for key, f in functions.items()}
    (caller,) = [key for key, names in ops.items() if "SavedCustomGradient" in names]
    (node,) = [n for n in functions[caller]["graph"]["nodes"]
               if n["op"] == "SavedCustomGradient"]
    gradient_key = node["attrs"]["grad_f"]["function"]
    assert "Sqrt" in ops[gradient_key]  # clip_by_norm's ops, traced
    assert not any("CustomGradient" in names for names in ops.values())
    assert float(_gradient(tf.saved_model.load(tmp_path / "m").call_custom_grad,
                           tf.Variable(2.0))) == 2.0


def test_the_custom_gradient_comes_from_the_folder_in_a_fresh_process(tmp_path):
    tf.saved_model.save(Clipping(), tmp_path / "m")
    script = ("import autograph.tf as tf\n"
              "loaded = tf.saved_model.load(%r)\n"
              "v = tf.Variable(3.0)\n"
              "with tf.GradientTape() as tape:\n"
              "    output = loaded.call_custom_grad(v * v)\n"
              "print(float(tape.gradient(output, v)))\n" % str(tmp_path / "m"))
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "3.0"  # 1 clipped to 0.5, times 6


def test_arguments_without_a_gradient_and_variables_read_keep_their_custom_gradients(
        tmp_path):
    model = Scaled()
    tf.saved_model.save(model, tmp_path / "m")
    loaded = tf.saved_model.load(tmp_path / "m")
    x, mask = tf.constant([1.0, 2.0]), tf.constant([1.0, 0.0])
    for function in (model, loaded):
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([x, mask])
            y = function(x, mask)
        np.testing.assert_array_equal(y.numpy(), [3.0, 0.0])
        np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [10.0, 10.0])
        assert tape.gradient(y, mask) is None
        assert float(tape.gradient(y, function.w)) == 200.0


def test_without_custom_gradients_the_function_loads_and_its_gradient_is_refused(tmp_path):
    tf.saved_model.save(Clipping(), tmp_path / "m",
                        options=tf.saved_model.SaveOptions(experimental_custom_gradients=False))
    loaded = tf.saved_model.load(tmp_path / "m")
    assert float(loaded.call_custom_grad(tf.constant(3.0))) == 3.0
    with pytest.raises(LookupError, match="experimental_custom_gradients=False"):
        _gradient(loaded.call_custom_grad, tf.Variable(2.0))


def test_save_options_take_tensorflows_names_and_refuse_what_they_cannot_do():
    assert tf.saved_model.SaveOptions().experimental_custom_gradients is True
    with pytest.raises(NotImplementedError, match="function_aliases"):
        tf.saved_model.SaveOptions(function_aliases={"f": None})
    with pytest.raises(TypeError, match="must be a bool"):
        tf.saved_model.SaveOptions(experimental_custom_gradients="yes")
    with pytest.raises(TypeError, match="SaveOptions"):
        tf.saved_model.save(Clipping(), "unused", options={"experimental_custom_gradients": 1})


def _edited(folder, edit):
    """Edits graphs.json of the saved model in `folder` with `edit(functions)`, rehashing
    the manifest so that only the loader's own checks stand in the way."""
    path = folder / schema.GRAPHS
    graphs = json.loads(path.read_text())
    edit(graphs["functions"])
    path.write_bytes(schema.dumps(graphs))
    manifest = json.loads((folder / schema.MANIFEST).read_text())
    data = path.read_bytes()
    manifest["files"][schema.GRAPHS] = {"sha256": schema.digest(data), "bytes": len(data)}
    (folder / schema.MANIFEST).write_bytes(schema.dumps(manifest))


def _saved_node(functions):
    for f in functions.values():
        for node in f["graph"]["nodes"]:
            if node["op"] == "SavedCustomGradient":
                return node
    raise AssertionError("no SavedCustomGradient node")


@pytest.mark.parametrize("edit, message", [
    (lambda node, functions: node.update(op="CustomGradient"), "never saved"),
    (lambda node, functions: node["attrs"].update(gradient_inputs={"list": []}),
     "outputs do not match"),
    (lambda node, functions: node["attrs"].update(n_outputs=2), "rejects"),
    (lambda node, functions: node["attrs"].update(grad_f={"function": next(
        key for key in functions if "SavedCustomGradient" in json.dumps(functions[key]))}),
     "calls itself|do not match"),
])
def test_a_saved_gradient_that_does_not_fit_its_node_is_refused(tmp_path, edit, message):
    tf.saved_model.save(Clipping(), tmp_path / "m")
    _edited(tmp_path / "m", lambda functions: edit(_saved_node(functions), functions))
    with pytest.raises(SavedModelError, match=message):
        tf.saved_model.load(tmp_path / "m")
