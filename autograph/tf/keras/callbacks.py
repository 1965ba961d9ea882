"""`tf.keras.callbacks`: hooks that `fit`, `evaluate` and `predict` call at the start and
end of training, of each epoch and of each batch, with the logs so far (a dict of floats:
`{"loss": 0.31, "accuracy": 0.9, "val_loss": ...}`).

    class PrintLoss(tf.keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            print(epoch, logs["loss"])

    model.fit(x, y, epochs=5, callbacks=[PrintLoss(),
                                         tf.keras.callbacks.EarlyStopping(patience=2)])

A callback reaches the model through `self.model`; setting `self.model.stop_training`
ends `fit` after the current epoch.
"""

import math as _math
import os as _os
import warnings as _warnings
from collections.abc import Callable as _Callable
from collections.abc import Iterable as _Iterable
from typing import Any as _Any

import numpy as _np

from autograph.tf.keras import _progbar
from runtime.ops import summary_ops as _summary_ops
from runtime.summary import writers as _writers

_Logs = dict[str, _Any]


class Callback:
    """The base class of callbacks: every hook does nothing until a subclass defines it."""

    def __init__(self) -> None:
        self.model: _Any = None
        self.params: dict[str, _Any] = {}

    def set_model(self, model: _Any) -> None:
        """Attach the model being trained (`self.model`)."""
        self.model = model

    def set_params(self, params: dict[str, _Any]) -> None:
        """Record the run's parameters (`verbose`, `epochs`, `steps`)."""
        self.params = params

    def on_train_begin(self, logs: _Logs | None = None) -> None:
        """Called once when `fit` starts."""

    def on_train_end(self, logs: _Logs | None = None) -> None:
        """Called once when `fit` ends, with the last epoch's logs."""

    def on_epoch_begin(self, epoch: int, logs: _Logs | None = None) -> None:
        """Called at the start of each epoch (counted from 0)."""

    def on_epoch_end(self, epoch: int, logs: _Logs | None = None) -> None:
        """Called at the end of each epoch with its training and validation results."""

    def on_train_batch_begin(self, batch: int, logs: _Logs | None = None) -> None:
        """Called before each training batch."""

    def on_train_batch_end(self, batch: int, logs: _Logs | None = None) -> None:
        """Called after each training batch with the metrics so far this epoch."""

    def on_test_begin(self, logs: _Logs | None = None) -> None:
        """Called when `evaluate` (or validation in `fit`) starts."""

    def on_test_end(self, logs: _Logs | None = None) -> None:
        """Called when `evaluate` (or validation in `fit`) ends, with its results."""

    def on_test_batch_begin(self, batch: int, logs: _Logs | None = None) -> None:
        """Called before each evaluation batch."""

    def on_test_batch_end(self, batch: int, logs: _Logs | None = None) -> None:
        """Called after each evaluation batch."""

    def on_predict_begin(self, logs: _Logs | None = None) -> None:
        """Called when `predict` starts."""

    def on_predict_end(self, logs: _Logs | None = None) -> None:
        """Called when `predict` ends."""

    def on_predict_batch_begin(self, batch: int, logs: _Logs | None = None) -> None:
        """Called before each prediction batch."""

    def on_predict_batch_end(self, batch: int, logs: _Logs | None = None) -> None:
        """Called after each prediction batch (`logs["outputs"]` holds its outputs)."""


_HOOKS = ("on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end",
          "on_train_batch_begin", "on_train_batch_end", "on_test_begin", "on_test_end",
          "on_test_batch_begin", "on_test_batch_end", "on_predict_begin", "on_predict_end",
          "on_predict_batch_begin", "on_predict_batch_end")


class CallbackList(Callback):
    """Several callbacks called as one, in order (the progress bar last, so that it
    shows what the others added to the logs)."""

    def __init__(self, callbacks: _Iterable[Callback] | None = None, model: _Any = None,
                 **params: _Any) -> None:
        super().__init__()
        self.callbacks = list(callbacks or [])
        for callback in self.callbacks:
            if not isinstance(callback, Callback):
                raise TypeError("callbacks must be instances of tf.keras.callbacks.Callback; "
                                "got %r" % (callback,))
        if model is not None:
            self.set_model(model)
        if params:
            self.set_params(params)

    def append(self, callback: Callback) -> None:
        """Add a callback at the end."""
        self.callbacks.append(callback)
        if self.model is not None:
            callback.set_model(self.model)
        callback.set_params(self.params)

    def set_model(self, model: _Any) -> None:
        """Attach the model to every callback."""
        super().set_model(model)
        for callback in self.callbacks:
            callback.set_model(model)

    def set_params(self, params: dict[str, _Any]) -> None:
        """Give every callback the run's parameters."""
        super().set_params(params)
        for callback in self.callbacks:
            callback.set_params(params)

    def __getattribute__(self, name: str) -> _Any:
        if name in _HOOKS:
            callbacks = object.__getattribute__(self, "callbacks")

            def call_each(*args: _Any) -> None:
                for callback in callbacks:
                    getattr(callback, name)(*args)
            return call_each
        return object.__getattribute__(self, name)


class History(Callback):
    """Records each epoch's logs: `history.history["loss"]` is the list of epoch losses,
    `history.epoch` the epochs run; `fit` returns it."""

    def __init__(self) -> None:
        super().__init__()
        self.history: dict[str, list[_Any]] = {}
        self.epoch: list[int] = []

    def on_train_begin(self, logs: _Logs | None = None) -> None:
        """Start a new record."""
        self.epoch = []

    def on_epoch_end(self, epoch: int, logs: _Logs | None = None) -> None:
        """Append the epoch's values."""
        self.epoch.append(epoch)
        for name, value in (logs or {}).items():
            self.history.setdefault(name, []).append(value)
        if self.model is not None:
            self.model.history = self


class ProgbarLogger(Callback):
    """Prints `Epoch i/n` and a progress bar per epoch (and per `evaluate` or `predict`),
    as `verbose` asks: 1 a bar, 2 one line per epoch."""

    def __init__(self) -> None:
        super().__init__()
        self.seen = 0
        self.progbar: _progbar.Progbar | None = None
        self.target: int | None = None
        self.verbose = 1
        self.epochs = 1
        self._in_fit = False

    def set_params(self, params: dict[str, _Any]) -> None:
        """Read `verbose`, `epochs` and `steps`."""
        super().set_params(params)
        self.verbose = params.get("verbose", 1)
        self.epochs = params.get("epochs", 1)
        self.target = params.get("steps")

    def _start(self) -> None:
        self.seen = 0
        self.progbar = _progbar.Progbar(self.target, verbose=self.verbose)

    def on_train_begin(self, logs: _Logs | None = None) -> None:
        """Note that evaluation runs inside `fit` from now on (its bar stays silent)."""
        self._in_fit = True

    def on_train_end(self, logs: _Logs | None = None) -> None:
        """Leave `fit`."""
        self._in_fit = False

    def on_epoch_begin(self, epoch: int, logs: _Logs | None = None) -> None:
        """Print `Epoch i/n` (when there are several) and start a bar."""
        if self.verbose and self.epochs > 1:
            print("Epoch %d/%d" % (epoch + 1, self.epochs))
        self._start()

    def on_train_batch_end(self, batch: int, logs: _Logs | None = None) -> None:
        """Advance the bar."""
        self._advance(batch, logs)

    def on_epoch_end(self, epoch: int, logs: _Logs | None = None) -> None:
        """Finish the bar with the epoch's results (validation included)."""
        self._finish(logs)

    def on_test_begin(self, logs: _Logs | None = None) -> None:
        """Start a bar for `evaluate` (none while validating inside `fit`)."""
        if not self._in_fit:
            self._start()

    def on_test_batch_end(self, batch: int, logs: _Logs | None = None) -> None:
        """Advance the `evaluate` bar."""
        if not self._in_fit:
            self._advance(batch, logs)

    def on_test_end(self, logs: _Logs | None = None) -> None:
        """Finish the `evaluate` bar."""
        if not self._in_fit:
            self._finish(logs)

    def on_predict_begin(self, logs: _Logs | None = None) -> None:
        """Start a bar for `predict`."""
        self._start()

    def on_predict_batch_end(self, batch: int, logs: _Logs | None = None) -> None:
        """Advance the `predict` bar."""
        self._advance(batch, None)

    def on_predict_end(self, logs: _Logs | None = None) -> None:
        """Finish the `predict` bar."""
        self._finish(None)

    def _advance(self, batch: int, logs: _Logs | None) -> None:
        self.seen = batch + 1
        if self.progbar is not None and self.verbose == 1:
            self.progbar.update(self.seen, logs)

    def _finish(self, logs: _Logs | None) -> None:
        if self.progbar is None:
            return
        if self.progbar.target is None:
            self.progbar.target = self.seen
        self.progbar.update(self.seen, logs, finalize=True)
        self.progbar = None


def _monitor_mode(monitor: str, mode: str) -> str:
    if mode not in ("auto", "min", "max"):
        _warnings.warn("Mode %s is unknown, fallback to auto mode." % mode, stacklevel=3)
        mode = "auto"
    if mode != "auto":
        return mode
    metric = monitor[4:] if monitor.startswith("val_") else monitor
    if metric in ("acc", "accuracy", "auc") or metric.endswith(("_accuracy", "_acc",
                                                                  "_auc")):
        return "max"
    return "min"


class EarlyStopping(Callback):
    """Stops training when `monitor` (default "val_loss") stopped improving by more than
    `min_delta` for `patience` epochs; with `restore_best_weights` the model gets back the
    weights of its best epoch."""

    def __init__(self, monitor: str = "val_loss", min_delta: float = 0, patience: int = 0,
                 verbose: int = 0, mode: str = "auto", baseline: float | None = None,
                 restore_best_weights: bool = False, start_from_epoch: int = 0) -> None:
        super().__init__()
        self.monitor = monitor
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.min_delta = abs(min_delta)
        self.restore_best_weights = restore_best_weights
        self.start_from_epoch = start_from_epoch
        self.mode = _monitor_mode(monitor, mode)
        self.wait = 0
        self.stopped_epoch = 0
        self.best: float | None = None
        self.best_weights: list[_np.ndarray] | None = None
        self.best_epoch = 0

    def _is_improvement(self, value: float, reference: float | None) -> bool:
        if reference is None:
            return True
        if self.mode == "max":
            return value - self.min_delta > reference
        return value + self.min_delta < reference

    def on_train_begin(self, logs: _Logs | None = None) -> None:
        """Start counting afresh."""
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch: int, logs: _Logs | None = None) -> None:
        """Compare the monitored value with the best so far; stop after `patience` epochs
        without improvement."""
        current = (logs or {}).get(self.monitor)
        if current is None:
            _warnings.warn("Early stopping conditioned on metric `%s` which is not available. "
                          "Available metrics are: %s" % (self.monitor,
                                                         ",".join(logs or {})), stacklevel=2)
            return
        if epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()  # the best so far: the first
            self.best_epoch = epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs: _Logs | None = None) -> None:
        """Say that training stopped early, and restore the best weights when asked."""
        if self.stopped_epoch > 0 and self.verbose > 0:
            print("Epoch %d: early stopping" % (self.stopped_epoch + 1))
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print("Restoring model weights from the end of the best epoch: %d."
                      % (self.best_epoch + 1))
            self.model.set_weights(self.best_weights)


class ModelCheckpoint(Callback):
    """Saves the model (or only its weights, `save_weights_only=True`) after each epoch to
    `filepath`, formatted with the epoch and the logs (`"ckpt-{epoch:02d}.keras"`, or
    `"ckpt-{epoch:02d}.weights.h5"` for the weights, the names Keras 3 requires); with
    `save_best_only` only when `monitor` improved."""

    def __init__(self, filepath: str | _os.PathLike[str], monitor: str = "val_loss",
                 verbose: int = 0, save_best_only: bool = False,
                 save_weights_only: bool = False, mode: str = "auto",
                 save_freq: str | int = "epoch",
                 initial_value_threshold: float | None = None) -> None:
        super().__init__()
        if save_freq != "epoch":
            raise ValueError("Unrecognized save_freq: %r; only 'epoch' is supported"
                             % (save_freq,))
        self.filepath = _os.fspath(filepath)
        if save_weights_only and not self.filepath.endswith(".weights.h5"):
            raise ValueError("When using `save_weights_only=True` in `ModelCheckpoint`, the "
                             "filepath provided must end in `.weights.h5` (Keras weights "
                             "format). Received: filepath=%s" % self.filepath)
        if not save_weights_only and not self.filepath.endswith((".keras", ".h5")):
            raise ValueError("The filepath provided must end in `.keras` (Keras model "
                             "format). Received: filepath=%s" % self.filepath)
        self.monitor = monitor
        self.verbose = verbose
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.mode = _monitor_mode(monitor, mode)
        self.best = initial_value_threshold

    def _improved(self, value: float) -> bool:
        if self.best is None:
            return True
        return value > self.best if self.mode == "max" else value < self.best

    def _should_save(self, epoch: int, current: float | None, path: str) -> bool:
        """With `save_best_only`: whether `current` improved on the best (saying so when
        verbose); a missing value saves anyway, with a warning, as Keras does."""
        if current is None:
            _warnings.warn("Can save best model only with %s available." % self.monitor,
                           stacklevel=3)
            return True
        best = "None" if self.best is None else "%.5f" % self.best
        if not self._improved(current):
            if self.verbose > 0:
                print("\nEpoch %d: %s did not improve from %s" % (epoch + 1, self.monitor,
                                                                 best))
            return False
        if self.verbose > 0:
            print("\nEpoch %d: %s improved from %s to %.5f, saving model to %s"
                  % (epoch + 1, self.monitor, best, current, path))
        self.best = current
        return True

    def on_epoch_end(self, epoch: int, logs: _Logs | None = None) -> None:
        """Save, unless `save_best_only` and the monitored value did not improve."""
        logs = logs or {}
        try:
            path = self.filepath.format(epoch=epoch + 1, **logs)
        except KeyError as e:
            raise KeyError("Failed to format this callback filepath: \"%s\". Reason: %s"
                           % (self.filepath, e)) from None
        if self.save_best_only and not self._should_save(epoch, logs.get(self.monitor), path):
            return
        if not self.save_best_only and self.verbose > 0:
            print("\nEpoch %d: saving model to %s" % (epoch + 1, path))
        if self.save_weights_only:
            self.model.save_weights(path, overwrite=True)
        else:
            self.model.save(path, overwrite=True)


class LearningRateScheduler(Callback):
    """Sets the optimizer's learning rate at the start of each epoch to
    `schedule(epoch, current_rate)` (or `schedule(epoch)`), and logs it as
    `learning_rate`."""

    def __init__(self, schedule: _Callable[..., _Any], verbose: int = 0) -> None:
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def on_epoch_begin(self, epoch: int, logs: _Logs | None = None) -> None:
        """Set the rate for this epoch."""
        optimizer = self.model.optimizer
        current = float(_np.asarray(optimizer.learning_rate))
        try:
            rate = self.schedule(epoch, current)
        except TypeError:  # a schedule of the epoch alone
            rate = self.schedule(epoch)
        rate = float(_np.asarray(rate.numpy() if hasattr(rate, "numpy") else rate))
        if not _math.isfinite(rate):
            raise ValueError("The output of the `schedule` function should be a float. "
                             "Got: %r" % (rate,))
        optimizer.learning_rate = rate
        if self.verbose > 0:
            print("\nEpoch %d: LearningRateScheduler setting learning rate to %s."
                  % (epoch + 1, rate))

    def on_epoch_end(self, epoch: int, logs: _Logs | None = None) -> None:
        """Log the rate used."""
        if logs is not None:
            logs["learning_rate"] = float(_np.asarray(self.model.optimizer.learning_rate))


class LambdaCallback(Callback):
    """A callback made of functions: `on_epoch_end=lambda epoch, logs: ...` and the like
    for `on_epoch_begin`, `on_train_batch_begin/end`, `on_train_begin/end`."""

    def __init__(self, **hooks: _Callable[..., _Any]) -> None:
        super().__init__()
        aliases = {"on_batch_begin": "on_train_batch_begin",
                   "on_batch_end": "on_train_batch_end"}
        for name, fn in hooks.items():
            name = aliases.get(name, name)
            if name not in _HOOKS:
                raise TypeError("LambdaCallback got an unknown hook %r" % name)
            setattr(self, name, fn)


class TensorBoard(Callback):
    """Writes each epoch's logs as TensorBoard scalars (`epoch_loss`, `epoch_accuracy`,
    ...) with the project's `tf.summary`: training values under `log_dir/train`,
    validation values (without their `val_` prefix) under `log_dir/validation`."""

    def __init__(self, log_dir: str | _os.PathLike[str] = "logs", **options: _Any) -> None:
        super().__init__()
        self.log_dir = _os.fspath(log_dir)
        self.options = options
        self._writers: dict[str, _Any] = {}

    def _writer(self, part: str) -> _Any:
        if part not in self._writers:
            self._writers[part] = _writers.create_file_writer(_os.path.join(self.log_dir, part))
        return self._writers[part]

    def on_epoch_end(self, epoch: int, logs: _Logs | None = None) -> None:
        """Write the epoch's scalars."""
        train = {k: v for k, v in (logs or {}).items() if not k.startswith("val_")}
        validation = {k[4:]: v for k, v in (logs or {}).items() if k.startswith("val_")}
        for part, values in (("train", train), ("validation", validation)):
            if not values:
                continue
            with self._writer(part).as_default():
                for name, value in values.items():
                    _summary_ops.scalar("epoch_" + name, float(value), step=epoch)

    def on_train_end(self, logs: _Logs | None = None) -> None:
        """Flush and close the event files."""
        for writer in self._writers.values():
            writer.close()
        self._writers = {}
