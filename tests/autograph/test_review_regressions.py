"""Regressions found by an adversarial review of issue 8 (composite state, run-time
definedness, try/return, training loops): each program gives plain Python's answer."""

import pytest

import autograph
import autograph.tf as tf


def value(result):
    return result.numpy().tolist() if hasattr(result, "numpy") else result


# -- the executor ----------------------------------------------------------------------------


def c8(n):  # the executor binds its constants as c<N>: a function may be named like one
    items = [1, 2, 3]
    for i in tf.range(n):
        items[1] = items[1] + i
    return items


def np(n):  # noqa: F811 (named like the module the executor's code calls)
    return n * 2 + tf.reduce_sum(tf.ones([2], tf.int32))


def test_a_function_named_like_an_executor_constant_keeps_its_constants():
    assert value(tf.function(c8)(tf.constant(3))) == [1, 5, 3]
    assert value(tf.function(np)(tf.constant(3))) == 8
