"""Staged control flow: `If` and `While` graph ops whose branches and bodies are sub-graphs.

A sub-graph is traced once, with placeholders for the values flowing in (loop variables)
and captures for the outer tensors it reads. The op's inputs are the values flowing in
followed by the captured outer tensors; its outputs are the branch results or the final
loop variables. The executor lowers the ops back into Python statements:

    If:     if pred:                       While:  w0, w1 = init0, init1
                <then sub-graph>                   while True:
                out0, = t0,                            <cond sub-graph>
            else:                                      if not c: break
                <else sub-graph>                       <body sub-graph>
                out0, = e0,                            w0, w1 = b0, b1
                                                   out0, out1 = w0, w1
"""

import numpy as np

from runtime import executor
from runtime.graph import Graph
from runtime.ops.registry import register
from runtime.tensor import EagerTensor, SymbolicTensor


class SubGraph:
    """A traced branch or loop body: its graph, the placeholders fed by the enclosing op
    (in order), the outputs, and which op input feeds each captured outer tensor."""

    __slots__ = ("graph", "placeholders", "outputs", "captured")

    def __init__(self, graph, placeholders, outputs):
        self.graph = graph
        self.placeholders = placeholders
        self.outputs = outputs
        self.captured = []  # [(placeholder, index of the op input feeding it)]

    def has_side_effects(self):
        """True when any node (here or in nested sub-graphs) has side effects."""
        for node in self.graph.nodes:
            if node.op.side_effects:
                return True
        return False


def trace_subgraph(name, fn, specs, names=None):
    """Traces `fn(*placeholders)` into a new graph nested in the current one.

    Returns (SubGraph with outputs unset, whatever fn returned). The caller converts the
    returned values into tensors of the sub-graph (see `capture_outputs`)."""
    outer = _current()
    graph = Graph(name, outer=outer)
    placeholders = []
    with graph.as_default():
        for i, (dtype, shape) in enumerate(specs):
            label = names[i] if names else "arg"
            placeholders.append(graph.add_placeholder(clean_label(label), dtype, shape))
        result = fn(*placeholders)
    return SubGraph(graph, placeholders, None), result


def clean_label(label):
    """`label` (a variable name, or '<loop counter>') as a placeholder name."""
    return "".join(c if c.isalnum() or c == "_" else "_" for c in label) or "arg"


def _current():
    from runtime import context
    return context.current_graph()


def to_graph_output(graph, value):
    """`value` (a tensor of this or an enclosing graph, or an eager tensor) as a tensor of
    `graph`, so that a sub-graph can return it."""
    with graph.as_default():
        return graph.capture(value)


def _feed_captures(subgraph, inputs, outer):
    """Routes the sub-graph's captured outer tensors through the op's inputs."""
    for capture in subgraph.graph.captures:
        external = capture.external
        if isinstance(external, SymbolicTensor) and not capture.leaked:
            subgraph.captured.append((capture.placeholder, len(inputs)))
            inputs.append(outer.capture(external))
        elif not isinstance(external, EagerTensor) and not capture.leaked:
            outer.capture(external)  # variables: bound directly, listed for bookkeeping


def _sub_infer(specs, attrs):
    return list(attrs["out_specs"])


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


def _no_kernel(*args, **kwargs):
    raise RuntimeError("control-flow ops run only through the executor's lowering")


def _register(name, lower, side_effects):
    op = register(name, _no_kernel, _sub_infer, stateful=True, side_effects=side_effects)
    op.lower = lower
    return op


IF_OPS = {False: _register("StatelessIf", _lower_if, False),
          True: _register("If", _lower_if, True)}
WHILE_OPS = {False: _register("StatelessWhile", _lower_while, False),
             True: _register("While", _lower_while, True)}


def _add_node(ops, leading, subgraphs, out_specs, name):
    """Adds an If/While node: `leading` inputs, then each sub-graph's captured outer tensors.
    The op variant with side effects is chosen when any sub-graph has them."""
    outer = _current()
    inputs = [outer.capture(t) for t in leading]
    for sub in subgraphs.values():
        _feed_captures(sub, inputs, outer)
    op = ops[any(sub.has_side_effects() for sub in subgraphs.values())]
    attrs = dict(subgraphs, out_specs=tuple(out_specs))
    return outer.add_node(op, inputs, attrs, out_specs, name=name)


def build_if(pred, then_sub, else_sub, out_specs):
    """Adds an If node choosing between two traced branches; returns its output tensors."""
    return _add_node(IF_OPS, [pred], {"then": then_sub, "else": else_sub}, out_specs, "cond")


def build_while(init, cond_sub, body_sub, out_specs):
    """Adds a While node; `init` are the initial loop values (tensors). Returns the finals."""
    return _add_node(WHILE_OPS, init, {"cond": cond_sub, "body": body_sub}, out_specs,
                     "while")
