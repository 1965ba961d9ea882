"""`autograph convert FILE.py [-o OUT.py]`: a converted module that imports and runs on its own."""

import importlib.util
import inspect
import itertools
import os
import pathlib
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import autograph
import autograph.tf as tf
from autograph import cli, conversion, module_conversion

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SOURCE = textwrap.dedent('''\
    """A module with tensor control flow in functions, methods and nested functions."""

    import autograph.tf as tf

    SCALE = 2  # read at call time


    @tf.function
    def tanh_loop(x):
        """Tanh until small."""
        while tf.reduce_sum(x) > 1:
            x = tf.tanh(x)
        return x


    @tf.function
    def sign(x):
        if x > 0:
            y = 1
        else:
            y = -1
        return y * SCALE


    def total(xs):
        s = 0
        for v in xs:
            s += v
        return s


    def first_over(xs, limit):
        for v in xs:
            if v > limit:
                return v
        return -1


    class Counter:
        """Counts down to `start`."""

        def __init__(self, start):
            self.start = start

        def count_down(self, n):
            steps = 0
            while n > self.start:
                n -= 1
                steps += 1
            return steps


    def outer(x):
        def inner(y):
            if y > 0:
                return y * 2
            return y
        return inner(x) + 1
''')

_names = itertools.count()


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return str(path)


def load(path):
    """Imports the file at `path` as a fresh module."""
    spec = importlib.util.spec_from_file_location("cli_test_module_%d" % next(_names), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def value(x):
    return x.numpy() if hasattr(x, "numpy") else x


@pytest.fixture
def source_file(tmp_path):
    return write(tmp_path / "shapes.py", SOURCE)


@pytest.fixture
def converted(source_file, tmp_path):
    """(original module, converted module)."""
    out = str(tmp_path / "shapes_converted.py")
    assert cli.main(["convert", source_file, "-o", out]) == 0
    return load(source_file), load(out)


def run_fails(args, capsys):
    """Runs the CLI expecting a failure; returns its stderr, checked to be one line."""
    assert cli.main(args) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


# Output.

def test_prints_converted_module_to_stdout(source_file, capsys):
    assert cli.main(["convert", source_file]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "from autograph.namespace import ag__\n" in out
    assert "ag__.while_stmt(" in out and "ag__.if_stmt(" in out and "ag__.for_stmt(" in out
    assert "with ag__.FunctionScope('tanh_loop') as fscope:" in out
    compile(out, "converted", "exec")


def test_writes_to_output_file_what_it_would_print(source_file, tmp_path, capsys,
                                                  monkeypatch):
    monkeypatch.chdir(tmp_path)  # the line map names the input relative to the output
    assert cli.main(["convert", source_file]) == 0
    printed = capsys.readouterr().out
    out = tmp_path / "out.py"
    assert cli.main(["convert", source_file, "-o", str(out)]) == 0
    assert capsys.readouterr() == ("", "")
    assert out.read_text(encoding="utf-8") == printed
    assert sorted(os.listdir(tmp_path)) == ["out.py", "shapes.py"]  # no temp file left


def test_module_level_code_and_comments_are_kept_as_written(source_file, capsys):
    cli.main(["convert", source_file])
    out = capsys.readouterr().out
    assert out.startswith('"""A module with tensor control flow')
    assert "SCALE = 2  # read at call time\n" in out
    assert '    """Counts down to `start`."""\n' in out
    assert '    """Tanh until small."""\n' in out  # function docstrings too


# The converted module behaves like the original.

@pytest.mark.parametrize("call", [
    lambda m: m.tanh_loop(tf.constant([0.9, 0.8, 0.7])),
    lambda m: m.sign(tf.constant(3)),
    lambda m: m.sign(tf.constant(-3)),
    lambda m: m.sign(5),
    lambda m: m.total([1, 2, 3]),
    lambda m: m.total(tf.constant([1.5, 2.5])),
    lambda m: tf.function(m.total)(tf.constant([1, 2, 3])),
    lambda m: m.first_over([1, 5, 9], 4),
    lambda m: m.first_over([1, 2], 4),
    lambda m: tf.function(m.first_over)(tf.constant([1, 5, 9]), tf.constant(4)),
    lambda m: m.Counter(2).count_down(7),
    lambda m: tf.function(m.Counter(2).count_down)(tf.constant(7)),
    lambda m: m.outer(3),
    lambda m: tf.function(m.outer)(tf.constant(-3)),
], ids=["tanh_loop", "sign_pos", "sign_neg", "sign_python", "total_python", "total_eager",
        "total_graph", "first_over_python", "first_over_none", "first_over_graph",
        "method_python", "method_graph", "nested_python", "nested_graph"])
def test_converted_module_gives_the_same_results_as_the_original(converted, call):
    original, result = converted
    expected, got = value(call(original)), value(call(result))
    np.testing.assert_allclose(got, expected)
    assert np.asarray(got).dtype == np.asarray(expected).dtype


def test_converted_functions_run_eagerly_like_the_original(converted):
    original, result = converted
    tf.config.run_functions_eagerly(True)
    try:
        assert result.sign(tf.constant(-3)) == original.sign(tf.constant(-3)) == -2
        np.testing.assert_allclose(result.tanh_loop(tf.constant([0.9, 0.8])).numpy(),
                                   original.tanh_loop(tf.constant([0.9, 0.8])).numpy())
    finally:
        tf.config.run_functions_eagerly(False)


def test_tensor_control_flow_becomes_the_same_graph_ops(converted):
    original, result = converted

    def ops(module, name, arg):
        graph = getattr(module, name).get_concrete_function(arg).graph
        return sorted(node.op for node in graph.as_graph_def().node)
    for name, arg in [("tanh_loop", tf.constant([0.9, 0.8])), ("sign", tf.constant(1))]:
        assert ops(result, name, arg) == ops(original, name, arg)
    assert "StatelessWhile" in ops(result, "tanh_loop", tf.constant([0.9, 0.8]))
    assert "StatelessIf" in ops(result, "sign", tf.constant(1))


def test_decorators_are_kept_outside_the_artifact_mark(converted, capsys, source_file):
    _, result = converted
    assert isinstance(result.tanh_loop, autograph.Function)
    cli.main(["convert", source_file])
    out = capsys.readouterr().out
    assert "@tf.function\n@ag__autograph_artifact\ndef tanh_loop(x):\n" in out
    assert "    @ag__autograph_artifact\n    def count_down(self, n):\n" in out


def test_converted_functions_are_not_converted_again(converted, monkeypatch):
    _, result = converted
    converted_names = []
    convert_node = conversion.convert_node

    def recording(node, source_info, name):
        converted_names.append(name)
        return convert_node(node, source_info, name)
    monkeypatch.setattr(conversion, "convert_node", recording)
    result.tanh_loop(tf.constant([2.0, 3.0]))
    result.sign(tf.constant(1))
    tf.function(result.total)(tf.constant([1, 2]))
    tf.function(result.Counter(0).count_down)(tf.constant(3))
    tf.function(result.outer)(tf.constant(2))
    # Only the nested function, which stays as written inside `outer`, is converted (when
    # called), as autograph.function does with nested functions.
    assert converted_names == ["inner"]
    for func in (result.tanh_loop.python_function, result.total, result.Counter(0).count_down):
        assert conversion.convert(func) is func


def test_to_code_shows_converted_functions_as_written(converted, monkeypatch):
    _, result = converted
    converted_names = []
    monkeypatch.setattr(conversion, "convert_node",
                        lambda node, info, name: converted_names.append(name))
    for func, header in [(result.tanh_loop, "@tf.function\n@ag__autograph_artifact\n"
                                            "def tanh_loop(x):\n"),
                         (result.Counter(0).count_down, "@ag__autograph_artifact\n"
                                                        "def count_down(self, n):\n")]:
        code = autograph.to_code(func)
        assert code.startswith(header)
        assert "ag__.while_stmt(" in code and "ag__ag__" not in code
    assert autograph.to_code(result.total) == inspect.getsource(result.total)
    assert converted_names == []


def test_zero_argument_super_in_a_converted_method(tmp_path):
    text = textwrap.dedent('''\
        class Base:
            def scale(self, x):
                return x * 10


        class Derived(Base):
            def scale(self, x):
                if x > 0:
                    x = super().scale(x)
                return x
    ''')
    out = str(tmp_path / "supers_converted.py")
    assert cli.main(["convert", write(tmp_path / "supers.py", text), "-o", out]) == 0
    result = load(out)
    assert "super(__class__, self).scale" in pathlib.Path(out).read_text(encoding="utf-8")
    assert tf.function(result.Derived().scale)(tf.constant(3)).numpy() == 30
    assert tf.function(result.Derived().scale)(tf.constant(-3)).numpy() == -3
    assert result.Derived().scale(2) == 20


def test_a_wrapper_copying_the_mark_is_still_converted():
    @module_conversion.autograph_artifact
    def marked(x):
        return x

    def wrapper(x):
        if x > 0:
            x = -x
        return x
    wrapper.__dict__.update(marked.__dict__)  # what functools.wraps does
    assert getattr(wrapper, conversion.ARTIFACT) is marked.__code__
    assert conversion.convert(marked) is marked
    assert conversion.convert(wrapper) is not wrapper
    assert tf.function(wrapper)(tf.constant(4)).numpy() == -4


def test_do_not_convert_functions_are_copied_unchanged(tmp_path, capsys):
    text = textwrap.dedent('''\
        import autograph

        @autograph.do_not_convert
        def numbers(n):
            for i in range(n):  # a generator: could not be converted
                yield i
    ''')
    assert cli.main(["convert", write(tmp_path / "gen.py", text)]) == 0
    out = capsys.readouterr().out
    assert text.split("\n", 1)[1] in out


def test_input_is_parsed_never_run(tmp_path, capsys):
    marker = tmp_path / "ran.txt"
    text = textwrap.dedent('''\
        open(%r, "w").write("the module ran")
        raise SystemExit("the module ran")

        def f(x):
            while x > 0:
                x -= 1
            return x
    ''' % str(marker))
    assert cli.main(["convert", write(tmp_path / "side_effects.py", text)]) == 0
    out = capsys.readouterr().out
    assert not marker.exists()
    assert 'raise SystemExit("the module ran")\n' in out
    assert "ag__.while_stmt(" in out


# Failures: one line on stderr, exit status 2, no output file.

def test_missing_file(tmp_path, capsys):
    missing = str(tmp_path / "missing.py")
    err = run_fails(["convert", missing, "-o", str(tmp_path / "out.py")], capsys)
    assert missing in err and "No such file" in err
    assert os.listdir(tmp_path) == []


def test_syntax_error_names_line_and_column(tmp_path, capsys):
    path = write(tmp_path / "broken.py", "x = 1\n\ndef f(x):\n    return x +\n")
    err = run_fails(["convert", path], capsys)
    assert err.startswith("autograph: error: %s:4:15: syntax error: " % path)


@pytest.mark.parametrize("body, construct, line", [
    ("def f(n):\n    x = n\n    yield x\n", "yield", 3),
    ("import asyncio\n\nasync def f(n):\n    return n\n", "async", 3),
    ("class A:\n    async def f(self):\n        async for x in self:\n            pass\n",
     "async", 2),
])
def test_unsupported_construct_names_it_and_file_and_line(tmp_path, capsys, body, construct,
                                                          line):
    path = write(tmp_path / "unsupported.py", body)
    err = run_fails(["convert", path], capsys)
    assert "%s:%d:" % (path, line) in err
    assert construct in err


def test_the_first_unsupported_function_in_the_file_is_reported(tmp_path, capsys):
    path = write(tmp_path / "two.py", "def f():\n    yield 1\n\ndef g():\n    yield 2\n")
    err = run_fails(["convert", path], capsys)
    assert "%s:2:" % path in err


def test_failure_leaves_an_existing_output_untouched(tmp_path, capsys):
    out = tmp_path / "out.py"
    out.write_text("# an earlier result\n")
    path = write(tmp_path / "gen.py", "def f():\n    yield 1\n")
    run_fails(["convert", path, "-o", str(out)], capsys)
    assert out.read_text() == "# an earlier result\n"
    assert sorted(os.listdir(tmp_path)) == ["gen.py", "out.py"]


def test_failed_write_leaves_no_partial_file(source_file, tmp_path, capsys, monkeypatch):
    out = tmp_path / "out.py"
    out.write_text("# an earlier result\n")

    def failing_replace(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", failing_replace)
    err = run_fails(["convert", source_file, "-o", str(out)], capsys)
    assert "cannot write" in err and "No space left on device" in err
    assert out.read_text() == "# an earlier result\n"
    assert sorted(os.listdir(tmp_path)) == ["out.py", "shapes.py"]


def test_output_into_a_missing_directory(source_file, tmp_path, capsys):
    err = run_fails(["convert", source_file, "-o", str(tmp_path / "no" / "out.py")], capsys)
    assert "cannot write" in err


def test_reserved_names_are_rejected(tmp_path, capsys):
    path = write(tmp_path / "reserved.py", "import os\nag__ = 1\n")
    err = run_fails(["convert", path], capsys)
    assert "%s:2:" % path in err and "ag__" in err


def test_output_keeps_the_input_encoding(tmp_path):
    path = tmp_path / "latin.py"
    path.write_bytes("# -*- coding: latin-1 -*-\ndef f():\n    return 'caf\xe9'\n"
                     .encode("latin-1"))
    out = tmp_path / "out.py"
    assert cli.main(["convert", str(path), "-o", str(out)]) == 0
    assert load(str(out)).f() == "caf\xe9"


# Usage.

def test_help(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--help"])
    assert exit_.value.code == 0
    assert "convert" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        cli.main(["convert", "--help"])
    assert exit_.value.code == 0
    usage = capsys.readouterr().out
    assert "FILE" in usage and "-o OUT" in usage


def test_a_command_is_required(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main([])
    assert exit_.value.code == 2


def test_python_m_autograph_converts_the_bundled_example(tmp_path):
    out = tmp_path / "cli_demo_converted.py"
    example = os.path.join(REPO, "examples", "cli_demo.py")
    env = dict(os.environ, PYTHONPATH=REPO)
    subprocess.run([sys.executable, "-m", "autograph", "convert", example, "-o", str(out)],
                   check=True, cwd=str(tmp_path), env=env, timeout=60)
    ran = subprocess.run([sys.executable, str(out)], capture_output=True, text=True,
                         check=True, cwd=str(tmp_path), env=env, timeout=60)
    # six digits: under AUTOGRAPH_BACKEND=jax, XLA's tanh rounds its own way (1e-6 relative)
    assert "tanh_until_small: tf.Tensor([0.203260" in ran.stdout
    assert "fizz\n4\nbuzz\n" in ran.stdout + ran.stderr
    assert "Collatz steps from 27 (graph): tf.Tensor(111" in ran.stdout


# Inputs the command must refuse, or must not harm.

def snapshot(path):
    """What must not change about an input file: its bytes and modification time."""
    return path.read_bytes(), os.stat(path).st_mtime_ns


@pytest.mark.parametrize("how", ["same path", "another spelling", "symlink", "hard link",
                                 "symlink not yet resolved"])
def test_output_naming_the_input_is_refused_and_leaves_it_untouched(tmp_path, capsys, how,
                                                                    monkeypatch):
    path = tmp_path / "shapes.py"
    path.write_text(SOURCE, encoding="utf-8")
    before = snapshot(path)
    monkeypatch.chdir(tmp_path)
    out = str(path)
    if how == "another spelling":
        out = os.path.join(".", "sub", "..", "shapes.py")
        os.mkdir(tmp_path / "sub")
    elif how == "symlink":
        os.symlink(path, tmp_path / "link.py")
        out = str(tmp_path / "link.py")
    elif how == "hard link":
        os.link(path, tmp_path / "hard.py")
        out = str(tmp_path / "hard.py")
    elif how == "symlink not yet resolved":  # OUT's folder is a link to the input's
        os.symlink(tmp_path, tmp_path / "alias")
        out = str(tmp_path / "alias" / "shapes.py")
    err = run_fails(["convert", str(path), "-o", out], capsys)
    assert "is the input file" in err and str(path) in err
    assert snapshot(path) == before


@pytest.mark.parametrize("body, message, line", [
    ("x = 1\nbreak\n", "'break' outside loop", 2),
    ("x = 1\nreturn x\n", "'return' outside function", 2),
    ("def f(a, a):\n    return a\n", "duplicate argument 'a'", 1),
    ("def f():\n    nonlocal y\n    return 1\n", "no binding for nonlocal 'y' found", 2),
    pytest.param("def f():\n" + "".join("    " * (i + 1) + "for i%d in x:\n" % i
                                      for i in range(21)) + "    " * 22 + "pass\n",
                 "too many statically nested blocks", 22,
                 marks=pytest.mark.skipif(sys.version_info >= (3, 13),
                                          reason="CPython 3.13 compiles 21 nested loops")),
    ("def f(x):\n    continue\n", "'continue' not properly in loop", 2),
    ("async def f():\n    pass\ndef g():\n    await f()\n", "'await' outside async", 4),
])
def test_what_cpython_refuses_to_compile_is_refused_with_line_and_column(
        tmp_path, capsys, body, message, line):
    path = write(tmp_path / "refused.py", body)
    err = run_fails(["convert", path], capsys)
    assert err.startswith("autograph: error: %s:%d:" % (path, line)), err
    assert re.match(r"autograph: error: .*:\d+:\d+: syntax error: ", err), err
    assert message in err


def test_undecodable_bytes_are_reported_with_their_line(tmp_path, capsys):
    path = tmp_path / "bad.py"
    path.write_bytes(b"x = 1\n\ny = '\xff'\n")
    err = run_fails(["convert", str(path)], capsys)
    assert "%s:3: cannot decode byte 0xff as utf-8" % path in err


def test_a_coding_declaration_is_honoured(tmp_path, capsys):
    path = tmp_path / "latin.py"
    path.write_bytes("# -*- coding: latin-1 -*-\n\ndef f(x):\n    if x > 0:\n"
                     "        return 'caf\xe9'\n    return 'no'\n".encode("latin-1"))
    assert cli.main(["convert", str(path)]) == 0
    assert "'caf\xe9'" in capsys.readouterr().out
    ascii_path = write_bytes(tmp_path / "ascii.py", b"# coding: ascii\n\nx = '\xe9'\n")
    err = run_fails(["convert", ascii_path], capsys)
    assert "ascii.py:3: cannot decode byte 0xe9 as ascii" in err


def write_bytes(path, data):
    path.write_bytes(data)
    return str(path)


def test_an_unknown_encoding_is_reported_with_its_line(tmp_path, capsys):
    path = write_bytes(tmp_path / "odd.py", b"#!/usr/bin/env python\n# coding: klingon\n")
    err = run_fails(["convert", path], capsys)
    assert "%s:2: cannot read: unknown encoding" % path in err


def test_a_null_byte_is_reported_with_its_line(tmp_path, capsys):
    path = write_bytes(tmp_path / "nul.py", b"x = 1\ny = 2\x00\n")
    assert "%s:2: the source contains a null byte" % path in run_fails(["convert", path],
                                                                      capsys)


DO_NOT_CONVERT_SOURCE = textwrap.dedent('''\
    import autograph
    import autograph as ag
    import autograph.tf as tf
    from autograph import do_not_convert as dnc

    keep = autograph.do_not_convert


    @dnc
    def aliased(x):
        if x > 0:
            return 1
        return 0


    @ag.do_not_convert
    def module_alias(x):
        if x > 0:
            return 1
        return 0


    @tf.autograph.experimental.do_not_convert
    def facade(x):
        if x > 0:
            return 1
        return 0


    @tf.function(autograph=False)
    def unconverted_function(x):
        if x > 0:
            return 1
        return 0


    @keep
    def assigned_alias(x):
        if x > 0:
            return 1
        return 0


    def wrapped_later(x):
        if x > 0:
            return 1
        return 0


    later = tf.function(wrapped_later, autograph=False)


    def converted(x):
        if x > 0:
            return 1
        return 0
''')


def test_do_not_convert_under_any_alias_and_autograph_false_are_respected(tmp_path, capsys):
    path = write(tmp_path / "aliases.py", DO_NOT_CONVERT_SOURCE)
    assert cli.main(["convert", path]) == 0
    out = capsys.readouterr().out
    assert out.count("@ag__autograph_artifact\n") == 1  # only `converted`
    assert "@ag__autograph_artifact\ndef converted(x):" in out
    body = DO_NOT_CONVERT_SOURCE.split("def converted")[0].split("\n", 4)[4]
    assert body in out


def test_a_module_level_lambda_is_converted(tmp_path):
    text = "import autograph.tf as tf\n\nclip = lambda z: z if z > 0 else -z  # abs\n"
    out = str(tmp_path / "lambdas_converted.py")
    assert cli.main(["convert", write(tmp_path / "lambdas.py", text), "-o", out]) == 0
    result = load(out)
    assert "ag__.if_exp(" in pathlib.Path(out).read_text(encoding="utf-8")
    assert conversion.is_artifact(result.clip)
    assert tf.function(result.clip)(tf.constant(-3)).numpy() == 3
    assert result.clip(-4) == 4


def test_lambda_sharing_its_line_with_another_statement_is_kept(tmp_path, capsys):
    text = "clip = lambda z: z if z > 0 else -z; other = 1\n"
    assert cli.main(["convert", write(tmp_path / "shared.py", text)]) == 0
    assert text in capsys.readouterr().out


def test_converting_a_converted_file_again_gives_the_same_file(source_file, tmp_path):
    once = tmp_path / "once.py"
    twice = tmp_path / "twice.py"
    assert cli.main(["convert", source_file, "-o", str(once)]) == 0
    assert cli.main(["convert", str(once), "-o", str(twice)]) == 0
    assert twice.read_bytes() == once.read_bytes()


def test_errors_in_a_converted_module_name_the_original_file_and_line(tmp_path):
    text = textwrap.dedent('''\
        import autograph.tf as tf


        @tf.function
        def halve_until_small(x):
            while tf.reduce_sum(x) > 1:
                x = x / 2
            y = tf.reshape(x, [7])  # the failing line
            return y
    ''')
    source = write(tmp_path / "original.py", text)
    os.mkdir(tmp_path / "build")
    out = str(tmp_path / "build" / "converted.py")
    assert cli.main(["convert", source, "-o", out]) == 0
    result = load(out)
    with pytest.raises(Exception) as raised:
        result.halve_until_small(tf.constant([4.0, 4.0]))
    message = str(raised.value) + "".join(getattr(raised.value, "__notes__", []))
    assert "%s:8" % source in message, message
    from runtime import errors
    for number, line in enumerate(pathlib.Path(out).read_text(encoding="utf-8").splitlines(), 1):
        if "tf.reshape(x, [7])" in line:
            assert errors.translate_location(out, number) == (source, 8)


# Several inputs, standard streams, --check, --version.

def test_several_files_and_a_directory_are_mirrored_into_the_output_directory(tmp_path,
                                                                             capsys):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__pycache__").mkdir()
    write(package / "a.py", SOURCE)
    write(package / "sub" / "b.py", "def g(x):\n    while x > 0:\n        x -= 1\n    return x\n")
    write(package / "notes.txt", "not python")
    write(package / "__pycache__" / "c.py", "garbage (")
    single = write(tmp_path / "single.py", SOURCE)
    out = tmp_path / "out"
    assert cli.main(["convert", str(package), single, "-o", str(out)]) == 0
    assert capsys.readouterr() == ("", "")
    written = sorted(os.path.relpath(os.path.join(root, name), out)
                     for root, _, names in os.walk(out) for name in names)
    assert written == ["a.py", "single.py", os.path.join("sub", "b.py")]
    assert load(str(out / "sub" / "b.py")).g(3) == 0
    assert load(str(out / "a.py")).sign(-2) == -2


def test_every_failure_among_several_files_is_reported_and_the_others_written(tmp_path,
                                                                             capsys):
    good = write(tmp_path / "good.py", SOURCE)
    bad = write(tmp_path / "bad.py", "def f(x):\n    return x +\n")
    gen = write(tmp_path / "gen.py", "def f():\n    yield 1\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "gen.py").write_text("# an earlier result\n")
    assert cli.main(["convert", bad, good, gen, "-o", str(out)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 2 and bad in lines[0] and gen in lines[1]
    assert "Traceback" not in captured.err
    assert sorted(os.listdir(out)) == ["gen.py", "good.py"]
    assert (out / "gen.py").read_text() == "# an earlier result\n"


def test_several_inputs_need_an_output_directory(tmp_path, capsys):
    a, b = write(tmp_path / "a.py", SOURCE), write(tmp_path / "b.py", SOURCE)
    assert "need -o DIR" in run_fails(["convert", a, b], capsys)
    assert "need a directory" in run_fails(["convert", a, b, "-o", a], capsys)


def test_a_directory_converted_into_itself_is_refused_file_by_file(tmp_path, capsys):
    package = tmp_path / "pkg"
    package.mkdir()
    path = package / "a.py"
    path.write_text(SOURCE, encoding="utf-8")
    before = snapshot(path)
    assert cli.main(["convert", str(package), "-o", str(package)]) == 2
    assert "is the input file" in capsys.readouterr().err
    assert snapshot(path) == before


def test_a_directory_with_no_python_file_is_refused_naming_it(tmp_path, capsys):
    empty = tmp_path / "notes"
    empty.mkdir()
    (empty / "readme.txt").write_text("no code here", encoding="utf-8")
    out = tmp_path / "out"
    err = run_fails(["convert", str(empty), "-o", str(out)], capsys)
    assert err == "autograph: error: %s: no .py file to convert in this directory\n" % empty
    assert not out.exists()


def test_standard_input_to_standard_output(monkeypatch, capsys):
    import io
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SOURCE.encode("utf-8"))))
    assert cli.main(["convert", "-", "-o", "-"]) == 0
    out = capsys.readouterr().out
    assert "# Converted by `autograph convert` from <stdin>.\n" in out
    assert "ag__.while_stmt(" in out
    compile(out, "converted", "exec")


def test_errors_on_standard_input_name_it(monkeypatch, capsys):
    import io
    monkeypatch.setattr(sys, "stdin", io.StringIO("def f(:\n"))
    err = run_fails(["convert", "-"], capsys)
    assert err.startswith("autograph: error: <stdin>:1:")


def test_check_writes_nothing_and_reports_by_exit_status(source_file, tmp_path, capsys):
    out = tmp_path / "out.py"
    assert cli.main(["convert", "--check", source_file, "-o", str(out)]) == 0
    assert capsys.readouterr() == ("", "")
    assert not out.exists()
    bad = write(tmp_path / "bad.py", "break\n")
    assert cli.main(["convert", "--check", source_file, bad]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and bad in captured.err
    assert sorted(os.listdir(tmp_path)) == ["bad.py", "shapes.py"]


def test_version_comes_from_the_package_metadata(capsys):
    from importlib import metadata
    try:
        expected = metadata.version("autograph")
    except metadata.PackageNotFoundError:
        expected = "0+unknown"
    assert autograph.__version__ == expected
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out == "autograph %s\n" % expected


def test_version_has_a_fallback_when_the_package_is_not_installed(monkeypatch):
    from importlib import metadata

    def not_installed(name):
        raise metadata.PackageNotFoundError(name)
    monkeypatch.setattr(metadata, "version", not_installed)
    assert autograph._installed_version() == "0+unknown"


def test_the_line_map_sends_every_kept_line_to_its_original(converted, source_file, tmp_path):
    from runtime import errors
    out = str(tmp_path / "shapes_converted.py")  # written and imported by `converted`
    original = pathlib.Path(source_file).read_text(encoding="utf-8").splitlines()
    checked = 0
    for number, line in enumerate(pathlib.Path(out).read_text(encoding="utf-8").splitlines(), 1):
        filename, mapped = errors.translate_location(out, number)
        assert filename == source_file
        if line.strip() and line in original and original.count(line) == 1:
            assert original[mapped - 1] == line, (number, line, mapped)
            checked += 1
        if "tf.tanh(x)" in line or "steps += 1" in line:  # inside converted functions
            assert original[mapped - 1].strip() == line.strip()
    assert checked > 10
