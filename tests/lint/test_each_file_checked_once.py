"""`autograph check` reads each file once: named twice, or reached again through a link in a
directory, its findings are not repeated."""

import os

import pytest

from autograph import lint

SOURCE = "import autograph.tf as tf\n\n\n@tf.function\ndef f(x):\n    print('v', x)\n" \
         "    return x\n"


def test_a_file_named_twice_is_checked_once(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(SOURCE)
    findings, errors = lint.check_paths([str(tmp_path), str(path)])
    assert [f.code for f in findings] == ["AG101"] and errors == []


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
def test_a_link_to_a_checked_file_is_not_checked_again(tmp_path):
    (tmp_path / "model.py").write_text(SOURCE)
    os.symlink(tmp_path / "model.py", tmp_path / "same.py")
    findings, _ = lint.check_paths([str(tmp_path)])
    assert [(os.path.basename(f.path), f.code) for f in findings] == [("model.py", "AG101")]
