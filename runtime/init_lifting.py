"""Lifting a variable's initial value out of the trace that creates it (`init_scope` rules).

A variable created inside a trace from a value computed by ops of that trace
(`tf.Variable(tf.random.normal([4, 3]))`, `tf.Variable(tf.zeros([3]))`) gets its value at
once, eagerly, when that value depends on none of the trace's inputs: the ops producing it
run again outside the graph, on the eager values the graph captured. The variable then holds
a value as soon as it exists, as it would eagerly, whichever trace (or call from inside
another trace) runs next.

    lift(initial_value)   # its value as an EagerTensor, or None when it cannot be lifted

A value cannot be lifted when it depends on an argument of the trace, on a tensor of an
enclosing trace, on an uninitialised variable, on an op with side effects (running it
here and again in the graph would repeat the effect), on a control flow op, or on an op
under control dependencies: such a variable is initialised by the graph the first time it
runs (see runtime.variables).
"""

from __future__ import annotations

from typing import Any

from runtime import context
from runtime.ops.registry import execute
from runtime.tensor import EagerTensor, SymbolicTensor


class _Unliftable(Exception):
    """The value depends on something that exists only while the graph runs."""


def lift(value: SymbolicTensor) -> EagerTensor | None:
    """The eager value of `value`, a tensor of the graph being built, computed now outside
    the graph; None when it depends on the trace's inputs (see runtime.init_lifting)."""
    try:
        needed = _needed_nodes(value)
    except _Unliftable:
        return None
    computed: dict[int, Any] = {}
    with context.eager_scope():
        for node in needed:
            inputs = [_eager_input(t, computed) for t in node.inputs]
            for out, result in zip(node.outputs, execute(node.op, inputs, node.attrs)):
                computed[id(out)] = result
        result = _eager_input(value, computed)
    return result if isinstance(result, EagerTensor) else None


def _needed_nodes(value: SymbolicTensor) -> list[Any]:
    """The nodes computing `value`, in program order (placeholders of eager captures left
    out); raises _Unliftable when one of them cannot run outside the graph."""
    seen: set[int] = set()
    needed: list[Any] = []
    pending = [value]
    while pending:
        tensor = pending.pop()
        node = tensor.node
        if id(node) in seen:
            continue
        seen.add(id(node))
        if "placeholder" in node.op.traits:
            external = _captured(tensor)
            if isinstance(external, SymbolicTensor):
                pending.append(external)
            continue
        if node.op.side_effects or node.control_inputs or any(
                getattr(attr, "graph", None) is not None for attr in node.attrs.values()):
            raise _Unliftable
        needed.append(node)
        pending.extend(node.inputs)
    order: dict[int, int] = {}
    for graph in {id(node.graph): node.graph for node in needed}.values():
        order.update((id(node), i) for i, node in enumerate(graph.nodes))
    return sorted(needed, key=lambda node: (_depth(node.graph), order[id(node)]))


def _depth(graph: Any) -> int:
    """How many graphs enclose `graph` (an enclosing graph's nodes run first)."""
    depth = 0
    while graph.outer is not None:
        graph, depth = graph.outer, depth + 1
    return depth


def _captured(placeholder: SymbolicTensor) -> Any:
    """What placeholder `placeholder` stands for, when it can be read outside the graph: an
    eager tensor, an initialised variable, or a tensor of an enclosing graph."""
    graph = placeholder.graph
    for capture in graph.captures:
        if capture.placeholder is placeholder:
            external = capture.external
            if isinstance(external, EagerTensor):
                return external
            if isinstance(external, SymbolicTensor) and _encloses(external.graph, graph):
                return external
            if getattr(external, "_value", None) is not None and hasattr(external, "assign"):
                return external  # an eager Variable holding a value
            break
    raise _Unliftable


def _encloses(outer: Any, graph: Any) -> bool:
    while graph.outer is not None:
        graph = graph.outer
        if graph is outer:
            return True
    return False


def _eager_input(tensor: SymbolicTensor, computed: dict[int, Any]) -> Any:
    """The eager value standing for `tensor`: computed above, or the capture's value."""
    found = computed.get(id(tensor))
    if found is not None:
        return found
    external = _captured(tensor)
    if isinstance(external, SymbolicTensor):
        return _eager_input(external, computed)
    return external
