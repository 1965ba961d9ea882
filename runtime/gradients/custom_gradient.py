"""`tf.custom_gradient`: a function that gives its own gradient.

    @custom_gradient
    def log1pexp(x):
        e = tf.exp(x)
        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))
        return tf.math.log(1 + e), grad

Calling the decorated function runs `f`, then passes its results through one
`CustomGradient` op (runtime/ops/custom_gradient_ops.py) whose inputs are `f`'s tensor
arguments, the values of the trainable variables `f` read, and the results. The op's rule
(declared with it) calls `grad(*upstream)` (with `variables=` when `f` read variables: it
then returns (gradients of the arguments, gradients of the variables)), and sends nothing
into the ops `f` ran, so they are never differentiated.

Inside a trace `f` is converted by the Function's converter first (as `map_fn`'s `fn`), so
that `if` and loops on tensors in it are staged.

`grad` closes over tensors of the place where `f` ran. Where the gradient is built in
that graph, or in one nested in it (a tape inside the same tf.function), or eagerly, `grad`
is called as it is. Where it is built in another graph (the gradient function of a traced
Function, or of a loop body) those tensors cannot be read there, so `f` runs again on the
op's inputs as seen from that graph, and the `grad` of that run gives the gradient (`f`'s
Python side effects run again, while that gradient is traced).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from runtime import context, nest
from runtime.data.element_functions import convert
from runtime.gradients.tape import GradientTape
from runtime.ops.common import convert_to_tensor
from runtime.ops.custom_gradient_ops import CUSTOM_GRADIENT_OP, split_returned
from runtime.ops.registry import execute
from runtime.tensor import Tensor


def custom_gradient(f: Callable[..., Any] | None = None) -> Callable[..., Any]:
    """Decorates `f(*x) -> (y, grad_fn)` so that gradients of `y` come from `grad_fn`
    (see the module docstring). `grad_fn(*dy)` returns one gradient per argument of `f`
    (a single value for one argument); with `variables=` in its signature, when `f` reads
    trainable variables, it returns (argument gradients, variable gradients)."""
    if f is None:
        return custom_gradient
    return _CustomGradientFunction(f)


class _CustomGradientFunction:
    """A function decorated with `custom_gradient`; as a method, bound to its instance
    (which is then no argument of the gradient)."""

    def __init__(self, f: Callable[..., Any]) -> None:
        functools.update_wrapper(self, f)
        self._f = f

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return _call(self._f, args, kwargs)

    def __get__(self, instance: object, owner: type | None = None) -> _CustomGradientFunction:
        if instance is None:
            return self
        return _CustomGradientFunction(self._f.__get__(instance, owner))


def _call(f: Callable[..., Any], args: Sequence[Any], kwargs: Mapping[str, Any]) -> Any:
    args = [a if isinstance(a, Tensor) else convert_to_tensor(a) for a in args]
    graph = context.current_graph()
    if graph is not None:  # as the Function being traced converts what it hands on
        f = convert(f)
    if graph is None and not context.tapes:  # nothing can differentiate this call
        result, _ = split_returned(f(*args, **kwargs))
        return result
    saved_tapes = list(context.tapes)
    context.tapes.clear()  # f's own ops are never differentiated: record only its reads
    try:
        with GradientTape() as probe:
            result, grad_fn = split_returned(f(*args, **kwargs))
    finally:
        context.tapes[:] = saved_tapes
    variables = tuple(probe.watched_variables())
    if variables and not _takes_variables(grad_fn):
        raise TypeError("@custom_gradient: %s reads the variables %s, so its grad_fn must "
                        "accept a keyword argument 'variables'"
                        % (getattr(f, "__name__", f), ", ".join(v.name for v in variables)))
    flat = [convert_to_tensor(y) for y in nest.flatten(result)]
    reads = [v.read_value() for v in variables]
    attrs = {"n_args": len(args), "n_outputs": len(flat), "f": f, "kwargs": kwargs,
             "grad_fn": grad_fn, "variables": variables, "forward_graph": graph}
    outputs = execute(CUSTOM_GRADIENT_OP, list(args) + reads + flat, attrs)
    return nest.pack_sequence_as(result, list(outputs))


def _takes_variables(grad_fn: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(grad_fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "variables" or p.kind is inspect.Parameter.VAR_KEYWORD
               for p in parameters)
