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
below calls `grad(*upstream)` (with `variables=` when `f` read variables: it then returns
(gradients of the arguments, gradients of the variables)), and sends nothing into the
ops `f` ran, so they are never differentiated.

Inside a trace `f` is converted by the Function's converter first (as `map_fn`'s `fn`), so
that `if` and loops on tensors in it are staged.

`grad` closes over tensors of the place where `f` ran. Where the gradient is built in
that graph, or in one nested in it (a tape inside the same tf.function), or eagerly, `grad`
is called as it is. Where it is built in another graph (the gradient function of a traced
Function, or of a loop body) those tensors cannot be read there, so `f` runs again on the
op's inputs as seen from that graph, and the `grad` of that run gives the gradient (`f`'s
Python side effects run again, while that gradient is traced).
"""

import functools
import inspect

from runtime import context, nest
from runtime.data.element_functions import convert
from runtime.gradients.backprop import zeros_like_tensor
from runtime.gradients.tape import GradientTape
from runtime.ops.common import convert_to_tensor
from runtime.ops.custom_gradient_ops import CUSTOM_GRADIENT_OP
from runtime.ops.registry import execute
from runtime.tensor import Tensor


def custom_gradient(f=None):
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

    def __init__(self, f):
        functools.update_wrapper(self, f)
        self._f = f

    def __call__(self, *args, **kwargs):
        return _call(self._f, args, kwargs)

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return _CustomGradientFunction(self._f.__get__(instance, owner))


def _call(f, args, kwargs):
    args = [a if isinstance(a, Tensor) else convert_to_tensor(a) for a in args]
    graph = context.current_graph()
    if graph is not None:  # as the Function being traced converts what it hands on
        f = convert(f)
    if graph is None and not context.tapes:  # nothing can differentiate this call
        result, _ = _split(f(*args, **kwargs))
        return result
    saved_tapes = list(context.tapes)
    context.tapes.clear()  # f's own ops are never differentiated: record only its reads
    try:
        with GradientTape() as probe:
            result, grad_fn = _split(f(*args, **kwargs))
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


def _split(returned):
    if not (isinstance(returned, (tuple, list)) and len(returned) == 2 and
            callable(returned[1])):
        raise TypeError("a @custom_gradient function must return (result, grad_fn), got %r"
                        % (returned,))
    return returned[0], returned[1]


def _takes_variables(grad_fn):
    try:
        parameters = inspect.signature(grad_fn).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(p.name == "variables" or p.kind is inspect.Parameter.VAR_KEYWORD
               for p in parameters)


def custom_gradient_rule(ctx, grads):
    """The gradient of a CustomGradient op: the user's grad_fn on the upstream gradients."""
    attrs = ctx.attrs
    n_args, variables = attrs["n_args"], attrs["variables"]
    outputs = ctx.outputs
    upstream = [g if g is not None else zeros_like_tensor(y) for g, y in zip(grads, outputs)]
    grad_fn = attrs["grad_fn"]
    forward = attrs["forward_graph"]
    here = context.current_graph()
    if forward is not None and (here is None or not here.can_read(forward)):
        args = [ctx.input(i) for i in range(n_args)]
        _, grad_fn = _split(attrs["f"](*args, **attrs["kwargs"]))
    if variables:
        arg_grads, variable_grads = grad_fn(*upstream, variables=list(variables))
        variable_grads = list(variable_grads)
        if len(variable_grads) != len(variables):
            raise ValueError("@custom_gradient: grad_fn returned %d variable gradients for "
                             "%d variables" % (len(variable_grads), len(variables)))
    else:
        arg_grads, variable_grads = grad_fn(*upstream), []
    arg_grads = _per_argument(arg_grads, n_args)
    return arg_grads + variable_grads + [None] * len(outputs)


def _per_argument(grads, n_args):
    if n_args == 1 and not (isinstance(grads, (list, tuple)) and len(grads) == 1):
        grads = [grads]
    grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
    if len(grads) != n_args:
        raise ValueError("@custom_gradient: grad_fn returned %d gradients for %d arguments"
                         % (len(grads), n_args))
    return [None if g is None else convert_to_tensor(g) for g in grads]
