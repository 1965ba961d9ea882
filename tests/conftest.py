"""Fixtures shared by every test directory.

Every test must leave the global execution state as it found it: no graph left on the
context stack and `run_functions_eagerly` off. The autouse guard checks that after each test
(a leftover graph would silently turn every later eager op into a graph node). It also checks
every attribute of every graph node a test builds against its op's declared type
(runtime/ops/attr_types.py), so that the whole suite verifies the declarations and naming
conventions that a saved model's loader relies on.
`functions_run_eagerly` turns `run_functions_eagerly` on for one test. A background compile
that the "auto" backend started in a test is waited for before the next test starts. Random
ops draw the same values in a test on every run, whatever ran before it in its worker.

The "auto" backend's clock stands still in tests (`promotion.clock`): it promotes a function
to numba when its executor time adds up to the predicted compile time, which on a real clock
depends on how busy the machine is, so a test's graph would run on numba in one run and on
the executor in the next. Tests of promotion script the clock or the prediction themselves.
For the same reason each test remembers only its own promotions (`promotion.promoted_marker`
points into a folder of the test's own): a graph whose kernel an earlier promotion left in
the cache folder starts compiling at its second call, so a test would otherwise run on numba
after another test, or an earlier run, promoted the same graph, and on the executor when not.

Hypothesis gives an example all the time it takes (no deadline: a busy machine is no
failure). Under CI (the environment variable CI set, as `.ci/run` runs) it draws the same
examples every run (`derandomize`), so that a landing never depends on chance; a run on a
developer's machine draws new ones each time and keeps finding what the fixed ones miss.

The suite runs on every CPU this process may use (pytest-xdist, `-n auto` in pyproject.toml;
each worker a process of its own, sharing the numba and JAX caches on disk). A run that names
test files or tests, rather than folders, stays in one process: it starts sooner, and `--pdb`
works. `-n N` on the command line, or PYTEST_XDIST_AUTO_NUM_WORKERS, chooses otherwise.
"""

import itertools
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from runtime import context
from runtime.backends import promotion
from runtime.graph import Node
from runtime.ops import random_ops, registry

pytest_plugins = ["lowerings_used"]  # --every-lowering (tests/lowerings_used.py)

# No deadline and no "too slow" health check: a test's outcome must not depend on how busy
# the machine is (on 2 CPUs shared with other work an example of a fast test, a flatten and
# pack of a small structure, can take over hypothesis's default 200 ms: the test then fails,
# with DeadlineExceeded, or as Flaky when the replay of that example is quick)
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", parent=settings.get_profile("suite"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "suite")


def pytest_xdist_auto_num_workers(config):
    """How many worker processes `-n auto` starts: 0 (this process runs the tests) when the
    arguments name only test files or tests, else one per CPU this process may use."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None  # pytest-xdist reads it
    named = [arg.split("::")[0] for arg in config.args]
    if named and all(os.path.isfile(path) for path in named):
        return 0
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return usable if usable and usable > 1 else 0


@pytest.hookimpl(tryfirst=True)  # before `-m` selects
def pytest_collection_modifyitems(items):
    """The compiled backends' own tests (tests/backends) join the `lowerings` subset."""
    backend_tests = os.path.join(os.path.dirname(__file__), "backends") + os.sep
    for item in items:
        if str(item.path).startswith(backend_tests):
            item.add_marker(pytest.mark.lowerings)


_UNTYPED_ATTRIBUTES: list[str] = []
_node_init = Node.__init__


def _node_init_checking_attribute_types(self, graph, name, op, inputs, attrs, *args, **kwargs):
    # (a wrapper of Node, not of Graph.add_node: that one reads its caller's frame)
    for attr, value in attrs.items():
        declared = registry.attribute_type(op, attr)
        problem = "no declared type" if declared is None else declared.problem(value)
        if problem is not None:
            _UNTYPED_ATTRIBUTES.append("%s.%s: %s" % (op.name, attr, problem))
    _node_init(self, graph, name, op, inputs, attrs, *args, **kwargs)


Node.__init__ = _node_init_checking_attribute_types


@pytest.fixture(autouse=True)
def clean_execution_state():
    assert context.thread_graphs() == [], "a previous test left a graph on the context stack"
    assert context.building == [], "a previous test left a graph being built (in any thread)"
    yield
    compiled = promotion.wait_for_background_compiles(timeout=300)
    leaked = list(context.thread_graphs()) + [g for g in context.building
                                              if g not in context.thread_graphs()]
    eager = context.functions_run_eagerly()
    del context.thread_graphs()[:]
    del context.building[:]
    context.run_functions_eagerly(False)
    assert leaked == [], "the test left a graph on the context stack: %r" % leaked
    assert not eager, "the test left run_functions_eagerly(True) switched on"
    assert compiled, "a background compile of the test's function is still running"
    untyped = sorted(set(_UNTYPED_ATTRIBUTES))
    del _UNTYPED_ATTRIBUTES[:]
    assert untyped == [], "graph nodes with attributes not of their declared type: %s" % untyped


@pytest.fixture(autouse=True)
def promotion_clock_stands_still(monkeypatch):
    """No executor time adds up towards an "auto" promotion (see the module docstring)."""
    monkeypatch.setattr(promotion, "clock", lambda: 0.0)


_promotion_folders = itertools.count()


@pytest.fixture(autouse=True)
def promotions_are_remembered_by_their_test_only(monkeypatch, tmp_path_factory):
    """An "auto" promotion's marker goes to a folder of this test's own (made when a
    promotion writes one), not to the shared cache folder (see the module docstring)."""
    folder = tmp_path_factory.getbasetemp() / ("promoted-%d" % next(_promotion_folders))
    marker = promotion.promoted_marker
    monkeypatch.setattr(promotion, "promoted_marker",
                        lambda cf, compiled: folder / marker(cf, compiled).name)


@pytest.fixture(autouse=True)
def random_ops_draw_the_same_every_run(monkeypatch):
    """Each test starts with the random-op state of a fresh process (no global seed, no op
    counted yet), except that the generator of ops with neither seed is seeded: its draws
    would otherwise differ from run to run, and a global seed that a test set
    (`tf.random.set_seed`, Keras's `set_random_seed`) would stay set for the test files this
    worker happens to run next."""
    monkeypatch.setattr(random_ops, "_global_seed", {"seed": None, "counter": 0, "streams": {}})
    monkeypatch.setattr(random_ops, "_default_rng", [np.random.default_rng(20261129)])


@pytest.fixture
def functions_run_eagerly():
    """Switches `run_functions_eagerly` on for one test, and always back off."""
    context.run_functions_eagerly(True)
    try:
        yield
    finally:
        context.run_functions_eagerly(False)
