"""Indexing a RaggedTensor over several axes: ints, negative ints, slices with steps and
ellipsis, on ragged and uniform dimensions."""

import pytest

from runtime import errors
from runtime.composite.ragged import constant

DIGITS = [[3, 1, 4, 1], [], [5, 9, 2], [6], []]


def test_rows_and_single_values():
    rt = constant(DIGITS)
    assert rt[2].numpy().tolist() == [5, 9, 2]
    assert rt[-3].numpy().tolist() == [5, 9, 2]
    assert rt[3, 0].numpy() == 6
    assert rt[0, -1].numpy() == 1


def test_slices_of_rows_and_of_each_row():
    rt = constant(DIGITS)
    assert rt[1:3].to_list() == [[], [5, 9, 2]]
    assert rt[::2].to_list() == [[3, 1, 4, 1], [5, 9, 2], []]
    assert rt[-2:].to_list() == [[6], []]
    assert rt[:, :2].to_list() == [[3, 1], [], [5, 9], [6], []]
    assert rt[:, -2:].to_list() == [[4, 1], [], [9, 2], [6], []]
    assert rt[:, ::-1].to_list() == [[1, 4, 1, 3], [], [2, 9, 5], [6], []]


def test_ellipsis_and_ragged_rank_two():
    rt = constant([[[1, 2], [3]], [[4, 5, 6]]])
    assert rt[..., :1].to_list() == [[[1], [3]], [[4]]]
    assert rt[:, :, 0].to_list() == [[1, 3], [4]]
    assert rt[1, 0, 2].numpy() == 6
    assert rt[0, ...].to_list() == [[1, 2], [3]]


def test_uniform_inner_dimensions():
    rt = constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    assert rt[:, :, 1].to_list() == [[2, 4], [6]]
    assert rt[:, 0, :].numpy().tolist() == [[1, 2], [5, 6]]


def test_bad_indices_raise_tensorflow_errors():
    rt = constant(DIGITS)
    with pytest.raises(errors.InvalidArgumentError, match="out of bounds"):
        rt[:, 0]
    with pytest.raises(ValueError, match="Too many indices"):
        rt[0, 0, 0]
    with pytest.raises(IndexError, match="out of bounds"):
        rt[7]
