"""Gathering and scattering by index or mask (tf.gather_nd, tf.scatter_nd,
tf.tensor_scatter_nd_update/add, tf.boolean_mask): values against numpy, eagerly and
traced; gradients against finite differences; clear errors, at run time in a graph too,
and tf.gather's index out of range in the words of TensorFlow's kernel."""

import numpy as np
import pytest
from op_checks import (
    F32,
    F64,
    INTS,
    D,
    F,
    GradientOperands,
    gradients_test,
    mixed_dtypes_test,
    static_shapes_test,
    values_test,
)

import autograph.tf as tf

_operands = GradientOperands(7)
_u = _operands.uniform

VALUES = {
    # name: (function of tensors, inputs, numpy reference of the same inputs)
    "gather_nd": (lambda x: tf.gather_nd(x, [[1], [0]]), [F], lambda x: x[[1, 0]]),
    "gather_nd_elements": (lambda x: tf.gather_nd(x, [[[0, 1]], [[2, 3]]]), [F],
                           lambda x: np.array([[x[0, 1]], [x[2, 3]]])),
    "scatter_nd_duplicates_sum": (
        lambda u: tf.scatter_nd([[0, 1], [0, 1], [2, 0]], u, [3, 2]),
        [np.array([1, 2, 5], np.int32)], lambda u: np.array([[0, 3], [0, 0], [5, 0]])),
    "tensor_scatter_nd_update": (
        lambda x: tf.tensor_scatter_nd_update(x, [[1, 2]], [9]), [INTS],
        lambda x: np.where((np.arange(2)[:, None] == 1) & (np.arange(3) == 2), 9, x)),
    "tensor_scatter_nd_add": (lambda x: tf.tensor_scatter_nd_add(x, [[0], [0]], D), [D],
                              lambda x: x + np.array([[1.0], [0.0]]) * (x[0] + x[1])),
    # indices of depth 0: each index row names the whole tensor
    "gather_nd_depth_0": (lambda x: tf.gather_nd(x, tf.zeros([2, 0], tf.int32)), [F],
                          lambda x: np.stack([x, x])),
    "scatter_nd_depth_0_adds_rows": (
        lambda u: tf.scatter_nd(tf.zeros([2, 0], tf.int32), u, [3, 4]),
        [np.stack([F, 2 * F])], lambda u: u[0] + u[1]),
    "tensor_scatter_nd_update_depth_0": (
        lambda x: tf.tensor_scatter_nd_update(x, tf.zeros([2, 0], tf.int32),
                                              tf.stack([x * 2.0, x * 3.0])),
        [F], lambda x: x * 3),
    "tensor_scatter_nd_add_depth_0": (
        lambda x: tf.tensor_scatter_nd_add(x, tf.zeros([2, 0], tf.int32),
                                           tf.stack([x * 2.0, x * 3.0])),
        [F], lambda x: x + x * 2 + x * 3),
    "boolean_mask": (lambda x: tf.boolean_mask(x, x > 0), [F], lambda x: x[x > 0]),
    "boolean_mask_axis": (lambda x: tf.boolean_mask(x, [True, False, True, True], axis=1),
                          [F], lambda x: x[:, [0, 2, 3]]),
}

GRADIENTS = {
    "gather_nd": (lambda x: tf.gather_nd(x, [[1, 2], [0, 0], [1, 2]]), _u(2, 3)),
    "gather_nd_depth_0": (lambda x: tf.gather_nd(x, tf.zeros([2, 0], tf.int32)) * [1.0, 2.0, 3.0],
                          _u(2, 3)),
    "scatter_nd": (lambda u: tf.scatter_nd([[1], [3], [1]], u, [4, 2]), _u(3, 2)),
    "tensor_scatter_nd_update": (
        lambda t, u: tf.tensor_scatter_nd_update(t, [[0], [2]], u), _u(3, 2), _u(2, 2)),
    "tensor_scatter_nd_add": (
        lambda t, u: tf.tensor_scatter_nd_add(t, [[0], [0]], u), _u(3, 2), _u(2, 2)),
    "boolean_mask": (lambda x: tf.boolean_mask(x, [[True, False, True], [False, True, True]]),
                     _u(2, 3, 2)),
}

MIXED_DTYPES = {
    "tensor_scatter_nd_update": lambda: tf.tensor_scatter_nd_update(
        tf.constant(F32), [[0]], tf.constant(F64[:1])),
}


test_values_match_numpy = values_test(VALUES)
test_static_shapes_are_inferred = static_shapes_test(VALUES, ['gather_nd'])
test_gradient_matches_finite_differences = gradients_test(GRADIENTS)
test_mixed_dtypes_are_an_error_naming_the_op_and_operands = mixed_dtypes_test(
    MIXED_DTYPES)


@pytest.mark.parametrize("fn, op, pattern", [
    (lambda: tf.gather_nd(tf.constant(F32), [[2, 0]]), "GatherNd", r"indices\[0\]"),
    (lambda: tf.gather_nd(tf.constant(F32), [[-1, 0]]), "GatherNd", "does not index"),
    (lambda: tf.scatter_nd([[5]], [1.0], [3]), "ScatterNd", "does not index"),
])
def test_bad_values_raise_invalid_argument_naming_the_op(fn, op, pattern):
    with pytest.raises(tf.errors.InvalidArgumentError, match=pattern) as info:
        fn()
    assert op in str(info.value)
    assert __file__ in str(info.value)  # the user's line


@pytest.mark.parametrize("fn, error, pattern", [
    (lambda: tf.boolean_mask(tf.ones([2, 3]), [True, False, True]), ValueError, "mask"),
])
def test_bad_arguments_raise_clear_python_errors(fn, error, pattern):
    with pytest.raises(error, match=pattern):
        fn()


def test_run_time_errors_in_a_graph_are_invalid_argument():
    @tf.function(autograph=False)
    def gather(x, i):
        return tf.gather_nd(x, i)
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not index"):
        gather(tf.constant(F32), tf.constant([[0, 7]]))


_GATHER_EAGER = ("{{function_node __wrapped__GatherV2_device_/job:localhost/replica:0/task:0/"
                 "device:CPU:0}} %s [Op:GatherV2]")


@pytest.mark.parametrize("params, indices, axis, text", [
    ([0.0], [1], 0, "indices[0] = 1 is not in [0, 1)"),
    ([0.0], 1, 0, "indices = 1 is not in [0, 1)"),
    ([0.0], [[0, 0], [0, -2]], 0, "indices[1,1] = -2 is not in [0, 1)"),
    ([[0.0, 1.0]], [0, 3], -1, "indices[1] = 3 is not in [0, 2)"),
    (np.zeros([0], np.float32), [0], 0, "indices[0] = 0 is not in [0, 0)"),
])
def test_gather_out_of_range_is_tensorflows_kernel_text_eagerly_and_when_a_graph_runs(
        params, indices, axis, text):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.gather(tf.constant(params), indices, axis=axis)
    assert str(info.value).split("\n\nin user code:")[0] == _GATHER_EAGER % text
    assert __file__ in str(info.value)  # the user's line

    @tf.function(autograph=False)
    def gather(x, i):
        return tf.gather(x, i, axis=axis)
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        gather(tf.constant(params), tf.constant(indices))
    assert str(info.value).split("\n\nin user code:")[0] == (
        "graph node 'GatherV2' (GatherV2) of gather failed: " + text)
