"""The op behind `tf.custom_gradient`: `CustomGradient(*xs, *variable_reads, *ys) -> ys`,
and the op a saved model holds in its place, `SavedCustomGradient`.

Its outputs are its last `len(ys)` inputs unchanged; the other inputs (the function's
arguments and the values of the variables it read) are there so that a GradientTape sees
the op depend on them. Its gradient rule calls the user's gradient function (`grad_fn`, see
runtime.gradients.custom_gradient); no gradient flows into `ys`, so the ops that computed
them are never differentiated.

A saved model holds no Python function: a CustomGradient node is saved as a
SavedCustomGradient node with the same inputs and outputs whose `grad_f` attribute is the
user's gradient traced into a graph, `(*inputs, *upstream) -> the gradients of the inputs
listed in gradient_inputs` (TensorFlow's SaveOptions(experimental_custom_gradients=True),
the default). Its gradient rule calls that function; a loader checks that it fits the
node. Saved with experimental_custom_gradients=False, `grad_f` is None and asking for a
gradient through the node raises LookupError, as TensorFlow does where the gradient was not
saved.

The rule is declared with the op: it is written with the gradient machinery
(runtime/gradients/backprop.py), which sits below this module, while the decorator
(runtime/gradients/custom_gradient.py) sits above it.
"""

from typing import Any

from runtime import context, lowering_api
from runtime import shape as shape_lib
from runtime.concrete_function import ConcreteFunction
from runtime.gradients.backprop import zeros_like_tensor
from runtime.graph import Graph
from runtime.ops import attr_types
from runtime.ops.array_ops import identity
from runtime.ops.call_ops import CALL_OP
from runtime.ops.common import convert_to_tensor
from runtime.ops.registry import attr_codecs, execute, register, saved_as


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
    outputs = ctx.outputs
    upstream = [g if g is not None else zeros_like_tensor(y) for g, y in zip(grads, outputs)]
    grad_fn = attrs["grad_fn"]
    forward = attrs["forward_graph"]
    here = context.current_graph()
    if forward is not None and (here is None or not here.can_read(forward)):
        grad_fn = _grad_fn_rerun(attrs, [ctx.input(i) for i in range(attrs["n_args"])])
    return _user_gradients(attrs, grad_fn, upstream) + [None] * len(outputs)


def _grad_fn_rerun(attrs, args):
    """The grad_fn of the decorated function run again on `args` (tensors of the graph
    being built, where those its first run closed over cannot be read)."""
    _, grad_fn = split_returned(attrs["f"](*args, **attrs["kwargs"]))
    return grad_fn


def _user_gradients(attrs, grad_fn, upstream):
    """grad_fn's gradients of the op's arguments, then of the variables it read."""
    n_args, variables = attrs["n_args"], attrs["variables"]
    if variables:
        arg_grads, variable_grads = grad_fn(*upstream, variables=list(variables))
        variable_grads = list(variable_grads)
        if len(variable_grads) != len(variables):
            raise ValueError("@custom_gradient: grad_fn returned %d variable gradients for "
                             "%d variables" % (len(variable_grads), len(variables)))
    else:
        arg_grads, variable_grads = grad_fn(*upstream), []
    return _per_argument(arg_grads, n_args) + [
        None if g is None else convert_to_tensor(g) for g in variable_grads]


def _per_argument(grads, n_args):
    if n_args == 1 and not (isinstance(grads, (list, tuple)) and len(grads) == 1):
        grads = [grads]
    grads = list(grads) if isinstance(grads, (list, tuple)) else [grads]
    if len(grads) != n_args:
        raise ValueError("@custom_gradient: grad_fn returned %d gradients for %d arguments"
                         % (len(grads), n_args))
    return [None if g is None else convert_to_tensor(g) for g in grads]


# -- in a saved model ------------------------------------------------------------------------


def _traced_gradient(node):
    """The gradient of CustomGradient `node` traced into a function, `(*inputs, *upstream)
    -> gradients`, and the indices of the inputs those gradients are of (the others get
    none). The decorated function runs again on the new graph's placeholders, as when a
    gradient is built in another graph: its Python side effects run again."""
    attrs = node.attrs
    graph = Graph(node.graph.name + "_" + node.name + "_grad")
    with graph.as_default():
        inputs = [graph.add_placeholder("input", t.dtype, t._shape) for t in node.inputs]
        upstream = [graph.add_placeholder("upstream", t.dtype, t._shape) for t in node.outputs]
        grads = _user_gradients(attrs, _grad_fn_rerun(attrs, inputs[:attrs["n_args"]]),
                                upstream)
    taken = [(i, g) for i, g in enumerate(grads) if g is not None]
    with graph.as_default():  # the function's outputs are its own ops' (not its inputs)
        outputs = [identity(g) if g.graph is not graph or any(g is x for x in inputs) else g
                   for _, g in taken]
    feeds = inputs + upstream
    graph.inputs, graph.outputs = list(feeds), list(outputs)
    function = ConcreteFunction(graph.name, graph, feeds, outputs,
                                [("t", i) for i in range(len(outputs))], list(outputs), [], [])
    return function, [i for i, _ in taken]


def _saved_form(node, options):
    """A CustomGradient node as a saved model holds it: SavedCustomGradient, with its
    gradient traced (or None where the save's options leave custom gradients out)."""
    grad_f, gradient_inputs = None, []
    if getattr(options, "experimental_custom_gradients", True):
        grad_f, gradient_inputs = _traced_gradient(node)
    return SAVED_CUSTOM_GRADIENT_OP, {"n_outputs": node.attrs["n_outputs"], "grad_f": grad_f,
                                      "gradient_inputs": gradient_inputs}


CUSTOM_GRADIENT_OP = register("CustomGradient", _forward, _infer,
                              grad=custom_gradient_rule,
                              emit=_emit, traits=("no_fold", "view"),
                              lowerings={"array": _lowering},
                              attr_types={"f": attr_types.CALLABLE,
                                          "grad_fn": attr_types.CALLABLE,
                                          "kwargs": attr_types.TRACE_ONLY,
                                          "variables": attr_types.TRACE_ONLY,
                                          "forward_graph": attr_types.TRACE_ONLY},
                              saving=saved_as(_saved_form))


def _saved_forward(*values, n_outputs, grad_f, gradient_inputs):
    outputs = values[len(values) - n_outputs:]
    return outputs[0] if n_outputs == 1 else tuple(outputs)


def _saved_gradient_rule(ctx, grads):
    """The gradient of a SavedCustomGradient node: its traced gradient function called on
    the node's inputs and the upstream gradients."""
    grad_f = ctx.attrs["grad_f"]
    if grad_f is None:
        raise LookupError("the custom gradient of this function was not saved (it was saved "
                          "with tf.saved_model.SaveOptions(experimental_custom_gradients="
                          "False)): no gradient flows through its tf.custom_gradient")
    inputs = [ctx.input(i) for i in range(len(ctx.needed))]
    upstream = [g if g is not None else zeros_like_tensor(y)
                for g, y in zip(grads, ctx.outputs)]
    results = execute(CALL_OP, inputs + upstream, {"f": grad_f}, name="PartitionedCall")
    gradients: list[Any] = [None] * len(inputs)
    for index, g in zip(ctx.attrs["gradient_inputs"], results):
        gradients[index] = g
    return gradients


def _check_saved(specs, attrs):
    """A loaded SavedCustomGradient node: its outputs are its last inputs, and its gradient
    function takes its inputs and upstream gradients and gives, for each input listed in
    gradient_inputs, a gradient of that input's dtype and shape."""
    n_outputs, grad_f, listed = attrs["n_outputs"], attrs["grad_f"], attrs["gradient_inputs"]
    if not 0 < n_outputs <= len(specs):
        raise ValueError("n_outputs must be between 1 and the number of inputs")
    if grad_f is None:
        if listed:
            raise ValueError("gradient_inputs without a gradient function")
        return
    args = len(specs) - n_outputs
    if sorted(set(listed)) != list(listed) or any(not 0 <= i < args for i in listed):
        raise ValueError("gradient_inputs must be increasing indices of the inputs before "
                         "the outputs")
    wanted = [d for d, _ in specs] + [d for d, _ in specs[args:]]
    if [t.dtype for t in grad_f.inputs] != wanted:
        raise ValueError("the gradient function's inputs do not match the node's inputs and "
                         "upstream gradients")
    outputs = grad_f.flat_outputs
    if len(outputs) != len(listed) or any(
            t.dtype is not specs[i][0] or not shape_lib.is_compatible(t._shape, specs[i][1])
            for t, i in zip(outputs, listed)):
        raise ValueError("the gradient function's outputs do not match the inputs listed in "
                         "gradient_inputs")


SAVED_CUSTOM_GRADIENT_OP = register(
    "SavedCustomGradient", _saved_forward, _infer, grad=_saved_gradient_rule,
    emit=_emit, traits=("no_fold", "view"),
    lowerings={"array": lowering_api.unsupported("only a loaded saved model holds it, and a "
                                                 "loaded function runs on the numpy executor")},
    attr_types={"grad_f": attr_types.optional(attr_types.FUNCTION),
                "gradient_inputs": attr_types.INTS},
    saving=attr_codecs(check=_check_saved))
