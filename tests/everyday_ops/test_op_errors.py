"""Bad input to the new ops: clear errors naming the op and the operands' shapes and dtypes
(InvalidArgumentError eagerly; TypeError or ValueError while tracing), never a wrong value.
TensorFlow does not promote mixed dtypes, and neither do these ops."""

import numpy as np
import pytest

import autograph.tf as tf

F32 = np.ones((2, 3), np.float32)
F64 = np.ones((3, 3), np.float64)


def _traced(fn):
    return tf.function(fn, autograph=False)


MIXED_DTYPES = {
    "einsum": lambda: tf.einsum("ij,jk->ik", tf.constant(F32), tf.constant(F64)),
    "solve": lambda: tf.linalg.solve(tf.constant(F64), tf.constant(F32.T)),
    "conv2d": lambda: tf.nn.conv2d(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1, 1], tf.float64),
                                   1, "SAME"),
    "tensor_scatter_nd_update": lambda: tf.tensor_scatter_nd_update(
        tf.constant(F32), [[0]], tf.constant(F64[:1])),
    "linspace": lambda: tf.linspace(tf.constant(1.0), tf.constant(2.0, tf.float64), 3),
    "pad": lambda: tf.pad(tf.constant(F32), [[1, 1], [0, 0]],
                          constant_values=tf.constant(1.0, tf.float64)),
}


@pytest.mark.parametrize("name", sorted(MIXED_DTYPES))
def test_mixed_dtypes_are_an_error_naming_the_op_and_operands(name):
    with pytest.raises((tf.errors.InvalidArgumentError, TypeError)) as info:
        MIXED_DTYPES[name]()
    text = str(info.value)
    assert "float32" in text and "float64" in text


@pytest.mark.parametrize("fn, op, pattern", [
    (lambda: tf.linalg.inv(tf.zeros([2, 2])), "MatrixInverse", "not invertible"),
    (lambda: tf.gather_nd(tf.constant(F32), [[2, 0]]), "GatherNd", r"indices\[0\]"),
    (lambda: tf.gather_nd(tf.constant(F32), [[-1, 0]]), "GatherNd", "does not index"),
    (lambda: tf.scatter_nd([[5]], [1.0], [3]), "ScatterNd", "does not index"),
    (lambda: tf.nn.sparse_softmax_cross_entropy_with_logits([3], [[1.0, 2.0]]),
     "SparseSoftmaxCrossEntropyWithLogits", "outside the valid range"),
    (lambda: tf.math.segment_sum([1.0, 2.0], [1, 0]), "SegmentSum", "sorted"),
    (lambda: tf.math.unsorted_segment_sum([1.0, 2.0], [0, 4], 2), "UnsortedSegmentSum",
     "num_segments"),
    (lambda: tf.pad(tf.constant(F32), [[2, 2], [0, 0]], "REFLECT"), "PadV2", "REFLECT"),
    (lambda: tf.math.top_k([1.0, 2.0], 3), "TopKV2", "larger than"),
    (lambda: tf.linalg.det(tf.constant(F32)), "MatrixDeterminant", "square"),
    (lambda: tf.nn.elu(tf.constant([1, 2])), "Elu", "int32"),
    (lambda: tf.split(tf.constant(F32), [1, 1], axis=1), "SplitV", "do not add up"),
    (lambda: tf.strings.join([tf.constant([1])]), "StringJoin", "int32"),
])
def test_bad_values_raise_invalid_argument_naming_the_op(fn, op, pattern):
    with pytest.raises(tf.errors.InvalidArgumentError, match=pattern) as info:
        fn()
    assert op in str(info.value)
    assert __file__ in str(info.value)  # the user's line


def test_shape_errors_while_tracing_name_the_op():
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)], autograph=False)
    def bad(x):
        return tf.einsum("ij,jk->ik", x, tf.ones([4, 2]))
    with pytest.raises(ValueError, match="Einsum.*dimension 'j'"):
        bad.get_concrete_function()


def test_run_time_errors_in_a_graph_are_invalid_argument():
    @tf.function(autograph=False)
    def gather(x, i):
        return tf.gather_nd(x, i)
    with pytest.raises(tf.errors.InvalidArgumentError, match="does not index"):
        gather(tf.constant(F32), tf.constant([[0, 7]]))


@pytest.mark.parametrize("fn, error, pattern", [
    (lambda: tf.split(tf.ones([3, 4]), 3, axis=1), ValueError, "not divisible"),
    (lambda: tf.pad(tf.ones([2]), [[1, 1]], "WRAP"), ValueError, "CONSTANT, REFLECT"),
    (lambda: tf.sort(tf.constant(["b", "a"])), TypeError, "cannot be sorted"),
    (lambda: tf.sequence_mask([1.5]), TypeError, "integers"),
    (lambda: tf.einsum("ij,jk->iz", tf.ones([2, 2]), tf.ones([2, 2])), ValueError, "'z'"),
    (lambda: tf.nn.conv2d(tf.ones([1, 3, 3, 1]), tf.ones([1, 1, 1, 1]), 1, "FULL"),
     ValueError, "SAME"),
    (lambda: tf.nn.conv2d(tf.ones([1, 3, 3, 1]), tf.ones([1, 1, 1, 1]), 1, "SAME",
                          data_format="NCHW"), ValueError, "NCHW"),
    (lambda: tf.nn.dropout(tf.ones([2]), 1.5), ValueError, "rate"),
    (lambda: tf.boolean_mask(tf.ones([2, 3]), [True, False, True]), ValueError, "mask"),
    (lambda: tf.random.stateless_uniform([2], [1, 2], dtype=tf.int32), ValueError, "maxval"),
])
def test_bad_arguments_raise_clear_python_errors(fn, error, pattern):
    with pytest.raises(error, match=pattern):
        fn()


def test_unknown_dimensions_trace_and_run():
    """Ops traced with unknown dimensions infer what they can and compute the right values."""
    @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32)], autograph=False)
    def f(x):
        parts = tf.split(x, [1, -1], axis=0)
        return (tf.pad(parts[1], [[1, 0], [0, 2]]), tf.sort(x, axis=0),
                tf.boolean_mask(x, x > 0), tf.reduce_logsumexp(x, axis=1),
                tf.einsum("ij->j", x), tf.roll(x, 1, 0), tf.meshgrid(x[0], x[:, 0]))
    x = np.arange(6, dtype=np.float32).reshape(3, 2) - 2
    padded, ordered, masked, lse, colsum, rolled, grids = f(tf.constant(x))
    np.testing.assert_array_equal(padded.numpy(), np.pad(x[1:], [[1, 0], [0, 2]]))
    np.testing.assert_array_equal(ordered.numpy(), np.sort(x, axis=0))
    np.testing.assert_array_equal(masked.numpy(), x[x > 0])
    np.testing.assert_allclose(lse.numpy(), np.log(np.exp(x).sum(1)), rtol=1e-6)
    np.testing.assert_array_equal(colsum.numpy(), x.sum(0))
    np.testing.assert_array_equal(rolled.numpy(), np.roll(x, 1, 0))
    np.testing.assert_array_equal(grids[1].numpy(), np.meshgrid(x[0], x[:, 0])[1])
