"""A loader checks each attribute value of a saved graph against its op's declared type
(runtime/ops/attr_types.py) and refuses another with SavedModelError naming the file and the
field, before anything compiles or runs: a tampered model never loads only to fail in a
kernel at its first call."""

import numpy as np
import pytest

import autograph.tf as tf
from runtime.saved_model import SavedModelError, load, save
from tests.saved_model.tampering import edit_graphs, node_of_op


class Mixed(tf.Module):
    @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32)])
    def __call__(self, x):
        y = tf.einsum("ij,kj->ik", x, x)
        tf.print("sum", tf.reduce_sum(y))
        return tf.reduce_max(y, axis=1), tf.cast(x[:, 1:], tf.int32), tf.transpose(x)


@pytest.fixture
def saved(tmp_path):
    save(Mixed(), tmp_path / "mixed")
    return tmp_path / "mixed"


def _set(saved, op, attr, value):
    edit_graphs(saved, lambda data: node_of_op(data, op)["attrs"].__setitem__(attr, value))


def test_the_untampered_model_loads_and_runs(saved):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    maximum, part, transposed = load(saved)(tf.constant(x))
    np.testing.assert_array_equal(transposed.numpy(), x.T)


@pytest.mark.parametrize("op, attr, value, expected", [
    ("Max", "axis", "1", "an axis"),
    ("Max", "axis", [1.5], "an axis"),
    ("Max", "keepdims", 0, "a boolean"),
    ("Cast", "dtype", None, "a dtype, found NoneType"),
    ("Einsum", "output", 7, "a string"),
    ("Einsum", "inputs", {"list": [1, 2]}, "a list of"),
    ("Transpose", "perm", [0, "1"], "a list of integers or null"),
    ("PrintV2", "summarize", "3", "an integer"),
    ("PrintV2", "template", [["sum", 3]], "a list of"),
    ("StridedSlice", "spec", [["int", ["in", "0"]]], "an index expression"),
    ("StridedSlice", "spec", [["range", 0]], "an index expression"),
])
def test_an_attribute_value_not_of_its_declared_type_is_refused_naming_the_field(
        saved, op, attr, value, expected):
    _set(saved, op, attr, value)
    with pytest.raises(SavedModelError, match=r"graphs\.json: functions\.__call___0\.graph\."
                                              r"nodes\[\d+\]\.attrs\.%s: attribute '%s' of op "
                                              r"%s: expected %s" % (attr, attr, op, expected)):
        load(saved)


def test_a_slice_of_a_dynamic_input_the_node_does_not_have_is_refused(saved):
    _set(saved, "StridedSlice", "spec", [["slice", None, None, None],
                                         ["slice", ["in", 0], None, None]])
    with pytest.raises(SavedModelError, match=r"StridedSlice rejects .*dynamic input 0 of 0"):
        load(saved)


def test_a_print_template_with_more_places_than_values_is_refused(saved):
    _set(saved, "PrintV2", "template", [["sum"], [None], [None]])
    with pytest.raises(SavedModelError, match=r"PrintV2 rejects .*2 places for 1 values"):
        load(saved)



def test_a_node_missing_an_attribute_its_kernel_needs_is_refused(saved):
    edit_graphs(saved, lambda data: node_of_op(data, "Einsum")["attrs"].pop("output"))
    with pytest.raises(SavedModelError, match=r"nodes\[\d+\]\.attrs: op Einsum needs the "
                                              r"attribute 'output'"):
        load(saved)
