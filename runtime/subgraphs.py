"""Sub-graphs of staged control flow: the branches of `If` and the condition and body of
`While`, traced into graphs nested in the current one, and the node that runs them.

A sub-graph is traced once, with placeholders for the values flowing in (loop variables)
and captures for the outer tensors it reads. The op's inputs are the values flowing in
followed by the captured outer tensors; its outputs are the branch results or the final
loop variables. The ops, their builders (`build_if`, `build_while`), gradients and lowering
into Python statements are declared in runtime/ops/control_flow_ops.py, which passes its op
variants to `add_node`.
"""


from runtime import context, errors
from runtime.graph import Graph, SubGraph
from runtime.tensor import EagerTensor, SymbolicTensor


def trace_subgraph(name, fn, specs, names=None):
    """Traces `fn(*placeholders)` into a new graph nested in the current one.

    Returns (SubGraph with outputs unset, whatever fn returned). The caller converts the
    returned values into tensors of the sub-graph (see `capture_outputs`)."""
    outer = _current()
    graph = Graph(name, outer=outer)
    placeholders = []
    location = errors.user_location() if specs else None  # (each placeholder's)
    with graph.as_default():
        for i, (dtype, shape) in enumerate(specs):
            label = names[i] if names else "arg"
            placeholders.append(graph.add_placeholder(clean_label(label), dtype, shape,
                                                      location))
        result = fn(*placeholders)
    return SubGraph(graph, placeholders, None), result


def clean_label(label):
    """`label` (a variable name, or '<loop counter>') as a placeholder name."""
    return "".join(c if c.isalnum() or c == "_" else "_" for c in label) or "arg"


def _current():
    return context.current_graph()


def _feed_captures(subgraph, inputs, outer):
    """Routes the sub-graph's captured outer tensors through the op's inputs."""
    for capture in subgraph.graph.captures:
        external = capture.external
        if isinstance(external, SymbolicTensor) and not capture.leaked:
            subgraph.captured.append((capture.placeholder, len(inputs)))
            inputs.append(outer.capture(external))
        elif not isinstance(external, EagerTensor) and not capture.leaked:
            outer.capture(external)  # variables: bound directly, listed for bookkeeping


def add_node(ops, leading, subgraphs, out_specs, name):
    """Adds an If/While node: `leading` inputs, then each sub-graph's captured outer tensors.
    `ops` maps "has side effects" to the op's variant: the one with side effects is chosen
    when any sub-graph has them. Returns the node's output tensors."""
    outer = _current()
    inputs = [outer.capture(t) for t in leading]
    for sub in subgraphs.values():
        _feed_captures(sub, inputs, outer)
    op = ops[any(sub.has_side_effects() for sub in subgraphs.values())]
    attrs = dict(subgraphs, out_specs=tuple(out_specs))
    return outer.add_node(op, inputs, attrs, out_specs, name=name)
