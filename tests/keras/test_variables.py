"""Keras 3's variables: a weight's `name` ('kernel') and `path` (the scopes of the layers
that made it: 'sequential/dense/kernel'), its printed form, the names of optimizer and
metric variables, and which variables a layer tracks (its own, not a plain tf.Variable)."""

import numpy as np

import autograph.tf as tf

keras = tf.keras


def _paths(layer):
    return [(v.name, v.path) for v in layer.weights]


def test_a_dense_layers_weights_are_named_kernel_and_bias_under_the_layers_path():
    dense = keras.layers.Dense(2, name="proj")
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(dense(tf.ones([1, 3])))
    assert _paths(dense) == [("kernel", "proj/kernel"), ("bias", "proj/bias")]
    # still the runtime's Variables: differentiated, trained and checkpointed as any other
    assert isinstance(dense.kernel, tf.Variable)
    grads = tape.gradient(loss, dense.trainable_variables)
    assert [g.shape for g in grads] == [(3, 2), (2,)]


def test_a_layer_built_inside_a_model_has_the_models_name_in_its_path():
    sequential = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, name="d1"),
                                   keras.layers.BatchNormalization(name="bn")], name="seq")
    assert _paths(sequential) == [
        ("kernel", "seq/d1/kernel"), ("bias", "seq/d1/bias"), ("gamma", "seq/bn/gamma"),
        ("beta", "seq/bn/beta"), ("moving_mean", "seq/bn/moving_mean"),
        ("moving_variance", "seq/bn/moving_variance")]

    class Wrapper(keras.Model):
        def __init__(self):
            super().__init__(name="wrapper")
            self.inner = keras.layers.Dense(2, name="inner")

        def call(self, x):
            return self.inner(x)

    wrapper = Wrapper()
    wrapper(tf.ones([1, 3]))
    assert [v.path for v in wrapper.weights] == ["wrapper/inner/kernel", "wrapper/inner/bias"]
    built_first = Wrapper()
    built_first.inner(tf.ones([1, 3]))  # built on its own: its path is its own
    assert [v.path for v in built_first.weights] == ["inner/kernel", "inner/bias"]


def test_a_functional_models_layers_are_built_outside_any_scope():
    x = keras.Input((3,))
    model = keras.Model(x, keras.layers.Dense(2, name="head")(x), name="functional_model")
    assert [v.path for v in model.weights] == ["head/kernel", "head/bias"]


def test_add_weight_without_a_name_gets_keras_numbered_variable_names():
    class Pair(keras.layers.Layer):
        def build(self, input_shape):
            self.a = self.add_weight(shape=(2,))
            self.b = self.add_weight(shape=(2,), name="b")

    pair = Pair(name="pair")
    pair(tf.ones([1, 2]))
    (first, first_path), second = _paths(pair)
    assert first.startswith("variable") and first_path == "pair/" + first
    assert second == ("b", "pair/b")


def test_a_keras_variable_prints_as_keras_prints_it():
    dense = keras.layers.Dense(2, name="printed")
    dense(tf.ones([1, 3]))
    assert repr(dense.bias) == ("<Variable path=printed/bias, shape=(2,), dtype=float32, "
                                "value=[0. 0.]>")
    printed_in_a_trace = []
    tf.function(lambda: printed_in_a_trace.append(repr(dense.bias)))()
    assert printed_in_a_trace == ["<Variable path=printed/bias, shape=(2,), dtype=float32>"]


def test_optimizer_and_metric_variables_have_keras_names_and_paths():
    dense = keras.layers.Dense(1, name="fc")
    dense(tf.ones([1, 2]))
    adam = keras.optimizers.Adam()
    adam.build(dense.trainable_variables)
    assert [v.name for v in adam.variables] == [
        "iteration", "learning_rate", "fc_kernel_momentum", "fc_kernel_velocity",
        "fc_bias_momentum", "fc_bias_velocity"]
    assert adam.variables[2].path == "adam/fc_kernel_momentum"
    auc = keras.metrics.AUC()
    assert [v.path for v in auc.variables][:2] == ["auc/true_positives", "auc/false_positives"]


def test_a_layer_does_not_track_tf_variables_set_as_attributes():
    class WithPlainVariables(keras.layers.Layer):
        def build(self, input_shape):
            self.w = tf.Variable(tf.ones([input_shape[-1], 2]), name="w")
            self.b = tf.Variable(tf.zeros([2]), name="b")

        def call(self, inputs):
            return tf.matmul(inputs, self.w) + self.b

    layer = WithPlainVariables()
    out = layer(tf.ones([1, 3]))
    np.testing.assert_array_equal(out.numpy(), [[3.0, 3.0]])
    assert layer.variables == [] and layer.trainable_weights == []
    assert layer.w.name == "w:0"  # still a tf.Variable, named as TensorFlow names it

