"""The call op, `PartitionedCall`, that lets one traced function call another: its `f`
attribute is the callee's ConcreteFunction (runtime/function.py), whose compiled graph the
kernel runs.

A call node may also output `residuals`: values of the callee's graph that its gradient
needs and could not compute again (see runtime.gradients.residuals).
"""

from runtime import lowering_api
from runtime.gradients import function_grads
from runtime.gradients.inliner import register_replay_rule
from runtime.ops import attr_types
from runtime.ops.registry import AttrCodec, attr_codecs, register, resolve_refs, tensor_refs


def _may_raise(graph):
    """True when an op of `graph` (or of its sub-graphs and callees) may raise."""
    for node in graph.nodes:
        if "may_raise" in node.op.traits:
            return True
        for value in node.attrs.values():
            inner = getattr(value, "graph", None)
            if inner is not None and _may_raise(inner):
                return True
    return False


def _call_lowering(lowerer, node, ins, outs):
    """The callee's graph, lowered in place (inlined), its placeholders fed by the inputs."""
    callee = node.attrs["f"]
    if node.attrs.get("residuals") or callee._first_call is not None:
        raise lowering_api.Unsupported("a call keeping residuals or initialising variables")
    if _may_raise(callee.graph):
        raise lowering_api.Unsupported("a call of a function whose ops may raise (the error "
                                   "names the call and the op, as the executor does)")
    fed = {id(placeholder): x for placeholder, x in zip(callee.inputs, ins)}
    results = lowerer.lower_graph(callee.graph, fed, callee.flat_outputs)
    for out, result in zip(outs, results):
        lowerer.assign(out, result)


def _call_infer(specs, attrs):
    return [(t.dtype, t._shape)
            for t in list(attrs["f"].flat_outputs) + list(attrs.get("residuals", ()))]


def _call_kernel(*values, f, residuals=(), n_outputs=None):
    # n_outputs: the gradient's bookkeeping (see runtime.gradients.residuals), unused here
    return f._compiled_run(residuals)(*values)


def _call_emit(outs, ins, attrs, bind):
    run = bind(attrs["f"]._compiled_run(attrs.get("residuals", ())), "call")
    call = "%s(%s)" % (run, ", ".join(ins))
    if not outs:
        return call
    return "%s, = %s" % (", ".join(outs), call) if len(outs) == 1 else "%s = %s" % (
        ", ".join(outs), call)


def _check_call(specs, attrs):
    """A loaded call node feeds its function's placeholders with inputs of their dtypes."""
    feeds = attrs["f"].inputs
    if [d for d, _ in specs] != [t.dtype for t in feeds]:
        raise ValueError("the call's inputs do not match %s's placeholders" % attrs["f"].name)


def _encode_residuals(residuals, attrs):
    return tensor_refs(residuals, attrs["f"].graph)


def _decode_residuals(data, attrs):
    if "f" not in attrs:
        raise ValueError("residuals without a function")
    return resolve_refs(data, attrs["f"].graph)


def _call_jax(lw, node, ins):
    """PartitionedCall: the callee's graph, inlined."""
    if node.attrs.get("residuals"):
        raise lowering_api.Unsupported("keeps residuals for a gradient")
    callee = node.attrs["f"]
    fed = {id(ph): v for ph, v in zip(callee.inputs, ins)}
    return lw.lower_graph(callee.graph, fed, callee.outputs)


CALL_OP = register("PartitionedCall", _call_kernel, _call_infer, node_name="PartitionedCall",
                   grad=function_grads.call_grad, emit=_call_emit,
                   # the callee may return its argument
                   traits=("side_effects", "view", "calls_function"),
                   lowerings={"array": _call_lowering, "jax": _call_jax},
                   attr_types={"f": attr_types.FUNCTION,
                               "n_outputs": attr_types.optional(attr_types.INT)},
                   saving=attr_codecs(residuals=AttrCodec(_encode_residuals, _decode_residuals,
                                                          with_attrs=True), check=_check_call))
# A gradient graph re-emits a call that has residuals as a call of its callee's replay function.
register_replay_rule(CALL_OP, function_grads.replay_call)
