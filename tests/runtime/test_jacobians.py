"""GradientTape.jacobian and batch_jacobian: values against central finite differences
(float64), eagerly and inside a traced function; shapes, unconnected sources, variables
and the errors for what cannot be computed."""

import functools
import logging

import numpy as np
import pytest

from runtime import dtypes, variables
from runtime.function import function
from runtime.gradients import GradientTape, UnconnectedGradients
from runtime.ops import (
    array_ops,
    concat_split_ops,
    cumulative_ops,
    einsum_ops,
    layout_ops,
    linalg_ops,
    math_ops,
    nn_ops,
    reduction_ops,
    reshape_ops,
    selection_ops,
)
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


def assert_equal_to_the_backends_rounding(got, expected, term_scale):
    """`got` (a traced Jacobian, run by whichever backend AUTOGRAPH_BACKEND chose) equals
    `expected` (the numpy executor's) up to the rounding a compiled backend may differ by:
    its math functions are a few ulp from numpy's, not bit for bit (XLA's float64 tanh is up
    to 6 ulp apart where it nears 1), and it adds a sum in another order. An entry of a
    Jacobian sums and multiplies such values, so it may differ by 4 ulp of `term_scale`, the
    largest term it is made of, however much those terms cancel (1 - tanh(a)**2 where tanh
    saturates is a difference of two values near 1, left with their rounding only)."""
    np.testing.assert_allclose(got, expected, rtol=1e-12,
                               atol=4 * np.finfo(np.float64).eps * term_scale)


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


def _jacobian_of_tanh_product(x, pfor=True):
    with GradientTape() as tape:
        tape.watch(x)
        y = math_ops.tanh(x * reduction_ops.reduce_sum(x))
    return tape.jacobian(y, x, experimental_use_pfor=pfor)


def _batch_jacobian_of_sin(x, pfor=True):
    with GradientTape() as tape:
        tape.watch(x)
        y = math_ops.sin(x) * reduction_ops.reduce_sum(x, 1, keepdims=True)
    return tape.batch_jacobian(y, x, experimental_use_pfor=pfor)


def _tanh_product_term_scale(x):
    # d tanh(x_i * s) / d x_j = (1 - t_i**2) * (x_i + [i == j] * s), s = sum(x), which is
    # rounded to the ulp of sum(|x|) whatever the order it is added in
    return np.sum(np.abs(x)) + np.max(np.abs(x))


def _sin_product_term_scale(x):
    # d (sin(x_bi) * s_b) / d x_bj = cos(x_bi) * [i == j] * s_b + sin(x_bi), s_b = sum(x_b)
    return np.max(np.sum(np.abs(x), axis=-1)) + 1


def _looped(jacobian_of):
    return functools.partial(jacobian_of, pfor=False)


@pytest.mark.parametrize("jacobian_of, shape, term_scale",
                         [(_looped(_jacobian_of_tanh_product), (10,), _tanh_product_term_scale),
                          (_looped(_batch_jacobian_of_sin), (3, 10), _sin_product_term_scale)],
                         ids=["jacobian", "batch_jacobian"])
def test_a_traced_jacobian_without_pfor_is_one_loop_whatever_the_number_of_rows(jacobian_of,
                                                                                shape,
                                                                                term_scale):
    small = RNG.normal(size=shape)
    large = RNG.normal(size=shape[:-1] + (100,))
    assert _graph_size(jacobian_of, array_ops.constant(small)) == \
        _graph_size(jacobian_of, array_ops.constant(large))
    ops = {node.op for node in function(jacobian_of).get_concrete_function(
        array_ops.constant(large)).graph.as_graph_def().node}
    assert "While" in ops or "StatelessWhile" in ops
    traced = function(jacobian_of)(array_ops.constant(large)).numpy()
    assert_equal_to_the_backends_rounding(traced, jacobian_of(array_ops.constant(large)).numpy(),
                                          term_scale(large))


def _hessians(pfor):
    v = variables.Variable(RNG.normal(size=(3,)))

    def jacobians(x):
        other = array_ops.constant([1.0, 2.0])
        with GradientTape(persistent=True) as outer:
            outer.watch([x, other])
            with GradientTape() as inner:
                inner.watch(x)
                y = reduction_ops.reduce_sum(x * x * x * v)
            g = inner.gradient(y, x)
        return (outer.jacobian(g, [x, v], experimental_use_pfor=pfor),
                outer.jacobian(g, other, experimental_use_pfor=pfor),
                outer.jacobian(g, other, unconnected_gradients=UnconnectedGradients.ZERO,
                               experimental_use_pfor=pfor))

    return jacobians, v


@pytest.mark.parametrize("pfor, loops", [(False, 3), (True, 0)], ids=["loop", "vectorised"])
def test_a_traced_jacobian_serves_variables_unconnected_sources_and_gradients(pfor, loops):
    jacobians, v = _hessians(pfor)
    x = array_ops.constant(RNG.normal(size=(3,)))
    graph = function(jacobians).get_concrete_function(x).graph.as_graph_def()
    assert sum(node.op in ("While", "StatelessWhile") for node in graph.node) == loops
    (hx, hv), none, zeros = function(jacobians)(x)
    (ex, ev), _, _ = jacobians(x)
    np.testing.assert_allclose(hx.numpy(), ex.numpy(), rtol=1e-12)
    np.testing.assert_allclose(hv.numpy(), ev.numpy(), rtol=1e-12)
    np.testing.assert_allclose(hx.numpy(), np.diag(6 * x.numpy() * v.numpy()), rtol=1e-12)
    assert none is None
    np.testing.assert_array_equal(zeros.numpy(), np.zeros((3, 2)))


# -- the vectorised Jacobian (experimental_use_pfor=True, the default) ----------------------


@pytest.mark.parametrize("jacobian_of, shape, term_scale",
                         [(_jacobian_of_tanh_product, (10,), _tanh_product_term_scale),
                          (_batch_jacobian_of_sin, (3, 10), _sin_product_term_scale)],
                         ids=["jacobian", "batch_jacobian"])
def test_a_traced_jacobian_is_vectorised_without_a_loop_whatever_the_number_of_rows(
        jacobian_of, shape, term_scale):
    small = RNG.normal(size=shape)
    large = RNG.normal(size=shape[:-1] + (100,))
    assert _graph_size(jacobian_of, array_ops.constant(small)) == \
        _graph_size(jacobian_of, array_ops.constant(large))
    ops = {node.op for node in function(jacobian_of).get_concrete_function(
        array_ops.constant(large)).graph.as_graph_def().node}
    assert not ops & {"While", "StatelessWhile", "TensorArray"}
    looped = function(_looped(jacobian_of))(array_ops.constant(large)).numpy()
    assert_equal_to_the_backends_rounding(
        function(jacobian_of)(array_ops.constant(large)).numpy(), looped, term_scale(large))
    assert_equal_to_the_backends_rounding(jacobian_of(array_ops.constant(large)).numpy(),
                                          looped, term_scale(large))


def _count_backward_passes(monkeypatch):
    passes = []
    original = GradientTape._gradients

    def counted(self, *args, **kwargs):
        passes.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(GradientTape, "_gradients", counted)
    return passes


@pytest.mark.parametrize("pfor, passes", [(True, 1), (False, 12)], ids=["vectorised", "rows"])
def test_an_eager_jacobian_makes_one_backward_pass_for_all_rows(monkeypatch, pfor, passes):
    counted = _count_backward_passes(monkeypatch)
    x = array_ops.constant(RNG.normal(size=(3, 4)))
    w = array_ops.constant(RNG.normal(size=(4, 4)))
    with GradientTape() as tape:
        tape.watch(x)
        y = _tanh_of_product(x, w)
    jac = tape.jacobian(y, x, experimental_use_pfor=pfor)
    assert len(counted) == passes
    expected = numeric_jacobian(lambda a: np.tanh(a @ w.numpy()), x.numpy())
    np.testing.assert_allclose(jac.numpy(), expected, rtol=1e-6, atol=1e-8)


def _softmax_mlp(x, w1, w2):
    """A small classifier's forward pass: the ops its backward pass batches (matmul,
    elementwise, broadcasting, reductions, reshape, transpose, select, softmax, slices and
    gathers)."""
    h = math_ops.tanh(linalg_ops.matmul(x, w1))
    h = math_ops.relu(h) + math_ops.sigmoid(h) * reduction_ops.reduce_mean(h, 0)
    h = reshape_ops.transpose(reshape_ops.reshape(h, [-1, 2, 3]), [0, 2, 1])
    h = reshape_ops.reshape(h, [-1, 6])
    h = selection_ops.where(h > 0.1, h, h * 0.5)
    return (nn_ops.softmax(linalg_ops.matmul(h, w2)) + nn_ops.log_softmax(h)[:, :3]
            + selection_ops.gather(h, [0, 5, 5], axis=1))


@pytest.mark.parametrize("batched", [False, True], ids=["jacobian", "batch_jacobian"])
def test_the_vectorised_jacobian_of_a_classifier_equals_the_looped_one(batched):
    x = array_ops.constant(RNG.normal(size=(4, 5)))
    w1 = variables.Variable(RNG.normal(size=(5, 6)))
    w2 = array_ops.constant(RNG.normal(size=(6, 3)))

    def jacobians(x, pfor):
        with GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = _softmax_mlp(x, w1, w2)
        if batched:
            return [tape.batch_jacobian(y, x, experimental_use_pfor=pfor)]
        return tape.jacobian(y, [x, w1], experimental_use_pfor=pfor)

    looped = [j.numpy() for j in jacobians(x, False)]
    for found in (jacobians(x, True), function(jacobians)(x, True)):
        for value, expected in zip(found, looped):
            np.testing.assert_allclose(value.numpy(), expected, rtol=1e-12, atol=1e-14)
    graph = function(jacobians).get_concrete_function(x, True).graph.as_graph_def()
    assert not {node.op for node in graph.node} & {"While", "StatelessWhile"}


def _jacobian_through_a_repeat(x):
    with GradientTape() as tape:
        tape.watch(x)
        y = concat_split_ops.repeat(x * x, 2)  # its gradient, RepeatGrad, has no batching rule
    return tape.jacobian(y, x)


def test_a_jacobian_through_an_op_without_a_batching_rule_takes_the_loop_and_says_so(caplog):
    x = array_ops.constant(RNG.normal(size=(4,)))
    expected = np.repeat(np.diag(2 * x.numpy()), 2, axis=0)
    with caplog.at_level(logging.DEBUG, logger="autograph"):
        eager = _jacobian_through_a_repeat(x)
        graph = function(_jacobian_through_a_repeat).get_concrete_function(x).graph
    assert "not vectorised (op RepeatGrad" in caplog.text
    np.testing.assert_allclose(eager.numpy(), expected, rtol=1e-12)
    assert "StatelessWhile" in {node.op.name for node in graph.nodes} or \
        "While" in {node.op.name for node in graph.nodes}
    np.testing.assert_allclose(function(_jacobian_through_a_repeat)(x).numpy(), expected,
                               rtol=1e-12)


# Each batching rule met in a backward pass (and the forward ops of a second derivative):
# a function of x of shape [2, 3], whose Jacobian is vectorised
_BATCHED_OPS = {
    "elementwise and broadcasting": lambda x: math_ops.exp(x) * x[0] - x / 3.0,
    "matmul": lambda x: linalg_ops.matmul(x, reshape_ops.transpose(x)),
    "batched matmul": lambda x: linalg_ops.matmul(reshape_ops.reshape(x, [2, 3, 1]),
                                                  reshape_ops.reshape(x, [2, 1, 3])),
    "reductions": lambda x: (reduction_ops.reduce_max(x, 1) * reduction_ops.reduce_mean(x)
                             + reduction_ops.reduce_prod(x, 0)[:2]),
    "reshape, transpose, expand and squeeze": lambda x: reshape_ops.squeeze(
        reshape_ops.expand_dims(reshape_ops.transpose(
            reshape_ops.reshape(x, [3, 2])), -1)),
    "broadcast_to and tile": lambda x: (reshape_ops.broadcast_to(x[0], [2, 3])
                                        * concat_split_ops.tile(x, [1, 2])[:, 1:4]),
    "concat, stack and unstack": lambda x: concat_split_ops.concat(
        [x, concat_split_ops.stack(concat_split_ops.unstack(x, axis=1)[::-1], axis=1)], 0),
    "where": lambda x: selection_ops.where(x > 0.0, math_ops.sin(x), x * x),
    "softmax and log_softmax": lambda x: nn_ops.softmax(x) * nn_ops.log_softmax(x, axis=0),
    "slices and gathers": lambda x: selection_ops.gather(x[:, 1:], [1, 1, 0], axis=1) * x[1],
    "add_n": lambda x: math_ops.add_n([x, x * x, math_ops.sin(x)]),
    "cumulative sums and products": lambda x: (cumulative_ops.cumsum(x * x, axis=-1)
                                               * cumulative_ops.cumprod(x, axis=0)),
    "pad, reverse and roll": lambda x: layout_ops.pad(
        layout_ops.reverse(x, [1]) * layout_ops.roll(x, 1, -1), [[1, 0], [0, 2]]),
    "einsum": lambda x: einsum_ops.einsum("ij,kj->ik", x, math_ops.sin(x)),
    "a second derivative": lambda x: _gradient(lambda v: reduction_ops.reduce_sum(
        nn_ops.softmax(v) * math_ops.tanh(v)), x),
}


def _gradient(f, x):
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    return tape.gradient(y, x)


@pytest.mark.parametrize("name", sorted(_BATCHED_OPS))
def test_each_batching_rule_gives_the_looped_jacobian_eagerly_and_traced(name, caplog):
    f = _BATCHED_OPS[name]

    def jacobian_of(x, pfor):
        with GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        return tape.jacobian(y, x, experimental_use_pfor=pfor)

    x = array_ops.constant(RNG.normal(size=(2, 3)))
    expected = jacobian_of(x, False).numpy()
    with caplog.at_level(logging.DEBUG, logger="autograph"):
        eager = jacobian_of(x, True).numpy()
        traced = function(jacobian_of)(x, True).numpy()
    assert "not vectorised" not in caplog.text
    np.testing.assert_allclose(eager, expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(traced, expected, rtol=1e-12, atol=1e-14)


def test_a_backward_pass_that_cannot_be_traced_takes_the_rows_and_says_why(monkeypatch,
                                                                          caplog):
    original = GradientTape._gradients

    def untraceable(self, *args, into_graph=False):
        if into_graph:
            raise NotImplementedError("a rule that runs only eagerly")
        return original(self, *args)

    monkeypatch.setattr(GradientTape, "_gradients", untraceable)
    x = array_ops.constant(RNG.normal(size=(3,)))
    with GradientTape() as tape:
        tape.watch(x)
        y = math_ops.sin(x)
    with caplog.at_level(logging.DEBUG, logger="autograph"):
        jac = tape.jacobian(y, x)
    assert "cannot be traced: NotImplementedError: a rule that runs only eagerly" in caplog.text
    np.testing.assert_allclose(jac.numpy(), np.diag(np.cos(x.numpy())), rtol=1e-12)


def test_a_backward_pass_with_control_dependencies_is_not_batched():
    from runtime.gradients import vectorize
    from runtime.graph import Graph

    graph = Graph("backward")
    with graph.as_default():
        seed = graph.add_placeholder("seed", dtypes.float32, (2,))
        first = math_ops.multiply(seed, 2.0)
        graph.control_dependencies = [first.node]
        second = math_ops.add(seed, 1.0)  # runs after `first`: a batched node would not
        graph.control_dependencies = []
    assert second.node.control_inputs == [first.node]
    with pytest.raises(vectorize.Unbatchable, match="control dependencies"):
        vectorize.vectorize(graph, seed, array_ops.ones([3, 2]), [second], 3)
