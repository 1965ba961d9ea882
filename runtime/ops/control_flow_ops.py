"""The control-flow ops `If` and `While` (and their variants without side effects, which
graph passes may drop when unused): their sub-graphs (runtime/subgraphs.py traces them)
are attributes, and their emit rule writes Python statements around them. `build_if` and
`build_while` add their nodes; their gradients are written in
runtime/gradients/control_flow_grads.py (If's is an If, which its rule adds with `build_if`).

The executor lowers them back into Python statements:

    If:     if pred:                       While:  w0, w1 = init0, init1
                <then sub-graph>                   while True:
                out0, = t0,                            <cond sub-graph>
            else:                                      if not c: break
                <else sub-graph>                       <body sub-graph>
                out0, = e0,                            w0, w1 = b0, b1
                                                   out0, out1 = w0, w1
"""

import numpy as np

from runtime import executor, lowering_api, subgraphs
from runtime.gradients import control_flow_grads
from runtime.gradients.inliner import register_replay_rule
from runtime.graph import SubGraph
from runtime.ops import attr_types, control_flow_jax
from runtime.ops.registry import (
    UNSAVED,
    AttrCodec,
    attr_codecs,
    register,
    resolve_refs,
    statements,
    tensor_refs,
)


def _sub_infer(specs, attrs):
    return list(attrs["out_specs"])


def _if_infer(specs, attrs):
    """The branches' results, then (once a gradient exposed them) each branch's residuals."""
    then_r, else_r = attrs.get("residuals", ((), ()))
    return list(attrs["out_specs"]) + [(t.dtype, t._shape) for t in tuple(then_r) + tuple(else_r)]


def _lower_branch(emitter, sub, ins, outs, indent, node, fed_extra=(), extra=(),
                  absent=((), ())):
    """Emits a branch (or loop body) assigning its results to `outs`. With `extra` (tensors of
    the branch: its residuals), their values follow the results, between stand-ins for the
    tensors `absent[0]` and `absent[1]` (the other branch's residuals, not computed)."""
    fed = {id(ph): ins[i] for ph, i in sub.captured}
    fed.update(fed_extra)
    before = len(emitter.lines)
    results = executor.emit_graph(emitter, sub.graph, fed, list(sub.outputs) + list(extra),
                                  indent)
    if absent != ((), ()):
        count = len(sub.outputs)
        results = (results[:count] + [_absent(emitter, t) for t in absent[0]] +
                   results[count:] + [_absent(emitter, t) for t in absent[1]])
    if outs:
        emitter.line("%s, = %s," % (", ".join(outs), ", ".join(results)), indent, node)
    elif len(emitter.lines) == before:
        emitter.line("pass", indent, node)


def _absent(emitter, t):
    """A stand-in for the value of `t` of a branch that did not run: zeros of its dtype and
    static shape (a gradient through it is zero; a read-only broadcast, so no memory), or
    None."""
    if t.dtype.kind not in ("float", "int", "bool"):
        return "None"
    shape = t._shape if t._shape is not None and None not in t._shape else ()
    return emitter.bind(np.broadcast_to(np.zeros((), t.dtype.np_dtype), shape), "absent")


def _lower_if(emitter, node, ins, outs, indent):
    # With residuals (see runtime.gradients.residuals), each branch also returns its own,
    # and stand-ins for the other branch's.
    then_r, else_r = node.attrs.get("residuals", ((), ()))
    emitter.line("if %s:" % ins[0], indent, node)
    _lower_branch(emitter, node.attrs["then"], ins, outs, indent + 1, node, extra=then_r,
                  absent=((), else_r))
    emitter.line("else:", indent, node)
    _lower_branch(emitter, node.attrs["else"], ins, outs, indent + 1, node, extra=else_r,
                  absent=(then_r, ()))


def _lower_while(emitter, node, ins, outs, indent):
    cond, body = node.attrs["cond"], node.attrs["body"]
    if emitter.overflow_ignored or not _computes_integers(node):
        _lower_loop(emitter, node, cond, body, ins, outs, indent)
        return
    # In the loop, integers are numpy scalars, which warn on overflow where arrays (and
    # TensorFlow) wrap silently: the loop runs with those warnings off.
    emitter.line("with np.errstate(over='ignore'):", indent, node)
    emitter.overflow_ignored = True
    try:
        _lower_loop(emitter, node, cond, body, ins, outs, indent + 1)
    finally:
        emitter.overflow_ignored = False


def _computes_integers(node):
    """True when a control-flow node's inputs or anything in its sub-graphs are integers."""
    if any(t.dtype.is_integer for t in node.inputs):
        return True
    for sub in node.attrs.values():
        if isinstance(sub, SubGraph):
            for inner in sub.graph.nodes:
                if any(t.dtype.is_integer for t in inner.outputs) or _computes_integers(inner):
                    return True
    return False


def _scalar_inputs(emitter, node, ins, indent):
    """The loop's inputs, with rank-0 numeric ones as numpy scalars, read once before the loop
    (`s = x[()]`; a constant is bound as a scalar): operations on numpy scalars cost a fraction
    of those on 0-d arrays and give the same dtype and values."""
    out = []
    for x in ins:
        if x.shape != () or x.dtype.kind not in ("int", "float", "bool"):
            out.append(x)
        elif x.value is not None:
            out.append(x.scalar)
        else:
            name = emitter.fresh("s")
            emitter.line("%s = %s[()]" % (name, x), indent, node)
            out.append(name)
    return out


def _lower_loop(emitter, node, cond, body, ins, outs, indent):
    ins = _scalar_inputs(emitter, node, ins, indent)
    count = len(body.placeholders)
    loop_vars = [emitter.fresh("w") for _ in range(count)]
    # With residuals (see runtime.gradients.residuals), each iteration appends its own to a
    # list, the node's last output.
    residuals = node.attrs.get("residuals")
    if residuals is not None:
        kept = emitter.fresh("acc")
        emitter.line("%s = []" % kept, indent, node)
    if loop_vars:
        emitter.line("%s, = %s," % (", ".join(loop_vars), ", ".join(ins[:count])), indent, node)
    emitter.line("while True:", indent, node)
    fed = {id(ph): w for ph, w in zip(cond.placeholders, loop_vars)}
    fed.update({id(ph): ins[i] for ph, i in cond.captured})
    test = executor.emit_graph(emitter, cond.graph, fed, cond.outputs, indent + 1)[0]
    emitter.line("if not %s:" % test, indent + 1, node)
    emitter.line("break", indent + 2, node)
    body_fed = {id(ph): w for ph, w in zip(body.placeholders, loop_vars)}
    if residuals is None:
        _lower_branch(emitter, body, ins, loop_vars, indent + 1, node, body_fed)
    else:
        values = [emitter.fresh("r") for _ in residuals]
        _lower_branch(emitter, body, ins, loop_vars + values, indent + 1, node, body_fed,
                      extra=residuals)
        emitter.line("%s.append((%s))" % (kept, "".join(v + ", " for v in values)),
                     indent + 1, node)
        loop_vars = loop_vars + ["%s(%s)" % (emitter.bind(box_list, "box"), kept)]
    if outs:
        emitter.line("%s, = %s," % (", ".join(outs), ", ".join(loop_vars)), indent, node)


def box_list(items):
    """A list as a rank-0 object array: how a While's list of residuals travels."""
    boxed = np.empty((), dtype=object)
    boxed[()] = items
    return boxed


# -- lowering for compiled backends with Python statements (numba) -------------------------


def _lower_sub(lowerer, sub, ins, outs, fed_extra=None):
    """Lowers a branch or loop body, assigning its results to `outs` (Values)."""
    fed = {id(ph): ins[i] for ph, i in sub.captured}
    fed.update(fed_extra or {})
    before = len(lowerer.lines)
    results = lowerer.lower_graph(sub.graph, fed, sub.outputs)
    for out, result in zip(outs, results):
        lowerer.assign(out, result)
    if len(lowerer.lines) == before:
        lowerer.line("pass")


def _statement_if(lowerer, node, ins, outs):
    if node.attrs.get("residuals"):
        raise lowering_api.Unsupported("an If keeping residuals for its gradient")
    lowerer.line("if %s:" % ins[0])
    with lowerer.block():
        _lower_sub(lowerer, node.attrs["then"], ins, outs)
    lowerer.line("else:")
    with lowerer.block():
        _lower_sub(lowerer, node.attrs["else"], ins, outs)


def _statement_while(lowerer, node, ins, outs):
    if node.attrs.get("residuals") is not None:
        raise lowering_api.Unsupported("a While keeping residuals for its gradient")
    cond, body = node.attrs["cond"], node.attrs["body"]
    loop_vars = [lowerer.local(ph.dtype, ph._shape, "w") for ph in body.placeholders]
    for w, x in zip(loop_vars, ins):
        lowerer.assign(w, x)
    lowerer.line("while True:")
    with lowerer.block():
        fed = {id(ph): w for ph, w in zip(cond.placeholders, loop_vars)}
        fed.update({id(ph): ins[i] for ph, i in cond.captured})
        test = lowerer.lower_graph(cond.graph, fed, cond.outputs)[0]
        lowerer.line("if not %s:" % test)
        with lowerer.block():
            lowerer.line("break")
        nexts = [lowerer.local(w.dtype, w.shape, "n") for w in loop_vars]
        _lower_sub(lowerer, body, ins, nexts,
                   {id(ph): w for ph, w in zip(body.placeholders, loop_vars)})
        if loop_vars:
            lowerer.line("%s, = %s," % (", ".join(loop_vars), ", ".join(nexts)))
    for out, w in zip(outs, loop_vars):
        lowerer.assign(out, w)




def _no_kernel(*args, **kwargs):
    raise RuntimeError("control-flow ops run only through the executor's lowering")


def _check_subgraphs(specs, attrs, names, n_fed):
    """Checks a loaded node's sub-graphs against its inputs `specs`: sub-graphs under `names`,
    each with `n_fed` placeholders fed by the first inputs, captured tensors fed by inputs of
    the same dtype."""
    for name in names:
        sub = attrs.get(name)
        if not isinstance(sub, SubGraph):
            raise ValueError("attribute %r must be a sub-graph" % name)
        if len(sub.placeholders) != n_fed:
            raise ValueError("sub-graph %r has %d placeholders, not %d"
                             % (name, len(sub.placeholders), n_fed))
        for placeholder, index in sub.captured:
            if index >= len(specs) or specs[index][0] is not placeholder.dtype:
                raise ValueError("sub-graph %r captures input %d of another dtype" % (name,
                                                                                     index))
    out_specs = attrs.get("out_specs")
    if not isinstance(out_specs, tuple) or not all(
            isinstance(s, tuple) and len(s) == 2 for s in out_specs):
        raise ValueError("out_specs must be a tuple of (dtype, shape) pairs")


def _check_if(specs, attrs):
    _check_subgraphs(specs, attrs, ("then", "else"), 0)
    for name in ("then", "else"):
        outputs = attrs[name].outputs
        if [t.dtype for t in outputs] != [d for d, _ in attrs["out_specs"]]:
            raise ValueError("branch %r gives %d outputs of other dtypes than the op's"
                             % (name, len(outputs)))


def _check_while(specs, attrs):
    out_specs = attrs.get("out_specs")
    count = len(out_specs) if isinstance(out_specs, tuple) else -1
    _check_subgraphs(specs, attrs, ("cond", "body"), count)
    loop = [d for d, _ in out_specs]
    if [d for d, _ in specs[:count]] != loop or \
            [t.dtype for t in attrs["body"].placeholders] != loop or \
            [t.dtype for t in attrs["cond"].placeholders] != loop:
        raise ValueError("the loop variables' dtypes differ between inputs, sub-graphs and "
                         "outputs")
    if [t.dtype for t in attrs["body"].outputs] != loop:
        raise ValueError("the body gives other outputs than the loop variables")
    cond = attrs["cond"].outputs
    if len(cond) != 1 or cond[0].dtype.kind != "bool":
        raise ValueError("the condition must give one bool")
    if any(index < count for sub in ("cond", "body") for _, index in attrs[sub].captured):
        raise ValueError("a sub-graph captures a loop variable's input")


def _encode_if_residuals(residuals, attrs):
    then_r, else_r = residuals
    return [tensor_refs(then_r, attrs["then"].graph), tensor_refs(else_r, attrs["else"].graph)]


def _decode_if_residuals(data, attrs):
    if not isinstance(data, (list, tuple)) or len(data) != 2 or not all(
            isinstance(attrs.get(k), SubGraph) for k in ("then", "else")):
        raise ValueError("residuals must be [then residuals, else residuals]")
    return (resolve_refs(data[0], attrs["then"].graph), resolve_refs(data[1], attrs["else"].graph))


# An If keeps the residuals that a gradient taken inside the function reads (names of tensors
# of its branches). A While's residuals feed only its WhileGrad, which is not saveable: they
# are left out, with the output they add.
_IF_SAVING = attr_codecs(residuals=AttrCodec(_encode_if_residuals, _decode_if_residuals,
                                             with_attrs=True), check=_check_if)
_WHILE_SAVING = attr_codecs(residuals=UNSAVED, n_outputs=UNSAVED, check=_check_while)


def _declare(name, lower, grad, traits, lowerings, saving, infer=_sub_infer):
    return register(name, _no_kernel, infer, grad=grad, emit=statements(lower),
                    traits=traits, lowerings=lowerings, saving=saving,
                    attr_types=_IF_TYPES if infer is _if_infer else _WHILE_TYPES)


# The attributes of If and While nodes (`residuals` and a While's `n_outputs`: see `saving`).
_IF_TYPES = {"then": attr_types.SUBGRAPH, "else": attr_types.SUBGRAPH,
             "out_specs": attr_types.SPECS, "n_outputs": attr_types.INT}
_WHILE_TYPES = {"cond": attr_types.SUBGRAPH, "body": attr_types.SUBGRAPH,
                "out_specs": attr_types.SPECS}


def _if_grad(ctx, grads):
    """If's gradient: another If on the same predicate (see control_flow_grads.if_grad)."""
    return control_flow_grads.if_grad(ctx, grads, build_if)


_IF_LOWERINGS = {"numba": _statement_if, "jax": control_flow_jax.lower_if}
_WHILE_LOWERINGS = {"numba": _statement_while, "jax": control_flow_jax.lower_while}
# (a result may be an input passed through a branch, or a loop that ran no iteration: "view")
IF_OPS = {False: _declare("StatelessIf", _lower_if, _if_grad,
                          ("stateful", "view", "conditional"), _IF_LOWERINGS, _IF_SAVING,
                          _if_infer),
          True: _declare("If", _lower_if, _if_grad, ("side_effects", "view", "conditional"),
                         _IF_LOWERINGS, _IF_SAVING, _if_infer)}
# While's gradient is one WhileGrad node (runtime/ops/while_grad_ops.py)
WHILE_OPS = {False: _declare("StatelessWhile", _lower_while, control_flow_grads.while_grad,
                             ("stateful", "view", "loop"), _WHILE_LOWERINGS, _WHILE_SAVING),
             True: _declare("While", _lower_while, control_flow_grads.while_grad,
                            ("side_effects", "view", "loop"), _WHILE_LOWERINGS, _WHILE_SAVING)}


def build_if(pred, then_sub, else_sub, out_specs):
    """Adds an If node choosing between two traced branches; returns its output tensors."""
    return subgraphs.add_node(IF_OPS, [pred], {"then": then_sub, "else": else_sub}, out_specs,
                              "cond")


def build_while(init, cond_sub, body_sub, out_specs):
    """Adds a While node; `init` are the initial loop values (tensors). Returns the finals."""
    return subgraphs.add_node(WHILE_OPS, init, {"cond": cond_sub, "body": body_sub},
                              out_specs, "while")


def _replay_if_node(node, target, value_of):
    """Re-emits If `node` (into `target`) running its branches again with their residuals
    fed (see control_flow_grads.replay_if)."""
    with target.as_default():
        return node.outputs, control_flow_grads.replay_if(node, value_of, build_if)


for _if_op in IF_OPS.values():
    register_replay_rule(_if_op, _replay_if_node)
