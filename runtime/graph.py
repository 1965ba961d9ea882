"""Dataflow graphs: nodes with TF-style unique names, placeholders, captures and a GraphDef view.

A `Graph` records the ops executed while it is the current graph (`with g.as_default()`).
Values from outside the graph are *captured*: each becomes a placeholder of this graph,
remembered with the outside value in `captures` (eager tensors, variables, tensors of an
enclosing graph). A symbolic tensor of an unrelated graph (one that leaked out of another
trace) is captured too, but marked invalid, and running the graph raises TypeError.

Graphs sit below the ops: a node holds its op's declaration (runtime/ops/registry.py's
`OpDef`), of which the graph reads only the `Op` protocol below, and the op of placeholders is
handed to this layer by the module that declares it (`declare_placeholder_op`), so that this
module imports no op module.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol

from runtime import context, devices, dtypes, errors, graph_dot
from runtime.dtypes import DType
from runtime.specs import Spec, SpecError, describe_operands
from runtime.tensor import EagerTensor, SymbolicTensor


class Op(Protocol):
    """What a graph reads of an op's declaration (runtime/ops/registry.py's OpDef)."""

    name: str
    node_name: str

    def infer(self, specs: list[Spec], attrs: Mapping[str, Any]) -> list[Spec]: ...


# The op of every graph's placeholders, as its declaring module hands it over.
_placeholder_ops: list[Any] = []


def declare_placeholder_op(op: Any) -> None:
    """Makes `op` the op of graphs' placeholders: runtime/ops/array_ops.py declares
    Placeholder with the other ops and hands it to this layer, which imports no op module."""
    if _placeholder_ops:
        raise ValueError("the placeholder op is declared once")
    _placeholder_ops.append(op)


class Node:
    """One op in a graph: its inputs (tensors of the same graph), attributes and outputs."""

    __slots__ = ("graph", "name", "op", "inputs", "attrs", "outputs", "location",
                 "control_inputs", "device")

    def __init__(self, graph: Graph, name: str, op: Any,
                 inputs: list[SymbolicTensor], attrs: Mapping[str, Any], location: Any,
                 device: str = "") -> None:
        self.graph = graph
        self.device = device  # the `tf.device` scope it was made in ('' outside any)
        self.name = name
        self.op = op
        self.inputs = inputs
        self.attrs = attrs
        self.outputs: list[SymbolicTensor] = []
        self.location = location
        self.control_inputs: list[Node] = []

    @property
    def type(self) -> str:
        """The op's registered name, e.g. 'AddV2'."""
        return self.op.name

    def subgraphs(self) -> list[tuple[str, SubGraph]]:
        """The (attribute name, sub-graph) pairs of a control-flow node: an If's 'then' and
        'else', a While's 'cond' and 'body' (none for other nodes)."""
        return [(key, value) for key, value in self.attrs.items() if isinstance(value, SubGraph)]

    def __repr__(self) -> str:
        return "<Node %s (%s)>" % (self.name, self.op.name)


class SubGraph:
    """A traced branch or loop body held as an attribute of a control-flow node (see
    runtime/subgraphs.py): its graph, the placeholders fed by the enclosing op (in order), the
    outputs, and which op input feeds each captured outer tensor."""

    __slots__ = ("graph", "placeholders", "outputs", "captured")

    def __init__(self, graph: Graph, placeholders: list[Any], outputs: Any) -> None:
        self.graph = graph
        self.placeholders = placeholders
        self.outputs = outputs
        self.captured: list[tuple[Any, int]] = []  # (placeholder, index of the op input)

    def has_side_effects(self) -> bool:
        """True when any node (here or in nested sub-graphs) has side effects."""
        for node in self.graph.nodes:
            if node.op.side_effects:
                return True
        return False


class NodeDef:
    """The GraphDef view of a node: `.name`, `.op`, `.input` (names of input tensors), `.attr`,
    `.device` (its `tf.device` scope, '' when none)."""

    __slots__ = ("name", "op", "input", "attr", "device")

    def __init__(self, name: str, op: str, inputs: list[str], attr: dict[str, Any],
                 device: str = "") -> None:
        self.name = name
        self.op = op
        self.input = inputs
        self.attr = attr
        self.device = device

    def __repr__(self) -> str:
        return "NodeDef(name=%r, op=%r, input=%r)" % (self.name, self.op, self.input)


class GraphDef:
    """A serialisable-style listing of a graph's nodes (`.node`)."""

    __slots__ = ("node",)

    def __init__(self, nodes: list[NodeDef]) -> None:
        self.node = nodes

    def __repr__(self) -> str:
        return "\n".join("%s = %s(%s)" % (n.name, n.op, ", ".join(n.input)) for n in self.node)


def tensor_ref_name(tensor: SymbolicTensor) -> str:
    """The GraphDef spelling of an input: 'add' for output 0, 'split:1' otherwise."""
    if tensor.index == 0:
        return tensor.node.name
    return "%s:%d" % (tensor.node.name, tensor.index)


class Capture:
    """An outside value (eager tensor, variable or outer-graph tensor) and its placeholder."""

    __slots__ = ("external", "placeholder", "leaked")

    def __init__(self, external: Any, placeholder: SymbolicTensor, leaked: bool) -> None:
        self.external = external
        self.placeholder = placeholder
        self.leaked = leaked


class Graph:
    """A dataflow graph being built by a trace, or a finished one held by a ConcreteFunction."""

    def __init__(self, name: str = "graph", outer: Graph | None = None) -> None:
        self.name = name
        self.outer = outer
        self.nodes: list[Node] = []
        self.inputs: list[SymbolicTensor] = []
        self.outputs: list[Any] = []
        self.captures: list[Capture] = []
        self._captures_by_id: dict[int, Capture] = {}
        self._used_names: set[str] = set()
        self._name_counts: dict[str, int] = {}
        # The prefix of new node names ('outer/inner/' inside name scopes, see
        # runtime.scopes); a nested graph (a loop body, a branch) starts in its outer's.
        self.name_stack: str = outer.name_stack if outer is not None else ""
        # The nodes that nodes added now must run after (control_dependencies blocks, see
        # runtime.scopes): recorded as their control inputs.
        self.control_dependencies: list[Node] = []
        self.variable_creation_allowed = True
        self.created_variables: list[Any] = []
        # id(resource placeholder) -> the GraphVariable standing for a Variable argument
        # (read by GradientTape to know which variable a resource input is)
        self.argument_variables: dict[int, Any] = {}

    # -- building ---------------------------------------------------------------------
    @contextlib.contextmanager
    def as_default(self) -> Iterator[Graph]:
        """Makes this the graph that ops are added to, for the duration of the block."""
        context.push_graph(self)
        try:
            yield self
        finally:
            context.pop_graph()

    def unique_name(self, base: str) -> str:
        """`base`, or `base_1`, `base_2`... so that node names never repeat."""
        if base not in self._used_names:
            self._used_names.add(base)
            return base
        count = self._name_counts.get(base, 0)
        while True:
            count += 1
            candidate = "%s_%d" % (base, count)
            if candidate not in self._used_names:
                break
        self._name_counts[base] = count
        self._used_names.add(candidate)
        return candidate

    def add_node(self, op: Op, inputs: list[SymbolicTensor],
                 attrs: Mapping[str, Any], out_specs: Sequence[Spec],
                 name: str | None = None, location: Any = None) -> list[SymbolicTensor]:
        """Appends a node whose inputs already belong to this graph; returns its outputs."""
        node = Node(self, self.unique_name(self.name_stack + (name or op.node_name)), op,
                    inputs, attrs, location or errors.user_location(2),
                    devices.current_device())
        if self.control_dependencies:
            node.control_inputs = list(self.control_dependencies)
        node.outputs = [SymbolicTensor(self, node, i, d, s)
                        for i, (d, s) in enumerate(out_specs)]
        self.nodes.append(node)
        return node.outputs

    def add_op(self, op: Op, inputs: Sequence[Any], attrs: Mapping[str, Any],
               name: str | None = None) -> list[SymbolicTensor]:
        """Captures `inputs` as needed, infers output specs and adds a node for `op`."""
        location = errors.user_location(2)  # (the node's, and its captures')
        captured = [self.capture(t, location) for t in inputs]
        specs: list[Spec] = [(t.dtype, t._shape) for t in captured]
        try:
            out_specs = op.infer(specs, attrs)
        except SpecError as e:
            error_class = TypeError if e.kind == "dtype" else ValueError
            raise error_class(errors.with_user_location(
                "%s: %s (operands: %s)" % (op.name, e.message,
                                          describe_operands(specs)))) from None
        return self.add_node(op, captured, attrs, out_specs, name, location)

    def add_placeholder(self, name: str, dtype: DType, shape: Any,
                        location: Any = None) -> SymbolicTensor:
        """Adds an input placeholder named after an argument; returns its tensor.
        `location`: the user's line, when the caller knows it (found otherwise)."""
        op = _placeholder_ops[0]
        attrs = {"dtype": dtype, "shape": shape}
        return self.add_node(op, [], attrs, [(dtype, shape)], name, location)[0]

    def capture(self, value: Any, location: Any = None) -> SymbolicTensor:
        """The tensor of this graph standing for `value` (capturing it when it is outside).
        `location`: the user's line, when the caller knows it (found otherwise)."""
        if isinstance(value, SymbolicTensor) and value.graph is self:
            return value
        found = self._captures_by_id.get(id(value))
        if found is not None:
            return found.placeholder
        if isinstance(value, SymbolicTensor):
            leaked = not self.can_read(value.graph)
            if leaked and value.graph.root is self.root:
                made = value.node.location
                raise errors.InaccessibleTensorError(errors.with_user_location(
                    "the tensor %s%s was computed inside a loop body or a branch of a "
                    "conditional on a tensor, and is used outside it (it escaped through a "
                    "Python object such as a list, a dict or an attribute); only the "
                    "variables the statement assigns carry values out of it"
                    % (value.name, " (made at %s:%d)" % (made.filename, made.lineno)
                       if made is not None else "")))
            spec: Spec = (value.dtype, value._shape)
            base = "capture"
        elif isinstance(value, EagerTensor):
            leaked = False
            spec = (value.dtype, value._value.shape)
            base = "capture"
        else:
            leaked = False
            spec = (dtypes.resource, ())
            base = _placeholder_name(getattr(value, "name", "resource"))
        placeholder = self.add_placeholder(base, *spec, location=location)
        capture = Capture(value, placeholder, leaked)
        self.captures.append(capture)
        self._captures_by_id[id(value)] = capture
        return placeholder

    @property
    def root(self) -> Graph:
        """The outermost graph of this one's chain of enclosing graphs (the function's)."""
        graph = self
        while graph.outer is not None:
            graph = graph.outer
        return graph

    def can_read(self, graph: Graph) -> bool:
        """True when tensors of `graph` are usable here: it is this graph or encloses it."""
        current: Graph | None = self
        while current is not None:
            if current is graph:
                return True
            current = current.outer
        return False

    # -- inspection -------------------------------------------------------------------
    @property
    def captured_inputs(self) -> list[Any]:
        """The outside values this graph captured, in capture order."""
        return [c.external for c in self.captures]

    def get_operations(self) -> list[Node]:
        """The nodes, in creation order."""
        return list(self.nodes)

    def as_graph_def(self) -> GraphDef:
        """A `GraphDef` listing every node with its name, op type and input names."""
        return GraphDef([
            NodeDef(n.name, n.op.name,
                    [tensor_ref_name(t) for t in n.inputs] +
                    ["^" + c.name for c in n.control_inputs],
                    dict(n.attrs), n.device)
            for n in self.nodes])

    def to_dot(self, title: str | None = None) -> str:
        """The graph as Graphviz DOT text: one box per op (type, output dtypes and static
        shapes, the user's file:line as tooltip), inputs, captures, variables and outputs
        marked, If/While sub-graphs as nested clusters (see runtime.graph_dot). Render it
        with `dot -Tsvg`."""
        return graph_dot.to_dot(self, title)

    def __repr__(self) -> str:
        return "<Graph %s: %d nodes>" % (self.name, len(self.nodes))


def _placeholder_name(text: Any) -> str:
    text = str(text).split(":")[0]
    cleaned = "".join(c if c.isalnum() or c in "_./-" else "_" for c in text)
    return cleaned or "resource"
