"""Run-time diagnostics: the warning classes, their settings, the `autograph` logger, and
the record of the trace in progress that trace-time checks consult.

    RetracingWarning     a Function keeps tracing (runtime.retracing explains why)
    SideEffectWarning    a Python side effect ran while tracing and will not run again
    UnrollingWarning     a Python loop added more than UNROLL_LIMIT ops to one graph

Each is a `UserWarning` issued at the user's line (`errors.warn`). `configure` changes the
settings (`autograph.config` calls it); `set_verbosity` the logger's level.

The trace hook: `Function` enters `tracing(record)` around each trace; `current_trace()` is
that record (None outside any Function's trace), so that the operators and `converted_call`
can tell whether an effect happens while a Function traces, and whether that is its first
trace. A record also keeps which (kind, file, line) were reported, so that each source line
warns once per Function.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from runtime import errors

__all__ = ["RetracingWarning", "SideEffectWarning", "UnrollingWarning", "TraceRecord",
           "configure", "current_trace", "logger", "set_verbosity", "setting", "tracing",
           "warn_side_effect", "warn_once"]


class RetracingWarning(UserWarning):
    """A Function traced on each of its last calls, or more often than `retrace_budget`."""


class SideEffectWarning(UserWarning):
    """A Python side effect ran while a Function traced: it will not run on later calls."""


class UnrollingWarning(UserWarning):
    """A Python loop unrolled into more than `UNROLL_LIMIT` ops of one graph."""


UNROLL_LIMIT = 1000  # ops one Python loop may add to one graph before it warns

logger = logging.getLogger("autograph")

_settings: dict[str, Any] = {"retrace_budget": None, "side_effect_warnings": True}


def setting(name: str) -> Any:
    """The current value of diagnostic setting `name`."""
    return _settings[name]


def configure(retrace_budget: Any = ..., side_effect_warnings: Any = ...) -> None:
    """Changes the settings given (`...`: unchanged).

    retrace_budget        None (no budget) or an int >= 1: a Function that traces more
                          often warns (RetracingWarning), besides the 5-in-5-calls rule.
    side_effect_warnings  False silences SideEffectWarning."""
    if retrace_budget is not ...:
        if retrace_budget is not None and (isinstance(retrace_budget, bool) or not isinstance(
                retrace_budget, int) or retrace_budget < 1):
            raise TypeError("config: retrace_budget must be None or an int >= 1, got %r"
                            % (retrace_budget,))
        _settings["retrace_budget"] = retrace_budget
    if side_effect_warnings is not ...:
        if side_effect_warnings not in (True, False):
            raise TypeError("config: side_effect_warnings must be True or False, got %r"
                            % (side_effect_warnings,))
        _settings["side_effect_warnings"] = side_effect_warnings


# -- logging -------------------------------------------------------------------------------------
_handlers: dict[str, logging.Handler] = {}


def _verbosity_level(verbosity: int) -> int:
    if verbosity <= 0:
        return logging.WARNING
    return logging.INFO if verbosity == 1 else logging.DEBUG


def set_verbosity(level: int, alsologtostdout: bool = False) -> None:
    """Sets how much the `autograph` logger says: 0 warnings only (the default), 1 also each
    retrace and its reason (INFO), 2 or more also each conversion decision (DEBUG).

    `alsologtostdout=True` adds a handler that prints the records to stdout (once); without
    one, records go to the handlers the application configured (`logging.basicConfig`)."""
    if isinstance(level, bool) or not isinstance(level, int):
        raise TypeError("set_verbosity expects an int level (0, 1, 2...), got %r" % (level,))
    logger.setLevel(_verbosity_level(level))
    if alsologtostdout:
        _add_handler("stdout", sys.stdout)


def _add_handler(name: str, stream: Any) -> None:
    if name not in _handlers:
        handler = logging.StreamHandler(stream)
        handler.setFormatter(logging.Formatter("autograph %(levelname)s: %(message)s"))
        _handlers[name] = handler
        logger.addHandler(handler)


def _verbosity_from_environment() -> None:
    """AUTOGRAPH_VERBOSITY=N sets the verbosity at import, logging to stderr."""
    text = os.environ.get("AUTOGRAPH_VERBOSITY", "").strip()
    if not text:
        return
    try:
        level = int(text)
    except ValueError:
        errors.warn("AUTOGRAPH_VERBOSITY must be an integer (0, 1, 2...), got %r; ignored"
                    % text)
        return
    set_verbosity(level)
    if level > 0:
        _add_handler("stderr", sys.stderr)


_verbosity_from_environment()


# -- the trace in progress -----------------------------------------------------------------------
class TraceRecord:
    """What trace-time checks need to know of one Function's trace in progress."""

    __slots__ = ("function_name", "first", "reported", "held")

    def __init__(self, function_name: str, first: bool, reported: set[Any]) -> None:
        self.function_name = function_name
        self.first = first          # the Function's first trace: side effects are reported
        self.reported = reported    # the Function's (kind, file, line) already warned about
        # While a list: frozen-value reports (random, time) wait here instead of warning.
        # The Function holds them during a pass that may create variables: when it does,
        # that pass ran initializers (`if self.w is None: self.w = tf.Variable(np.random
        # .randn(3))` is right), and the pass that follows reports what still runs.
        self.held: list[tuple[str, str, errors.SourceLocation | None]] | None = None

    def hold_frozen_values(self) -> None:
        """Holds the frozen-value reports of the pass that starts (see `held`)."""
        self.held = []

    def release_held(self, report: bool) -> None:
        """Stops holding; issues the held reports when `report` (the pass created no
        variables), else drops them (it ran initializers, and the next pass reports)."""
        held, self.held = self.held or [], None
        if not report:
            return
        with tracing(self):
            for kind, message, location in held:
                warn_once(kind, message, SideEffectWarning, location, held=True)


class _Traces(threading.local):
    def __init__(self) -> None:
        self.stack: list[TraceRecord] = []


_traces = _Traces()


@contextmanager
def tracing(record: TraceRecord) -> Iterator[TraceRecord]:
    """Makes `record` the current trace of this thread for the block."""
    _traces.stack.append(record)
    try:
        yield record
    finally:
        _traces.stack.pop()


def current_trace() -> TraceRecord | None:
    """The record of the innermost Function trace of this thread, or None."""
    stack = _traces.stack
    return stack[-1] if stack else None


def warn_once(kind: str, message: str, category: type[Warning],
              location: errors.SourceLocation | None = None, held: bool = False) -> bool:
    """Warns `message` at the user's line (or `location`), unless this trace's Function was
    already warned of `kind` there. Returns whether it warned. Outside a trace: no-op.
    `held`: a report issued after its line ran (TraceRecord.held), placed at `location`."""
    record = current_trace()
    if record is None:
        return False
    location = location or errors.user_location(2)
    where = (kind, location.filename, location.lineno) if location else (kind, message)
    if where in record.reported:
        return False
    record.reported.add(where)
    text = "%s:%d: %s" % (location.filename, location.lineno, message) if location else message
    logger.info("%s: %s", category.__name__, text)
    if held and location is not None:  # issued later, from another frame: at `location`
        warnings.warn_explicit(text, category, location.filename, location.lineno)
    else:
        errors.warn(text, category)
    return True


def warn_side_effect(kind: str, message: str, frozen_value: bool = False) -> bool:
    """A SideEffectWarning (once per line) when this is a Function's first trace and the
    warnings are on; returns whether it warned. `frozen_value`: the effect is a value
    frozen into the graph (random, time), held while the trace holds such reports."""
    record = current_trace()
    if record is None or not record.first or not _settings["side_effect_warnings"]:
        return False
    location = errors.user_location(2)
    if frozen_value and record.held is not None:
        record.held.append((kind, message, location))
        return False
    return warn_once(kind, message, SideEffectWarning, location)
