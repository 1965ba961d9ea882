"""Ops applied to composite tensors (a RaggedTensor): the small dispatch that lets
`tf.math.exp(rt)`, `rt + 1`, `tf.add(rt, rt)`, `tf.reduce_sum(rt, axis=1)` and
`tf.concat([rt, rt], 0)` work.

Elementwise ops: a composite class registered with `register_elementwise` provides
  * `_elementwise_unary(api, *args, **kwargs)`: `api` applied to its stored values;
  * `_elementwise_binary(api, x, y, **kwargs)`: `api` applied to the values of the operands,
    one of which is an instance of the class (the other a composite of the same partitioning,
    or a dense tensor or Python value that broadcasts against the values).
The elementwise APIs of runtime.ops.math_ops check `TYPES` first: one set lookup per call.

Other ops: an API decorated with `dispatchable` (reductions, concat, stack, gather, where,
boolean_mask, shape, size, rank) calls the handler that `register_api` recorded for the type
of the first composite among its arguments (looking one level into lists), and runs its own
body when there is none.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar

TYPES: set[type] = set()
_HANDLERS: dict[tuple[str, type], Callable[..., Any]] = {}
_API = TypeVar("_API", bound=Callable[..., Any])


def register_elementwise(cls: type) -> type:
    """Routes the elementwise ops on instances of `cls` to its methods; returns `cls`."""
    TYPES.add(cls)
    return cls


def unary(api, x, *args, **kwargs):
    """`api(x, ...)` for a composite `x`."""
    return x._elementwise_unary(api, *args, **kwargs)


def binary(api, x, y, **kwargs):
    """`api(x, y, ...)` where `x` or `y` is a composite."""
    composite = x if type(x) in TYPES else y
    return composite._elementwise_binary(api, x, y, **kwargs)


def _composite_type(args: tuple[Any, ...], kwargs: dict[str, Any]) -> type | None:
    for arg in list(args) + list(kwargs.values()):
        if type(arg) in TYPES:
            return type(arg)
        if isinstance(arg, (list, tuple)):
            for item in arg:
                if type(item) in TYPES:
                    return type(item)
    return None


def dispatchable(api: _API) -> _API:
    """`api`, calling the handler registered for a composite operand instead of its body."""
    key = "%s.%s" % (api.__module__, api.__name__)

    @functools.wraps(api)
    def dispatching(*args: Any, **kwargs: Any) -> Any:
        if TYPES:
            kind = _composite_type(args, kwargs)
            if kind is not None:
                handler = _HANDLERS.get((key, kind))
                if handler is not None:
                    return handler(*args, **kwargs)
        return api(*args, **kwargs)

    dispatching._dispatch_key = key  # type: ignore[attr-defined]
    return dispatching  # type: ignore[return-value]


def register_api(api: Callable[..., Any], cls: type, handler: Callable[..., Any]) -> None:
    """Makes the `dispatchable` `api` call `handler` (same arguments) when an operand is a
    `cls`."""
    _HANDLERS[(api._dispatch_key, cls)] = handler  # type: ignore[attr-defined]
    TYPES.add(cls)
