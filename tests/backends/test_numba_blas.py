"""The numba kernels' matrix products (runtime/backends/numba_blas.py) call the BLAS numpy
calls: numpy's `a @ b` for operands in every layout (C, transposed, a strided slice of a
larger matrix, reversed or broadcast ones copied first) and empty or length-1 dimensions,
bit for bit where numpy calls gemm too (it calls gemv for a vector, and its own loop for a
reversed operand); without numpy's BLAS they are numba's `np.dot`; a tf.function's MatMul
on the numba backend gives the numpy executor's values exactly."""

import re

import numpy as np
import pytest

import autograph.tf as tf
from runtime.backends import numba_blas

numba = pytest.importorskip("numba")
numba_blas.register()


@numba.njit(cache=False)
def _matmul(a, b):
    return numba_blas.matmul(a, b)


@numba.njit(cache=False)
def _matmul_into(out, a, b):
    numba_blas.matmul_into(out, a, b)


def _layouts(matrix, rng):
    """`matrix` in each layout, holding the same values: C, F (a transposed C array), rows
    of a wider array ("rows": BLAS reads it with its row stride), the transpose of such rows
    ("columns": read with a transpose flag and that stride), every other column of a wider
    array ("step") and reversed rows (both copied before BLAS reads them)."""
    rows, cols = matrix.shape
    wide = rng.standard_normal((rows + 2, 2 * cols + 3)).astype(matrix.dtype)
    wide[1:rows + 1, 3:3 + cols] = matrix
    stepped = wide.copy()
    stepped[1:rows + 1, 3:2 * cols + 3:2] = matrix
    tall = rng.standard_normal((cols + 5, rows + 2)).astype(matrix.dtype)
    tall[3:3 + cols, 1:rows + 1] = matrix.T
    return {"C": matrix, "F": np.asfortranarray(matrix), "rows": wide[1:rows + 1, 3:3 + cols],
            "columns": tall[3:3 + cols, 1:rows + 1].T, "step": stepped[1:rows + 1, 3::2],
            "reversed": np.ascontiguousarray(matrix[::-1])[::-1]}


def test_numpys_blas_is_found_where_numpy_bundles_one():
    if not numba_blas._candidate_libraries():
        pytest.skip("this numpy bundles no OpenBLAS")
    assert numba_blas.BLAS is not None
    assert numba_blas.BLAS.symbol("s", "gemm").endswith("gemm64_")  # (ILP64)
    assert numba_blas.SOURCE_DIGEST


def _check(result, expected, exact, message):
    if exact:
        np.testing.assert_array_equal(result, expected, err_msg=message)
    else:
        np.testing.assert_allclose(result, expected, rtol=1e-5 if expected.dtype == np.float32
                                   else 1e-13, err_msg=message)


# each pair of operand layouts numba types differently (C, F, A) is one more compile: every
# layout on each side, not every combination
_PAIRS = [("C", "C"), ("F", "F"), ("rows", "columns"), ("columns", "rows"), ("step", "step"),
          ("reversed", "reversed"), ("C", "rows"), ("F", "C")]


@pytest.mark.parametrize("dtype, pairs", [(np.float32, _PAIRS), (np.float64, [("C", "C")])])
@pytest.mark.parametrize("m, k, n", [(8, 32, 32), (1, 5, 7), (5, 1, 7), (5, 7, 1),
                                     (1, 1, 1), (33, 17, 9)])
def test_products_equal_numpys_in_every_layout(dtype, pairs, m, k, n):
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    expected = a @ b
    left_layouts, right_layouts = _layouts(a, rng), _layouts(b, rng)
    for a_name, b_name in pairs:
        left, right = left_layouts[a_name], right_layouts[b_name]
        exact = m > 1 and n > 1 and "reversed" not in (a_name, b_name)
        result = _matmul(left, right)
        assert result.dtype == dtype and result.flags.c_contiguous
        _check(result, expected, exact, "%s @ %s" % (a_name, b_name))
        if a_name != "C" or b_name != "rows":  # (one compile fewer)
            out = np.full((m, n), np.nan, dtype)
            _matmul_into(out, left, right)
            _check(out, expected, exact, "into, %s @ %s" % (a_name, b_name))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m, k", [(8, 32), (64, 300), (5, 3)])
def test_a_gram_matrix_is_numpys_symmetric_one(dtype, m, k):
    x = np.random.default_rng(m + k).standard_normal((m, k)).astype(dtype)
    for a, b in [(x, x.T), (x.T, x), (np.asfortranarray(x), np.asfortranarray(x).T)]:
        expected = a @ b  # (numpy calls syrk and mirrors its upper triangle)
        result = _matmul(a, b)
        np.testing.assert_array_equal(result, expected)
        assert np.array_equal(result, result.T) == np.array_equal(expected, expected.T)
        out = np.full(expected.shape, np.nan, dtype)
        _matmul_into(out, a, b)
        np.testing.assert_array_equal(out, expected)


def test_broadcast_operand_is_copied_first():
    a = np.broadcast_to(np.arange(4, dtype=np.float32), (3, 4))  # a row stride of 0
    b = np.arange(8, dtype=np.float32).reshape(4, 2)
    np.testing.assert_array_equal(_matmul(a, b), np.ascontiguousarray(a) @ b)


@pytest.mark.parametrize("m, k, n", [(0, 3, 4), (3, 0, 4), (3, 4, 0)])
def test_empty_dimensions(m, k, n):
    a = np.ones((m, k), np.float32)
    b = np.ones((k, n), np.float32)
    result = _matmul(a, b)
    assert result.shape == (m, n)
    np.testing.assert_array_equal(result, np.zeros((m, n), np.float32))
    out = np.full((m, n), np.nan, np.float32)
    _matmul_into(out, a, b)
    np.testing.assert_array_equal(out, np.zeros((m, n), np.float32))


def test_other_dtypes_are_not_typed():
    with pytest.raises(numba.core.errors.TypingError):
        _matmul(np.ones((2, 2), np.float16), np.ones((2, 2), np.float16))


_WITHOUT_BLAS = """
import numpy as np, numba
from runtime.backends import numba_blas
numba_blas._candidate_libraries = lambda: []
numba_blas.register()
assert numba_blas.BLAS is None
matmul = numba.njit(lambda a, b: numba_blas.matmul(a, b))
a = np.arange(6, dtype=np.float32).reshape(2, 3)
np.testing.assert_array_equal(matmul(a, a.T), a @ a.T)
print("ok")
"""


@pytest.mark.slow
def test_without_numpys_blas_products_are_numbas_dot():
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", _WITHOUT_BLAS], capture_output=True,
                          text=True, timeout=300)
    assert done.stdout.strip() == "ok", done.stderr


def test_numba_matmul_gives_the_executors_values():
    rng = np.random.default_rng(2)
    x = tf.constant(rng.standard_normal((6, 6, 5)).astype(np.float32))
    w = tf.constant(rng.standard_normal((5, 5)).astype(np.float32))

    def step(x, w):  # (one kernel: each compile costs a second)
        rows = x[2][:5]  # a slice of a larger tensor
        return (tf.matmul(rows, w), tf.matmul(rows, w, transpose_a=True),
                tf.matmul(rows, w, transpose_b=True), tf.matmul(rows, rows, transpose_b=True),
                tf.matmul(x[:, :5], tf.stack([w] * 6), transpose_a=True, transpose_b=True))

    compiled = tf.function(step, backend="numba")
    executor = tf.function(step, backend="numpy")
    for got, want in zip(compiled(x, w), executor(x, w)):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    source = compiled.get_concrete_function(x, w)._compiled.source
    assert "numba_blas.matmul(" in source and "numba_blas.matmul_into(" in source
    assert "numba_blas.register()  # numba_blas %s" % numba_blas.SOURCE_DIGEST in source


def test_operands_of_other_shapes_raise_instead_of_reading_past_them():
    with pytest.raises(ValueError, match="shapes do not match"):
        _matmul(np.ones((2, 3), np.float32), np.ones((5, 4), np.float32))
    with pytest.raises(ValueError, match="shapes do not match"):
        _matmul_into(np.ones((2, 5), np.float32), np.ones((2, 3), np.float32),
                     np.ones((3, 4), np.float32))


def test_inner_dimensions_known_only_at_run_time_are_checked():
    matrix = tf.TensorSpec([None, None], tf.float32)
    batch = tf.TensorSpec([2, None, None], tf.float32)  # (numba: a static batch)

    def products(a, b, c, d, e, f):  # (one kernel: each compile costs a second)
        return tf.matmul(a, b), tf.matmul(c, d, transpose_b=True), tf.matmul(e, f)

    good = [tf.ones([2, 3]), tf.ones([3, 4]), tf.ones([2, 3]), tf.ones([4, 3]),
            tf.ones([2, 2, 3]), tf.ones([2, 3, 4])]
    wrong = {1: tf.ones([5, 4]), 3: tf.ones([4, 5]), 5: tf.ones([2, 5, 4])}
    messages = {}
    for backend in ("numba", "numpy"):
        f = tf.function(products, backend=backend,
                        input_signature=[matrix, matrix, matrix, matrix, batch, batch])
        assert [r.shape for r in f(*good)] == [[2, 4], [2, 4], [2, 2, 4]]
        assert f.get_concrete_function().backend_report().running == backend
        for position, operand in wrong.items():
            arguments = list(good)
            arguments[position] = operand
            with pytest.raises(tf.errors.InvalidArgumentError) as raised:
                f(*arguments)
            messages[backend, position] = str(raised.value).split("\n")[0]
    for position in wrong:
        assert messages["numba", position] == messages["numpy", position]


@pytest.mark.parametrize("also_elementwise", [False, True])
def test_a_slice_only_matrix_products_use_is_passed_as_a_view(also_elementwise):
    rng = np.random.default_rng(3)
    x = tf.constant(rng.standard_normal((4, 3, 5)).astype(np.float32))
    w = tf.constant(rng.standard_normal((5, 2)).astype(np.float32))

    def step(x, w):
        steps = tf.transpose(x, [1, 0, 2])  # each step a strided (4, 5) view
        total = tf.zeros([4, 2])
        for i in tf.range(3):
            row = steps[i]
            total += tf.matmul(row, w) + tf.reduce_sum(tf.matmul(row, row, transpose_a=True))
            if also_elementwise:
                total += tf.reduce_sum(tf.tanh(row))
        return total

    compiled = tf.function(step, backend="numba")
    np.testing.assert_allclose(compiled(x, w).numpy(),
                               tf.function(step, backend="numpy")(x, w).numpy(), rtol=1e-6)
    source = compiled.get_concrete_function(x, w)._compiled.source
    assert compiled.get_concrete_function(x, w).backend_report().running == "numba"
    copies_the_slice = re.search(r"np\.ascontiguousarray\(v\d+\[", source) is not None
    assert copies_the_slice == also_elementwise
