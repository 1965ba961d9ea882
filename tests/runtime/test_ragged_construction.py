"""RaggedTensor constructors, partition properties, conversions and printing, against the
values TensorFlow documents for them."""

import numpy as np
import pytest

from runtime import errors
from runtime.composite.ragged import RaggedTensor, constant
from runtime.composite.sparse import SparseTensor
from runtime.ops import array_ops

VALUES = [3, 1, 4, 1, 5, 9, 2]


def test_from_value_rowids_starts_and_limits_agree():
    expected = [[3, 1, 4, 1], [], [5, 9], [2]]
    assert RaggedTensor.from_value_rowids(VALUES, [0, 0, 0, 0, 2, 2, 3]).to_list() == expected
    assert RaggedTensor.from_row_starts(VALUES, [0, 4, 4, 6]).to_list() == expected
    assert RaggedTensor.from_row_limits(VALUES, [4, 4, 6, 7]).to_list() == expected
    padded = RaggedTensor.from_value_rowids(VALUES, [0, 0, 0, 0, 2, 2, 3], nrows=5)
    assert padded.to_list() == expected + [[]]


def test_invalid_partitions_raise_tensorflows_messages():
    with pytest.raises(errors.InvalidArgumentError, match="Arguments to from_value_rowids do "
                                                          "not form a valid RaggedTensor"):
        RaggedTensor.from_value_rowids([1, 2], [1, 0])
    with pytest.raises(errors.InvalidArgumentError, match="Arguments to from_row_splits do "
                                                          "not form a valid RaggedTensor:zero"):
        RaggedTensor.from_row_splits([1, 2], [1, 2])
    with pytest.raises(errors.InvalidArgumentError, match="valid RaggedTensor:monotonic"):
        RaggedTensor.from_row_splits([1, 2], [0, 2, 1, 2])


def test_from_uniform_row_length_has_a_uniform_dimension():
    rt = RaggedTensor.from_uniform_row_length(VALUES + [6], 2)
    assert rt.shape.as_list() == [4, 2]
    assert rt.uniform_row_length.numpy() == 2
    assert rt.to_list() == [[3, 1], [4, 1], [5, 9], [2, 6]]


def test_nested_constructors_build_ragged_rank_two():
    flat = [3, 1, 4, 1, 5, 9, 2, 6]
    by_splits = RaggedTensor.from_nested_row_splits(flat, ([0, 1, 1, 5], [0, 3, 3, 5, 7, 8]))
    by_lengths = RaggedTensor.from_nested_row_lengths(flat, ([1, 0, 4], [3, 0, 2, 2, 1]))
    by_rowids = RaggedTensor.from_nested_value_rowids(
        flat, ([0, 2, 2, 2, 2], [0, 0, 0, 2, 2, 3, 3, 4]), [3, 5])
    expected = [[[3, 1, 4]], [], [[], [1, 5], [9, 2], [6]]]
    for rt in (by_splits, by_lengths, by_rowids):
        assert rt.ragged_rank == 2
        assert rt.to_list() == expected
    assert [s.numpy().tolist() for s in by_lengths.nested_row_splits] == [
        [0, 1, 1, 5], [0, 3, 3, 5, 7, 8]]


def test_from_tensor_with_lengths_padding_and_ragged_rank():
    dense = [[1, 2, 0], [3, 0, 0], [0, 0, 0]]
    assert RaggedTensor.from_tensor(dense).to_list() == dense
    assert RaggedTensor.from_tensor(dense, padding=0).to_list() == [[1, 2], [3], []]
    assert RaggedTensor.from_tensor(dense, lengths=[1, 2, 0]).to_list() == [[1], [3, 0], []]
    deep = RaggedTensor.from_tensor(np.arange(8).reshape(2, 2, 2), ragged_rank=2)
    assert deep.ragged_rank == 2 and deep.to_list() == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]
    with pytest.raises(ValueError, match="lengths or padding"):
        RaggedTensor.from_tensor(dense, lengths=[1, 1, 1], padding=0)


def test_sparse_round_trip():
    rt = constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    st = rt.to_sparse()
    assert st.indices.numpy().tolist() == [[0, 0], [0, 1], [0, 2], [0, 3], [2, 0], [2, 1],
                                           [2, 2], [3, 0]]
    assert st.dense_shape.numpy().tolist() == [5, 4]
    back = RaggedTensor.from_sparse(SparseTensor([[0, 0], [0, 1], [2, 0]], [7, 8, 9], [3, 4]))
    assert back.to_list() == [[7, 8], [], [9]]
    assert RaggedTensor.from_sparse(st).to_list() == rt.to_list()


def test_partition_properties():
    rt = constant([[[1, 2], [3]], [[4, 5, 6]], []])
    assert rt.value_rowids().numpy().tolist() == [0, 0, 1]
    assert rt.row_starts().numpy().tolist() == [0, 2, 3]
    assert rt.row_limits().numpy().tolist() == [2, 3, 3]
    assert rt.nrows().numpy() == 3
    assert rt.row_lengths(axis=2).to_list() == [[2, 1], [3], []]
    assert rt.bounding_shape().numpy().tolist() == [3, 2, 3]
    assert rt.bounding_shape(axis=1).numpy() == 2
    assert [ids.numpy().tolist() for ids in rt.nested_value_rowids()] == [[0, 0, 1],
                                                                       [0, 0, 1, 2, 2, 2]]
    assert rt.uniform_row_length is None


def test_to_tensor_pads_and_cuts_to_a_shape():
    rt = constant([[3, 1, 4, 1], [], [5, 9, 2]])
    assert rt.to_tensor(default_value=-1, shape=[2, 3]).numpy().tolist() == [[3, 1, 4],
                                                                             [-1, -1, -1]]
    assert rt.to_tensor(shape=[4, None]).numpy().tolist() == [
        [3, 1, 4, 1], [0, 0, 0, 0], [5, 9, 2, 0], [0, 0, 0, 0]]


def test_printing_matches_tensorflow():
    assert repr(constant([[1, 2], [3]])) == "<tf.RaggedTensor [[1, 2], [3]]>"
    assert str(constant([["So", "long"], ["thanks"]])) == \
        "<tf.RaggedTensor [[b'So', b'long'], [b'thanks']]>"
    assert str(constant([[1.5], []])) == "<tf.RaggedTensor [[1.5], []]>"
    long = constant([[3, 1, 4, 1], [], [5, 9, 2], [6], [], [3, 1, 4, 1], [], [5, 9, 2],
                     [6], []])
    assert str(long) == ("<tf.RaggedTensor [[3, 1, 4, 1], [], [5, 9, 2], [6], [], [3, 1, 4, 1], "
                         "[], [5, 9, 2], [6],\n []]>")
    uniform = RaggedTensor.from_uniform_row_length([3, 1, 4, 1], 2)
    assert str(uniform) == "<tf.RaggedTensor [[3, 1],\n [4, 1]]>"


def test_guide_cells_print_as_tensorflow_prints():
    sentences = constant([["Let's", "build", "some", "ragged", "tensors", "!"],
                          ["We", "can", "use", "tf.ragged.constant", "."]])
    assert str(sentences) == (
        "<tf.RaggedTensor [[b\"Let's\", b'build', b'some', b'ragged', b'tensors', b'!'],\n"
        " [b'We', b'can', b'use', b'tf.ragged.constant', b'.']]>")
    paragraphs = constant([[["I", "have", "a", "cat"], ["His", "name", "is", "Mat"]],
                           [["Do", "you", "want", "to", "come", "visit"],
                            ["I'm", "free", "tomorrow"]]])
    assert str(paragraphs) == (
        "<tf.RaggedTensor [[[b'I', b'have', b'a', b'cat'], [b'His', b'name', b'is', b'Mat']],\n"
        " [[b'Do', b'you', b'want', b'to', b'come', b'visit'],\n"
        "  [b\"I'm\", b'free', b'tomorrow']]]>")
    pairs = RaggedTensor.from_row_splits([[1, 3], [0, 0], [1, 3], [5, 3], [3, 3], [1, 2]],
                                         [0, 3, 4, 6])
    assert str(pairs) == ("<tf.RaggedTensor [[[1, 3],\n  [0, 0],\n  [1, 3]], [[5, 3]], "
                          "[[3, 3],\n                      [1, 2]]]>")
    assert str(pairs.shape) == "(3, None, 2)"
    uniform = RaggedTensor.from_uniform_row_length(
        RaggedTensor.from_row_splits(list(range(10, 20)), [0, 3, 5, 9, 10]), 2)
    assert str(uniform) == ("<tf.RaggedTensor [[[10, 11, 12], [13, 14]],\n"
                            " [[15, 16, 17, 18], [19]]]>")
    assert str(uniform.shape) == "(2, 2, None)"


def test_uneven_nesting_is_refused_with_tensorflows_message():
    with pytest.raises(ValueError) as info:
        constant([[1, 2], [[3]]])
    assert str(info.value).split("\n")[0] == "all scalar values must have the same nesting depth"


def test_numpy_gives_one_array_for_rows_of_one_length():
    assert constant([[1, 2], [3, 4]]).numpy().shape == (2, 2)
    rows = constant([[1, 2], [3]]).numpy()
    assert rows.dtype == object and rows[1].tolist() == [3]


def test_mixed_strings_and_numbers_are_refused_as_tensorflow_does():
    with pytest.raises(ValueError, match="Can't convert Python sequence with mixed types"):
        constant([["one", "two"], [3, 4]])


def test_shape_of_a_dense_tensor_is_unchanged():
    assert array_ops.shape([[1, 2]]).numpy().tolist() == [1, 2]
