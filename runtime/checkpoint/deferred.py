"""Deferred restoration: values a restore found in a checkpoint for attributes that did not
exist yet, waiting on their owner until the attribute is set (TensorFlow's semantics: a
restore before the variables exist assigns them when they are created).

    status = Checkpoint(model=model).restore(path)   # model.dense not built yet
    model.dense = Dense()                              # its variables take the saved values

An owner (a Module or a Checkpoint) calls `attribute_set(self, name, value)` whenever an
attribute is set; a restore calls `wait_for(owner, name, callback)`. This module imports
nothing of the runtime, so that `runtime.module` can call it without an import cycle.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

# id(owner) -> (weak reference to the owner, {attribute name: [callback(value), ...]})
_PENDING: dict[int, tuple[weakref.ref[Any], dict[str, list[Callable[[Any], None]]]]] = {}


def wait_for(owner: Any, name: str, callback: Callable[[Any], None]) -> None:
    """Calls `callback(value)` when `owner.name` is set to `value`."""
    key = id(owner)
    entry = _PENDING.get(key)
    if entry is None or entry[0]() is not owner:
        entry = (weakref.ref(owner, _forget), {})
        _PENDING[key] = entry
    entry[1].setdefault(name, []).append(callback)


def _forget(reference: weakref.ref[Any], pending: dict[int, Any] = _PENDING) -> None:
    """Drops the restorations of an owner that no longer exists (`pending` is bound early:
    at interpreter exit the module's globals may already be gone)."""
    for key, (owner_reference, _) in list(pending.items()):
        if owner_reference is reference:
            del pending[key]


def attribute_set(owner: Any, name: str, value: Any) -> None:
    """Runs the restorations waiting for `owner.name` (once: they are then forgotten)."""
    entry = _PENDING.get(id(owner))
    if entry is None or entry[0]() is not owner:
        return
    callbacks = entry[1].pop(name, ())
    if not entry[1]:
        _PENDING.pop(id(owner), None)
    for callback in callbacks:
        callback(value)


def waiting(owner: Any) -> tuple[str, ...]:
    """The attribute names with restorations waiting on `owner`."""
    entry = _PENDING.get(id(owner))
    if entry is None or entry[0]() is not owner:
        return ()
    return tuple(entry[1])
