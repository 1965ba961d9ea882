"""runtime.data: padded_batch, unbatch, apply, take_while, scan, unique, window, flat_map,
interleave, choose_from_datasets and sample_from_datasets, eagerly and in a traced Function
(one While op), with TensorFlow's orders and TensorFlow's errors."""

import numpy as np
import pytest
from dataset_values import both, eager

from runtime import data, dtypes, errors
from runtime.composite import ragged, sparse, sparse_math
from runtime.composite.sparse import SparseTensor
from runtime.function import function
from runtime.operators import loops
from runtime.ops import array_ops, concat_split_ops, math_ops, reduction_ops, reshape_ops
from runtime.ops.common import convert_to_tensor

Dataset = data.Dataset


def _rows_of_length(x):
    return array_ops.fill(convert_to_tensor([x]), x)


def test_padded_batch_pads_to_the_longest_in_each_batch():
    ds = Dataset.range(1, 5).map(_rows_of_length).padded_batch(2)
    assert both(ds) == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]
    assert ds.element_spec.shape.as_list() == [None, None]


def test_padded_batch_to_given_shapes_and_values():
    ds = Dataset.range(1, 4).map(_rows_of_length).padded_batch(
        2, padded_shapes=[4], padding_values=convert_to_tensor(np.int64(-1)),
        drop_remainder=True)
    assert both(ds) == [[[1, -1, -1, -1], [2, 2, -1, -1]]]
    assert ds.element_spec.shape.as_list() == [2, 4]


def test_padded_batch_of_strings_pads_with_empty_strings():
    ds = Dataset.from_tensor_slices(np.array([b"a", b"b", b"c"], object)).batch(1) \
        .concatenate(Dataset.from_tensor_slices([[b"d", b"e"]])).padded_batch(2)
    assert eager(ds) == [[[b"a"], [b"b"]], [[b"c", b""], [b"d", b"e"]]]


def test_padded_batch_refuses_an_element_longer_than_its_padded_shape():
    ds = Dataset.range(1, 4).map(_rows_of_length).padded_batch(3, padded_shapes=[-1])
    assert both(ds) == [[[1, 0, 0], [2, 2, 0], [3, 3, 3]]]
    too_small = Dataset.range(5, 7).map(_rows_of_length).padded_batch(2, padded_shapes=[5])
    with pytest.raises(errors.InvalidArgumentError, match="larger than its padded shape"):
        eager(too_small)
    with pytest.raises(ValueError, match="smaller than its elements' shape"):
        Dataset.from_tensor_slices(np.zeros((2, 3))).padded_batch(2, padded_shapes=[2])


def test_unbatch_splits_each_component_into_rows():
    ds = Dataset.from_tensor_slices(([[1, 2], [3, 4]], [[5, 6], [7, 8]])).unbatch()
    assert both(ds) == [(1, 5), (2, 6), (3, 7), (4, 8)]
    with pytest.raises(ValueError, match="is a scalar"):
        Dataset.range(3).unbatch()


def test_apply_calls_the_transformation_with_the_dataset():
    assert both(Dataset.range(5).apply(lambda ds: ds.skip(3))) == [3, 4]
    with pytest.raises(TypeError, match="must return a Dataset"):
        Dataset.range(5).apply(lambda ds: 3)


def test_take_while_stops_at_the_first_false():
    assert both(Dataset.from_tensor_slices([1, 2, 5, 1]).take_while(lambda x: x < 3)) == [1, 2]


def test_scan_carries_a_state_and_yields_the_outputs():
    ds = Dataset.range(5).scan(convert_to_tensor(np.int64(0)), lambda s, x: (s + x, s * 10))
    assert both(ds) == [0, 0, 10, 30, 60]


def test_scan_relaxes_a_state_whose_shape_grows():
    def grow(s, x):
        return concat_split_ops.concat([s, reshape_ops.reshape(x, [1])], 0), \
            reduction_ops.reduce_sum(s)
    ds = Dataset.range(4).scan(convert_to_tensor(np.zeros([0], np.int64)), grow)
    assert both(ds) == [0, 0, 1, 3]


def test_unique_keeps_first_occurrences_in_order():
    assert both(Dataset.from_tensor_slices([1, 2, 1, 3, 2]).unique()) == [1, 2, 3]
    strings = Dataset.from_tensor_slices(np.array([b"b", b"a", b"b"], object)).unique()
    assert eager(strings) == [b"b", b"a"]
    with pytest.raises(TypeError, match="does not support type float32"):
        Dataset.from_tensor_slices([1.0]).unique()


def test_window_flat_map_batches_each_window():
    windows = Dataset.range(7).window(3, shift=2)
    assert both(windows.flat_map(lambda w: w.batch(3))) == [[0, 1, 2], [2, 3, 4], [4, 5, 6],
                                                            [6]]
    dropped = Dataset.range(7).window(3, shift=2, drop_remainder=True)
    assert both(dropped.flat_map(lambda w: w.batch(3))) == [[0, 1, 2], [2, 3, 4], [4, 5, 6]]
    assert dropped.cardinality().numpy() == 3


def test_window_with_a_stride():
    ds = Dataset.range(7).window(2, shift=1, stride=3, drop_remainder=True)
    assert both(ds.flat_map(lambda w: w.batch(2))) == [[0, 3], [1, 4], [2, 5], [3, 6]]


def test_window_elements_are_datasets_eagerly():
    windows = Dataset.from_tensor_slices(([1, 2, 3], [4, 5, 6])).window(2)
    values = [(eager(a), eager(b)) for a, b in windows]
    assert values == [([1, 2], [4, 5]), ([3], [6])]
    zipped = windows.flat_map(lambda a, b: Dataset.zip((a.batch(2), b.batch(2))))
    assert both(zipped) == [([1, 2], [4, 5]), ([3], [6])]


def test_windows_are_refused_in_a_graph_loop():
    @function
    def run():
        loops.for_stmt(Dataset.range(4).window(2), None, lambda w: None)
    with pytest.raises(TypeError, match="can be iterated only eagerly"):
        run()


def test_flat_map_chains_the_returned_datasets():
    assert both(Dataset.range(4).flat_map(lambda x: Dataset.range(x))) == [0, 0, 1, 0, 1, 2]
    with pytest.raises(TypeError, match="must return a Dataset"):
        Dataset.range(3).flat_map(lambda x: x)


def test_interleave_order_is_tensorflows():
    ds = Dataset.range(1, 6).interleave(lambda x: Dataset.from_tensors(x).repeat(6),
                                        cycle_length=2, block_length=4)
    assert both(ds) == [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 3, 3, 4,
                        4, 5, 5, 5, 5, 5, 5]


def test_interleave_of_datasets_of_different_lengths():
    ds = Dataset.range(1, 4).interleave(lambda x: Dataset.range(x), cycle_length=2)
    assert both(ds) == [0, 0, 1, 0, 1, 2]


def test_choose_from_datasets_follows_the_choices():
    choices = Dataset.from_tensor_slices(np.array([0, 1, 1, 0], np.int64))
    ds = Dataset.choose_from_datasets([Dataset.range(3), Dataset.range(10, 13)], choices)
    assert both(ds) == [0, 10, 11, 1]
    bad = Dataset.choose_from_datasets([Dataset.range(3)],
                                       Dataset.from_tensor_slices(np.array([2], np.int64)))
    with pytest.raises(errors.InvalidArgumentError, match="selected index 2 is out of range"):
        eager(bad)
    with pytest.raises(TypeError, match="scalar int64"):
        Dataset.choose_from_datasets([Dataset.range(3)], Dataset.range(2).map(
            lambda x: array_ops.cast_to_int32(x)))


def test_choose_from_datasets_stops_or_skips_at_an_empty_dataset():
    choices = Dataset.from_tensor_slices(np.array([0, 0, 1, 0], np.int64))
    sources = [Dataset.range(1), Dataset.range(10, 12)]
    assert eager(Dataset.choose_from_datasets(sources, choices)) == [0]
    assert eager(Dataset.choose_from_datasets(sources, choices,
                                              stop_on_empty_dataset=False)) == [0, 10]


def test_sample_from_datasets_is_seeded_and_uses_every_element():
    sources = [Dataset.range(3), Dataset.range(10, 13)]
    ds = Dataset.sample_from_datasets(sources, weights=[0.5, 0.5], seed=3)
    first = eager(ds)
    assert sorted(first) == [0, 1, 2, 10, 11, 12]
    assert eager(Dataset.sample_from_datasets(sources, weights=[0.5, 0.5], seed=3)) == first
    only_second = Dataset.sample_from_datasets(sources, weights=[0.0, 1.0], seed=1)
    assert eager(only_second) == [10, 11, 12]
    with pytest.raises(TypeError, match="same element structure"):
        Dataset.sample_from_datasets([Dataset.range(2), Dataset.from_tensor_slices([1.0])])


def test_a_window_function_reads_a_tensor_of_the_enclosing_function():
    @function
    def total(scale):
        ds = Dataset.range(4).window(2).flat_map(lambda w: w.map(lambda x: x * scale))
        s = [convert_to_tensor(np.int64(0))]

        def body(x):
            s[0] = s[0] + x
        loops.for_stmt(ds, None, body, lambda: (s[0],), lambda v: s.__setitem__(0, v[0]),
                       ("s",))
        return s[0]
    assert total(convert_to_tensor(np.int64(3))).numpy() == 18
    assert dtypes.int64 is total(convert_to_tensor(np.int64(1))).dtype


def test_group_by_window_order_is_tensorflows():
    ds = Dataset.range(10).group_by_window(key_func=lambda x: x % 2,
                                           reduce_func=lambda k, w: w.batch(3), window_size=3)
    assert both(ds) == [[0, 2, 4], [1, 3, 5], [6, 8], [7, 9]]
    sized = Dataset.range(10).group_by_window(lambda x: x % 3, lambda k, w: w.batch(10),
                                              window_size_func=lambda k: k + 1)
    assert both(sized) == [[0], [3], [1, 4], [6], [2, 5, 8], [9], [7]]
    with pytest.raises(ValueError, match="exactly one of window_size and window_size_func"):
        Dataset.range(3).group_by_window(lambda x: x, lambda k, w: w)
    with pytest.raises(ValueError, match="scalar int64"):
        Dataset.range(3).group_by_window(lambda x: x > 1, lambda k, w: w, window_size=2)


def test_bucket_by_sequence_length_as_tensorflows_example():
    elements = [[0], [1, 2, 3, 4], [5, 6, 7], [7, 8, 9, 10, 11], [13, 14, 15, 16, 19, 20],
                [21, 22]]
    ds = Dataset.from_generator(lambda: elements, dtypes.int64, output_shapes=[None])
    ds = ds.bucket_by_sequence_length(
        element_length_func=lambda elem: array_ops.shape(elem)[0], bucket_boundaries=[3, 5],
        bucket_batch_sizes=[2, 2, 2])
    assert both(ds) == [[[1, 2, 3, 4], [5, 6, 7, 0]],
                        [[7, 8, 9, 10, 11, 0], [13, 14, 15, 16, 19, 20]], [[0, 0], [21, 22]]]
    with pytest.raises(ValueError, match="must equal len\\(bucket_boundaries\\) \\+ 1"):
        Dataset.range(3).bucket_by_sequence_length(lambda x: x, [3], [1])


def _sparse():
    return SparseTensor([[0, 1], [2, 0]], np.array([1.0, 2.0], np.float32), [3, 2])


def _ragged():
    return ragged.constant([[1, 2], [3], []])


def _plain(value):
    if hasattr(value, "to_list"):
        return value.to_list()
    if hasattr(value, "indices"):
        return sparse.to_dense(value).numpy().tolist()
    return value.numpy().tolist()


def test_from_tensors_of_sparse_and_ragged_values():
    ds = Dataset.from_tensors((_ragged(), _sparse()))
    assert [(_plain(a), _plain(b)) for a, b in ds] == [
        ([[1, 2], [3], []], [[0.0, 1.0], [0.0, 0.0], [2.0, 0.0]])]
    doubled = Dataset.from_tensors(_ragged()).map(lambda r: r * 2)
    assert [_plain(r) for r in doubled] == [[[2, 4], [6], []]]


def test_from_tensor_slices_of_ragged_rows_and_sparse_rows():
    ds = Dataset.from_tensor_slices((_ragged(), _sparse()))
    assert [(_plain(a), _plain(b)) for a, b in ds] == [([1, 2], [0.0, 1.0]), ([3], [0.0, 0.0]),
                                                       ([], [2.0, 0.0])]
    assert ds.element_spec[0].shape.as_list() == [None]

    @function
    def total(dataset):
        s = [convert_to_tensor(np.float32(0))]

        def body(element):
            a, b = element
            s[0] = s[0] + math_ops.cast(reduction_ops.reduce_sum(a), dtypes.float32) + \
                sparse_math.reduce_sum(b)
        loops.for_stmt(dataset, None, body, lambda: (s[0],), lambda v: s.__setitem__(0, v[0]),
                       ("s",))
        return s[0]
    assert total(ds).numpy() == 9.0


ROWS = [[1, 2], [3], [], [4, 5, 6]]


def test_ragged_slices_are_rows_with_tensorflows_ragged_rank_0_spec():
    ds = Dataset.from_tensor_slices(ragged.constant(ROWS))
    assert repr(ds.element_spec) == "RaggedTensorSpec(TensorShape([None]), tf.int32, 0, tf.int64)"
    assert eager(ds) == ROWS
    nested = Dataset.from_tensor_slices(ragged.constant([[[1, 2], [3]], [[4]], []]))
    assert nested.element_spec.ragged_rank == 1
    assert [_plain(r) for r in nested] == [[[1, 2], [3]], [[4]], []]


def test_batching_ragged_elements_adds_a_ragged_dimension_and_unbatch_removes_it():
    ds = Dataset.from_tensor_slices({"a": ragged.constant(ROWS), "b": [1, 2, 3, 4]})
    batched = ds.batch(2)
    assert batched.element_spec["a"].ragged_rank == 1
    assert [_plain(e["a"]) for e in batched] == [[[1, 2], [3]], [[], [4, 5, 6]]]
    twice = batched.batch(2)
    assert [_plain(e["a"]) for e in twice] == [[[[1, 2], [3]], [[], [4, 5, 6]]]]
    assert [_plain(e["a"]) for e in twice.unbatch()] == [[[1, 2], [3]], [[], [4, 5, 6]]]
    assert [(_plain(e["a"]), int(e["b"])) for e in batched.unbatch()] == list(
        zip(ROWS, [1, 2, 3, 4]))
    # traced: the functions of map see the batch as a RaggedTensor
    sums = batched.map(lambda e: reduction_ops.reduce_sum(e["a"], axis=1) + e["b"])
    assert both(sums) == [[4, 5], [3, 19]]


def test_dense_to_ragged_batch_applies_ragged_batch():
    ds = Dataset.range(1, 4).map(lambda x: array_ops.range(x))
    batched = ds.apply(data.dense_to_ragged_batch(2))
    assert [_plain(r) for r in batched] == [[[0], [0, 1]], [[0, 1, 2]]]


def test_ragged_batch_makes_ragged_tensors():
    ds = Dataset.range(1, 5).map(lambda x: array_ops.range(x)).ragged_batch(2)
    assert [_plain(r) for r in ds] == [[[0], [0, 1]], [[0, 1, 2], [0, 1, 2, 3]]]
    assert ds.element_spec.shape.as_list() == [None, None]
    assert both(Dataset.range(1, 4).map(lambda x: array_ops.range(x)).ragged_batch(3).map(
        lambda r: reduction_ops.reduce_sum(r.values))) == [4]
