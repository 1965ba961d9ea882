"""The "auto" backend: run on the numpy executor, promote to numba once it pays (ski rental),
and demote back when the compiled kernel turns out slower.

Compiling costs about as much as running the executor for a while, and nobody knows how often
a function will be called. So a ConcreteFunction worth compiling (one with a loop, or a big
graph) starts on the executor with a timer around each call; once the time spent there adds
up to the predicted compile time, numba compiles it in a background thread, and the next
call after that runs the compiled kernel. Never paying more than twice the better choice is
the ski-rental bound. The prediction is the median of the numba compile times measured so
far in this process (a prior before the first, which also pays for numba's own start-up).

The prediction of a speed-up is not a measurement: a graph dominated by libm calls, or doing
little work per call, may run slower compiled (numba's call overhead, its own libm). So the
executor's most recent per-call times before the compile started are kept (the calls made
while it compiles share the CPU with it), the first TRIAL_CALLS calls of the compiled kernel
are timed the same way (perf_counter around the call), and when the compiled kernel's
fastest call is slower than the executor's fastest by more than DEMOTION_MARGIN (fastest:
other work can only slow a call down) the executor runs the function again, for good:
`ConcreteFunction.backend` says "numpy" and `backend_report()` says why.
Otherwise the untimed compiled kernel replaces the timed one.

Two cases start the compile sooner, after a few calls instead of the predicted compile time
(the report's event says which, or that it waited): a graph with a loop whose predicted
compile time is at most QUICK_COMPILE_S (numba is warm in this process), started after
PROMPT_CALLS executor calls; and a graph whose numba kernel an earlier promotion left in the
cache folder (it loads instead of compiling), started after CACHED_KERNEL_CALLS calls. Not
after the first: a Function called once gains nothing from a promotion (only later calls run
the kernel), while loading it in the background competes for the CPU with whatever the
caller does next (often tracing more Functions). A promoted graph is remembered there by a
digest of its executor program and its inputs' dtypes and shapes (`promoted_marker`); a
digest shared by two graphs that differ only in a constant's value only changes when the
compile starts, never a result.

Tiny graphs without loops are never promoted: their executor call costs a microsecond or
two, which compiled code does not beat once the call overhead is counted. Results are those
of the executor until the swap, then numba's (which agree with them; see the tests).

The compile thread is a daemon (it never delays the interpreter's exit) and records a
failure in the report instead of raising it; `wait_for_background_compiles()` joins the ones
in flight (the test suite does after each test, so that none outlives its test).
"""

from __future__ import annotations

import collections
import copy
import hashlib
import importlib.util
import pathlib
import statistics
import threading
import time
from typing import Any

from runtime import backends, executor
from runtime.backends import numba_backend  # (imports no numba: cache_dir)

FIRST_COMPILE_PRIOR_S = 2.0  # numba's first compile in a process also imports and warms it
COMPILE_PRIOR_S = 0.3
MIN_NODES_WITHOUT_LOOPS = 40
QUICK_COMPILE_S = 0.5  # a loop graph predicted to compile within this starts promptly
PROMPT_CALLS = 3  # the executor calls such a loop graph makes before its compile starts
CACHED_KERNEL_CALLS = 2  # the executor calls made before a kernel cached on disk is loaded
EXECUTOR_SAMPLES = 33  # the executor's last per-call times before a compile, compared
TRIAL_CALLS = 9  # compiled calls timed before the verdict
DEMOTION_MARGIN = 1.2  # demoted when its fastest call is over 1.2x the executor's fastest
# the clock around each timed call (the tests substitute a scripted one: never real timings)
clock = time.perf_counter
_numba_installed: bool | None = None
_in_flight: set[threading.Thread] = set()
# what the promotions of this process came to (AUTOGRAPH_BACKEND_STATS=1 prints it)
OUTCOMES = {"started": 0, "kept": 0, "demoted": 0, "fell back": 0}
_in_flight_lock = threading.Lock()


def predicted_compile_seconds() -> float:
    """The expected cost of compiling one more graph with numba here."""
    measured = backends.COMPILE_SECONDS.get("numba")
    if not measured:
        return FIRST_COMPILE_PRIOR_S
    return max(statistics.median(measured), COMPILE_PRIOR_S / 3)


def worth_compiling(graph: Any) -> bool:
    """True for a graph with a loop or many nodes: tiny loop-free graphs stay on the
    executor."""
    return has_loop(graph) or _node_count(graph) >= MIN_NODES_WITHOUT_LOOPS


def has_loop(graph: Any) -> bool:
    """True for a graph holding a loop (a node with a body), at any depth."""
    stack = [graph]
    while stack:
        g = stack.pop()
        for node in g.nodes:
            subgraphs = _subgraphs(node)
            if "body" in node.attrs and subgraphs:
                return True
            stack.extend(sub.graph for sub in subgraphs)
    return False


def _subgraphs(node: Any) -> list[Any]:
    return [v for v in node.attrs.values() if hasattr(v, "graph") and hasattr(v, "placeholders")]


def _node_count(graph: Any) -> int:
    count = 0
    stack = [graph]
    while stack:
        g = stack.pop()
        for node in g.nodes:
            count += 1
            stack.extend(sub.graph for sub in _subgraphs(node))
    return count


def promoted_marker(cf: Any, compiled: executor.CompiledGraph) -> pathlib.Path:
    """The file that says an earlier promotion of a graph like `cf` (the same executor
    program `compiled`, the same inputs' dtypes and shapes) left its numba kernel in the
    cache folder; it holds the path of that kernel's module."""
    inputs = ";".join("%s%s" % (t.dtype.name, t._shape) for t in cf.inputs)
    digest = hashlib.sha256(("%s\n%s" % (inputs, compiled.source)).encode()).hexdigest()
    return numba_backend.cache_dir() / "promoted" / digest[:24]


def _kernel_on_disk(marker: pathlib.Path) -> bool:
    try:
        return pathlib.Path(marker.read_text()).exists()
    except (OSError, ValueError):
        return False


def _remember_promotion(marker: pathlib.Path, compiled: executor.CompiledGraph) -> None:
    """Writes `marker` (see promoted_marker) naming the kernel's module, where there is one;
    a cache folder that cannot be written only loses the head start."""
    path = getattr(compiled, "module_path", None)
    if path is None or _kernel_on_disk(marker):
        return
    try:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(str(path))
    except OSError:
        pass


def slower_than_executor(compiled_times: list[float], executor_times: list[float]) -> bool:
    """True when the compiled kernel's fastest call exceeds the executor's fastest by more
    than DEMOTION_MARGIN (times in seconds, one per call). The fastest calls, because what
    else runs can only slow a call down: right after the swap, another thread pool (the
    executor's BLAS threads, still spinning) may hold the CPU for several milliseconds."""
    return min(compiled_times) > DEMOTION_MARGIN * min(executor_times)


def watch(cf: Any, compiled: executor.CompiledGraph) -> executor.CompiledGraph:
    """The executor's `compiled` graph of `cf`, timed so that it is promoted to numba once
    its time adds up to the predicted compile time; `compiled` itself when it is not worth
    compiling, numba is not installed, or `cf` was demoted already."""
    global _numba_installed
    if _numba_installed is None:
        _numba_installed = importlib.util.find_spec("numba") is not None
    if not _numba_installed or cf.backend_report().demoted or not worth_compiling(cf.graph):
        return compiled
    run = compiled.run
    times: collections.deque[float] = collections.deque(maxlen=EXECUTOR_SAMPLES)
    record = times.append
    budget = predicted_compile_seconds()
    # The head start (which reads the cache folder) is looked up at the first call that it
    # may concern, not here: a Function called once, as a trace often is, never pays for it.
    marker: pathlib.Path | None = None
    prompt_calls: float = min(CACHED_KERNEL_CALLS, PROMPT_CALLS)
    why = ""
    timer = clock
    spent = 0.0
    calls = 0
    started = False
    starting = threading.Lock()

    def timed(*feeds: Any) -> Any:
        nonlocal spent, calls  # (closure cells: the cheapest state on this path)
        start = timer()
        try:
            return run(*feeds)
        finally:
            elapsed = timer() - start
            record(elapsed)
            spent += elapsed
            calls += 1
            if not started and (spent >= budget or calls >= prompt_calls):
                start_when_due()

    def start_when_due() -> None:
        nonlocal started, marker, prompt_calls, why
        with starting:  # (threads calling at once start one compile)
            if started:
                return
            if marker is None:
                marker = promoted_marker(cf, compiled)
                prompt_calls, why = _head_start(cf, marker, budget)
                if spent < budget and calls < prompt_calls:
                    return
            started = True
            OUTCOMES["started"] += 1
            cf.backend_report().events.append(
                "numba compile started after %d executor calls (%.3f s): %s"
                % (calls, spent, why if calls >= prompt_calls and spent < budget else
                   "waited for the predicted compile time, %.3f s" % budget))
            _start_promotion(cf, compiled, list(times), marker)

    timed_graph = executor.CompiledGraph(timed, compiled.source, compiled.line_nodes,
                                         compiled.filename)
    return timed_graph


def _head_start(cf: Any, marker: pathlib.Path, budget: float) -> tuple[float, str]:
    """After how many executor calls `cf`'s compile starts at the latest (inf: when its time
    adds up to `budget`), and why."""
    if _kernel_on_disk(marker):
        return CACHED_KERNEL_CALLS, ("its numba kernel is cached on disk (loading it costs no "
                                     "compile)")
    if budget <= QUICK_COMPILE_S and has_loop(cf.graph):
        return PROMPT_CALLS, ("it has a loop and its predicted compile time, %.3f s, is at "
                              "most %.1f s" % (budget, QUICK_COMPILE_S))
    return float("inf"), ""


def _start_promotion(cf: Any, executor_graph: executor.CompiledGraph,
                     executor_times: list[float], marker: pathlib.Path | None = None) -> None:
    """Compiles `cf` with numba in a background thread; swaps in a trial of it when done
    (see `_on_trial`), or goes back to the untimed executor graph when numba cannot run it."""
    def promote() -> None:
        report = cf.backend_report()
        try:
            try:
                compiled = backends.compile_with("numba", cf, report, strict=False)
                if compiled is not None and marker is not None:
                    _remember_promotion(marker, compiled)
                if compiled is not None:
                    compiled = _on_trial(cf, compiled, executor_graph, executor_times)
            except Exception as e:  # recorded, never raised in the thread: stay on the executor
                report.running = "numpy"
                report.reason = "numba failed on %s: %s: %s" % (cf.name, type(e).__name__, e)
                compiled = None
            if compiled is None:
                OUTCOMES["fell back"] += 1
            cf.swap_compiled(executor_graph if compiled is None else compiled)
        finally:
            with _in_flight_lock:
                _in_flight.discard(threading.current_thread())

    thread = threading.Thread(target=promote, name="autograph-promote-%s" % cf.name,
                              daemon=True)
    cf.promotion = thread
    with _in_flight_lock:
        _in_flight.add(thread)
    thread.start()


def _on_trial(cf: Any, compiled: executor.CompiledGraph, executor_graph: executor.CompiledGraph,
              executor_times: list[float]) -> executor.CompiledGraph:
    """`compiled` (numba's kernel of `cf`) timing its first TRIAL_CALLS calls, after which
    `cf` keeps the untimed kernel, or goes back to `executor_graph` for good when the kernel
    is slower than the executor's calls before the compile (`executor_times`)."""
    run = compiled.run
    times: list[float] = []
    lock = threading.Lock()
    timer = clock

    def timed(*feeds: Any) -> Any:
        start = timer()
        values = run(*feeds)  # a call that raises is not timed
        elapsed = timer() - start
        with lock:
            if len(times) < TRIAL_CALLS:
                times.append(elapsed)
                if len(times) == TRIAL_CALLS:
                    _verdict(cf, compiled, executor_graph, executor_times, times)
        return values

    trial = copy.copy(compiled)  # the kernel's source, lines and error translation
    trial.run = timed
    return trial


def _verdict(cf: Any, compiled: executor.CompiledGraph, executor_graph: executor.CompiledGraph,
             executor_times: list[float], compiled_times: list[float]) -> None:
    """Keeps numba's untimed kernel for `cf`, or demotes `cf` to the executor for good."""
    report = cf.backend_report()
    comparison = "numba's fastest call took %.1f µs against the executor's %.1f µs" % (
        1e6 * min(compiled_times), 1e6 * min(executor_times))
    if slower_than_executor(compiled_times, executor_times):
        cf.swap_compiled(executor_graph)
        report.running = "numpy"
        report.demoted = True
        OUTCOMES["demoted"] += 1
        report.reason = ("demoted to the numpy executor after %d compiled calls: %s (over "
                         "%.1fx); not promoted again" % (len(compiled_times), comparison,
                                                         DEMOTION_MARGIN))
    else:
        cf.swap_compiled(compiled)
        OUTCOMES["kept"] += 1
        report.events.append("numba kept after %d compiled calls: %s"
                             % (len(compiled_times), comparison))


def wait_for_background_compiles(timeout: float | None = None) -> bool:
    """Waits for the promotions compiling now (at most `timeout` seconds for each); True
    when none is left running."""
    with _in_flight_lock:
        threads = list(_in_flight)
    for thread in threads:
        thread.join(timeout)
    return not any(thread.is_alive() for thread in threads)
