"""`tf.keras.metrics`: streaming metrics whose state is Variables, so `update_state`,
`result` and `reset_state` work eagerly and inside a Function alike.

    m = tf.keras.metrics.Mean()
    m.update_state([1.0, 3.0])       # total += 4, count += 2
    m.result()                       # 2.0
"""

from collections.abc import Callable as _Callable
from typing import Any as _Any

import numpy as _np

from autograph.tf.keras import _tensors, _variables
from autograph.tf.keras import losses as _losses
from runtime import module as _module
from runtime.ops import array_ops as _array
from runtime.ops import math_ops as _math
from runtime.ops import reduction_ops as _reduce
from runtime.ops import reshape_ops as _reshape
from runtime.ops import selection_ops as _select

_EPSILON = 1e-7


class Metric(_module.Module):
    """The base class of Keras metrics: state in Variables made by `add_variable`;
    `update_state(...)` accumulates, `result()` reads, `reset_state()` zeroes, and calling
    the metric updates it and returns the result."""

    def __init__(self, name=None, dtype=None):
        name = name or _module.snake_case(type(self).__name__)
        super().__init__(name=name)
        self.dtype = dtype or "float32"
        self._metric_variables = []

    def add_variable(self, shape, initializer="zeros", dtype=None, name=None):
        """A new non-trainable state variable of `shape`, filled with zeros."""
        if initializer != "zeros":
            raise ValueError("metric variables start at zeros; got initializer=%r"
                             % (initializer,))
        value = _np.zeros(shape, dtype=_np.dtype(dtype or self.dtype))
        with _variables.name_scope(self, self.name):
            variable = _variables.make_variable(value, name, trainable=False)
        self._metric_variables.append(variable)
        return variable

    @property
    def variables(self):
        """The metric's state variables, in the order they were made."""
        return list(self._metric_variables)

    def update_state(self, *args, **kwargs):
        """Accumulate statistics from a batch (each metric defines it)."""
        raise NotImplementedError("%s must define update_state" % type(self).__name__)

    def result(self):
        """The metric's value from the statistics so far (each metric defines it)."""
        raise NotImplementedError("%s must define result" % type(self).__name__)

    def reset_state(self):
        """Set every state variable back to zeros."""
        for variable in self._metric_variables:
            variable.assign(_np.zeros(variable.shape.as_list(),
                                      dtype=variable.dtype.as_numpy_dtype))

    def __call__(self, *args, **kwargs):
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self):
        """The metric's constructor arguments, as a dict."""
        return {"name": self.name, "dtype": self.dtype}


def _samplewise(values, sample_weight):
    """Keras's reduction of a batch of values to one per sample: trailing axes are
    averaged (after weighting when weights are given); returns (values, weights)."""
    if sample_weight is not None:
        weights = _tensors.as_tensor(sample_weight, values.dtype)
        values, weights = _tensors.squeeze_or_expand_to_same_rank(values, weights)
        weight_rank, value_rank = _tensors.rank(weights), _tensors.rank(values)
        if value_rank > weight_rank:
            values = _reduce.reduce_mean(values, axis=list(range(weight_rank, value_rank)))
        weights = weights + _math.multiply(values, 0.0)  # broadcast to the values' shape
        values = values * weights
        if weight_rank > 1:
            weights = _reduce.reduce_mean(weights, axis=list(range(1, weight_rank)))
        sample_weight = weights
    if _tensors.rank(values) > 1:
        values = _reduce.reduce_mean(values, axis=list(range(1, _tensors.rank(values))))
    return values, sample_weight


class Mean(Metric):
    """The (weighted) mean of the values given: `total / count`; values of rank > 1 are
    first averaged per sample."""

    def __init__(self, name="mean", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable((), name="total")
        self.count = self.add_variable((), name="count")

    def update_state(self, values, sample_weight=None):
        """Add `values` (weighted by `sample_weight`) to the running mean."""
        values = _tensors.as_tensor(values, self.dtype)
        values, weights = _samplewise(values, sample_weight)
        self.total.assign_add(_reduce.reduce_sum(values))
        if weights is not None:
            samples = _reduce.reduce_sum(weights)
        elif _tensors.rank(values) >= 1:
            samples = _math.cast(_array.shape(values)[0], self.dtype)
        else:
            samples = _array.constant(1.0, dtype=self.dtype)
        self.count.assign_add(samples)

    def result(self):
        """`total / count` (0 before any update)."""
        return _tensors.divide_no_nan(self.total.read_value(), self.count.read_value())


class _MeanOf(Mean):
    """A Mean of the per-sample values of a function of `(y_true, y_pred)`."""

    # (Keras's MeanMetricWrapper, a Mean too, takes (y_true, y_pred) here as well)
    def update_state(self, y_true, y_pred, sample_weight=None):  # type: ignore[override]
        """Add this batch's per-sample values to the running mean."""
        super().update_state(self._values(y_true, y_pred), sample_weight=sample_weight)

    def _values(self, y_true, y_pred):
        raise NotImplementedError


class Accuracy(_MeanOf):
    """How often predictions equal labels (exactly): the mean of `y_true == y_pred`."""

    def __init__(self, name="accuracy", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def _values(self, y_true, y_pred):
        y_pred = _tensors.as_tensor(y_pred, None)
        y_true = _tensors.as_tensor(y_true, y_pred.dtype)
        y_true, y_pred = _tensors.squeeze_or_expand_to_same_rank(y_true, y_pred)
        return _math.cast(_math.equal(y_true, y_pred), self.dtype)


class SparseCategoricalAccuracy(_MeanOf):
    """How often the arg-max of the predicted class scores equals the integer label."""

    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def _values(self, y_true, y_pred):
        y_pred = _tensors.as_tensor(y_pred, None)
        y_true = _tensors.as_tensor(y_true, None)
        if _tensors.rank(y_true) == _tensors.rank(y_pred) and y_true.shape[-1] == 1:
            y_true = _reshape.squeeze(y_true, [-1])
        predicted = _math.cast(_reduce.argmax(y_pred, axis=-1), y_true.dtype)
        return _math.cast(_math.equal(y_true, predicted), self.dtype)


class BinaryAccuracy(_MeanOf):
    """How often a prediction above `threshold` (0.5) matches a 0/1 label."""

    def __init__(self, name: str = "binary_accuracy", dtype: str | None = None,
                 threshold: float = 0.5) -> None:
        super().__init__(name=name, dtype=dtype)
        self.threshold = threshold

    def _values(self, y_true: _Any, y_pred: _Any) -> _Any:
        y_pred = _tensors.as_tensor(y_pred, None)
        y_true = _tensors.as_tensor(y_true, y_pred.dtype)
        y_true, y_pred = _tensors.squeeze_or_expand_to_same_rank(y_true, y_pred)
        predicted = _math.cast(_math.greater(y_pred, self.threshold), y_true.dtype)
        return _math.cast(_math.equal(y_true, predicted), self.dtype)


class CategoricalAccuracy(_MeanOf):
    """How often the arg-max of the predictions equals the arg-max of one-hot labels."""

    def __init__(self, name: str = "categorical_accuracy", dtype: str | None = None) -> None:
        super().__init__(name=name, dtype=dtype)

    def _values(self, y_true: _Any, y_pred: _Any) -> _Any:
        y_pred = _tensors.as_tensor(y_pred, None)
        y_true = _tensors.as_tensor(y_true, None)
        return _math.cast(_math.equal(_reduce.argmax(y_true, axis=-1),
                                      _reduce.argmax(y_pred, axis=-1)), self.dtype)


class MeanMetricWrapper(_MeanOf):
    """The running mean of `fn(y_true, y_pred)`'s per-sample values (a loss function used
    as a metric, say)."""

    def __init__(self, fn: _Callable[..., _Any], name: str | None = None,
                 dtype: str | None = None, **kwargs: _Any) -> None:
        super().__init__(name=name or getattr(fn, "__name__", "mean_metric_wrapper"),
                         dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def _values(self, y_true: _Any, y_pred: _Any) -> _Any:
        y_pred = _tensors.as_tensor(y_pred, None)
        y_true = _tensors.as_tensor(y_true, y_pred.dtype)
        y_true, y_pred = _tensors.squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self._fn(y_true, y_pred, **self._fn_kwargs)


class MeanSquaredError(MeanMetricWrapper):
    """The running mean of the squared error (`mean_squared_error` per sample)."""

    def __init__(self, name: str = "mean_squared_error", dtype: str | None = None) -> None:
        super().__init__(_losses.mse, name=name, dtype=dtype)


class MeanAbsoluteError(MeanMetricWrapper):
    """The running mean of the absolute error (`mean_absolute_error` per sample)."""

    def __init__(self, name: str = "mean_absolute_error", dtype: str | None = None) -> None:
        super().__init__(_losses.mae, name=name, dtype=dtype)


class AUC(Metric):
    """The area under the ROC or precision-recall curve, approximated as Keras does from
    confusion counts at `num_thresholds` thresholds spread evenly over [0, 1]: a Riemann
    sum (`summation_method` "interpolation", "minoring" or "majoring"), with the
    precision-recall curve interpolated as Davis and Goadrich describe."""

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation",
                 name=None, dtype=None, thresholds=None, multi_label=False, num_labels=None,
                 label_weights=None, from_logits=False):
        if curve not in ("ROC", "PR"):
            raise ValueError('Invalid `curve` argument value "%s". Expected one of: '
                             "['ROC', 'PR']" % (curve,))
        if summation_method not in ("interpolation", "minoring", "majoring"):
            raise ValueError('Invalid `summation_method` argument value "%s". Expected one '
                             "of: ['interpolation', 'minoring', 'majoring']"
                             % (summation_method,))
        if multi_label or num_labels is not None or label_weights is not None:
            raise NotImplementedError("AUC with multi_label, num_labels or label_weights is "
                                      "not supported yet")
        super().__init__(name=name or "auc", dtype=dtype)
        if thresholds is not None:
            inner = sorted(float(t) for t in thresholds)
            num_thresholds = len(inner) + 2
        else:
            if num_thresholds <= 1:
                raise ValueError("Argument `num_thresholds` must be an integer > 1. "
                                 "Received: num_thresholds=%r" % (num_thresholds,))
            inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self.num_thresholds = num_thresholds
        self.thresholds = [0.0 - _EPSILON] + inner + [1.0 + _EPSILON]
        self.curve = curve
        self.summation_method = summation_method
        self.from_logits = from_logits
        self.true_positives = self.add_variable((num_thresholds,), name="true_positives")
        self.false_positives = self.add_variable((num_thresholds,), name="false_positives")
        self.true_negatives = self.add_variable((num_thresholds,), name="true_negatives")
        self.false_negatives = self.add_variable((num_thresholds,), name="false_negatives")

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Add this batch's confusion counts at every threshold (every value is one
        prediction: the inputs are flattened)."""
        y_pred = _tensors.as_tensor(y_pred, self.dtype)
        if self.from_logits:
            y_pred = _math.sigmoid(y_pred)
        y_true = _tensors.as_tensor(y_true, self.dtype)
        predictions = _reshape.reshape(y_pred, [1, -1])
        positive = _reshape.reshape(_math.cast(_math.not_equal(y_true, 0.0), self.dtype),
                                  [1, -1])
        if sample_weight is None:
            weights = _math.add(_math.multiply(positive, 0.0), 1.0)
        else:
            weights = _reshape.reshape(
                _tensors.as_tensor(sample_weight, self.dtype)
                + _math.multiply(_tensors.as_tensor(y_true, self.dtype), 0.0), [1, -1])
        thresholds = _array.constant(_np.array(self.thresholds, _np.float32).reshape(-1, 1))
        above = _math.cast(_math.greater(predictions, thresholds), self.dtype)
        below = 1.0 - above
        negative = 1.0 - positive
        self.true_positives.assign_add(_reduce.reduce_sum(above * positive * weights, axis=1))
        self.false_positives.assign_add(_reduce.reduce_sum(above * negative * weights, axis=1))
        self.true_negatives.assign_add(_reduce.reduce_sum(below * negative * weights, axis=1))
        self.false_negatives.assign_add(_reduce.reduce_sum(below * positive * weights, axis=1))

    def result(self):
        """The area under the curve from the counts so far."""
        tp, fp = self.true_positives.read_value(), self.false_positives.read_value()
        tn, fn = self.true_negatives.read_value(), self.false_negatives.read_value()
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self._interpolated_pr_auc(tp, fp, fn)
        recall = _tensors.divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = _tensors.divide_no_nan(fp, fp + tn), recall
        else:
            x, y = recall, _tensors.divide_no_nan(tp, tp + fp)
        y_left, y_right = y[:-1], y[1:]
        if self.summation_method == "interpolation":
            heights = (y_left + y_right) / 2.0
        elif self.summation_method == "minoring":
            heights = _math.minimum(y_left, y_right)
        else:
            heights = _math.maximum(y_left, y_right)
        return _reduce.reduce_sum((x[:-1] - x[1:]) * heights)

    def _interpolated_pr_auc(self, tp, fp, fn):
        # between two thresholds precision is interpolated along the line of true
        # positives against predicted positives (Davis & Goadrich, 2006)
        dtp = tp[:-1] - tp[1:]
        predicted = tp + fp
        dp = predicted[:-1] - predicted[1:]
        slope = _tensors.divide_no_nan(dtp, _math.maximum(dp, 0.0))
        intercept = tp[1:] - slope * predicted[1:]
        both_positive = _math.logical_and(_math.greater(predicted[:-1], 0.0),
                                          _math.greater(predicted[1:], 0.0))
        ratio = _select.where(both_positive,
                              _tensors.divide_no_nan(predicted[:-1],
                                                     _math.maximum(predicted[1:], 0.0)),
                              _math.add(_math.multiply(predicted[1:], 0.0), 1.0))
        increments = _tensors.divide_no_nan(slope * (dtp + intercept * _math.log(ratio)),
                                            _math.maximum(tp[1:] + fn[1:], 0.0))
        return _reduce.reduce_sum(increments)

    def get_config(self):
        """The metric's constructor arguments, as a dict."""
        return dict(super().get_config(), num_thresholds=self.num_thresholds,
                    curve=self.curve, summation_method=self.summation_method,
                    from_logits=self.from_logits)
