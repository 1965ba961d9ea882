"""The op behind `tf.custom_gradient`: `CustomGradient(*xs, *variable_reads, *ys) -> ys`.

Its outputs are its last `len(ys)` inputs unchanged; the other inputs (the function's
arguments and the values of the variables it read) are there so that a GradientTape sees
the op depend on them. Its gradient rule calls the user's gradient function (`grad_fn`, see
runtime.gradients.custom_gradient); no gradient flows into `ys`, so the ops that computed
them are never differentiated.

The rule is declared with the op: it is written with the gradient machinery
(runtime/gradients/backprop.py), which sits below this module, while the decorator
(runtime/gradients/custom_gradient.py) sits above it.
"""

from runtime import context
from runtime.gradients.backprop import zeros_like_tensor
from runtime.ops.common import convert_to_tensor
from runtime.ops.registry import not_saveable, register


def _forward(*values, n_args, n_outputs, **_):
    outputs = values[len(values) - n_outputs:]
    return outputs[0] if n_outputs == 1 else tuple(outputs)


def _infer(specs, attrs):
    return list(specs[len(specs) - attrs["n_outputs"]:])


def _emit(outs, ins, attrs, emitter):
    return "%s = %s" % (", ".join(outs), ", ".join(str(i) for i in ins[len(ins) - len(outs):]))


def _lowering(lowerer, node, ins, outs):
    for out, value in zip(outs, ins[len(ins) - len(outs):]):
        lowerer.assign(out, value)


def split_returned(returned):
    """(result, grad_fn) from what a @custom_gradient function returned; TypeError for
    anything else."""
    if not (isinstance(returned, (tuple, list)) and len(returned) == 2 and
            callable(returned[1])):
        raise TypeError("a @custom_gradient function must return (result, grad_fn), got %r"
                        % (returned,))
    return returned[0], returned[1]


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
        _, grad_fn = split_returned(attrs["f"](*args, **attrs["kwargs"]))
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


CUSTOM_GRADIENT_OP = register("CustomGradient", _forward, _infer,
                              grad=custom_gradient_rule,
                              emit=_emit, traits=("no_fold", "view"),
                              lowerings={"array": _lowering},
                              saving=not_saveable("its gradient is a Python function "
                                                  "(tf.custom_gradient's grad_fn)"))
