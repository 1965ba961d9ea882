"""`autograph check` AG701 (a new Python number per call retraces) leaves alone parameters
passed as a later argument of a tf function (an axis, a depth, a number of pieces): a
tensor cannot give those, so a trace per value is what the code needs."""

import textwrap

import pytest

from autograph import lint


def codes(source):
    source = "import autograph.tf as tf\n" + textwrap.dedent(source)
    return sorted(f.code for f in lint.check_source(source, "m.py"))


@pytest.mark.parametrize("call", ["tf.reduce_sum(x, k)", "tf.one_hot(x, k)",
                                  "tf.expand_dims(x, axis=k)", "tf.concat([x, x], k)"])
def test_a_parameter_given_as_a_static_argument_is_left_alone(call):
    assert codes('''
        @tf.function
        def f(x, k):
            return %s
        f(tf.ones([2, 2]), 0)
        f(tf.ones([2, 2]), 1)
        ''' % call) == []


def test_a_parameter_given_as_the_input_of_a_tf_function_is_reported():
    assert codes('''
        @tf.function
        def f(x, n):
            return tf.reduce_sum(tf.range(n)) + x
        f(1.0, 2)
        f(1.0, 3)
        ''') == ["AG701"]
