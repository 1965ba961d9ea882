"""tf.keras.callbacks: the hooks fit/evaluate/predict call and in what order, History,
EarlyStopping, ModelCheckpoint, LearningRateScheduler, LambdaCallback and TensorBoard."""

import glob
import os

import numpy as np
import pytest

import autograph.tf as tf

keras = tf.keras
X = np.linspace(-1, 1, 16, dtype=np.float32).reshape(8, 2)
Y = X @ np.array([[1.0], [-1.0]], np.float32)


def _model(learning_rate=0.1):
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
    model.set_weights([np.zeros((2, 1), np.float32), np.zeros(1, np.float32)])
    model.compile(optimizer=keras.optimizers.SGD(learning_rate), loss="mse")
    return model


class Recorder(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.calls = []

    def on_train_begin(self, logs=None):
        self.calls.append(("train_begin", self.params["epochs"], self.params["steps"]))

    def on_epoch_begin(self, epoch, logs=None):
        self.calls.append(("epoch_begin", epoch))

    def on_train_batch_end(self, batch, logs=None):
        self.calls.append(("batch_end", batch, sorted(logs)))

    def on_test_end(self, logs=None):
        self.calls.append(("test_end", sorted(logs)))

    def on_epoch_end(self, epoch, logs=None):
        self.calls.append(("epoch_end", epoch, sorted(logs)))

    def on_train_end(self, logs=None):
        self.calls.append(("train_end", self.model is not None))

    def on_predict_batch_end(self, batch, logs=None):
        self.calls.append(("predict_batch_end", logs["outputs"].shape))


def test_fit_calls_the_hooks_in_order_with_the_logs():
    recorder = Recorder()
    _model().fit(X, Y, batch_size=4, epochs=2, verbose=0, validation_data=(X, Y),
                 callbacks=[recorder])
    assert recorder.calls == [
        ("train_begin", 2, 2),
        ("epoch_begin", 0), ("batch_end", 0, ["loss"]), ("batch_end", 1, ["loss"]),
        ("test_end", ["loss"]), ("epoch_end", 0, ["loss", "val_loss"]),
        ("epoch_begin", 1), ("batch_end", 0, ["loss"]), ("batch_end", 1, ["loss"]),
        ("test_end", ["loss"]), ("epoch_end", 1, ["loss", "val_loss"]),
        ("train_end", True)]
    recorder.calls.clear()
    _model().predict(X, batch_size=5, verbose=0, callbacks=[recorder])
    assert recorder.calls == [("predict_batch_end", (5, 1)), ("predict_batch_end", (3, 1))]


def test_history_records_each_epoch_and_is_the_models_history():
    model = _model()
    history = model.fit(X, Y, batch_size=4, epochs=3, verbose=0)
    assert isinstance(history, keras.callbacks.History) and model.history is history
    assert history.epoch == [0, 1, 2] and len(history.history["loss"]) == 3
    assert history.params == {"verbose": 0, "epochs": 3, "steps": 2}
    assert all(isinstance(v, float) for v in history.history["loss"])


def test_early_stopping_stops_after_patience_and_restores_the_best_weights(capsys):
    # a learning rate so large that the loss grows from the second epoch on
    model = _model(learning_rate=3.0)
    stopper = keras.callbacks.EarlyStopping(monitor="loss", patience=1, verbose=1,
                                            restore_best_weights=True)
    best = []
    remember = keras.callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: best.append(model.get_weights()) if epoch == 0
        else None)
    history = model.fit(X, Y, batch_size=8, epochs=10, verbose=0,
                        callbacks=[remember, stopper])
    losses = history.history["loss"]
    assert len(losses) < 10 and losses[1] > losses[0]
    assert stopper.stopped_epoch == len(losses) - 1 and stopper.best_epoch == 0
    for restored, expected in zip(model.get_weights(), best[0]):
        np.testing.assert_array_equal(restored, expected)
    out = capsys.readouterr().out
    assert "Epoch %d: early stopping" % len(losses) in out
    assert "Restoring model weights from the end of the best epoch: 1." in out


def test_early_stopping_on_a_missing_metric_warns():
    with pytest.warns(UserWarning, match="which is not available"):
        _model().fit(X, Y, epochs=1, verbose=0,
                     callbacks=[keras.callbacks.EarlyStopping(monitor="val_loss")])


def test_model_checkpoint_saves_weights_each_epoch_or_only_the_best(tmp_path, capsys):
    pytest.importorskip("h5py")  # Keras 3's weights and model files are HDF5 inside
    model = _model()
    every = str(tmp_path / "every-{epoch:02d}.weights.h5")
    model.fit(X, Y, epochs=2, verbose=0, callbacks=[
        keras.callbacks.ModelCheckpoint(every, save_weights_only=True)])
    assert sorted(os.path.basename(p) for p in glob.glob(str(tmp_path / "every-*"))) == [
        "every-01.weights.h5", "every-02.weights.h5"]
    fresh = _model()
    fresh.load_weights(str(tmp_path / "every-02.weights.h5"))
    for mine, saved in zip(fresh.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(mine, saved)
    best_path = tmp_path / "best.weights.h5"
    best = keras.callbacks.ModelCheckpoint(str(best_path), monitor="loss",
                                           save_best_only=True, save_weights_only=True,
                                           verbose=1)
    capsys.readouterr()
    history = _model(learning_rate=3.0).fit(X, Y, batch_size=8, epochs=3, verbose=0,
                                            callbacks=[best])
    first = history.history["loss"][0]
    assert best.best == first and best_path.exists()
    out = capsys.readouterr().out
    assert "Epoch 1: loss improved from None to %.5f, saving model to %s" % (
        first, best_path) in out
    assert "Epoch 2: loss did not improve from %.5f" % first in out
    whole = _model()
    whole.fit(X, Y, epochs=1, verbose=0, callbacks=[
        keras.callbacks.ModelCheckpoint(str(tmp_path / "m.keras"))])
    restored = keras.models.load_model(str(tmp_path / "m.keras"))
    np.testing.assert_array_equal(restored.predict(X, verbose=0), whole.predict(X, verbose=0))


def test_model_checkpoint_refuses_the_file_names_keras_3_refuses(tmp_path):
    with pytest.raises(ValueError, match=r"^When using `save_weights_only=True` in "
                                         r"`ModelCheckpoint`, the filepath provided must "
                                         r"end in `\.weights\.h5` \(Keras weights format\)\. "
                                         r"Received: filepath=.*ckpt$"):
        keras.callbacks.ModelCheckpoint(str(tmp_path / "ckpt"), save_weights_only=True)
    with pytest.raises(ValueError, match=r"^The filepath provided must end in `\.keras` "
                                         r"\(Keras model format\)\. Received: filepath=.*"
                                         r"model$"):
        keras.callbacks.ModelCheckpoint(str(tmp_path / "model"))


def test_learning_rate_scheduler_sets_the_rate_each_epoch_and_logs_it(capsys):
    model = _model()
    scheduler = keras.callbacks.LearningRateScheduler(lambda epoch, rate: rate * 0.5,
                                                      verbose=1)
    history = model.fit(X, Y, epochs=3, verbose=0, callbacks=[scheduler])
    np.testing.assert_allclose(history.history["learning_rate"], [0.05, 0.025, 0.0125])
    assert "Epoch 1: LearningRateScheduler setting learning rate to 0.05" in \
        capsys.readouterr().out
    by_epoch = _model()
    by_epoch.fit(X, Y, epochs=2, verbose=0,
                 callbacks=[keras.callbacks.LearningRateScheduler(lambda epoch: 0.3)])
    assert float(by_epoch.optimizer.learning_rate) == pytest.approx(0.3)


def test_setting_stop_training_ends_fit_after_the_batch():
    model = _model()

    def stop(batch, logs):
        model.stop_training = True
    history = model.fit(X, Y, batch_size=2, epochs=5, verbose=0, callbacks=[
        keras.callbacks.LambdaCallback(on_train_batch_end=stop)])
    assert history.epoch == [0] and int(model.optimizer.iterations.numpy()) == 1


def test_tensorboard_writes_epoch_scalars_for_training_and_validation(tmp_path):
    _model().fit(X, Y, epochs=2, verbose=0, validation_data=(X, Y),
                 callbacks=[keras.callbacks.TensorBoard(log_dir=str(tmp_path))])
    for part in ("train", "validation"):
        events = glob.glob(str(tmp_path / part / "events.out.tfevents.*"))
        assert len(events) == 1 and os.path.getsize(events[0]) > 0
        with open(events[0], "rb") as f:
            assert b"epoch_loss" in f.read()


def test_callbacks_must_be_callback_objects():
    with pytest.raises(TypeError, match="must be instances of tf.keras.callbacks.Callback"):
        _model().fit(X, Y, epochs=1, verbose=0, callbacks=[lambda: None])


def test_a_callback_list_calls_each_callback_and_the_progbar_logger_prints_bars(capsys):
    first, second = Recorder(), Recorder()
    callbacks = keras.callbacks.CallbackList([first, second], model=_model(), epochs=1,
                                             steps=1)
    callbacks.on_epoch_begin(0)
    assert first.calls == second.calls == [("epoch_begin", 0)]
    assert first.model is callbacks.model and first.params["steps"] == 1
    _model().fit(X, Y, batch_size=8, epochs=1, verbose=1,
                 callbacks=[keras.callbacks.ProgbarLogger()])
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 1 and out[0].startswith("1/1 ")  # the given logger, not a second one
