"""`get_concrete_function` of a Function with an input_signature refuses arguments that do
not fit it (as a call does), instead of returning the signature's trace for them: so
`autograph.explain` and `autograph graph` never report a graph for other arguments."""

import pytest

import autograph
import autograph.tf as tf


@tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
def double(x):
    return x * 2.0


@pytest.mark.parametrize("given", [tf.TensorSpec([None, 4], tf.float32),
                                   tf.TensorSpec([None, 3], tf.int32),
                                   tf.TensorSpec(None, tf.float32)])
def test_a_spec_that_does_not_fit_the_signature_is_refused(given):
    with pytest.raises(TypeError, match="incompatible with input_signature"):
        double.get_concrete_function(given)
    with pytest.raises(TypeError, match="incompatible with input_signature"):
        autograph.explain(double, given)


def test_a_value_that_does_not_fit_the_signature_is_refused():
    with pytest.raises(TypeError, match="incompatible with input_signature"):
        double.get_concrete_function(tf.ones([2, 2]))


@pytest.mark.parametrize("given", [tf.TensorSpec([2, 3], tf.float32),
                                   tf.TensorSpec([None, 3], tf.float32), tf.ones([1, 3])])
def test_arguments_that_fit_get_the_signature_trace(given):
    assert double.get_concrete_function(given) is double.get_concrete_function()
