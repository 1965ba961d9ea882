"""Facade names added for TensorFlow's guides give the same value eagerly and inside a
tf.function (converted), and TensorFlow's value (from the guides, or TensorFlow's docs)."""

import numpy as np
import pytest

import autograph.tf as tf

T14 = [[-2, -7, 0], [-9, 0, 1], [0, -3, -8]]

# name -> (function of no arguments, expected value as a nested list)
CASES = {
    "tf.tensor_scatter_nd_sub": (
        lambda: tf.tensor_scatter_nd_sub(tf.constant([[2, 7], [9, 0]]), [[0, 1], [1, 0]], [7, 9]),
        [[2, 0], [0, 0]]),
    "tf.tensor_scatter_nd_min": (
        lambda: tf.tensor_scatter_nd_min(tf.constant(T14), [[0, 2], [1, 1]], [-6, -5]),
        [[-2, -7, -6], [-9, -5, 1], [0, -3, -8]]),
    "tf.tensor_scatter_nd_max": (
        lambda: tf.tensor_scatter_nd_max(tf.constant(T14), [[0, 2], [2, 0]], [6, 4]),
        [[-2, -7, 6], [-9, 0, 1], [4, -3, -8]]),
    "tf.io.decode_raw": (lambda: tf.io.decode_raw(tf.constant("Duck"), tf.uint8),
                         [68, 117, 99, 107]),
    "tf.strings.to_hash_bucket_fast": (
        lambda: tf.strings.to_hash_bucket_fast(tf.ragged.constant([["Who", "Dan"], []]), 1000),
        [[785, 957], []]),
    "tf.nn.embedding_lookup": (
        lambda: tf.nn.embedding_lookup(tf.constant([[0, 1], [2, 3]]), [1, 1, 0]),
        [[2, 3], [2, 3], [0, 1]]),
    "tf.io.RaggedFeature": (
        lambda: tf.io.parse_example(
            [tf.train.Example(features=tf.train.Features(feature={"v": tf.train.Feature(
                int64_list=tf.train.Int64List(value=[4, 5]))})).SerializeToString()],
            {"v": tf.io.RaggedFeature(tf.int64)})["v"],
        [[4, 5]]),
    "tf.data.experimental.dense_to_ragged_batch": (
        lambda: next(iter(tf.data.Dataset.range(1, 3).map(tf.range).apply(
            tf.data.experimental.dense_to_ragged_batch(2)))),
        [[0], [0, 1]]),
    "tf.reverse (ragged)": (
        lambda: tf.reverse(tf.ragged.constant([[1, 2], [3], [4, 5, 6]]), [1]),
        [[2, 1], [3], [6, 5, 4]]),
    "tf.experimental.DynamicRaggedShape": (
        lambda: tf.zeros(tf.experimental.DynamicRaggedShape.from_lengths([2, (1, 2)]),
                         tf.int32),
        [[0], [0, 0]]),
    "tf.experimental.RowPartition": (
        lambda: tf.ones(tf.experimental.DynamicRaggedShape(
            [tf.experimental.RowPartition.from_row_lengths([2, 0])], [2]), tf.int32),
        [[1, 1], []]),
    "tf.linalg.matvec": (
        lambda: tf.linalg.matvec(tf.constant([[1, 2], [3, 4]]), tf.constant([1, 1])),
        [3, 7]),
    "tf.sparse.cross": (
        lambda: tf.sparse.to_dense(tf.sparse.cross([tf.constant([["a", "b"]]),
                                                    tf.constant([["c"]])])),
        [[b"a_X_c", b"b_X_c"]]),
    "tf.random.truncated_normal (bounded)": (
        lambda: tf.reduce_all(tf.abs(tf.random.truncated_normal([500], stddev=3.0)) <= 6.0),
        True),
}


def _value(result):
    if isinstance(result, tf.RaggedTensor):
        return result.to_list()
    return np.asarray(result).tolist()


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_same_value_eagerly_and_traced(name):
    make, expected = CASES[name]
    assert _value(make()) == expected
    assert _value(tf.function(make)()) == expected
