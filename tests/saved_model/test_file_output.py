"""A loaded model writes files only when its loader allows it: a `tf.print` to a 'file://'
path is refused at load, naming the op and the path, unless `allow_file_output=True`."""

import pytest

import autograph.tf as tf
from runtime.saved_model import SavedModelError, load, save
from tests.saved_model.tampering import edit_graphs, node_of_op


def _printing_to(path):
    class Printing(tf.Module):
        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def __call__(self, x):
            tf.print("value", x, output_stream="file://%s" % path)
            return x + 1.0
    return Printing()


def test_a_model_printing_to_a_file_is_refused_at_load_naming_the_op_and_path(tmp_path):
    target = tmp_path / "printed.txt"
    save(_printing_to(target), tmp_path / "m")
    with pytest.raises(SavedModelError, match=r"graphs\.json: functions\.__call___0\.graph\."
                                              r"nodes\[\d+\]: op PrintV2 writes to the file "
                                              r"'.*printed\.txt' when the function runs"):
        load(tmp_path / "m")
    assert not target.exists()


def test_file_output_allowed_by_the_loader_is_written(tmp_path):
    target = tmp_path / "printed.txt"
    save(_printing_to(target), tmp_path / "m")
    loaded = load(tmp_path / "m", allow_file_output=True)
    assert loaded(tf.constant(2.0)).numpy() == 3.0
    assert target.read_text() == "value 2\n"


def test_an_edited_stream_pointing_at_another_file_is_refused(tmp_path):
    save(_printing_to(tmp_path / "printed.txt"), tmp_path / "m")
    edit_graphs(tmp_path / "m", lambda data: node_of_op(data, "PrintV2")["attrs"].__setitem__(
        "output_stream", "file:///etc/passwd"))
    with pytest.raises(SavedModelError, match="writes to the file '/etc/passwd'"):
        load(tmp_path / "m")
