"""TensorFlow ops on RaggedTensor operands, dispatched as TensorFlow's ragged dispatch does
(the ragged tensor guide's values): elementwise ops with ragged and dense broadcasting,
reductions over any axis, concat, stack, gather, boolean_mask, where, shape, size and rank;
the tf.ragged functions; gradients through the values."""

import numpy as np
import pytest

from runtime import dtypes, errors
from runtime.composite import ragged_functions as rf
from runtime.composite.ragged import RaggedTensor, constant
from runtime.function import function
from runtime.gradients import GradientTape
from runtime.ops import (
    array_ops,
    common,
    concat_split_ops,
    layout_ops,
    math_ops,
    nn_ops,
    reduction_ops,
    reshape_ops,
    scatter_ops,
    selection_ops,
    string_ops,
)
from runtime.variables import Variable

DIGITS = [[3, 1, 4, 1], [], [5, 9, 2], [6], []]


def test_dense_operands_broadcast_across_ragged_dimensions():
    rt = constant(DIGITS)
    assert (rt + [[1000], [2000], [3000], [4000], [5000]]).to_list() == [
        [1003, 1001, 1004, 1001], [], [3005, 3009, 3002], [4006], []]
    assert (rt * [[2]]).to_list() == [[6, 2, 8, 2], [], [10, 18, 4], [12], []]
    nested = constant([[[1, 2], [3]], [[4, 5, 6]]])
    assert (nested + [[[10]], [[20]]]).to_list() == [[[11, 12], [13]], [[24, 25, 26]]]
    with pytest.raises(errors.InvalidArgumentError, match="Condition x == y did not hold"):
        rt + [[1, 2]]
    mismatch = constant([[1, 2], [3, 4, 5, 6], [7]])
    with pytest.raises(errors.InvalidArgumentError) as raised:
        mismatch + np.arange(12).reshape(3, 4)
    # TensorFlow 2.21's words: its check that the dense rows' splits equal the ragged ones
    assert str(raised.value).startswith(
        "Condition x == y did not hold.\nIndices of first 3 different values:\n[[1]\n [2]\n [3]]"
        "\nCorresponding x values:\n[ 4  8 12]\nCorresponding y values:\n[2 6 7]\n"
        "First 3 elements of x:\n[0 4 8]\nFirst 3 elements of y:\n[0 2 6]")


def test_reductions_over_each_axis():
    rt = constant(DIGITS)
    mean = reduction_ops.reduce_mean(rt, axis=1).numpy()
    assert mean.dtype == np.float64
    np.testing.assert_allclose(mean, [2.25, np.nan, 16 / 3, 6.0, np.nan])
    assert reduction_ops.reduce_max(rt, axis=1).numpy().tolist() == [
        4, -2147483648, 9, 6, -2147483648]
    assert reduction_ops.reduce_sum(rt, axis=0).numpy().tolist() == [14, 10, 6, 1]
    assert reduction_ops.reduce_min(rt, axis=-1).numpy().tolist()[0] == 1
    assert reduction_ops.reduce_sum(rt).numpy() == 31
    nested = constant([[[1, 2], [3]], [[4, 5, 6]]])
    assert reduction_ops.reduce_sum(nested, axis=2).to_list() == [[3, 3], [15]]
    assert reduction_ops.reduce_sum(nested, axis=1).to_list() == [[4, 2], [4, 5, 6]]
    assert reduction_ops.reduce_sum(nested, axis=[1, 2]).numpy().tolist() == [6, 15]
    deep = constant([[[1, 2], [3]], [[4, 5, 6]], [], [[7], [], [8]]])
    assert reduction_ops.reduce_sum(deep, axis=0).to_list() == [[12, 7, 6], [3], [8]]
    assert reduction_ops.reduce_sum(deep, axis=1).to_list() == [[4, 2], [4, 5, 6], [], [15]]
    assert reduction_ops.reduce_max(deep, axis=[0, 2]).numpy().tolist() == [7, 3, 8]
    kept = reduction_ops.reduce_sum(rt, axis=1, keepdims=True)
    assert kept.numpy().tolist() == [[9], [0], [16], [6], [0]]
    kept = reduction_ops.reduce_sum(nested, axis=2, keepdims=True)
    assert kept.to_list() == [[[3], [3]], [[15]]]
    assert reduction_ops.reduce_sum(rt, keepdims=True).numpy().tolist() == [[31]]
    flags = constant([[True, False], []])
    assert reduction_ops.reduce_any(flags, axis=1).numpy().tolist() == [True, False]
    assert reduction_ops.reduce_all(flags, axis=1).numpy().tolist() == [False, True]


def test_concat_and_stack():
    rt = constant(DIGITS)
    assert concat_split_ops.concat([rt, [[5, 3]]], axis=0).to_list() == DIGITS + [[5, 3]]
    assert concat_split_ops.concat([rt, rt], axis=1).to_list() == [
        [3, 1, 4, 1, 3, 1, 4, 1], [], [5, 9, 2, 5, 9, 2], [6, 6], []]
    assert common.stack([rt, rt]).to_list() == [DIGITS, DIGITS]
    assert common.stack([rt[:2], rt[2:4]], axis=1).to_list() == [
        [[3, 1, 4, 1], [5, 9, 2]], [[], [6]]]
    assert rf.stack([[[1]], [[2]]]).to_list() == [[[1]], [[2]]]
    with pytest.raises(errors.InvalidArgumentError, match="rows"):
        concat_split_ops.concat([rt, rt[:2]], axis=1)
    with pytest.raises(TypeError, match="same dtype"):
        concat_split_ops.concat([rt, constant([[1.5]])], axis=0)


def test_gather_boolean_mask_and_where():
    rt = constant(DIGITS)
    assert selection_ops.gather(rt, [2, 0]).to_list() == [[5, 9, 2], [3, 1, 4, 1]]
    assert selection_ops.gather(rt, 3).numpy().tolist() == [6]
    assert scatter_ops.boolean_mask(rt, [True, False, True, False, False]).to_list() == [
        [3, 1, 4, 1], [5, 9, 2]]
    assert rf.boolean_mask(rt, rt > 2).to_list() == [[3, 4], [], [5, 9], [6], []]
    flags = constant([[True, False, True], [False, True]])
    assert selection_ops.where(flags).numpy().tolist() == [[0, 0], [0, 2], [1, 1]]
    assert selection_ops.where(rt > 2, rt, -rt).to_list() == [
        [3, -1, 4, -1], [], [5, 9, -2], [6], []]


def test_shape_size_and_rank():
    rt = constant(DIGITS)
    shape = array_ops.shape(rt)
    assert repr(shape) == "<DynamicRaggedShape lengths=[5, (4, 0, 3, 1, 0)] " \
                          "num_row_partitions=1>"
    assert shape[0].numpy() == 5 and shape.rank == 2
    with pytest.raises(ValueError, match="not uniform"):
        shape[1]
    assert array_ops.size(rt).numpy() == 8
    assert array_ops.rank(rt).numpy() == 2


def test_tf_ragged_functions():
    assert rf.range([3, 5, 2]).to_list() == [[0, 1, 2], [0, 1, 2, 3, 4], [0, 1]]
    assert rf.range([0, 5], [4, 8], 2).to_list() == [[0, 2], [5, 7]]
    assert rf.range(2, dtype=dtypes.float32).dtype is dtypes.float32
    rt = constant(DIGITS)
    assert rf.map_flat_values(math_ops.multiply, rt, 10).to_list()[0] == [30, 10, 40, 10]
    assert rf.segment_ids_to_row_splits([0, 0, 2]).numpy().tolist() == [0, 2, 2, 3]
    assert rf.segment_ids_to_row_splits([2, 0, 0], num_segments=4).numpy().tolist() == [
        0, 2, 2, 3, 3]
    assert rf.row_splits_to_segment_ids([0, 2, 2, 3]).numpy().tolist() == [0, 0, 2]
    with pytest.raises(errors.InvalidArgumentError, match="delta != 0"):
        rf.range([1], [2], 0)


def test_gradients_flow_through_reductions_and_indexing():
    v = Variable(np.array([1.0, 2.0, 3.0], np.float32))
    with GradientTape() as tape:
        rt = RaggedTensor.from_row_lengths(v * 1.0, [2, 1])
        loss = reduction_ops.reduce_sum(reduction_ops.reduce_sum(rt, axis=1) * [1.0, 10.0]) \
            + reduction_ops.reduce_sum(rt[:, :1].flat_values)
    assert tape.gradient(loss, v).numpy().tolist() == [2.0, 1.0, 11.0]


def test_tile_and_expand_dims():
    rt = constant(DIGITS)
    assert concat_split_ops.tile(rt, [1, 2]).to_list() == [
        [3, 1, 4, 1, 3, 1, 4, 1], [], [5, 9, 2, 5, 9, 2], [6, 6], []]
    assert concat_split_ops.tile(rt[:2], [2, 1]).to_list() == [[3, 1, 4, 1], [], [3, 1, 4, 1],
                                                               []]
    small = constant([[1.0, -2.0], [3.0]])
    assert reshape_ops.expand_dims(small, 0).to_list() == [[[1.0, -2.0], [3.0]]]
    assert reshape_ops.expand_dims(small, 1).to_list() == [[[1.0, -2.0]], [[3.0]]]
    expanded = reshape_ops.expand_dims(small, -1)
    assert expanded.shape.as_list() == [2, None, 1]
    assert expanded.to_list() == [[[1.0], [-2.0]], [[3.0]]]


def test_other_elementwise_apis_and_logical_operators():
    rt = constant([[1.0, -2.0], [3.0]])
    assert nn_ops.relu6(rt).to_list() == [[1.0, 0.0], [3.0]]
    assert array_ops.ones_like(rt).to_list() == [[1.0, 1.0], [1.0]]
    assert array_ops.zeros_like(rt, dtype=dtypes.int32).to_list() == [[0, 0], [0]]
    assert array_ops.identity(rt).to_list() == rt.to_list()
    assert math_ops.clip_by_value(rt, 0.0, 1.0).to_list() == [[1.0, 0.0], [1.0]]
    assert math_ops.add_n([rt, rt, rt]).to_list() == [[3.0, -6.0], [9.0]]
    positive = rt > 0
    assert (~positive).to_list() == [[False, True], [False]]
    assert (positive & (rt < 2)).to_list() == [[True, False], [False]]
    assert (positive | (rt < 0)).to_list() == [[True, True], [True]]
    assert (positive ^ positive).to_list() == [[False, False], [False]]


def test_differently_partitioned_operands_raise_tensorflows_error():
    a, b = constant([[1, 2], [3]]), constant([[1], [2, 3]])
    with pytest.raises(errors.InvalidArgumentError) as raised:
        a + b
    assert str(raised.value) == (  # TensorFlow 2.21's assert_equal of the two row splits
        "Condition x == y did not hold.\nIndices of first 1 different values:\n[[1]]\n"
        "Corresponding x values:\n[2]\nCorresponding y values:\n[1]\n"
        "First 3 elements of x:\n[0 2 3]\nFirst 3 elements of y:\n[0 1 3]")
    with pytest.raises(errors.InvalidArgumentError, match="identical ragged splits"):
        rf.boolean_mask(a, constant([[True, False, True]]))


def test_gradients_of_max_min_and_prod_over_ragged_rows():
    v = Variable(np.array([1.0, 3.0, 3.0, 2.0, 0.0, 5.0], np.float32))
    with GradientTape(persistent=True) as tape:
        rt = RaggedTensor.from_row_lengths(v * 1.0, [3, 0, 1, 2])
        largest = reduction_ops.reduce_sum(
            reduction_ops.reduce_max(rt, axis=1) * [1.0, 1.0, 1.0, 10.0])
        product = reduction_ops.reduce_sum(reduction_ops.reduce_prod(rt, axis=1))
        smallest = reduction_ops.reduce_sum(reduction_ops.reduce_min(rt, axis=0))
    assert tape.gradient(largest, v).numpy().tolist() == [0.0, 0.5, 0.5, 1.0, 0.0, 10.0]
    assert tape.gradient(product, v).numpy().tolist() == [9.0, 3.0, 3.0, 1.0, 5.0, 0.0]
    assert tape.gradient(smallest, v).numpy().tolist() == [0.0, 1.0, 1.0, 0.0, 1.0, 0.0]


WORDS = [["So", "long"], ["thanks", "for", "all", "the", "fish"]]


@pytest.mark.parametrize("traced", [False, True])
def test_elementwise_string_ops_map_a_ragged_tensors_values(traced):
    def prefixes(words):
        return string_ops.upper(string_ops.substr(words, 0, 2))
    run = function(prefixes) if traced else prefixes
    assert run(constant(WORDS)).to_list() == [[b"SO", b"LO"],
                                               [b"TH", b"FO", b"AL", b"TH", b"FI"]]


def test_strings_join_pairs_ragged_values_and_broadcasts_a_scalar():
    words = constant(WORDS)
    joined = string_ops.join([words, "!", words], separator="+")
    assert joined.to_list()[0] == [b"So+!+So", b"long+!+long"]


def test_gather_with_ragged_indices_keeps_their_rows():
    table = array_ops.constant([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    out = selection_ops.embedding_lookup(table, constant([[2, 0], [], [1]]))
    assert out.to_list() == [[[4.0, 5.0], [0.0, 1.0]], [], [[2.0, 3.0]]]


@pytest.mark.parametrize("axis, expected", [
    ([0], [[[5, 6]], [], [[1, 2], [3, 4]]]),
    ([1], [[[3, 4], [1, 2]], [], [[5, 6]]]),
    ([-1], [[[2, 1], [4, 3]], [], [[6, 5]]]),
    ([0, 1, 2], [[[6, 5]], [], [[4, 3], [2, 1]]]),
])
@pytest.mark.parametrize("traced", [False, True])
def test_reverse_of_a_ragged_tensor_along_rows_values_and_inner_axes(axis, expected, traced):
    rt = constant([[[1, 2], [3, 4]], [], [[5, 6]]], ragged_rank=1)
    run = function(lambda r: layout_ops.reverse(r, axis)) if traced else \
        (lambda r: layout_ops.reverse(r, axis))
    assert run(rt).to_list() == expected


@pytest.mark.parametrize("traced", [False, True])
def test_ragged_equality_is_elementwise_as_tensorflows(traced):
    def compare(a, b):
        return a == b, a != b, a == 1
    run = function(compare) if traced else compare
    same, differ, to_one = run(constant([[1, 2], [3]]), constant([[1, 5], [3]]))
    assert same.to_list() == [[True, False], [True]]
    assert differ.to_list() == [[False, True], [False]]
    assert to_one.to_list() == [[True, False], [False]]


def test_ragged_equality_with_none_is_pythons_and_identity_hashes():
    rt = constant([[1]])
    assert (rt == None) is False and (rt != None) is True  # noqa: E711 - the operator itself
    assert {rt: 1}[rt] == 1


@pytest.mark.parametrize("traced", [False, True])
def test_gather_along_the_ragged_axis_takes_from_each_row(traced):
    def take(rt):
        return (selection_ops.gather(rt, [0, 1], axis=1),
                selection_ops.gather(rt, [[1], [0]], axis=-1))
    run = function(take) if traced else take
    pairs, nested = run(constant([[1, 2, 3], [4, 5], [6, 7, 8, 9]]))
    assert pairs.numpy().tolist() == [[1, 2], [4, 5], [6, 7]]  # as TensorFlow's
    assert nested.numpy().tolist() == [[[2], [1]], [[5], [4]], [[7], [6]]]


def test_gather_past_the_end_of_a_row_is_an_error_not_the_next_rows_value():
    with pytest.raises(errors.InvalidArgumentError, match="past the end of a row"):
        selection_ops.gather(constant([[1, 2, 3], [4, 5]]), [2], axis=1)


def test_gather_along_a_uniform_inner_axis_keeps_the_rows():
    rt = constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    assert selection_ops.gather(rt, [1], axis=2).to_list() == [[[2], [4]], [[6]]]
