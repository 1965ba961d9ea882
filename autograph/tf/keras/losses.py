"""`tf.keras.losses`: loss classes and their function forms, as Keras 3 computes them.

A function form (`mse(y_true, y_pred)`) returns one loss per sample (it reduces the
last axis); a class (`MeanSquaredError()`) calls it, weighs the values by
`sample_weight`, and reduces them: `"sum_over_batch_size"` (the default: the sum divided
by the number of values), `"sum"`, or `"none"`/`None` (no reduction).
"""

from autograph.tf.keras import _tensors
from runtime.ops import array_ops as _array
from runtime.ops import math_ops as _math
from runtime.ops import nn_ops as _nn
from runtime.ops import reduction_ops as _reduce
from runtime.ops import reshape_ops as _reshape
from runtime.ops import selection_ops as _select

_EPSILON = 1e-7  # Keras's backend.epsilon(): probabilities are clipped to [eps, 1 - eps]
_REDUCTIONS = ("sum_over_batch_size", "sum", "mean", "none", None)


# -- the function forms ---------------------------------------------------------------------

def _pair(y_true, y_pred):
    y_pred = _tensors.as_tensor(y_pred, None)
    if not y_pred.dtype.is_floating:
        y_pred = _math.cast(y_pred, "float32")
    return _tensors.as_tensor(y_true, y_pred.dtype), y_pred


def mse(y_true, y_pred):
    """The mean over the last axis of `(y_true - y_pred) ** 2` (also `MSE`; as in
    TensorFlow's `tf.keras.losses`, there is no `mean_squared_error` name here)."""
    y_true, y_pred = _pair(y_true, y_pred)
    return _reduce.reduce_mean(_math.square(y_pred - y_true), axis=-1)


def mae(y_true, y_pred):
    """The mean over the last axis of `|y_true - y_pred|` (also `MAE`)."""
    y_true, y_pred = _pair(y_true, y_pred)
    return _reduce.reduce_mean(_math.abs(y_pred - y_true), axis=-1)


# Keras's own names of the two functions (what their configs and metrics are named)
mse.__name__ = mse.__qualname__ = "mean_squared_error"
mae.__name__ = mae.__qualname__ = "mean_absolute_error"
MSE = mse
MAE = mae


def huber(y_true, y_pred, delta=1.0):
    """The mean over the last axis of `0.5 * e ** 2` where `|e| <= delta`, and
    `delta * |e| - 0.5 * delta ** 2` elsewhere (`e = y_pred - y_true`)."""
    y_true, y_pred = _pair(y_true, y_pred)
    error = y_pred - y_true
    magnitude = _math.abs(error)
    quadratic = 0.5 * _math.square(error)
    linear = delta * magnitude - 0.5 * delta * delta
    return _reduce.reduce_mean(_select.where(_math.less_equal(magnitude, delta),
                                             quadratic, linear), axis=-1)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    """The mean over `axis` of `-(y log p + (1 - y) log(1 - p))`, where `p` is `y_pred`
    clipped to `[1e-7, 1 - 1e-7]`, or `sigmoid(y_pred)` computed stably with
    `from_logits=True`; labels smoothed towards 0.5 by `label_smoothing`."""
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        values = _nn.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    else:
        p = _math.clip_by_value(y_pred, _EPSILON, 1.0 - _EPSILON)
        values = -(y_true * _math.log(p) + (1.0 - y_true) * _math.log(1.0 - p))
    return _reduce.reduce_mean(values, axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0,
                             axis=-1):
    """`-sum(y_true * log(p), axis)` for one-hot (or soft) labels, where `p` is `y_pred`
    rescaled to sum to 1 and clipped to `[1e-7, 1 - 1e-7]`, or `softmax(y_pred)` with
    `from_logits=True`; labels smoothed by `label_smoothing / num_classes`."""
    y_true, y_pred = _pair(y_true, y_pred)
    if y_true.shape != y_pred.shape:
        raise ValueError("Arguments `target` and `output` must have the same shape. "
                         "Received: target.shape=%s, output.shape=%s"
                         % (y_true.shape, y_pred.shape))
    if label_smoothing:
        classes = y_pred.shape[axis]
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / classes
    if from_logits:
        log_p = _nn.log_softmax(y_pred, axis=axis)
    else:
        p = y_pred / _reduce.reduce_sum(y_pred, axis=axis, keepdims=True)
        log_p = _math.log(_math.clip_by_value(p, _EPSILON, 1.0 - _EPSILON))
    return -_reduce.reduce_sum(y_true * log_p, axis=axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None,
                                    axis=-1):
    """`-log p[label]` for integer labels (shape `(n,)` or `(n, 1)`), with `p` as in
    `categorical_crossentropy`; labels equal to `ignore_class` give a loss of 0."""
    if axis != -1:
        raise ValueError("Only axis=-1 is supported. Received: axis=%r" % (axis,))
    y_pred = _tensors.as_tensor(y_pred, None)
    if not y_pred.dtype.is_floating:
        y_pred = _math.cast(y_pred, "float32")
    labels = _tensors.as_tensor(y_true, None)
    if _tensors.rank(labels) == _tensors.rank(y_pred) and labels.shape[-1] == 1:
        labels = _reshape.squeeze(labels, [-1])
    if labels.shape != y_pred.shape[:-1]:
        raise ValueError("Arguments `target` and `output` must have the same shape up until "
                         "the last dimension: target.shape=%s, output.shape=%s"
                         % (labels.shape, y_pred.shape))
    labels = _math.cast(labels, "int64")
    keep = None
    if ignore_class is not None:
        keep = _math.not_equal(labels, ignore_class)
        labels = _select.where(keep, labels, _math.multiply(labels, 0))
    if from_logits:
        logits = y_pred
    else:
        p = y_pred / _reduce.reduce_sum(y_pred, axis=-1, keepdims=True)
        logits = _math.log(_math.clip_by_value(p, _EPSILON, 1.0 - _EPSILON))
    values = _nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    if keep is not None:
        values = values * _math.cast(keep, values.dtype)
    return values


# -- the classes ----------------------------------------------------------------------------

class Loss:
    """The base class of Keras losses: `loss(y_true, y_pred, sample_weight=None)` calls
    `call(y_true, y_pred)` (one value per sample), weighs and reduces the values."""

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        if reduction not in _REDUCTIONS:
            raise ValueError("Invalid value for argument `reduction`. Expected one of %s. "
                             "Received: reduction=%r" % (list(_REDUCTIONS), reduction))
        self.name = name or type(self).__name__
        self.reduction = reduction
        self.dtype = dtype or "float32"

    def __call__(self, y_true, y_pred, sample_weight=None):
        y_pred = _tensors.as_tensor(y_pred, self.dtype)
        y_true = _tensors.as_tensor(y_true, self.dtype)
        values = self.call(y_true, y_pred)
        if sample_weight is not None:
            weights = _tensors.as_tensor(sample_weight, values.dtype)
            values, weights = _tensors.squeeze_or_expand_to_same_rank(values, weights)
            values = values * weights
        if self.reduction in ("none", None) or _tensors.rank(values) == 0:
            return values
        total = _reduce.reduce_sum(values)
        if self.reduction == "sum":
            return total
        count = _math.cast(_reduce.reduce_prod(_array.shape(values)), total.dtype)
        return _tensors.divide_no_nan(total, count)

    def call(self, y_true, y_pred):
        """The loss of each sample (each subclass defines it)."""
        raise NotImplementedError("%s must define call(y_true, y_pred)" % type(self).__name__)

    def get_config(self):
        """The loss's constructor arguments, as a dict."""
        return {"name": self.name, "reduction": self.reduction}


class _FunctionLoss(Loss):
    """A loss class that calls a function form with fixed keyword arguments."""

    _function = staticmethod(mse)

    def __init__(self, name, reduction, dtype=None, **options):
        super().__init__(name=name, reduction=reduction, dtype=dtype)
        self._options = options

    def call(self, y_true, y_pred):
        """The function form's per-sample losses."""
        if type(self)._function is not sparse_categorical_crossentropy:
            y_true, y_pred = _tensors.squeeze_or_expand_to_same_rank(y_true, y_pred)
        return type(self)._function(y_true, y_pred, **self._options)

    def get_config(self):
        """The loss's constructor arguments, as a dict."""
        return dict(super().get_config(), **self._options)


class MeanSquaredError(_FunctionLoss):
    """The mean of the squares of the errors (`mse`)."""

    _function = staticmethod(mse)

    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error",
                 dtype=None):
        super().__init__(name, reduction, dtype)


class MeanAbsoluteError(_FunctionLoss):
    """The mean of the absolute values of the errors (`mae`)."""

    _function = staticmethod(mae)

    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_error",
                 dtype=None):
        super().__init__(name, reduction, dtype)


class Huber(_FunctionLoss):
    """The Huber loss: quadratic for errors up to `delta`, linear beyond (`huber`)."""

    _function = staticmethod(huber)

    def __init__(self, delta=1.0, reduction="sum_over_batch_size", name="huber_loss",
                 dtype=None):
        super().__init__(name, reduction, dtype, delta=delta)


class BinaryCrossentropy(_FunctionLoss):
    """The cross-entropy of 0/1 labels against probabilities, or logits with
    `from_logits=True` (`binary_crossentropy`)."""

    _function = staticmethod(binary_crossentropy)

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="binary_crossentropy", dtype=None):
        super().__init__(name, reduction, dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)


class CategoricalCrossentropy(_FunctionLoss):
    """The cross-entropy of one-hot labels against class probabilities, or logits with
    `from_logits=True` (`categorical_crossentropy`)."""

    _function = staticmethod(categorical_crossentropy)

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="categorical_crossentropy",
                 dtype=None):
        super().__init__(name, reduction, dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)


class SparseCategoricalCrossentropy(_FunctionLoss):
    """The cross-entropy of integer labels against class probabilities, or logits with
    `from_logits=True` (`sparse_categorical_crossentropy`)."""

    _function = staticmethod(sparse_categorical_crossentropy)

    def __init__(self, from_logits=False, ignore_class=None,
                 reduction="sum_over_batch_size", name="sparse_categorical_crossentropy",
                 dtype=None):
        super().__init__(name, reduction, dtype, from_logits=from_logits,
                         ignore_class=ignore_class)

