"""The protocol-buffer messages of a checkpoint, as small dataclasses with `encode()` and
`decode()` (field numbers from TensorFlow's tensor_bundle.proto, tensor_shape.proto,
versions.proto and trackable_object_graph.proto). Encoding writes what TensorFlow's
serializer writes: fields in number order, proto3 defaults left out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runtime.io import protowire as w


def _shape_encode(dims: tuple[int, ...]) -> bytes:
    return b"".join(w.field_bytes(2, w.field_varint(1, d) if d else b"") for d in dims)


def _shape_decode(data: bytes) -> tuple[int, ...]:
    fields = w.Fields.parse(data, "TensorShapeProto")
    if fields.varint(3):
        raise w.WireFormatError("TensorShapeProto: unknown rank in a stored tensor")
    return tuple(w.Fields.parse(dim, "TensorShapeProto.Dim").int64(1)
                 for dim in fields.repeated_data(2))


@dataclass
class BundleHeader:
    """BundleHeaderProto: the index's first entry (key '')."""

    num_shards: int = 1
    endianness: int = 0  # 0 little, 1 big
    producer: int = 1
    min_consumer: int = 0
    bad_consumers: list[int] = field(default_factory=list)

    def encode(self) -> bytes:
        """The message's bytes."""
        version = b""
        if self.producer:
            version += w.field_varint(1, self.producer)
        if self.min_consumer:
            version += w.field_varint(2, self.min_consumer)
        out = w.field_varint(1, self.num_shards) if self.num_shards else b""
        if self.endianness:
            out += w.field_varint(2, self.endianness)
        return out + w.field_bytes(3, version)

    @classmethod
    def decode(cls, data: bytes) -> BundleHeader:
        """The message in `data`."""
        fields = w.Fields.parse(data, "BundleHeaderProto")
        version = w.Fields.parse(fields.data(3), "VersionDef")
        return cls(fields.int64(1), fields.varint(2), version.int64(1), version.int64(2),
                   [w.signed(v) for v in version.repeated_varint(3)])


@dataclass
class BundleEntry:
    """BundleEntryProto: where one tensor's bytes lie, and their dtype, shape and CRC."""

    dtype: int
    shape: tuple[int, ...]
    shard_id: int = 0
    offset: int = 0
    size: int = 0
    crc32c: int = 0  # masked
    sliced: bool = False

    def encode(self) -> bytes:
        """The message's bytes."""
        out = w.field_varint(1, self.dtype) + w.field_bytes(2, _shape_encode(self.shape))
        for number, value in ((3, self.shard_id), (4, self.offset), (5, self.size)):
            if value:
                out += w.field_varint(number, value)
        return out + w.field_fixed32(6, self.crc32c)

    @classmethod
    def decode(cls, data: bytes) -> BundleEntry:
        """The message in `data`."""
        fields = w.Fields.parse(data, "BundleEntryProto")
        return cls(fields.varint(1), _shape_decode(fields.data(2)), fields.int64(3),
                   fields.int64(4), fields.int64(5), fields.fixed32(6), fields.has(7))


@dataclass
class SerializedTensor:
    """TrackableObject.SerializedTensor: one saved value of an object."""

    name: str
    full_name: str
    checkpoint_key: str
    optional_restore: bool = False


@dataclass
class TrackableNode:
    """TrackableObjectGraph.TrackableObject: an object's named children and saved values."""

    children: list[tuple[int, str]] = field(default_factory=list)  # (node id, local name)
    attributes: list[SerializedTensor] = field(default_factory=list)
    has_checkpoint_values: bool | None = None


def encode_object_graph(nodes: list[TrackableNode]) -> bytes:
    """A TrackableObjectGraph's bytes."""
    out = bytearray()
    for node in nodes:
        body = bytearray()
        for node_id, name in node.children:
            body += w.field_bytes(1, (w.field_varint(1, node_id) if node_id else b"")
                                  + w.field_bytes(2, name))
        for attribute in node.attributes:
            message = (w.field_bytes(1, attribute.name) + w.field_bytes(2, attribute.full_name)
                       + w.field_bytes(3, attribute.checkpoint_key))
            if attribute.optional_restore:
                message += w.field_varint(4, 1)
            body += w.field_bytes(2, message)
        if node.has_checkpoint_values is not None:
            body += w.field_bytes(5, w.field_varint(1, 1) if node.has_checkpoint_values
                                  else b"")
        out += w.field_bytes(1, bytes(body))
    return bytes(out)


def decode_object_graph(data: bytes) -> list[TrackableNode]:
    """The nodes of the TrackableObjectGraph in `data`; child ids are checked to be nodes."""
    nodes = []
    for raw in w.Fields.parse(data, "TrackableObjectGraph").repeated_data(1):
        fields = w.Fields.parse(raw, "TrackableObject")
        node = TrackableNode()
        for child in fields.repeated_data(1):
            reference = w.Fields.parse(child, "ObjectReference")
            node.children.append((reference.int64(1), reference.string(2)))
        for attribute in fields.repeated_data(2):
            tensor = w.Fields.parse(attribute, "SerializedTensor")
            node.attributes.append(SerializedTensor(tensor.string(1), tensor.string(2),
                                                    tensor.string(3), bool(tensor.varint(4))))
        if fields.has(5):
            node.has_checkpoint_values = bool(
                w.Fields.parse(fields.data(5), "BoolValue").varint(1))
        nodes.append(node)
    for node in nodes:
        for node_id, name in node.children:
            if not 0 <= node_id < len(nodes):
                raise w.WireFormatError("TrackableObjectGraph: child %r refers to node %d of "
                                        "%d" % (name, node_id, len(nodes)))
    return nodes
