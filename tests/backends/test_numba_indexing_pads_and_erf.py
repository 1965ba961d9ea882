"""numba rules for gather_nd and the N-d scatters (runtime/ops/numba_nd_indexing.py), mirror
pads and erf (runtime/ops/numba_lowerings.py): each graph lowers (strict) and gives the numpy
executor's values, dtype and shape, bit for bit, on static shapes and on shapes known only
at run time; an index or a padding out of range fails with the executor's error and message,
naming the op and this file."""

import math

import numpy as np
import pytest
from numba_compare import executor_and_numba, same_failure

import autograph.tf as tf

numba = pytest.importorskip("numba")

_X = np.arange(24, dtype=np.float32).reshape(2, 3, 4) * np.float32(1.37) - 7.5


def _spec(value, last):
    shape = [None] * np.ndim(value)
    if last and shape:
        shape[-1] = np.shape(value)[-1]
    return tf.TensorSpec(shape, tf.as_dtype(np.asarray(value).dtype))


def _dynamic(*args, keep_last=False):
    """The options of a Function whose argument dimensions are known only at run time: all
    of them, or all but the last of its integer arguments (the depth of gather_nd's
    indices, which must be known)."""
    return {"input_signature": [
        _spec(a, keep_last and np.asarray(a).dtype.kind == "i") for a in args]}


def _assert_same(expected, got):
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(expected) == len(got)
    for e, g in zip(expected, got):
        assert e.dtype == g.dtype and e.shape == g.shape
        np.testing.assert_array_equal(e.numpy(), g.numpy())


def _agree(f, *args, keep_last=False):
    _assert_same(*executor_and_numba(f, *args))
    _assert_same(*executor_and_numba(f, *args, **_dynamic(*args, keep_last=keep_last)))


def _gathers(x, rows, batched, one):
    return tf.gather_nd(x, rows), tf.gather_nd(x, batched), tf.gather_nd(x, one)


def test_gather_nd_of_rows_slices_and_single_elements():
    rows = np.array([[1, 2], [0, 0], [1, 1]], np.int32)
    batched = np.array([[[1, 2, 3]], [[0, 1, 0]]], np.int64)
    _agree(_gathers, _X, rows, batched, np.array([1, 2, 3], np.int32), keep_last=True)
    _agree(_gathers, (_X > 0).astype(np.int32), rows, batched, np.array([0, 2], np.int64),
           keep_last=True)


def test_gather_nd_out_of_range_fails_naming_the_first_bad_row():
    batched = np.array([[[1, 2, 3]], [[0, 1, 0]]], np.int64)
    bad = np.array([[[0, 1], [1, 2]], [[2, 0], [0, -1]]], np.int32)
    args = (_X, bad, batched, np.array([1, 2, 3], np.int32))
    error = same_failure(_gathers, *args)
    assert "indices[1, 0] = [2, 0] does not index into shape [2, 3, 4]" in str(error)
    assert "test_numba_indexing_pads_and_erf.py" in str(error)
    same_failure(_gathers, *args, **_dynamic(*args, keep_last=True))


def _scatters(tensor, indices, updates, into_zeros):
    return (tf.tensor_scatter_nd_update(tensor, indices, updates),
            tf.tensor_scatter_nd_add(tensor, indices, updates),
            tf.scatter_nd(indices, into_zeros, [2, 3, 5]))


def test_scatters_apply_duplicate_rows_in_order():
    indices = np.array([[1, 2], [0, 0], [1, 2]], np.int32)
    tenths = np.array([[0.1, 0.2, 0.3, 0.4], [1e-8, 2.0, 3.0, 4.0], [0.7, 1e8, -3.0, 0.25]],
                      np.float32)
    _assert_same(*executor_and_numba(_scatters, _X, indices, tenths,
                                     np.full((3, 5), 0.3, np.float32)))
    big = np.full((3, 4), 2 ** 30, np.int32)  # duplicates wrap in int32 as numpy's do
    _assert_same(*executor_and_numba(_scatters, _X.astype(np.int32), indices, big,
                                     np.full((3, 5), 2 ** 30, np.int32)))


def test_a_scatter_index_out_of_range_fails_like_the_executor():
    indices = np.array([[1, 2], [0, 0], [1, -1]], np.int32)
    error = same_failure(_scatters, _X, indices, np.ones((3, 4), np.float32),
                         np.ones((3, 5), np.float32))
    assert "indices[2] = [1, -1] does not index into shape [2, 3, 4]" in str(error)


def _pads(x):
    return (tf.pad(x, [[1, 1], [2, 0], [0, 3]], "REFLECT"),
            tf.pad(x, [[2, 1], [0, 3], [4, 1]], "SYMMETRIC"),
            tf.pad(x, [[0, 0], [1, 1], [0, 0]], "REFLECT"))


def test_reflect_and_symmetric_pads():
    _agree(_pads, _X)
    _agree(_pads, _X.astype(np.int64))


def test_a_mirror_pad_too_wide_for_a_dimension_known_at_run_time_fails():
    error = same_failure(_pads, _X[:, :1], **_dynamic(_X))
    assert "REFLECT paddings [2, 0] exceed what a dimension of size 1 allows" in str(error)


def test_erf_is_math_erf_of_each_element_rounded_to_its_dtype():
    def f(x, s):
        return tf.math.erf(x), tf.math.erf(s), tf.math.erf(x * 0.5 + 1.0)

    x = np.concatenate([np.linspace(-6, 6, 401), [0.0, -0.0, 1e-30, math.inf, -math.inf,
                                                  math.nan]])
    _agree(f, x.astype(np.float32), np.float32(0.3))
    _agree(f, x, np.float64(-1.7))
