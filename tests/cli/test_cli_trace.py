"""`autograph explain FILE.py:FUNC --arg ...` and `autograph graph ... -o OUT`: the
subcommands that import a file and trace one of its functions."""

import json
import os
import re
import shutil
import stat
import sys
import textwrap

import pytest

from autograph import cli, cli_args
from autograph.cli_common import CommandError
from runtime.signature import TensorSpec

MODEL = textwrap.dedent('''\
    import autograph.tf as tf


    @tf.function
    def shrink(x, n):
        for _ in range(n):
            x = x / 2.0
        while tf.reduce_sum(x) > 1.0:
            x = tf.tanh(x)
        return x


    class Model:
        def scale(self, x):
            if x > 0:
                x = x * 2.0
            return x


    model = Model()
    ''')


@pytest.fixture
def model(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MODEL)
    return path


def run(capsys, *argv):
    status = cli.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_parse_arg_reads_tensor_specs_and_python_literals():
    assert cli_args.parse_arg("float32[None,3]") == TensorSpec([None, 3], "float32")
    assert cli_args.parse_arg("int32[]") == TensorSpec([], "int32")
    assert cli_args.parse_arg(" bool[ 2 , None ] ") == TensorSpec([2, None], "bool")
    assert cli_args.parse_arg("float64[?]") == TensorSpec(None, "float64")
    assert cli_args.parse_arg("3") == 3 and cli_args.parse_arg("True") is True
    assert cli_args.parse_arg("[1, 2.5]") == [1, 2.5]
    assert cli_args.parse_arg("'text'") == "text"


@pytest.mark.parametrize("text, message", [
    ("float33[2]", "unknown dtype 'float33'"),
    ("resource[]", "unknown dtype 'resource'"),
    ("float32[a]", "bad dimension 'a'"),
    ("float32[2.5]", "bad dimension '2.5'"),
    ("hello", "not a tensor spec"),
    ("float32", "not a tensor spec"),
])
def test_parse_arg_names_what_is_wrong(text, message):
    with pytest.raises(CommandError, match=message):
        cli_args.parse_arg(text)


def test_explain_prints_the_staging_report(model, capsys):
    status, out, err = run(capsys, "explain", "%s:shrink" % model, "--arg", "float32[None]",
                           "--arg", "2")
    assert (status, err) == (0, "")
    assert "Staging report for shrink(x, n=2)" in out
    assert re.search(r"model\.py:6 +for +Python +iterates a Python range\(0, 2\) +1 +2 ", out)
    assert re.search(r"model\.py:8 +while +StatelessWhile +condition is a tensor bool\[\]",
                     out)


def test_explain_json_and_dotted_function_names(model, capsys):
    status, out, _ = run(capsys, "explain", "%s:model.scale" % model, "--arg", "float32[]",
                         "--json")
    data = json.loads(out)
    assert status == 0 and data["function"] == "scale"
    assert [(s["construct"], s["staged_as"]) for s in data["statements"]] == [
        ("if", "StatelessIf")]


def test_explain_help_says_it_imports_the_file(capsys):
    with pytest.raises(SystemExit):
        cli.main(["explain", "--help"])
    assert "is imported (its module-level code runs)" in " ".join(
        capsys.readouterr().out.split())


@pytest.mark.parametrize("target, message", [
    ("{dir}/model.py", "expected FILE.py:FUNC"),
    ("{dir}/missing.py:f", "no such file"),
    ("{dir}/model.py:nothing", "has no function nothing (it defines: Model, shrink)"),
    ("{dir}/model.py:model.nothing", "has no function model.nothing"),
    ("{dir}/model.py:model", "is a Model, not a function"),
])
def test_bad_targets_are_one_line_errors(model, capsys, target, message):
    status, out, err = run(capsys, "explain", target.format(dir=model.parent))
    assert status == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_a_file_that_fails_to_import_names_its_line(tmp_path, capsys):
    path = tmp_path / "bad.py"
    path.write_text("x = 1\nraise ValueError('no model here')\n")
    status, _, err = run(capsys, "explain", "%s:f" % path)
    assert status == 2
    assert "importing %s failed at %s:2: ValueError: no model here" % (path, path) in err


def test_a_function_that_fails_to_trace_is_a_one_line_error(tmp_path, capsys):
    path = tmp_path / "broken.py"
    path.write_text("def f(x):\n    if x > 0:\n        y = 1\n    else:\n        y = 'a'\n"
                    "    return y\n")
    status, _, err = run(capsys, "explain", "%s:f" % path, "--arg", "float32[]")
    assert status == 2 and err.count("\n") == 1
    assert "tracing %s:f failed: TypeError" % path in err and "broken.py:2" in err


def test_graph_writes_dot(model, tmp_path, capsys):
    out_path = tmp_path / "shrink.dot"
    status, out, _ = run(capsys, "graph", "%s:shrink" % model, "--arg", "float32[3]",
                         "--arg", "1", "-o", out_path)
    assert status == 0 and "dot -Tsvg %s" % out_path in out
    text = out_path.read_text()
    assert text.startswith('digraph "shrink(x, n=1)" {') and "StatelessWhile" in text


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
@pytest.mark.parametrize("kind, magic", [("svg", b"<svg"), ("png", b"\x89PNG")])
def test_graph_renders_with_graphviz(model, tmp_path, capsys, kind, magic):
    out_path = tmp_path / ("shrink." + kind)
    status, out, err = run(capsys, "graph", "%s:shrink" % model, "--arg", "float32[3]",
                           "--arg", "1", "-o", out_path)
    assert (status, err) == (0, "")
    assert magic in out_path.read_bytes()[:1000]
    assert sorted(os.listdir(tmp_path)) == ["model.py", "shrink." + kind]  # nor __pycache__


def _fake_dot(folder, script):
    path = folder / "dot"
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return folder


def test_a_failing_renderer_leaves_nothing_behind(model, tmp_path, capsys, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(_fake_dot(bin_dir, 'echo "half" > "$3"; echo boom >&2; '
                                                       'exit 3\n')))
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    (out_dir / "keep.svg").write_text("old picture")
    status, _, err = run(capsys, "graph", "%s:shrink" % model, "--arg", "float32[3]",
                         "--arg", "1", "-o", out_dir / "keep.svg")
    assert status == 1 and "failed (status 3): boom" in err
    assert os.listdir(out_dir) == ["keep.svg"]
    assert (out_dir / "keep.svg").read_text() == "old picture"


def test_svg_without_graphviz_says_how_to_render_and_writes_nothing(model, tmp_path, capsys,
                                                                    monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    status, _, err = run(capsys, "graph", "%s:shrink" % model, "--arg", "float32[3]",
                         "--arg", "1", "-o", tmp_path / "g.svg")
    assert status == 2
    assert "needs Graphviz's `dot` program" in err and "-o %s.dot" % (tmp_path / "g") in err
    assert sorted(os.listdir(tmp_path)) == ["model.py"]


@pytest.mark.parametrize("output, message", [
    ("g.pdf", "must end in .svg, .png or .dot"),
    ("missing/g.dot", "no such directory"),
])
def test_bad_outputs_are_refused(model, tmp_path, capsys, output, message):
    status, _, err = run(capsys, "graph", "%s:shrink" % model, "--arg", "float32[3]",
                         "--arg", "1", "-o", tmp_path / output)
    assert status == 2 and message in err


def test_a_file_with_a_syntax_error_is_named_with_its_line(tmp_path, capsys):
    path = tmp_path / "syntax.py"
    path.write_text("x = 1\nfoo(\n")
    status, _, err = run(capsys, "explain", "%s:f" % path)
    assert status == 2 and "%s:2: syntax error" % path in err
    assert not any(name.startswith("autograph_cli_target_syntax") for name in sys.modules)
