"""Fused elementwise loops for the numba backend.

A run of consecutive `elementwise` ops with one static output shape (each input of that
shape, rank-0, or of a static shape that broadcasts to it) is written as one loop over the
elements, each op's own lowering rule running on scalars, instead of one array temporary per
op:

    f0 = np.ascontiguousarray(in0).reshape(16)
    o1 = np.empty((16, ), np.float32)
    g1 = o1.reshape(16)
    for i2 in range(16):
        e3 = fit(f0[i2] * np.float32(2.0), np.float32)
        e4 = fit(xp.tanh(e3), np.float32)
        g1[i2] = e4

Only the values used after the run (or returned) are stored in arrays. A run whose rules
decline on scalars is written unfused.

Where an input broadcasts, the loop is a nest, one level per group of adjacent dimensions
that every input either spans or repeats (a bias added to the rows of a matrix: rows, then
columns), and each input is read at its own flat index:

    for i3 in range(256):
        for i4 in range(128):
            i5 = i3 * 128 + i4
            e6 = fit(f0[i5] + f1[i4], np.float32)

A single op becomes a loop too when it broadcasts or has two or more dimensions: numba
compiles its array expressions into a broadcasting loop nest whose compile time grows
steeply with the rank (on one machine: 0.3 s at rank 2, 1 s at rank 3, 7 s at rank 4 for
one product of two arrays), where the loop written here compiles in about 0.1 s at any rank.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

from runtime import executor
from runtime.backends.lowering import Uses
from runtime.lowering_api import Unsupported, Value, rule_for

_KINDS = ("int", "float", "bool")
MIN_RUN = 2  # a single op on vectors gains nothing from a loop of its own (unless it
# broadcasts, or its rule is a `lowering_api.loop_alone` rule, whose array form makes
# temporary arrays)


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
        if t._shape != () and not _broadcasts_to(t._shape, shape):
            return None
        if t.dtype.kind not in _KINDS:
            return None
    return tuple(shape)


def _broadcasts_to(shape: Any, out: tuple[int, ...]) -> bool:
    """Whether a static `shape` broadcasts to `out` (equal, or repeated along its 1s and the
    leading dimensions it lacks)."""
    if shape is None or None in shape or len(shape) > len(out):
        return False
    return all(d == o or d == 1 for d, o in zip(shape, out[len(out) - len(shape):]))


def _pays_alone(lowerer: Any, node: Any, inputs: list[Any], shape: tuple[int, ...]) -> bool:
    """Whether a single op is worth a loop of its own (see the module docstring)."""
    return len(shape) >= 2 or any(tuple(t._shape) not in ((), shape) for t in inputs) or \
        _loop_alone(lowerer, node)


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
        if shape is not None and (end - index >= MIN_RUN or _pays_alone(
                lowerer, *nodes[index], shape)) and _fuse(
                lowerer, nodes[index:end], shape, names, simplified, last_use, end - 1):
            index = end
            continue
        for node, inputs in nodes[index:end]:
            if _over_run_time_shapes(node, inputs) and _run_time_loop(
                    lowerer, node, inputs, names, simplified):
                continue
            ins = [lowerer.value_of(t, names, simplified) for t in inputs]
            lowerer.lower_node(node, ins, names)
        index = end


def _loop_alone(lowerer: Any, node: Any) -> bool:
    """Whether the node's rule asks for a loop even alone (`lowering_api.loop_alone`)."""
    return getattr(rule_for(node.op, lowerer.name), "fused_alone", False)


def _fuse(lowerer: Any, run: list[tuple[Any, list[Any]]], shape: tuple[int, ...],
          names: dict[int, Value], simplified: executor.Simplified,
          last_use: dict[int, float], last: int) -> bool:
    """Writes `run` as one loop (a nest where an input broadcasts); False (nothing written)
    when a rule declines on scalars."""
    size = math.prod(shape)
    produced = {id(node.outputs[0]) for node, _ in run}
    try:
        with _all_or_nothing(lowerer):
            flat: dict[int, tuple[Any, str]] = {}  # each array input: (it, its flat view)
            for node, inputs in run:
                for t in inputs:
                    if id(t) in produced or id(t) in flat or t._shape == ():
                        continue
                    view = lowerer.fresh("f")
                    # (a transpose's view is not contiguous: copied; a contiguous one is not)
                    lowerer.line("%s = np.ascontiguousarray(%s).reshape(%d)" % (
                        view, lowerer.value_of(t, names, simplified), math.prod(t._shape)))
                    flat[id(t)] = (t, view)
            stored: dict[int, tuple[Value, str]] = {}
            for node, _ in run:
                out = node.outputs[0]
                if last_use.get(id(out), -1) > last:
                    array, view = _output_array(lowerer, out, lowerer.literal(shape), str(size))
                    stored[id(out)] = (Value(array, out.dtype, shape), view)
            i, index = _loop_nest(lowerer, shape, [t for t, _ in flat.values()])
            scalars: dict[int, Value] = {}
            for node, inputs in run:
                ins = []
                for t in inputs:
                    if id(t) in scalars:
                        ins.append(scalars[id(t)])
                    elif id(t) in flat:
                        ins.append(Value("%s[%s]" % (flat[id(t)][1], index[id(t)]), t.dtype, ()))
                    else:
                        ins.append(lowerer.value_of(t, names, simplified))
                out = node.outputs[0]
                result = Value(lowerer.fresh("e"), out.dtype, ())
                _lower_scalar(lowerer, node, ins, result)
                scalars[id(out)] = result
                if id(out) in stored:
                    lowerer.line("%s[%s] = %s" % (stored[id(out)][1], i, result))
    except Unsupported:
        return False
    for key, (array, _) in stored.items():
        names[key] = array
    return True


@contextlib.contextmanager
def _all_or_nothing(lowerer: Any) -> Iterator[None]:
    """What is written inside stays unless a rule declines (Unsupported, raised again):
    then its lines, their nodes and its checks are taken back. The indentation and the
    current node are restored either way (the loops written inside open levels)."""
    lines, line_nodes, checks = len(lowerer.lines), dict(lowerer.line_nodes), len(lowerer.checks)
    indent, node = lowerer.indent, lowerer.node
    try:
        yield
    except Unsupported:
        del lowerer.lines[lines:]
        lowerer.line_nodes = line_nodes
        del lowerer.checks[checks:]
        raise
    finally:
        lowerer.indent, lowerer.node = indent, node


def _output_array(lowerer: Any, out: Any, dims: str, size: str) -> tuple[str, str]:
    """Writes an empty array for graph tensor `out` (`dims`: the source of its shape) and a
    flat view of its `size` elements; returns their names."""
    array, view = lowerer.fresh("o"), lowerer.fresh("g")
    lowerer.line("%s = np.empty(%s, %s)" % (array, dims, lowerer.literal(out.dtype)))
    lowerer.line("%s = %s.reshape(%s)" % (view, array, size))
    return array, view


def _open_loops(lowerer: Any, extents: list[Any]) -> list[str]:
    """Opens one loop per extent, outermost first (the caller restores the indentation);
    returns their variables."""
    variables = []
    for extent in extents:
        variables.append(lowerer.fresh("i"))
        lowerer.line("for %s in range(%s):" % (variables[-1], extent))
        lowerer.indent += 1
    return variables


def _loop_nest(lowerer: Any, shape: tuple[int, ...], read: list[Any]
               ) -> tuple[str, dict[int, str]]:
    """Opens the loops over the elements of static `shape` (the caller restores the
    indentation): one loop when every input in `read` has that shape, else one per group of adjacent
    dimensions along which each input is either spanned or repeated. Returns the flat
    index of the output and, by id, each input's flat index (an expression)."""
    rank = len(shape)
    padded = [(1,) * (rank - len(t._shape)) + tuple(t._shape) for t in read]
    groups: list[list[Any]] = []  # [size, (repeated along it, for each input)]
    for d, extent in enumerate(shape):
        if extent == 1:
            continue
        repeated = tuple(p[d] == 1 for p in padded)
        if groups and groups[-1][1] == repeated:
            groups[-1][0] *= extent
        else:
            groups.append([extent, repeated])
    variables = _open_loops(lowerer, [extent for extent, _ in groups])

    def flat_index(spanned: list[bool]) -> str:
        terms, stride = [], 1
        for (extent, _), variable, spans in reversed(list(zip(groups, variables, spanned))):
            if spans:
                terms.append(variable if stride == 1 else "%s * %d" % (variable, stride))
                stride *= extent
        return " + ".join(reversed(terms)) or "0"

    i = variables[0] if len(variables) == 1 else lowerer.fresh("i")
    if len(variables) > 1:
        lowerer.line("%s = %s" % (i, flat_index([True] * len(groups))))
    index = {}
    for k, t in enumerate(read):
        spanned = [not repeated[k] for _, repeated in groups]
        index[id(t)] = i if all(spanned) else flat_index(spanned)
    return i, index


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


def _over_run_time_shapes(node: Any, inputs: list[Any]) -> bool:
    """Whether the node is an elementwise op over shapes known only at run time (its
    output's or an input's) for which a loop of its own pays: rank 2 or more, or two array
    inputs, whose broadcast may fail (the loop checks it as the executor does)."""
    if "elementwise" not in node.op.traits or len(node.outputs) != 1:
        return False
    out = node.outputs[0]
    shape = out._shape
    if shape is None or out.dtype.kind not in _KINDS:
        return False
    arrays, known = 0, None not in shape
    for t in inputs:
        if t._shape is None or len(t._shape) > len(shape) or t.dtype.kind not in _KINDS:
            return False
        arrays += len(t._shape) > 0
        known = known and None not in t._shape
    return not known and (len(shape) >= 2 or arrays >= 2)


def _run_time_loop(lowerer: Any, node: Any, inputs: list[Any], names: dict[int, Value],
                   simplified: executor.Simplified) -> bool:
    """Writes one elementwise node over shapes known only at run time as a loop nest, one
    level per output dimension, each input read at its own flat index (a stride of 0 along
    a dimension it repeats); the broadcast is checked first, failing with numpy's message
    as the executor's kernel does. False (nothing written) when the rule declines on
    scalars, or checks an operand before the broadcast (`lowering_api.
    checked_before_broadcast`: the array rule keeps the kernel's order of errors)."""
    if getattr(rule_for(node.op, lowerer.name), "checks_before_broadcast", False):
        return False
    out = node.outputs[0]
    rank = len(out._shape)
    try:
        with _all_or_nothing(lowerer):
            lowerer.node = node
            views: dict[int, tuple[str, list[str]]] = {}  # id -> (flat view, padded dims)
            copies: dict[int, Value] = {}  # id -> the contiguous copy the check measures
            for t in inputs:
                if t._shape == () or id(t) in views:
                    continue
                array, flat = lowerer.fresh("c"), lowerer.fresh("f")
                lowerer.line("%s = np.ascontiguousarray(%s)" % (
                    array, lowerer.value_of(t, names, simplified)))
                lowerer.line("%s = %s.reshape(%s.size)" % (flat, array, array))
                views[id(t)] = (flat, ["1"] * (rank - len(t._shape)) + [
                    "%s.shape[%d]" % (array, k) if d is None else str(d)
                    for k, d in enumerate(t._shape)])
                copies[id(t)] = Value(array, t.dtype, t._shape)
            # (numpy's message names every operand, a scalar as `()`)
            lowerer.check_broadcast(*[copies.get(id(t), Value("", t.dtype, ())) for t in inputs])
            extents = _broadcast_extents(lowerer, views, rank)
            strides: dict[int, list[str]] = {}
            for key, (_, dims) in views.items():
                strides[key] = []
                for d in range(rank):
                    if dims[d] == "1":
                        strides[key].append("0")
                        continue
                    stride = lowerer.fresh("s")
                    lowerer.line("%s = 0 if %s == 1 else %s" % (
                        stride, dims[d], " * ".join(x for x in dims[d + 1:] if x != "1") or "1"))
                    strides[key].append(stride)
            result_array, result_flat = _output_array(
                lowerer, out, "(%s, )" % ", ".join(extents), " * ".join(extents))
            variables = _open_loops(lowerer, extents)
            index = variables[0]
            for variable, extent in zip(variables[1:], extents[1:]):
                index = "(%s) * %s + %s" % (index, extent, variable)
            ins = []
            for t in inputs:
                if t._shape == ():
                    ins.append(lowerer.value_of(t, names, simplified))
                    continue
                flat, _ = views[id(t)]
                terms = ["%s * %s" % (v, s) for v, s in zip(variables, strides[id(t)])
                         if s != "0"]
                ins.append(Value("%s[%s]" % (flat, " + ".join(terms) or "0"), t.dtype, ()))
            result = Value(lowerer.fresh("e"), out.dtype, ())
            _lower_scalar(lowerer, node, ins, result)
            lowerer.line("%s[%s] = %s" % (result_flat, index, result))
    except Unsupported:
        return False
    names[id(out)] = Value(result_array, out.dtype, out._shape)
    return True


def _broadcast_extents(lowerer: Any, views: dict[int, tuple[str, list[str]]],
                       rank: int) -> list[str]:
    """Writes the output's extent along each dimension (the inputs' that is not 1, else 1),
    once their broadcast is checked; returns the extents' names."""
    extents = []
    for d in range(rank):
        extent = lowerer.fresh("n")
        spans = [dims[d] for _, dims in views.values() if dims[d] != "1"]
        lowerer.line("%s = %s" % (extent, spans[0] if spans else "1"))
        for other in spans[1:]:
            lowerer.line("%s = %s if %s == 1 else %s" % (extent, other, extent, extent))
        extents.append(extent)
    return extents
