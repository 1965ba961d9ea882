"""Keras's wording of an error raised by a layer's `call`: the layer and the arguments it
was given, around the error's own message (Keras 3's traceback utilities do this):

    Exception encountered when calling FlexibleDense.call().

    <bold>{{function_node __wrapped__MatMul_device_...}} Matrix size-incompatible: ...</bold>

    Arguments received by FlexibleDense.call():
      • inputs=tf.Tensor(shape=(1, 4), dtype=float32)

The error keeps its class (an `InvalidArgumentError` is still caught as one); only the
innermost failing call words it. Errors this project raises to steer tracing (its own
exception classes other than the `tf.errors` family) pass through unchanged, as do errors
of classes that cannot be rebuilt from a message.
"""

from __future__ import annotations

import builtins
import inspect
from typing import Any

from runtime import nest
from runtime.errors import OpError
from runtime.tensor import is_tensor

_WORDED = "_keras_call_info_injected"  # (Keras's mark of an error it has worded)
_USER_CODE = "\n\nin user code:\n"  # where this project's message names the user's line


def _argument_text(value: Any) -> str:
    if is_tensor(value):
        return "tf.Tensor(shape=%s, dtype=%s)" % (tuple(value.shape.as_list())
                                                  if value.shape.rank is not None
                                                  else "<unknown>", value.dtype.name)
    return value


def _arguments(call: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    """Keras's lines '  • name=value' for each parameter of `call` (None: the arguments
    do not bind to it)."""
    try:
        signature = inspect.signature(call)
        bound = signature.bind(*args, **kwargs)
    except (TypeError, ValueError):
        return None
    lines = []
    for parameter in signature.parameters.values():
        if parameter.name in bound.arguments:
            value = nest.map_structure(_argument_text, bound.arguments[parameter.name])
        else:
            value = parameter.default
        lines.append("  • %s=%s" % (parameter.name, value))
    return "\n".join(lines) or None


def _rebuilt(error: Exception, message: str) -> Exception | None:
    """An error of `error`'s class and attributes with `message` (None when its class
    cannot be rebuilt so)."""
    cls = type(error)
    try:
        if isinstance(error, OpError):
            rebuilt: Exception = cls(message, error.op_name)
        elif cls.__module__ == builtins.__name__:
            rebuilt = cls(message)
        else:
            return None
    except TypeError:
        return None
    rebuilt.__dict__.update(error.__dict__)
    if isinstance(rebuilt, OpError):
        rebuilt.message = message
    return rebuilt


def worded_call_error(error: Exception, layer: Any, args: tuple[Any, ...],
                      kwargs: dict[str, Any]) -> Exception | None:
    """`error`, raised by `layer.call(*args, **kwargs)`, worded as Keras words it (None:
    raise it unchanged)."""
    if getattr(error, _WORDED, False):
        return None
    arguments = _arguments(layer.call, args, kwargs)
    if arguments is None:
        return None
    if isinstance(error, OpError):
        message = error.message
    else:
        message = str(error.args[0]) if error.args else ""
    message, found, where = message.partition(_USER_CODE)
    name = "%s.call()" % type(layer).__name__
    text = ("Exception encountered when calling %s.\n\n\x1b[1m%s\x1b[0m\n\n"
            "Arguments received by %s:\n%s" % (name, message, name, arguments))
    rebuilt = _rebuilt(error, text + (found + where if found else ""))
    if rebuilt is not None:
        setattr(rebuilt, _WORDED, True)
    return rebuilt
