"""Inlining a graph's nodes into another graph, for building gradient functions.

An `Inliner` hands `backprop` the nodes of a forward graph as records (`InlinedNode`) whose
inputs and outputs are re-emitted in the graph being built, on demand: only the forward nodes
a gradient actually uses are re-emitted, so print and assignment nodes are not run again,
while the gradient keys stay those of the forward graph. Nodes whose values include residuals
are replayed with them fed (`register_replay_rule`), or refused where a second run would not
give the forward value (see residuals).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from runtime.gradients import residuals
from runtime.graph import Graph, Node
from runtime.ops.registry import OpDef
from runtime.tensor import SymbolicTensor


class Inliner:
    """Re-emits nodes of graph `source` into graph `target`, on demand.

    `mapping` maps id(source tensor) to the target-graph (or enclosing-graph) tensor standing
    for it: the source's fed placeholders must all be mapped. Placeholders that captured
    variables or eager tensors are captured again by `target`. A node is re-emitted the
    first time one of its outputs is asked for, after the nodes it depends on. Values are
    handed out as tensors of `consumer` (default: `target`): when the consumer is a graph
    nested in the target, what it captures from the target is exactly the set of forward
    values its computation needs (see the While gradient)."""

    def __init__(self, source: Graph, target: Graph, mapping: dict[int, SymbolicTensor],
                 consumer: Graph | None = None) -> None:
        self.source = source
        self.target = target
        self.consumer = consumer or target  # the graph the values are handed to
        self.mapping = mapping
        self._captures = {id(c.placeholder): c for c in source.captures}

    def view(self, node: Node) -> InlinedNode:
        """The record view of `node` for `backprop`."""
        return InlinedNode(node, self)

    def in_target(self, t: SymbolicTensor) -> SymbolicTensor:
        """The tensor of the target graph standing for source tensor `t`."""
        found = self.mapping.get(id(t))
        if found is None:
            self._emit(t.node)
            found = self.mapping[id(t)]
        return self.target.capture(found)

    def value(self, t: SymbolicTensor) -> SymbolicTensor:
        """The tensor standing for source tensor `t`, as a tensor of the consumer graph
        (the target, or a graph nested in it, which then captures it)."""
        return self.consumer.capture(self.in_target(t))

    def _emit(self, node: Node) -> None:
        mapping = self.mapping
        stack = [node]
        while stack:
            current = stack[-1]
            if id(current.outputs[0]) in mapping:  # already emitted (reached twice)
                stack.pop()
                continue
            missing = [t.node for t in current.inputs if id(t) not in mapping]
            if missing:
                stack.extend(missing)
                continue
            stack.pop()
            self._emit_one(current)

    def _emit_one(self, node: Node) -> None:
        target = self.target
        if "placeholder" in node.op.traits:
            capture = self._captures.get(id(node.outputs[0]))
            if capture is None or isinstance(capture.external, SymbolicTensor):
                raise ValueError("internal error: placeholder %s of %s is not mapped"
                                 % (node.name, self.source.name))
            self.mapping[id(node.outputs[0])] = target.capture(capture.external)
            return
        replay = _REPLAY_RULES.get(node.op)
        if replay is not None and residuals.expose(node):
            olds, news = replay(node, target, lambda t: target.capture(self.mapping[id(t)]))
            for old, new in zip(olds, news):
                self.mapping[id(old)] = new
            return
        _check_rerun(node)
        inputs = [target.capture(self.mapping[id(t)]) for t in node.inputs]
        specs = [(t.dtype, t._shape) for t in node.outputs]
        outputs = target.add_node(node.op, inputs, node.attrs, specs, node.name, node.location)
        for old, new in zip(node.outputs, outputs):
            self.mapping[id(old)] = new


# Re-emitting a node whose forward values include residuals runs it again with them fed:
# {op: rule(node, target, value_of) -> (node's outputs it stands for, target's outputs)},
# given by the modules declaring those ops (call_ops, control_flow_ops), which build on this
# one. `value_of(t)`: the target's tensor for a tensor of node's graph.
ReplayRule = Callable[[Node, Graph, Callable[[SymbolicTensor], SymbolicTensor]],
                      tuple[Sequence[SymbolicTensor], Sequence[SymbolicTensor]]]
_REPLAY_RULES: dict[OpDef, ReplayRule] = {}


def register_replay_rule(op: OpDef, rule: ReplayRule) -> None:
    """Declares how nodes of `op` whose values include residuals are re-emitted."""
    _REPLAY_RULES[op] = rule


def _check_rerun(node: Node) -> None:
    """Refuses to re-emit a node whose second run would not give the forward value (its
    values are residuals, which the forward pass should have handed over: see residuals)."""
    if not (residuals.unrecomputable(node.op) or residuals.expose(node)):
        return
    where = node.location
    raise NotImplementedError(
        "internal error: this gradient needs the value of %s (op %s%s) again, and running it "
        "a second time would not give the same value (a random draw, a variable read or "
        "assignment, an iterator read, a py_function), but the forward pass did not keep it"
        % (node.name, node.op.name,
           ", made at %s:%d" % (where.filename, where.lineno) if where is not None else ""))


class InlinedNode:
    """A node of the source graph as its gradient rule sees it: inputs and outputs
    re-emitted into the target graph when first asked for."""

    __slots__ = ("node", "inliner")

    def __init__(self, node: Node, inliner: Inliner) -> None:
        self.node = node
        self.inliner = inliner

    @property
    def inputs(self) -> list[SymbolicTensor]:
        """The node's inputs, as tensors of the consumer graph."""
        return [self.inliner.value(t) for t in self.node.inputs]

    @property
    def outputs(self) -> list[SymbolicTensor]:
        """The node's outputs, as tensors of the consumer graph."""
        return [self.inliner.value(t) for t in self.node.outputs]

    def input(self, i: int) -> SymbolicTensor:
        """Input `i` only (re-emitting just what computes it)."""
        return self.inliner.value(self.node.inputs[i])

    def output(self, i: int) -> SymbolicTensor:
        """Output `i` only."""
        return self.inliner.value(self.node.outputs[i])
