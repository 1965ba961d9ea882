"""`tf.keras.activations`: activation functions, and `get` to look one up by name."""

from runtime.ops import math_ops as _math
from runtime.ops import nn_ops as _nn


def linear(x):
    """The identity: `x` unchanged."""
    return x


def relu(x):
    """`max(x, 0)`."""
    return _math.relu(x)


def sigmoid(x):
    """`1 / (1 + exp(-x))`."""
    return _math.sigmoid(x)


def tanh(x):
    """The hyperbolic tangent."""
    return _math.tanh(x)


def softmax(x, axis=-1):
    """`exp(x) / sum(exp(x), axis)`."""
    return _nn.softmax(x, axis=axis)


def softplus(x):
    """`log(exp(x) + 1)`."""
    return _math.softplus(x)


def elu(x, alpha=1.0):
    """`x` where positive, `alpha * (exp(x) - 1)` elsewhere."""
    return _nn.elu(x) if alpha == 1.0 else _math.relu(x) - alpha * _math.relu(
        1.0 - _math.exp(_math.minimum(x, 0.0)))


def gelu(x, approximate=False):
    """The Gaussian error linear unit, `x * Phi(x)` (tanh-approximated on request)."""
    return _nn.gelu(x, approximate=approximate)


def silu(x):
    """`x * sigmoid(x)` (also called swish)."""
    return _nn.silu(x)


def leaky_relu(x, negative_slope=0.2):
    """`x` where positive, `negative_slope * x` elsewhere."""
    return _nn.leaky_relu(x, alpha=negative_slope)


swish = silu

_BY_NAME = {f.__name__: f for f in (linear, relu, sigmoid, tanh, softmax, softplus, elu,
                                    gelu, silu, leaky_relu)}
_BY_NAME["swish"] = silu


def get(identifier):
    """The activation function `identifier` names (`"relu"`...), or `identifier` itself
    when it is callable; `None` gives `linear`."""
    if identifier is None:
        return linear
    if callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier in _BY_NAME:
        return _BY_NAME[identifier]
    raise ValueError("Could not interpret activation function identifier: %r"
                     % (identifier,))
