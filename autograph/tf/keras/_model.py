"""`Model`: a layer that trains. Subclass it (layers set as attributes in `__init__`, the
computation in `call`), or give it Keras tensors (`Model(inputs, outputs)`, the functional
API), or use `Sequential`; then

    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(x, y, batch_size=32, epochs=5, validation_split=0.2)
    model.evaluate(x_test, y_test); model.predict(x_new)

`fit` runs one train step per batch (forward pass under a GradientTape, the compiled
loss, the optimizer's update, the metrics) as a traced Function (`run_eagerly=True` runs
it as plain Python), and calls the callbacks around each batch and epoch. Before the first
step the model, the optimizer's slots and the metrics are built eagerly from the first
batch, so the traced steps never create variables.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

import autograph as _autograph
from autograph.converted_call import converted_call
from autograph.tf.keras import _compile, _data, _summary, _symbolic, _tensors
from autograph.tf.keras import callbacks as _callbacks
from autograph.tf.keras import metrics as _metrics
from autograph.tf.keras.layers._layer import Layer, _input_shape
from runtime import context as _context
from runtime import nest
from runtime.gradients import GradientTape
from runtime.ops import array_ops as _array
from runtime.ops import math_ops as _math
from runtime.ops import reduction_ops as _reduce
from runtime.signature import TensorSpec

_FUNCTIONAL: list[type[Model]] = []  # the functional model class (_functional.py)


def set_functional_class(cls: type[Model]) -> None:
    """Say which class `Model(inputs, outputs)` makes (the functional module, which
    imports this one, defines it)."""
    _FUNCTIONAL[:] = [cls]


_SEQUENTIAL: list[type[Model]] = []  # Sequential (models.py)
_SAVE_MODEL: list[Callable[..., None]] = []  # saving.save_model (saving.py)
_WEIGHTS_FILE: list[Callable[..., None]] = []  # saving's writer and reader of .weights.h5


def set_sequential_class(cls: type[Model]) -> None:
    """Say which class is Sequential (models.py, which imports this one, defines it)."""
    _SEQUENTIAL[:] = [cls]


def set_weights_file_io(save: Callable[..., None], load: Callable[..., None]) -> None:
    """Say what writes and reads Keras 3's `.weights.h5` files (saving.py, which imports
    this one)."""
    _WEIGHTS_FILE[:] = [save, load]


def set_model_saver(save: Callable[..., None]) -> None:
    """Say what writes a model to a .keras file (saving.py, which imports this one)."""
    _SAVE_MODEL[:] = [save]


class Model(Layer):
    """A layer with training: `compile`, `fit`, `evaluate`, `predict`, `summary`, and
    saving of its weights. `Model(inputs, outputs)` makes a functional model."""

    def __new__(cls, *args: Any, **kwargs: Any) -> Model:
        if cls is Model and (args or "inputs" in kwargs or "outputs" in kwargs):
            return object.__new__(_FUNCTIONAL[0])
        return object.__new__(cls)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args or "inputs" in kwargs or "outputs" in kwargs:
            raise TypeError(
                "%s: a subclass of Model takes no inputs and outputs (a subclassed functional "
                "model is not supported); build the functional model with "
                "tf.keras.Model(inputs, outputs), or define `call`" % type(self).__name__)
        super().__init__(**kwargs)
        self._init_training_state()

    def _init_training_state(self) -> None:
        self.optimizer: Any = None
        self.loss: Any = None
        self.compiled_loss: _compile.CompiledLoss | None = None
        self.compiled_metrics: _compile.CompiledMetrics | None = None
        self._loss_tracker: _metrics.Mean | None = None
        self._built_for_data = False
        self._compile_config: dict[str, Any] | None = None
        self.compiled = False
        self.run_eagerly = False
        self.stop_training = False
        self.history: Any = None
        self.train_function: Callable[..., Any] | None = None
        self.test_function: Callable[..., Any] | None = None
        self.predict_function: Callable[..., Any] | None = None

    # -- structure ----------------------------------------------------------------------------

    @property
    def layers(self) -> list[Layer]:
        """The model's layers (the attributes of a subclassed model that are layers, in
        the order they were set)."""
        self._track_containers()
        return list(self._layers)

    def get_layer(self, name: str | None = None, index: int | None = None) -> Layer:
        """The layer named `name` (or at position `index`)."""
        if index is not None:
            if not 0 <= index < len(self.layers):
                raise ValueError("Was asked to retrieve layer at index %d but model only has "
                                 "%d layers." % (index, len(self.layers)))
            return self.layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError("No such layer: %s. Existing layers are: %s."
                         % (name, [layer.name for layer in self.layers]))

    def build(self, input_shape: Any = None) -> None:
        """Make the weights for inputs of `input_shape` (a shape, or a list of shapes for
        several inputs; a None batch dimension is fine) by tracing `call` once."""
        if input_shape is None:
            raise ValueError("You must provide an `input_shape` argument.")
        if not _context.executing_eagerly():
            self.built = True  # inside a trace, the call that follows builds the layers
            return
        spec = _specs_of(input_shape, self.dtype)
        self._build_input_shape = input_shape  # a .keras file's build_config
        self.built = True
        try:
            with self._name_scope():  # (the layers' weights are made under its path)
                _autograph.function(lambda inputs: self._call_in_scope(inputs, (), {}),
                                    autograph=False).get_concrete_function(spec)
        except Exception:
            self.built = False
            raise
        finally:
            self._clear_losses()  # added on placeholders: no loss of any data

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        if "_build_input_shape" not in self.__dict__ and not _symbolic.any_symbolic(inputs):
            self._build_input_shape = _input_shape(inputs)  # a .keras file's build_config
        if not self.built and type(self).build is Model.build:
            self.built = True  # the layers build themselves on their first call
        return super().__call__(inputs, *args, **kwargs)

    def summary(self, line_length: int | None = None, positions: Any = None,
                print_fn: Callable[[str], Any] | None = None, **kwargs: Any) -> None:
        """Print a table of the layers (name and type, output shape, parameter count)
        and the total, trainable and non-trainable parameter counts, as Keras does: at
        most 88 columns wide (108 with a "Connected to" column), narrower on a narrow
        console (4 less than its width), or `line_length` wide, the columns' right edges
        at the fractions `positions` of it."""
        for line in _summary.summary_lines(self, line_length, positions):
            (print_fn or print)(line)

    def _output_names(self, y_pred: Any) -> list[str]:
        """A name per output: `output_1`, `output_2`... (functional models name them
        after their output layers)."""
        if isinstance(y_pred, dict):
            return sorted(y_pred)
        count = len(nest.flatten(y_pred, expand_composites=False))
        return ["output_%d" % (i + 1) for i in range(count)] if count > 1 else ["output"]

    # -- compiling ----------------------------------------------------------------------------

    def compile(self, optimizer: Any = "rmsprop", loss: Any = None, loss_weights: Any = None,
                metrics: Any = None, weighted_metrics: Any = None, run_eagerly: bool = False,
                steps_per_execution: int = 1, jit_compile: Any = "auto",
                auto_scale_loss: bool = True) -> None:
        """Set the optimizer, the loss (one, or one per output as a list or a dict by
        output name), its `loss_weights` and the metrics for `fit` and `evaluate`:
        `metrics` ignore sample weights, `weighted_metrics` apply them."""
        self.optimizer = _compile.get_optimizer(optimizer)
        self.loss = loss
        self._compile_config = {"loss": loss, "loss_weights": loss_weights,
                                "metrics": metrics, "weighted_metrics": weighted_metrics}
        self.compiled_loss = None
        self.compiled_metrics = _compile.CompiledMetrics(metrics, weighted_metrics)
        self._built_for_data = False
        self._loss_tracker = _metrics.Mean(name="loss")
        self.run_eagerly = bool(run_eagerly)
        self.train_function = self.test_function = self.predict_function = None
        self.compiled = True

    def _assert_compiled(self) -> None:
        if not self.compiled:
            raise ValueError("You must call `compile()` before using the model.")

    def _build_for(self, batch: tuple[Any, ...]) -> None:
        """Build the model, the compiled loss and metrics and the optimizer's slots from
        a first batch, eagerly, before any step is traced."""
        if self._built_for_data:
            return
        x, y, _ = _data.unpack(batch)
        config = self._compile_config or {}
        if y is None and config.get("loss") is not None:
            raise ValueError("Model '%s' was compiled with a loss but the data has no "
                             "targets: pass `y`, or a Dataset of (x, y) pairs" % self.name)
        y_pred = self(x, training=False)
        names = self._output_names(y_pred)
        if config.get("loss") is not None:
            self.compiled_loss = _compile.CompiledLoss(config["loss"], config["loss_weights"],
                                                       names)
        if y is not None and self.compiled_metrics is not None:
            self.compiled_metrics.build(y, y_pred, names)
        self._built_for_data = True
        if self.optimizer is not None and not self.optimizer.built and \
                self.trainable_variables:
            self.optimizer.build(self.trainable_variables)

    @property
    def metrics(self) -> list[Any]:
        """Keras's order: the loss tracker, the compiled metrics (one object named
        "compile_metrics", when `compile` was given any), each output's loss tracker."""
        found: list[Any] = []
        if self._loss_tracker is not None:
            found.append(self._loss_tracker)
        if self.compiled_metrics is not None and self.compiled_metrics.given:
            found.append(self.compiled_metrics)
        if self.compiled_loss is not None:
            found.extend(self.compiled_loss.trackers)
        return found

    @property
    def metrics_names(self) -> list[str]:
        """The names of `metrics`: `['loss', 'compile_metrics']` for a model compiled
        with metrics, as Keras 3 names them."""
        return [metric.name for metric in self.metrics]

    def reset_metrics(self) -> None:
        """Reset the state of every metric."""
        for metric in self.metrics:
            metric.reset_state()

    # -- steps ------------------------------------------------------------------------------

    def compute_loss(self, x: Any = None, y: Any = None, y_pred: Any = None,
                     sample_weight: Any = None, training: bool = True) -> Any:
        """The compiled loss of a batch (the sum over outputs, weighted) plus the sum of
        each of `losses` (what `add_loss` added in the forward pass, and the weights'
        regularization penalties), as Keras adds them."""
        losses = []
        if self.compiled_loss is not None and y is not None:
            losses.append(self.compiled_loss(y, y_pred, sample_weight))
        for extra in self.losses:
            extra = _tensors.as_tensor(extra, None)
            if not extra.dtype.is_floating:
                extra = _math.cast(extra, "float32")
            losses.append(_reduce.reduce_sum(extra))
        if not losses:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        total = losses[0]
        for extra in losses[1:]:
            total = total + extra
        return total

    def compute_metrics(self, x: Any, y: Any, y_pred: Any,
                        sample_weight: Any = None) -> dict[str, Any]:
        """Update the compiled metrics from a batch; their results by log name."""
        if self.compiled_metrics is not None and self.compiled_metrics.built and \
                y is not None:
            self.compiled_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self) -> dict[str, Any]:
        """Every metric's current result, by log name (the compiled metrics each under
        its own), sorted by name."""
        results: dict[str, Any] = {}
        for metric in self.metrics:
            if isinstance(metric, _compile.CompiledMetrics):
                if metric.built:
                    results.update(metric.result())
            else:
                results[metric.name] = metric.result()
        return dict(sorted(results.items()))

    def train_step(self, data: Any) -> dict[str, Any]:
        """One training step on a batch: forward pass, loss, gradients, the optimizer's
        update, metrics. Override it to customise `fit`."""
        x, y, sample_weight = _data.unpack(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sample_weight, training=True)
        variables = self.trainable_variables
        if variables:
            gradients = tape.gradient(loss, variables)
            self.optimizer.apply_gradients(zip(gradients, variables))
        self._track_loss(loss, y_pred)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data: Any) -> dict[str, Any]:
        """One evaluation step on a batch: forward pass, loss, metrics."""
        x, y, sample_weight = _data.unpack(data)
        y_pred = self(x, training=False)
        if (self.compiled_loss is not None and y is not None) or self.losses:
            self._track_loss(self.compute_loss(x, y, y_pred, sample_weight, training=False),
                             y_pred)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data: Any) -> Any:
        """The model's outputs on a batch."""
        x, _, _ = _data.unpack(data)
        return self(x, training=False)

    def _track_loss(self, loss: Any, y_pred: Any) -> None:
        if self._loss_tracker is not None:
            first = nest.flatten(y_pred, expand_composites=False)[0]
            self._loss_tracker.update_state(
                loss, sample_weight=_math.cast(_array.shape(first)[0], "float32"))

    def _step_function(self, step: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """`step` as `fit` runs it: a traced Function, or plain Python when
        `run_eagerly` is set."""
        def run(data: Any) -> Any:
            return converted_call(step, (data,), None) if not \
                _context.executing_eagerly() else step(data)
        if self.run_eagerly:
            return step
        return _autograph.function(run, autograph=False, reduce_retracing=True)

    def make_train_function(self, force: bool = False) -> Callable[[Any], Any]:
        """The function `fit` calls on each batch (made once)."""
        if self.train_function is None or force:
            self.train_function = self._step_function(self.train_step)
        return self.train_function

    def make_test_function(self, force: bool = False) -> Callable[[Any], Any]:
        """The function `evaluate` calls on each batch (made once)."""
        if self.test_function is None or force:
            self.test_function = self._step_function(self.test_step)
        return self.test_function

    def make_predict_function(self, force: bool = False) -> Callable[[Any], Any]:
        """The function `predict` calls on each batch (made once)."""
        if self.predict_function is None or force:
            self.predict_function = self._step_function(self.predict_step)
        return self.predict_function

    # -- the loops --------------------------------------------------------------------------

    def _callback_list(self, callbacks: Any, verbose: Any, epochs: int,
                       steps: int | None) -> _callbacks.CallbackList:
        given = list(callbacks) if isinstance(callbacks, (list, tuple)) else (
            [callbacks] if callbacks is not None else [])
        if isinstance(callbacks, _callbacks.CallbackList):
            given = list(callbacks.callbacks)
        verbose = 1 if verbose == "auto" else int(verbose)
        if not any(isinstance(c, _callbacks.History) for c in given):
            given.append(_callbacks.History())
        if verbose and not any(isinstance(c, _callbacks.ProgbarLogger) for c in given):
            given.append(_callbacks.ProgbarLogger())
        return _callbacks.CallbackList(given, model=self, verbose=verbose, epochs=epochs,
                                       steps=steps)

    def fit(self, x: Any = None, y: Any = None, batch_size: int | None = None,
            epochs: int = 1, verbose: Any = "auto", callbacks: Any = None,
            validation_split: float = 0.0, validation_data: Any = None, shuffle: bool = True,
            class_weight: dict[int, float] | None = None, sample_weight: Any = None,
            initial_epoch: int = 0, steps_per_epoch: int | None = None,
            validation_steps: int | None = None, validation_batch_size: int | None = None,
            validation_freq: int = 1) -> _callbacks.History:
        """Train for `epochs` passes over the data (arrays, or a Dataset of
        `(x, y[, sample_weight])` batches); returns the History of each epoch's logs."""
        self._assert_compiled()
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = _split(x, y, sample_weight,
                                                            validation_split)
        if class_weight is not None:
            sample_weight = _class_weights(y, sample_weight, class_weight)
        data = _data.batches(x, y, sample_weight, batch_size, steps_per_epoch, shuffle)
        validation = None
        if validation_data is not None:
            vx, vy, vsw = _data.unpack(validation_data) if not isinstance(
                validation_data, _data.Pipeline) else (validation_data, None, None)
            validation = _data.batches(vx, vy, vsw, validation_batch_size or batch_size,
                                       validation_steps)
        callback_list = self._callback_list(callbacks, verbose, epochs, data.steps)
        self.stop_training = False
        train_function = None
        callback_list.on_train_begin()
        epoch_logs: dict[str, Any] = {}
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            callback_list.on_epoch_begin(epoch)
            logs: dict[str, Any] | None = None
            for step, batch in enumerate(data.epoch()):
                if train_function is None:
                    self._build_for(batch)
                    train_function = self.make_train_function()
                callback_list.on_train_batch_begin(step)
                logs = _floats(train_function(batch))
                callback_list.on_train_batch_end(step, logs)
                if self.stop_training:
                    break
            if logs is None:
                raise ValueError("Unexpected result of `train_function` (Empty logs). This "
                                 "could be due to issues in input pipeline that resulted in "
                                 "an empty dataset.")
            epoch_logs = dict(logs)
            if validation is not None and (epoch + 1) % validation_freq == 0:
                val_logs = self._evaluate_batches(validation, callback_list)
                epoch_logs.update({"val_" + name: value for name, value in val_logs.items()})
            callback_list.on_epoch_end(epoch, epoch_logs)
            if self.stop_training:
                break
        callback_list.on_train_end(epoch_logs)
        return self.history

    def _evaluate_batches(self, data: _data.DataBatches,
                          callback_list: _callbacks.CallbackList) -> dict[str, Any]:
        self.reset_metrics()
        test_function = None
        callback_list.on_test_begin()
        logs: dict[str, Any] | None = None
        for step, batch in enumerate(data.epoch()):
            if test_function is None:
                self._build_for(batch)
                test_function = self.make_test_function()
            callback_list.on_test_batch_begin(step)
            logs = _floats(test_function(batch))
            callback_list.on_test_batch_end(step, logs)
        if logs is None:
            raise ValueError("Unexpected result of `test_function` (Empty logs): the "
                             "evaluation data is empty")
        callback_list.on_test_end(logs)
        return logs

    def evaluate(self, x: Any = None, y: Any = None, batch_size: int | None = None,
                 verbose: Any = "auto", sample_weight: Any = None, steps: int | None = None,
                 callbacks: Any = None, return_dict: bool = False) -> Any:
        """The loss and metrics over the data: a list `[loss, metric, ...]` (one value
        alone when there are no metrics), or a dict with `return_dict=True`."""
        self._assert_compiled()
        data = _data.batches(x, y, sample_weight, batch_size, steps)
        callback_list = self._callback_list(callbacks, verbose, 1, data.steps)
        logs = self._evaluate_batches(data, callback_list)
        return logs if return_dict else self._in_metric_order(logs)

    def _in_metric_order(self, logs: dict[str, Any]) -> Any:
        """`evaluate`'s list, in Keras's order: the logs named by `metrics` (a compiled
        metric by its own name, so a name may come twice), then the others by name."""
        names: list[str] = []
        for metric in self.metrics:
            if isinstance(metric, _compile.CompiledMetrics):
                names.extend(sub.name for sub in metric.metrics)
            else:
                names.append(metric.name)
        values = [logs[name] for name in names if name in logs]
        values.extend(logs[name] for name in sorted(logs) if name not in names)
        return values[0] if len(values) == 1 else values

    def predict(self, x: Any, batch_size: int | None = None, verbose: Any = "auto",
                steps: int | None = None, callbacks: Any = None) -> Any:
        """The model's outputs for every sample, as numpy arrays (batches joined)."""
        if isinstance(x, tuple) and not isinstance(x, _data.Pipeline):
            x = x[0] if len(x) in (2, 3) else x
        data = _data.batches(x, None, None, batch_size, steps)
        callback_list = self._callback_list(callbacks, verbose, 1, data.steps)
        predict_function = None
        outputs: list[Any] = []
        callback_list.on_predict_begin()
        for step, batch in enumerate(data.epoch()):
            if predict_function is None:
                predict_function = self.make_predict_function()
            callback_list.on_predict_batch_begin(step)
            batch_outputs = nest.map_structure(lambda t: np.asarray(t.numpy()),
                                               predict_function(batch))
            outputs.append(batch_outputs)
            callback_list.on_predict_batch_end(step, {"outputs": batch_outputs})
        if not outputs:
            raise ValueError("Unexpected result of `predict_function` (Empty batch_outputs). "
                             "Please use `Model.compile(..., run_eagerly=True)`, or "
                             "`tf.config.run_functions_eagerly(True)` for more information "
                             "of where went wrong, or file a issue/bug to `tf.keras`.")
        callback_list.on_predict_end()
        return nest.map_structure(lambda *parts: np.concatenate(parts, axis=0), *outputs)

    def train_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                       class_weight: dict[int, float] | None = None,
                       return_dict: bool = False) -> Any:
        """One training step on one batch; the metrics so far (as `evaluate` returns
        them)."""
        self._assert_compiled()
        if class_weight is not None:
            sample_weight = _class_weights(y, sample_weight, class_weight)
        batch = next(iter(_data.ArrayBatches(x, y, sample_weight,
                                             batch_size=_rows(x)).epoch()))
        self._build_for(batch)
        logs = _floats(self.make_train_function()(batch))
        return logs if return_dict else self._in_metric_order(logs)

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                      return_dict: bool = False) -> Any:
        """One evaluation step on one batch; the metrics so far."""
        self._assert_compiled()
        batch = next(iter(_data.ArrayBatches(x, y, sample_weight,
                                             batch_size=_rows(x)).epoch()))
        self._build_for(batch)
        logs = _floats(self.make_test_function()(batch))
        return logs if return_dict else self._in_metric_order(logs)

    def predict_on_batch(self, x: Any) -> Any:
        """The model's outputs on one batch, as numpy arrays."""
        batch = next(iter(_data.ArrayBatches(x, batch_size=_rows(x)).epoch()))
        outputs = self.make_predict_function()(batch)
        return nest.map_structure(lambda t: np.asarray(t.numpy()), outputs)

    # -- saving -----------------------------------------------------------------------------

    def _assert_has_weights(self, action: str) -> None:
        if not self.built or not self.weights:
            raise ValueError("Unable to %s the weights of model '%s': it has no weights yet. "
                             "Build it first (call it on data, or `build(input_shape)`)"
                             % (action, self.name))

    def save_weights(self, filepath: str | os.PathLike[str], overwrite: bool = True) -> None:
        """Write the weights (and a built optimizer's state, as Keras writes it) to Keras
        3's HDF5 file, whose name must end in `.weights.h5` as Keras 3 requires (a
        TensorFlow checkpoint of a model is `tf.train.Checkpoint(model=model).write`)."""
        path = os.fspath(filepath)
        if not path.endswith(".weights.h5"):
            raise ValueError("The filename must end in `.weights.h5`. Received: filepath=%s"
                             % path)
        self._assert_has_weights("save")
        _WEIGHTS_FILE[0](self, path, overwrite)

    def load_weights(self, filepath: str | os.PathLike[str], skip_mismatch: bool = False) \
            -> None:
        """Read a Keras 3 `.weights.h5` file, ours or Keras's (every weight must find its
        value); other names are refused as Keras 3 refuses them."""
        if skip_mismatch:
            raise NotImplementedError("load_weights(skip_mismatch=True) is not supported")
        path = os.fspath(filepath)
        if path.endswith(".keras") or (path.endswith((".h5", ".hdf5"))
                                       and not path.endswith(".weights.h5")):
            raise ValueError(
                "load_weights(%r): loading the weights of a .keras file or a legacy .h5 "
                "file into a model is not supported; load the whole model with "
                "tf.keras.models.load_model, or save its weights to '<name>.weights.h5'"
                % path)
        if not path.endswith(".weights.h5"):
            raise ValueError("File format not supported: filepath=%s. Keras 3 only supports "
                             "V3 `.keras` files, `.weights.h5` files, legacy H5 format files "
                             "(`.h5` extension), or Orbax checkpoints." % path)
        self._assert_has_weights("load")
        _WEIGHTS_FILE[1](self, path)

    def save(self, filepath: str | os.PathLike[str], overwrite: bool = True,
             **kwargs: Any) -> None:
        """Write the model (architecture, weights, compile arguments) to a `.keras`
        file, Keras 3's format (see `tf.keras.saving`)."""
        _SAVE_MODEL[0](self, filepath, overwrite=overwrite, **kwargs)


def _specs_of(shape: Any, dtype: Any) -> Any:
    if isinstance(shape, (list, tuple)) and shape and all(
            isinstance(s, (list, tuple)) or hasattr(s, "as_list") for s in shape):
        return [_specs_of(s, dtype) for s in shape]
    if isinstance(shape, dict):
        return {key: _specs_of(s, dtype) for key, s in shape.items()}
    dims = shape.as_list() if hasattr(shape, "as_list") else list(shape)
    return TensorSpec(tuple(dims), dtype=dtype)


def _floats(logs: Any) -> dict[str, Any]:
    if not isinstance(logs, dict):
        raise TypeError("A train/test step must return a dict of metric values; got %r"
                        % (logs,))
    return {name: float(np.asarray(value.numpy() if hasattr(value, "numpy") else value))
            for name, value in logs.items()}


def _rows(x: Any) -> int:
    first = nest.flatten(x, expand_composites=False)[0]
    return int(np.shape(first.numpy() if hasattr(first, "numpy") else first)[0])


def _split(x: Any, y: Any, sample_weight: Any,
           validation_split: float) -> tuple[tuple[Any, Any, Any], tuple[Any, ...]]:
    train, held_out = _data.split_validation(x, y, sample_weight, validation_split)
    return _data.unpack(train), held_out


def _class_weights(y: Any, sample_weight: Any, class_weight: dict[int, float]) -> Any:
    """Sample weights from `class_weight` (class -> weight) and integer or one-hot labels,
    times `sample_weight` when given."""
    labels = np.asarray(y.numpy() if hasattr(y, "numpy") else y)
    if labels.ndim > 1 and labels.shape[-1] > 1:
        labels = labels.argmax(axis=-1)
    labels = labels.reshape(len(labels), -1)[:, 0].astype(np.int64)
    unknown = sorted(set(labels.tolist()) - set(class_weight))
    if unknown:
        raise ValueError("Expected `class_weight` to be a dict with a key for every class; "
                         "classes %s have none" % unknown)
    weights = np.array([class_weight[int(label)] for label in labels], np.float32)
    if sample_weight is not None:
        weights = weights * np.asarray(sample_weight, np.float32)
    return weights
