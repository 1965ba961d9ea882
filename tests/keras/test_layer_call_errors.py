"""An error raised in a layer's `call` is worded as Keras 3 words it: the layer, the
error's own message in bold, and the arguments the call received; the error keeps its
class, and only the innermost failing layer words it."""

import re

import pytest

import autograph.tf as tf

keras = tf.keras


class Projection(keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(3, 3), name="w")

    def call(self, inputs, training=None):
        return tf.matmul(inputs, self.w)


class Refusing(keras.layers.Layer):
    def call(self, inputs, scale=2):
        raise ValueError("no inputs wanted")


def test_an_op_error_in_call_names_the_layer_and_its_arguments_and_keeps_its_class():
    layer = Projection()
    layer(tf.ones([1, 3]))
    with pytest.raises(tf.errors.InvalidArgumentError) as caught:
        layer(tf.ones([1, 4]))
    message = str(caught.value)
    assert message.startswith("Exception encountered when calling Projection.call().\n\n"
                              "\x1b[1m")
    head, bold, tail = message.partition("\x1b[0m")
    assert "MatMul" in head and "in user code:" not in head  # the op's own message
    assert tail.startswith("\n\nArguments received by Projection.call():\n"
                           "  • inputs=tf.Tensor(shape=(1, 4), dtype=float32)\n"
                           "  • training=None")
    # this project's note of the user's line follows Keras's text
    assert re.search(r"\n\nin user code:\n  .*test_layer_call_errors\.py", tail)
    assert caught.value.message == message and caught.value.op_name == "MatMul"


def test_a_python_error_in_call_is_worded_by_the_innermost_layer_alone():
    model = keras.Sequential([Refusing(name="refusing")])
    with pytest.raises(ValueError) as caught:
        model(tf.ones([2, 3]), training=True)
    message = str(caught.value)
    assert message == ("Exception encountered when calling Refusing.call().\n\n"
                       "\x1b[1mno inputs wanted\x1b[0m\n\n"
                       "Arguments received by Refusing.call():\n"
                       "  • inputs=tf.Tensor(shape=(2, 3), dtype=float32)\n"
                       "  • scale=2")
    assert caught.value.__cause__ is None and caught.value.__suppress_context__

    class Stop(Exception):  # not a tf.errors or built-in class: passed through unchanged
        def __init__(self, reason, code):
            super().__init__(reason)
            self.code = code

    class Stopping(keras.layers.Layer):
        def call(self, inputs):
            raise Stop("halt", 7)

    with pytest.raises(Stop) as stopped:
        Stopping()(tf.ones([1]))
    assert str(stopped.value) == "halt" and stopped.value.code == 7

