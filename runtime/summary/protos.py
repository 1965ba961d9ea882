"""The protocol-buffer messages of a TensorBoard event file, encoded by hand (field numbers
from TensorFlow's event.proto, summary.proto, tensor.proto, tensor_shape.proto, graph.proto,
node_def.proto and attr_value.proto): `Event`, `Summary` with its values, `SummaryMetadata`
with the plugin that reads a value, `TensorProto`, and `GraphDef` for a traced graph.

Fields are written in number order and proto3 defaults are left out, as TensorFlow's
serializer does; TensorBoard's own reader parses the result.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from runtime import dtypes
from runtime.checkpoint.bundle import dtype_enum
from runtime.io import protowire as w

# SummaryMetadata.data_class (summary.proto)
DATA_CLASS_SCALAR, DATA_CLASS_TENSOR, DATA_CLASS_BLOB_SEQUENCE = 1, 2, 3
FILE_VERSION = "brain.Event:2"


def event(wall_time: float, step: int = 0, *, file_version: str = "", graph_def: bytes = b"",
          summary: bytes = b"") -> bytes:
    """An `Event`: its time (seconds since the epoch), step and one of a file version, a
    serialized GraphDef or a serialized Summary."""
    out = w.field_double(1, wall_time)
    if step:
        out += w.field_varint(2, step)
    if file_version:
        out += w.field_bytes(3, file_version)
    if graph_def:
        out += w.field_bytes(4, graph_def)
    if summary:
        out += w.field_bytes(5, summary)
    return out


def summary_value(tag: str, tensor: bytes, plugin_name: str, data_class: int,
                  description: str = "") -> bytes:
    """A `Summary` holding one value: `tensor` (a serialized TensorProto) under `tag`, read
    by TensorBoard's plugin `plugin_name` (its plugin data at version 0, which serializes
    empty)."""
    plugin_data = w.field_bytes(1, plugin_name)
    metadata = w.field_bytes(1, plugin_data)
    if description:
        metadata += w.field_bytes(3, description)
    metadata += w.field_varint(4, data_class)
    value = w.field_bytes(1, tag) + w.field_bytes(8, tensor) + w.field_bytes(9, metadata)
    return w.field_bytes(1, value)


def tensor_shape(dims: Iterable[int | None] | None) -> bytes:
    """A `TensorShapeProto`: one `dim` per dimension (size -1 when unknown), or unknown
    rank for None."""
    if dims is None:
        return w.field_varint(3, 1)
    return b"".join(w.field_bytes(2, w.field_varint(1, -1 if d is None else d) if d != 0
                                  else b"") for d in dims)


def tensor(array: Any, dtype: dtypes.DType) -> bytes:
    """A `TensorProto` of numpy `array` of `dtype`: numbers as little-endian
    `tensor_content`, strings one `string_val` each."""
    array = np.asarray(array)
    out = w.field_varint(1, dtype_enum(dtype.name)) + w.field_bytes(2, tensor_shape(array.shape))
    if dtype is dtypes.string:
        for item in array.reshape(-1):
            out += w.field_bytes(8, item if isinstance(item, bytes) else str(item).encode())
    elif array.size:
        out += w.field_bytes(4, array.astype(array.dtype.newbyteorder("<")).tobytes())
    return out


# -- GraphDef ----------------------------------------------------------------------------------
def _attr_value(key: str, value: Any) -> bytes | None:
    """An `AttrValue` for an attribute value, or None for one GraphDef cannot hold (a
    sub-graph, a Python function): TensorBoard only shows attributes."""
    if key == "shape" and (value is None or isinstance(value, tuple)):
        return w.field_bytes(7, tensor_shape(value))
    if isinstance(value, dtypes.DType):
        try:
            return w.field_varint(6, dtype_enum(value.name))
        except TypeError:
            return None
    if isinstance(value, (bool, np.bool_)):
        return w.field_varint(5, bool(value))
    if isinstance(value, (int, np.integer)):
        return w.field_varint(3, int(value))
    if isinstance(value, (float, np.floating)):
        return w.field_fixed32(4, int(np.float32(value).view(np.uint32)))
    if isinstance(value, (str, bytes)):
        return w.field_bytes(2, value)
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf" and value.size <= 1024:
        dtype = dtypes.as_dtype(value.dtype)
        return w.field_bytes(8, tensor(value, dtype))
    if isinstance(value, (tuple, list)) and all(isinstance(v, (int, np.integer))
                                                and not isinstance(v, bool) for v in value):
        packed = b"".join(w.varint(int(v)) for v in value)
        return w.field_bytes(1, w.field_bytes(3, packed) if packed else b"")
    return None


def _output_shapes(shapes: list[tuple[int | None, ...] | None]) -> bytes:
    """The `_output_shapes` attribute TensorBoard draws on edges: a list of shapes."""
    return w.field_bytes(1, b"".join(w.field_bytes(7, tensor_shape(s)) for s in shapes))


def node_def(name: str, op: str, inputs: Iterable[str], attrs: Mapping[str, Any],
             output_shapes: list[tuple[int | None, ...] | None], device: str = "") -> bytes:
    """A `NodeDef`: name, op type, input names, device and the attributes GraphDef can
    hold (in name order, as TensorFlow writes its attribute map)."""
    out = w.field_bytes(1, name) + w.field_bytes(2, op)
    for input_name in inputs:
        out += w.field_bytes(3, input_name)
    if device:
        out += w.field_bytes(4, device)
    encoded = {k: _attr_value(k, v) for k, v in attrs.items()}
    if output_shapes:
        encoded["_output_shapes"] = _output_shapes(output_shapes)
    for key in sorted(encoded):
        value = encoded[key]
        if value is not None:
            out += w.field_bytes(5, w.field_bytes(1, key) + w.field_bytes(2, value))
    return out


def graph_def(nodes: Iterable[bytes], producer: int = 1) -> bytes:
    """A `GraphDef` of serialized `NodeDef`s, with its `versions`."""
    return b"".join(w.field_bytes(1, n) for n in nodes) + w.field_bytes(
        4, w.field_varint(1, producer))
