"""When the numba backend may write TensorArrays in place (see
runtime/tensor_array/numba_lowerings.py): each version of an array is used linearly.

A TensorArray is immutable: a write gives a new version and the old one still holds its old
elements. The numba backend keeps one buffer per array and writes it in place, which agrees
only where no version is used after a newer one was made from it. Before a graph is lowered,
`require_linear` checks, for each handle (a `variant` tensor) it uses:

  * at most one of its uses may write it or hand it on (an op whose numba rule does not
    declare `tensor_array_use = "read"`: a write, an If or While taking it, the graph's
    output), and its reads come before that one;
  * a handle fed into a sub-graph (a placeholder) is written only along a chain of writes
    ending at the output in its own position: a While body carrying its loop variable on.
    A handle a loop body captured, or one its condition writes, is declined, as is a
    placeholder handed to another output (two loop variables sharing one buffer).

Anything else raises Unsupported, and the graph runs on the numpy executor.
"""

from __future__ import annotations

import math
from typing import Any

from runtime import executor
from runtime.lowering_api import Unsupported, rule_for

_READ = "read"
_OUTPUT = "output"


def _is_handle(t: Any) -> bool:
    return t is not None and t.dtype.name == "variant"


def require_linear(graph: Any, simplified: executor.Simplified, outputs: list[Any]) -> None:
    """Raises Unsupported unless every TensorArray handle of `graph` is used linearly (see
    the module docstring); `simplified` is the graph as it will be lowered."""
    uses: dict[int, list[tuple[float, str, Any]]] = {}
    tensors: dict[int, Any] = {}
    for index, (node, inputs) in enumerate(simplified.nodes):
        kind = getattr(rule_for(node.op, "numba"), "tensor_array_use", None)
        for t in inputs:
            if _is_handle(t):
                t = simplified.resolve(t)
                tensors[id(t)] = t
                uses.setdefault(id(t), []).append(
                    (index, _READ if kind == _READ else "hand on", node))
    for position, t in enumerate(outputs):
        if _is_handle(t):
            t = simplified.resolve(t)
            tensors[id(t)] = t
            uses.setdefault(id(t), []).append((math.inf, _OUTPUT, position))
    if not uses:
        return
    produced = {id(t): (node, inputs) for node, inputs in simplified.nodes
                for t in node.outputs}
    placeholders = [node.outputs[0] for node in graph.nodes
                    if "placeholder" in node.op.traits]
    for position, t in enumerate(outputs):
        if _is_handle(t):
            _require_from_placeholder(simplified.resolve(t), position, placeholders,
                                      {k: (n, [simplified.resolve(i) for i in ins])
                                       for k, (n, ins) in produced.items()})
    for key, found in uses.items():
        _require_one_writer(found)
        if key in produced or key in simplified.constants:
            continue
        fed_at = next((i for i, ph in enumerate(placeholders) if ph is tensors[key]), None)
        if fed_at is None:
            raise Unsupported("a TensorArray captured from outside the graph")
        _require_carried(key, fed_at, uses, simplified)


def _require_one_writer(found: list[tuple[float, str, Any]]) -> None:
    writers = [use for use in found if use[1] != _READ]
    if len(writers) > 1:
        raise Unsupported("a TensorArray version written or handed on twice")
    if writers and any(use[0] > writers[0][0] for use in found if use[1] == _READ):
        raise Unsupported("a TensorArray version read after it was written")


def _require_carried(key: int, position: int, uses: dict[int, Any],
                     simplified: executor.Simplified) -> None:
    """A placeholder handle is handed on only along writes to the output at `position`."""
    written = False
    while True:
        writers = [use for use in uses.get(key, ()) if use[1] != _READ]
        if not writers:
            if written:
                raise Unsupported("a TensorArray fed to a sub-graph written but not "
                                  "carried on")
            return
        written = True
        _, kind, target = writers[0]
        if kind == _OUTPUT:
            if target != position:
                raise Unsupported("a TensorArray handed to another loop variable")
            return
        rule = rule_for(target.op, "numba")
        if getattr(rule, "tensor_array_use", None) != "write":
            raise Unsupported("a TensorArray fed to a sub-graph and handed on to another op")
        key = id(simplified.resolve(target.outputs[0]))


def _require_from_placeholder(t: Any, position: int, placeholders: list[Any],
                              inputs_of: dict[int, Any]) -> None:
    """A handle output at `position` is the placeholder at `position`, written or not (the
    buffer a loop variable names stays the same from one iteration to the next)."""
    while id(t) in inputs_of:
        node, inputs = inputs_of[id(t)]
        if getattr(rule_for(node.op, "numba"), "tensor_array_use", None) != "write" \
                or not inputs or not _is_handle(inputs[0]):
            break
        t = inputs[0]
    if position >= len(placeholders) or placeholders[position] is not t:
        raise Unsupported("a sub-graph gives a TensorArray that is not its input's")
