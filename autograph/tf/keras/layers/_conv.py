"""Keras's convolution and pooling layers (channels_last): Conv1D, Conv2D, MaxPooling2D,
AveragePooling2D, GlobalAveragePooling2D; they call tf.nn's conv and pool ops."""

from autograph.tf.keras import _tensors
from autograph.tf.keras import activations as _activations
from autograph.tf.keras import regularizers as _regularizers
from autograph.tf.keras.layers._layer import Layer
from runtime.ops import conv_ops as _conv
from runtime.ops import layout_ops as _layout
from runtime.ops import math_ops as _math
from runtime.ops import reduction_ops as _reduce
from runtime.ops import reshape_ops as _reshape


def _tuple(value, n, what):
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) != n or not all(isinstance(v, int) and v > 0 for v in value):
        raise ValueError("The `%s` argument must be a tuple of %d positive integers. "
                         "Received: %s=%r" % (what, n, what, value))
    return value


def _padding(padding, allowed):
    padding = padding.lower() if isinstance(padding, str) else padding
    if padding not in allowed:
        raise ValueError("The `padding` argument must be one of %s. Received: padding=%r"
                         % (list(allowed), padding))
    return padding


def _channels_last(data_format):
    if data_format not in (None, "channels_last"):
        raise ValueError("Only data_format='channels_last' is supported. Received: "
                         "data_format=%r" % (data_format,))


class _Conv(Layer):
    rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        _channels_last(data_format)
        if groups != 1:
            raise ValueError("Only groups=1 is supported. Received: groups=%r" % (groups,))
        self.filters = filters
        self.kernel_size = _tuple(kernel_size, self.rank, "kernel_size")
        self.strides = _tuple(strides, self.rank, "strides")
        allowed = ("valid", "same", "causal") if self.rank == 1 else ("valid", "same")
        self.padding = _padding(padding, allowed)
        self.dilation_rate = _tuple(dilation_rate, self.rank, "dilation_rate")
        self.activation = _activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)

    def build(self, input_shape):
        """Make `kernel` (`kernel_size + (in_channels, filters)`) and `bias`."""
        channels = input_shape[-1]
        if input_shape.rank != self.rank + 2 or channels is None:
            raise ValueError("Input 0 of layer %s is incompatible with the layer: expected "
                             "ndim=%d with a known channel dimension, found shape %s"
                             % (self.name, self.rank + 2, input_shape))
        self.kernel = self.add_weight(self.kernel_size + (int(channels), self.filters),
                                      self.kernel_initializer, name="kernel",
                                      regularizer=self.kernel_regularizer)
        self.bias = (self.add_weight((self.filters,), self.bias_initializer, name="bias",
                                     regularizer=self.bias_regularizer)
                     if self.use_bias else None)
        self.built = True

    def call(self, inputs):
        """`activation(conv(inputs, kernel) + bias)`."""
        outputs = self._convolve(_tensors.as_tensor(inputs, self.dtype))
        if self.bias is not None:
            outputs = outputs + self.bias
        return self.activation(outputs)

    def _convolve(self, inputs):
        """`conv(inputs, kernel)`, in each rank's subclass."""
        raise NotImplementedError


class Conv1D(_Conv):
    """1-D convolution over `(batch, steps, channels)` inputs; `padding` "valid", "same"
    or "causal" (left padding, so an output never sees later steps)."""

    rank = 1

    def _convolve(self, inputs):
        padding = self.padding
        if padding == "causal":
            left = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            inputs = _layout.pad(inputs, [[0, 0], [left, 0], [0, 0]])
            padding = "valid"
        return _conv.conv1d(inputs, self.kernel, self.strides[0], padding.upper(),
                            dilations=self.dilation_rate[0])


class Conv2D(_Conv):
    """2-D convolution over `(batch, height, width, channels)` inputs; `padding` "valid"
    or "same"."""

    rank = 2

    def _convolve(self, inputs):
        return _conv.conv2d(inputs, self.kernel, self.strides, self.padding.upper(),
                            dilations=self.dilation_rate)


class _Pooling2D(Layer):
    _op = staticmethod(_conv.max_pool2d)

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(**kwargs)
        _channels_last(data_format)
        self.pool_size = _tuple(pool_size, 2, "pool_size")
        self.strides = self.pool_size if strides is None else _tuple(strides, 2, "strides")
        self.padding = _padding(padding, ("valid", "same"))

    def call(self, inputs):
        """The pooled windows of `inputs`."""
        return type(self)._op(_tensors.as_tensor(inputs, self.dtype), self.pool_size,
                              self.strides, self.padding.upper())


class MaxPooling2D(_Pooling2D):
    """The maximum of each `pool_size` window, moved by `strides` (default: the pool
    size)."""

    _op = staticmethod(_conv.max_pool2d)


class AveragePooling2D(_Pooling2D):
    """The mean of each `pool_size` window, moved by `strides` (default: the pool size);
    with "same" padding the padded positions are not counted."""

    _op = staticmethod(_conv.avg_pool2d)


class GlobalAveragePooling1D(Layer):
    """The mean over steps: `(batch, steps, features)` -> `(batch, features)` (or
    `(batch, 1, features)` with `keepdims=True`); given a mask, over the unmasked steps."""

    supports_masking = True

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        _channels_last(data_format)
        self.keepdims = keepdims

    def call(self, inputs, mask=None):
        """The mean of `inputs` over axis 1 (over the unmasked steps only, given a
        `(batch, steps)` mask)."""
        inputs = _tensors.as_tensor(inputs, self.dtype)
        if mask is None:
            return _reduce.reduce_mean(inputs, axis=1, keepdims=self.keepdims)
        weights = _reshape.expand_dims(_math.cast(mask, inputs.dtype), 2)
        return (_reduce.reduce_sum(inputs * weights, axis=1, keepdims=self.keepdims) /
                _reduce.reduce_sum(weights, axis=1, keepdims=self.keepdims))

    def compute_mask(self, inputs, previous_mask=None):
        """None: the steps are pooled away."""
        return None


class GlobalAveragePooling2D(Layer):
    """The mean over height and width: `(batch, h, w, c)` -> `(batch, c)` (or
    `(batch, 1, 1, c)` with `keepdims=True`)."""

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        _channels_last(data_format)
        self.keepdims = keepdims

    def call(self, inputs):
        """The mean of `inputs` over axes 1 and 2."""
        return _reduce.reduce_mean(_tensors.as_tensor(inputs, self.dtype), axis=[1, 2],
                                   keepdims=self.keepdims)
