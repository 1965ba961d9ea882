"""Keras's core layers: Dense, Activation, Flatten, Reshape, Dropout, Embedding, and the
merging layers Concatenate and Add."""

import inspect

import numpy as np

from autograph.tf.keras import _tensors
from autograph.tf.keras import activations as _activations
from autograph.tf.keras import regularizers as _regularizers
from autograph.tf.keras._symbolic import set_operator_layer
from autograph.tf.keras.layers._layer import Layer, _unique_name
from runtime import nest
from runtime.composite import sparse as _sparse
from runtime.ops import array_ops as _array
from runtime.ops import concat_split_ops as _concat_split
from runtime.ops import linalg_ops as _linalg
from runtime.ops import math_ops as _math
from runtime.ops import nn_ops as _nn
from runtime.ops import reshape_ops as _reshape
from runtime.ops import selection_ops as _select


def _last_dim(input_shape, layer):
    dim = input_shape[-1] if input_shape.rank else None
    if dim is None:
        raise ValueError("The last dimension of the inputs to %s should be defined. Found "
                         "None. Full input shape received: %s" % (layer, input_shape))
    return int(dim)


class Dense(Layer):
    """`activation(inputs @ kernel + bias)`, the kernel of shape `(input_dim, units)`
    applied along the last axis of inputs of any rank."""

    supports_masking = True

    def __init__(self, units, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if not isinstance(units, int) or units <= 0:
            raise ValueError("Received an invalid value for `units`, expected a positive "
                             "integer. Received: units=%r" % (units,))
        self.units = units
        self.activation = _activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer
        self.kernel_regularizer = _regularizers.get(kernel_regularizer)
        self.bias_regularizer = _regularizers.get(bias_regularizer)

    def build(self, input_shape):
        """Make `kernel` (and `bias`) for the inputs' last dimension."""
        self.kernel = self.add_weight((_last_dim(input_shape, self.name), self.units),
                                      self.kernel_initializer, name="kernel",
                                      regularizer=self.kernel_regularizer)
        self.bias = (self.add_weight((self.units,), self.bias_initializer, name="bias",
                                     regularizer=self.bias_regularizer)
                     if self.use_bias else None)
        self.built = True

    def call(self, inputs):
        """`activation(inputs @ kernel + bias)` (a SparseTensor input is multiplied as
        sparse; the output is dense)."""
        if isinstance(inputs, _sparse.SparseTensor):
            outputs = _sparse.sparse_dense_matmul(_tensors.as_sparse(inputs, self.dtype),
                                                  self.kernel)
        else:
            outputs = _linalg.matmul(_tensors.as_tensor(inputs, self.dtype), self.kernel)
        if self.bias is not None:
            outputs = outputs + self.bias
        return self.activation(outputs)

    def compute_output_shape(self, input_shape):
        """The input shape with the last dimension replaced by `units`."""
        return tuple(input_shape)[:-1] + (self.units,)


class Activation(Layer):
    """Applies an activation function (by name or callable) to its input."""

    supports_masking = True

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = _activations.get(activation)

    def call(self, inputs):
        """`activation(inputs)`."""
        return self.activation(_tensors.as_tensor(inputs, self.dtype))


class Lambda(Layer):
    """Wraps a function of the inputs as a layer: `Lambda(lambda x: x ** 2)`. It holds no
    weights; `arguments` are passed to the function by keyword."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        if not callable(function):
            raise ValueError("Argument `function` of Lambda must be callable. Received: "
                             "function=%r" % (function,))
        if mask is not None:
            raise NotImplementedError("Lambda(mask=...) is not supported: this Keras "
                                      "propagates no masks")
        self.function = function
        self.output_shape = output_shape
        self.arguments = dict(arguments or {})

    def call(self, inputs, training=None):
        """`function(inputs, **arguments)` (and `training=` when it takes it)."""
        arguments = dict(self.arguments)
        if _accepts_argument(self.function, "training"):
            arguments["training"] = training
        # Keras gives the function tensors, never the numpy arrays it was called on
        inputs = nest.map_structure(
            lambda x: _tensors.as_tensor(x, None) if isinstance(x, np.ndarray) else x, inputs)
        return self.function(inputs, **arguments)


def _accepts_argument(function, name):
    try:
        return name in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


class Flatten(Layer):
    """Flattens every dimension but the batch one: `(batch, ...)` -> `(batch, -1)`."""

    def call(self, inputs):
        """`inputs` reshaped to `(batch, product of the other dimensions)`."""
        inputs = _tensors.as_tensor(inputs, None)
        rest = inputs.shape[1:]
        if None not in rest:
            return _reshape.reshape(inputs, [-1, int(np.prod(rest, dtype=np.int64))])
        batch = _array.shape(inputs)[:1]
        return _reshape.reshape(inputs, _concat_split.concat([batch, [-1]], 0))

    def compute_output_shape(self, input_shape):
        """`(batch, product of the other dimensions)`."""
        rest = tuple(input_shape)[1:]
        return (input_shape[0], None if None in rest else int(np.prod(rest)))


class Reshape(Layer):
    """Reshapes each sample to `target_shape` (the batch dimension is kept; one entry may
    be -1)."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)

    def call(self, inputs):
        """`inputs` reshaped to `(batch,) + target_shape`."""
        inputs = _tensors.as_tensor(inputs, None)
        target = self.compute_output_shape(inputs.shape)[1:]
        batch = inputs.shape[0]
        if batch is not None:
            return _reshape.reshape(inputs, [batch] + list(target))
        return _reshape.reshape(inputs, [-1] + list(target))

    def compute_output_shape(self, input_shape):
        """`(batch,) + target_shape`, its -1 resolved from the input's size."""
        target = list(self.target_shape)
        rest = tuple(input_shape)[1:]
        if -1 in target and None not in rest:
            known = int(np.prod([d for d in target if d != -1]))
            size = int(np.prod(rest))
            if known == 0 or size % known:
                raise ValueError("total size of new array must be unchanged, "
                                 "input_shape = %s, output_shape = %s"
                                 % (list(rest), target))
            target[target.index(-1)] = size // known
        elif None not in rest and int(np.prod(rest)) != int(np.prod(target)):
            raise ValueError("total size of new array must be unchanged, input_shape = %s, "
                             "output_shape = %s" % (list(rest), target))
        return (input_shape[0],) + tuple(target)


class Dropout(Layer):
    """In training, zeroes each input element with probability `rate` and scales the
    others by `1 / (1 - rate)`; otherwise passes inputs through."""

    supports_masking = True

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= rate <= 1:
            raise ValueError("Invalid value received for argument `rate`. Expected a float "
                             "value between 0 and 1. Received: rate=%r" % (rate,))
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed

    def call(self, inputs, training=False):
        """Dropout when `training`, the identity otherwise."""
        inputs = _tensors.as_tensor(inputs, None)
        if not training or self.rate == 0:
            return inputs
        if self.rate == 1:
            return _array.zeros_like(inputs)
        return _nn.dropout(inputs, self.rate, noise_shape=self.noise_shape, seed=self.seed)


class Embedding(Layer):
    """Looks up rows of an `(input_dim, output_dim)` table: integer indices in, vectors
    out; with `mask_zero=True` index 0 is padding, masked for the layers that follow in a
    model (see `Layer.compute_mask`)."""

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 mask_zero=False, **kwargs):
        super().__init__(**kwargs)
        self.input_dim = input_dim
        self.output_dim = output_dim
        self.embeddings_initializer = embeddings_initializer
        self.mask_zero = mask_zero

    def build(self, input_shape=None):
        """Make the `embeddings` table."""
        self.embeddings = self.add_weight((self.input_dim, self.output_dim),
                                          self.embeddings_initializer, name="embeddings")
        self.built = True

    def call(self, inputs):
        """The table's rows at `inputs`."""
        indices = _tensors.as_tensor(inputs, None)
        if indices.dtype.is_floating:
            indices = _math.cast(indices, "int32")
        return _select.gather(self.embeddings, indices)

    def compute_mask(self, inputs, previous_mask=None):
        """With `mask_zero`, `inputs != 0`: index 0 is padding, which the masking layers
        after this one (recurrent layers, GlobalAveragePooling1D) skip."""
        if not self.mask_zero:
            return None
        return _math.not_equal(_tensors.as_tensor(inputs, None), 0)

    def compute_output_shape(self, input_shape):
        """The input shape with `output_dim` appended."""
        return tuple(input_shape) + (self.output_dim,)


class Concatenate(Layer):
    """Joins a list of inputs along `axis`."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        """The inputs concatenated along `axis`."""
        _check_several(inputs, self)
        return _concat_split.concat([_tensors.as_tensor(x, None) for x in inputs], self.axis)


class Add(Layer):
    """The elementwise sum of a list of inputs."""

    def call(self, inputs):
        """`inputs[0] + inputs[1] + ...`."""
        _check_several(inputs, self)
        total = _tensors.as_tensor(inputs[0], None)
        for x in inputs[1:]:
            total = total + x
        return total


class TensorOperator(Layer):
    """Applies one tensor operator (`+`, `*`, ...) to its operands: what `x * 2.0` on a
    Keras tensor records in a functional model."""

    _allow_non_tensor_positional_args = True  # `x * 2.0`: the operand may be a number

    def __init__(self, operator_name, compute, **kwargs):
        super().__init__(name=kwargs.pop("name", None) or _unique_name(operator_name),
                         **kwargs)
        self._compute = compute

    def call(self, inputs, other=None):
        """The operator applied to the operands."""
        return self._compute(inputs, other)


set_operator_layer(TensorOperator)


def _check_several(inputs, layer):
    if not isinstance(inputs, (list, tuple)) or len(inputs) < 1:
        raise ValueError("A merge layer (%s) should be called on a list of inputs. "
                         "Received: inputs=%r" % (layer.name, inputs))
