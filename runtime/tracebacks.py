"""Tracebacks in the user's terms (the idea of JAX's traceback filtering).

An exception leaving a Function, a ConcreteFunction or a converted function has passed
through frames that the user never wrote: the runtime's, the compiler's and those of
generated code. Where it leaves (`Function.__call__`, `get_concrete_function`,
`ConcreteFunction.__call__`, the outermost converted function, `Dataset.map`, `filter` and
`reduce`), `filter_exception` rewrites its traceback:

    test.py:15 <module>       f(x)                  test.py:15 <module>  f(x)
    runtime/function.py ...   (tracing)
    <ag__ converted f#1>:4    for_stmt(...)    ->   test.py:11 f         helper(i)
    runtime/operators/loops.py ...
    <ag__ converted f#1>:7    loop_body
    autograph/converted_call.py  converted_call
    test.py:6 helper          raise ValueError      test.py:6 helper     raise ValueError

Frames of this project and of the graphs' generated code are dropped, and so are frames of
numpy and the standard library that they called (converted code calls everything through
`converted_call`: the traceback ends at the user's call, as it ends at any call of a
library); frames of generated code become frames
at the user's file and line (see `frame_at`), and the generated functions of converted
control flow (`loop_body`, `if_body`, ...) merge into the frame of the user's function they
belong to, as plain Python shows one frame per function. A graph that fails while it runs
gets a frame at the line that created the failing op (`location_traceback`). Everything
else, the user's frames, stays, in order; the innermost frame is the user's line that
raised, which is where `pdb.post_mortem` lands.

`AUTOGRAPH_TRACEBACK_FILTERING=off` in the environment, or `autograph.config(
traceback_filtering=False)`, leaves tracebacks whole, for debugging this project itself.

A boundary re-raises with a bare `raise` (or by returning False from `__exit__`), which
adds no frame of its own and, from CPython 3.11, keeps the traceback the exception has
now. CPython 3.10 restores the traceback it had when caught, whose first entry is the
boundary's own frame (or, for `__exit__`, the converted function's): there that entry
stays, and what follows it is replaced by the filtered frames, so a traceback on 3.10 has
exactly one frame more, the boundary's, at the outer end of the filtered ones.
"""

import ast
import functools
import linecache
import os
import sys
import types

from runtime import context, errors, reserved_names

ENVIRONMENT_VARIABLE = "AUTOGRAPH_TRACEBACK_FILTERING"
_OFF = frozenset(["off", "0", "false", "no"])

# Modules that the runtime calls on the user's behalf: their frames go with the runtime's.
_LIBRARIES = frozenset(["numpy", "gast", "astunparse", "exceptiongroup"])


def filtering_enabled():
    """Whether tracebacks are filtered: `autograph.config(traceback_filtering=...)` when it
    was given, else the environment variable (on unless it says off, 0, false or no)."""
    setting = context._settings.get("traceback_filtering")
    if setting is not None:
        return setting
    value = os.environ.get(ENVIRONMENT_VARIABLE, "on")
    return value.strip().lower() not in _OFF


def set_filtering(enabled):
    """Turns filtering on or off (True/False), or back to the environment's choice (None)."""
    context._settings["traceback_filtering"] = None if enabled is None else bool(enabled)


def filter_exception(exc):
    """Filters the traceback of `exc` and of the exceptions chained to it (`__cause__`,
    `__context__`), in place, when filtering is enabled. Returns `exc`.

    A boundary re-raises it with a bare `raise`, which keeps the traceback it has now (on
    CPython 3.10, the one it had when caught: see `_filter_after_boundary`)."""
    if not filtering_enabled():
        return exc
    pending, seen = [exc], set()
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if current is exc and _RERAISE_RESTORES_TRACEBACK:
            _filter_after_boundary(current)
        else:
            current.with_traceback(filter_traceback(current.__traceback__))
        pending.extend((current.__cause__, current.__context__))
    return exc


# CPython 3.10 re-raises (bare `raise`, `__exit__` returning False) with the traceback
# object the exception had when it was caught, whatever `__traceback__` is by then.
_RERAISE_RESTORES_TRACEBACK = sys.version_info < (3, 11)


def _filter_after_boundary(exc):
    """Filters the traceback of `exc` in place after its first entry, the frame of the
    boundary that caught it: that entry is the object a 3.10 re-raise restores, so it stays,
    followed by the filtered frames (which include its own, translated, when it is a frame of
    generated code). A later boundary drops it (see `user_entries`)."""
    tb = exc.__traceback__
    if tb is not None:
        tb.tb_next = _link(user_entries(tb, getattr(exc, _KEPT_ENTRY, None)), None)
        setattr(exc, _KEPT_ENTRY, tb)


_KEPT_ENTRY = "_autograph_boundary_entry"


def api_boundary(func):
    """Decorates a public function of the runtime that traces or runs the user's functions
    (`Dataset.map`...): exceptions leave it filtered. It adds a call, so the hot paths
    (`Function.__call__`...) hold the same `try` inline instead."""
    @functools.wraps(func)
    def boundary(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except Exception as e:
            filter_exception(e)
            raise
    return boundary


class _Entry:
    """One frame of a filtered traceback: a real frame, or one made at the user's line."""

    __slots__ = ("frame", "lasti", "lineno", "filename", "name", "source")

    def __init__(self, frame, lasti, lineno, filename, name, source=None):
        self.frame = frame
        self.lasti = lasti
        self.lineno = lineno
        self.filename = filename
        self.name = name
        self.source = source  # the generated file the frame came from, or None


def user_entries(tb, kept=None):
    """The frames of traceback `tb` that stay after filtering, outermost first (see the
    module docstring); frames of generated code are translated but not yet made. `kept` is
    the entry an earlier boundary kept on CPython 3.10, whose frames follow it already
    filtered: it is dropped."""
    entries = []
    called_by_us = False
    while tb is not None:
        if tb is kept:
            tb = tb.tb_next
            continue
        frame, lineno = tb.tb_frame, tb.tb_lineno
        code = frame.f_code
        filename = code.co_filename
        if filename.startswith("<graph ") or errors.is_internal_file(filename):
            called_by_us = True
        elif _is_library(frame):
            if not called_by_us:
                entries.append(_Entry(frame, tb.tb_lasti, lineno, filename, code.co_name))
        else:
            called_by_us = False
            translated = errors.translate_location(filename, lineno)
            generated = filename.startswith(reserved_names.FILE_PREFIX)
            if translated == (filename, lineno) and not generated:
                entries.append(_Entry(frame, tb.tb_lasti, lineno, filename, code.co_name))
            else:
                _add_generated(entries, frame, translated, filename)
        tb = tb.tb_next
    return entries


def _add_generated(entries, frame, translated, source):
    """Adds the entry of a frame of generated code, at the user's line `translated`. The
    generated functions of converted control flow (`loop_body`...) run inside the user's
    function: their frame replaces that function's, as plain Python shows one frame."""
    code = frame.f_code
    entry = _Entry(frame, None, translated[1], translated[0], errors.user_function_name(frame),
                   source)
    previous = entries[-1] if entries else None
    if previous is not None and previous.source == source and previous.name == entry.name:
        if errors.is_generated_function(code.co_name):  # its line is the current one
            entries[-1] = entry
            return
        if code.co_name == "<lambda>" and previous.lineno == entry.lineno:
            return  # a generated thunk (`a and b`, `x if c else y`) on the same line
    entries.append(entry)


def _is_library(frame):
    module = frame.f_globals.get("__name__") or ""
    top = module.split(".")[0]
    return top in _LIBRARIES or top in getattr(sys, "stdlib_module_names", ())


def filter_traceback(tb):
    """The filtered traceback of `tb` (a new linked list of traceback objects)."""
    return _link(user_entries(tb), None)


def _link(entries, tb_next):
    for entry in reversed(entries):
        if entry.source is None:
            tb_next = types.TracebackType(tb_next, entry.frame, entry.lasti, entry.lineno)
        else:
            tb_next = frame_at(entry.filename, entry.lineno, entry.name, tb_next,
                               entry.frame.f_globals, _visible_locals(entry.frame))
    return tb_next


def _visible_locals(frame):
    return {name: value for name, value in frame.f_locals.items()
            if not name.startswith(reserved_names.NAMESPACE) and
            name != reserved_names.FUNCTION_SCOPE}


def location_traceback(location, tb_next=None):
    """A traceback entry at `location` (a `SourceLocation`, the line that created a graph
    node) followed by `tb_next`: the innermost frame of a graph that failed while it ran."""
    return frame_at(location.frame_filename(), location.lineno, location.function, tb_next)


def frame_at(filename, lineno, name, tb_next=None, f_globals=None, f_locals=None):
    """A traceback entry whose frame runs the user's `filename` at `lineno`, in a function
    called `name`: `traceback`, printed tracebacks and pdb all show the user's line. The
    frame is made by running a one-statement code object placed at that line (it raises
    at once) with `f_globals` and `f_locals`, so that pdb can show the values."""
    code = _code_at(filename, lineno, name)
    if f_globals is None:
        f_globals = {"__name__": "__autograph_location__"}
    try:
        exec(code, f_globals, dict(f_locals or {}))  # noqa: S102 - raises at once
    except TypeError as raised:
        entry = raised.__traceback__
    # the entry after this frame's is the exec'd code's, which raised at once
    assert entry is not None and entry.tb_next is not None
    made = entry.tb_next
    return types.TracebackType(tb_next, made.tb_frame, made.tb_lasti, made.tb_lineno)


@functools.lru_cache(maxsize=512)
def _code_at(filename, lineno, name):
    """`raise None` (a TypeError) compiled at `filename`:`lineno`, spanning the whole line
    so that no carets mark a part of it."""
    line = linecache.getline(filename, lineno)
    text = line.strip()
    start = len(line.encode("utf-8")) - len(line.lstrip().encode("utf-8"))
    end = start + len(text.encode("utf-8")) if text else start
    raised = ast.Constant(value=None)
    statement = ast.Raise(exc=raised, cause=None)
    for node in (statement, raised):
        node.lineno = node.end_lineno = lineno
        node.col_offset, node.end_col_offset = start, end
    code = compile(ast.Module(body=[statement], type_ignores=[]), filename, "exec")
    if sys.version_info >= (3, 11):  # the qualified name a traceback shows
        return code.replace(co_name=name, co_qualname=name)
    return code.replace(co_name=name)
