"""Model.compile / fit / evaluate / predict: the numbers real Keras gives for the same
weights and data (fixtures made by data/make_keras_fixtures.py), batches from arrays and
Datasets, validation, Keras's progress output, the History, and the traced train step."""

import os

import numpy as np
import pytest

import autograph.tf as tf

keras = tf.keras
DATA = os.path.join(os.path.dirname(__file__), "data")

# the optimizer settings of make_keras_fixtures.py, by fixture name
OPTIMIZERS = {
    "sgd": lambda: keras.optimizers.SGD(0.1),
    "sgd_nesterov": lambda: keras.optimizers.SGD(0.05, momentum=0.9, nesterov=True),
    "sgd_clipnorm": lambda: keras.optimizers.SGD(0.5, clipnorm=0.1),
    "adam": lambda: keras.optimizers.Adam(0.01),
    "adam_amsgrad_decay": lambda: keras.optimizers.Adam(
        keras.optimizers.schedules.ExponentialDecay(0.02, decay_steps=3, decay_rate=0.5),
        amsgrad=True),
    "adamw": lambda: keras.optimizers.AdamW(0.01, weight_decay=0.1),
    "rmsprop": lambda: keras.optimizers.RMSprop(0.01),
    "rmsprop_centered_momentum": lambda: keras.optimizers.RMSprop(
        0.01, rho=0.8, momentum=0.5, centered=True),
    "adagrad": lambda: keras.optimizers.Adagrad(0.1),
}


def _fixture(name):
    with np.load(os.path.join(DATA, name)) as data:
        return {key: data[key] for key in data.files}


def _mlp():
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                             keras.layers.Dense(3)])


def _compiled_mlp(data, optimizer="sgd", **compile_args):
    model = _mlp()
    model.set_weights([data["initial_%d" % i] for i in range(4)])
    compile_args.setdefault("metrics", ["accuracy"])
    model.compile(optimizer=OPTIMIZERS[optimizer](),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  **compile_args)
    return model


@pytest.mark.parametrize("optimizer", sorted(OPTIMIZERS))
def test_fit_reproduces_keras_losses_and_weights_for_each_optimizer(optimizer):
    data = _fixture("mlp_optimizers.npz")
    model = _compiled_mlp(data, optimizer)
    history = model.fit(data["x"], data["y"], batch_size=8, epochs=3, shuffle=False,
                        verbose=0)
    np.testing.assert_allclose(history.history["loss"], data[optimizer + "__loss"],
                               rtol=1e-5)
    np.testing.assert_allclose(history.history["accuracy"], data[optimizer + "__accuracy"])
    for i, weight in enumerate(model.get_weights()):
        np.testing.assert_allclose(weight, data["%s__final_%d" % (optimizer, i)], rtol=1e-5,
                                   atol=1e-6)
    np.testing.assert_allclose(model.evaluate(data["x"], data["y"], batch_size=8, verbose=0),
                               data[optimizer + "__evaluate"], rtol=1e-5)
    np.testing.assert_allclose(model.predict(data["x"], batch_size=8, verbose=0),
                               data[optimizer + "__predict"], rtol=1e-5, atol=1e-6)


def test_a_small_cnn_with_validation_split_trains_to_keras_losses():
    data = _fixture("cnn.npz")
    model = keras.Sequential([keras.Input((6, 6, 1)),
                              keras.layers.Conv2D(3, 3, activation="relu"),
                              keras.layers.MaxPooling2D(2), keras.layers.Flatten(),
                              keras.layers.Dense(2)])
    model.set_weights([data["initial_%d" % i] for i in range(4)])
    model.compile(optimizer=keras.optimizers.Adam(0.01),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(data["x"], data["y"], batch_size=4, epochs=3, shuffle=False,
                        verbose=0, validation_split=0.25)
    np.testing.assert_allclose(history.history["loss"], data["loss"], rtol=1e-5)
    np.testing.assert_allclose(history.history["val_loss"], data["val_loss"], rtol=1e-5)
    for i, weight in enumerate(model.get_weights()):
        np.testing.assert_allclose(weight, data["final_%d" % i], rtol=1e-5, atol=1e-6)


def test_a_two_output_functional_model_logs_each_outputs_loss_and_metrics_as_keras():
    data = _fixture("functional.npz")
    a = keras.Input((3,), name="a")
    b = keras.Input((2,), name="b")
    hidden = keras.layers.Dense(4, activation="tanh", name="hidden")(a)
    joined = keras.layers.Concatenate(name="joined")([hidden, b])
    classes = keras.layers.Dense(3, name="classes")(joined)
    value = keras.layers.Dense(1, name="value")(hidden)
    model = keras.Model([a, b], [classes, value])
    model.set_weights([data["initial_%d" % i] for i in range(6)])
    model.compile(optimizer=keras.optimizers.SGD(0.1),
                  loss=[keras.losses.SparseCategoricalCrossentropy(from_logits=True), "mse"],
                  loss_weights=[1.0, 0.5], metrics=[["accuracy"], ["mae"]])
    history = model.fit([data["xa"], data["xb"]], [data["labels"], data["values"]],
                        batch_size=5, epochs=2, shuffle=False, verbose=0).history
    expected = {key[len("history__"):]: data[key] for key in data
                if key.startswith("history__")}
    assert list(history) == sorted(expected)
    for name, values in expected.items():
        np.testing.assert_allclose(history[name], values, rtol=1e-5, err_msg=name)
    for i, weight in enumerate(model.get_weights()):
        np.testing.assert_allclose(weight, data["final_%d" % i], rtol=1e-5, atol=1e-6)
    # Keras 3.15 names them so (the per-output loss trackers after the compiled metrics)
    assert model.metrics_names == ["loss", "compile_metrics", "classes_loss", "value_loss"]


def test_fit_on_a_dataset_matches_fit_on_the_same_arrays():
    data = _fixture("mlp_optimizers.npz")
    dataset = tf.data.Dataset.from_tensor_slices((data["x"], data["y"])).batch(8)
    model = _compiled_mlp(data, "adam")
    history = model.fit(dataset, epochs=3, verbose=0)
    np.testing.assert_allclose(history.history["loss"], data["adam__loss"], rtol=1e-5)
    assert history.params == {"verbose": 0, "epochs": 3, "steps": 3}
    validated = _compiled_mlp(data, "adam").fit(data["x"], data["y"], batch_size=8, epochs=1,
                                                shuffle=False, verbose=0,
                                                validation_data=dataset)
    assert set(validated.history) == {"accuracy", "loss", "val_accuracy", "val_loss"}


def test_the_train_step_is_traced_once_and_run_eagerly_runs_it_as_python():
    data = _fixture("mlp_optimizers.npz")
    model = _compiled_mlp(data)
    model.fit(data["x"][:16], data["y"][:16], batch_size=8, epochs=2, verbose=0)
    assert model.train_function.experimental_get_tracing_count() == 1
    eager = _compiled_mlp(data, run_eagerly=True)
    eager.fit(data["x"], data["y"], batch_size=8, epochs=3, shuffle=False, verbose=0)
    assert eager.train_function == eager.train_step  # no Function: plain Python
    np.testing.assert_allclose(eager.get_weights()[0], data["sgd__final_0"], rtol=1e-5)


def test_verbose_1_prints_one_finished_bar_per_epoch_when_not_a_terminal(capsys):
    data = _fixture("mlp_optimizers.npz")
    model = _compiled_mlp(data)
    model.fit(data["x"], data["y"], batch_size=8, epochs=2, validation_split=0.2)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "Epoch 1/2" and lines[2] == "Epoch 2/2" and len(lines) == 4
    bar = lines[1]
    assert bar.startswith("2/2 " + "━" * 20 + " ")
    assert "ms/step" in bar or "us/step" in bar or "s/step" in bar
    assert bar.split("step", 1)[1].startswith(" - accuracy: ")
    assert " - loss: " in bar and " - val_accuracy: " in bar and " - val_loss: " in bar
    model.fit(data["x"], data["y"], batch_size=8, epochs=1, verbose=2)
    short = capsys.readouterr().out.splitlines()
    assert len(short) == 1 and short[0].startswith("3/3 - ") and "/step - accuracy: " in short[0]
    model.fit(data["x"], data["y"], batch_size=8, epochs=1, verbose=0)
    assert capsys.readouterr().out == ""


def test_values_below_a_thousandth_print_in_scientific_notation(capsys):
    data = _fixture("mlp_optimizers.npz")
    model = _compiled_mlp(data)
    wrong = (model.predict(data["x"][:4], verbose=0).argmax(-1) + 1) % 3
    capsys.readouterr()
    model.evaluate(data["x"][:4], wrong, batch_size=4)  # every prediction wrong: acc 0
    assert "accuracy: 0.0000e+00" in capsys.readouterr().out


def test_evaluate_returns_loss_then_metrics_or_a_dict_and_predict_joins_batches():
    data = _fixture("mlp_optimizers.npz")
    model = _compiled_mlp(data)
    loss, accuracy = model.evaluate(data["x"], data["y"], batch_size=7, verbose=0)
    results = model.evaluate(data["x"], data["y"], verbose=0, return_dict=True)
    assert results == {"accuracy": accuracy, "loss": pytest.approx(loss)}
    assert model.metrics_names == ["loss", "compile_metrics"]
    logits = model.predict(data["x"], batch_size=7, verbose=0)
    assert logits.shape == (20, 3) and isinstance(logits, np.ndarray)
    np.testing.assert_allclose(logits, model(data["x"]).numpy(), rtol=1e-6)
    no_metrics = _compiled_mlp(data, metrics=None)
    assert isinstance(no_metrics.evaluate(data["x"], data["y"], verbose=0), float)


def test_train_on_batch_takes_one_step_and_returns_the_metrics():
    data = _fixture("mlp_optimizers.npz")
    model = _compiled_mlp(data)
    before = model.get_weights()[0].copy()
    loss, accuracy = model.train_on_batch(data["x"][:8], data["y"][:8])
    assert not np.allclose(before, model.get_weights()[0])
    assert int(model.optimizer.iterations.numpy()) == 1
    assert 0 <= accuracy <= 1 and loss > 0
    assert set(model.test_on_batch(data["x"][:8], data["y"][:8], return_dict=True)) == {
        "accuracy", "loss"}
    assert model.predict_on_batch(data["x"][:5]).shape == (5, 3)


def test_metrics_names_are_keras_3s_before_and_after_fit():
    model = _mlp()
    assert model.metrics_names == []
    model.compile(optimizer="sgd", loss="mse")
    assert model.metrics_names == ["loss"]
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    assert model.metrics_names == ["loss", "compile_metrics"]
    model.fit(np.ones((4, 4), np.float32), np.ones((4, 3), np.float32), verbose=0)
    assert model.metrics_names == ["loss", "compile_metrics"]
    assert [type(m).__name__ for m in model.metrics[1].metrics] == ["MeanAbsoluteError"]


def test_weighted_metrics_apply_sample_weights_and_metrics_ignore_them_as_in_keras():
    data = _fixture("weighted_metrics.npz")
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4, activation="relu"),
                              keras.layers.Dense(1)])
    model.set_weights([data["initial_%d" % i] for i in range(4)])
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"],
                  weighted_metrics=["mae", "mse"])
    history = model.fit(data["x"], data["y"], batch_size=8, epochs=2, shuffle=False,
                        sample_weight=data["sample_weight"], verbose=0).history
    expected = {key[len("history__"):]: data[key] for key in data
                if key.startswith("history__")}
    assert sorted(history) == sorted(expected) == ["loss", "mae", "mse", "weighted_mae"]
    for name, values in expected.items():
        np.testing.assert_allclose(history[name], values, rtol=1e-6, atol=1e-6, err_msg=name)
    for i, weight in enumerate(model.get_weights()):
        np.testing.assert_allclose(weight, data["final_%d" % i], rtol=1e-6, atol=1e-6)
    assert model.metrics_names == list(data["metrics_names"])
    logs = model.evaluate(data["x"], data["y"], batch_size=8,
                          sample_weight=data["sample_weight"], verbose=0, return_dict=True)
    for name, value in logs.items():
        np.testing.assert_allclose(value, data["evaluate__" + name], rtol=1e-6, atol=1e-6)
    # Keras lists a compiled metric by its own name: "mae" twice, then the rest by name
    np.testing.assert_allclose(
        model.evaluate(data["x"], data["y"], batch_size=8,
                       sample_weight=data["sample_weight"], verbose=0),
        data["evaluate_list"], rtol=1e-6, atol=1e-6)


def test_weighted_metrics_are_kept_in_a_saved_models_compile_config(tmp_path):
    model = _mlp()
    model.compile(optimizer="sgd", loss="mse", weighted_metrics=["mae"])
    model(np.ones((1, 4), np.float32))
    model.save(tmp_path / "m.keras")
    loaded = keras.models.load_model(tmp_path / "m.keras")
    loaded.fit(np.ones((2, 4), np.float32), np.ones((2, 3), np.float32), verbose=0,
               sample_weight=np.array([1.0, 0.0], np.float32))
    assert loaded.metrics_names == ["loss", "compile_metrics"]
    assert [type(m).__name__ for m in loaded.metrics[1].metrics] == ["MeanAbsoluteError"]


def test_sample_weights_and_class_weights_weigh_the_loss():
    x = np.ones((4, 1), np.float32)
    y = np.array([[0.0], [0.0], [2.0], [2.0]], np.float32)

    def model_with_zero_weights():
        model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(1)])
        model.set_weights([np.zeros((1, 1), np.float32), np.zeros(1, np.float32)])
        model.compile(optimizer="sgd", loss="mse")
        return model
    # predictions are 0: the errors are 0, 0, 4, 4
    weighted = model_with_zero_weights().evaluate(
        x, y, sample_weight=np.array([1.0, 1.0, 0.0, 0.0]), verbose=0)
    assert weighted == 0.0
    history = model_with_zero_weights().fit(x, np.array([0, 0, 1, 1], np.float32),
                                            class_weight={0: 1.0, 1: 3.0}, epochs=1,
                                            verbose=0, shuffle=False)
    assert history.history["loss"][0] == pytest.approx((0 + 0 + 3 + 3) / 4)


def test_compile_resolves_names_and_fit_reports_bad_use():
    model = _mlp()
    with pytest.raises(ValueError, match="must call `compile"):
        model.fit(np.ones((2, 4)), np.ones(2))
    with pytest.raises(ValueError, match="Could not interpret optimizer identifier"):
        model.compile(optimizer="sgdd", loss="mse")
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    assert isinstance(model.optimizer, keras.optimizers.Adam)
    with pytest.raises(ValueError, match="same number of samples"):
        model.fit(np.ones((3, 4)), np.ones((2, 3)), verbose=0)
    model.compile(optimizer="sgd", loss="mae")
    with pytest.raises(ValueError, match="compiled with a loss but the data has no targets"):
        model.fit(np.ones((2, 4)), verbose=0)
    assert model.evaluate(np.ones((2, 4)), np.ones((2, 3)), verbose=0) >= 0
    model.compile(optimizer="sgd", loss="hinge-ish")
    with pytest.raises(ValueError, match="Could not interpret loss identifier"):
        model.fit(np.ones((2, 4)), np.ones((2, 3)), verbose=0)
    with pytest.raises(ValueError, match="validation_split"):
        model.fit(np.ones((2, 4)), np.ones((2, 3)), validation_split=1.5, verbose=0)


def test_accuracy_is_binary_sparse_or_categorical_from_the_shapes():
    x = np.array([[1.0], [-1.0]], np.float32)

    def accuracy_metric(units, y):
        model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(units)])
        model.compile(optimizer="sgd", loss="mse", metrics=["accuracy"])
        model.evaluate(x, y, verbose=0)
        return type(model.metrics[-1].metrics[-1]).__name__
    assert accuracy_metric(1, np.array([[1.0], [0.0]], np.float32)) == "BinaryAccuracy"
    assert accuracy_metric(3, np.eye(3, dtype=np.float32)[:2]) == "CategoricalAccuracy"
    model = keras.Sequential([keras.Input((1,)), keras.layers.Dense(3)])
    model.compile(optimizer="sgd", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    model.evaluate(x, np.array([0, 2]), verbose=0)
    assert type(model.metrics[-1].metrics[-1]).__name__ == "SparseCategoricalAccuracy"


class _Terminal:
    """A stdout that says it is a terminal, keeping what is written."""

    def __init__(self):
        self.text = ""

    def isatty(self):
        return True

    def write(self, text):
        self.text += text

    def flush(self):
        pass


def test_on_a_terminal_the_bar_is_redrawn_after_each_step_in_keras_colours(monkeypatch):
    data = _fixture("mlp_optimizers.npz")
    model = _compiled_mlp(data)
    terminal = _Terminal()
    monkeypatch.setattr("sys.stdout", terminal)
    model.fit(data["x"], data["y"], batch_size=8, epochs=1, shuffle=False)
    frames = terminal.text.split("\r")
    # each frame redraws the line from its start: the first step's, perhaps the second's
    # (redraws are at most 20 a second), and the finished line
    assert frames[0] == "" and 3 <= len(frames) <= 4
    assert frames[1].startswith("\x1b[1m1/3\x1b[0m \x1b[32m" + "━" * 6 + "\x1b[0m\x1b[37m" +
                                "━" * 14 + "\x1b[0m \x1b[1m")
    assert frames[-1].startswith("\x1b[1m3/3\x1b[0m \x1b[32m" + "━" * 20 + "\x1b[0m")
    assert frames[-1].endswith("\n") and " - accuracy: " in frames[-1]
    loss = model.history.history["loss"][0]
    assert frames[-1].rstrip().endswith("loss: %.4f" % loss)
