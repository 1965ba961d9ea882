"""tensor_scatter_nd_sub/min/max: values as TensorFlow's (the slicing guide's examples), eagerly
and traced, and their gradients against finite differences."""

import numpy as np
import pytest
from numeric_gradients import numeric_gradients

from runtime.function import function
from runtime.gradients import GradientTape
from runtime.ops import array_ops, reduction_ops, scatter_ops

T14 = [[-2, -7, 0], [-9, 0, 1], [0, -3, -8]]
DIAGONAL = [[0, 2], [1, 1], [2, 0]]


@pytest.mark.parametrize("traced", [False, True])
def test_scatter_sub_min_max_give_the_slicing_guides_values(traced):
    run = function(lambda f, *a: f(*a)) if traced else (lambda f, *a: f(*a))
    t11 = array_ops.constant([[2, 7, 0], [9, 0, 1], [0, 3, 8]])
    identity = scatter_ops.tensor_scatter_nd_sub(
        t11, [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [2, 1], [2, 2]], [1, 7, 9, -1, 1, 3, 7])
    np.testing.assert_array_equal(identity.numpy(), np.eye(3, dtype=np.int32))
    t14 = array_ops.constant(T14)
    least = run(scatter_ops.tensor_scatter_nd_min, t14, DIAGONAL, [-6, -5, -4])
    greatest = run(scatter_ops.tensor_scatter_nd_max, t14, DIAGONAL, [6, 5, 4])
    np.testing.assert_array_equal(least.numpy(), [[-2, -7, -6], [-9, -5, 1], [-4, -3, -8]])
    np.testing.assert_array_equal(greatest.numpy(), [[-2, -7, 6], [-9, 5, 1], [4, -3, -8]])


def test_scatter_min_with_duplicate_indices_keeps_the_least_update():
    out = scatter_ops.tensor_scatter_nd_min(array_ops.constant([5, 5]), [[0], [0]], [3, 1])
    np.testing.assert_array_equal(out.numpy(), [1, 5])


@pytest.mark.parametrize("op", ["tensor_scatter_nd_sub", "tensor_scatter_nd_min",
                                "tensor_scatter_nd_max"])
def test_scatter_gradients_match_finite_differences(op):
    scatter = getattr(scatter_ops, op)
    tensor = np.array([[0.5, -1.0], [2.0, 0.25], [1.5, -0.5]])
    updates = np.array([[1.0, -2.0], [0.1, 3.0]])
    weights = np.arange(1.0, 7.0).reshape(3, 2)

    def loss(t, u):
        return reduction_ops.reduce_sum(scatter(t, [[0], [2]], u) * weights)

    t, u = array_ops.constant(tensor), array_ops.constant(updates)
    with GradientTape() as tape:
        tape.watch([t, u])
        value = loss(t, u)
    got = tape.gradient(value, [t, u])
    want = numeric_gradients(lambda a, b: loss(array_ops.constant(a),
                                               array_ops.constant(b)).numpy(),
                             [tensor, updates])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.numpy(), w, rtol=1e-5, atol=1e-6)
