"""Compiled backends: which one runs a ConcreteFunction's graph, and the fallback when it cannot.

A backend is a module named in `BACKENDS` and imported only when a graph asks for it (its
own dependency, numba or jax, is imported by it, lazily). It provides:

    NAME                 its name ("numba")
    unavailable()        None when it can run here, else why not (a str)
    compile(cf)          a compiled graph for ConcreteFunction `cf`, like the executor's
                         `CompiledGraph` (`run(*feeds)`, `source`, `node_for_traceback(tb)`,
                         optionally `fast_call(general)`: see runtime.fast_call), or raises
                         `Unsupported` naming the op and the user's line

Choosing: `backend=` on the Function, else `autograph.config(backend=...)`, else the
environment variable AUTOGRAPH_BACKEND, else "auto". "numpy" is the executor
(runtime/executor.py); "auto" starts on it and may promote a busy graph (see `promotion`).
A graph a backend cannot lower or compile runs on the executor, with the reason kept in its
`BackendReport`; when the backend was asked for explicitly a warning names the op and the
user's line, and `strict=True` raises `Unsupported` instead.

AUTOGRAPH_BACKEND_STATS=1 prints, at exit, how many graphs each backend lowered, and what
the promotions of "auto" came to (started, kept, demoted, fell back).
"""

from __future__ import annotations

import atexit
import importlib
import os
import sys
import time
from typing import Any

from runtime import context, errors
from runtime.lowering_api import Unsupported

# backend name -> the module implementing it (imported on first use)
BACKENDS = {
    "numba": "runtime.backends.numba_backend",
    "jax": "runtime.backends.jax_backend",
}
CHOICES = ("numpy", "auto") + tuple(BACKENDS)
COMPILED_PREFERENCE = ("numba", "jax")  # jit_compile=True on CPU: the first that is available
_modules: dict[str, Any] = {}
# backend name -> [graphs attempted, graphs lowered and compiled]
STATS: dict[str, list[int]] = {}
# backend name -> the compile times measured in this process (seconds)
COMPILE_SECONDS: dict[str, list[float]] = {}
# (backend name, why a graph fell back, without the node and line) -> how many graphs
FALLBACKS: dict[tuple[str, str], int] = {}


class BackendReport:
    """What was asked for a ConcreteFunction, what runs it now, and why when they differ.

    `requested` is the backend asked for and `explicit` whether the user named it;
    `running` what runs the graph now ("numpy": the executor); `compile_seconds` how long
    the compiled backend took; `reason` why the graph runs on the executor although another
    backend was asked for or tried (a fallback naming the op and line, or a demotion);
    `events` what "auto" did, in order (promotion started, compiled kernel kept); `demoted`
    whether "auto" took a compiled kernel back because it ran slower than the executor."""

    def __init__(self, requested: str, explicit: bool) -> None:
        self.requested = requested
        self.explicit = explicit
        self.running = "numpy"
        self.reason: str | None = None
        self.compile_seconds: float | None = None
        self.events: list[str] = []
        self.demoted = False

    def __repr__(self) -> str:
        text = "backend: %s requested, %s runs it" % (self.requested, self.running)
        if self.compile_seconds is not None:
            text += " (compiled in %.3f s)" % self.compile_seconds
        for said in self.events + ([self.reason] if self.reason else []):
            text += "; %s" % said
        return text

    __str__ = __repr__


def check_choice(backend: Any, what: str = "backend") -> None:
    """Raises ValueError unless `backend` is None or one of CHOICES."""
    if backend is not None and backend not in CHOICES:
        raise ValueError("%s must be one of %s, got %r" % (
            what, ", ".join(map(repr, CHOICES)), backend))


def placement_options(backend: Any, device: Any, shardings: Any) -> dict[str, Any]:
    """The compiled backend's placement options of a Function, {"device", "shardings"},
    checked with its `backend` (ValueError: a bad choice, or placement without "jax")."""
    check_choice(backend)
    if device is not None or shardings is not None:
        if backend != "jax":
            raise ValueError("device= and shardings= place a JAX computation: give "
                             "backend='jax' too")
        load("jax").check_placement(device, shardings)
    return {"device": device, "shardings": shardings}


def set_default(backend: str | None) -> None:
    """The process-wide backend (None: back to AUTOGRAPH_BACKEND, else "auto")."""
    check_choice(backend)
    settings: dict[str, Any] = context._settings
    settings["backend"] = backend


def default() -> str:
    """The process-wide backend: the configured one, else AUTOGRAPH_BACKEND, else "auto"."""
    settings: dict[str, Any] = context._settings
    chosen: str | None = settings.get("backend")
    if chosen is None:
        chosen = os.environ.get("AUTOGRAPH_BACKEND") or "auto"
        if chosen not in CHOICES:
            raise ValueError("AUTOGRAPH_BACKEND must be one of %s, got %r"
                             % (", ".join(CHOICES), chosen))
    return chosen


def load(name: str) -> Any:
    """The backend module `name`, imported now; raises Unsupported when it cannot run here."""
    module = _modules.get(name)
    if module is None:
        try:
            module = importlib.import_module(BACKENDS[name])
        except ImportError as e:
            raise Unsupported("backend %r is not available yet (%s)" % (name, e)) from None
        _modules[name] = module
    reason = module.unavailable()
    if reason is not None:
        raise Unsupported("backend %r is not available: %s" % (name, reason))
    return module


def best_compiled() -> str:
    """The first compiled backend of COMPILED_PREFERENCE that can run here (else the first)."""
    for name in COMPILED_PREFERENCE:
        try:
            load(name)
            return name
        except Unsupported:
            continue
    return COMPILED_PREFERENCE[0]


def compile_with(name: str, cf: Any, report: BackendReport, strict: bool) -> Any:
    """`cf` compiled by backend `name`, or None (the executor runs it) with the reason in
    `report`: warned about when the backend was asked for explicitly, raised when `strict`."""
    counts = STATS.setdefault(name, [0, 0])
    counts[0] += 1
    start = time.perf_counter()
    try:
        try:
            compiled = load(name).compile(cf)
        except Unsupported:
            raise
        except Exception as e:  # the backend's own failure: the executor still runs the graph
            raise Unsupported("the backend failed: %s: %s" % (type(e).__name__, e)) from e
    except Unsupported as e:
        report.reason = "%s could not run %s: %s" % (name, cf.name, e.reason)
        key = (name, _without_location(e))
        FALLBACKS[key] = FALLBACKS.get(key, 0) + 1
        if strict:
            raise
        if report.explicit:
            errors.warn("backend %r: %s runs on the numpy executor instead, because %s"
                        % (name, cf.name, e.reason), BackendFallbackWarning)
        return None
    report.compile_seconds = time.perf_counter() - start
    COMPILE_SECONDS.setdefault(name, []).append(report.compile_seconds)
    report.running = name
    report.reason = None
    counts[1] += 1
    return compiled


class BackendFallbackWarning(UserWarning):
    """A graph asked to run on a compiled backend runs on the numpy executor instead."""


def _without_location(error: Unsupported) -> str:
    """Why a graph fell back, naming the op but not the node or line (to count reasons)."""
    node = error.node
    if node is None:
        return error.reason
    return "op %s: %s" % (node.op.name, error.reason.rsplit(": ", 1)[-1])


def _print_stats() -> None:
    for name, (attempted, lowered) in sorted(STATS.items()):
        share = 100.0 * lowered / attempted if attempted else 0.0
        sys.stderr.write("autograph backend %s: %d of %d graphs lowered (%.0f%%)\n"
                         % (name, lowered, attempted, share))
        reasons = sorted(((n, r) for (b, r), n in FALLBACKS.items() if b == name),
                         reverse=True)
        for count, reason in reasons[:15]:
            sys.stderr.write("  %5d  %s\n" % (count, reason[:150]))
    promotion = sys.modules.get("runtime.backends.promotion")  # imported by any "auto" call
    if promotion is not None and promotion.OUTCOMES["started"]:
        sys.stderr.write("autograph backend auto: %s\n" % ", ".join(
            "%d %s" % (n, what) for what, n in promotion.OUTCOMES.items()))


if os.environ.get("AUTOGRAPH_BACKEND_STATS") == "1":
    atexit.register(_print_stats)
