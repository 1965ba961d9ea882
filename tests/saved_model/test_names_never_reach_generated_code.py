"""A saved model whose names (attribute, node, function and parameter names) or attribute
values were edited to hold Python code never runs that code: the loader refuses a name or
value that is not what the op declares and the format allows, naming the file and field, and
the names it accepts are never written into generated source. Each payload would create a
marker file if it ran. (test_hostile_folders.py throws these payloads at every field.)"""

import numpy as np
import pytest

import autograph.tf as tf
from runtime.saved_model import SavedModelError, load, save
from tests.saved_model.tampering import edit_graphs, node_of_op, nodes_of


class Exposed(tf.Module):
    """Einsum, ZerosLike, All and Assert: ops whose nodes the executor writes as kernel
    calls with keyword attributes (the positions where a pasted name once ran)."""

    @tf.function(input_signature=[tf.TensorSpec([2, 2], tf.float32)])
    def __call__(self, x):
        y = tf.einsum("ij,jk->ik", x, x)
        z = tf.zeros_like(y)
        tf.debugging.assert_equal(tf.reduce_all(tf.equal(z, 0.0)), True)
        return y + z


X = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)


@pytest.fixture
def saved(tmp_path):
    folder = tmp_path / "model"
    save(Exposed(), folder)
    return folder


@pytest.fixture
def marker(tmp_path):
    """A file that exists only if a payload ran."""
    path = tmp_path / "payload_ran"
    yield path
    assert not path.exists(), "the payload ran"


def _code(marker):
    return "__import__('pathlib').Path(%r).touch()" % str(marker)


def _stealthy_attribute_name(marker):
    """The issue's payload: closes the kernel call and still returns the right value."""
    return ") if %s or 1 else 0; _ = dict(zz" % _code(marker)


def _load_and_call(folder):
    return load(folder)(tf.constant(X)).numpy()


@pytest.mark.parametrize("op", ["Einsum", "ZerosLike", "All", "Assert"])
def test_an_attribute_name_holding_code_is_refused_and_never_runs(saved, marker, op):
    name = _stealthy_attribute_name(marker)
    edit_graphs(saved, lambda data: node_of_op(data, op)["attrs"].__setitem__(name, 1))
    with pytest.raises(SavedModelError, match=r"graphs\.json: functions\.__call___0\.graph\."
                                              r"nodes\[\d+\]\.attrs: attribute name .* is "
                                              r"not a Python identifier"):
        _load_and_call(saved)


@pytest.mark.parametrize("name", ["lambda", "__class__", "x y", "é", "", "1a"])
def test_attribute_names_that_are_not_declared_plain_identifiers_are_refused(saved, marker, name):
    edit_graphs(saved, lambda data: node_of_op(data, "Einsum")["attrs"].__setitem__(name, 1))
    with pytest.raises(SavedModelError, match=r"attrs.*: (attribute name|op Einsum has no "
                                              r"attribute)"):
        _load_and_call(saved)


def test_an_attribute_its_op_does_not_declare_is_refused_naming_the_field(saved, marker):
    edit_graphs(saved, lambda data: node_of_op(data, "Einsum")["attrs"].__setitem__("zz", 1))
    with pytest.raises(SavedModelError, match=r"nodes\[1\]\.attrs\.zz: op Einsum has no "
                                              r"attribute 'zz' \(its attributes: inputs, "
                                              r"output\)"):
        _load_and_call(saved)


def _rename_node(data, old, new):
    for node in nodes_of(data):
        if node["name"] == old:
            node["name"] = new
        node["inputs"] = [new + ref[len(old):] if ref.split(":")[0] == old else ref
                          for ref in node["inputs"]]


@pytest.mark.parametrize("name", ["a\nb", "a\x00", "x" * 1025])
def test_node_names_that_are_not_printable_or_too_long_are_refused(saved, marker, name):
    edit_graphs(saved, lambda data: _rename_node(data, "Einsum", name))
    with pytest.raises(SavedModelError, match=r"nodes\[1\]\.name: a name must be 1 to 1024 "
                                              r"printable characters"):
        _load_and_call(saved)


@pytest.mark.parametrize("name", ["lambda", "None", "class", "x²"])
def test_a_function_named_like_a_keyword_or_in_other_letters_loads_and_runs(saved, name):
    edit_graphs(saved, lambda data: data["functions"]["__call___0"].__setitem__("name", name))
    np.testing.assert_array_equal(_load_and_call(saved), X @ X)


def test_a_parameter_name_holding_code_is_refused(saved, marker):
    def rename(data):
        data["functions"]["__call___0"]["params"][0][0] = "x=%s" % _code(marker)
    edit_graphs(saved, rename)
    with pytest.raises(SavedModelError, match=r"functions\.__call___0\.params\[0\]\[0\]: "
                                              r"parameter name .* is not a Python identifier"):
        _load_and_call(saved)


def test_an_attribute_of_a_ufunc_op_is_refused(saved, marker):
    edit_graphs(saved, lambda data: node_of_op(data, "AddV2")["attrs"].__setitem__(
        "where", False))
    with pytest.raises(SavedModelError, match=r"nodes\[\d+\]\.attrs\.where: op AddV2 has no "
                                              r"attribute 'where' \(its attributes: none\)"):
        _load_and_call(saved)


class Parts(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def __call__(self, x):
        parts = tf.TensorArray(tf.float32, size=2)
        return parts.write(0, tf.reduce_sum(x)).write(1, tf.reduce_min(x)).stack()


def test_an_attribute_value_of_another_type_than_its_op_declares_is_refused(tmp_path, marker):
    save(Parts(), tmp_path / "parts")
    edit_graphs(tmp_path / "parts", lambda data: node_of_op(data, "TensorArray")[
        "attrs"].__setitem__("infer_shape", _code(marker)))
    with pytest.raises(SavedModelError, match=r"nodes\[\d+\]\.attrs\.infer_shape: attribute "
                                              r"'infer_shape' of op TensorArray: expected a "
                                              r"boolean, found str"):
        load(tmp_path / "parts")
