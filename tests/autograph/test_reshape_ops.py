"""tf.reshape's sizes resolved by TensorFlow's rules (one -1, sizes of 0) and refused in
TensorFlow's words: its kernel's text eagerly and when a graph runs, its shape function's
text (a ValueError) when a graph is built with the input's shape known."""

import numpy as np
import pytest

import autograph.tf as tf

_EAGER = ("{{function_node __wrapped__Reshape_device_/job:localhost/replica:0/task:0/"
          "device:CPU:0}} %s [Op:Reshape]")
_X = np.arange(30, dtype=np.int32).reshape(2, 3, 5)


def _message(error):
    """The error's message without the user's line this project appends."""
    return str(error).split("\n\nin user code:")[0]


def _eager_and_traced(x, sizes):
    traced = tf.function(lambda a: tf.reshape(a, sizes), autograph=False)
    return [tf.reshape(x, sizes), traced(x)]


@pytest.mark.parametrize("sizes, expected", [
    ([0, -1], (0, 3)),
    ([-1, 0], (3, 0)),
    ([3, -1, 0], (3, 1, 0)),
    ([5, 0, -1], (5, 0, 0)),
    ([7, -1], (7, 0)),
])
def test_a_tensor_of_zero_elements_takes_sizes_as_tensorflow_resolves_them(sizes, expected):
    for result in _eager_and_traced(tf.zeros([0, 3]), sizes):
        assert result.shape == expected


@pytest.mark.parametrize("sizes, text", [
    ([7, -1], "Input to reshape is a tensor with 30 values, but the requested shape "
              "requires a multiple of 7"),
    ([4, -1, 2], "Input to reshape is a tensor with 30 values, but the requested shape "
                 "requires a multiple of 8"),
    ([7, 5], "Input to reshape is a tensor with 30 values, but the requested shape has 35"),
    ([0, -1], "Input to reshape is a tensor with 30 values, but the requested shape has 0"),
    ([-1, -1, 3], "Only one input size may be -1, not both 0 and 1"),
    ([-3], "Size 0 must be non-negative, not -3"),
    ([2, -5, -1], "Size 1 must be non-negative, not -5"),
    ([[2, 15]], "sizes input must be 1-D, not [1,2]"),
])
def test_an_eager_refusal_is_tensorflows_kernel_text(sizes, text):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.reshape(tf.constant(_X), sizes)
    assert _message(info.value) == _EAGER % text
    assert __file__ in str(info.value)  # the user's line


@pytest.mark.parametrize("sizes, text", [
    ([7, -1], "Input to reshape is a tensor with 30 values, but the requested shape "
              "requires a multiple of 7"),
    ([7, 5], "Input to reshape is a tensor with 30 values, but the requested shape has 35"),
    ([-1, -1, 3], "Only one input size may be -1, not both 0 and 1"),
    ([-3], "Size 0 must be non-negative, not -3"),
])
def test_a_refusal_when_a_graph_runs_names_the_node_then_the_kernel_text(sizes, text):
    @tf.function(input_signature=[tf.TensorSpec(None, tf.int32)], autograph=False)
    def f(x):
        return tf.reshape(x, sizes)

    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant(_X))
    assert _message(info.value) == "graph node 'Reshape' (Reshape) of f failed: " + text


@pytest.mark.parametrize("sizes, text", [
    ([7, -1], "Dimension size must be evenly divisible by 7 but is 30"),
    ([7, 5], "Cannot reshape a tensor with 30 elements to shape [7,5] (35 elements)"),
    ([0, -1], "Cannot reshape a tensor with 30 elements to shape [0,?] (0 elements)"),
])
def test_a_refusal_while_tracing_a_known_shape_is_a_value_error_in_the_shape_functions_words(
        sizes, text):
    with pytest.raises(ValueError) as info:
        tf.function(lambda x: tf.reshape(x, sizes), autograph=False)(tf.constant(_X))
    assert _message(info.value).startswith("Reshape: %s (operands: " % text)


def test_a_negative_size_is_refused_never_read_as_minus_one():
    for sizes in ([-3], [-2, 15]):
        with pytest.raises(tf.errors.InvalidArgumentError, match="must be non-negative"):
            tf.reshape(tf.constant(_X), sizes)
        with pytest.raises(tf.errors.InvalidArgumentError, match="must be non-negative"):
            tf.function(lambda x: tf.reshape(x, sizes), autograph=False)(tf.constant(_X))
