"""Property tests: random small programs (tests/autograph/random_programs.py) give plain
Python's answer once converted, and once traced, or an error of the same kind, or one of the
project's explicit refusals; and the generator really writes the hard cases."""

import ast
import types
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from random_programs import (
    PATTERNS,
    check_program,
    load,
    outcome,
    programs,
    risky,
)

import autograph.tf as tf

# (100 programs each in the default run; the long run below, -m slow, checks 10,000)
PROGRAM_SETTINGS = settings(max_examples=100, deadline=None, database=None)


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
    @given(source=programs(frozenset()))  # the base generator, without PATTERNS
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
    f = load(source)
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
    @given(source=programs(frozenset()))  # the base generator, without PATTERNS
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
            outcome(lambda: namespace["f"](3, 4))

    collect()
    assert seen == {"jump in finally", "raised"}


@pytest.mark.property
def test_generator_covers_maybe_unbound_reads_and_composite_state():
    """Programs that read `e` bound on some runs and unbound on others, `del e`, and
    assignments to `s.v` and `d['k']` inside loops whose trip count depends on the arguments
    (zero for some)."""
    seen = set()

    @settings(max_examples=300, deadline=None, database=None, derandomize=True)
    @given(source=programs(frozenset()))  # the base generator, without PATTERNS
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
        f = load(source)
        outcomes = {outcome(lambda: f(x, 1))[-1] if outcome(lambda: f(x, 1))[0] == "error"
                    else "value" for x in range(4)}
        if outcomes == {"value", "unbound"}:
            seen.add("unbound on some runs")

    collect()
    assert seen == {"del", "composite in staged loop", "unbound on some runs"}


# -- the patterns of random_programs.PATTERNS ------------------------------------------------

# Names whose values are tensors in the traced run: a condition or loop bound reading one is
# staged (a cond or while op), one reading only constants and counters of constant ranges
# runs as Python.
_TENSOR_NAMES = frozenset(["x", "y", "a", "b", "c", "e", "G", "s", "d", "g", "h"])
_METHODS = frozenset(PATTERNS) & {"append", "pop", "insert", "extend", "clear", "update",
                                   "setdefault", "add", "remove"}


def _reads_tensor(node):
    return any(isinstance(n, ast.Name) and n.id in _TENSOR_NAMES for n in ast.walk(node))


def _range_step(node):
    """The step of `for ... in range(start, stop, step)`, as source, or None."""
    call = node.iter
    if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "range" and \
            len(call.args) == 3:
        return ast.unparse(call.args[2])
    return None


def _statement_patterns(node):
    """The patterns statement `node` itself writes (not those of its nested statements)."""
    found = set()
    if isinstance(node, ast.For):
        step = _range_step(node)
        if step is not None and step.startswith("-"):
            found.add("range_step_negative")
        elif step is not None:
            found.add("range_step_zero")
        first = node.body[0]
        if isinstance(first, ast.Assign) and ast.unparse(first.targets[0]) == "z['n']":
            found.add("key_made_in_loop")
    if isinstance(node, (ast.Assign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        text = [ast.unparse(t) for t in targets]
        if "h" in text or "h['k']" in text:
            found.add("alias")
        if "G" in text:
            found.add("global")
    for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)) if isinstance(
            node, (ast.Expr, ast.Assign)) else ():
        func = call.func
        if isinstance(func, ast.Attribute) and getattr(func.value, "id", None) in "Lmt" and \
                func.attr in _METHODS:
            found.add(func.attr)
        if getattr(func, "id", None) == "bump":
            found.add("nonlocal")
    return found


def patterns_written(source):
    """{(pattern, staged)}: the patterns `source` writes, each with whether it sits under
    staged control flow (a range loop pattern: whether its own loop is staged)."""
    found = set()

    def visit(statements, staged):
        for node in statements:
            for pattern in _statement_patterns(node):
                own_loop = pattern.startswith("range_step") or pattern == "key_made_in_loop"
                found.add((pattern, staged or (own_loop and _reads_tensor(node.iter))))
            header = node.test if isinstance(node, (ast.If, ast.While)) else \
                node.iter if isinstance(node, ast.For) else None
            inner = staged or (header is not None and _reads_tensor(header))
            for field in ("body", "orelse", "finalbody"):
                visit(getattr(node, field, []), inner)
            for handler in getattr(node, "handlers", []):
                visit(handler.body, inner)

    visit(ast.parse(source).body[0].body, False)
    return found


@pytest.mark.property
def test_generator_writes_every_pattern_under_staged_control_flow():
    """By default (every pattern on), the generator writes each one, the mutating methods of
    lists included, inside a branch or loop that is staged when traced (and the range
    patterns as staged loops)."""
    seen = set()

    @settings(max_examples=400, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(source=programs())
    def collect(source):
        seen.update(pattern for pattern, staged in patterns_written(source) if staged)

    collect()
    assert seen == set(PATTERNS)


@pytest.mark.property
def test_generated_patterns_make_python_raise_where_they_should():
    """The step patterns reach Python's ValueError (a range step of 0), and the key made in
    a loop Python's KeyError (the loop ran zero times), for some arguments."""
    kinds = set()

    @settings(max_examples=150, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(source=programs(frozenset(["range_step_zero", "key_made_in_loop"])))
    def collect(source):
        f = load(source)
        kinds.update(outcome(lambda: f(x, y))[-1] for x in range(4) for y in range(3))

    collect()
    assert {"ValueError", "KeyError"} <= kinds


def test_generator_without_patterns_writes_none():
    @settings(max_examples=50, deadline=None, database=None, derandomize=True)
    @given(source=programs(frozenset()))
    def collect(source):
        assert patterns_written(source) == set()

    collect()


@pytest.mark.property
@PROGRAM_SETTINGS
@given(source=programs(frozenset(["range_step_zero", "range_step_negative"])),
       x=st.integers(0, 9), y=st.integers(0, 9))
def test_programs_with_zero_and_negative_range_steps_match_plain_python(source, x, y):
    check_program(source, x, y)


@pytest.mark.slow
@settings(max_examples=10000, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(source=programs(), x=st.integers(0, 9), y=st.integers(0, 9))
def test_ten_thousand_programs_match_plain_python(source, x, y):
    """The long run, with every pattern on."""
    check_program(source, x, y)
