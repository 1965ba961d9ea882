"""The numba backend's rules for array ops (runtime/ops/numba_lowerings.py and the rules
declared with each op): each graph must lower (strict=True) and agree with the numpy
executor, on static shapes and on shapes known only at run time (an input_signature with
None dimensions), and fail where the executor fails, with its error class, naming the op
and this file."""

import re
import sys

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
    assert "indices[1] = 3 is not in [0, 3)" in str(error)  # TensorFlow's words
    error = _same_error(f, _X, np.array([[0, 1], [-1, 2]], np.int64))
    assert "indices[1,0] = -1 is not in [0, 3)" in str(error)


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


def test_argmax_argmin_along_each_axis_ties_and_nan():
    def f(x):
        return tf.argmax(x, 0), tf.argmin(x, 2), tf.argmax(x, 1, output_type=tf.int32)

    x = np.round(_X / 4)
    x[1, 2, 3] = np.nan
    _agree(f, x)


def test_argmax_of_an_empty_axis_fails():
    def f(x):
        return tf.argmax(x, 1)

    _same_error(f, np.zeros((2, 0), np.float32))


def _cumulative_every_way(axes):
    def f(x):
        return tuple(op(x, axis, exclusive=e, reverse=r)
                     for op in (tf.math.cumsum, tf.math.cumprod)
                     for axis in axes for e in (False, True) for r in (False, True))
    return f


def test_cumulative_sums_and_products_exclusive_and_reversed_integers_wrapping():
    f = _cumulative_every_way([1])  # an inner axis: outer and inner loops both run
    _agree(f, _X)
    _agree(f, (np.arange(24, dtype=np.int32).reshape(2, 3, 4) + 1) * 40000)


@pytest.mark.slow
def test_cumulative_sums_and_products_along_the_first_and_last_axes():
    f = _cumulative_every_way([0, 2])  # (a sweep: 8 kernels; the axis 1 case above is quick)
    _agree(f, _X)
    _agree(f, (np.arange(24, dtype=np.int32).reshape(2, 3, 4) + 1) * 40000)


def test_sums_over_leading_axes_add_slab_by_slab_as_numpy_does():
    def sums(x):
        return tf.reduce_sum(x, 0), tf.reduce_sum(x, [0, 1]), tf.reduce_sum(x, 0, keepdims=True)

    def bias_gradient(x, b):
        with tf.GradientTape() as tape:
            tape.watch(b)
            y = (x + b) * x  # b broadcasts over x's first axes: its gradient sums over them
        return tape.gradient(y, b)

    x = np.float32([[[-0.0, 1e8, 3.0, -1.0]] * 3] * 2)
    x[1, 2, 2] = 1e-8
    _agree(sums, x)
    first = tf.function(sums, backend="numba", strict=True)(x)[0].numpy()
    assert first[0, 0] == 0.0 and not np.signbit(first[0, 0])  # numpy adds from +0.0
    _agree(bias_gradient, x, x[0, :1, :], dynamic=False)  # (SumToShape: static targets)
    _agree(sums, np.int32([[[2**30, -5, 7, 1]] * 3] * 2))  # int32 wraps


def _softmaxes(x):
    return (tf.nn.softmax(x), tf.nn.softmax(x, 0), tf.nn.log_softmax(x),
            tf.nn.log_softmax(x, 1))


def test_softmax_and_log_softmax_along_each_axis():
    _agree(_softmaxes, _X / 3, exact=False)


@pytest.mark.slow
def test_softmax_and_log_softmax_of_float64():
    _agree(_softmaxes, (_X / 3).astype(np.float64), exact=False)  # (two kernels more)


def test_one_hot_on_each_axis_with_out_of_range_indices_and_where():
    def f(i, c):
        return (tf.one_hot(i, 4), tf.one_hot(i, 3, on_value=5, off_value=-1, axis=0,
                                             dtype=tf.int32),
                tf.one_hot(i[0, 0], 2, axis=0), tf.where(c))

    _agree(f, np.array([[0, 3, 5], [-1, 2, 1]], np.int32), _X > 2.0)


def test_gradients_of_broadcasts_and_reductions_lower():
    def f(x, b):
        with tf.GradientTape() as tape:
            tape.watch([x, b])
            y = tf.reduce_sum(x * b, 1) + tf.reduce_mean(x + b, [0, 1], keepdims=True)
            loss = tf.reduce_sum(y * y)
        return tape.gradient(loss, [x, b])

    _agree(f, _X, np.float32([[[0.5, 1.0, 2.0, -1.0]]]), dynamic=False, exact=False)


# -- host calls (runtime/backends/numba_host.py) ----------------------------------------------


def _printed(f, args, capsys, backend):
    options = {"strict": True} if backend == "numba" else {}
    compiled = tf.function(f, backend=backend, **options)
    values = _values(compiled(*args))
    assert compiled.get_concrete_function(*args).backend == backend
    return values, capsys.readouterr()


def test_prints_inside_a_loop_come_out_in_the_executors_order_and_format(capsys):
    def f(x, n):
        total = tf.constant(0.0)
        for i in tf.range(n):
            tf.print("step", i, "of", n, x * tf.cast(i, tf.float32))
            if i % 2 == 0:
                tf.print(i > 1, total, output_stream=sys.stdout)
            total += tf.reduce_sum(x)
        return total

    args = (tf.constant([[1.5, -2.0], [0.25, 3.0]]), tf.constant(3))
    expected = _printed(f, args, capsys, "numpy")
    got = _printed(f, args, capsys, "numba")
    assert got[1].err == expected[1].err and "step 2 of 3" in got[1].err
    assert got[1].out == expected[1].out
    np.testing.assert_array_equal(got[0][0], expected[0][0])


def test_random_draws_are_the_host_generators_numbers():
    def f(x):
        return (tf.random.uniform([2, 3], seed=1) + x, tf.random.normal([4], seed=2),
                tf.random.uniform([], 0, 10, dtype=tf.int32, seed=3))

    tf.random.set_seed(5)
    expected = _values(tf.function(f, backend="numpy")(tf.constant(1.0)))
    tf.random.set_seed(5)
    compiled = tf.function(f, backend="numba", strict=True)
    got = _values(compiled(tf.constant(1.0)))
    assert compiled.get_concrete_function(tf.constant(1.0)).backend == "numba"
    for e, g in zip(expected, got):
        assert e.dtype == g.dtype and e.shape == g.shape
        np.testing.assert_array_equal(e, g)


def test_a_failed_assertion_formats_its_message_on_the_host():
    def f(x):
        tf.debugging.assert_less(x, 3.0, message="too big")
        return x + 1.0

    _agree(f, np.float32([1.0, 2.0]))
    error = _same_error(f, np.float32([1.0, 5.0]))
    assert "too big" in str(error)


def test_a_py_function_without_outputs_and_its_errors_run_on_the_host():
    seen = []

    def record(x):
        seen.append(float(x.numpy()))
        if x.numpy() > 10:
            raise KeyError("no such key")

    def f(x):
        for i in tf.range(3):
            tf.py_function(record, [x + tf.cast(i, tf.float32)], [])
        return x

    _agree(f, np.float32(1.0), dynamic=False)
    assert seen == [1.0, 2.0, 3.0] * 2
    compiled = tf.function(f, backend="numba", strict=True)
    with pytest.raises(KeyError) as raised:
        compiled(np.float32(20.0))
    assert compiled.get_concrete_function(np.float32(20.0)).backend == "numba"
    assert "EagerPyFunc" in str(raised.value.__notes__)


def test_loops_over_datasets_run_their_pipelines_on_the_host():
    batches = tf.data.Dataset.from_tensor_slices(np.arange(10, dtype=np.float32)).map(
        lambda v: v * 2.0).batch(3)
    pairs = tf.data.Dataset.from_tensor_slices((np.arange(4, dtype=np.int32),
                                                np.ones((4, 2), np.float32)))

    def f(x):
        total = tf.constant(0.0)
        for batch in batches:
            total += tf.reduce_sum(batch) * x
        for i in tf.range(2):  # the inner pass starts again every outer iteration
            for n, row in pairs:
                if n > 2:
                    break
                total += tf.cast(n + i, tf.float32) * tf.reduce_sum(row)
        return total

    _agree(f, np.float32(0.5), dynamic=False)


def test_reading_past_the_end_of_a_dataset_fails_like_the_executor():
    items = tf.data.Dataset.from_tensor_slices(np.arange(2, dtype=np.int32))

    def f(x):
        iterator = iter(items)
        return next(iterator) + next(iterator) + next(iterator) + x

    _same_error(f, np.int32(1), dynamic=False)


def test_a_tensor_array_unstacked_then_read():
    def f(x):
        rows = tf.TensorArray(tf.float32, size=3).unstack(x)
        return rows.read(0) + rows.read(1) * 2.0, rows.size(), rows.stack()

    _agree(f, _X[0], dynamic=False)
    rows_of_four = tf.function(f, backend="numba", strict=True,
                               input_signature=[tf.TensorSpec([None, 4], tf.float32)])
    for got, expected in zip(_values(rows_of_four(_X[0])), _values(f(tf.constant(_X[0])))):
        np.testing.assert_array_equal(got, expected)

    def unwritten(x):  # fewer rows than the array's size: reading row 2 fails
        rows = tf.TensorArray(tf.float32, size=3).unstack(x)
        return rows.read(2)

    _same_error(unwritten, _X[0][:2], dynamic=False)

    def too_many(x):
        return tf.TensorArray(tf.float32, size=1).unstack(x).stack()

    _same_error(too_many, _X[0], dynamic=False)


def test_a_dynamically_sized_tensor_array_grows_as_a_loop_writes_it():
    def f(n, x):
        squares = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for i in tf.range(n):
            squares = squares.write(i, x * tf.cast(i * i, tf.float32))
        return squares.stack(), squares.size(), squares.read(n - 1)

    _agree(f, np.int32(37), np.float32([1.0, -2.0]), dynamic=False)
    _agree(f, np.int32(1), np.float32([1.0, -2.0]), dynamic=False)

    def past_the_end(n, x):
        ta = tf.TensorArray(tf.float32, size=2, dynamic_size=True).write(n, x)
        return ta.read(n + 1)

    assert "has 6 elements" in str(_same_error(past_the_end, np.int32(5), np.float32(1.0),
                                               dynamic=False))

    def a_gap(n, x):  # growing leaves unwritten elements: stacking them fails
        return tf.TensorArray(tf.float32, size=0, dynamic_size=True).write(n, x).stack()

    _same_error(a_gap, np.int32(3), np.float32(1.0), dynamic=False)


def test_a_dynamically_sized_tensor_array_unstacked():
    def f(x):
        rows = tf.TensorArray(tf.float32, size=1, dynamic_size=True).unstack(x)
        return rows.stack() * 2.0, rows.size()

    _agree(f, _X[0], dynamic=False)


def test_batched_matmul_and_stacks_of_dynamic_shapes():
    def f(a, b):
        return (tf.matmul(a, b), tf.matmul(a, a, transpose_b=True),
                tf.matmul(b, b, transpose_a=True), tf.stack([a[0], b[0, :3, :4]], 1))

    rng = np.random.RandomState(1)
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((2, 4, 5)).astype(np.float32)
    _agree(f, a, b, dynamic=False, exact=False)
    stacked = tf.function(lambda x, y: tf.stack([x, y]), backend="numba", strict=True,
                          input_signature=[tf.TensorSpec([None], tf.float32)] * 2)
    np.testing.assert_array_equal(stacked(a[0, 0], b[0, 0, :4]).numpy(),
                                  np.stack([a[0, 0], b[0, 0, :4]]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="same shape"):
        stacked(a[0, 0], b[0, 0])


def test_constant_pads_rolls_and_repeats():
    def f(x):
        return (tf.pad(x, [[1, 0], [0, 2], [1, 1]], constant_values=-1.0),
                tf.roll(x, [1, -2, 5], [0, 2, 2]), tf.roll(x, 4, 1),
                tf.repeat(x, [1, 0, 3], axis=1), tf.repeat(x, 2, axis=2))

    _agree(f, _X, dynamic=False)
    _agree(f, _X.astype(np.int32), dynamic=False)
    rolled = tf.function(lambda x: tf.roll(x, [-1, 2], [0, 1]), backend="numba", strict=True,
                         input_signature=[tf.TensorSpec([None, None], tf.float32)])
    np.testing.assert_array_equal(rolled(_X[0]).numpy(), np.roll(_X[0], [-1, 2], [0, 1]))


def test_top_k_orders_ties_and_nans_as_the_kernel_does():
    def f(x):
        values, indices = tf.math.top_k(x, 3)
        return values, indices

    rng = np.random.RandomState(2)
    distinct = rng.standard_normal((3, 5, 6)).astype(np.float32)
    ties = np.round(distinct)
    ties[0, 0, :2] = [-0.0, 0.0]
    one_nan = distinct.copy()
    one_nan[1, 2, 3] = np.nan
    many_nans = distinct.copy()
    many_nans[2, 1, [0, 2, 5]] = np.nan  # NaNs above every number, by position
    for x in (distinct, ties, one_nan, many_nans):  # (one kernel pair: they share a graph)
        _agree(f, x)
    np.testing.assert_array_equal(tf.math.top_k(many_nans[2, 1], 3).indices, [0, 2, 5])


def test_top_k_of_integers_orders_ties_as_the_kernel_does():
    def f(x):
        values, indices = tf.math.top_k(x, 3)
        return values, indices

    ties = np.round(np.random.RandomState(2).standard_normal((3, 5, 6))).astype(np.int32)
    _agree(f, ties)


def test_gradients_of_slices_lower():
    def f(x, n):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(x[1, 1:, ::2] * 3.0) + tf.reduce_sum(x[:, n] ** 2)
        return tape.gradient(y, x)

    _agree(f, _X, np.int32(1), dynamic=False)


def test_assigning_a_value_of_another_run_time_shape_fails_as_on_the_executor():
    # (numba broadcast a length-1 value into the buffer, silently; the executor refuses)
    for backend in ("numpy", "numba"):
        v = tf.Variable(np.zeros((2, 3), np.float32), name="weights")

        def put(x):
            v.assign(x)
            v.assign_add(x * 2.0)
            return v.read_value()
        f = _compiled(put, [np.zeros((2, 3), np.float32)], True, backend)
        np.testing.assert_array_equal(f(np.ones((2, 3), np.float32)), np.full((2, 3), 3.0))
        with pytest.raises(tf.errors.InvalidArgumentError, match=re.escape(
                "cannot assign a value of shape (2, 1) to variable weights:0 of shape (2, 3)")):
            f(np.ones((2, 1), np.float32))
        np.testing.assert_array_equal(v.numpy(), np.full((2, 3), 3.0))
        if backend == "numba":
            assert f.get_concrete_function(np.ones((2, 3), np.float32)).backend == "numba"


def test_an_update_broadcasting_past_the_variables_shape_fails_as_on_the_executor():
    # (a delta known only at run time may broadcast the sum to more rows, or to none: numba
    # wrote the variable's rows from it, reading past an empty one)
    v = tf.Variable(np.zeros((1, 3), np.float32), name="bias")

    def f(x):
        v.assign_add(x)
        return v.read_value()

    for delta in (np.ones((2, 3), np.float32), np.ones((0, 3), np.float32)):
        error = _same_error(f, delta)
        assert "cannot assign a value of shape (%d, 3) to variable bias:0 of shape (1, 3)" % (
            len(delta)) in str(error)
    np.testing.assert_array_equal(v.numpy(), np.zeros((1, 3), np.float32))


def test_an_update_whose_delta_cannot_broadcast_fails_as_on_the_executor():
    # (numba raised its own ValueError, from its npyimpl.py, not the user's line)
    v = tf.Variable(np.zeros((2, 3), np.float32))

    def f(x):
        v.assign_sub(x)
        return v.read_value()

    for delta in (np.ones((2, 5), np.float32), np.ones((3, 1), np.float32)):
        error = _same_error(f, delta)
        assert "could not be broadcast together with shapes (2,3) (%d,%d) " % delta.shape \
            in str(error)
    np.testing.assert_array_equal(v.numpy(), np.zeros((2, 3), np.float32))
