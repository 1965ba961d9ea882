"""Keras 3's variables: a weight is named for what it is, and its path names the objects
that made it, as Keras's name scopes give it:

    dense = tf.keras.layers.Dense(2)
    dense(x)
    dense.kernel.name     # 'kernel'
    dense.kernel.path     # 'dense/kernel'
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4)])
    model.weights[0].path  # 'sequential/dense_1/kernel': built inside the model's scope

A layer opens its scope around its build, its call and `add_weight` (under the path where
it first opened it); a metric or an optimizer opens its own around each variable it
makes. The variables stay the runtime's Variables (trained, checkpointed and traced like
any other; made inside a distribution strategy's scope they are the strategy's), with
Keras's `name`, `path` and printed form added.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import numpy as np

from runtime import context as _context
from runtime.variables import Variable


class _ScopeStack(threading.local):
    """The scopes open in this thread: (the object that opened it, its full path)."""

    def __init__(self) -> None:
        self.entries: list[tuple[Any, str]] = []


_SCOPES = _ScopeStack()


def _join(parent: str, name: str) -> str:
    return "%s/%s" % (parent, name) if parent else name


def current_path() -> str:
    """The path of the innermost open scope ('' outside every scope)."""
    entries = _SCOPES.entries
    return entries[-1][1] if entries else ""


@contextlib.contextmanager
def name_scope(owner: Any, name: str, parent: str | None = None) -> Iterator[None]:
    """Open `owner`'s scope `name` under `parent` (by default the current path); a scope
    `owner` already has open innermost is not opened twice (Keras's deduplication)."""
    entries = _SCOPES.entries
    if entries and entries[-1][0] is owner and entries[-1][1].rsplit("/", 1)[-1] == name:
        yield
        return
    base = current_path() if parent is None else parent
    entries.append((owner, _join(base, name)))
    try:
        yield
    finally:
        entries.pop()


class KerasVariable:
    """What a Keras variable adds to the runtime's Variable: its short `name`, its
    `path`, and Keras's printed form (`<Variable path=dense/bias, shape=(2,),
    dtype=float32, value=[0. 0.]>`)."""

    _keras_name: str
    _keras_path: str

    @property
    def name(self) -> str:
        """The name the variable was given ('kernel')."""
        return self._keras_name

    @property
    def path(self) -> str:
        """The name under the scopes it was made in ('sequential/dense/kernel')."""
        return self._keras_path

    def __repr__(self) -> str:
        variable: Any = self
        value = ""
        if _context.executing_eagerly() and variable._value is not None:
            value = ", value=%s" % (np.asarray(variable.numpy()),)
        return "<Variable path=%s, shape=%s, dtype=%s%s>" % (
            self._keras_path, tuple(variable.shape.as_list()), variable.dtype.name, value)


_CLASSES: dict[type, type] = {}


def _keras_class(base: type) -> type:
    """`base` (the class the runtime made the variable as) with Keras's additions."""
    cls = _CLASSES.get(base)
    if cls is None:
        cls = _CLASSES[base] = type("KerasVariable", (KerasVariable, base),
                                    {"__module__": __name__, "__doc__": KerasVariable.__doc__})
    return cls


def make_variable(initial_value: Any, name: str, trainable: bool = True,
                  dtype: Any = None) -> Variable:
    """A Variable named `name` at the current path (open the owner's `name_scope`
    first)."""
    path = _join(current_path(), name)
    variable = Variable(initial_value, trainable=trainable, dtype=dtype, name=path)
    variable.__class__ = _keras_class(type(variable))
    variable._keras_name = name  # type: ignore[attr-defined]
    variable._keras_path = path  # type: ignore[attr-defined]
    return variable
