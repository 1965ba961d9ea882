"""DynamicRaggedShape and RowPartition: tf.shape of a RaggedTensor as a value, its text as
TensorFlow's, its indexing and slicing, and the ops that build a RaggedTensor of a shape."""

import pytest

from runtime import dtypes
from runtime.composite.ragged import constant
from runtime.composite.ragged_shape import DynamicRaggedShape, RowPartition
from runtime.function import function
from runtime.ops import array_ops, reshape_ops

ROWS = [[1], [2, 3, 4], [], [5, 6]]


def test_the_shape_of_a_ragged_tensor_reads_as_tensorflows():
    shape = array_ops.shape(constant(ROWS))
    assert repr(shape) == "<DynamicRaggedShape lengths=[4, (1, 3, 0, 2)] num_row_partitions=1>"
    assert shape.rank == 2 and shape.dtype is dtypes.int32
    assert shape[0].numpy() == 4 and shape[0].dtype is dtypes.int32
    with pytest.raises(ValueError, match="Index 1 is not uniform"):
        shape[1]
    assert repr(shape[:1]) == "<DynamicRaggedShape lengths=[4] num_row_partitions=0>"


def test_shapes_built_from_lengths_and_row_partitions():
    assert repr(DynamicRaggedShape.from_lengths([4, (2, 1, 0, 8), 12])) == (
        "<DynamicRaggedShape lengths=[4, (2, 1, 0, 8), 12] num_row_partitions=1>")
    shape = DynamicRaggedShape([RowPartition.from_row_lengths([5, 3, 2])], [10, 8])
    assert repr(shape) == "<DynamicRaggedShape lengths=[3, (5, 3, 2), 8] num_row_partitions=1>"
    assert shape[2].numpy() == 8
    uniform = DynamicRaggedShape.from_lengths([2, 3, (1, 0, 2, 1, 1, 1)])
    assert repr(uniform) == (
        "<DynamicRaggedShape lengths=[2, 3, (1, 0, 2, 1, 1, 1)] num_row_partitions=2>")
    assert uniform[1].numpy() == 3


@pytest.mark.parametrize("traced", [False, True])
def test_zeros_ones_fill_and_reshape_take_a_ragged_shape(traced):
    def build(rt, letters):
        shape = array_ops.shape(rt)
        return (array_ops.zeros(shape), array_ops.ones(shape, dtypes.int32),
                array_ops.fill(shape, "x"), reshape_ops.reshape(letters, shape))
    run = function(build) if traced else build
    letters = array_ops.constant([["a", "b"], ["c", "d"], ["e", "f"]])
    zeros, ones, filled, reshaped = run(constant(ROWS), letters)
    assert zeros.to_list() == [[0.0], [0.0, 0.0, 0.0], [], [0.0, 0.0]]
    assert ones.to_list() == [[1], [1, 1, 1], [], [1, 1]]
    assert filled.to_list() == [[b"x"], [b"x", b"x", b"x"], [], [b"x", b"x"]]
    assert reshaped.to_list() == [[b"a"], [b"b", b"c", b"d"], [], [b"e", b"f"]]
