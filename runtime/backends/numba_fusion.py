"""Fused elementwise loops for the numba backend.

A run of consecutive `elementwise` ops on arrays of one static shape (their other inputs
rank-0) is written as one loop over the elements, each op's own lowering rule running on
scalars, instead of one array temporary per op:

    f0 = in0.reshape(16)
    o1 = np.empty((16, ), np.float32)
    g1 = o1.reshape(16)
    for i2 in range(16):
        e3 = fit(f0[i2] * np.float32(2.0), np.float32)
        e4 = fit(xp.tanh(e3), np.float32)
        g1[i2] = e4

Only the values used after the run (or returned) are stored in arrays. A run whose rules
decline on scalars is written unfused.
"""

from __future__ import annotations

import math
from typing import Any

from runtime import executor
from runtime.backends.lowering import Uses
from runtime.lowering_api import Unsupported, Value, rule_for

_KINDS = ("int", "float", "bool")
MIN_RUN = 2  # a single op gains nothing from a loop of its own (unless its rule is a
# `lowering_api.loop_alone` template, whose array form makes a temporary array)


def _fusible_shape(node: Any, inputs: list[Any]) -> tuple[int, ...] | None:
    """The static shape the node computes elementwise over, or None when it cannot join a
    fused loop."""
    if "elementwise" not in node.op.traits or len(node.outputs) != 1:
        return None
    out = node.outputs[0]
    shape = out._shape
    if shape is None or None in shape or len(shape) == 0 or math.prod(shape) < 2:
        return None
    if out.dtype.kind not in _KINDS:
        return None
    for t in inputs:
        if t._shape != () and tuple(t._shape or (None,)) != tuple(shape):
            return None
        if t.dtype.kind not in _KINDS:
            return None
    return tuple(shape)


def lower_nodes(lowerer: Any, simplified: executor.Simplified, names: dict[int, Value],
                uses: Uses) -> None:
    """Writes the nodes, fusing runs of elementwise ops (see the module docstring); `uses`
    tells which values are used after a run."""
    nodes = simplified.nodes
    last_use = uses.last
    index = 0
    while index < len(nodes):
        shape = _fusible_shape(*nodes[index])
        end = index + 1
        if shape is not None:
            while end < len(nodes) and _fusible_shape(*nodes[end]) == shape:
                end += 1
        if shape is not None and (end - index >= MIN_RUN or _loop_alone(
                lowerer, nodes[index][0])) and _fuse(
                lowerer, nodes[index:end], shape, names, simplified, last_use, end - 1):
            index = end
            continue
        for node, inputs in nodes[index:end]:
            ins = [lowerer.value_of(t, names, simplified) for t in inputs]
            lowerer.lower_node(node, ins, names)
        index = end


def _loop_alone(lowerer: Any, node: Any) -> bool:
    """Whether the node's rule asks for a loop even alone (`lowering_api.loop_alone`)."""
    return getattr(rule_for(node.op, lowerer.name), "fused_alone", False)


def _fuse(lowerer: Any, run: list[tuple[Any, list[Any]]], shape: tuple[int, ...],
          names: dict[int, Value], simplified: executor.Simplified,
          last_use: dict[int, float], last: int) -> bool:
    """Writes `run` as one loop; False (nothing written) when a rule declines on scalars."""
    saved = (len(lowerer.lines), dict(lowerer.line_nodes), len(lowerer.checks))
    size = math.prod(shape)
    produced = {id(node.outputs[0]) for node, _ in run}
    try:
        flat: dict[int, str] = {}
        for node, inputs in run:
            for t in inputs:
                if id(t) in produced or id(t) in flat or t._shape == ():
                    continue
                value = lowerer.value_of(t, names, simplified)
                flat[id(t)] = lowerer.fresh("f")
                lowerer.line("%s = %s.reshape(%d)" % (flat[id(t)], value, size))
        stored: dict[int, tuple[Value, str]] = {}
        for node, _ in run:
            out = node.outputs[0]
            if last_use.get(id(out), -1) > last:
                array, view = lowerer.fresh("o"), lowerer.fresh("g")
                lowerer.line("%s = np.empty(%s, np.%s)" % (
                    array, lowerer.literal(shape), out.dtype.np_dtype.name.replace(
                        "bool", "bool_")))
                lowerer.line("%s = %s.reshape(%d)" % (view, array, size))
                stored[id(out)] = (Value(array, out.dtype, shape), view)
        i = lowerer.fresh("i")
        lowerer.line("for %s in range(%d):" % (i, size))
        scalars: dict[int, Value] = {}
        with lowerer.block():
            for node, inputs in run:
                ins = []
                for t in inputs:
                    if id(t) in scalars:
                        ins.append(scalars[id(t)])
                    elif id(t) in flat:
                        ins.append(Value("%s[%s]" % (flat[id(t)], i), t.dtype, ()))
                    else:
                        ins.append(lowerer.value_of(t, names, simplified))
                out = node.outputs[0]
                result = Value(lowerer.fresh("e"), out.dtype, ())
                _lower_scalar(lowerer, node, ins, result)
                scalars[id(out)] = result
                if id(out) in stored:
                    lowerer.line("%s[%s] = %s" % (stored[id(out)][1], i, result))
    except Unsupported:
        lines, line_nodes, checks = saved
        del lowerer.lines[lines:]
        lowerer.line_nodes = line_nodes
        del lowerer.checks[checks:]
        return False
    for key, (array, _) in stored.items():
        names[key] = array
    return True


def _lower_scalar(lowerer: Any, node: Any, ins: list[Value], out: Value) -> None:
    """The node's own rule, on scalar inputs and output."""
    outer = lowerer.node
    lowerer.node = node
    try:
        rule = rule_for(node.op, lowerer.name)
        if rule is None:
            raise Unsupported("no rule")
        if isinstance(rule, str):
            attrs = {k: _Literal(lowerer, v) for k, v in node.attrs.items()}
            lowerer.assign(out, rule.format(*ins, **attrs))
        else:
            rule(lowerer, node, ins, [out])
    finally:
        lowerer.node = outer


class _Literal:
    __slots__ = ("lowerer", "value")

    def __init__(self, lowerer: Any, value: Any) -> None:
        self.lowerer = lowerer
        self.value = value

    def __format__(self, spec: str) -> str:
        return self.lowerer.literal(self.value)
