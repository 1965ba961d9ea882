"""Random ops: tf.random.uniform and normal draw the requested shape, dtype, range and
statistics, anew at every call of a graph; under TensorFlow's seeding rules
`tf.random.set_seed` + op seeds make sequences reproducible; stateless draws depend only on
their seed; dropout is seeded; a bad rate, bound or bound dtype is refused."""

import numpy as np
import pytest
from op_cases import empty_shape_test

import autograph.tf as tf
from runtime import dtypes
from runtime.ops import random_ops


@pytest.fixture(autouse=True)
def _unseeded_afterwards():
    yield
    tf.random.set_seed(None)


def _draws():
    return [tf.random.categorical([[0.0, 1.0, 2.0]], 6).numpy(),
            tf.random.shuffle(tf.range(8)).numpy(),
            tf.random.uniform([3], seed=5).numpy(),
            tf.random.uniform([3], seed=5).numpy(),
            tf.nn.dropout(tf.ones([8]), 0.5).numpy()]


def test_set_seed_repeats_the_whole_sequence():
    tf.random.set_seed(42)
    first = _draws()
    tf.random.set_seed(42)
    second = _draws()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    tf.random.set_seed(43)
    assert any(not np.array_equal(a, b) for a, b in zip(first, _draws()))


def test_an_op_seed_alone_gives_a_stream_that_set_seed_restarts():
    """Two eager calls with the same op seed differ (TensorFlow's eager rule); another op
    seed's draws in between do not change the stream."""
    tf.random.set_seed(1)
    a = tf.random.uniform([2], seed=7).numpy()
    tf.random.uniform([2], seed=8)
    b = tf.random.uniform([2], seed=7).numpy()
    assert not np.array_equal(a, b)
    tf.random.set_seed(1)
    np.testing.assert_array_equal(tf.random.uniform([2], seed=7).numpy(), a)
    np.testing.assert_array_equal(tf.random.uniform([2], seed=7).numpy(), b)


def test_a_traced_random_op_draws_anew_at_every_call():
    tf.random.set_seed(3)

    @tf.function(autograph=False)
    def draw():
        return tf.random.shuffle(tf.range(10), seed=2)
    first, second = draw().numpy(), draw().numpy()
    assert sorted(first) == list(range(10)) and not np.array_equal(first, second)


def test_uniform_has_the_requested_shape_dtype_and_range():
    r = tf.random.uniform([200, 3], minval=-2.0, maxval=5.0)
    assert r.dtype is tf.float32 and r.shape == (200, 3)
    values = r.numpy()
    assert values.min() >= -2.0 and values.max() < 5.0
    assert values.std() > 1.0


def test_uniform_defaults_to_the_unit_interval():
    values = tf.random.uniform([500], dtype=tf.float64).numpy()
    assert values.dtype == np.float64
    assert values.min() >= 0.0 and values.max() < 1.0


def test_integer_uniform_needs_maxval_and_stays_in_range():
    values = tf.random.uniform([300], minval=3, maxval=7, dtype=tf.int32).numpy()
    assert values.dtype == np.int32
    assert set(values.tolist()) == {3, 4, 5, 6}
    with pytest.raises(ValueError):
        tf.random.uniform([3], dtype=tf.int32)


def test_normal_statistics():
    tf.random.set_seed(7)
    try:
        values = tf.random.normal([20000], mean=3.0, stddev=2.0).numpy()
    finally:
        tf.random.set_seed(None)
    assert values.dtype == np.float32
    assert abs(values.mean() - 3.0) < 0.1
    assert abs(values.std() - 2.0) < 0.1


def test_truncated_normal_stays_within_two_standard_deviations():
    tf.random.set_seed(7)
    try:
        values = tf.random.truncated_normal([20000], mean=3.0, stddev=2.0).numpy()
    finally:
        tf.random.set_seed(None)
    assert values.dtype == np.float32
    assert values.min() >= -1.0 and values.max() <= 7.0
    assert abs(values.mean() - 3.0) < 0.1
    assert abs(values.std() - 2.0 * 0.8796) < 0.1  # the std of a normal cut at 2 sigma


def test_set_seed_makes_eager_draws_reproducible():
    try:
        tf.random.set_seed(42)
        first = [tf.random.uniform([4]).numpy(), tf.random.normal([3]).numpy()]
        tf.random.set_seed(42)
        second = [tf.random.uniform([4]).numpy(), tf.random.normal([3]).numpy()]
    finally:
        tf.random.set_seed(None)
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])
    assert not np.array_equal(first[0], tf.random.uniform([4]).numpy())


def test_set_seed_makes_traced_draws_reproducible():
    def draw():
        return tf.random.uniform([5])

    try:
        tf.random.set_seed(3)
        first = tf.function(draw, autograph=False)().numpy()
        tf.random.set_seed(3)
        second = tf.function(draw, autograph=False)().numpy()
    finally:
        tf.random.set_seed(None)
    np.testing.assert_array_equal(first, second)


def test_random_ops_in_a_graph_draw_new_values_on_every_call():
    @tf.function(autograph=False)
    def draw(x):
        return x + tf.random.uniform([3]), tf.random.normal([2, 2])

    a, b = draw(tf.constant(0.0)), draw(tf.constant(0.0))
    assert a[0].shape == (3,) and a[1].shape == (2, 2)
    assert not np.array_equal(a[0].numpy(), b[0].numpy())
    assert not np.array_equal(a[1].numpy(), b[1].numpy())
    assert draw.experimental_get_tracing_count() == 1


def test_random_bounds_of_the_wrong_dtype_are_rejected():
    with pytest.raises((TypeError, tf.errors.InvalidArgumentError)):
        tf.random.uniform([2], minval=tf.constant(0), maxval=tf.constant(1))


def test_categorical_follows_the_probabilities_and_never_draws_minus_inf():
    tf.random.set_seed(0)
    samples = tf.random.categorical(tf.math.log([[0.2, 0.8, 0.0]]), 4000).numpy()
    assert samples.dtype == np.int64 and samples.shape == (1, 4000)
    assert set(np.unique(samples)) <= {0, 1}
    assert abs(np.mean(samples == 1) - 0.8) < 0.03
    assert tf.random.categorical([[0.0, 0.0]], 3, dtype=tf.int32).dtype == tf.int32


def test_stateless_draws_depend_only_on_the_seed():
    a = tf.random.stateless_uniform([4], seed=[1, 2]).numpy()
    tf.random.set_seed(9)
    np.testing.assert_array_equal(tf.random.stateless_uniform([4], seed=[1, 2]).numpy(), a)
    assert not np.array_equal(tf.random.stateless_uniform([4], seed=[1, 3]).numpy(), a)
    assert a.dtype == np.float32 and np.all((a >= 0) & (a < 1))
    ints = tf.random.stateless_uniform([50], [5, 5], minval=-3, maxval=4, dtype=tf.int64)
    assert ints.dtype == tf.int64 and set(ints.numpy()) <= set(range(-3, 4))
    normal = tf.random.stateless_normal([2000], seed=[0, 1], mean=2.0, stddev=0.5,
                                        dtype=tf.float64).numpy()
    assert abs(normal.mean() - 2.0) < 0.05 and abs(normal.std() - 0.5) < 0.05

    @tf.function(autograph=False)
    def traced(seed):
        return tf.random.stateless_uniform([4], seed=seed)
    np.testing.assert_array_equal(traced(tf.constant([1, 2], tf.int64)).numpy(), a)


def test_dropout_keeps_the_expected_share_scaled():
    tf.random.set_seed(5)
    out = tf.nn.dropout(tf.ones([10000]), rate=0.25, seed=1).numpy()
    kept = out != 0
    np.testing.assert_allclose(out[kept], 1 / 0.75, rtol=1e-6)
    assert abs(kept.mean() - 0.75) < 0.02
    with tf.GradientTape() as tape:
        x = tf.ones([6, 2])
        tape.watch(x)
        y = tf.nn.dropout(x, 0.5, noise_shape=[6, 1], seed=2)
    g = tape.gradient(y, x).numpy()
    np.testing.assert_array_equal(g, y.numpy())  # the gradient is the same mask and scale
    assert np.all(g[:, 0] == g[:, 1])  # the noise shape broadcasts


def test_dropout_with_an_unknown_batch_size_in_a_graph():
    @tf.function(input_signature=[tf.TensorSpec([None, 4], tf.float32)], autograph=False)
    def drop(x):
        return tf.nn.dropout(x, 0.5, seed=3)
    tf.random.set_seed(0)
    out = drop(tf.ones([500, 4])).numpy()
    assert out.shape == (500, 4) and set(np.unique(out)) <= {0.0, 2.0}
    assert 0.4 < np.mean(out == 2.0) < 0.6
    again = drop(tf.ones([500, 4])).numpy()
    assert not np.array_equal(out, again)  # a new mask at every call
    shared = tf.function(lambda x: tf.nn.dropout(x, 0.5, noise_shape=tf.stack([
        tf.shape(x)[0], 1])), input_signature=[tf.TensorSpec([None, 3], tf.float32)],
        autograph=False)(tf.ones([50, 3])).numpy()
    assert np.all(shared == shared[:, :1])


@pytest.mark.parametrize("fn, error, pattern", [
    (lambda: tf.nn.dropout(tf.ones([2]), 1.5), ValueError, "rate"),
    (lambda: tf.random.stateless_uniform([2], [1, 2], dtype=tf.int32), ValueError, "maxval"),
])
def test_bad_arguments_raise_clear_python_errors(fn, error, pattern):
    with pytest.raises(error, match=pattern):
        fn()


# -- the empty shape, against the runtime alone (tests/op_cases.py) -------------------------------


_SCALAR_SHAPE_OPS = [
    ("random.uniform", lambda s: random_ops.uniform(s)),
    ("random.normal", lambda s: random_ops.normal(s)),
    ("random.uniform int", lambda s: random_ops.uniform(s, maxval=4, dtype=dtypes.int32)),
]

test_shape_taking_ops_accept_the_empty_shape = empty_shape_test(_SCALAR_SHAPE_OPS)
