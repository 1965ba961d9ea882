"""A graph as a Graphviz DOT picture (`Graph.to_dot()`).

    digraph "f(x)" {
      n1 [label="x\\nPlaceholder\\nfloat32[None,3]", shape=invhouse, ...];     an input
      n2 [label="AddV2\\nfloat32[None,3]", tooltip="add  (model.py:12 in f)", ...];
      subgraph cluster_n3 {                      a While op: its box and its sub-graphs
        label="StatelessWhile  (model.py:14)"; n3 [...];
        subgraph cluster_n3_cond { ... }  subgraph cluster_n3_body { ... }
      }
      out0 [label="output 0\\nfloat32[None,3]", shape=house, ...];
      n1 -> n2;  n2 -> n3;  n3 -> out0;          every edge at the top level
    }

One box per op: its type, its node name when that says more, the dtype and static shape of
each output, and the user's file:line as the tooltip (what a browser shows on hovering an
SVG). Inputs are blue, captured tensors grey notes, variables yellow cylinders, outputs
green, ops with side effects (prints, variable updates) bold and violet. Each If/While op
is a cluster holding its own box and a cluster per sub-graph, recursively; a sub-graph's
captured outer tensors come in as dashed edges. Every label is escaped, so any name or file
path gives valid DOT.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from runtime import dtypes

_INPUT = 'shape=invhouse, style="filled", fillcolor="#cfe2ff"'
_OUTPUT = 'shape=house, style="filled", fillcolor="#d1f2d1"'
_CAPTURED = 'shape=note, style="filled", fillcolor="#e9e9e9"'
_VARIABLE = 'shape=cylinder, style="filled", fillcolor="#fff3b0"'
_CONSTANT = 'shape=box, style="rounded,filled", fillcolor="#f4f4f4", fontsize=10'
_OP = 'shape=box, style="rounded,filled", fillcolor="white"'
_EFFECT_OP = 'shape=box, style="rounded,filled,bold", fillcolor="#f3e5f5"'
_CONTROL_OP = 'shape=box, style="rounded,filled,bold", fillcolor="#ffe0cc"'
_CLUSTER_STYLES = {0: "#fafafa", 1: "#f0f0ff", 2: "#fff0f0"}


def spec_text(dtype: Any, shape: Any) -> str:
    """A tensor type as `autograph explain --arg` spells it: 'float32[None,3]', 'int32[]'
    ('float32[?]' when even the rank is unknown)."""
    if shape is None:
        return "%s[?]" % dtype.name
    return "%s[%s]" % (dtype.name, ",".join("None" if d is None else str(d) for d in shape))


def quote(text: str) -> str:
    """`text` as a DOT double-quoted string: backslashes and quotes escaped, newlines as
    DOT's centred line breaks (so a name holding `\\l` or `"` cannot change the picture)."""
    escaped = str(text).replace("\\", "\\\\").replace('"', '\\"')
    escaped = escaped.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")
    return '"%s"' % escaped


def to_dot(graph: Any, title: str | None = None) -> str:
    """The DOT text of `graph` (see the module docstring); `title` labels the picture."""
    writer = _Writer()
    writer.lines += ["digraph %s {" % quote(title or graph.name),
                     '  graph [fontname="Helvetica", fontsize=11, compound=true, '
                     'newrank=true, labelloc=t, label=%s];' % quote(title or graph.name),
                     '  node [fontname="Helvetica", fontsize=11];',
                     '  edge [fontname="Helvetica", fontsize=9, color="#555555"];']
    writer.graph(graph, 1, outer_ids={})
    for index, tensor in enumerate(graph.outputs):
        name = "out%d" % index
        writer.lines.append("  %s [label=%s, %s];" % (
            name, quote("output %d\n%s" % (index, spec_text(tensor.dtype, tensor._shape))),
            _OUTPUT))
        writer.edge(tensor, name)
    writer.lines.extend(writer.edges)
    writer.lines.append("}")
    return "\n".join(writer.lines) + "\n"


class _Writer:
    """Writes the nodes of a graph and its sub-graphs, numbering nodes across all of them."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        # Every edge is written at the top level: an edge written inside a cluster would
        # draw both its ends inside that cluster.
        self.edges: list[str] = []
        self.ids: dict[int, str] = {}

    def node_id(self, node: Any) -> str:
        found = self.ids.get(id(node))
        if found is None:
            found = self.ids[id(node)] = "n%d" % (len(self.ids) + 1)
        return found

    def edge(self, tensor: Any, target: str, style: str = "") -> None:
        source = self.node_id(tensor.node)
        attrs = []
        if tensor.index:
            attrs.append("taillabel=%s" % quote(str(tensor.index)))
        if style:
            attrs.append(style)
        self.edges.append("  %s -> %s%s;" % (source, target,
                                              " [%s]" % ", ".join(attrs) if attrs else ""))

    def graph(self, graph: Any, depth: int, outer_ids: dict[int, str],
              fed: dict[int, str] | None = None) -> None:
        """Writes `graph`'s nodes and edges; `outer_ids` maps the ids of outside values that
        its captures stand for to the DOT node drawing them; `fed` maps sub-graph
        placeholders to the role they play (loop variable, branch input)."""
        indent = "  " * depth
        captures = {id(c.placeholder.node): c for c in graph.captures}
        inputs = {id(t.node) for t in graph.inputs}
        # The function's results pass through Identity ops made after the user's code
        # returned: their location is the caller's, not a line of the function.
        results = {id(t.node) for t in graph.outputs if hasattr(t, "node")}
        for node in graph.nodes:
            ident = self.node_id(node)
            subs = node.subgraphs()
            capture = captures.get(id(node))
            if subs:
                self.control_node(node, ident, subs, depth)
            else:
                style, label = self.style(node, capture, id(node) in inputs, fed)
                tooltip = ", tooltip=%s" % quote(node.name) if "placeholder" in \
                    node.op.traits or id(node) in results else self.tooltip(node)
                self.lines.append("%s%s [label=%s, %s%s];" % (
                    indent, ident, quote(label), style, tooltip))
            if capture is not None:
                self.capture_edge(capture, ident, outer_ids)
            for tensor in node.inputs:
                self.edge(tensor, ident)
            for control in node.control_inputs:
                self.edges.append("  %s -> %s [style=dotted, arrowhead=odot];" % (
                    self.node_id(control), ident))

    def capture_edge(self, capture: Any, ident: str, outer_ids: dict[int, str]) -> None:
        """A dashed edge into a sub-graph's capture from what it captures outside."""
        source = outer_ids.get(id(capture.external))
        if source is None and hasattr(capture.external, "node"):
            source = self.ids.get(id(capture.external.node))
        if source is not None:
            self.edges.append("  %s -> %s [style=dashed];" % (source, ident))

    def style(self, node: Any, capture: Any, is_input: bool,
              fed: dict[int, str] | None) -> tuple[str, str]:
        """(DOT attributes, label) of a node that is not control flow."""
        outputs = "\n".join(spec_text(t.dtype, t._shape) for t in node.outputs
                            if t.dtype is not dtypes.resource)
        traits = node.op.traits
        if capture is not None:
            external = capture.external
            if node.outputs and node.outputs[0].dtype is dtypes.resource:
                shape = getattr(external, "_static_shape", None)
                dtype = getattr(external, "dtype", None)
                kind = "variable %s" % getattr(external, "name", node.name)
                detail = spec_text(dtype, shape) if dtype is not None else ""
                return _VARIABLE, "%s\n%s" % (kind, detail)
            if hasattr(external, "node"):  # an outer graph's tensor, fed by a dashed edge
                return _CAPTURED, "captured %s\n%s" % (external.node.name, outputs)
            return _CAPTURED, "captured constant\n%s" % outputs
        if is_input:
            return _INPUT, "%s\nPlaceholder\n%s" % (node.name, outputs)
        if "placeholder" in traits:
            role = (fed or {}).get(id(node), "input")
            return _INPUT, "%s\n%s\n%s" % (node.name, role, outputs)
        if "constant" in traits:
            value = node.attrs.get("value")
            shown = _short_value(value)
            return _CONSTANT, "Const%s\n%s" % (" = " + shown if shown else "", outputs)
        label = node.type
        callee = node.attrs.get("f")
        if callee is not None and hasattr(callee, "name"):
            label += "\n" + str(callee.name)
        elif not node.name.startswith(_snake_prefix(node.op.node_name)):
            label += "\n" + node.name
        style = _EFFECT_OP if node.op.side_effects else _OP
        return style, label + ("\n" + outputs if outputs else "")

    def tooltip(self, node: Any) -> str:
        location = node.location
        if location is None:
            return ", tooltip=%s" % quote(node.name)
        return ", tooltip=%s" % quote("%s  (%s:%d in %s)" % (
            node.name, os.path.basename(location.filename), location.lineno,
            location.function))

    def control_node(self, node: Any, ident: str, subs: list[tuple[str, Any]],
                     depth: int) -> None:
        """An If/While op: a cluster holding the op's own box and one cluster per
        sub-graph (drawn recursively)."""
        indent = "  " * depth
        location = node.location
        where = "" if location is None else "  (%s:%d)" % (
            os.path.basename(location.filename), location.lineno)
        self.lines.append("%ssubgraph cluster_%s {" % (indent, ident))
        self.lines.append('%s  label=%s; style="rounded,filled"; fillcolor="%s"; '
                          'color="#888888";' % (indent, quote(node.type + where),
                                                _CLUSTER_STYLES[depth % 3]))
        outputs = "\n".join(spec_text(t.dtype, t._shape) for t in node.outputs)
        self.lines.append("%s  %s [label=%s, %s%s];" % (
            indent, ident, quote(node.type + ("\n" + outputs if outputs else "")),
            _CONTROL_OP, self.tooltip(node)))
        outer = {id(c.external): self.node_id(c.placeholder.node)
                 for c in node.graph.captures}
        for key, sub in subs:
            role = "loop variable" if key in ("cond", "body") else key + " input"
            fed = {id(p.node): role for p in sub.placeholders}
            self.lines.append("%s  subgraph cluster_%s_%s {" % (indent, ident, key))
            self.lines.append('%s    label=%s; style="rounded,dashed"; color="#aaaaaa";'
                              % (indent, quote(key)))
            self.graph(sub.graph, depth + 2, outer, fed)
            # The sub-graph's results flow into the op's box (dotted), which so sits below
            # its sub-graphs, where its own results leave.
            for tensor in sub.outputs or ():
                self.edge(tensor, ident, 'style=dotted, color="#888888"')
            if not sub.graph.nodes:
                self.lines.append("%s    %s_%s_empty [label=\"(nothing)\", shape=plain, "
                                  "fontsize=9];" % (indent, ident, key))
                self.edges.append("  %s_%s_empty -> %s [style=invis];" % (ident, key, ident))
            self.lines.append("%s  }" % indent)
        self.lines.append("%s}" % indent)


def _snake_prefix(name: str) -> str:
    return name.split("_")[0]


def _short_value(value: Any) -> str:
    """A constant's value when it is small enough to read in a box ('' otherwise)."""
    size = getattr(value, "size", None)
    if size is None or size > 4:
        return ""
    if value.dtype.kind == "f":  # float32's 0.1 is 0.10000000149011612 as a Python float
        text = np.array2string(value, separator=", ", formatter={
            "float_kind": lambda v: np.format_float_positional(v, precision=6, trim="0")})
    elif value.dtype.kind in "SUO":  # strings: shown as Python str literals
        text = repr(_decoded(value.tolist()))
    else:
        text = str(value.tolist())
    return text if len(text) <= 24 else ""


def _decoded(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, list):
        return [_decoded(v) for v in value]
    return value
