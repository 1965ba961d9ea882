"""`Model.summary()`: Keras's table of layers, drawn with box characters.

A model whose layers form one chain (a Sequential, a functional chain, a subclassed
model) gets three columns: layer (type), output shape, parameter count; any other
functional model gets a fourth, "Connected to", naming the inputs of each layer call as
`layer[call][output]` (`dense[0][0]`).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from typing import Any

import numpy as np

from autograph.tf.keras._symbolic import shape_text

# (header, Keras's default line length, the columns' right edges as fractions of it)
_CHAIN = (("Layer (type)", "Output Shape", "Param #"), 88, (0.45, 0.80, 1.0))
_GRAPH = (("Layer (type)", "Output Shape", "Param #", "Connected to"), 108,
          (0.30, 0.56, 0.74, 1.0))
_RIGHT_ALIGNED = 2  # the parameter counts


def _line_length(default: int) -> int:
    """Keras's: its default, narrowed to a console 4 columns narrower than the terminal
    (80 columns when the output is not a terminal, or $COLUMNS)."""
    return min(default, shutil.get_terminal_size().columns - 4)


def _column_widths(line_length: int, positions: Sequence[float]) -> list[int]:
    """Each column's width with its padding, without the borders, as Keras's rich table
    draws it: Keras asks for widths summing to `line_length` and a table `line_length`
    wide, and rich takes the borders' width back from the columns as evenly as it can
    (its ratio_reduce, rounding halves to even as Python's round does)."""
    widths, edge = [], 0
    for position in positions:
        width = int(position * line_length) - edge
        if width < 4:
            raise ValueError("Insufficient console width to print summary.")
        widths.append(width)
        edge += width
    excess = sum(widths) - (line_length - (len(widths) + 1))
    reduced, remaining, shares = [], excess, len(widths)
    for width in widths:
        taken = min(width, round(remaining / shares)) if excess > 0 else 0
        reduced.append(width - taken)
        remaining -= taken
        shares -= 1
    return reduced


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = word if not current else current + " " + word
    return lines + [current]


def _count(weights: Sequence[Any]) -> int:
    return int(sum(np.prod(w.shape.as_list(), dtype=np.int64) for w in weights))


def _readable_size(count: int, dtype_bytes: int = 4) -> str:
    size = float(count * dtype_bytes)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return "%.2f %s" % (size, unit)
        size /= 1024
    raise AssertionError("unreachable")


def _is_chain(model: Any) -> bool:
    nodes = getattr(model, "_nodes", None)
    if nodes is None:
        return True
    if len(model.inputs) != 1 or len(model.outputs) != 1:
        return False
    consumers: dict[int, int] = {}
    for node in nodes:
        if len(node.input_tensors) > 1 or len(node.output_tensors) > 1:
            return False
        for tensor in node.input_tensors:
            consumers[id(tensor)] = consumers.get(id(tensor), 0) + 1
    layers = [node.layer for node in nodes]
    return max(consumers.values(), default=0) <= 1 and len({id(x) for x in layers}) == len(
        layers)


def _output_shape_text(layer: Any, nodes: list[Any]) -> str:
    mine = [node for node in nodes if node.layer is layer]
    if not mine:
        return shape_text(getattr(layer, "_summary_shape", None))
    shapes = [shape_text(t.shape) for t in mine[0].output_tensors]
    return shapes[0] if len(shapes) == 1 else "[" + ", ".join(shapes) + "]"


def _connections(layer: Any, nodes: list[Any]) -> str:
    names = []
    for node in nodes:
        if node.layer is not layer:
            continue
        for tensor in node.input_tensors:
            source = tensor.node
            names.append("%s[%d][%d]" % (source.layer.name, source.index_in_layer,
                                         tensor.index))
    return ", ".join(names) if names else "-"


def summary_lines(model: Any, line_length: int | None = None,
                  positions: Sequence[float] | None = None) -> list[str]:
    """The lines of `model`'s summary table and parameter counts."""
    chain = _is_chain(model)
    header, default_width, default_positions = _CHAIN if chain else _GRAPH
    columns = _column_widths(line_length or _line_length(default_width),
                             positions or default_positions)

    def row(cells: Sequence[str], left: str, middle: str, right: str) -> list[str]:
        # a cell too long for its column wraps at spaces onto further lines
        wrapped = [_wrap(cell, size - 2) for cell, size in zip(cells, columns)]
        lines = []
        for n in range(max(len(w) for w in wrapped)):
            texts = []
            for i, (parts, size) in enumerate(zip(wrapped, columns)):
                text = parts[n] if n < len(parts) else ""
                texts.append((" " + text).rjust(size - 1) + " " if i == _RIGHT_ALIGNED
                             else (" " + text).ljust(size))
            lines.append(left + middle.join(texts) + right)
        return lines

    def rule(left: str, fill: str, middle: str, right: str) -> str:
        return left + middle.join(fill * size for size in columns) + right

    nodes = list(getattr(model, "_nodes", []))
    lines = ['Model: "%s"' % model.name, rule("┏", "━", "┳", "┓"),
             *row(header, "┃", "┃", "┃"), rule("┡", "━", "╇", "┩")]
    layers = model.layers
    for i, layer in enumerate(layers):
        params = "{:,}".format(_count(layer.weights)) if layer.built else "0 (unbuilt)"
        cells = ["%s (%s)" % (layer.name, type(layer).__name__),
                 _output_shape_text(layer, nodes), params]
        if not chain:
            cells.append(_connections(layer, nodes))
        lines.extend(row(cells, "│", "│", "│"))
        if i < len(layers) - 1:
            lines.append(rule("├", "─", "┼", "┤"))
    lines.append(rule("└", "─", "┴", "┘"))
    total = _count(model.weights)
    trainable = _count(model.trainable_weights)
    for label, count in (("Total", total), ("Trainable", trainable),
                         ("Non-trainable", total - trainable)):
        lines.append(" %s params: {:,} (%s)".format(count) % (label, _readable_size(count)))
    return lines
