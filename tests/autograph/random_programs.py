"""Random small programs, and the differential check that runs each one three ways.

`programs(patterns)` is a hypothesis strategy for the source of a function `f(x, y)` over
ints with nested `if`/`while`/`for`, `break`, `continue` and `return` anywhere (including
inside loops whose condition depends on the arguments, which TensorFlow rejects, and inside
`finally:` blocks), `try/finally` around them, `try/except ValueError` around calls of
`risky`, which raises on some arguments, attribute and dict-item state (`s.v`, `d['k']`),
and a variable `e` that is bound only on some paths (in one branch, in a loop that may run
zero times, or removed by `del`). The arguments of `risky` are Python values while tracing
too (constants and the counters of loops over constant ranges): tensor control flow inside a
`try` with `except` clauses is refused.

On top of that base, each name of PATTERNS adds one construct, written anywhere a statement
may go (so also inside branches and loops that are staged):

  alias          `h = d` / `h = g` rebinds an alias of one of two dicts, `h['k'] = ...`
                 writes through it (the result reads both dicts)
  append, pop, insert, extend, remove, clear, update, setdefault, add
                 the mutating methods of a list `L`, a dict `m` and a set of constants `t`
  nonlocal       `bump(v)` calls a nested function that rebinds `c` through `nonlocal`
  global         `G = ...` rebinds a module global declared `global G`
  range_step_zero, range_step_negative
                 `for j in range(start, stop, step)` with a step that is (or may be, at
                 run time) zero, or negative
  key_made_in_loop
                 a loop on the arguments that creates `z['n']`, read after it (Python's
                 KeyError when the loop ran zero times)

`check_program` runs a program as plain Python on ints (the reference), converted by
autograph on ints (every operator's Python fallback), and converted and traced by
`tf.function` on int32 scalar tensors (conditions on the arguments become cond/while ops).
Any value that differs from Python's is a failure. An error is accepted only where Python
raised the same kind (the graph's run-time form of a Python error counts: see
`_same_kind`), or where it is one of the project's explicit refusals while tracing (an error
naming one of the program's variables and the user's line); the outcome says which. Values
stay small (updates are reduced modulo a small prime), so int32 never overflows.
"""

import ast
import itertools
import linecache
import re
import types
import warnings

from hypothesis import strategies as st

import autograph
import autograph.tf as tf
from autograph.errors import ConversionError
from runtime import errors
from runtime.operators import undefined

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

LIST_METHODS = ("append", "pop", "insert", "extend", "clear")
DICT_METHODS = ("update", "setdefault")
SET_METHODS = ("add", "remove")
PATTERNS = ("alias",) + LIST_METHODS + DICT_METHODS + SET_METHODS + (
    "nonlocal", "global", "range_step_zero", "range_step_negative", "key_made_in_loop")
DEFAULT_PATTERNS = frozenset(PATTERNS)

# The module global the `global` pattern rebinds, and its value before each run.
_GLOBAL = "G"
_GLOBAL_START = 3


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

    def __init__(self, patterns):
        self.lines = []
        self.counters = itertools.count()
        self.e_state = _NO
        self.static = []  # counters of the enclosing loops over constant ranges
        self.patterns = frozenset(patterns)

    def emit(self, indent, text):
        self.lines.append("    " * indent + text)

    def uses(self, *patterns):
        return any(p in self.patterns for p in patterns)

    def readable(self):
        """The names an expression may read here."""
        names = _VARS + _COMPOSITES
        if self.uses("alias"):
            names += ("h['k']",)
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
    kinds += [p for p in PATTERNS if p in writer.patterns and
              (depth < _MAX_DEPTH or p not in _COMPOUND_PATTERNS)]
    kind = draw(st.sampled_from(kinds))
    if kind in _PATTERN_WRITERS:
        _PATTERN_WRITERS[kind](draw, writer, indent, depth)
        return
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
        _for_range(draw, writer, indent, depth, var,
                   draw(st.sampled_from(["3", "x % 4", "y % 3 + 1"])))
    elif kind == "for_static":
        counter = "k%d" % next(writer.counters)
        writer.emit(indent, "for %s in range(3):" % counter)
        writer.static.append(counter)
        _loop_body(draw, writer, indent + 1, depth + 1)
        writer.static.pop()
    elif kind == "try_finally":
        writer.emit(indent, "try:")
        _block(draw, writer, indent + 1, depth + 1, in_loop)
        _finally_block(draw, writer, indent, depth, in_loop)
    elif kind == "try_except":
        _try_except(draw, writer, indent, depth, in_loop)
    elif kind == "break":
        writer.emit(indent, "break")
    elif kind == "continue":
        writer.emit(indent, "continue")
    else:
        writer.emit(indent, "return %s" % _expr(draw, writer))


def _for_range(draw, writer, indent, depth, var, range_arguments):
    """`for j in range(...)`: loop targets are drawn from two names, so that sibling and
    nested loops share them (a `for` rebinds its target from the iterator, so sharing stays
    finite). A bound of `x % 4` runs zero times for some arguments."""
    counter = "j%d" % draw(st.integers(0, 1))
    writer.emit(indent, "for %s in range(%s):" % (counter, range_arguments))
    writer.emit(indent + 1, "%s = (%s + %s) %% %d" % (var, var, counter, _MOD))
    _loop_body(draw, writer, indent + 1, depth + 1)


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
        _finally_block(draw, writer, indent, depth, in_loop)


def _finally_block(draw, writer, indent, depth, in_loop):
    writer.emit(indent, "finally:")
    _block(draw, writer, indent + 1, depth + 1, in_loop)


# -- the patterns ---------------------------------------------------------------------------


def _alias(draw, writer, indent, depth):
    form = draw(st.sampled_from(["rebind under if", "rebind", "write", "add"]))
    if form == "rebind under if":  # the shape that loses Python's answer most easily
        writer.emit(indent, "if %s:" % _condition(draw, writer))
        writer.emit(indent + 1, "h = %s" % draw(st.sampled_from(["d", "g"])))
        writer.emit(indent, "h['k'] = %s" % _expr(draw, writer))
    elif form == "rebind":
        writer.emit(indent, "h = %s" % draw(st.sampled_from(["d", "g"])))
    elif form == "write":
        writer.emit(indent, "h['k'] = %s" % _expr(draw, writer))
    else:
        writer.emit(indent, "h['k'] += %s" % _atom(draw, writer))
        writer.emit(indent, "h['k'] %%= %d" % _MOD)


def _method(text):
    """A writer of one mutating method call: `text` with {expr} and {atom} drawn."""
    def write(draw, writer, indent, depth):
        for line in text.split("\n"):
            writer.emit(indent, line.format(expr=_expr(draw, writer), atom=_atom(draw, writer),
                                            var=draw(st.sampled_from(_VARS)), mod=_MOD))
    return write


def _nonlocal(draw, writer, indent, depth):
    writer.emit(indent, "bump(%s)" % _atom(draw, writer))


def _global(draw, writer, indent, depth):
    writer.emit(indent, "%s = (%s + %s) %% %d" % (_GLOBAL, _GLOBAL, _atom(draw, writer), _MOD))


def _range_step_zero(draw, writer, indent, depth):
    # A constant step 0 fails at once; `y % 3 - 1` is 0 for some arguments only.
    step = draw(st.sampled_from(["0", "y % 3 - 1", "x % 2"]))
    start, stop = draw(st.sampled_from([("0", "x % 4"), ("3", "0"), ("x % 4", "y % 3 + 1")]))
    _for_range(draw, writer, indent, depth, draw(st.sampled_from(_VARS)),
               "%s, %s, %s" % (start, stop, step))


def _range_step_negative(draw, writer, indent, depth):
    step = draw(st.sampled_from(["-1", "-2", "-(y % 2) - 1"]))
    start, stop = draw(st.sampled_from([("3", "-1"), ("x % 4", "0"), ("3", "x % 4 - 3"),
                                        ("0", "3")]))
    _for_range(draw, writer, indent, depth, draw(st.sampled_from(_VARS)),
               "%s, %s, %s" % (start, stop, step))


def _key_made_in_loop(draw, writer, indent, depth):
    counter = "i%d" % next(writer.counters)
    bound = draw(st.sampled_from(["x % 4", "y % 3"]))
    writer.emit(indent, "for %s in range(%s):" % (counter, bound))
    writer.emit(indent + 1, "z['n'] = %s" % _expr(draw, writer))
    _loop_body(draw, writer, indent + 1, depth + 1)
    var = draw(st.sampled_from(_VARS))
    writer.emit(indent, "%s = (%s + z['n']) %% %d" % (var, var, _MOD))


_PATTERN_WRITERS = {
    "alias": _alias,
    "append": _method("L.append({atom})"),
    "pop": _method("if L:\n    {var} = ({var} + L.pop()) % {mod}\n"
                   "{var} = ({var} + m.pop('p', 2)) % {mod}"),
    "insert": _method("L.insert(0, {atom})"),
    "extend": _method("L.extend([{atom}, {expr}])"),
    "clear": _method("L.clear()\nm.clear()\nt.clear()"),
    "update": _method("m.update({{'p': {expr}}})"),
    "setdefault": _method("{var} = ({var} + m.setdefault('q', {atom})) % {mod}"),
    "add": _method("t.add(3)"),
    "remove": _method("if 1 in t:\n    t.remove(1)"),
    "nonlocal": _nonlocal,
    "global": _global,
    "range_step_zero": _range_step_zero,
    "range_step_negative": _range_step_negative,
    "key_made_in_loop": _key_made_in_loop,
}
# Patterns that open a block: written only where blocks may still nest.
_COMPOUND_PATTERNS = frozenset(["range_step_zero", "range_step_negative", "key_made_in_loop"])


def _prelude(writer):
    """The first statements of `f`: the state every statement may read or change."""
    if writer.uses("global"):
        writer.emit(1, "global %s" % _GLOBAL)
    writer.emit(1, "a = x % {0}\n    b = y % {0}\n    c = 1".format(_MOD))
    writer.emit(1, "s = Box(v=2)\n    d = {'k': 3}")
    if writer.uses("alias"):
        writer.emit(1, "g = {'k': 4}\n    h = g")
    if writer.uses(*LIST_METHODS, "pop"):
        writer.emit(1, "L = [1, 2]")
    if writer.uses("pop", "clear", *DICT_METHODS):
        writer.emit(1, "m = {'p': 1}")
    if writer.uses("clear", *SET_METHODS):
        writer.emit(1, "t = {1, 2}")
    if writer.uses("key_made_in_loop"):
        writer.emit(1, "z = {}")
    if writer.uses("nonlocal"):
        writer.emit(1, "def bump(v):\n        nonlocal c\n        c = (c + v) %% %d" % _MOD)


def _result(writer, with_e, with_global):
    """The expression `f` returns at its end: every piece of state, weighted (the global
    only if `with_global`: one not read after a statement is no state of it)."""
    terms = ["a", "2 * b", "3 * c", "5 * s.v", "7 * d['k']"]
    if writer.uses("alias"):
        terms.append("11 * g['k']")
    if writer.uses(*LIST_METHODS, "pop"):
        terms += ["13 * len(L)", "sum(L)"]
    if writer.uses("pop", "clear", *DICT_METHODS):
        terms += ["17 * len(m)", "m.get('p', 0)", "m.get('q', 0)"]
    if writer.uses("clear", *SET_METHODS):
        terms.append("19 * len(t)")
    if with_global:
        terms.append("23 * %s" % _GLOBAL)
    if with_e:
        terms.append(_MAYBE)
    return "(%s) %% 97" % " + ".join(terms)


@st.composite
def programs(draw, patterns=DEFAULT_PATTERNS):
    """Source text of a random `def f(x, y)` over ints that may use `patterns`."""
    writer = _Writer(patterns)
    writer.emit(0, "def f(x, y):")
    _prelude(writer)
    _block(draw, writer, 1, 0, False)
    with_e = writer.e_state != _NO and draw(st.booleans())
    with_global = writer.uses("global") and draw(st.booleans())
    writer.emit(1, "return %s" % _result(writer, with_e, with_global))
    return "\n".join(writer.lines) + "\n"


# -- running them ---------------------------------------------------------------------------


def load(source):
    """Defines the function in a file-like linecache entry of its own (so autograph can read
    its source), in a fresh module namespace (so each run starts from the same global)."""
    filename = "<random program %d>" % next(_file_counter)
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = {"risky": risky, "Box": types.SimpleNamespace, _GLOBAL: _GLOBAL_START}
    with warnings.catch_warnings():  # jumps in `finally:` warn from Python 3.14 (PEP 765)
        warnings.simplefilter("ignore", SyntaxWarning)
        exec(compile(source, filename, "exec"), namespace)
    return namespace["f"]


def _error_kind(error):
    """The kind of error a run ended with: 'unbound' for a read of an unbound variable
    (NameError, UnboundLocalError, and the graph's UndefinedValueError), else its class."""
    if isinstance(error, NameError):
        return "unbound"
    return type(error).__name__


# What a graph raises when it runs, for each Python error its check stands for: kernels'
# ValueErrors (a range step of 0) become InvalidArgumentError, and a key that a loop creates
# read after the loop ran zero times is an undefined read, as in TensorFlow.
_RUN_TIME_FORMS = {"ValueError": {"InvalidArgumentError"},
                   "IndexError": {"InvalidArgumentError"},
                   "KeyError": {"InvalidArgumentError", "unbound"}}
# The errors Python raises in these programs (ValueError: a range step of 0; KeyError: a
# key read before it exists; IndexError: a pop from an empty list).
_PYTHON_ERRORS = (NameError, ValueError, KeyError, IndexError)


def outcome(run):
    """('value', v) or ('error', kind): what `run()` returns, or the kind of error it raised
    (only the errors the programs can raise in Python, and the graph's forms of them)."""
    try:
        return "value", run()
    except _PYTHON_ERRORS + (errors.InvalidArgumentError,) as e:
        return "error", _error_kind(e)


def _same_kind(python_kind, traced_kind):
    return traced_kind == python_kind or traced_kind in _RUN_TIME_FORMS.get(python_kind, ())


def _replaced_kinds(run):
    """The kinds of the errors that the error `run()` raises replaced: a `finally:` block
    (or handler) that raised while they were in flight. A graph raises the first error it
    meets, so any of them is a fair answer there."""
    try:
        run()
    except _PYTHON_ERRORS as e:
        kinds, seen, cause = [], set(), e.__context__
        while cause is not None and id(cause) not in seen:
            seen.add(id(cause))
            if isinstance(cause, _PYTHON_ERRORS):
                kinds.append(_error_kind(cause))
            cause = cause.__context__
        return kinds
    return []


def _raises_somewhere(source, kind):
    """Whether plain Python raises an error of `kind` for some arguments."""
    f = load(source)
    return any(outcome(lambda: f(x, y)) == ("error", kind)
               for x in range(10) for y in range(10))


def _raised_by_the_program(error):
    """Whether `error` was raised by the program's own line (Python's error, met while
    tracing), not by the project's code."""
    tb = error.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code.co_filename.startswith(
        ("<random program", "<ag__"))


def _is_refusal(error, source):
    """One of the project's explicit refusals while tracing: a conversion error, or a staging
    error that names the user's line and one of the program's variables (quoted)."""
    if isinstance(error, ConversionError):
        return True
    message = str(error)
    if "in user code" not in message:
        return False
    names = {node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name)}
    names |= {"%s['%s']" % (target, key) for target, key in
              (("d", "k"), ("h", "k"), ("z", "n"), ("m", "p"), ("m", "q"))}
    names.add("s.v")
    return any("'%s'" % name in message for name in names)


def _no_marker_in_module(f):
    """The module's global holds a value, never an internal marker (a DeadValue)."""
    value = f.__globals__[_GLOBAL]
    assert not isinstance(value, (undefined.Undefined, undefined.MaybeUndefined)), value


def refusal_kind(error):
    """`error`'s class and the first words of its message, with the names it quotes and
    its numbers blanked: what a report groups refusals by."""
    first = str(error).splitlines()[0] if str(error) else ""
    first = re.sub(r"'[^']*'|`[^`]*`", "'_'", first)
    return "%s: %s" % (type(error).__name__, re.sub(r"\d+", "N", first)[:70])


def check_program(source, x, y):
    """Runs `source` plainly, converted on ints and traced on int32 tensors; asserts that
    they agree (see the module docstring) and returns how the traced run ended:

      'agreed'           the same value, or all raised the same kind of error;
      'raised at run'    Python raised, and the graph raised the run-time form of that error
                         (InvalidArgumentError for a ValueError, ...), or of an error that
                         Python's replaced (one raised in a `finally:` block on its way out;
                         a graph raises the first error it meets);
      'refused: ...'     an explicit refusal while tracing, with its error class and the
                         first words of its message (see refusal_kind): a read of
                         `e` that is unbound on every path traced, in a program where Python
                         reads it unbound for some arguments, or of `z['n']` missing there
                         (Python's KeyError met tracing code that may not run);
                         a tensor-dependent jump in a `finally:` block while a trace-time
                         exception is in flight; or a staging or conversion error naming a
                         variable and the line;
      'refused: ... first'  Python raised one error, and tracing met another that always
                         fails at a later line (a read unbound on every path, a range step of
                         0): the graph would have checked Python's at run time, but tracing
                         stops first. An error either way, only of another kind."""
    expected = outcome(lambda: load(source)(x, y))
    converted = autograph.to_graph(load(source))
    assert outcome(lambda: converted(x, y)) == expected, source
    f = load(source)
    function = tf.function(f)
    args = (tf.constant(x), tf.constant(y))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", autograph.SideEffectWarning)
            concrete = function.get_concrete_function(*args)
    except UnboundLocalError:
        _no_marker_in_module(f)
        if expected == ("error", "unbound"):
            return "agreed"
        if expected[0] == "error":
            return "refused: UnboundLocalError first"
        assert _raises_somewhere(source, "unbound"), source
        return "refused: UnboundLocalError"
    except NotImplementedError as e:
        _no_marker_in_module(f)
        # A `finally:` whose jump depends on a tensor while an exception raised during
        # tracing is in flight, or staging refused inside a `try`: a clear error, never a
        # made-up value.
        assert "`finally:` block" in str(e) or _is_refusal(e, source), source
        return "refused: " + refusal_kind(e)
    except (ValueError, TypeError, KeyError, IndexError) as e:
        _no_marker_in_module(f)
        if expected[0] == "error" and _same_kind(expected[1], _error_kind(e)):
            return "agreed"  # Python raises it too, and so does tracing (a constant range step 0)
        if expected[0] == "error":
            return "refused: %s first" % refusal_kind(e)
        if isinstance(e, KeyError) and _raised_by_the_program(e):
            # As for `e` above: a key that tracing finds missing on every path it traced
            # (the loops that create it always raise when they run), read in code that may
            # not run: Python's error met while tracing, which the graph does not defer.
            return "refused: KeyError"
        assert _is_refusal(e, source), "%s\n%s: %s" % (source, type(e).__name__, e)
        return "refused: " + refusal_kind(e)
    _no_marker_in_module(f)
    traced = outcome(lambda: concrete(*args))
    if traced[0] == "error":
        assert expected[0] == "error", "%s\nPython: %s, traced: %s" % (source, expected,
                                                                        traced)
        if _same_kind(expected[1], traced[1]):
            return "agreed" if traced == expected else "raised at run"
        assert any(_same_kind(kind, traced[1]) for kind in
                   _replaced_kinds(lambda: load(source)(x, y))), (
            "%s\nPython: %s, traced: %s" % (source, expected, traced))
        return "raised at run: Python's first error"
    assert expected[0] == "value", "%s\nPython: %s, traced: %s" % (source, expected, traced)
    assert traced[1].dtype == tf.int32, source
    assert int(traced[1].numpy()) == expected[1], "%s\nPython: %s, traced: %s" % (
        source, expected, traced)
    return "agreed"
