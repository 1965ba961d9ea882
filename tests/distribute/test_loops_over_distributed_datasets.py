"""Loops over a distributed dataset or its iterator give the same results in a Function as
eagerly: the cases of TensorFlow's AutoGraph reference test `loop_distributed_test.py`
(written here anew), on a CPU split into two logical devices."""

import pytest

import autograph.tf as tf


def no_vars_loop(strat, iterable):
    for pr in iterable:
        tf.print(strat.reduce("SUM", pr, axis=0))


def single_var_loop(strat, iterable):
    s = 0
    for pr in iterable:
        s = s * 10 + strat.reduce("SUM", pr, axis=0)
    return s


def loop_with_break(strat, iterable):
    s = 0
    for pr in iterable:
        if strat.reduce("SUM", pr, axis=0) % 5 == 0:
            break
        s = s * 10 + strat.reduce("SUM", pr, axis=0)
    return s


def loop_with_continue(strat, iterable):
    s = 0
    for pr in iterable:
        if strat.reduce("SUM", pr, axis=0) % 2 == 0:
            continue
        s = s * 10 + strat.reduce("SUM", pr, axis=0)
    return s


def two_vars_loop(strat, iterable):
    s = 0
    p = 1
    for pr in iterable:
        e = strat.reduce("SUM", pr, axis=0)
        s += e
        p *= e
    return s, p


def iterator_next(strat, iterable):
    itr = iter(iterable)
    return strat.reduce("SUM", next(itr), axis=0)


def iterator_next_multiple_calls(strat, iterable):
    itr = iter(iterable)
    a = strat.reduce("SUM", next(itr), axis=0)
    b = strat.reduce("SUM", next(itr), axis=0)
    return a * 10 + b


def iterator_next_in_limited_loop(strat, iterable, n):
    itr = iter(iterable)
    s = 0
    for _ in n:
        s = s * 10 + strat.reduce("SUM", next(itr), axis=0)
    return s


def iterator_next_stopping(strat, iterable, cond):
    itr = iter(iterable)
    while cond:
        strat.reduce("SUM", next(itr), axis=0)


def iterator_next_with_catching_stop_iteration(strat, iterable, cond):
    itr = iter(iterable)
    try:
        while cond:
            strat.reduce("SUM", next(itr), axis=0)
    except StopIteration:
        pass


@pytest.fixture
def distributed(logical_cpus):
    """A function making (strategy, distributed dataset of rows [0..3], [4..7], [8..11])."""
    logical_cpus(2)

    def make():
        strat = tf.distribute.MirroredStrategy()
        ds = tf.data.Dataset.from_tensor_slices(tf.reshape(tf.range(12), (3, 4)))
        return strat, strat.experimental_distribute_dataset(ds)
    return make


def _plain(value):
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return None if value is None else int(value.numpy() if hasattr(value, "numpy") else value)


def _eager_and_function(fn, make, as_iterator, *args):
    results = []
    for run in (fn, tf.function(fn)):
        strat, data = make()
        results.append(_plain(run(strat, iter(data) if as_iterator else data, *args)))
    return results


@pytest.mark.parametrize("as_iterator", [False, True], ids=["dataset", "iterator"])
@pytest.mark.parametrize("fn, expected", [
    (no_vars_loop, None),
    (single_var_loop, 6 * 100 + 22 * 10 + 38),
    (two_vars_loop, (66, 6 * 22 * 38)),
    (loop_with_break, 858),  # (no sum is a multiple of 5)
    (loop_with_continue, 0),  # (every sum is even)
])
def test_a_loop_over_distributed_data_matches_eager(distributed, fn, expected, as_iterator):
    eager, staged = _eager_and_function(fn, distributed, as_iterator)
    assert eager == staged == expected


def test_no_vars_loop_prints_each_reduced_batch(distributed, capfd):
    strat, data = distributed()
    tf.function(no_vars_loop)(strat, data)
    assert capfd.readouterr().err.split() == ["6", "22", "38"]  # (tf.print: stderr)


def test_next_of_a_distributed_dataset_iterator_matches_eager(distributed):
    assert _eager_and_function(iterator_next, distributed, False) == [6, 6]
    assert _eager_and_function(iterator_next_multiple_calls, distributed, False) == [82, 82]


@pytest.mark.parametrize("count", [0, 1, 2])
@pytest.mark.parametrize("kind", [range, tf.range], ids=["range", "tf.range"])
def test_next_in_a_limited_loop_matches_eager(distributed, count, kind):
    expected = [0, 6, 6 * 10 + 22][count]
    assert _eager_and_function(iterator_next_in_limited_loop, distributed, False,
                               kind(count)) == [expected, expected]


def test_next_past_the_end_in_a_function_raises_out_of_range(distributed):
    strat, data = distributed()
    with pytest.raises(tf.errors.OutOfRangeError):
        tf.function(iterator_next_stopping)(strat, data, tf.constant(True))


def test_catching_stop_iteration_around_a_staged_loop_raises_out_of_range_when_run(
        distributed):
    # as in TensorFlow: no graph op raises StopIteration, so the `except` never catches and
    # the Function raises OutOfRangeError when the iterator ends (a staged loop inside a
    # `try` that catches only StopIteration is staged, see docs/semantics.md)
    strat, data = distributed()
    with pytest.raises(tf.errors.OutOfRangeError):
        tf.function(iterator_next_with_catching_stop_iteration)(strat, data, tf.constant(True))


def loop_breaking_its_shape_invariant(strat, iterable):
    t = tf.constant([1])
    for _ in iterable:
        tf.autograph.experimental.set_loop_options(shape_invariants=[(t, tf.TensorShape([1]))])
        t = tf.range(tf.random.uniform((), 2, 3, dtype=tf.int32))
    return t


def loop_keeping_its_shape_invariant(strat, iterable):
    t = tf.constant([1])
    for pr in iterable:
        tf.autograph.experimental.set_loop_options(shape_invariants=[(t, tf.TensorShape([None]))])
        t = tf.concat([t, [strat.reduce("SUM", pr, axis=0)]], 0)
    return tf.reduce_sum(t)


@pytest.mark.parametrize("as_iterator", [False, True], ids=["dataset", "iterator"])
def test_shape_invariants_of_a_loop_over_distributed_data_are_honoured(distributed,
                                                                       as_iterator):
    strat, data = distributed()
    with pytest.raises(ValueError, match=r"'t' has shape \(None,\) after an iteration, "
                       r"which does not fit its shape invariant \(1,\)"):
        tf.function(loop_breaking_its_shape_invariant)(
            strat, iter(data) if as_iterator else data)
    assert _eager_and_function(loop_keeping_its_shape_invariant, distributed, as_iterator) == \
        [1 + 6 + 22 + 38] * 2
