"""A Python loop that adds more than 1,000 ops to one graph warns once,
naming its line, its iterations and the ops it added."""

import pytest

import autograph
import autograph.tf as tf
from runtime import diagnostics
from tests.autograph.source_lines import line_of

HERE = __file__


def constant_range_loop(x, y):
    for _ in range(600):  # two ops per iteration: 1,200 ops
        x = x * y + y
    return x


def test_a_loop_unrolled_into_more_than_the_limit_warns_at_its_line():
    f = tf.function(constant_range_loop)
    with pytest.warns(autograph.UnrollingWarning) as caught:
        f(tf.constant(1.0), tf.constant(0.5))
    assert len(caught) == 1
    warning = caught[0]
    line = line_of(constant_range_loop, "for _ in range(600)")
    assert (warning.filename, warning.lineno) == (HERE, line)
    text = str(warning.message)
    assert "%s:%d: " % (HERE, line) in text
    assert "ran 600 iterations" in text and "1200 ops" in text and "tf.range" in text
    f(tf.constant([1.0, 2.0]), tf.constant(0.5))  # a second trace: the loop warned once already


def short_loop(x, y):
    for _ in range(400):  # 800 ops: under the limit
        x = x * y + y
    return x


def test_a_loop_under_the_limit_does_not_warn():
    tf.function(short_loop)(tf.constant(1.0), tf.constant(0.5))


def test_a_tensor_loop_does_not_warn_however_long():
    @tf.function
    def f(x):
        for _ in tf.range(5000):
            x = x * 0.5 + 0.5
        return x

    f(tf.constant(1.0))


def python_list_loop(x, values):
    for v in values:  # a loop over an argument: converted, unrolled by for_stmt
        x = x * v
    return x


def test_a_loop_over_python_data_passed_in_warns():
    with pytest.warns(autograph.UnrollingWarning, match="ran 1100 iterations"):
        tf.function(python_list_loop)(tf.constant(1.0), [tf.constant(1.0)] * 1100)


def python_while_loop(x, y, n):
    i = 0
    while i < n:
        x = x * y + y
        i += 1
    return x


def test_a_python_while_loop_warns():
    with pytest.warns(autograph.UnrollingWarning, match="ran 600 iterations") as caught:
        tf.function(python_while_loop)(tf.constant(1.0), tf.constant(0.5), 600)
    assert caught[0].lineno == line_of(python_while_loop, "while i < n")


def test_the_limit_is_one_thousand_ops():
    assert diagnostics.UNROLL_LIMIT == 1000
