"""`autograph check FILE_OR_DIR...`: output lines, JSON, exit statuses, rule selection,
unreadable input, and that the files are read, never run."""

import json
import pathlib
import subprocess
import sys
import textwrap

import pytest

from autograph import cli

ROOT = pathlib.Path(__file__).resolve().parents[2]  # `-m autograph` imports this checkout

CLEAN = '''\
import autograph.tf as tf

@tf.function
def f(x):
    tf.print("value", x)
    return x + 1
'''

TWO_FINDINGS = '''\
import autograph.tf as tf

external = []

@tf.function
def f(x):
    print("value", x)
    external.append(x)
    return x
'''


def run(capsys, *argv):
    status = cli.main(["check", *argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def files(tmp_path):
    (tmp_path / "clean.py").write_text(CLEAN)
    (tmp_path / "two.py").write_text(TWO_FINDINGS)
    return tmp_path


def test_clean_file_exits_0_and_prints_nothing(files, capsys):
    assert run(capsys, str(files / "clean.py")) == (0, "", "")


def test_findings_are_one_line_each_and_exit_1(files, capsys):
    path = str(files / "two.py")
    status, out, err = run(capsys, path)
    assert status == 1 and err == ""
    lines = out.splitlines()
    assert [line.split(" ")[:2] for line in lines] == [[path + ":7:5:", "AG101"],
                                                       [path + ":8:5:", "AG102"]]
    assert all("(fix: " in line for line in lines)


def test_json_format_is_an_array_of_findings(files, capsys):
    status, out, _ = run(capsys, "--format", "json", str(files / "two.py"))
    assert status == 1
    found = json.loads(out)
    assert [(f["line"], f["column"], f["code"], f["name"]) for f in found] == [
        (7, 5, "AG101", "print-of-tensor"), (8, 5, "AG102", "outer-state-mutation")]
    assert all(f["path"].endswith("two.py") and f["message"] and f["hint"] for f in found)


def test_json_of_a_clean_file_is_an_empty_array(files, capsys):
    assert run(capsys, "--format", "json", str(files / "clean.py")) == (0, "[]\n", "")


def test_a_directory_is_checked_file_by_file(files, capsys):
    (files / "sub").mkdir()
    (files / "sub" / "three.py").write_text(TWO_FINDINGS)
    (files / "notes.txt").write_text(TWO_FINDINGS)
    status, out, _ = run(capsys, str(files))
    assert status == 1
    assert sorted({line.split(":")[0] for line in out.splitlines()}) == [
        str(files / "sub" / "three.py"), str(files / "two.py")]


@pytest.mark.parametrize("options, codes", [
    (["--select", "AG101"], ["AG101"]),
    (["--ignore", "AG101"], ["AG102"]),
    (["--select", "AG1", "--ignore", "AG102"], ["AG101"]),
    (["--select", "AG2"], []),
])
def test_select_and_ignore(files, capsys, options, codes):
    status, out, _ = run(capsys, *options, str(files / "two.py"))
    assert [line.split(" ")[1] for line in out.splitlines()] == codes
    assert status == (1 if codes else 0)


def test_an_unknown_rule_code_exits_2(files, capsys):
    status, out, err = run(capsys, "--select", "AG999", str(files / "two.py"))
    assert (status, out) == (2, "")
    assert "unknown rule code 'AG999'" in err


def test_a_missing_file_exits_2_naming_it_and_the_others_are_still_checked(files, capsys):
    missing = str(files / "missing.py")
    status, out, err = run(capsys, missing, str(files / "two.py"))
    assert status == 2
    assert len(out.splitlines()) == 2
    assert err.strip().splitlines() == ["autograph: error: cannot read %s: No such file or "
                                        "directory" % missing]


def test_a_syntax_error_exits_2_naming_the_file_and_line(files, capsys):
    broken = files / "broken.py"
    broken.write_text("import autograph.tf as tf\n\n@tf.function\ndef f(x:\n    return x\n")
    status, out, err = run(capsys, str(broken))
    assert (status, out) == (2, "")
    assert err.startswith("autograph: error: %s:4:" % broken)
    assert "syntax error" in err and len(err.splitlines()) == 1


def test_undecodable_bytes_exit_2_naming_the_line(files, capsys):
    bad = files / "bad.py"
    bad.write_bytes(b"x = 1\ny = '\xff'\n")
    status, _, err = run(capsys, str(bad))
    assert status == 2
    assert err.startswith("autograph: error: %s:2: cannot decode byte 0xff" % bad)


def test_a_latin_1_file_is_decoded_as_it_declares(files, capsys):
    declared = files / "latin.py"
    declared.write_bytes(b"# -*- coding: latin-1 -*-\n" + TWO_FINDINGS.replace(
        '"value"', '"caf\xe9"').encode("latin-1"))
    status, out, _ = run(capsys, str(declared))
    assert status == 1 and "tf.print('caf\xe9', x)" in out


def test_files_are_read_never_run(tmp_path, capsys):
    marker = tmp_path / "ran"
    source = tmp_path / "runs.py"
    source.write_text(textwrap.dedent('''\
        import pathlib
        import autograph.tf as tf
        pathlib.Path(%r).write_text("ran")
        raise SystemExit(3)
        @tf.function
        def f(x):
            print("value", x)
        ''' % str(marker)))
    before = source.read_bytes()
    status, out, _ = run(capsys, str(source))
    assert status == 1 and "AG101" in out
    assert not marker.exists()
    assert source.read_bytes() == before


def test_noqa_comment_silences_the_cli_too(tmp_path, capsys):
    source = tmp_path / "quiet.py"
    source.write_text(TWO_FINDINGS.replace('print("value", x)',
                                           'print("value", x)  # autograph: noqa[AG101]'))
    status, out, _ = run(capsys, str(source))
    assert status == 1 and [line.split(" ")[1] for line in out.splitlines()] == ["AG102"]


def test_help_lists_every_rule(capsys):
    with pytest.raises(SystemExit):
        cli.main(["check", "--help"])
    out = capsys.readouterr().out
    for code in ("AG101", "AG201", "AG301", "AG401", "AG501", "AG601", "AG701"):
        assert code in out
    assert "without importing or running\nit" in out


def test_python_m_autograph_check_runs_the_subcommand(files):
    result = subprocess.run([sys.executable, "-m", "autograph", "check", str(files / "two.py")],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 1
    assert len(result.stdout.splitlines()) == 2 and result.stderr == ""
