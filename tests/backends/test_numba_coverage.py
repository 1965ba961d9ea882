"""The numba backend's rules for array ops (runtime/ops/numba_lowerings.py and the rules
declared with each op): each graph must lower (strict=True) and agree with the numpy
executor, on static shapes and on shapes known only at run time (an input_signature with
None dimensions), and fail where the executor fails, with its error class, naming the op
and this file."""

import numpy as np
import pytest

import autograph.tf as tf

numba = pytest.importorskip("numba")


def _spec(value):
    """A TensorSpec of `value`'s dtype and rank with every dimension unknown."""
    return tf.TensorSpec([None] * np.ndim(value), tf.as_dtype(np.asarray(value).dtype))


def _compiled(f, args, dynamic, backend="numba"):
    options = {"input_signature": [_spec(a) for a in args]} if dynamic else {}
    if backend == "numba":
        options["strict"] = True
    return tf.function(f, backend=backend, **options)


def _values(result):
    return [t.numpy() for t in (result if isinstance(result, (tuple, list)) else (result,))]


def _agree(f, *args, dynamic=True, exact=True):
    """f on numba (static shapes, and dynamic ones) gives the numpy executor's values."""
    args = [np.asarray(a) for a in args]
    expected = _values(tf.function(f, backend="numpy")(*args))
    for dyn in (False, True) if dynamic else (False,):
        compiled = _compiled(f, args, dyn)
        got = _values(compiled(*args))
        assert compiled.get_concrete_function(*args).backend == "numba"
        assert len(got) == len(expected)
        for e, g in zip(expected, got):
            assert e.dtype == g.dtype and e.shape == g.shape
            if exact:
                np.testing.assert_array_equal(e, g)
            else:
                np.testing.assert_allclose(e, g, rtol=2e-6, atol=1e-7)


def _same_error(f, *args, dynamic=True):
    """f fails on numba as on the executor: the same error and message, naming the op and
    this file."""
    args = [np.asarray(a) for a in args]
    with pytest.raises(Exception) as on_numpy:
        _compiled(f, args, dynamic, "numpy")(*args)
    compiled = _compiled(f, args, dynamic)
    with pytest.raises(Exception) as on_numba:
        compiled(*args)
    assert compiled.get_concrete_function(*args).backend == "numba"
    assert type(on_numba.value) is type(on_numpy.value)
    assert str(on_numba.value) == str(on_numpy.value)
    assert "test_numba_coverage.py" in str(on_numba.value)
    return on_numba.value


_X = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7.5


def test_partial_reductions_of_shapes_known_at_run_time():
    def f(x):
        return (tf.reduce_sum(x, 1), tf.reduce_max(x, [0, 2], keepdims=True),
                tf.reduce_mean(x, -1), tf.reduce_any(x > 3.0, 0), tf.reduce_prod(x, 2))

    _agree(f, _X)


def test_shape_size_and_rank_of_dynamic_shapes():
    def f(x):
        return tf.shape(x), tf.size(x), tf.rank(x), tf.shape(x, out_type=tf.int64)

    _agree(f, _X)


def test_integer_ranges_and_a_zero_delta():
    def f(n, d):
        return tf.range(n), tf.range(n, 1, -2), tf.range(2, n * 3, d)

    _agree(f, 7, 3, dynamic=False)
    _agree(f, np.int64(7), np.int64(2), dynamic=False)

    def zero(n, d):
        return tf.range(0, n, d)

    assert "delta" in str(_same_error(zero, 5, 0, dynamic=False))


def test_fill_with_computed_dims_and_negative_dims():
    def f(n, v):
        return tf.fill([n, 3], v), tf.fill(tf.stack([2, n]), v > 0.0)

    _agree(f, np.int32(4), np.float32(1.5), dynamic=False)
    with pytest.raises(Exception):  # numpy: negative dimensions
        tf.function(f, backend="numpy")(np.int32(-1), np.float32(1))
    error = _same_error(f, np.int32(-1), np.float32(1), dynamic=False)
    assert "negative" in str(error)


def test_gather_along_each_axis_and_scalar_indices():
    def f(x, i):
        return tf.gather(x, i), tf.gather(x, i, axis=2), tf.gather(x, i[0], axis=1)

    _agree(f, _X, np.array([[1, 0], [1, 1]], np.int32))
    _agree(f, _X.astype(np.int32), np.array([1, 0, 1], np.int64))


def test_gather_index_out_of_range_fails_like_the_executor():
    def f(x, i):
        return tf.gather(x, i, axis=1)

    error = _same_error(f, _X, np.array([0, 3, -1], np.int32))
    assert "index 3 is out of range for a dimension of size 3" in str(error)


def test_concat_of_static_and_dynamic_shapes():
    def f(x, y):
        return tf.concat([x, y, x], 1), tf.concat([x, x], 0), tf.concat([y, y], -1)

    _agree(f, _X, _X[:, :2] * 2)


def test_concat_of_dimensions_that_differ_at_run_time_fails():
    def f(x, y):
        return tf.concat([x, y], 0)

    _same_error(f, _X, _X[:, :2])


def test_unstack_squeeze_tile_broadcast_to():
    def f(x, y):
        a, b = tf.unstack(x, num=2, axis=0)
        c = tf.unstack(y, num=3, axis=1)
        return (a, b, c[2], tf.squeeze(tf.expand_dims(x[:, 0], 1), [1]), tf.tile(y, [2, 1, 3]),
                tf.broadcast_to(tf.stack([y[0, 0, 0]]), [2, 4]))

    _agree(f, _X, _X + 1.0, dynamic=False)
    _agree(f, _X, _X + 1.0)


def test_squeeze_of_a_dimension_other_than_one_at_run_time_fails():
    def f(x):
        return tf.squeeze(x, [1])

    _same_error(f, _X)


def test_slices_newaxis_and_ellipsis_with_dynamic_bounds():
    def f(x, n):
        return (x[:, 1:], x[..., ::-2], x[n - 1, None, :n], x[1, n:, 2], x[:, :, -1],
                x[-1, ::n, None])

    _agree(f, _X, np.int32(1), dynamic=False)
    _agree(f, _X, np.int32(2))


def test_an_index_out_of_range_in_a_slice_fails_with_the_kernels_message():
    def f(x, n):
        return x[:, n]

    error = _same_error(f, _X, np.int32(3))
    assert "index 3 is out of bounds for dimension 1 of size 3" in str(error)

    def zero_step(x, n):
        return x[::n]

    _same_error(zero_step, _X, np.int32(0))
