"""`load` of a path that is not a saved model's folder says which it is: missing, or a
file (a saved model is a folder)."""

import pytest

import autograph.tf as tf
from runtime.saved_model import SavedModelError


def test_a_file_is_not_a_saved_model_folder(tmp_path):
    path = tmp_path / "graphs.json"
    path.write_text("{}")
    with pytest.raises(SavedModelError, match="graphs.json: not a folder"):
        tf.saved_model.load(str(path))


def test_a_missing_path_is_named(tmp_path):
    with pytest.raises(SavedModelError, match="missing: no such folder"):
        tf.saved_model.load(str(tmp_path / "missing"))
