"""The runtime side of saved models, without the compiler: the ops' saving decisions, the
attribute codecs they declare, the JSON layout, and a round trip of a runtime Function."""

import io
import sys

import numpy as np
import pytest

from runtime import dtypes, errors
from runtime.function import Function
from runtime.ops import math_ops, registry
from runtime.saved_model import NotSaveableError, load, save, schema
from runtime.signature import TensorSpec
from runtime.variables import Variable

# Ops whose nodes hold Python code or Python-side state: a graph using them is never saved.
NOT_SAVEABLE = {"EagerPyFunc", "EagerPyFuncGrad", "AnonymousIterator", "IteratorGetNext",
                "IteratorHasNext", "WhileGrad", "WhileGradGrad", "PyFunc", "PyFuncStateless",
                "MeshRun"}
# Ops whose nodes hold Python code that a traced graph stands for in a saved model: saved as
# a node of another op (tf.custom_gradient's grad_fn, traced).
SAVED_AS_ANOTHER = {"CustomGradient": "SavedCustomGradient"}


def test_ops_holding_python_code_are_declared_not_saveable_with_a_reason():
    refused = {name for name, op in registry.REGISTRY.items() if op.saving.refusal}
    assert refused == NOT_SAVEABLE
    for name in refused:
        assert len(registry.get(name).saving.refusal) > 20


def test_ops_saved_as_another_are_declared_with_their_replacement():
    replaced = {name for name, op in registry.REGISTRY.items() if op.saving.replacement}
    assert replaced == set(SAVED_AS_ANOTHER)
    for name, saved in SAVED_AS_ANOTHER.items():
        assert registry.get(saved).saving.replacement is None


def test_a_saving_decision_must_be_declared_with_the_helpers():
    with pytest.raises(TypeError, match="saving must be not_saveable"):
        registry.register("TestBadSaving", lambda x: x, lambda specs, attrs: specs,
                          grad=registry.NOT_DIFFERENTIABLE, emit=registry.KERNEL_CALL,
                          saving={"x": 1})
    assert "TestBadSaving" not in registry.REGISTRY
    with pytest.raises(AttributeError, match="complete where it is declared"):
        registry.get("AddV2").saving = registry.not_saveable("no")


def test_the_print_stream_codec_names_standard_streams_and_refuses_objects():
    codec = registry.get("PrintV2").saving.codecs["output_stream"]
    assert [codec.encode(s) for s in (None, sys.stdout, sys.stderr, "file:///tmp/x")] == \
        [None, "stdout", "stderr", "file:///tmp/x"]
    with pytest.raises(TypeError, match="only sys.stdout, sys.stderr"):
        codec.encode(io.StringIO())
    assert codec.decode("stdout").name == "stdout"
    with pytest.raises(ValueError, match="output_stream must be"):
        codec.decode("/etc/passwd")


def test_the_assert_codec_names_known_error_classes_only():
    codec = registry.get("Assert").saving.codecs["error_class"]
    assert codec.decode(codec.encode(errors.AssertionFailedError)) is errors.AssertionFailedError
    with pytest.raises(TypeError, match="not one of the exception classes"):
        codec.encode(KeyboardInterrupt)
    with pytest.raises(ValueError, match="error_class must be one of"):
        codec.decode("os.system")


def _scaled_sum(x):
    return math_ops.multiply(x, _SCALE) + 1.0


_SCALE = Variable(np.float32(2.0), name="scale")


def test_a_runtime_function_round_trips_and_its_json_is_stable_and_readable(tmp_path):
    f = Function(_scaled_sum, input_signature=[TensorSpec([None], dtypes.float32)],
                 autograph=False)
    save(f, tmp_path / "a")
    save(f, tmp_path / "b")
    text = (tmp_path / "a" / schema.GRAPHS).read_text()
    assert text == (tmp_path / "b" / schema.GRAPHS).read_text()  # diffable: same bytes
    assert max(len(line) for line in text.splitlines()) <= 160
    assert '"op": "Mul"' in text and '"scale:0"' in text
    loaded = load(tmp_path / "a")
    result = loaded(np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(result.numpy(), [3.0, 5.0])
    assert loaded.signatures["serving_default"](x=np.array([0.5], np.float32))[
        "output_0"].numpy().tolist() == [2.0]


def test_an_uninitialised_variable_cannot_be_saved(tmp_path):
    holder = []

    def make(x):
        if not holder:  # created on the first trace, initialised by the first call
            holder.append(Variable(x * 2.0))
        return holder[0].read_value()

    f = Function(make, input_signature=[TensorSpec([], dtypes.float32)], autograph=False)
    f.get_concrete_function()
    with pytest.raises(NotSaveableError, match="has no value yet"):
        save(f, tmp_path / "m")
