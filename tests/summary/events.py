"""Reading event files back without TensorBoard: the events of a log directory as dicts,
parsed with the project's own wire-format reader (for the tests that run without the
`tensorboard` package)."""

import os

import numpy as np

from runtime.io import protowire, tfrecord


def event_files(logdir):
    """The event files in `logdir`, sorted by name."""
    return sorted(os.path.join(logdir, n) for n in os.listdir(logdir)
                  if n.startswith("events.out.tfevents."))


def read_events(path):
    """Each event of the file at `path`: wall_time, step, file_version, graph_def and the
    summary's values (tag, plugin, tensor dtype number, shape and raw fields)."""
    events = []
    for record in tfrecord.read_records(path):
        fields = protowire.Fields.parse(record, "Event")
        event = {"wall_time": fields.double(1), "step": fields.int64(2),
                 "file_version": fields.string(3), "graph_def": fields.data(4), "values": []}
        for value in protowire.Fields.parse(fields.data(5), "Summary").repeated_data(1):
            value = protowire.Fields.parse(value, "Summary.Value")
            metadata = protowire.Fields.parse(value.data(9), "SummaryMetadata")
            plugin = protowire.Fields.parse(metadata.data(1), "PluginData")
            tensor = protowire.Fields.parse(value.data(8), "TensorProto")
            shape = tuple(protowire.Fields.parse(d, "Dim").int64(1) for d in
                          protowire.Fields.parse(tensor.data(2), "Shape").repeated_data(2))
            event["values"].append({
                "tag": value.string(1), "plugin": plugin.string(1),
                "data_class": metadata.varint(4), "dtype": tensor.varint(1), "shape": shape,
                "content": tensor.data(4), "strings": tensor.repeated_data(8)})
        events.append(event)
    return events


def values(logdir, tag):
    """(step, numpy value) of each summary tagged `tag` in `logdir`'s event files."""
    found = []
    for path in event_files(logdir):
        for event in read_events(path):
            for value in event["values"]:
                if value["tag"] == tag:
                    found.append((event["step"], _array(value)))
    return found


_NUMPY = {1: np.float32, 2: np.float64}


def _array(value):
    if value["dtype"] == 7:
        return np.array(value["strings"], dtype=object).reshape(value["shape"])
    return np.frombuffer(value["content"], _NUMPY[value["dtype"]]).reshape(value["shape"])


def decode_png(data):
    """The uint8 array [height, width, channels] of a PNG written with filter 'none' on every
    row (what the summary writer writes), every chunk's CRC checked."""
    import struct
    import zlib
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    position, chunks = 8, {}
    while position < len(data):
        (length,) = struct.unpack(">I", data[position:position + 4])
        kind = data[position + 4:position + 8]
        body = data[position + 8:position + 8 + length]
        (crc,) = struct.unpack(">I", data[position + 8 + length:position + 12 + length])
        assert zlib.crc32(kind + body) == crc, kind
        chunks[kind] = chunks.get(kind, b"") + body
        position += 12 + length
    width, height, depth, colour, _, _, _ = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    assert depth == 8 and b"IEND" in chunks
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[colour]
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(height, -1)
    assert (rows[:, 0] == 0).all()
    return rows[:, 1:].reshape(height, width, channels)
