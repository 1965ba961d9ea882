"""`tf.keras.optimizers.schedules`: learning rates that change with the optimizer's step.

A schedule is called with the optimizer's `iterations` (the number of updates applied so
far) and returns the learning rate of the next update, as a float32 tensor; it is built
from tensor ops, so it works eagerly and inside a Function alike.
"""

import math as _pymath

from runtime.ops import array_ops as _array
from runtime.ops import math_ops as _math
from runtime.ops import selection_ops as _select


def _step(step):
    return _math.cast(step, "float32")


class LearningRateSchedule:
    """The base class of learning rate schedules: subclasses define `__call__(step)` and
    `get_config()`."""

    def __call__(self, step):
        raise NotImplementedError("%s must define __call__(step)" % type(self).__name__)

    def get_config(self):
        """The schedule's constructor arguments, as a dict."""
        raise NotImplementedError("%s must define get_config()" % type(self).__name__)

    @classmethod
    def from_config(cls, config):
        """A schedule made from `get_config()`'s dict."""
        return cls(**config)


class ExponentialDecay(LearningRateSchedule):
    """`initial_learning_rate * decay_rate ** (step / decay_steps)`; with `staircase=True`
    the exponent is floored, so the rate drops every `decay_steps` steps."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="ExponentialDecay"):
        if decay_steps <= 0:
            raise ValueError("Argument `decay_steps` must be > 0. Received: decay_steps=%r"
                             % (decay_steps,))
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def __call__(self, step):
        exponent = _step(step) / float(self.decay_steps)
        if self.staircase:
            exponent = _math.floor(exponent)
        rate = _array.constant(float(self.decay_rate), dtype="float32")
        return float(self.initial_learning_rate) * _math.pow(rate, exponent)

    def get_config(self):
        """The schedule's constructor arguments, as a dict."""
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


class PiecewiseConstantDecay(LearningRateSchedule):
    """`values[0]` while `step <= boundaries[0]`, `values[1]` while
    `boundaries[0] < step <= boundaries[1]`, ..., and `values[-1]` after the last boundary."""

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        if len(boundaries) != len(values) - 1:
            raise ValueError(
                "The length of boundaries should be 1 less than the length of values. "
                "Received: boundaries=%r of length %d, and values=%r of length %d."
                % (boundaries, len(boundaries), values, len(values)))
        self.boundaries = list(boundaries)
        self.values = list(values)
        self.name = name

    def __call__(self, step):
        step = _step(step)
        rate = _array.constant(float(self.values[-1]), dtype="float32")
        # from the last boundary down, so that the lowest boundary the step is under wins
        for boundary, value in reversed(list(zip(self.boundaries, self.values))):
            rate = _select.where(_math.less_equal(step, float(boundary)),
                                 _array.constant(float(value), dtype="float32"), rate)
        return rate

    def get_config(self):
        """The schedule's constructor arguments, as a dict."""
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class CosineDecay(LearningRateSchedule):
    """A cosine decay from the learning rate to `alpha` times it over `decay_steps` steps,
    after an optional linear warmup of `warmup_steps` steps to `warmup_target`."""

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name="CosineDecay",
                 warmup_target=None, warmup_steps=0):
        if decay_steps <= 0:
            raise ValueError("Argument `decay_steps` must be > 0. Received: decay_steps=%r"
                             % (decay_steps,))
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_target = warmup_target
        self.warmup_steps = warmup_steps

    def _decayed(self, step, start_rate):
        step = _math.minimum(step, float(self.decay_steps))
        cosine = 0.5 * (1.0 + _math.cos(_pymath.pi * step / float(self.decay_steps)))
        return start_rate * ((1.0 - self.alpha) * cosine + self.alpha)

    def __call__(self, step):
        step = _step(step)
        initial = float(self.initial_learning_rate)
        if self.warmup_target is None:
            return self._decayed(step, _array.constant(initial, dtype="float32"))
        target = float(self.warmup_target)
        warmup = initial + (target - initial) * (step / float(max(self.warmup_steps, 1)))
        decayed = self._decayed(step - float(self.warmup_steps),
                                _array.constant(target, dtype="float32"))
        return _select.where(_math.less(step, float(self.warmup_steps)), warmup, decayed)

    def get_config(self):
        """The schedule's constructor arguments, as a dict."""
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
                "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}
