"""The call op, `PartitionedCall`, that lets one traced function call another: its `f`
attribute is the callee's ConcreteFunction (runtime/function.py), whose compiled graph the
kernel runs.

A call node may also output `residuals`: values of the callee's graph that its gradient
needs and could not compute again (see runtime.gradients.residuals).
"""

from runtime import backends
from runtime.ops.registry import AttrCodec, attr_codecs, register, resolve_refs, tensor_refs

# lowering rules that decline, saying why (see runtime/backends/lowering.py)
_CALLS_NOT_INLINED = {"array": backends.unsupported("calls of other traced functions are not "
                                                   "inlined yet")}


def _call_infer(specs, attrs):
    return [(t.dtype, t._shape)
            for t in list(attrs["f"].flat_outputs) + list(attrs.get("residuals", ()))]


def _call_kernel(*values, f, residuals=()):
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


CALL_OP = register("PartitionedCall", _call_kernel, _call_infer, node_name="PartitionedCall",
                   grad="runtime.gradients.function_grads:call_grad", emit=_call_emit,
                   traits=("side_effects",),
                   lowerings=dict(_CALLS_NOT_INLINED, jax=backends.jax_rule("lower_call")),
                   saving=attr_codecs(residuals=AttrCodec(_encode_residuals, _decode_residuals,
                                                          with_attrs=True), check=_check_call))
