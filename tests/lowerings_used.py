"""Which ops' lowering rules the graphs of a run were compiled with (`--every-lowering`).

With AUTOGRAPH_BACKEND=numba (or jax) every graph the tests build goes to that backend. Given
`--every-lowering` too, this plugin notes, for each graph a compiled backend lowers and
compiles, the ops whose rule the lowering looked up; at the end of the run it fails, naming
them, when an op the backend lowers (a template, rule or host call in the coverage table of
docs/backends.md) was used by no compiled graph. `.ci/run` runs the backend conformance subset
(`-m lowerings`) so, which keeps that subset touching every op's lowering.

Loaded by tests/conftest.py; it changes nothing unless `--every-lowering` is given. A test
whose graphs compile in a subprocess has it note them there (`note_compiled_ops`, `used`) and
adds them to the run's (`add_used`).
"""

import os
import threading

import pytest

from runtime import backends
from runtime.ops import registry

_LOWERED = ("template", "rule", "host call")
_used: set[tuple[str, str]] = set()  # (backend, op name) of the graphs compiled
_compiling = threading.local()       # .ops: the ops looked up by the compile under way


class _NotingRules(dict):
    """An op's `lowerings` that notes each lookup made while a backend compiles a graph."""

    __slots__ = ("op_name",)

    def __init__(self, op_name, rules):
        super().__init__(rules)
        self.op_name = op_name

    def get(self, key, default=None):
        looked_up = getattr(_compiling, "ops", None)
        if looked_up is not None:
            looked_up.add(self.op_name)
        return super().get(key, default)


def _noting_compile_with(compile_with):
    def compile_noting_ops(name, cf, report, strict):
        for op in list(registry.REGISTRY.values()):  # ops registered since the last compile
            if type(op.lowerings) is dict:  # (a registered op refuses a plain assignment)
                object.__setattr__(op, "lowerings", _NotingRules(op.name, op.lowerings))
        outer = getattr(_compiling, "ops", None)
        _compiling.ops = set()
        try:
            compiled = compile_with(name, cf, report, strict)
            if compiled is not None:
                _used.update((name, op) for op in _compiling.ops)
        finally:
            _compiling.ops = outer
        return compiled
    compile_noting_ops.notes_ops = True
    return compile_noting_ops


def note_compiled_ops():
    """From now on in this process, notes the ops whose rules each graph a backend compiles
    looked up: done by `--every-lowering`, and by a test's subprocess (one that needs jax
    started with several host devices, say), which hands `used()` back to the test."""
    if not getattr(backends.compile_with, "notes_ops", False):
        backends.compile_with = _noting_compile_with(backends.compile_with)


def used():
    """The (backend, op name) pairs noted in this process, sorted."""
    return sorted(_used)


def add_used(pairs):
    """(backend, op name) pairs noted in a test's subprocess join this run's."""
    _used.update((backend, op) for backend, op in pairs)


def pytest_addoption(parser):
    parser.addoption(
        "--every-lowering", action="store_true",
        help="with AUTOGRAPH_BACKEND=numba or jax: fail unless the run compiled graphs "
             "with every op that backend lowers (tests/lowerings_used.py)")


def pytest_configure(config):
    if config.getoption("every_lowering"):
        backend = os.environ.get("AUTOGRAPH_BACKEND")
        if backend not in backends.BACKENDS:
            raise pytest.UsageError("--every-lowering needs AUTOGRAPH_BACKEND set to one of %s"
                                    % ", ".join(backends.BACKENDS))
        note_compiled_ops()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """(pytest-xdist, in the controller) a worker's ops join this process's."""
    _used.update(tuple(pair) for pair in getattr(node, "workeroutput", {}).get("lowered", []))


def unused_lowerings(backend):
    """The ops `backend` lowers that no graph compiled in this run used, sorted."""
    from runtime.backends import coverage  # (declares every op)
    return sorted(name for name, op in registry.REGISTRY.items()
                  if coverage.cell(op, backend) in _LOWERED and (backend, name) not in _used)


def pytest_sessionfinish(session):
    config = session.config
    if not config.getoption("every_lowering"):
        return
    if hasattr(config, "workeroutput"):  # a pytest-xdist worker: the controller checks
        config.workeroutput["lowered"] = sorted(_used)
        return
    backend = os.environ["AUTOGRAPH_BACKEND"]
    unused = unused_lowerings(backend)
    config._unused_lowerings = (backend, unused)
    if unused and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter, config):
    backend, unused = getattr(config, "_unused_lowerings", (None, []))
    if unused:
        terminalreporter.write_line(
            "--every-lowering: no graph compiled by %s used the lowering of %d ops: %s"
            % (backend, len(unused), ", ".join(unused)), red=True)
    elif backend:
        terminalreporter.write_line("--every-lowering: the run used every op %s lowers"
                                    % backend)
