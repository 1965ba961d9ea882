"""JAX lowerings that widen the share of graphs the JAX backend runs: host calls (print,
random draws, iterators, numpy_function) calling the executor's own kernels in its order,
and array ops; each checked against the numpy executor with strict=True (the graph must
lower)."""

import numpy as np
import pytest

import autograph
import autograph.tf as tf
from runtime import backends

jax = pytest.importorskip("jax")


def _values(result):
    return [np.asarray(t) for t in (result if isinstance(result, (tuple, list)) else (result,))]


def _agree(f, *args, ulp=0):
    """f on JAX (strict) gives the numpy executor's values, dtypes and shapes: exactly, or
    within `ulp` units in the last place where XLA adds floats in another order."""
    expected = _values(autograph.function(f, backend="numpy")(*args))
    compiled = autograph.function(f, backend="jax", strict=True)
    got = _values(compiled(*args))
    assert compiled.get_concrete_function(*args).backend == "jax"
    assert len(got) == len(expected)
    for e, g in zip(expected, got):
        assert e.dtype == g.dtype and e.shape == g.shape
        if ulp:
            np.testing.assert_array_max_ulp(g, e, maxulp=ulp)
        else:
            np.testing.assert_array_equal(g, e)
    return got


def _printed(capsys, f, backend, *args):
    function = autograph.function(f, backend=backend, strict=backend == "jax")
    result = function(*args)
    if backend == "jax":
        assert function.get_concrete_function(*args).backend == "jax"
    return _values(result), capsys.readouterr().err


# -- host calls ---------------------------------------------------------------------------------

def _printing_loop(n):
    total = tf.constant(0)
    for i in tf.range(n):
        if i % 2 == 0:
            tf.print("even", i, [i, i * 10])
        else:
            tf.print("odd", i)
        total += i
    tf.print("total:", total)
    return total


def test_print_in_a_loop_and_a_branch_prints_the_executors_text_in_order(capsys):
    expected, text = _printed(capsys, _printing_loop, "numpy", tf.constant(5))
    got, jax_text = _printed(capsys, _printing_loop, "jax", tf.constant(5))
    assert text.splitlines()[:3] == ["even 0 [0, 0]", "odd 1", "even 2 [2, 20]"]
    assert jax_text == text and got == expected


def test_random_draws_on_the_host_give_the_executors_numbers():
    def draw(x):
        return tf.random.uniform([3], seed=7) * x, tf.random.normal([2], seed=3)
    tf.random.set_seed(1)
    first = _values(autograph.function(draw, backend="numpy")(tf.constant(2.0)))
    tf.random.set_seed(1)
    compiled = autograph.function(draw, backend="jax", strict=True)
    again = _values(compiled(tf.constant(2.0)))
    assert compiled.get_concrete_function(tf.constant(2.0)).backend == "jax"
    for e, g in zip(first, again):
        np.testing.assert_array_equal(g, e)


def _dataset_sum(x):
    total = tf.constant(0.0)
    dataset = tf.data.Dataset.from_tensor_slices(x).map(lambda v: v * 2.0)
    for v in dataset.batch(2, drop_remainder=True):
        total += tf.reduce_sum(v) * 0.5
        tf.print(tf.shape(v))
    return total


def test_a_dataset_loop_reads_its_iterator_on_the_host(capsys):
    x = tf.constant([1.0, 2.0, 3.0, 4.0])
    expected, text = _printed(capsys, _dataset_sum, "numpy", x)
    got, jax_text = _printed(capsys, _dataset_sum, "jax", x)
    assert got == expected and float(got[0]) == 10.0 and jax_text == text


def test_nested_dataset_loops_restart_the_inner_pass_each_time():
    def nested(x):
        total = tf.constant(0.0)
        for a in tf.data.Dataset.from_tensor_slices(x):
            for b in tf.data.Dataset.from_tensor_slices(x):
                total += a * b
        return total
    assert float(_agree(nested, tf.constant([1.0, 2.0, 3.0]))[0]) == 36.0


def test_a_passed_in_iterator_is_read_where_the_executor_reads_it():
    def take_two(iterator):
        return next(iterator) + next(iterator)
    dataset = tf.data.Dataset.from_tensor_slices(tf.constant([1, 2, 3, 4, 5, 6]))
    on_numpy = autograph.function(take_two, backend="numpy")
    on_jax = autograph.function(take_two, backend="jax", strict=True)
    a, b = iter(dataset), iter(dataset)
    assert [int(on_numpy(a)), int(on_numpy(a))] == [3, 7]
    assert [int(on_jax(b)), int(on_jax(b))] == [3, 7]
    assert on_jax.get_concrete_function(b).backend == "jax"


def test_a_host_error_is_raised_once_naming_the_op_and_later_effects_do_not_run(capsys):
    def failing(x):
        tf.print("before")
        tf.numpy_function(_boom, [x], [])
        tf.print("after")
        return x + 1.0

    errors = {}
    for backend in ("numpy", "jax"):
        function = autograph.function(failing, backend=backend, strict=backend == "jax")
        with pytest.raises(Exception) as caught:
            function(tf.constant(1.0))
        errors[backend] = (type(caught.value), str(caught.value), capsys.readouterr().err)
    assert errors["jax"] == errors["numpy"]
    assert "PyFunc" in errors["jax"][1] and errors["jax"][2] == "before\n"


def _boom(x):
    raise ValueError("boom at %s" % x)


def test_a_graph_with_host_effects_and_a_check_falls_back_naming_the_check():
    def checked(x, i):
        tf.print("reading")
        return x[i]
    with pytest.raises(backends.Unsupported, match="host effects and a check"):
        autograph.function(checked, backend="jax", strict=True)(tf.constant([1, 2]),
                                                                 tf.constant(1))


def test_numpy_functions_without_outputs_run_on_the_host_once_per_step_in_order():
    def make(seen):
        def logging(n):
            for i in tf.range(n):
                tf.numpy_function(lambda v: seen.append(int(v)), [i * i], [])
            return n
        return logging
    on_numpy, on_jax = [], []
    autograph.function(make(on_numpy), backend="numpy")(tf.constant(4))
    function = autograph.function(make(on_jax), backend="jax", strict=True)
    function(tf.constant(4))
    assert on_jax == on_numpy == [0, 1, 4, 9]
    assert function.get_concrete_function(tf.constant(4)).backend == "jax"


# -- array ops ------------------------------------------------------------------------------------

def test_unstack_broadcast_squeeze_tile_fill_and_one_hot():
    def f(x, i, v):
        a, b, c = tf.unstack(x, axis=1)
        wide = tf.broadcast_to(a[:, None], [2, 4])
        squeezed = tf.squeeze(x[:, :1], axis=[1])
        tiled = tf.tile(b[None, :], [3, 2])
        filled = tf.fill([2, 3], v)
        hot = tf.one_hot(i, 4, on_value=2.5, off_value=-1.0, axis=0)
        return a + c, wide, squeezed, tiled, filled, hot
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    _agree(f, x, tf.constant([0, 3, 7, -1]), tf.constant(1.5))


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative_sums_and_products_in_numpys_order(exclusive, reverse):
    def f(x, n):
        return (tf.math.cumsum(x, axis=1, exclusive=exclusive, reverse=reverse),
                tf.math.cumprod(x, axis=0, exclusive=exclusive, reverse=reverse),
                tf.math.cumsum(n, exclusive=exclusive, reverse=reverse),
                tf.math.cumprod(n, exclusive=exclusive, reverse=reverse))
    rng = np.random.default_rng(5)
    x = tf.constant(rng.normal(size=(3, 50)).astype(np.float32) * 1e3)
    n = tf.constant([2 ** 20, 3, -7, 2 ** 12, 5], tf.int32)  # the products wrap
    _agree(f, x, n)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_running_sums_agree_exactly_and_running_products_within_rounding(dtype):
    def f(x):
        return (tf.math.cumsum(x, axis=1, exclusive=True),
                tf.math.cumprod(x, axis=0, reverse=True))
    rng = np.random.default_rng(6)
    x = tf.constant((rng.normal(size=(40, 3)) + 1j * rng.normal(size=(40, 3))).astype(dtype))
    expected = _values(autograph.function(f, backend="numpy")(x))
    compiled = autograph.function(f, backend="jax", strict=True)
    sums, products = _values(compiled(x))
    assert compiled.get_concrete_function(x).backend == "jax"
    np.testing.assert_array_equal(sums, expected[0])
    # XLA's complex product may round apart from numpy's (which fuses a multiply and an add
    # where the CPU can) by an ulp per step
    assert products.dtype == expected[1].dtype
    np.testing.assert_allclose(products, expected[1], rtol=40 * np.finfo(dtype).eps)


_SEGMENT_REDUCTIONS = ["sum", "prod", "min", "max"]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_segment_reductions_scatter_rows_in_order_and_drop_negative_ids(dtype):
    def f(x, ids):
        unsorted = [getattr(tf.math, "unsorted_segment_" + r)(x, ids, 5)
                    for r in _SEGMENT_REDUCTIONS]
        constant_ids = [0, 0, 1, 3, 3, 3, 3]  # sorted ids known when compiled
        return unsorted + [getattr(tf.math, "segment_" + r)(x, constant_ids)
                           for r in _SEGMENT_REDUCTIONS + ["mean"]]
    rng = np.random.default_rng(8)
    x = tf.constant((rng.normal(size=(7, 3)) * 20).astype(dtype))
    _agree(f, x, tf.constant([3, -1, 0, 3, 2, 0, 3]))


def test_complex_segment_sums_agree_exactly_and_products_within_rounding():
    def f(x, ids):
        return (tf.math.unsorted_segment_sum(x, ids, 4), tf.math.unsorted_segment_prod(x, ids, 4),
                tf.math.segment_mean(x, [0, 0, 2, 2, 2]))
    rng = np.random.default_rng(9)
    x = tf.constant(rng.normal(size=(5, 2)) + 1j * rng.normal(size=(5, 2)))
    ids = tf.constant([3, -1, 0, 3, 3])
    expected = _values(autograph.function(f, backend="numpy")(x, ids))
    sums, products, means = _values(autograph.function(f, backend="jax", strict=True)(x, ids))
    np.testing.assert_array_equal(sums, expected[0])
    np.testing.assert_array_equal(means, expected[2])
    # XLA's complex product may round apart from numpy's, an ulp per factor
    np.testing.assert_allclose(products, expected[1], rtol=8 * np.finfo(np.float64).eps)


def test_sorted_segment_ids_given_at_run_time_are_declined_and_bad_ids_raise_on_numpy():
    function = autograph.function(lambda x, ids: tf.math.segment_max(x, ids), backend="jax")
    with pytest.warns(backends.BackendFallbackWarning, match="SegmentMax"):
        np.testing.assert_array_equal(
            function(tf.constant([1.0, 5.0, 2.0]), tf.constant([0, 0, 2])).numpy(),
            [5.0, 0.0, 2.0])
    out_of_range = autograph.function(
        lambda x, ids: tf.math.unsorted_segment_sum(x, ids, 2), backend="jax")
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
        out_of_range(tf.constant([1.0, 5.0]), tf.constant([0, 2]))


def test_a_squeeze_of_a_dimension_that_is_not_1_is_declined_so_numpy_raises():
    def f(x):
        return tf.squeeze(x, axis=[0])
    spec = tf.TensorSpec([None, 2], tf.float32)
    function = autograph.function(f, backend="jax", input_signature=[spec])
    with pytest.warns(backends.BackendFallbackWarning, match="Squeeze"):
        with pytest.raises(Exception, match="squeeze|dimension"):
            function(tf.constant([[1.0, 2.0], [3.0, 4.0]]))


# -- gradient ops -------------------------------------------------------------------------------

def test_gradients_taken_inside_the_function_lower_their_gradient_ops():
    def f(x, b, i, idx):
        with tf.GradientTape() as tape:
            tape.watch([x, b])
            y = tf.nn.relu(x + b)                      # broadcast: SumToShape; ReluGrad
            loss = tf.reduce_mean(y) + tf.reduce_sum(x[i] * 3.0)   # ReduceGrad, slice grad
            loss += tf.reduce_sum(tf.gather(x, idx) ** 2)          # GatherGrad
        return tape.gradient(loss, [x, b])
    x = tf.constant([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])
    # XLA adds the three gradients of x in another order: 5.1666665 or 5.166667, an ulp apart
    _agree(f, x, tf.constant([0.25, -3.0, 1.0]), tf.constant(1), tf.constant([1, 0, 1]),
           ulp=1)


def test_division_by_a_scalar_or_a_broadcast_divisor_is_rounded_as_numpys():
    def f(x, s, row, col):
        return x / s, x / 6.0, 3.0 / s, col / row, tf.constant([1.0, 5.0, 9.0]) / s
    rng = np.random.default_rng(3)
    x = tf.constant((rng.normal(size=500) * 100).astype(np.float32))
    row = tf.constant((rng.normal(size=(1, 40)) + 3).astype(np.float32))
    col = tf.constant(rng.normal(size=(30, 1)).astype(np.float32))
    _agree(f, x, tf.constant(7.3), row, col)


@pytest.mark.parametrize("direction", ["ASCENDING", "DESCENDING"])
def test_argsort_is_stable_with_ties_zeros_and_extreme_integers(direction):
    def f(x, n):
        return tf.argsort(x, direction=direction), tf.argsort(n, direction=direction)
    x = tf.constant([[3.0, -0.0, 1.0, 0.0, 3.0, -2.0], [1.0, 1.0, -1.0, 0.0, -0.0, 5.0]])
    n = tf.constant([2, -2 ** 31, 7, 2, 2 ** 31 - 1, -2 ** 31], tf.int32)
    _agree(f, x, n)


def test_top_k_gradient_puts_g_back_at_the_chosen_positions():
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            values = tf.math.top_k(x, k=2).values
            loss = tf.reduce_sum(values * tf.constant([3.0, 5.0]))
        return tape.gradient(loss, x)
    _agree(f, tf.constant([[0.5, 2.0, -1.0, 7.0], [4.0, 4.0, 1.0, 0.0]]))


def test_argsort_of_nans_gives_the_executors_order():
    def f(x):
        return tf.argsort(x)
    _agree(f, tf.constant([np.nan, 1.0, -np.nan, 0.5]))


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_max_pool_with_padding_and_nans(padding):
    def f(x):
        return tf.nn.max_pool2d(x, ksize=[2, 3], strides=[2, 2], padding=padding)
    x = np.random.default_rng(2).normal(size=(2, 5, 7, 3)).astype(np.float32)
    x[0, 1, 1, 0] = np.nan
    x[1, :, :, 2] = -np.inf
    _agree(f, tf.constant(x))


def test_a_graph_assigning_variables_around_python_that_may_raise_falls_back():
    v = tf.Variable(0.0)

    def train(x):
        for item in tf.data.Dataset.from_tensor_slices(x):
            v.assign_add(item)
        return v.read_value()
    with pytest.raises(backends.Unsupported, match="assigns variables and runs Python"):
        autograph.function(train, backend="jax", strict=True)(tf.constant([1.0, 2.0]))
