"""Property test: random small programs give plain Python's answer once converted and traced.

Hypothesis writes functions `f(x, y)` over ints with nested `if`/`while`/`for`, `break`,
`continue` and `return` anywhere (including inside loops whose condition depends on the
arguments, which TensorFlow rejects, and inside `finally:` blocks), `try/finally` around
them, `try/except ValueError` around calls of `risky`, which raises on some arguments,
attribute and dict-item state (`s.v`, `d['k']`), and a variable `e` that is bound only on
some paths (in one branch, in a loop that may run zero times, or removed by `del`).
The arguments of `risky` are Python values while tracing too (constants and the counters of
loops over constant ranges): tensor control flow inside a `try` with `except` clauses is
refused. Each program is run three ways:

  * plain Python on ints (the reference);
  * converted by autograph and called on Python ints (the Python fallback of every operator);
  * converted and traced by `tf.function`, called on int32 scalar tensors (conditions on the
    arguments become cond/while graph ops, conditions on constants unroll).

All three must return the same number, or all raise UnboundLocalError (a NameError; the traced
function raises it when the graph runs). Values stay small (every update is reduced modulo a
small prime), so int32 never overflows and Python's unbounded ints agree with the tensors.
"""

import ast
import itertools
import linecache
import types
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autograph
import autograph.tf as tf

_VARS = ("a", "b", "c")
# Composite state: an attribute and a dict item, defined at the start of every program.
_COMPOSITES = ("s.v", "d['k']")
# `e` is never assigned at the start: it may be undefined when read (a branch or a loop that
# ran zero times assigned it, or `del e` removed it), which Python reports as
# UnboundLocalError and the traced function must report too.
_MAYBE = "e"
_MOD = 11
_MAX_DEPTH = 3
_file_counter = itertools.count()

# Definedness of `e` while generating: never bound on any path, bound on some, bound on all.
_NO, _SOME, _ALL = "no", "some", "all"


def _merge(first, second):
    return first if first == second else _SOME


def risky(v):
    """The call that `try/except` blocks of the programs guard: fails on some values."""
    if v % 3 == 2:
        raise ValueError("risky(%d)" % v)
    return v % 5


class _Writer:
    """Accumulates source lines and tracks whether `e` may be read: a read of a name that is
    unbound on every path is a trace-time error by design, so programs only read `e` where
    some path may have bound it."""

    def __init__(self):
        self.lines = []
        self.counters = itertools.count()
        self.e_state = _NO
        self.static = []  # counters of the enclosing loops over constant ranges

    def emit(self, indent, text):
        self.lines.append("    " * indent + text)

    def readable(self):
        """The names an expression may read here."""
        names = _VARS + _COMPOSITES
        return names + (_MAYBE,) if self.e_state != _NO else names


def _atom(draw, writer):
    return draw(st.one_of(st.sampled_from(writer.readable()), st.integers(-3, 5).map(str)))


def _expr(draw, writer):
    left, right = _atom(draw, writer), _atom(draw, writer)
    op = draw(st.sampled_from(["+", "-", "*"]))
    return "(%s %s %s) %% %d" % (left, op, right, _MOD)


def _condition(draw, writer):
    kind = draw(st.sampled_from(["compare", "compare", "mod", "and", "not"]))
    left = draw(st.sampled_from(writer.readable()))
    if kind == "mod":
        return "%s %% %d == %d" % (left, draw(st.integers(2, 3)), draw(st.integers(0, 1)))
    compare = "%s %s %s" % (left, draw(st.sampled_from(["<", ">", "==", "<=", "!="])),
                            _atom(draw, writer))
    if kind == "and":
        other = "%s %s %d" % (draw(st.sampled_from(_VARS)), draw(st.sampled_from(["<", ">"])),
                              draw(st.integers(0, 6)))
        return "%s %s %s" % (compare, draw(st.sampled_from(["and", "or"])), other)
    if kind == "not":
        return "not %s" % compare
    return compare


def _block(draw, writer, indent, depth, in_loop):
    """Draws 1-3 statements at `indent`; jumps appear only where Python allows them."""
    for _ in range(draw(st.integers(1, 3))):
        _statement(draw, writer, indent, depth, in_loop)


def _loop_body(draw, writer, indent, depth):
    """A loop body: `e` may be bound at the top of an iteration if it was before the loop or
    the body binds it; after the loop (which may run zero times) both are possible."""
    before = writer.e_state
    _block(draw, writer, indent, depth, True)
    writer.e_state = _merge(before, writer.e_state)


def _statement(draw, writer, indent, depth, in_loop):
    kinds = ["assign", "assign", "augassign", "composite", "assign_e"]
    if writer.e_state != _NO:
        kinds.append("del_e")
    if depth < _MAX_DEPTH:
        kinds += ["if", "if_else", "while", "for_range", "for_tensor_range", "for_static",
                  "try_finally", "try_except"]
    if in_loop:
        kinds += ["break", "continue"]
    kinds.append("return")
    kind = draw(st.sampled_from(kinds))
    var = draw(st.sampled_from(_VARS))
    if kind == "assign":
        writer.emit(indent, "%s = %s" % (var, _expr(draw, writer)))
    elif kind == "augassign":
        writer.emit(indent, "%s += %s" % (var, _atom(draw, writer)))
        writer.emit(indent, "%s %%= %d" % (var, _MOD))
    elif kind == "composite":
        target = draw(st.sampled_from(_COMPOSITES))
        if draw(st.booleans()):
            writer.emit(indent, "%s = %s" % (target, _expr(draw, writer)))
        else:
            writer.emit(indent, "%s += %s" % (target, _atom(draw, writer)))
            writer.emit(indent, "%s %%= %d" % (target, _MOD))
    elif kind == "assign_e":
        value = _expr(draw, writer)
        writer.emit(indent, "%s = %s" % (_MAYBE, value))
        writer.e_state = _ALL
    elif kind == "del_e":
        writer.emit(indent, "del %s" % _MAYBE)
        writer.e_state = _NO
    elif kind in ("if", "if_else"):
        writer.emit(indent, "if %s:" % _condition(draw, writer))
        before = writer.e_state
        _block(draw, writer, indent + 1, depth + 1, in_loop)
        after_body, writer.e_state = writer.e_state, before
        if kind == "if_else":
            writer.emit(indent, "else:")
            _block(draw, writer, indent + 1, depth + 1, in_loop)
        writer.e_state = _merge(after_body, writer.e_state)
    elif kind == "while":
        counter = "i%d" % next(writer.counters)
        # The bound may depend on the arguments (a staged while) or be a constant (unrolled);
        # the counter is advanced first, so `continue` can never loop forever.
        bound = draw(st.sampled_from(["3", "x % 4", "y % 3 + 1"]))
        writer.emit(indent, "%s = 0" % counter)
        writer.emit(indent, "while %s < %s:" % (counter, bound))
        writer.emit(indent + 1, "%s += 1" % counter)
        _loop_body(draw, writer, indent + 1, depth + 1)
    elif kind in ("for_range", "for_tensor_range"):
        # Loop targets are drawn from two names, so that sibling and nested loops share
        # them (a `for` rebinds its target from the iterator, so sharing stays finite).
        # A bound of `x % 4` runs zero times for some arguments.
        counter = "j%d" % draw(st.integers(0, 1))
        bound = draw(st.sampled_from(["3", "x % 4", "y % 3 + 1"]))
        writer.emit(indent, "for %s in range(%s):" % (counter, bound))
        writer.emit(indent + 1, "%s = (%s + %s) %% %d" % (var, var, counter, _MOD))
        _loop_body(draw, writer, indent + 1, depth + 1)
    elif kind == "for_static":
        counter = "k%d" % next(writer.counters)
        writer.emit(indent, "for %s in range(3):" % counter)
        writer.static.append(counter)
        _loop_body(draw, writer, indent + 1, depth + 1)
        writer.static.pop()
    elif kind == "try_finally":
        writer.emit(indent, "try:")
        _block(draw, writer, indent + 1, depth + 1, in_loop)
        writer.emit(indent, "finally:")
        _block(draw, writer, indent + 1, depth + 1, in_loop)
    elif kind == "try_except":
        _try_except(draw, writer, indent, depth, in_loop)
    elif kind == "break":
        writer.emit(indent, "break")
    elif kind == "continue":
        writer.emit(indent, "continue")
    else:
        writer.emit(indent, "return %s" % _expr(draw, writer))


def _risky_call(draw, writer):
    argument = draw(st.sampled_from(writer.static + ["0", "1", "2", "4"]))
    if argument in writer.static:
        argument += " + %d" % draw(st.integers(0, 2))
    return "risky(%s)" % argument


def _try_except(draw, writer, indent, depth, in_loop):
    """`try:` around calls of `risky` (only simple statements: no tensor control flow) and
    maybe a jump, then `except ValueError:`, maybe `else:` and `finally:`."""
    writer.emit(indent, "try:")
    for _ in range(draw(st.integers(1, 2))):
        var = draw(st.sampled_from(_VARS))
        writer.emit(indent + 1, "%s = (%s + %s) %% %d" % (var, var, _risky_call(draw, writer),
                                                          _MOD))
    jumps = ["none", "return"] + (["break", "continue"] if in_loop else [])
    jump = draw(st.sampled_from(jumps))
    if jump == "return":
        writer.emit(indent + 1, "return %s" % _risky_call(draw, writer))
    elif jump != "none":
        writer.emit(indent + 1, jump)
    before = writer.e_state
    writer.emit(indent, "except ValueError:")
    _block(draw, writer, indent + 1, depth + 1, in_loop)
    after_handler, writer.e_state = writer.e_state, before
    if draw(st.booleans()):
        writer.emit(indent, "else:")
        _block(draw, writer, indent + 1, depth + 1, in_loop)
    writer.e_state = _merge(after_handler, writer.e_state)
    if draw(st.booleans()):
        writer.emit(indent, "finally:")
        _block(draw, writer, indent + 1, depth + 1, in_loop)


@st.composite
def programs(draw):
    """Source text of a random `def f(x, y)` over ints."""
    writer = _Writer()
    writer.emit(0, "def f(x, y):")
    writer.emit(1, "a = x % {0}\n    b = y % {0}\n    c = 1".format(_MOD))
    writer.emit(1, "s = Box(v=2)\n    d = {'k': 3}")
    _block(draw, writer, 1, 0, False)
    if writer.e_state != _NO and draw(st.booleans()):
        writer.emit(1, "return (a + 2 * b + 3 * c + 5 * s.v + 7 * d['k'] + e) % 97")
    else:
        writer.emit(1, "return (a + 2 * b + 3 * c + 5 * s.v + 7 * d['k']) % 97")
    return "\n".join(writer.lines) + "\n"


def _load(source):
    """Defines the function in a file-like linecache entry, so autograph can read its source."""
    filename = "<random program %d>" % next(_file_counter)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"risky": risky, "Box": types.SimpleNamespace}
    with warnings.catch_warnings():  # jumps in `finally:` warn from Python 3.14 (PEP 765)
        warnings.simplefilter("ignore", SyntaxWarning)
        exec(compile(source, filename, "exec"), namespace)
    return namespace["f"]


def _outcome(run):
    """('value', v) or ('unbound', None): what `run()` returns, or that it read an unbound
    variable (UnboundLocalError is a NameError)."""
    try:
        return "value", run()
    except NameError:
        return "unbound", None


def _raises_unbound_somewhere(f):
    return any(_outcome(lambda: f(x, y))[0] == "unbound"
               for x in range(10) for y in range(10))


def check_program(source, x, y):
    """Runs `source` plainly, converted on ints and traced on int32 tensors; all must agree,
    errors included. Returns how the traced run ended: 'agreed', or 'refused' for the two
    refusals the design allows: a read of `e` that is unbound on every path traced (a
    trace-time UnboundLocalError, since no value exists to trace with), in a program where
    plain Python reads `e` unbound for some arguments; and a tensor-dependent jump in a
    `finally:` block while a trace-time exception is in flight."""
    f = _load(source)
    expected = _outcome(lambda: f(x, y))
    converted = autograph.to_graph(f)
    assert _outcome(lambda: converted(x, y)) == expected, source
    function = tf.function(f)
    args = (tf.constant(x), tf.constant(y))
    try:
        concrete = function.get_concrete_function(*args)
    except UnboundLocalError:
        if expected[0] == "unbound":
            return "agreed"
        assert _raises_unbound_somewhere(f), source
        return "refused"
    except NotImplementedError as e:
        # The documented refusal: a `finally:` whose jump depends on a tensor while an
        # exception raised during tracing is in flight (Python would decide at run time
        # whether to swallow it). A clear error, never a made-up value.
        assert "`finally:` block" in str(e), source
        return "refused"
    traced = _outcome(lambda: concrete(*args))
    if traced[0] == "unbound":
        assert expected[0] == "unbound", source
        return "agreed"
    assert expected[0] == "value", source
    assert traced[1].dtype == tf.int32, source
    assert int(traced[1].numpy()) == expected[1], source
    return "agreed"


PROGRAM_SETTINGS = settings(max_examples=150, deadline=None, database=None)


@pytest.mark.property
@PROGRAM_SETTINGS
@given(source=programs(), x=st.integers(0, 9), y=st.integers(0, 9))
def test_converted_program_matches_plain_python(source, x, y):
    check_program(source, x, y)


@pytest.mark.property
def test_generator_covers_staged_jumps():
    """The strategy really produces the hard cases: jumps inside loops on the arguments."""
    seen = set()

    @settings(max_examples=300, deadline=None, database=None, derandomize=True)
    @given(source=programs())
    def collect(source):
        lines = source.splitlines()
        for number, line in enumerate(lines):
            stripped = line.strip()
            if stripped.startswith(("while i", "for j")) and ("x" in stripped or "y" in stripped):
                body = lines[number + 1:number + 6]
                for jump in ("break", "continue", "return"):
                    if any(b.strip().startswith(jump) for b in body):
                        seen.add(jump)

    collect()
    assert seen == {"break", "continue", "return"}


@pytest.mark.parametrize("x,y", [(0, 0), (3, 7), (9, 2)])
def test_return_inside_staged_loop_in_branch(x, y):
    source = (
        "def f(x, y):\n"
        "    a = x % 11\n"
        "    b = y % 11\n"
        "    c = 1\n"
        "    for j0 in range(x % 4):\n"
        "        if a > b:\n"
        "            return a - b\n"
        "        a += 2\n"
        "        while c < y % 3 + 1:\n"
        "            c += 1\n"
        "            if c == 2:\n"
        "                continue\n"
        "            b -= 1\n"
        "    return a + b + c\n")
    f = _load(source)
    assert int(tf.function(f)(tf.constant(x), tf.constant(y)).numpy()) == f(x, y)
    assert np.isscalar(f(x, y))


@pytest.mark.property
def test_generator_covers_jumps_in_finally_and_caught_exceptions():
    """Programs with a jump inside a `finally:` block, and ones where `risky` raises."""
    seen = set()

    def note_raise(v):
        if v % 3 == 2:
            seen.add("raised")
        return risky(v)

    @settings(max_examples=100, deadline=None, database=None, derandomize=True)
    @given(source=programs())
    def collect(source):
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Try) and any(
                    isinstance(sub, (ast.Return, ast.Break, ast.Continue))
                    for stmt in node.finalbody for sub in ast.walk(stmt)):
                seen.add("jump in finally")
        if "risky(" in source:
            namespace = {"risky": note_raise, "Box": types.SimpleNamespace}
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SyntaxWarning)
                exec(compile(source, "<program>", "exec"), namespace)
            _outcome(lambda: namespace["f"](3, 4))

    collect()
    assert seen == {"jump in finally", "raised"}


@pytest.mark.property
def test_generator_covers_maybe_unbound_reads_and_composite_state():
    """Programs that read `e` bound on some runs and unbound on others, `del e`, and
    assignments to `s.v` and `d['k']` inside loops whose trip count depends on the arguments
    (zero for some)."""
    seen = set()

    @settings(max_examples=300, deadline=None, database=None, derandomize=True)
    @given(source=programs())
    def collect(source):
        if "del e" in source:
            seen.add("del")
        tree = ast.parse(source)
        for loop in ast.walk(tree):
            header = loop.iter if isinstance(loop, ast.For) else getattr(loop, "test", None)
            if header is not None and {"x", "y"} & {n.id for n in ast.walk(header)
                                                   if isinstance(n, ast.Name)}:
                body = "\n".join(ast.unparse(stmt) for stmt in loop.body)
                if any(write in body for write in ("s.v =", "s.v +=", "d['k'] =", "d['k'] +=")):
                    seen.add("composite in staged loop")
        f = _load(source)
        outcomes = {_outcome(lambda: f(x, 1))[0] for x in range(4)}
        if outcomes == {"value", "unbound"}:
            seen.add("unbound on some runs")

    collect()
    assert seen == {"del", "composite in staged loop", "unbound on some runs"}
