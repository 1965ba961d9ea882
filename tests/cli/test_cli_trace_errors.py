"""`autograph explain`/`graph`: a Python error raised by the user's code while tracing names
the user's line (autograph puts it in a note of the exception, which the one-line error
keeps)."""

from autograph import cli


def test_an_error_raised_by_user_code_while_tracing_names_its_line(tmp_path, capsys):
    path = tmp_path / "points.py"
    path.write_text("import autograph.tf as tf\n\n\n@tf.function\ndef f(p):\n"
                    "    return p.x * 2.0\n")
    status = cli.main(["explain", "%s:f" % path, "--arg", "3"])
    _, err = capsys.readouterr()
    assert status == 2 and err.count("\n") == 1
    assert "AttributeError: 'int' object has no attribute 'x'" in err
    assert "%s:6 in f" % path in err
