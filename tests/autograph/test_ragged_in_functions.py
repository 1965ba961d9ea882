"""RaggedTensors in tf.functions through the facade: RaggedTensorSpec arguments, the ragged
ops traced giving what they give eagerly, loop variables, branch results and saved models."""

import numpy as np

import autograph.tf as tf

SPEC = tf.RaggedTensorSpec(shape=[None, None], dtype=tf.int32)


def digits():
    return tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])


def ragged_ops(rt):
    return (tf.reduce_mean(rt, axis=1), tf.reduce_max(rt, axis=1),
            tf.concat([rt, rt], axis=0), tf.shape(rt)[0], rt[:, :2],
            rt + [[1], [2], [3], [4], [5]], tf.gather(rt, [2, 0]), tf.size(rt),
            tf.ragged.boolean_mask(rt, rt > 2), tf.RaggedTensor.from_row_lengths(
                rt.flat_values, rt.row_lengths()).bounding_shape(),
            rt.to_tensor(default_value=-1, shape=[6, 3]), tf.tile(rt, [2, 2]),
            tf.ragged.range(rt.row_lengths()), tf.expand_dims(rt, -1))


def _same(a, b):
    if isinstance(a, tf.RaggedTensor):
        assert a.to_list() == b.to_list()
    else:
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_ragged_ops_traced_with_a_ragged_input_signature_match_eager():
    traced = tf.function(ragged_ops, input_signature=[SPEC])
    for eager, staged in zip(ragged_ops(digits()), traced(digits())):
        _same(eager, staged)


def test_ragged_values_as_loop_variables_and_branch_results():
    @tf.function(input_signature=[SPEC])
    def f(rt):
        total = tf.zeros([], tf.int32)
        for row in rt:
            total += tf.reduce_sum(row)
        if tf.reduce_sum(rt) > 0:
            out = rt * 2
        else:
            out = rt
        i = 0
        while i < 2:
            out = out + 1
            i += 1
        return total, out

    total, out = f(digits())
    assert total.numpy() == 31
    assert out.to_list() == [[8, 4, 10, 4], [], [12, 20, 6], [14], []]


def test_a_function_with_a_ragged_signature_saves_and_loads(tmp_path):
    class Doubler(tf.Module):
        @tf.function(input_signature=[SPEC])
        def f(self, rt):
            return tf.reduce_sum(rt, axis=1), rt[:, ::-1] * 2, rt.to_tensor(shape=[2, 2])

    tf.saved_model.save(Doubler(), str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    sums, doubled, dense = loaded.f(tf.ragged.constant([[1, 2, 4], [3]]))
    assert sums.numpy().tolist() == [7, 3]
    assert doubled.to_list() == [[8, 4, 2], [6]]
    assert dense.numpy().tolist() == [[1, 2], [3, 0]]


def test_facade_names():
    names = [tf.RaggedTensor.from_value_rowids, tf.RaggedTensor.from_row_starts,
             tf.RaggedTensor.from_row_limits, tf.RaggedTensor.from_uniform_row_length,
             tf.RaggedTensor.from_nested_row_splits, tf.RaggedTensor.from_nested_row_lengths,
             tf.RaggedTensor.from_nested_value_rowids, tf.RaggedTensor.from_tensor,
             tf.RaggedTensor.from_sparse, tf.RaggedTensor.to_sparse,
             tf.RaggedTensor.bounding_shape, tf.RaggedTensor.value_rowids,
             tf.ragged.map_flat_values, tf.ragged.range, tf.ragged.boolean_mask,
             tf.ragged.stack, tf.ragged.segment_ids_to_row_splits,
             tf.ragged.row_splits_to_segment_ids]
    assert all(name.__doc__ for name in names)
