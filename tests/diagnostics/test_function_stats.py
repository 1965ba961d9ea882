"""`Function.stats()` puts the cost of tracing in numbers."""

import autograph.tf as tf
from runtime import function_stats


def _counted():
    runs = []

    @tf.function
    def f(x):
        runs.append("ran")
        return x * 2.0 + 1.0

    return f, runs


def test_stats_count_traces_and_calls_and_time_the_tracing():
    f, _ = _counted()
    for _ in range(5):
        f(tf.constant([1.0, 2.0]))
    f(tf.constant([1.0, 2.0, 3.0]))
    stats = f.stats()
    assert (stats.traces, stats.calls) == (2, 6)
    assert stats.trace_seconds > 0
    assert stats.mean_call_seconds is not None and stats.mean_call_seconds > 0
    assert stats.eager_seconds is None and stats.calls_to_repay is None


def test_the_mean_call_time_is_sampled_from_the_second_call():
    f, _ = _counted()
    f(tf.constant(1.0))
    assert f.stats().mean_call_seconds is None  # the first call compiles: not a sample
    f(tf.constant(1.0))
    assert f.stats().mean_call_seconds is not None
    assert function_stats.SAMPLE_EVERY == 16


def test_calls_are_counted_past_many_sampling_periods():
    f, _ = _counted()
    for _ in range(100):
        f(tf.constant(1.0))
    stats = f.stats()
    assert stats.calls == 100
    assert f._clock.samples == 7  # calls 2, 18, 34, 50, 66, 82, 98


def test_sampling_thins_out_after_the_dense_samples_and_still_counts_every_call(monkeypatch):
    f, _ = _counted()
    sampled = []
    timed_call = function_stats.CallClock.timed_call

    def noting(clock, run, feeds):
        sampled.append(f.stats().calls)
        return timed_call(clock, run, feeds)

    monkeypatch.setattr(function_stats.CallClock, "timed_call", noting)
    calls = 1300
    for _ in range(calls):
        f(tf.constant(1.0))
    dense = function_stats.DENSE_SAMPLES
    # the second call, then one in 16 until 64 samples, then one in 256
    assert sampled[:3] == [2, 18, 34]  # (the call numbers of the timed calls)
    assert sampled[dense - 1] == 2 + 16 * (dense - 1)
    assert sampled[dense] == sampled[dense - 1] + function_stats.SPARSE_SAMPLE_EVERY
    assert len(sampled) == dense + 1 and f.stats().calls == calls


def test_the_mean_weighs_each_sample_by_the_calls_it_stands_for(monkeypatch):
    ticks = iter([0.0, 1.0, 5.0, 5.0])  # a dense sample of 1 s, then a sparse one of 0 s
    monkeypatch.setattr(function_stats.time, "perf_counter", lambda: next(ticks))
    clock = function_stats.CallClock()
    clock.period = function_stats.SAMPLE_EVERY
    clock.timed_call(lambda feeds: None, [])
    clock.period = function_stats.SPARSE_SAMPLE_EVERY
    clock.timed_call(lambda feeds: None, [])
    stats = function_stats.function_stats("f", 1, [], clock, 1, None, False)
    # 16 calls of 1 s and 256 of 0 s: 16 / 272 s a call, not the samples' 0.5 s
    assert abs(stats.mean_call_seconds - 16 / 272) < 1e-12


def test_the_eager_comparison_runs_the_python_function_only_when_asked():
    f, runs = _counted()
    f(tf.constant(1.0))
    f(tf.constant(2.0))
    f.stats()
    assert runs == ["ran"]  # the trace only
    stats = f.stats(compare_eager=True)
    assert runs == ["ran", "ran"]  # one eager run, on the first call's arguments
    assert stats.eager_seconds is not None and stats.eager_seconds > 0
    if stats.calls_to_repay is not None:
        assert stats.calls_to_repay >= 1


def test_calls_to_repay_is_the_trace_cost_over_the_saving_per_call():
    assert function_stats.calls_to_repay(1.0, 0.1, 0.6) == 2
    assert function_stats.calls_to_repay(1.0, 0.1, 0.1) is None  # no saving: never
    assert function_stats.calls_to_repay(1.0, None, 0.3) is None


def test_str_is_a_table():
    f, _ = _counted()
    f(tf.constant(1.0))
    f(tf.constant(1.0))
    text = str(f.stats(compare_eager=True))
    assert text.startswith("Function f\n")
    for label in ("traces", "trace+convert time", "calls", "mean call time", "eager run",
                  "trace repaid after"):
        assert "\n  " + label in text


def test_a_function_with_an_input_signature_counts_its_calls():
    f = tf.function(lambda x: x + 1, input_signature=[tf.TensorSpec([None], tf.float32)])
    f(tf.constant([1.0]))
    f(tf.constant([1.0, 2.0]))
    stats = f.stats()
    assert (stats.traces, stats.calls) == (1, 2)
    assert stats.mean_call_seconds is not None


def test_the_first_calls_objects_are_not_kept_alive_for_the_eager_comparison():
    import gc
    import weakref

    class Scale:
        factor = 3.0

    model = Scale()
    clock = function_stats.CallClock()
    clock.keep_inputs((model, tf.constant(1.0)), {"scale": [model]})
    alive = weakref.ref(model)
    del model
    gc.collect()
    assert alive() is None
    stats = function_stats.function_stats("f", 1, [], clock, 1, lambda *a, **k: None, True)
    assert stats.eager_seconds is None
    assert stats.eager_unavailable == "a Scale argument of the first call no longer exists"
    assert "no eager run: a Scale argument" in str(stats)


def test_the_eager_comparison_runs_on_a_live_object_argument():
    class Scale:
        factor = 3.0

    runs = []

    @tf.function
    def f(model, x):
        runs.append(model)
        return x * model.factor

    model = Scale()
    f(model, tf.constant(1.0))
    stats = f.stats(compare_eager=True)
    assert runs == [model, model] and stats.eager_seconds is not None


def test_large_first_arguments_are_not_kept(monkeypatch):
    import numpy as np

    monkeypatch.setattr(function_stats, "KEEP_BYTES", 1024)
    f, runs = _counted()
    f(tf.constant(np.ones(1024, np.float32)))  # 4 KiB
    stats = f.stats(compare_eager=True)
    assert runs == ["ran"] and stats.eager_seconds is None
    assert stats.eager_unavailable == ("the first call's arguments hold more than 0 MiB, "
                                       "which a Function does not keep")
