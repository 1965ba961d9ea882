"""Losses a model adds to its compiled loss: `add_loss` in a layer's or a model's `call`,
and kernel, bias and activity regularizers; against the numbers real Keras 3.15 gives for
the same weights and data (fixtures made by data/make_keras_loss_fixtures.py), and against
the regularizers' formulas."""

import os

import numpy as np
import pytest

import autograph.tf as tf

keras = tf.keras
DATA = os.path.join(os.path.dirname(__file__), "data")
TOLERANCE = {"rtol": 1e-6, "atol": 1e-6}


def _fixture(name):
    with np.load(os.path.join(DATA, name)) as data:
        return {key: data[key] for key in data.files}


def _train_and_compare(model, data):
    model.set_weights([data["initial_%d" % i] for i in range(len(model.get_weights()))])
    model.compile(optimizer=keras.optimizers.SGD(0.1),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    history = model.fit(data["x"], data["y"], batch_size=8, epochs=3, shuffle=False,
                        verbose=0).history
    np.testing.assert_allclose(history["loss"], data["history__loss"], **TOLERANCE)
    np.testing.assert_allclose(history["accuracy"], data["history__accuracy"], **TOLERANCE)
    for i, weight in enumerate(model.get_weights()):
        np.testing.assert_allclose(weight, data["final_%d" % i], **TOLERANCE)
    assert model.metrics_names == list(data["metrics_names"]) == ["loss", "compile_metrics"]
    np.testing.assert_allclose(model.evaluate(data["x"], data["y"], batch_size=8, verbose=0),
                               data["evaluate"], **TOLERANCE)
    model(data["x"][:6])
    np.testing.assert_allclose([float(loss) for loss in model.losses],
                               data["losses_after_call"], **TOLERANCE)


def test_regularized_layers_train_to_keras_losses_and_weights():
    model = keras.Sequential([
        keras.Input((4,)),
        keras.layers.Dense(5, activation="relu",
                           kernel_regularizer=keras.regularizers.L2(0.02),
                           bias_regularizer="l1",
                           activity_regularizer=keras.regularizers.L1L2(l1=0.001, l2=0.003)),
        keras.layers.Dense(3, kernel_regularizer="l2",
                           bias_regularizer=keras.regularizers.L1(0.05)),
    ])
    _train_and_compare(model, _fixture("regularized.npz"))


class ActivityPenalty(keras.layers.Layer):
    """Adds rate * mean(inputs ** 2) to the losses; passes its inputs through."""

    def __init__(self, rate, **kwargs):
        super().__init__(**kwargs)
        self.rate = rate

    def call(self, inputs):
        self.add_loss(self.rate * tf.reduce_mean(tf.square(inputs)))
        return inputs


class PenalizedMLP(keras.Model):
    """Dense-penalty-Dense; the model adds 0.01 * sum(|outputs|) itself."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.hidden = keras.layers.Dense(5, activation="relu")
        self.penalty = ActivityPenalty(0.1)
        self.out = keras.layers.Dense(3)

    def call(self, inputs):
        outputs = self.out(self.penalty(self.hidden(inputs)))
        self.add_loss(0.01 * tf.reduce_sum(tf.abs(outputs)))
        return outputs


def test_losses_added_in_call_by_a_layer_and_a_model_train_as_keras_trains():
    data = _fixture("add_loss.npz")
    model = PenalizedMLP()
    model(data["x"][:1])
    _train_and_compare(model, data)


def test_each_call_replaces_the_losses_of_the_previous_one():
    layer = ActivityPenalty(1.0)
    layer(np.full((2, 2), 2.0, np.float32))
    layer(np.full((2, 2), 3.0, np.float32))
    assert [float(loss) for loss in layer.losses] == [9.0]
    model = PenalizedMLP()
    model(np.ones((1, 4), np.float32))
    model(np.ones((1, 4), np.float32))
    assert len(model.losses) == 2  # the model's own, then its layer's


def test_building_a_model_on_placeholders_leaves_no_losses():
    x = keras.Input((2,))
    functional = keras.Model(x, ActivityPenalty(1.0)(x))
    assert functional.losses == []
    subclassed = PenalizedMLP()
    subclassed.build((None, 4))
    assert subclassed.losses == []
    functional(np.ones((1, 2), np.float32))
    assert [float(loss) for loss in functional.losses] == [1.0]  # mean(1 ** 2)


def test_a_model_with_only_added_losses_trains_without_a_compiled_loss():
    model = PenalizedMLP()
    model.compile(optimizer=keras.optimizers.SGD(0.1))
    x = np.random.default_rng(0).normal(size=(8, 4)).astype(np.float32)
    history = model.fit(x, epochs=2, verbose=0).history
    assert history["loss"][1] < history["loss"][0]


def test_add_loss_refuses_a_value_that_is_not_a_tensor():
    with pytest.raises(ValueError, match="can only be called from inside `build\\(\\)` or "
                                         "`call\\(\\)`, on a tensor input"):
        ActivityPenalty(1.0).add_loss(0.5)


def test_regularizers_follow_keras_formulas_and_names():
    w = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
    assert float(tf.keras.regularizers.L1(0.1)(w)) == pytest.approx(0.1 * 6.5)
    assert float(tf.keras.regularizers.L2(0.1)(w)) == pytest.approx(0.1 * 14.25)
    assert float(tf.keras.regularizers.L1L2(l1=0.1, l2=0.2)(w)) == pytest.approx(
        0.65 + 0.2 * 14.25)
    assert float(tf.keras.regularizers.L1L2()(w)) == 0.0
    assert tf.keras.regularizers.get("l1").get_config() == {"l1": 0.01}
    assert tf.keras.regularizers.get("l2").get_config() == {"l2": 0.01}
    assert tf.keras.regularizers.get("l1l2").get_config() == {"l1": 0.0, "l2": 0.0}
    assert tf.keras.regularizers.l1 is tf.keras.regularizers.L1
    assert tf.keras.regularizers.l2 is tf.keras.regularizers.L2
    assert tf.keras.regularizers.l1_l2 is tf.keras.regularizers.L1L2
    assert tf.keras.regularizers.get(None) is None
    with pytest.raises(ValueError, match="Could not interpret regularizer identifier"):
        tf.keras.regularizers.get("l1_l2")
    with pytest.raises(ValueError, match="non-negative float"):
        tf.keras.regularizers.L2(-1.0)


class SumOfWeights(tf.keras.regularizers.Regularizer):
    """A regularizer written by subclassing: 0.5 * sum(w)."""

    def __call__(self, x):
        return 0.5 * tf.reduce_sum(x)


def test_a_subclassed_regularizer_penalizes_the_weight_it_is_given():
    dense = keras.layers.Dense(2, kernel_regularizer=SumOfWeights(), use_bias=False)
    dense(np.ones((1, 3), np.float32))
    (penalty,) = dense.losses
    assert float(penalty) == pytest.approx(0.5 * dense.get_weights()[0].sum(), rel=1e-5)
    with pytest.raises(NotImplementedError, match="does not implement get_config"):
        SumOfWeights().get_config()


def test_a_convolution_kernel_regularizer_and_an_activity_regularizer_per_sample():
    conv = keras.layers.Conv2D(2, 2, kernel_regularizer="l2", bias_regularizer="l1",
                               activity_regularizer=keras.regularizers.L1(0.5))
    x = np.random.default_rng(1).normal(size=(4, 3, 3, 1)).astype(np.float32)
    outputs = conv(x).numpy()
    kernel, bias = conv.get_weights()
    activity, kernel_penalty, bias_penalty = [float(loss) for loss in conv.losses]
    assert activity == pytest.approx(0.5 * np.abs(outputs).sum() / 4, rel=1e-5)
    assert kernel_penalty == pytest.approx(0.01 * (kernel ** 2).sum(), rel=1e-5)
    assert bias_penalty == pytest.approx(0.01 * np.abs(bias).sum(), abs=1e-7)


def test_regularizers_are_saved_and_loaded_with_the_model(tmp_path):
    model = keras.Sequential([keras.Input((3,)),
                              keras.layers.Dense(2, kernel_regularizer=keras.regularizers.L2(0.2),
                                                 activity_regularizer="l1")])
    model.save(tmp_path / "m.keras")
    loaded = keras.models.load_model(tmp_path / "m.keras")
    dense = loaded.layers[-1]
    assert type(dense.kernel_regularizer).__name__ == "L2"
    assert dense.kernel_regularizer.l2 == pytest.approx(0.2)
    assert type(dense.activity_regularizer).__name__ == "L1"
    x = np.ones((1, 3), np.float32)
    model(x)
    loaded(x)
    np.testing.assert_allclose([float(v) for v in loaded.losses],
                               [float(v) for v in model.losses], rtol=1e-6)
