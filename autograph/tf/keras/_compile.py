"""What `Model.compile` resolves: the optimizer, the loss of each output and the metrics,
from Keras's names ("adam", "mse", "accuracy") or objects.

    optimizer = get_optimizer("adam")                  # Adam()
    loss = CompiledLoss("mse", None, ["dense"])        # total = sum of weighted losses
    metrics = CompiledMetrics(["accuracy"], ["mae"])   # metrics, weighted_metrics; built
                                                       # on the first batch's shapes

"accuracy" becomes binary, sparse categorical or categorical accuracy from the shapes of
the first batch's labels and predictions, as Keras decides.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from autograph.tf.keras import _tensors
from autograph.tf.keras import losses as _losses
from autograph.tf.keras import metrics as _metrics
from autograph.tf.keras import optimizers as _optimizers
from runtime import nest

_OPTIMIZERS: dict[str, Callable[[], _optimizers.Optimizer]] = {
    "sgd": _optimizers.SGD, "adam": _optimizers.Adam, "adamw": _optimizers.AdamW,
    "rmsprop": _optimizers.RMSprop, "adagrad": _optimizers.Adagrad}

_LOSSES: dict[str, Callable[..., Any]] = {
    "mse": _losses.mse, "mean_squared_error": _losses.mse,
    "mae": _losses.mae, "mean_absolute_error": _losses.mae,
    "huber": _losses.huber, "huber_loss": _losses.huber,
    "binary_crossentropy": _losses.binary_crossentropy,
    "categorical_crossentropy": _losses.categorical_crossentropy,
    "sparse_categorical_crossentropy": _losses.sparse_categorical_crossentropy}

_METRICS: dict[str, Callable[[str], _metrics.Metric]] = {
    "mse": lambda name: _metrics.MeanSquaredError(name=name),
    "mean_squared_error": lambda name: _metrics.MeanSquaredError(name=name),
    "mae": lambda name: _metrics.MeanAbsoluteError(name=name),
    "mean_absolute_error": lambda name: _metrics.MeanAbsoluteError(name=name),
    "binary_accuracy": lambda name: _metrics.BinaryAccuracy(name=name),
    "categorical_accuracy": lambda name: _metrics.CategoricalAccuracy(name=name),
    "sparse_categorical_accuracy": lambda name: _metrics.SparseCategoricalAccuracy(name=name),
    "auc": lambda name: _metrics.AUC(name=name)}


def get_optimizer(identifier: Any) -> _optimizers.Optimizer:
    """The optimizer `identifier` names (its defaults), or `identifier` itself."""
    if isinstance(identifier, _optimizers.Optimizer):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _OPTIMIZERS:
        return _OPTIMIZERS[identifier.lower()]()
    raise ValueError("Could not interpret optimizer identifier: %r (known names: %s)"
                     % (identifier, ", ".join(sorted(_OPTIMIZERS))))


class _LossFunction(_losses.Loss):
    """A per-sample loss function used as a loss: its values weighed and averaged."""

    def __init__(self, fn: Callable[..., Any], name: str) -> None:
        super().__init__(name=name)
        self._fn = fn

    def call(self, y_true: Any, y_pred: Any) -> Any:
        """The function's per-sample values."""
        if self._fn is not _losses.sparse_categorical_crossentropy:
            y_true, y_pred = _tensors.squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self._fn(y_true, y_pred)


def get_loss(identifier: Any) -> _losses.Loss | None:
    """The loss `identifier` names, a function wrapped as a loss, or a Loss itself."""
    if identifier is None or isinstance(identifier, _losses.Loss):
        return identifier
    if isinstance(identifier, str):
        if identifier not in _LOSSES:
            raise ValueError("Could not interpret loss identifier: %r (known names: %s)"
                             % (identifier, ", ".join(sorted(_LOSSES))))
        return _LossFunction(_LOSSES[identifier], _LOSSES[identifier].__name__)
    if callable(identifier):
        return _LossFunction(identifier, getattr(identifier, "__name__", "loss"))
    raise ValueError("Could not interpret loss identifier: %r" % (identifier,))


def _per_output(spec: Any, output_names: Sequence[str], what: str) -> list[Any]:
    """`spec` (one value for every output, a list in output order, or a dict by output
    name) as a list in output order."""
    count = len(output_names)
    if isinstance(spec, dict):
        unknown = sorted(set(spec) - set(output_names))
        if unknown:
            raise ValueError("In the dict argument `%s`, keys %s do not match any model "
                             "output. The model's outputs are %s" % (what, unknown,
                                                                     list(output_names)))
        return [spec.get(name) for name in output_names]
    if isinstance(spec, (list, tuple)) and count > 1:
        if len(spec) != count:
            raise ValueError("`%s` should have one entry per model output: the model has "
                             "%d outputs (%s) but %d entries were given"
                             % (what, count, list(output_names), len(spec)))
        return list(spec)
    return [spec] * count


class CompiledLoss:
    """The model's loss: each output's loss, times its weight, summed; with several
    outputs each output's (unweighted) loss is also tracked as `<output>_loss`, averaged
    over batches as Keras averages it (the total `loss` is averaged over samples)."""

    def __init__(self, loss: Any, loss_weights: Any, output_names: Sequence[str]) -> None:
        self.output_names = list(output_names)
        self.losses = [get_loss(item) for item in _per_output(loss, output_names, "loss")]
        weights = _per_output(loss_weights, output_names, "loss_weights")
        self.weights = [1.0 if w is None else float(w) for w in weights]
        self.trackers: list[_metrics.Mean] = []
        if len(self.output_names) > 1:
            self.trackers = [_metrics.Mean(name="%s_loss" % name)
                             for name, fn in zip(self.output_names, self.losses)
                             if fn is not None]

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        """The total loss of a batch (and each output's, into its tracker)."""
        trues = _flat_targets(y_true, self.output_names)
        preds = nest.flatten(y_pred, expand_composites=False)
        weights = (_flat_targets(sample_weight, self.output_names)
                   if sample_weight is not None else [None] * len(preds))
        if len(trues) != len(preds):
            raise ValueError("The model has %d outputs but the data has %d targets"
                             % (len(preds), len(trues)))
        total = None
        trackers = iter(self.trackers)
        for fn, weight, true, pred, sw in zip(self.losses, self.weights, trues, preds,
                                              weights):
            if fn is None:
                continue
            value = fn(true, pred, sample_weight=sw)
            if self.trackers:  # Keras averages these over batches, not samples
                next(trackers).update_state(value)
            value = value * weight if weight != 1.0 else value
            total = value if total is None else total + value
        if total is None:
            raise ValueError("No loss to compute: `compile()` was given no loss for any "
                             "output")
        return total



def _flat_targets(y: Any, output_names: Sequence[str]) -> list[Any]:
    if isinstance(y, dict):
        missing = [name for name in output_names if name not in y]
        if missing:
            raise ValueError("The targets are a dict without keys for outputs %s" % missing)
        return [y[name] for name in output_names]
    if len(output_names) == 1:
        return [y]
    return list(y)


def _resolve_metric(identifier: Any, y_true: Any, y_pred: Any) -> _metrics.Metric:
    if isinstance(identifier, _metrics.Metric):
        return identifier
    if isinstance(identifier, str):
        if identifier in ("accuracy", "acc"):
            return _accuracy_for(y_true, y_pred, identifier)
        if identifier in _METRICS:
            return _METRICS[identifier](identifier)
        raise ValueError("Could not interpret metric identifier: %r (known names: %s)"
                         % (identifier, ", ".join(sorted(["accuracy", *_METRICS]))))
    if callable(identifier):
        return _metrics.MeanMetricWrapper(identifier)
    raise ValueError("Could not interpret metric identifier: %r" % (identifier,))


def _accuracy_for(y_true: Any, y_pred: Any, name: str) -> _metrics.Metric:
    true_shape, pred_shape = tuple(y_true.shape), tuple(y_pred.shape)
    if len(pred_shape) <= 1 or pred_shape[-1] == 1:
        return _metrics.BinaryAccuracy(name=name)
    if len(true_shape) < len(pred_shape) or true_shape[-1] == 1:
        return _metrics.SparseCategoricalAccuracy(name=name)
    return _metrics.CategoricalAccuracy(name=name)


class CompiledMetrics:
    """The compiled metrics, Keras's `CompileMetrics` (named "compile_metrics"): those of
    `metrics`, updated without sample weights, and those of `weighted_metrics`, updated
    with them; made per output on the first batch (`build`)."""

    name = "compile_metrics"

    def __init__(self, metrics: Any, weighted_metrics: Any = None) -> None:
        self._given = (metrics, weighted_metrics)
        self.output_names: list[str] = []
        self._unweighted: list[tuple[int, _metrics.Metric]] = []
        self._weighted: list[tuple[int, _metrics.Metric]] = []
        self.built = False

    @property
    def given(self) -> bool:
        """Whether `compile` was given any metric."""
        return any(bool(spec) for spec in self._given)

    @property
    def metrics(self) -> list[_metrics.Metric]:
        """The metric objects: those of `metrics`, then those of `weighted_metrics`."""
        return [metric for _, metric in self._unweighted + self._weighted]

    def build(self, y_true: Any, y_pred: Any, output_names: Sequence[str]) -> None:
        """Make the metric objects, resolving "accuracy" from the batch's shapes."""
        self.output_names = list(output_names)
        trues = _flat_targets(y_true, self.output_names)
        preds = nest.flatten(y_pred, expand_composites=False)
        made = []
        for spec in self._given:
            entries = []
            for position, identifiers in enumerate(self._per_output(spec)):
                for identifier in identifiers:
                    entries.append((position, _resolve_metric(
                        identifier, _tensors.as_tensor(trues[position], None),
                        preds[position])))
            made.append(entries)
        self._unweighted, self._weighted = made
        self.built = True

    def _per_output(self, metrics: Any) -> list[list[Any]]:
        """`metrics` (a list for every output, a list per output, or a dict by output
        name) as one list of identifiers per output."""
        if metrics is None:
            metrics = []
        if isinstance(metrics, (str, _metrics.Metric)) or callable(metrics):
            metrics = [metrics]
        if len(self.output_names) == 1 and isinstance(metrics, dict):
            return [list(metrics.get(self.output_names[0], []))]
        if len(self.output_names) == 1:
            return [list(metrics)]
        if isinstance(metrics, dict) or (metrics and isinstance(metrics[0], (list, tuple))):
            return [[] if m is None else (list(m) if isinstance(m, (list, tuple)) else [m])
                    for m in _per_output(metrics, self.output_names, "metrics")]
        return [list(metrics)] * len(self.output_names)

    def update_state(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> None:
        """Update each metric from its output's labels and predictions (the weighted
        ones with the sample weights too)."""
        trues = _flat_targets(y_true, self.output_names)
        preds = nest.flatten(y_pred, expand_composites=False)
        for position, metric in self._unweighted:
            metric.update_state(trues[position], preds[position])
        if not self._weighted:
            return
        weights = _flat_weights(sample_weight, self.output_names)
        for position, metric in self._weighted:
            metric.update_state(trues[position], preds[position],
                                sample_weight=weights[position])

    def reset_state(self) -> None:
        """Reset every metric."""
        for metric in self.metrics:
            metric.reset_state()

    def result(self) -> dict[str, Any]:
        """Each metric's result by its log name: `<output>_<metric>` with several
        outputs; a weighted metric whose name is taken becomes `weighted_<metric>`, and a
        name taken again gets `_1`, `_2`... (Keras's rule)."""
        several = len(self.output_names) > 1
        results: dict[str, Any] = {}
        counts: dict[str, int] = {}

        def prefixed(position: int, name: str) -> str:
            return "%s_%s" % (self.output_names[position], name) if several else name

        def numbered(name: str) -> str:
            if name not in counts:
                counts[name] = 1
                return name
            counts[name] += 1
            return "%s_%d" % (name, counts[name] - 1)

        for position, metric in self._unweighted:
            results[numbered(prefixed(position, metric.name))] = metric.result()
        for position, metric in self._weighted:
            name = prefixed(position, metric.name)
            if name in counts:
                name = numbered(prefixed(position, "weighted_" + metric.name))
            else:
                counts[name] = 1
            results[name] = metric.result()
        return results


def _flat_weights(sample_weight: Any, output_names: Sequence[str]) -> list[Any]:
    """One sample weight (or None) per output; one given for several outputs serves
    them all."""
    if sample_weight is None:
        return [None] * len(output_names)
    if len(output_names) > 1 and not isinstance(sample_weight, (list, tuple, dict)):
        return [sample_weight] * len(output_names)
    return _flat_targets(sample_weight, output_names)
