"""Residuals: forward values a gradient needs but must not compute a second time.

Gradients through a Function call, an If and a While are built by re-emitting the forward
nodes they need (see inliner.Inliner). That is exact for pure ops, but a second run of
some ops would not give the value the forward pass used:

  * random draws, iterator reads and py_function calls (another draw, the next element,
    another run of the Python code);
  * variable reads: an assignment made by the same code, or after it and before the
    gradient is taken, changes what a second read gives (TensorFlow never reads again);
  * variable assignments (their results);
  * a While node whose sub-graphs hold any of these. A call or If node holding them is run
    again *replayed*: the callee or branch with its residuals fed (inliner.Inliner).

Such values are the graph's *residuals* (`graph_residuals`). The forward pass outputs them
and the gradient is fed them instead of recomputing:

    Function call    the call node (or an eager call under a tape) also returns the callee's
                     residuals; the gradient function takes them as extra inputs.
    If               each branch also returns its residuals (the other branch's come back as
                     None); each gradient branch reads its own.
    While            the loop appends each iteration's body residuals to a list it returns
                     (`acc`); WhileGrad replays the iterations from that list (their count is
                     the trip count, so the condition is not run again either).

A node is changed to output its residuals (`expose`) only when a gradient through it is
built, so code that takes no gradient runs exactly as before.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, cast, overload

import numpy as np

from runtime import dtypes
from runtime.ops.registry import OpDef
from runtime.tensor import SymbolicTensor, Tensor

if TYPE_CHECKING:  # for annotations only
    from runtime.gradients.backprop import Record
    from runtime.graph import Graph, Node

# graph -> (node count, residual tensors)
_cache: weakref.WeakKeyDictionary[Graph, tuple[int, tuple[SymbolicTensor, ...]]] = \
    weakref.WeakKeyDictionary()


def unrecomputable(op: OpDef) -> bool:
    """True for ops whose second run would not give the forward value (see module doc)."""
    return "unrepeatable" in op.traits


def graph_residuals(graph: Graph) -> tuple[SymbolicTensor, ...]:
    """The residual tensors of `graph`'s own nodes, in node order (exposing the call, If and
    While nodes that have residuals)."""
    size = len(graph.nodes)
    cached = _cache.get(graph)
    if cached is not None and cached[0] == size:
        return cached[1]
    found: list[SymbolicTensor] = []
    for node in graph.nodes:
        if "placeholder" in node.op.traits:
            continue
        if unrecomputable(node.op):
            found.extend(node.outputs)
            continue
        kept = expose(node)
        if kept:  # a call or an If is replayed from its residuals; a While is not re-run
            found.extend(node.outputs if "loop" in node.op.traits else kept)
    result = tuple(found)
    _cache[graph] = (size, result)
    return result


def exposed(node: Node | Record) -> tuple[Tensor, ...]:
    """The residual outputs a node was given by `expose` (empty when it has none)."""
    count = node.attrs.get("n_outputs") if isinstance(node.attrs, dict) else None
    return tuple(node.outputs[count:]) if count is not None else ()


@overload
def expose(node: Node) -> tuple[SymbolicTensor, ...]:
    ...


@overload
def expose(node: Node | Record) -> tuple[Tensor, ...]:
    ...


def expose(node: Node | Record) -> tuple[Tensor, ...]:
    """Makes a call, If or While node output the residuals of its sub-graphs; returns the
    added outputs (empty when the node has no residuals, or is of another kind)."""
    attrs = node.attrs
    if not isinstance(attrs, dict):
        return ()
    if "n_outputs" in attrs or getattr(node, "graph", None) is None:  # done, or eager
        return exposed(node)
    node = cast("Node", node)  # a graph's node
    op = node.op
    if "calls_function" in op.traits:
        inner = graph_residuals(attrs["f"].graph)
        if not inner:
            return ()
        attrs["residuals"] = inner
        specs = [(t.dtype, t._shape) for t in inner]
    elif "loop" in op.traits:
        inner = graph_residuals(attrs["body"].graph)
        if not inner and not graph_residuals(attrs["cond"].graph):
            return ()
        attrs["residuals"] = inner
        specs = [(dtypes.resource, ())]  # the list of each iteration's residuals
    elif "conditional" in op.traits:
        then_r = graph_residuals(attrs["then"].graph)
        else_r = graph_residuals(attrs["else"].graph)
        if not then_r and not else_r:
            return ()
        attrs["residuals"] = (then_r, else_r)
        specs = [(t.dtype, t._shape) for t in then_r + else_r]
    else:
        return ()
    attrs["n_outputs"] = len(node.outputs)
    start = len(node.outputs)
    node.outputs.extend(SymbolicTensor(node.graph, node, start + i, d, s)
                        for i, (d, s) in enumerate(specs))
    return exposed(node)


def unbox(value: Any) -> Any:
    """The list of a While's residuals (boxed by control_flow_ops.box_list)."""
    return value[()] if isinstance(value, np.ndarray) else value
