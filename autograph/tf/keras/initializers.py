"""`tf.keras.initializers`: how a layer fills its weights when it builds them.

An initializer is called with a shape and a dtype and returns the initial value as a
numpy array, computed once, eagerly (so a layer that builds inside a Function makes its
variables from plain values). With `seed=` an integer the values are the same on every
run; without one they come from a generator that `tf.keras.utils.set_random_seed` seeds.
"""

import math as _pymath

import numpy as _np

_GLOBAL = {"rng": _np.random.default_rng()}


def _generator(seed):
    return _GLOBAL["rng"] if seed is None else _np.random.default_rng(seed)


def _set_seed(seed):
    """Seed the generator that unseeded initializers draw from."""
    _GLOBAL["rng"] = _np.random.default_rng(seed)


def _fans(shape):
    """Keras's fan-in and fan-out of a weight of `shape` (for a convolution kernel the
    receptive field multiplies both)."""
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(_np.prod(shape[:-2]))
    return shape[-2] * receptive, shape[-1] * receptive


def _truncated_normal(rng, shape, mean, stddev):
    # values beyond two standard deviations are drawn again
    values = rng.standard_normal(shape)
    outside = _np.abs(values) > 2.0
    while outside.any():
        values[outside] = rng.standard_normal(int(outside.sum()))
        outside = _np.abs(values) > 2.0
    return mean + stddev * values


class Initializer:
    """The base class of initializers: `initializer(shape, dtype)` returns the value."""

    def __call__(self, shape, dtype="float32"):
        raise NotImplementedError("%s must define __call__" % type(self).__name__)

    def get_config(self):
        """The initializer's constructor arguments, as a dict."""
        return {}


class Zeros(Initializer):
    """All zeros."""

    def __call__(self, shape, dtype="float32"):
        return _np.zeros(shape, dtype=_np.dtype(dtype))


class Ones(Initializer):
    """All ones."""

    def __call__(self, shape, dtype="float32"):
        return _np.ones(shape, dtype=_np.dtype(dtype))


class Constant(Initializer):
    """Every element `value`."""

    def __init__(self, value=0.0):
        self.value = value

    def __call__(self, shape, dtype="float32"):
        return _np.full(shape, self.value, dtype=_np.dtype(dtype))

    def get_config(self):
        """The initializer's constructor arguments, as a dict."""
        return {"value": self.value}


class RandomNormal(Initializer):
    """Draws from a normal distribution of `mean` and `stddev`."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype="float32"):
        rng = _generator(self.seed)
        return (self.mean + self.stddev * rng.standard_normal(shape)).astype(dtype)

    def get_config(self):
        """The initializer's constructor arguments, as a dict."""
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class TruncatedNormal(RandomNormal):
    """Draws from a normal distribution of `mean` and `stddev`, drawing again any value
    more than two standard deviations from the mean."""

    def __call__(self, shape, dtype="float32"):
        rng = _generator(self.seed)
        return _truncated_normal(rng, shape, self.mean, self.stddev).astype(dtype)


class RandomUniform(Initializer):
    """Draws uniformly from `[minval, maxval)`."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype="float32"):
        rng = _generator(self.seed)
        return rng.uniform(self.minval, self.maxval, shape).astype(dtype)

    def get_config(self):
        """The initializer's constructor arguments, as a dict."""
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


class VarianceScaling(Initializer):
    """Values of variance `scale / n`, where `n` is the fan-in, the fan-out or their
    average (`mode`), from a truncated normal, an untruncated normal or a uniform
    `distribution`."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError("Invalid `mode` argument: %r" % (mode,))
        if distribution not in ("truncated_normal", "untruncated_normal", "uniform"):
            raise ValueError("Invalid `distribution` argument: %r" % (distribution,))
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed

    def __call__(self, shape, dtype="float32"):
        fan_in, fan_out = _fans(list(shape))
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}
        variance = self.scale / max(1.0, n[self.mode])
        rng = _generator(self.seed)
        if self.distribution == "uniform":
            limit = _pymath.sqrt(3.0 * variance)
            values = rng.uniform(-limit, limit, shape)
        elif self.distribution == "untruncated_normal":
            values = _pymath.sqrt(variance) * rng.standard_normal(shape)
        else:
            # the stddev of a standard normal truncated at two stddevs
            stddev = _pymath.sqrt(variance) / 0.87962566103423978
            values = _truncated_normal(rng, shape, 0.0, stddev)
        return values.astype(dtype)

    def get_config(self):
        """The initializer's constructor arguments, as a dict (a named kind, such as
        GlorotUniform, takes only its seed)."""
        if type(self) is not VarianceScaling:
            return {"seed": self.seed}
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed}


class GlorotUniform(VarianceScaling):
    """Uniform in `[-limit, limit]`, `limit = sqrt(6 / (fan_in + fan_out))`."""

    def __init__(self, seed=None):
        super().__init__(1.0, "fan_avg", "uniform", seed)


class GlorotNormal(VarianceScaling):
    """Truncated normal of stddev `sqrt(2 / (fan_in + fan_out))`."""

    def __init__(self, seed=None):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed)


class HeNormal(VarianceScaling):
    """Truncated normal of stddev `sqrt(2 / fan_in)`."""

    def __init__(self, seed=None):
        super().__init__(2.0, "fan_in", "truncated_normal", seed)


class HeUniform(VarianceScaling):
    """Uniform in `[-limit, limit]`, `limit = sqrt(6 / fan_in)`."""

    def __init__(self, seed=None):
        super().__init__(2.0, "fan_in", "uniform", seed)


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times `gain`, from the QR decomposition of a normal
    draw (the last dimension is the columns; leading dimensions are flattened)."""

    def __init__(self, gain=1.0, seed=None):
        self.gain, self.seed = gain, seed

    def __call__(self, shape, dtype="float32"):
        if len(shape) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional. "
                             "Received: shape=%r of rank %d." % (tuple(shape), len(shape)))
        rows, cols = int(_np.prod(shape[:-1])), shape[-1]
        draw = _generator(self.seed).standard_normal((max(rows, cols), min(rows, cols)))
        q, r = _np.linalg.qr(draw)
        q = q * _np.sign(_np.diag(r))
        if rows < cols:
            q = q.T
        return (self.gain * q.reshape(shape)).astype(dtype)

    def get_config(self):
        """The initializer's constructor arguments, as a dict."""
        return {"gain": self.gain, "seed": self.seed}


_BY_NAME = {"zeros": Zeros, "ones": Ones, "constant": Constant, "random_normal": RandomNormal,
            "truncated_normal": TruncatedNormal, "random_uniform": RandomUniform,
            "uniform": RandomUniform, "normal": RandomNormal,
            "glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal,
            "he_normal": HeNormal, "he_uniform": HeUniform, "orthogonal": Orthogonal,
            "variance_scaling": VarianceScaling}


def get(identifier):
    """The initializer `identifier` names (`"glorot_uniform"`, `"zeros"`...), or
    `identifier` itself when it is an initializer or callable."""
    if isinstance(identifier, str):
        key = identifier if identifier in _BY_NAME else _snake(identifier)
        if key in _BY_NAME:
            return _BY_NAME[key]()
    elif isinstance(identifier, type) and issubclass(identifier, Initializer):
        return identifier()
    elif callable(identifier):
        return identifier
    raise ValueError("Could not interpret initializer identifier: %r" % (identifier,))


def _snake(name):
    out = []
    for i, ch in enumerate(name):
        if ch.isupper() and i:
            out.append("_")
        out.append(ch.lower())
    return "".join(out)
