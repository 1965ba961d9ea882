"""`FunctionOptions`: what a `Function` knows before it is first called, checked once.

Every option of `runtime.function.Function` (and of `autograph.function`, which builds the
record after mapping TensorFlow's older option names onto it) lives in one frozen record,
made and validated here, as JAX keeps a `jit` instance's options in one `PjitInfo`. A bad
value raises at the decorator, naming the option:

    FunctionOptions(reduce_retracing="yes")
    TypeError: function option reduce_retracing must be True or False, got 'yes' (str)

A method's per-instance Functions share their class's record (see Function.__get__).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

from runtime import backends
from runtime.tracing import checked_input_signature

Converter = Callable[[Callable[..., Any]], Callable[..., Any]]


def _flag(option: str, value: Any, none_allowed: bool = False) -> bool | None:
    """`value` of flag `option` as a bool (or None where allowed); TypeError otherwise."""
    if value is None and none_allowed:
        return None
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError("function option %s must be True or False%s, got %r (%s)"
                        % (option, " or None" if none_allowed else "", value,
                           type(value).__name__))
    return bool(value)


_FLAGS = (("autograph", False), ("reduce_retracing", False), ("jit_compile", True),
          ("strict", False))  # (option, whether None is allowed)


@dataclasses.dataclass(frozen=True)
class FunctionOptions:
    """The options of a Function, validated when made (TypeError or ValueError naming the
    option for a bad value).

    `input_signature`: None, or a list or tuple of TensorSpecs, one per argument (kept as
    a tuple): one trace for every call. `autograph`: convert the Python function with
    `converter` before tracing (the runtime alone has none: the function is traced as
    written). `reduce_retracing`: relax differing shapes to None dimensions instead of
    tracing per shape. `name`: the graphs' name (None: the function's `__name__`).
    `jit_compile`: True compiles each trace at once with the best compiled backend here.
    `backend`: "numpy", "numba", "jax", "auto" or None (the process default). `strict`:
    a graph its backend cannot run raises instead of falling back to the executor.
    `device`, `shardings`: where a JAX computation runs (backend="jax" only)."""

    input_signature: tuple[Any, ...] | None = None
    autograph: bool = True
    reduce_retracing: bool = False
    converter: Converter | None = None
    name: str | None = None
    jit_compile: bool | None = None
    backend: str | None = None
    strict: bool = False
    device: Any = None
    shardings: Any = None

    def __post_init__(self) -> None:
        if self.input_signature is not None:
            object.__setattr__(self, "input_signature",
                               checked_input_signature(self.input_signature))
        for option, none_allowed in _FLAGS:
            object.__setattr__(self, option, _flag(option, getattr(self, option), none_allowed))
        if self.converter is not None and not callable(self.converter):
            raise TypeError("function option converter must be callable or None, got %r"
                            % (self.converter,))
        if self.name is not None and not isinstance(self.name, str):
            raise TypeError("function option name must be a str or None, got %r (%s)"
                            % (self.name, type(self.name).__name__))
        backends.placement_options(self.backend, self.device, self.shardings)

    @property
    def placement(self) -> dict[str, Any]:
        """The compiled backend's placement options, {"device", "shardings"}."""
        return {"device": self.device, "shardings": self.shardings}

    @property
    def active_converter(self) -> Converter | None:
        """The converter a trace applies: `converter` when `autograph` is on, else None."""
        return self.converter if self.autograph else None
