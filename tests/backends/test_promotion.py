"""The "auto" backend's promotion to numba and its demotion back to the executor.

Nothing here times real code: a scripted clock says how long each timed call took, so the
verdict (keep the compiled kernel, or demote it) is forced deterministically."""

import os
import pathlib
import subprocess
import sys
import textwrap
import threading

import pytest

import autograph.tf as tf
from runtime import backends, executor
from runtime.backends import promotion


class ScriptedClock:
    """A clock that moves on `step` seconds at each reading: every timed call takes `step`."""

    def __init__(self, step):
        self.step = step
        self.now = 0.0
        self.readings = 0

    def __call__(self):
        self.readings += 1
        self.now += self.step
        return self.now


def _counter_loop(n):
    i = tf.constant(0)
    total = tf.constant(0)
    while i < n:
        total += i % 7
        i += 1
    return total


@pytest.fixture
def clock(monkeypatch):
    """A scripted clock around the timed calls, and a compile predicted to cost nothing (the
    first executor call starts the promotion)."""
    scripted = ScriptedClock(1e-6)
    monkeypatch.setattr(promotion, "clock", scripted)
    monkeypatch.setattr(promotion, "predicted_compile_seconds", lambda: 0.0)
    return scripted


def _promoted(f, n):
    """Calls f once on the executor, which starts the compile, and waits for the swap."""
    expected = f(n).numpy()
    cf = f.get_concrete_function(n)
    cf.promotion.join()
    return cf, expected


# -- the verdict ---------------------------------------------------------------------------------

def test_slower_means_over_the_margin_in_the_fastest_calls():
    executor_times = [1.0, 1.0, 50.0]  # a slow executor call does not count
    assert not promotion.slower_than_executor([promotion.DEMOTION_MARGIN] * 3, executor_times)
    assert promotion.slower_than_executor([promotion.DEMOTION_MARGIN * 1.01] * 3,
                                          executor_times)
    assert not promotion.slower_than_executor([0.1, 0.1, 9.0], executor_times)
    # compiled calls slowed down by other work (most of them, right after the swap)
    assert not promotion.slower_than_executor([25.0, 20.0, 24.0, 30.0, 0.8], executor_times)
    assert promotion.slower_than_executor([25.0, 20.0, 24.0, 30.0, 1.3], executor_times)


def test_a_compiled_kernel_slower_than_the_executor_is_demoted_for_good(clock):
    pytest.importorskip("numba")
    f = tf.function(_counter_loop, backend="auto")
    n = tf.constant(40)
    demoted_before = promotion.OUTCOMES["demoted"]
    cf, expected = _promoted(f, n)  # executor calls "take" 1 µs
    assert cf.backend == "numba"
    clock.step = 5e-6  # compiled calls "take" 5 µs
    for _ in range(promotion.TRIAL_CALLS):
        assert f(n).numpy() == expected
    assert cf.backend == "numpy"
    report = cf.backend_report()
    assert report.demoted and report.running == "numpy"
    assert "demoted" in str(report) and "5.0 µs against the executor's 1.0 µs" in str(report)
    readings = clock.readings
    for _ in range(3):  # the untimed executor graph: nothing can promote it again
        assert f(n).numpy() == expected == sum(i % 7 for i in range(40))
    assert clock.readings == readings and cf.backend == "numpy"
    assert promotion.OUTCOMES["demoted"] == demoted_before + 1
    assert promotion.watch(cf, cf._compiled) is cf._compiled


def test_a_compiled_kernel_faster_than_the_executor_is_kept_untimed(clock):
    pytest.importorskip("numba")
    f = tf.function(_counter_loop, backend="auto")
    n = tf.constant(30)
    clock.step = 20e-6
    cf, expected = _promoted(f, n)
    clock.step = 1e-6
    for _ in range(promotion.TRIAL_CALLS):
        assert f(n).numpy() == expected
    readings = clock.readings
    assert f(n).numpy() == expected
    assert clock.readings == readings  # the trial is over: the kernel runs untimed
    report = cf.backend_report()
    assert cf.backend == "numba" and not report.demoted and report.reason is None
    assert "numba compile started after 1 executor calls" in str(report)
    assert "numba kept after %d compiled calls" % promotion.TRIAL_CALLS in str(report)


# -- the background thread -------------------------------------------------------------------------

@pytest.fixture
def fake_numba(monkeypatch, clock):
    """Promotion runs without numba: `compile` stands for the backend's compile."""
    monkeypatch.setattr(promotion, "_numba_installed", True)
    calls = {}

    def compile_with(name, cf, report, strict):
        return calls["compile"](cf)
    monkeypatch.setattr(backends, "compile_with", compile_with)
    return calls


def test_a_failing_compile_is_recorded_never_raised_in_the_thread(fake_numba, monkeypatch):
    raised = []
    monkeypatch.setattr(threading, "excepthook", raised.append)

    def compile_fails(cf):
        raise RuntimeError("the compiler broke")
    fake_numba["compile"] = compile_fails
    f = tf.function(_counter_loop, backend="auto")
    n = tf.constant(5)
    cf, expected = _promoted(f, n)
    assert raised == []
    assert cf.backend == "numpy" and "the compiler broke" in cf.backend_report().reason
    assert f(n).numpy() == expected == 10


def test_wait_for_background_compiles_joins_the_ones_in_flight(fake_numba):
    release = threading.Event()

    def compile_slowly(cf):
        release.wait()
        return None  # numba declined: the executor keeps running it
    fake_numba["compile"] = compile_slowly
    f = tf.function(_counter_loop, backend="auto")
    f(tf.constant(3))
    thread = f.get_concrete_function(tf.constant(3)).promotion
    assert thread.daemon
    assert not promotion.wait_for_background_compiles(timeout=0.01)
    release.set()
    assert promotion.wait_for_background_compiles()
    assert not thread.is_alive()


def test_only_the_executor_calls_before_the_compile_are_compared(fake_numba, clock):
    release = threading.Event()

    def compile_later(cf):  # the executor's own graph stands for numba's kernel
        release.wait()
        cf.backend_report().running = "numba"
        return executor.compile_graph(cf.graph, cf._feeds, cf.flat_outputs, cf.name)
    fake_numba["compile"] = compile_later
    f = tf.function(_counter_loop, backend="auto")
    n = tf.constant(6)
    expected = f(n).numpy()  # 1 µs, then the compile starts
    clock.step = 100e-6  # calls while it compiles, slowed by it: not compared
    for _ in range(5):
        assert f(n).numpy() == expected
    release.set()
    cf = f.get_concrete_function(n)
    cf.promotion.join()
    clock.step = 5e-6
    for _ in range(promotion.TRIAL_CALLS):
        assert f(n).numpy() == expected
    assert cf.backend_report().demoted and cf.backend == "numpy"


# -- when the compile starts -------------------------------------------------------------------

@pytest.fixture
def kernel_compile(fake_numba, monkeypatch, tmp_path):
    """A compile that leaves a "kernel module" in a cache folder of the test's own (the
    executor's graph stands for numba's kernel)."""
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(tmp_path))
    module = tmp_path / "kernel_module.py"
    module.write_text("")

    def compile_kernel(cf):
        compiled = executor.compile_graph(cf.graph, cf._feeds, cf.flat_outputs, cf.name)
        compiled.module_path = module
        return compiled
    fake_numba["compile"] = compile_kernel
    return module


def _started_after(f, n, calls):
    """Calls f `calls` times; the report's event of the compile's start, or None."""
    for _ in range(calls):
        f(n)
    cf = f.get_concrete_function(n)
    promotion.wait_for_background_compiles()
    events = [e for e in cf.backend_report().events if "compile started" in e]
    return events[0] if events else None


def test_a_loop_predicted_to_compile_quickly_starts_after_a_few_calls(kernel_compile,
                                                                       monkeypatch):
    monkeypatch.setattr(promotion, "predicted_compile_seconds",
                        lambda: promotion.QUICK_COMPILE_S)
    f = tf.function(_counter_loop, backend="auto")
    n = tf.constant(4)
    assert _started_after(f, n, promotion.PROMPT_CALLS - 1) is None
    event = _started_after(f, n, 1)
    assert event.startswith("numba compile started after %d executor calls"
                            % promotion.PROMPT_CALLS)
    assert "it has a loop and its predicted compile time" in event


def test_a_loop_predicted_to_compile_slowly_waits_for_the_predicted_time(kernel_compile,
                                                                         monkeypatch):
    monkeypatch.setattr(promotion, "predicted_compile_seconds", lambda: 50e-6)  # 50 calls
    monkeypatch.setattr(promotion, "QUICK_COMPILE_S", 10e-6)
    f = tf.function(_counter_loop, backend="auto")
    n = tf.constant(4)
    assert _started_after(f, n, 10) is None
    event = _started_after(f, n, 45)
    assert "waited for the predicted compile time" in event


def test_a_graph_whose_kernel_is_on_disk_starts_at_its_second_call(kernel_compile,
                                                                    monkeypatch):
    monkeypatch.setattr(promotion, "predicted_compile_seconds", lambda: 0.0)
    first = tf.function(_counter_loop, backend="auto")
    n = tf.constant(4)
    _started_after(first, n, 1)  # promoted at once: its kernel is remembered
    monkeypatch.setattr(promotion, "predicted_compile_seconds", lambda: 100.0)
    again = tf.function(_counter_loop, backend="auto")  # a new trace of the same graph
    assert _started_after(again, n, 1) is None  # called once: nothing to gain from it yet
    event = _started_after(again, n, 1)
    assert event.startswith("numba compile started after %d executor calls"
                            % promotion.CACHED_KERNEL_CALLS)
    assert promotion.CACHED_KERNEL_CALLS == 2
    assert "cached on disk" in event
    kernel_compile.unlink()  # the kernel is gone: the predicted compile time again
    third = tf.function(_counter_loop, backend="auto")
    assert _started_after(third, n, 5) is None


def test_a_function_called_once_never_looks_for_its_kernel_on_disk(kernel_compile,
                                                                    monkeypatch):
    monkeypatch.setattr(promotion, "predicted_compile_seconds", lambda: 100.0)
    looked = []
    real = promotion._kernel_on_disk
    monkeypatch.setattr(promotion, "_kernel_on_disk", lambda marker: looked.append(marker)
                        or real(marker))
    f = tf.function(_counter_loop, backend="auto")
    n = tf.constant(4)
    assert _started_after(f, n, 1) is None and looked == []
    assert _started_after(f, n, 1) is None and len(looked) == 1  # no kernel: never again
    assert _started_after(f, n, 3) is None and len(looked) == 1


def _environment(root):
    """This process's environment for a child running the repository's code: no backend
    default, no statistics at exit."""
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("AUTOGRAPH_BACKEND", "AUTOGRAPH_BACKEND_STATS")}
    environment["PYTHONPATH"] = str(root)
    return environment


_EXIT_WHILE_COMPILING = textwrap.dedent("""
    import threading
    import autograph.tf as tf
    from runtime import backends, executor
    from runtime.backends import promotion

    promotion._numba_installed = True
    promotion.predicted_compile_seconds = lambda: 0.0
    backends.compile_with = lambda *args, **options: threading.Event().wait()  # never ends

    @tf.function(backend="auto")
    def f(n):
        i = tf.constant(0)
        while i < n:
            i += 1
        return i

    print(f(tf.constant(3)).numpy())
    assert f.get_concrete_function(tf.constant(3)).promotion.is_alive()
""")


def test_the_process_exits_cleanly_while_a_promotion_is_compiling(tmp_path):
    script = tmp_path / "exit_while_compiling.py"
    script.write_text(_EXIT_WHILE_COMPILING)
    root = pathlib.Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-W", "error", str(script)], capture_output=True,
                          text=True, timeout=60, cwd=root, env=_environment(root))
    assert (done.returncode, done.stdout, done.stderr) == (0, "3\n", "")


_EXIT_WHILE_NUMBA_COMPILES = textwrap.dedent("""
    import autograph.tf as tf
    from runtime.backends import promotion

    promotion.predicted_compile_seconds = lambda: 0.0

    @tf.function(backend="auto")
    def f(n):
        i = tf.constant(0)
        total = tf.constant(0.0)
        while i < n:
            total += tf.sin(tf.cast(i, tf.float32))
            i += 1
        return total

    f(tf.constant(3))
""")


@pytest.mark.slow
def test_the_process_exits_cleanly_while_numba_compiles(tmp_path):
    pytest.importorskip("numba")
    script = tmp_path / "exit_while_numba_compiles.py"
    script.write_text(_EXIT_WHILE_NUMBA_COMPILES)
    root = pathlib.Path(__file__).resolve().parents[2]
    environment = dict(_environment(root), AUTOGRAPH_CACHE_DIR=str(tmp_path / "cache"))
    done = subprocess.run([sys.executable, "-W", "error", "-X", "dev", str(script)],
                          capture_output=True, text=True, timeout=120, cwd=root,
                          env=environment)
    assert (done.returncode, done.stderr) == (0, "")


def test_the_stats_at_exit_count_what_the_promotions_came_to(monkeypatch, capsys):
    monkeypatch.setattr(backends, "STATS", {})
    monkeypatch.setattr(promotion, "OUTCOMES",
                        {"started": 3, "kept": 1, "demoted": 1, "fell back": 1})
    backends._print_stats()
    assert capsys.readouterr().err == \
        "autograph backend auto: 3 started, 1 kept, 1 demoted, 1 fell back\n"
