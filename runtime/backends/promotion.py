"""The "auto" backend: run on the numpy executor, promote to numba once it pays (ski rental).

Compiling costs about as much as running the executor for a while, and nobody knows how often
a function will be called. So a ConcreteFunction worth compiling (one with a loop, or a big
graph) starts on the executor with a timer around each call; once the time spent there adds
up to the predicted compile time, numba compiles it in a background thread, and the next
call after that runs the compiled kernel. Never paying more than twice the better choice is
the ski-rental bound. The prediction is the median of the numba compile times measured so
far in this process (a prior before the first, which also pays for numba's own start-up).

Tiny graphs without loops are never promoted: their executor call costs a microsecond or
two, which compiled code does not beat once the call overhead is counted. Results are those
of the executor until the swap, then numba's (which agree with them; see the tests).
"""

from __future__ import annotations

import importlib.util
import statistics
import threading
import time
from typing import Any

from runtime import backends, executor

FIRST_COMPILE_PRIOR_S = 2.0  # numba's first compile in a process also imports and warms it
COMPILE_PRIOR_S = 0.3
MIN_NODES_WITHOUT_LOOPS = 40
_numba_installed: bool | None = None


def predicted_compile_seconds() -> float:
    """The expected cost of compiling one more graph with numba here."""
    measured = backends.COMPILE_SECONDS.get("numba")
    if not measured:
        return FIRST_COMPILE_PRIOR_S
    return max(statistics.median(measured), COMPILE_PRIOR_S / 3)


def worth_compiling(graph: Any) -> bool:
    """True for a graph with a loop or many nodes: tiny loop-free graphs stay on the
    executor."""
    count = 0
    stack = [graph]
    while stack:
        g = stack.pop()
        for node in g.nodes:
            count += 1
            subgraphs = [v for v in node.attrs.values() if hasattr(v, "graph")
                         and hasattr(v, "placeholders")]
            if "body" in node.attrs and subgraphs:
                return True
            stack.extend(sub.graph for sub in subgraphs)
    return count >= MIN_NODES_WITHOUT_LOOPS


def watch(cf: Any, compiled: executor.CompiledGraph) -> executor.CompiledGraph:
    """The executor's `compiled` graph of `cf`, timed so that it is promoted to numba once
    its time adds up to the predicted compile time; `compiled` itself when it is not worth
    compiling or numba is not installed."""
    global _numba_installed
    if _numba_installed is None:
        _numba_installed = importlib.util.find_spec("numba") is not None
    if not _numba_installed or not worth_compiling(cf.graph):
        return compiled
    run = compiled.run
    state = {"spent": 0.0, "started": False}
    budget = predicted_compile_seconds()
    clock = time.perf_counter

    def timed(*feeds: Any) -> Any:
        start = clock()
        try:
            return run(*feeds)
        finally:
            state["spent"] += clock() - start
            if state["spent"] >= budget and not state["started"]:
                state["started"] = True
                _start_promotion(cf, compiled)

    timed_graph = executor.CompiledGraph(timed, compiled.source, compiled.line_nodes,
                                         compiled.filename)
    return timed_graph


def _start_promotion(cf: Any, executor_graph: executor.CompiledGraph) -> None:
    """Compiles `cf` with numba in a background thread; swaps it in when done (or goes back
    to the untimed executor graph when numba cannot run it)."""
    def promote() -> None:
        report = cf._report
        try:
            compiled = backends.compile_with("numba", cf, report, strict=False)
        except Exception as e:  # a failure here must not kill the thread: stay on the executor
            report.reason = "numba failed on %s: %s: %s" % (cf.name, type(e).__name__, e)
            compiled = None
        cf._compiled = executor_graph if compiled is None else compiled

    thread = threading.Thread(target=promote, name="autograph-promote-%s" % cf.name,
                              daemon=True)
    cf._promotion = thread
    thread.start()
