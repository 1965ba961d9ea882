"""Hand edits of graphs.json that the loader once accepted: a TensorArray whose element dtype
is not a dtype (an AttributeError at the first call, on every backend), and an object whose
`__call__` is the object itself (a RecursionError), and a signature that does not describe
the graph's inputs (a TypeError at the call, or values the graph was not built for). All are
now refused at load with a SavedModelError naming the place in the file, whichever backend
would run the model."""

import json

import numpy as np
import pytest

import autograph
import autograph.tf as tf
from runtime.saved_model import SavedModelError, load, save, schema


class Parts(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def __call__(self, x):
        parts = tf.TensorArray(tf.float32, size=2)
        return parts.write(0, tf.reduce_sum(x)).write(1, tf.reduce_min(x)).stack()


@pytest.fixture(params=["numpy", "auto", "numba", "jax"])
def backend(request):
    """Each backend as the process default (the loaded functions run on it)."""
    autograph.config(backend=request.param)
    yield request.param
    autograph.config(backend=None)


@pytest.fixture
def saved(tmp_path):
    folder = tmp_path / "model"
    save(Parts(), folder)
    return folder


def _edit(folder, change):
    """Applies `change` to the parsed graphs.json and updates the manifest's checksums, as a
    person editing the file by hand would."""
    path = folder / schema.GRAPHS
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    manifest = json.loads((folder / schema.MANIFEST).read_text())
    for name in schema.DATA_FILES:
        content = (folder / name).read_bytes()
        manifest["files"][name] = {"sha256": schema.digest(content), "bytes": len(content)}
    (folder / schema.MANIFEST).write_text(json.dumps(manifest))


def _tensor_array_node(data):
    nodes = data["functions"]["__call___0"]["graph"]["nodes"]
    return next(node for node in nodes if node["op"] == "TensorArray")


def test_the_unedited_model_runs_on_each_backend(saved, backend):
    loaded = load(saved)
    result = loaded(tf.constant([3.0, -1.0, 2.0])).numpy()
    np.testing.assert_array_equal(result, np.array([4.0, -1.0], np.float32))


@pytest.mark.parametrize("dtype", [1, "float32", [], {"list": []}, True])
def test_a_tensor_array_dtype_that_is_not_a_dtype_is_refused_at_load(saved, backend, dtype):
    _edit(saved, lambda data: _tensor_array_node(data)["attrs"].__setitem__("dtype", dtype))
    with pytest.raises(SavedModelError, match=r"nodes\[\d+\]\.attrs\.dtype: attribute 'dtype' "
                                              r"of op TensorArray: expected a dtype or null"):
        load(saved)


def test_a_tensor_array_of_unknown_dtype_still_loads(saved):
    _edit(saved, lambda data: _tensor_array_node(data)["attrs"].__setitem__("dtype", None))
    load(saved)  # the op allows an unknown dtype (None)


def test_an_object_whose_call_is_not_a_function_is_refused_at_load(saved, backend):
    def call_itself(data):
        data["objects"][0]["children"]["__call__"] = 0
    _edit(saved, call_itself)
    with pytest.raises(SavedModelError, match=r"objects\[0\]\.children\.__call__: an "
                                              r"object's __call__ must be a saved function"):
        load(saved)


def _signature_of_call(data):
    return data["functions"]["__call___0"]["signature"]


def _retype(spec, dtype):
    spec["tensor_spec"]["dtype"] = dtype


def _reshape(spec, shape):
    spec["tensor_spec"]["shape"] = shape


@pytest.mark.parametrize("edit, problem", [
    (lambda s: _retype(s[0], "int32"),
     r"input 0 is a int32 tensor of shape \(None,\) in the signature but a float32 "
     r"placeholder of shape \(None,\)"),
    (lambda s: _reshape(s[0], [3]), r"input 0 is a float32 tensor of shape \(3,\)"),
    (lambda s: s.__setitem__(0, [s[0], s[0]]), r"the signature feeds 2 inputs but the graph "
                                               r"has 1"),
    (lambda s: s.__setitem__(0, 1.5), r"the signature feeds 0 inputs but the graph has 1"),
])
def test_a_signature_that_does_not_describe_the_graph_inputs_is_refused_at_load(
        saved, edit, problem):
    _edit(saved, lambda data: edit(_signature_of_call(data)))
    with pytest.raises(SavedModelError, match=r"functions\.__call___0\.signature: " + problem):
        load(saved)


def test_a_called_function_without_a_signature_is_refused_at_load(saved):
    def strip(data):
        data["functions"]["__call___0"]["signature"] = []
        data["functions"]["__call___0"]["params"] = []
    _edit(saved, strip)
    with pytest.raises(SavedModelError, match=r"function '__call___0' takes graph inputs but "
                                              r"has no signature"):
        load(saved)
