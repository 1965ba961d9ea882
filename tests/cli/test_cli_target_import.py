"""`autograph explain`/`graph` import the user's file as `python FILE.py` would run it: its
module-level code sees `sys.argv == [FILE]`, not autograph's arguments, and a module that
exits (sys.exit, argparse) is a one-line import error, not autograph exiting silently."""

import sys

from autograph import cli


def test_a_module_that_exits_while_imported_is_an_import_error(tmp_path, capsys):
    path = tmp_path / "exits.py"
    path.write_text("import sys\n\n\ndef f(x):\n    return x\n\n\nsys.exit(3)\n")
    status = cli.main(["explain", "%s:f" % path, "--arg", "float32[]"])
    err = capsys.readouterr().err
    assert status == 2
    assert "importing %s failed at %s:8: SystemExit: 3" % (path, path) in err


def test_module_level_code_sees_only_its_own_file_in_argv(tmp_path, capsys):
    path = tmp_path / "argv.py"
    path.write_text("import sys\n\nSEEN = list(sys.argv)\n\n\ndef f(x):\n"
                    "    assert SEEN == [%r], SEEN\n    return x\n" % str(path))
    argv = list(sys.argv)
    status = cli.main(["explain", "%s:f" % path, "--arg", "float32[]"])
    assert status == 0, capsys.readouterr().err
    assert sys.argv == argv
