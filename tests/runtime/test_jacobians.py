"""GradientTape.jacobian and batch_jacobian: values against central finite differences
(float64), eagerly and inside a traced function; shapes, unconnected sources, variables
and the errors for what cannot be computed."""

import numpy as np
import pytest

from runtime import dtypes, variables
from runtime.function import function
from runtime.gradients import GradientTape, UnconnectedGradients
from runtime.ops import array_ops, linalg_ops, math_ops, reduction_ops
from runtime.signature import TensorSpec

RNG = np.random.default_rng(7)


def numeric_jacobian(f, x, eps=1e-6):
    """d f(x)[i] / d x[j] by central differences, shaped f(x).shape + x.shape."""
    out = np.asarray(f(x))
    jac = np.zeros(out.shape + x.shape)
    for idx in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[idx] += eps
        minus[idx] -= eps
        jac[(Ellipsis,) + idx] = (np.asarray(f(plus)) - np.asarray(f(minus))) / (2 * eps)
    return jac


def _tanh_of_product(x, w):
    return math_ops.tanh(linalg_ops.matmul(x, w))


def test_jacobian_of_a_matrix_function_matches_finite_differences():
    x = RNG.normal(size=(2, 3))
    w = RNG.normal(size=(3, 4))
    tx = array_ops.constant(x)
    with GradientTape() as tape:
        tape.watch(tx)
        y = _tanh_of_product(tx, array_ops.constant(w))
    jac = tape.jacobian(y, tx)
    assert jac.shape == (2, 4, 2, 3)
    expected = numeric_jacobian(lambda a: np.tanh(a @ w), x)
    np.testing.assert_allclose(jac.numpy(), expected, rtol=1e-6, atol=1e-8)


def test_jacobian_inside_a_function_matches_the_eager_one():
    x = RNG.normal(size=(3,))

    def jac_of_sin(v):
        with GradientTape() as tape:
            tape.watch(v)
            y = math_ops.sin(v) * reduction_ops.reduce_sum(v)
        return tape.jacobian(y, v)

    eager = jac_of_sin(array_ops.constant(x)).numpy()
    traced = function(jac_of_sin)(array_ops.constant(x)).numpy()
    np.testing.assert_allclose(traced, eager, rtol=1e-12)
    expected = numeric_jacobian(lambda a: np.sin(a) * a.sum(), x)
    np.testing.assert_allclose(eager, expected, rtol=1e-6, atol=1e-8)


def test_jacobian_with_respect_to_a_variable_and_several_sources():
    v = variables.Variable(RNG.normal(size=(2,)))
    x = array_ops.constant(RNG.normal(size=(2,)))
    with GradientTape() as tape:
        tape.watch(x)
        y = v * x * 3.0
    jv, jx = tape.jacobian(y, [v, x])
    np.testing.assert_allclose(jv.numpy(), np.diag(3.0 * x.numpy()))
    np.testing.assert_allclose(jx.numpy(), np.diag(3.0 * v.numpy()))


def test_jacobian_of_an_unconnected_source_is_none_or_zeros():
    x = array_ops.constant([1.0, 2.0])
    other = array_ops.constant([5.0, 6.0, 7.0])
    with GradientTape(persistent=True) as tape:
        tape.watch([x, other])
        y = x * 2.0
    assert tape.jacobian(y, other) is None
    zeros = tape.jacobian(y, other, unconnected_gradients=UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(zeros.numpy(), np.zeros((2, 3)))


def test_a_non_persistent_tape_gives_one_jacobian():
    x = array_ops.constant([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.jacobian(y, x)
    with pytest.raises(RuntimeError, match="non-persistent"):
        tape.jacobian(y, x)


def test_batch_jacobian_matches_finite_differences_per_example():
    x = RNG.normal(size=(4, 3))
    w = RNG.normal(size=(3, 2))
    tx = array_ops.constant(x)
    with GradientTape() as tape:
        tape.watch(tx)
        y = _tanh_of_product(tx, array_ops.constant(w))
    jac = tape.batch_jacobian(y, tx)
    assert jac.shape == (4, 2, 3)
    for b in range(4):
        expected = numeric_jacobian(lambda a: np.tanh(a @ w), x[b])
        np.testing.assert_allclose(jac.numpy()[b], expected, rtol=1e-6, atol=1e-8)


def test_batch_jacobian_with_an_unknown_batch_size_in_a_function():
    def jac(x):
        with GradientTape() as tape:
            tape.watch(x)
            y = math_ops.square(x) * 0.5
        return tape.batch_jacobian(y, x)

    traced = function(jac, input_signature=[TensorSpec([None, 2], dtypes.float64)])
    x = RNG.normal(size=(3, 2))
    result = traced(array_ops.constant(x)).numpy()
    assert result.shape == (3, 2, 2)
    for b in range(3):
        np.testing.assert_allclose(result[b], np.diag(x[b]))


def test_batch_jacobian_refuses_batches_that_differ_and_unknown_target_shapes():
    x = array_ops.constant(np.ones((3, 2)))
    other = array_ops.constant(np.ones((4, 2)))
    with GradientTape(persistent=True) as tape:
        tape.watch([x, other])
        y = x * 2.0
    with pytest.raises(ValueError, match="first dimension of the target"):
        tape.batch_jacobian(y, other)
    with pytest.raises(ValueError, match="batch dimension first"):
        tape.batch_jacobian(reduction_ops.reduce_sum(y), x)


def test_jacobian_refuses_a_target_of_unknown_shape():

    def jac(x):
        with GradientTape() as tape:
            tape.watch(x)
            y = x * 2.0
        return tape.jacobian(y, x)

    traced = function(jac, input_signature=[TensorSpec([None], dtypes.float32)])
    with pytest.raises(ValueError, match="shape of the target must be known"):
        traced(array_ops.constant([1.0, 2.0]))


def _graph_size(fn, *args):
    return len(function(fn).get_concrete_function(*args).graph.as_graph_def().node)


def _jacobian_of_tanh_product(x):
    with GradientTape() as tape:
        tape.watch(x)
        y = math_ops.tanh(x * reduction_ops.reduce_sum(x))
    return tape.jacobian(y, x)


def _batch_jacobian_of_sin(x):
    with GradientTape() as tape:
        tape.watch(x)
        y = math_ops.sin(x) * reduction_ops.reduce_sum(x, 1, keepdims=True)
    return tape.batch_jacobian(y, x)


@pytest.mark.parametrize("jacobian_of, shape", [(_jacobian_of_tanh_product, (10,)),
                                                (_batch_jacobian_of_sin, (3, 10))],
                         ids=["jacobian", "batch_jacobian"])
def test_a_traced_jacobian_is_one_loop_whatever_the_number_of_rows(jacobian_of, shape):
    small = RNG.normal(size=shape)
    large = RNG.normal(size=shape[:-1] + (100,))
    assert _graph_size(jacobian_of, array_ops.constant(small)) == \
        _graph_size(jacobian_of, array_ops.constant(large))
    ops = {node.op for node in function(jacobian_of).get_concrete_function(
        array_ops.constant(large)).graph.as_graph_def().node}
    assert "While" in ops or "StatelessWhile" in ops
    traced = function(jacobian_of)(array_ops.constant(large)).numpy()
    np.testing.assert_allclose(traced, jacobian_of(array_ops.constant(large)).numpy(),
                               rtol=1e-12, atol=1e-15)


def test_a_traced_jacobian_loop_serves_variables_unconnected_sources_and_gradients():
    v = variables.Variable(RNG.normal(size=(3,)))

    def jacobians(x):
        other = array_ops.constant([1.0, 2.0])
        with GradientTape(persistent=True) as outer:
            outer.watch([x, other])
            with GradientTape() as inner:
                inner.watch(x)
                y = reduction_ops.reduce_sum(x * x * x * v)
            g = inner.gradient(y, x)
        return (outer.jacobian(g, [x, v]), outer.jacobian(g, other),
                outer.jacobian(g, other, unconnected_gradients=UnconnectedGradients.ZERO))

    x = array_ops.constant(RNG.normal(size=(3,)))
    graph = function(jacobians).get_concrete_function(x).graph.as_graph_def()
    assert sum(node.op in ("While", "StatelessWhile") for node in graph.node) == 3  # 1 each
    (hx, hv), none, zeros = function(jacobians)(x)
    (ex, ev), _, _ = jacobians(x)
    np.testing.assert_allclose(hx.numpy(), ex.numpy(), rtol=1e-12)
    np.testing.assert_allclose(hv.numpy(), ev.numpy(), rtol=1e-12)
    np.testing.assert_allclose(hx.numpy(), np.diag(6 * x.numpy() * v.numpy()), rtol=1e-12)
    assert none is None
    np.testing.assert_array_equal(zeros.numpy(), np.zeros((3, 2)))
