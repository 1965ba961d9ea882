"""`autograph convert` on broken input: valid seed files mutated by hypothesis (tokens and
lines dropped, duplicated, swapped and dedented). Whatever the mutation, the command either exits 0
with an output that imports as the mutated input does, or exits 2 with one line on stderr
naming the file; it never prints a traceback, never writes a partial file, never changes
the input (bytes and modification time), and never runs it (each seed writes a marker file
when it runs).

The default run is small and derandomized; `pytest -m slow tests/cli` runs a bigger one.
"""

import contextlib
import io
import os
import runpy
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import tokenize
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograph import cli

MARKER = "@MARKER@"  # replaced by the marker file's path once a seed is mutated

SEEDS = [textwrap.dedent(seed) for seed in ['''\
    """Loops and branches over tensors."""
    import pathlib

    import autograph.tf as tf

    pathlib.Path("@MARKER@").write_text("ran")
    SCALE = 2


    @tf.function
    def tanh_loop(x):
        while tf.reduce_sum(x) > 1:
            x = tf.tanh(x)
        return x


    def sign(x):
        if x > 0:
            y = 1
        else:
            y = -1
        return y * SCALE


    def total(xs):
        s = 0
        for v in xs:
            if v < 0:
                continue
            s += v
        return s


    clip = lambda z: z if z > 0 else -z
    ''', '''\
    import pathlib
    import autograph
    from autograph import do_not_convert as dnc

    pathlib.Path("@MARKER@").write_text("ran")


    class Counter:
        """Counts."""

        def __init__(self, start):
            self.start = start

        def count_down(self, n):
            steps = 0
            while n > self.start:
                n -= 1
                steps += 1
                if steps > 100:
                    break
            return steps


    def outer(x):
        def inner(y):
            if y > 0:
                return y * 2
            return y
        return inner(x) + 1


    @dnc
    def numbers(n):
        for i in range(n):
            yield i


    def first(xs, limit):
        try:
            for v in xs:
                if v > limit:
                    return v
        except (TypeError, ValueError) as e:
            raise ValueError("bad %s" % e) from None
        finally:
            pass
        return -1
    ''', '''\
    # -*- coding: utf-8 -*-
    import pathlib
    import autograph.tf as tf

    pathlib.Path("@MARKER@").write_text("ran")
    TABLE = {"a": 1, "b": 2}


    def classify(x, default=TABLE["a"]):
        match x:
            case 0 | 1:
                return default
            case n if n > 5:
                return n * 2
            case _:
                return -1


    def squares(n):
        total = tf.constant(0)
        for i in tf.range(n):
            total += i * i
        return total, [k * 2 for k in TABLE.values()], f"{n!r:>4}"


    @tf.function(autograph=False)
    def plain(x):
        return x + 1
''']]


# -- mutations --------------------------------------------------------------------------------

def _tokens(source):
    """(start offset, end offset) of the non-empty tokens of `source`, as far as it tokenizes."""
    starts = [0]
    for line in io.StringIO(source).readlines():
        starts.append(starts[-1] + len(line))
    spans = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            (row, col), (end_row, end_col) = token.start, token.end
            if token.type != tokenize.ENDMARKER and (row, col) != (end_row, end_col):
                spans.append((starts[row - 1] + col, starts[end_row - 1] + end_col))
    except (tokenize.TokenError, SyntaxError):
        pass
    return spans


@st.composite
def token_mutation(draw, source):
    spans = _tokens(source)
    if len(spans) < 2:
        return source
    kind = draw(st.sampled_from(["drop", "duplicate", "swap"]))
    i = draw(st.integers(0, len(spans) - 1))
    start, end = spans[i]
    if kind == "drop":
        return source[:start] + source[end:]
    if kind == "duplicate":
        return source[:end] + " " + source[start:end] + source[end:]
    j = draw(st.integers(0, len(spans) - 1))
    (a, b), (c, d) = sorted([spans[i], spans[j]])
    if b > c:  # the same token
        return source
    return source[:a] + source[c:d] + source[b:c] + source[a:b] + source[d:]


@st.composite
def line_mutation(draw, source):
    lines = source.splitlines(True)
    if len(lines) < 2:
        return source
    kind = draw(st.sampled_from(["drop", "duplicate", "swap", "swap text", "dedent"]))
    i = draw(st.integers(0, len(lines) - 1))
    if kind == "drop":
        del lines[i]
    elif kind == "dedent":  # drops one level of indentation: `break` leaves its loop
        lines[i] = lines[i][4:] if lines[i].startswith("    ") else lines[i]
    elif kind == "duplicate":
        lines.insert(i, lines[i])
    elif kind == "swap":
        j = draw(st.integers(0, len(lines) - 1))
        lines[i], lines[j] = lines[j], lines[i]
    else:  # each line keeps its place's indentation: a `return` moves out of its function
        j = draw(st.integers(0, len(lines) - 1))
        (indent_i, text_i), (indent_j, text_j) = _split_indent(lines[i]), _split_indent(lines[j])
        lines[i], lines[j] = indent_i + text_j, indent_j + text_i
    return "".join(lines)


def _split_indent(line):
    text = line.lstrip(" \t")
    return line[:len(line) - len(text)], text


@st.composite
def mutated_sources(draw):
    source = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 3))):
        mutation = draw(st.sampled_from([token_mutation, line_mutation]))
        source = draw(mutation(source))
    return source


# -- the property -------------------------------------------------------------------------------

def snapshot(path):
    with open(path, "rb") as file:
        return file.read(), os.stat(path).st_mtime_ns


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def import_outcome(path, directory):
    """The type of the exception importing the file at `path` raises (None: it imports), run
    in `directory` (a mutated string may name a file), within a few seconds."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    cwd = os.getcwd()
    signal.alarm(5)
    try:
        os.chdir(directory)
        with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()), \
                contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            runpy.run_path(path, run_name="fuzzed_module")
        return None
    except _Timeout:
        return _Timeout
    except BaseException as e:  # noqa: B036 - a mutated module may raise anything
        if isinstance(e, KeyboardInterrupt):
            raise
        return type(e)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        os.chdir(cwd)


def run_cli(args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main(args)
    return status, out.getvalue(), err.getvalue()


def check_conversion(source, directory):
    """Runs `autograph convert` on `source` in the empty folder `directory`, checking the
    property; returns the exit status."""
    marker = os.path.join(directory, "ran.marker")
    source = source.replace(MARKER, marker.replace("\\", "\\\\"))
    path = os.path.join(directory, "mutated.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(source)
    before = snapshot(path)
    out = os.path.join(directory, "mutated_converted.py")
    status, printed, err = run_cli(["convert", path, "-o", out])
    assert not os.path.exists(marker), "the input was run"
    assert snapshot(path) == before, "the input was changed"
    assert "Traceback" not in err and printed == ""
    if status != 0:
        assert status == 2, err
        assert err.count("\n") == 1 and err.endswith("\n"), err
        assert path in err, err
        assert sorted(os.listdir(directory)) == ["mutated.py"], "a partial file was left"
        return status
    assert err == ""
    assert sorted(os.listdir(directory)) == ["mutated.py", "mutated_converted.py"]
    with open(out, encoding="utf-8") as f, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning: `1(n)`
        compile(f.read(), out, "exec", dont_inherit=True)  # CPython accepts the output
    original = import_outcome(path, directory)
    ran_original = os.path.exists(marker)
    if ran_original:
        os.remove(marker)
    converted = import_outcome(out, directory)
    if original is not _Timeout:
        assert converted == original, "the input imports with %s, the output with %s" % (
            original, converted)
        assert os.path.exists(marker) == ran_original
    return status


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


def _check_in_fresh_folder(source, workspace):
    directory = tempfile.mkdtemp(dir=str(workspace))
    try:
        return check_conversion(source, directory)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.mark.parametrize("seed", range(len(SEEDS)))
def test_every_seed_converts_and_imports_like_the_original(seed, workspace):
    assert _check_in_fresh_folder(SEEDS[seed], workspace) == 0


@pytest.mark.property
@settings(max_examples=400, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(source=mutated_sources())
def test_mutated_files_convert_or_fail_cleanly(source, workspace):
    _check_in_fresh_folder(source, workspace)


@pytest.mark.property
@pytest.mark.slow
@settings(max_examples=3000, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(source=mutated_sources())
def test_many_mutated_files_convert_or_fail_cleanly(source, workspace):
    _check_in_fresh_folder(source, workspace)


def test_the_command_never_prints_a_traceback_for_bad_files(tmp_path):
    """Through a real process: a parse error, a compile error, and undecodable bytes."""
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__)))))
    for name, data in [("parse.py", b"def f(:\n"), ("compile.py", b"x = 1\nbreak\n"),
                       ("bytes.py", b"x = '\xff'\n")]:
        path = tmp_path / name
        path.write_bytes(data)
        ran = subprocess.run([sys.executable, "-m", "autograph", "convert", str(path), "-o",
                              str(tmp_path / "out.py")], capture_output=True, text=True,
                             env=env, timeout=60)
        assert ran.returncode == 2 and ran.stdout == ""
        assert ran.stderr.count("\n") == 1 and str(path) in ran.stderr, ran.stderr
        assert not (tmp_path / "out.py").exists()
