"""Subclassed models: layers and variables set as attributes (alone or in lists) are
tracked, `build(input_shape)` makes the weights, `training=` reaches `call`, a `call`
with Python control flow over tensors is converted when traced, and such a model trains
with `fit`."""

import numpy as np
import pytest

import autograph.tf as tf

keras = tf.keras


class TwoLayers(keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = keras.layers.Dense(4, activation="relu")
        self.out = keras.layers.Dense(1)

    def call(self, inputs, training=False):
        return self.out(self.hidden(inputs))


class Blocks(keras.Model):
    def __init__(self):
        super().__init__()
        self.blocks = [keras.layers.Dense(3), keras.layers.Dense(3)]
        self.scale = self.add_weight(shape=(), initializer=keras.initializers.Constant(2.0),
                                     name="scale")
        self.untracked = tf.Variable(1.0)  # Keras 3 tracks only its own variables
        self.seen_training = []

    def call(self, inputs, training=None):
        self.seen_training.append(training)
        for block in self.blocks:
            inputs = block(inputs)
        return inputs * self.scale


class Gated(keras.Model):
    """Doubles its output when the input sums above zero: an `if` on a tensor."""

    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(1, kernel_initializer="ones")

    def call(self, inputs):
        out = self.dense(inputs)
        if tf.reduce_sum(inputs) > 0:
            out = out * 2.0
        return out


def test_layers_set_as_attributes_are_tracked_in_order():
    model = TwoLayers(name="two_layers")
    assert model.name == "two_layers" and TwoLayers().name.startswith("two_layers")
    assert model.layers == [model.hidden, model.out]
    model(np.ones((2, 3), np.float32))
    assert [v.shape for v in model.trainable_variables] == [(3, 4), (4,), (4, 1), (1,)]


def test_layers_in_a_list_and_keras_variables_are_tracked_but_not_tf_variables():
    model = Blocks()
    assert model.layers == model.blocks
    model.build((None, 2))
    assert model.built
    assert model.scale in model.trainable_variables
    assert all(v is not model.untracked for v in model.variables)
    assert len(model.trainable_variables) == 5
    x = np.ones((1, 2), np.float32)
    (w1, b1), (w2, b2) = model.blocks[0].get_weights(), model.blocks[1].get_weights()
    np.testing.assert_allclose(model(x).numpy(), ((x @ w1 + b1) @ w2 + b2) * 2.0, rtol=1e-6)


def test_layers_appended_to_a_list_attribute_after_it_was_set_are_tracked():
    class Appended(keras.Model):
        def __init__(self):
            super().__init__()
            self.stack = []
            for units in (3, 2):
                self.stack.append(keras.layers.Dense(units))

        def call(self, inputs):
            for layer in self.stack:
                inputs = layer(inputs)
            return inputs

    model = Appended()
    model(np.ones((1, 4), np.float32))
    assert model.layers == model.stack
    assert [v.shape for v in model.trainable_variables] == [(4, 3), (3,), (3, 2), (2,)]


def test_training_is_passed_to_call():
    model = Blocks()
    x = np.ones((1, 2), np.float32)
    model(x, training=True)
    model(x)
    assert model.seen_training[-2:] == [True, None]


def test_a_call_with_an_if_on_a_tensor_is_converted_inside_a_function():
    model = Gated()
    step = tf.function(lambda x: model(x))
    np.testing.assert_allclose(step(tf.constant([[1.0, 2.0]])).numpy(), [[6.0]])
    np.testing.assert_allclose(step(tf.constant([[-1.0, -2.0]])).numpy(), [[-3.0]])
    assert step.experimental_get_tracing_count() == 1


def test_a_subclassed_model_trains_with_fit_and_its_traced_step():
    x = np.linspace(-1, 1, 32, dtype=np.float32).reshape(16, 2)
    y = x @ np.array([[1.0], [-2.0]], np.float32)
    model = Gated()
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse")
    history = model.fit(x, y, batch_size=4, epochs=5, verbose=0, shuffle=False)
    losses = history.history["loss"]
    assert len(losses) == 5 and losses[-1] < losses[0]
    assert history.epoch == [0, 1, 2, 3, 4]
    assert model.train_function.experimental_get_tracing_count() == 1


def test_a_subclass_summary_lists_its_layers():
    model = TwoLayers()
    model(np.ones((1, 3), np.float32))
    lines = []
    model.summary(print_fn=lines.append)
    assert any("(Dense)" in line and line.rstrip(" │").endswith("16") for line in lines)
    assert " Total params: 21 (84.00 B)" in lines


def test_a_subclass_given_inputs_and_outputs_is_a_clear_error():
    x = keras.Input((2,))
    with pytest.raises(TypeError, match="subclassed functional model is not supported"):
        TwoLayers(inputs=x, outputs=x)
