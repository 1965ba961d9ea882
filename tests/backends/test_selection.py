"""Backend selection, the lowering walker, the per-op coverage and the fallback."""

import warnings

import numpy as np
import pytest

import autograph
import autograph.tf as tf
from runtime import backends, executor, lowering_api
from runtime.backends import coverage, jax_host, lowering, numba_host
from runtime.graph import Graph
from runtime.lowering_api import Value
from runtime.ops import registry


@pytest.fixture
def no_default_backend(monkeypatch):
    """The process default as a fresh process has it: no config, no AUTOGRAPH_BACKEND."""
    monkeypatch.delenv("AUTOGRAPH_BACKEND", raising=False)
    autograph.config(backend=None)
    yield
    autograph.config(backend=None)


# -- coverage ---------------------------------------------------------------------------------

def test_every_op_declares_a_lowering_or_host_only_for_each_backend():
    table = coverage.table()
    print(table)
    missing = [(name, backend) for name, op in registry.REGISTRY.items()
               for backend in ("numba", "jax") if coverage.cell(op, backend) == "MISSING"]
    assert missing == []


def test_the_coverage_document_is_current():
    assert coverage.DOC.read_text() == coverage.document(), (
        "docs/backends.md is stale: run python -m runtime.backends.coverage --write")


def test_host_only_ops_lower_at_most_as_host_calls():
    for name in ("PrintV2", "EagerPyFunc", "IteratorGetNext"):
        op = registry.get(name)
        assert "host_only" in op.traits and set(op.lowerings) <= {"numba", "jax"}, name
        assert all(isinstance(rule, lowering_api.HostCall) for rule in op.lowerings.values()), name
        assert coverage.cell(op, "numba") == "host call"
        assert coverage.cell(op, "jax") == "host call"
    assert coverage.cell(registry.get("Add"), "jax") == "host"


def _simplified_op_names(graph, outputs):
    """The ops of the nodes simplification keeps in `graph` and its sub-graphs."""
    names = set()
    for node, _ in executor.simplify(graph, outputs).nodes:
        names.add(node.op.name)
        for value in node.attrs.values():
            if isinstance(getattr(value, "graph", None), Graph):
                names |= _simplified_op_names(value.graph, value.outputs)
    return names


def test_ops_declared_removed_before_lowering_never_survive_simplification():
    removed = {name for name, op in registry.REGISTRY.items()
               if coverage.cell(op, "numba").startswith("removed before lowering: ")}
    assert removed == {"Identity", "NoOp", "StopGradient"}
    assert all(coverage.cell(registry.get(name), "jax") == coverage.cell(registry.get(name),
                                                                         "numba")
               for name in removed)

    def f(x):
        with tf.control_dependencies([tf.no_op()]):
            y = tf.identity(x) * tf.stop_gradient(x)
        return tf.cond(x[0] > 0, lambda: tf.identity(y), lambda: tf.stop_gradient(-y))

    cf = tf.function(f).get_concrete_function(tf.constant([1.0, 2.0]))
    assert removed <= {node.op.name for node in cf.graph.nodes}
    kept = _simplified_op_names(cf.graph, cf.graph.outputs)
    assert "StatelessIf" in kept and not kept & removed
    with pytest.raises(lowering_api.Unsupported, match="removed before lowering"):
        registry.get("Identity").lowerings["array"](lowering.Lowerer(), None, [], [])


def test_a_stateless_numpy_function_runs_on_the_executor_as_no_backend_calls_it_back():
    op = registry.get("PyFuncStateless")
    assert op.lowerings == {}
    assert coverage.cell(op, "numba") == coverage.cell(op, "jax") == "host"


def test_every_host_call_an_op_declares_is_implemented_by_its_backend():
    implemented = {"numba": numba_host.HOST_CALLS, "jax": jax_host.HOST_CALLS}
    declared = {(backend, rule) for op in registry.REGISTRY.values()
                for backend, rule in op.lowerings.items()
                if isinstance(rule, lowering_api.HostCall)}
    assert {backend for backend, _ in declared} == set(implemented)
    missing = sorted((backend, rule.name) for backend, rule in declared
                     if rule not in implemented[backend])
    assert missing == []


def test_a_lowering_must_be_a_template_or_a_rule():
    with pytest.raises(TypeError, match="template string or a rule"):
        registry.register("BadLowering", abs, lambda specs, attrs: [specs[0]],
                          grad=registry.NO_GRADIENT, emit=registry.KERNEL_CALL,
                          lowerings={"array": 3})
    assert "BadLowering" not in registry.REGISTRY


# -- the walker ---------------------------------------------------------------------------------

class _TextLowerer(lowering.Lowerer):
    """A backend for the tests: constants as literals, nothing compiled."""

    name = "text"

    def constant(self, value, dtype, shape):
        return repr(value.tolist())


def _lower(f, *args):
    cf = tf.function(f, backend="numpy").get_concrete_function(*args)
    lowerer = _TextLowerer()
    fed = {id(t): Value("in%d" % i, t.dtype, t._shape)
           for i, t in enumerate(cf.inputs)}
    results = lowerer.lower_graph(cf.graph, fed, cf.outputs)
    return "\n".join(lowerer.lines), results


def test_the_walker_fills_array_templates_with_inputs_and_attributes():
    def f(x):
        return tf.reduce_sum(tf.tanh(x) + 1.0, axis=0)

    source, results = _lower(f, tf.constant([[1.0, 2.0]]))
    assert "xp.tanh(in0)" in source
    assert "xp.sum(" in source and "axis=(0, ), keepdims=False" in source
    assert results[0].dtype is tf.float32


def test_the_walker_names_the_op_and_the_user_line_of_an_op_without_lowering():
    def f(x):
        tf.print(x)  # the line the error names
        return x + 1

    with pytest.raises(backends.Unsupported, match=r"op PrintV2.*test_selection.py:\d+.*host"):
        _lower(f, tf.constant(1.0))


# -- selection and fallback -----------------------------------------------------------------------

def test_an_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="backend must be one of"):
        tf.function(lambda x: x, backend="cuda")
    with pytest.raises(ValueError):
        autograph.config(backend="tpu")


def test_the_default_runs_the_numpy_executor_without_warning(no_default_backend):
    f = tf.function(lambda x: x + 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f(tf.constant(1.0)).numpy() == 2.0
    cf = f.get_concrete_function(tf.constant(1.0))
    assert cf.backend == "numpy"
    assert cf.backend_report().requested == "auto"


def _unlowerable(x):
    return tf.py_function(lambda v: v, [x], tf.float32)


def test_a_backend_asked_for_explicitly_falls_back_with_a_warning_naming_the_op():
    f = tf.function(_unlowerable, backend="jax")
    with pytest.warns(backends.BackendFallbackWarning, match="jax"):
        assert f(tf.constant(2.0)).numpy() == 2.0
    cf = f.get_concrete_function(tf.constant(2.0))
    assert cf.backend == "numpy"
    assert "jax" in str(cf.backend_report())


def test_strict_raises_instead_of_falling_back():
    f = tf.function(_unlowerable, backend="numba", strict=True)
    with pytest.raises(backends.Unsupported):
        f(tf.constant(2.0))


def test_the_process_default_comes_from_config_then_the_environment(no_default_backend,
                                                                     monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_BACKEND", "numpy")
    assert backends.default() == "numpy"
    autograph.config(backend="auto")
    assert backends.default() == "auto"
    autograph.config(backend=None)
    monkeypatch.setenv("AUTOGRAPH_BACKEND", "bogus")
    with pytest.raises(ValueError, match="AUTOGRAPH_BACKEND"):
        backends.default()


def test_a_default_backend_falls_back_silently_and_records_why(no_default_backend):
    autograph.config(backend="jax")
    f = tf.function(_unlowerable)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert f(tf.constant(3.0)).numpy() == 3.0
    report = f.get_concrete_function(tf.constant(3.0)).backend_report()
    assert report.running == "numpy" and report.reason


def test_results_agree_whichever_backend_runs(no_default_backend):
    def f(x):
        return tf.tanh(x) * 2.0

    x = tf.constant(np.linspace(-2, 2, 5, dtype=np.float32))
    expected = tf.function(f, backend="numpy")(x).numpy()
    for backend in ("auto", "numba", "jax"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", backends.BackendFallbackWarning)
            np.testing.assert_allclose(tf.function(f, backend=backend)(x).numpy(), expected,
                                       rtol=1e-6)
