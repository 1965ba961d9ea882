"""tf.linalg.matvec: matrix-vector products as TensorFlow's (transpose, adjoint, batches),
eagerly and traced, with gradients through matmul."""

import numpy as np
import pytest

from runtime.function import function
from runtime.gradients import GradientTape
from runtime.ops import array_ops, linalg_ops, reduction_ops

A = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)


@pytest.mark.parametrize("traced", [False, True])
def test_matvec_values_with_transpose_adjoint_and_batches(traced):
    def products(a, b, c):
        return (linalg_ops.matvec(a, b), linalg_ops.matvec(a, b, transpose_a=True),
                linalg_ops.matvec(c, array_ops.constant([1.0 + 0j, 1.0]), adjoint_a=True),
                linalg_ops.matvec(array_ops.stack([a, 2.0 * a]), b))
    run = function(products) if traced else products
    c = array_ops.constant(np.array([[1 + 1j, 2], [3, 4]]))
    plain, transposed, adjoint, batched = run(array_ops.constant(A),
                                              array_ops.constant([1.0, 1.0]), c)
    assert plain.numpy().tolist() == [3.0, 7.0]
    assert transposed.numpy().tolist() == [4.0, 6.0]
    assert adjoint.numpy().tolist() == [4 - 1j, 6 + 0j]
    assert batched.numpy().tolist() == [[3.0, 7.0], [6.0, 14.0]]


def test_matvec_gradient_is_the_transposed_product():
    a, b = array_ops.constant(A), array_ops.constant([1.0, -1.0])
    with GradientTape() as tape:
        tape.watch([a, b])
        total = reduction_ops.reduce_sum(linalg_ops.matvec(a, b))
    grad_a, grad_b = tape.gradient(total, [a, b])
    np.testing.assert_allclose(grad_a.numpy(), [[1.0, -1.0], [1.0, -1.0]])
    np.testing.assert_allclose(grad_b.numpy(), A.sum(axis=0))
