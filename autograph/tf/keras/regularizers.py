"""`tf.keras.regularizers`: penalties on a layer's weights (or outputs) that training adds
to the loss.

    Dense(4, kernel_regularizer=tf.keras.regularizers.L2(0.01), bias_regularizer="l1")

A regularizer is called on a weight and returns a scalar: `L1(l1)` gives
`l1 * sum(|w|)`, `L2(l2)` gives `l2 * sum(w ** 2)` (no factor one half), `L1L2` both. The
names "l1" and "l2" mean `L1(0.01)` and `L2(0.01)`; "l1l2" means `L1L2()`, whose factors
default to 0, as in Keras 3 (which reads no "l1_l2" string; `l1_l2` is the class's alias).
"""

import inspect as _inspect
import math as _pymath
from typing import Any as _Any

from runtime.ops import math_ops as _math
from runtime.ops import reduction_ops as _reduce
from runtime.ops.common import convert_to_tensor as _convert_to_tensor


def _factor(value: _Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or \
            not _pymath.isfinite(value) or value < 0:
        raise ValueError("Invalid value for argument %s: expected a non-negative float. "
                         "Received: %s=%r" % (name, name, value))
    return float(value)


class Regularizer:
    """The base class: `regularizer(weight)` is the weight's penalty, a scalar."""

    def __call__(self, x: _Any) -> _Any:
        return 0.0

    def get_config(self) -> dict[str, _Any]:
        """The constructor arguments (a regularizer made by subclassing defines it)."""
        raise NotImplementedError("%s does not implement get_config()" % self)

    @classmethod
    def from_config(cls, config: dict[str, _Any]) -> "Regularizer":
        """The regularizer `get_config` described."""
        return cls(**config)


def _abs_sum(x: _Any) -> _Any:
    return _reduce.reduce_sum(_math.abs(x))


def _square_sum(x: _Any) -> _Any:
    return _reduce.reduce_sum(_math.square(x))


class L1(Regularizer):
    """`l1 * sum(|x|)`."""

    def __init__(self, l1: float = 0.01) -> None:
        self.l1 = _factor(0.01 if l1 is None else l1, "l1")

    def __call__(self, x: _Any) -> _Any:
        x = _convert_to_tensor(x)
        return _math.cast(self.l1, x.dtype) * _abs_sum(x)

    def get_config(self) -> dict[str, _Any]:
        """`{"l1": l1}`."""
        return {"l1": self.l1}


class L2(Regularizer):
    """`l2 * sum(x ** 2)`."""

    def __init__(self, l2: float = 0.01) -> None:
        self.l2 = _factor(0.01 if l2 is None else l2, "l2")

    def __call__(self, x: _Any) -> _Any:
        x = _convert_to_tensor(x)
        return _math.cast(self.l2, x.dtype) * _square_sum(x)

    def get_config(self) -> dict[str, _Any]:
        """`{"l2": l2}`."""
        return {"l2": self.l2}


class L1L2(Regularizer):
    """`l1 * sum(|x|) + l2 * sum(x ** 2)`; a factor of 0 leaves its term out."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        self.l1 = _factor(0.0 if l1 is None else l1, "l1")
        self.l2 = _factor(0.0 if l2 is None else l2, "l2")

    def __call__(self, x: _Any) -> _Any:
        x = _convert_to_tensor(x)
        penalty = _math.cast(0.0, x.dtype)
        if self.l1:
            penalty = penalty + _math.cast(self.l1, x.dtype) * _abs_sum(x)
        if self.l2:
            penalty = penalty + _math.cast(self.l2, x.dtype) * _square_sum(x)
        return penalty

    def get_config(self) -> dict[str, _Any]:
        """`{"l1": l1, "l2": l2}`."""
        return {"l1": self.l1, "l2": self.l2}


# Keras's lower-case names of the same classes
l1 = L1
l2 = L2
l1_l2 = L1L2

_BY_NAME: dict[str, type[Regularizer]] = {
    "L1": L1, "L2": L2, "L1L2": L1L2, "l1": L1, "l2": L2, "l1l2": L1L2}


def get(identifier: _Any) -> _Any:
    """The regularizer `identifier` names (`"l1"`, `"l2"`, `"l1l2"`), a class made with
    its defaults, or `identifier` itself when it is callable; None stays None."""
    if identifier is None:
        return None
    found = _BY_NAME.get(identifier) if isinstance(identifier, str) else identifier
    if _inspect.isclass(found) and issubclass(found, Regularizer):
        return found()
    if found is not None and callable(found) and not _inspect.isclass(found):
        return found
    raise ValueError("Could not interpret regularizer identifier: %r" % (identifier,))


__all__ = ["L1", "L1L2", "L2", "Regularizer", "get", "l1", "l1_l2", "l2"]
