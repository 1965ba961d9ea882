"""split into equal parts along a dimension known only when the Function runs (TensorFlow's
Split op): values, static shapes, gradient, and the error for an indivisible size."""

import numpy as np
import pytest

from runtime import dtypes, errors
from runtime.function import Function
from runtime.gradients import GradientTape
from runtime.ops import math_ops, reduction_ops
from runtime.ops.layout_ops import split
from runtime.signature import TensorSpec

ROWS_UNKNOWN = [TensorSpec([None, 3], dtypes.float32)]


def _halves():
    return Function(lambda x: split(x, 2, axis=0), input_signature=ROWS_UNKNOWN,
                    autograph=False)


def test_equal_parts_of_an_unknown_dimension():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    first, second = _halves()(x)
    np.testing.assert_array_equal(first.numpy(), x[:2])
    np.testing.assert_array_equal(second.numpy(), x[2:])
    graph = _halves().get_concrete_function().graph
    assert [t.shape.as_list() for t in graph.outputs] == [[None, 3], [None, 3]]


def test_an_indivisible_size_fails_when_it_runs():
    with pytest.raises(errors.InvalidArgumentError, match="size 3 is not divisible by 2"):
        _halves()(np.ones((3, 3), np.float32))


def test_gradient_of_the_parts():
    def loss(x):
        with GradientTape() as tape:
            tape.watch(x)
            first, second = split(x, 2, axis=0)
            total = reduction_ops.reduce_sum(math_ops.multiply(second, 3.0)) + \
                reduction_ops.reduce_sum(first)
        return tape.gradient(total, x)
    f = Function(loss, input_signature=ROWS_UNKNOWN, autograph=False)
    expected = np.array([[1.0] * 3] * 2 + [[3.0] * 3] * 2, np.float32)
    np.testing.assert_array_equal(f(np.ones((4, 3), np.float32)).numpy(), expected)
