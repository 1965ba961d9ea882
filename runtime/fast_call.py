"""`FastCall`: how the cached calls of one concrete function run, decided once.

A Function's call goes one of two ways (see `Function.__call__`, the one dispatcher):

  * the general path canonicalises the arguments, builds their cache key and feeds, looks
    the key up (tracing on a miss), and runs the trace through `ConcreteFunction._call_flat`,
    which handles what only some calls need: the variable-initialising first call, call
    observers (`tf.summary.trace_on`), a recording GradientTape, a trace being built, a call
    due for timing (`function_stats.CallClock`), `run_functions_eagerly`;
  * the fast path, for a call that needs none of that (one test in the dispatcher decides),
    builds the key and feeds of its positional arguments, finds the `FastCall` of the trace
    that key ran last time, and calls its `run(feeds)`: nothing else.

After a general call ran a trace for a key, the Function asks that trace for its record
(`ConcreteFunction.fast_call`, made once per trace): the trace asks its compiled graph
(`fast_call(general)` on a backend's compiled graph, as JAX's `_get_fastpath_data` is asked
once per executable), which may offer a run of its own (`direct=True`, in one Python frame:
JAX calls its jitted program and wraps the array, numba calls a pure kernel's entry point and
wraps its value; only for a trace whose result is one tensor and whose backend was asked for
by name, since "auto" swaps the compiled graph); otherwise the record runs the trace's
compiled graph and packs its outputs (`ConcreteFunction._run_compiled`). The Function keeps
the record under that key, so the next call with the key takes the fast path; a call due for
timing goes the general way and runs the same record, timed.

    f(x)   # general: traces, runs, keeps the trace's FastCall under x's key
    f(x)   # the second call is timed: general again
    f(x)   # fast: key(x) -> FastCall.run(feeds) -> the compiled program
           # (a JAX record's DeviceProgram: key(x) -> the compiled program, no frame between)

A record's `run` returns what the general path would for its key, and hands a call back to
the general path (`general(feeds)`, the trace's `_call_flat`) whenever its backend changed
its mind (a JAX program that later failed to compile runs on the numpy executor).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple


class DeviceProgram:
    """A compiled device program that the dispatcher calls itself, with no Python frame in
    between (a JAX program of one output: the cached call of `x + 1` is mostly frames):
    `program(*feeds)` returns the one device array of the result, which becomes
    `DeviceTensor` of `dtype` with cache-key part `key`. A tuple returned, or anything
    raised, means the call needs more than that: the dispatcher hands it to the record's
    `run`. `program` is None once the backend gave the program up (the numpy executor runs
    the graph from then on), and every call takes `run`."""

    __slots__ = ("program", "dtype", "key")

    def __init__(self, program: Callable[..., Any], dtype: Any, key: Any) -> None:
        self.program: Callable[..., Any] | None = program
        self.dtype = dtype
        self.key = key


class FastCall(NamedTuple):
    """The cached call of one concrete function: `run(feeds)` takes the fed values (numpy
    or device arrays and variables, in the trace's input order, as the cache key's walk
    collects them) and returns the call's result; `direct` is True when the backend runs its
    compiled program itself (the concrete function's own run is skipped); `device`, when
    set, is the program that the dispatcher runs in place of `run` (see DeviceProgram)."""

    run: Callable[[list[Any]], Any]
    direct: bool = False
    device: DeviceProgram | None = None
