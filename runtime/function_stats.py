"""The cost of tracing in numbers: `Function.stats()`.

A Function times one call in `SAMPLE_EVERY` (the second, then every sixteenth: the first
includes compiling the graph), and after `DENSE_SAMPLES` samples one in `SPARSE_SAMPLE_EVERY`
(a timed call takes the general path, which a cached call of a few microseconds felt as 2%),
so that a cached call pays for one small counter that counts down to the next timed call,
never for a clock; the number of calls is derived from it.
Trace (and convert) time comes from its `TracingLog`. The eager comparison runs the Python
function once more, unconverted, on the first call's arguments: only when asked, because it
repeats the function's Python side effects (variable updates included).

Keeping those arguments must not keep a user's objects alive for the Function's lifetime: values
(tensors, arrays, numbers, strings) are kept while they total at most `KEEP_BYTES`, any other
object (a model, a dataset, a variable) only by weak reference. When the arguments were too large
or an object is gone, the comparison says so instead of running.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import time
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from runtime import context, tensor

KEEP_BYTES = 16 * 2**20  # the first call's values kept for the eager comparison, at most
SAMPLE_EVERY = 16  # one call in this many is timed, for the first DENSE_SAMPLES samples
DENSE_SAMPLES = 64
SPARSE_SAMPLE_EVERY = 256  # then one in this many
FIRST_SAMPLE = 2  # the first call timed: the second (the first compiles the graph)


class CallClock:
    """A Function's sampled call times, its call count, and the arguments of its first
    traced call.

    The Function counts down `period` calls to the next timed one (its `_until_sample`);
    `counted` is the number of calls made before the current period began."""

    __slots__ = ("seconds", "samples", "represented", "first_inputs", "counted", "period")

    def __init__(self) -> None:
        self.seconds = 0.0  # each sample's time times the calls it stands for (its period)
        self.samples = 0
        self.represented = 0  # the calls the samples stand for
        self.first_inputs: _KeptInputs | None = None
        self.counted = 0
        self.period = FIRST_SAMPLE

    def calls_made(self, until_sample: int) -> int:
        """The number of calls made, `until_sample` being the Function's countdown."""
        return self.counted + self.period - until_sample

    def next_period(self, until_sample: int) -> int:
        """Starts the next sampling period; returns the countdown it begins with. (The
        countdown may have passed 0 during calls that were not timed.)"""
        self.counted = self.calls_made(until_sample)
        # (the sample this period starts is not counted yet)
        dense = self.samples + 1 < DENSE_SAMPLES
        self.period = SAMPLE_EVERY if dense else SPARSE_SAMPLE_EVERY
        return self.period

    def timed_call(self, run: Callable[[list[Any]], Any], feeds: list[Any]) -> Any:
        """`run(feeds)` (a trace's cached call), adding the time it took to the samples."""
        start = time.perf_counter()
        result = run(feeds)
        # weighted by the calls it stands for: a sample of the sparse periods counts 16 times
        # one of the dense ones, or the mean would lean on the first thousand calls (a graph
        # promoted to numba after them would keep the executor's time)
        self.seconds += (time.perf_counter() - start) * self.period
        self.represented += self.period
        self.samples += 1
        return result

    def keep_inputs(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """Keeps the first traced call's arguments, for the eager comparison (values up to
        `KEEP_BYTES`, other objects by weak reference)."""
        if self.first_inputs is None:
            self.first_inputs = _KeptInputs.of(tuple(args), dict(kwargs))


class _InputsUnavailable(Exception):
    """The first call's arguments cannot be given back (the message says why)."""


class _Weak:
    """An argument held by weak reference."""

    __slots__ = ("ref", "type_name")

    def __init__(self, value: Any) -> None:
        self.ref = weakref.ref(value)
        self.type_name = type(value).__name__

    def get(self) -> Any:
        value = self.ref()
        if value is None:
            raise _InputsUnavailable("a %s argument of the first call no longer exists"
                                     % self.type_name)
        return value


class _KeptInputs:
    """The first call's arguments, as far as they could be kept (`missing` says why not)."""

    __slots__ = ("args", "kwargs", "missing")

    def __init__(self, args: Any, kwargs: Any, missing: str | None) -> None:
        self.args, self.kwargs, self.missing = args, kwargs, missing

    @classmethod
    def of(cls, args: tuple[Any, ...], kwargs: dict[str, Any]) -> _KeptInputs:
        budget = [KEEP_BYTES]
        try:
            return cls(_hold(args, budget), _hold(kwargs, budget), None)
        except _InputsUnavailable as why:
            return cls(None, None, str(why))

    def restore(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The arguments back; raises _InputsUnavailable when they were not kept or are gone."""
        if self.missing is not None:
            raise _InputsUnavailable(self.missing)
        return _release(self.args), _release(self.kwargs)


def _value_bytes(value: Any) -> int | None:
    """The bytes of a plain value kept by strong reference; None for other objects."""
    if value is None or isinstance(value, (bool, numbers.Number, str, bytes)):
        return 0 if not isinstance(value, (str, bytes)) else len(value)
    if isinstance(value, tensor.EagerTensor):
        value = value._value  # its array (numpy's, or a device's)
    if isinstance(value, (np.ndarray, np.generic)) or type(value).__module__.startswith("jax"):
        return int(getattr(value, "nbytes", 0))
    return None


def _hold(value: Any, budget: list[int]) -> Any:
    if type(value) in (list, tuple):
        return type(value)(_hold(item, budget) for item in value)
    if type(value) is dict:
        return {key: _hold(item, budget) for key, item in value.items()}
    size = _value_bytes(value)
    if size is not None:
        budget[0] -= size
        if budget[0] < 0:
            raise _InputsUnavailable("the first call's arguments hold more than %d MiB, which "
                                     "a Function does not keep" % (KEEP_BYTES >> 20))
        return value
    try:
        return _Weak(value)
    except TypeError:
        raise _InputsUnavailable("a %s argument of the first call cannot be kept without "
                                 "keeping it alive" % type(value).__name__) from None


def _release(value: Any) -> Any:
    if type(value) in (list, tuple):
        return type(value)(_release(item) for item in value)
    if type(value) is dict:
        return {key: _release(item) for key, item in value.items()}
    return value.get() if isinstance(value, _Weak) else value


@dataclasses.dataclass(frozen=True)
class FunctionStats:
    """What a Function's traces cost and what its calls gained. Times are in seconds;
    `eager_seconds` and `calls_to_repay` are None unless `stats(compare_eager=True)` ran,
    and `calls_to_repay` is None as well when a graph call is no faster than eager."""

    name: str
    traces: int
    trace_seconds: float
    calls: int
    mean_call_seconds: float | None
    eager_seconds: float | None = None
    calls_to_repay: int | None = None
    eager_unavailable: str | None = None  # why the eager comparison asked for did not run

    def __str__(self) -> str:
        def ms(seconds: float | None) -> str:
            return "-" if seconds is None else "%.3f ms" % (seconds * 1e3)
        if self.eager_unavailable is not None:
            repay = "- (no eager run: %s)" % self.eager_unavailable
        elif self.eager_seconds is None:
            repay = "- (stats(compare_eager=True) measures it)"
        elif self.calls_to_repay is None:
            repay = "never (a graph call is not faster than an eager run)"
        else:
            repay = "%d calls" % self.calls_to_repay
        rows = [("traces", str(self.traces)), ("trace+convert time", ms(self.trace_seconds)),
                ("calls", str(self.calls)), ("mean call time", ms(self.mean_call_seconds)),
                ("eager run", ms(self.eager_seconds)), ("trace repaid after", repay)]
        width = max(len(label) for label, _ in rows)
        return "\n".join(["Function %s" % self.name] +
                         ["  %-*s  %s" % (width, label, text) for label, text in rows])


def function_stats(name: str, traces: int, events: Any, clock: CallClock, until_sample: int,
                   python_function: Any, compare_eager: bool) -> FunctionStats:
    """The FunctionStats of a Function named `name`: `traces` traces whose TraceEvents are
    `events`, its CallClock and countdown; `python_function` is run once eagerly when
    `compare_eager`."""
    trace_seconds = sum(event.seconds for event in events)
    mean = clock.seconds / clock.represented if clock.represented else None
    eager, unavailable = None, None
    if compare_eager:
        try:
            eager = eager_seconds(python_function, clock)
        except _InputsUnavailable as why:
            unavailable = str(why)
    return FunctionStats(name, traces, trace_seconds, clock.calls_made(until_sample), mean,
                         eager, calls_to_repay(trace_seconds, mean, eager), unavailable)


def eager_seconds(python_function: Any, clock: CallClock) -> float | None:
    """One eager, unconverted run of `python_function` on the first call's arguments
    (None before a first call; raises _InputsUnavailable when they were not kept)."""
    if clock.first_inputs is None:
        return None
    args, kwargs = clock.first_inputs.restore()
    with context.eager_scope():
        start = time.perf_counter()
        python_function(*args, **kwargs)
        return time.perf_counter() - start


def calls_to_repay(trace_seconds: float, call_seconds: float | None,
                   eager: float | None) -> int | None:
    """How many graph calls save the trace's cost against eager runs (None: never)."""
    if eager is None or call_seconds is None or eager <= call_seconds:
        return None
    return max(1, math.ceil(trace_seconds / (eager - call_seconds)))
