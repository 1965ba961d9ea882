"""`Module`: a base class for objects that hold Variables (TensorFlow's `tf.Module`).

A Module finds its Variables by walking its attributes: Variables held directly, in lists,
tuples and dicts, or in sub-Modules, each listed once in the order first met.
"""

from __future__ import annotations

from typing import Any

from runtime.variables import Variable


class Module:
    """A plain base class for objects holding variables (TensorFlow's `tf.Module`)."""

    def __init__(self, name: str | None = None) -> None:
        self._module_name = name or type(self).__name__

    @property
    def name(self) -> str:
        """The module's name (its class name by default)."""
        return self._module_name

    @property
    def variables(self) -> tuple[Variable, ...]:
        """The Variables held in attributes (directly, in lists/tuples/dicts, or sub-modules)."""
        return _collect_variables(self, set(), trainable_only=False)

    @property
    def trainable_variables(self) -> tuple[Variable, ...]:
        """The trainable Variables held in attributes."""
        return _collect_variables(self, set(), trainable_only=True)


def _collect_variables(obj: Any, seen: set[int], trainable_only: bool) -> tuple[Variable, ...]:
    found: list[Variable] = []
    if id(obj) in seen:
        return ()
    seen.add(id(obj))
    values = obj.values() if isinstance(obj, dict) else obj if isinstance(
        obj, (list, tuple)) else vars(obj).values() if isinstance(obj, Module) else ()
    for value in values:
        if isinstance(value, Variable):
            if (not trainable_only or value.trainable) and id(value) not in seen:
                seen.add(id(value))
                found.append(value)
        elif isinstance(value, (Module, list, tuple, dict)):
            found.extend(_collect_variables(value, seen, trainable_only))
    return tuple(found)
