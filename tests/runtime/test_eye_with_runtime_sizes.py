"""eye with sizes known only when the Function runs (`eye(shape(x)[0])`), as TensorFlow
allows in graphs: the same values as numpy's eye for each input."""

import numpy as np
import pytest

from runtime import dtypes
from runtime.function import Function
from runtime.ops import array_ops
from runtime.ops.construction_ops import eye
from runtime.ops.math_ops import cast
from runtime.signature import TensorSpec

MATRIX = [TensorSpec([None, None], dtypes.float32)]


def _traced(fn):
    return Function(fn, input_signature=MATRIX, autograph=False)


@pytest.mark.parametrize("rows, columns", [(3, 2), (2, 4), (0, 3)])
def test_square_and_rectangular_eye_from_runtime_sizes(rows, columns):
    x = np.zeros((rows, columns), np.float32)
    square = _traced(lambda a: eye(array_ops.shape(a)[0]))
    np.testing.assert_array_equal(square(x).numpy(), np.eye(rows, dtype=np.float32))
    rectangle = _traced(lambda a: eye(array_ops.shape(a)[0], array_ops.shape(a)[1],
                                      dtype=dtypes.int32))
    out = rectangle(x)
    assert out.dtype is dtypes.int32
    np.testing.assert_array_equal(out.numpy(), np.eye(rows, columns, dtype=np.int32))


def test_runtime_size_with_a_static_one_and_a_batch_shape():
    f = _traced(lambda a: eye(array_ops.shape(a)[1], 3, batch_shape=[2]))
    expected = np.broadcast_to(np.eye(2, 3, dtype=np.float32), (2, 2, 3))
    np.testing.assert_array_equal(f(np.zeros((5, 2), np.float32)).numpy(), expected)


def test_a_float_runtime_size_is_refused():
    f = _traced(lambda a: eye(cast(array_ops.shape(a)[0], dtypes.float32)))
    with pytest.raises(TypeError, match="eye: num_rows must be a scalar integer, got a float32"):
        f(np.zeros((2, 2), np.float32))
