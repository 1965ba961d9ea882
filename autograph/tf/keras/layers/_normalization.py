"""Keras's normalization layers: BatchNormalization and LayerNormalization."""

from autograph.tf.keras import _tensors
from autograph.tf.keras.layers._layer import Layer
from runtime.ops import math_ops as _math
from runtime.ops import nn_ops as _nn
from runtime.ops import reshape_ops as _reshape


def _axes(axis, rank):
    axes = [axis] if isinstance(axis, int) else list(axis)
    return sorted(a % rank for a in axes)


def _broadcast_shape(axes, rank, input_shape):
    return [int(input_shape[i]) if i in axes else 1 for i in range(rank)]


class BatchNormalization(Layer):
    """Normalizes each feature (along `axis`) by the batch's mean and variance in training,
    updating moving averages (`moving = moving * momentum + batch * (1 - momentum)`), and by
    those moving averages otherwise; then scales by `gamma` and shifts by `beta`."""

    supports_masking = True  # (a masked input is refused: see call)

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = beta_initializer
        self.gamma_initializer = gamma_initializer
        self.moving_mean_initializer = moving_mean_initializer
        self.moving_variance_initializer = moving_variance_initializer

    def build(self, input_shape):
        """Make `gamma`, `beta`, `moving_mean` and `moving_variance` for the features."""
        self._rank = input_shape.rank
        self._feature_axes = _axes(self.axis, self._rank)
        shape = tuple(int(input_shape[a]) for a in self._feature_axes)
        self.gamma = (self.add_weight(shape, self.gamma_initializer, name="gamma")
                      if self.scale else None)
        self.beta = (self.add_weight(shape, self.beta_initializer, name="beta")
                     if self.center else None)
        self.moving_mean = self.add_weight(shape, self.moving_mean_initializer,
                                           trainable=False, name="moving_mean")
        self.moving_variance = self.add_weight(shape, self.moving_variance_initializer,
                                               trainable=False, name="moving_variance")
        self._broadcast = _broadcast_shape(self._feature_axes, self._rank, input_shape)
        self.built = True

    def _shaped(self, weight):
        return _reshape.reshape(weight, self._broadcast)

    def call(self, inputs, training=False, mask=None):
        """The normalized inputs (batch statistics when `training`, moving ones
        otherwise)."""
        if mask is not None and training and self.trainable:
            raise NotImplementedError(
                "BatchNormalization of a masked input in training (Keras's moments over "
                "the unmasked steps) is not supported")
        inputs = _tensors.as_tensor(inputs, self.dtype)
        if training and self.trainable:
            reduce_axes = [i for i in range(self._rank) if i not in self._feature_axes]
            mean, variance = _nn.moments(inputs, reduce_axes)
            self.moving_mean.assign(self.moving_mean * self.momentum
                                    + mean * (1.0 - self.momentum))
            self.moving_variance.assign(self.moving_variance * self.momentum
                                        + variance * (1.0 - self.momentum))
        else:
            mean, variance = self.moving_mean.read_value(), self.moving_variance.read_value()
        outputs = (inputs - self._shaped(mean)) * _math.rsqrt(
            self._shaped(variance) + self.epsilon)
        if self.gamma is not None:
            outputs = outputs * self._shaped(self.gamma)
        if self.beta is not None:
            outputs = outputs + self._shaped(self.beta)
        return outputs


class LayerNormalization(Layer):
    """Normalizes each sample over `axis` (the last by default) by its own mean and
    variance, then scales by `gamma` and shifts by `beta`."""

    supports_masking = True

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = beta_initializer
        self.gamma_initializer = gamma_initializer

    def build(self, input_shape):
        """Make `gamma` and `beta` over the normalized axes."""
        self._rank = input_shape.rank
        self._norm_axes = _axes(self.axis, self._rank)
        shape = tuple(int(input_shape[a]) for a in self._norm_axes)
        self.gamma = (self.add_weight(shape, self.gamma_initializer, name="gamma")
                      if self.scale else None)
        self.beta = (self.add_weight(shape, self.beta_initializer, name="beta")
                     if self.center else None)
        self._broadcast = _broadcast_shape(self._norm_axes, self._rank, input_shape)
        self.built = True

    def call(self, inputs):
        """`(inputs - mean) / sqrt(variance + epsilon) * gamma + beta` per sample."""
        inputs = _tensors.as_tensor(inputs, self.dtype)
        mean, variance = _nn.moments(inputs, self._norm_axes, keepdims=True)
        outputs = (inputs - mean) * _math.rsqrt(variance + self.epsilon)
        if self.gamma is not None:
            outputs = outputs * _reshape.reshape(self.gamma, self._broadcast)
        if self.beta is not None:
            outputs = outputs + _reshape.reshape(self.beta, self._broadcast)
        return outputs
