"""Timing helpers: adaptive repetition counts, interleaved samples, medians.

Each variant is a zero-overhead pair `(fn, args)`; one timed *sample* calls `fn(*args)`
`number` times in a tight loop (as `timeit` does: `itertools.repeat`, garbage collector off)
and divides by `number`. `number` is chosen per variant so that one sample lasts about
`target_time` seconds. Samples of the variants being compared are interleaved (A B C, then
C B A, ...) so that slow drifts of the machine (frequency scaling, other processes) hit every
variant alike, and the median over samples is reported.
"""

import gc
import itertools
import math
import statistics
import time

_perf_counter = time.perf_counter


class Settings:
    """How long and how often to measure."""

    def __init__(self, samples=7, min_time=0.02, target_time=0.03):
        self.samples = samples          # timed samples per variant
        self.min_time = min_time        # calibration stops once a run lasts this long
        self.target_time = target_time  # wanted duration of one sample, in seconds


FULL = Settings(samples=7, min_time=0.02, target_time=0.03)
QUICK = Settings(samples=3, min_time=0.01, target_time=0.015)


def time_calls(fn, args, number):
    """Seconds taken by `number` calls of `fn(*args)` (garbage collection disabled)."""
    loop = itertools.repeat(None, number)
    gc_enabled = gc.isenabled()
    gc.disable()
    try:
        start = _perf_counter()
        for _ in loop:
            fn(*args)
        end = _perf_counter()
    finally:
        if gc_enabled:
            gc.enable()
    return end - start


def calibrate(fn, args, settings):
    """The number of calls that makes one sample last about `settings.target_time`."""
    number = 1
    while True:
        elapsed = time_calls(fn, args, number)
        if elapsed >= settings.min_time:
            break
        # Grow towards the target, at most 100x per step (the first calls may be cold).
        guess = math.ceil(number * settings.target_time / max(elapsed, 1e-7))
        number = max(number + 1, min(number * 100, guess))
    # One more run at this count: the faster of the two is the better estimate (a single
    # interruption must not shrink every sample of the variant).
    elapsed = min(elapsed, time_calls(fn, args, number))
    return max(1, round(number * settings.target_time / elapsed))


def measure(variants, settings):
    """Times `variants` (objects with `.fn` and `.args`) interleaved.

    Returns one list of per-call times (seconds) per variant, in the given order; entry `i`
    of every list comes from the same round of samples, so they can be compared pairwise.
    """
    numbers = [calibrate(v.fn, v.args, settings) for v in variants]
    times = [[] for _ in variants]
    order = list(range(len(variants)))
    for sample in range(settings.samples):
        gc.collect()
        for i in (order if sample % 2 == 0 else reversed(order)):
            variant = variants[i]
            times[i].append(time_calls(variant.fn, variant.args, numbers[i]) / numbers[i])
    return times, numbers


def median(values):
    """The median of a non-empty sequence."""
    return statistics.median(values)


def paired_ratio(numerator, denominator):
    """The median of per-sample ratios numerator[i] / denominator[i].

    Samples of one round ran next to each other, so their ratio cancels slow drifts better
    than the ratio of the two medians."""
    return statistics.median(a / b for a, b in zip(numerator, denominator))


def spread(values):
    """(max - min) / median: how much the samples disagree, as a fraction."""
    mid = statistics.median(values)
    return (max(values) - min(values)) / mid if mid > 0 else 0.0
