"""tf.train.Example: the protocol buffer messages of TensorFlow's Example format (Example,
Features, Feature, BytesList, FloatList, Int64List), built at run time with the `protobuf`
package from a descriptor written here (the message layout of TensorFlow's
example.proto and feature.proto, same package, names and field numbers, so the bytes are
the same), without TensorFlow.

The `protobuf` package is the optional extra `tfrecord` (`pip install autograph[tfrecord]`);
it is imported on first use of the messages.

    example = Example(features=Features(feature={"x": Feature(int64_list=Int64List(value=[1]))}))
    parse_example_bytes(example.SerializeToString(), "my.tfrecord: record 0")

Serialized Examples come from files anyone may write: `decode` refuses records beyond
`MAX_RECORD_BYTES` and reports a malformed one as an ExampleError naming where it came from.
"""

from __future__ import annotations

import functools
from typing import Any

MAX_RECORD_BYTES = 1 << 30  # protobuf's own limit is 2 GiB; an Example this size is corrupt

_PACKAGE = "tensorflow"


class ExampleError(ValueError):
    """A serialized Example that cannot be parsed."""


def _descriptor_proto(descriptor_pb2: Any) -> Any:
    """The FileDescriptorProto of feature.proto and example.proto together."""
    fdp = descriptor_pb2.FileDescriptorProto(name="autograph/example.proto",
                                             package=_PACKAGE, syntax="proto3")
    field = descriptor_pb2.FieldDescriptorProto
    repeated, optional = field.LABEL_REPEATED, field.LABEL_OPTIONAL

    def message(name: str, fields: list[tuple[str, int, int, int, str | None, bool]]) -> Any:
        msg = fdp.message_type.add(name=name)
        for fname, number, ftype, label, type_name, packed in fields:
            f = msg.field.add(name=fname, number=number, type=ftype, label=label)
            if type_name:
                f.type_name = type_name
            if packed:
                f.options.packed = True
        return msg

    message("BytesList", [("value", 1, field.TYPE_BYTES, repeated, None, False)])
    message("FloatList", [("value", 1, field.TYPE_FLOAT, repeated, None, True)])
    message("Int64List", [("value", 1, field.TYPE_INT64, repeated, None, True)])
    feature = message("Feature", [
        ("bytes_list", 1, field.TYPE_MESSAGE, optional, ".tensorflow.BytesList", False),
        ("float_list", 2, field.TYPE_MESSAGE, optional, ".tensorflow.FloatList", False),
        ("int64_list", 3, field.TYPE_MESSAGE, optional, ".tensorflow.Int64List", False)])
    feature.oneof_decl.add(name="kind")
    for f in feature.field:
        f.oneof_index = 0
    features = message("Features", [
        ("feature", 1, field.TYPE_MESSAGE, repeated, ".tensorflow.Features.FeatureEntry",
         False)])
    entry = features.nested_type.add(name="FeatureEntry")
    entry.field.add(name="key", number=1, type=field.TYPE_STRING, label=optional)
    entry.field.add(name="value", number=2, type=field.TYPE_MESSAGE, label=optional,
                    type_name=".tensorflow.Feature")
    entry.options.map_entry = True
    message("Example", [("features", 1, field.TYPE_MESSAGE, optional, ".tensorflow.Features",
                         False)])
    return fdp


@functools.lru_cache(maxsize=None)
def messages() -> dict[str, Any]:
    """The message classes by name: Example, Features, Feature, BytesList, FloatList,
    Int64List (ImportError naming the extra when protobuf is missing)."""
    try:
        from google.protobuf import (  # type: ignore[import-untyped]
            descriptor_pb2,
            descriptor_pool,
            message_factory,
        )
    except ImportError:
        raise ImportError("tf.train.Example and tf.io.parse_example need the protobuf "
                          "package: pip install 'autograph[tfrecord]' (or protobuf>=4)"
                          ) from None
    pool = descriptor_pool.DescriptorPool()
    pool.Add(_descriptor_proto(descriptor_pb2))
    names = ("Example", "Features", "Feature", "BytesList", "FloatList", "Int64List")
    return {n: message_factory.GetMessageClass(
        pool.FindMessageTypeByName("%s.%s" % (_PACKAGE, n))) for n in names}


def decode(serialized: bytes, where: str) -> dict[str, tuple[str, list[Any]]]:
    """The features of one serialized Example: name -> (kind, values), kind one of
    'bytes_list', 'float_list', 'int64_list' (None for a feature with no list set)."""
    if len(serialized) > MAX_RECORD_BYTES:
        raise ExampleError("%s: a serialized Example of %d bytes is beyond the limit of %d"
                           % (where, len(serialized), MAX_RECORD_BYTES))
    example = messages()["Example"]()
    try:
        example.ParseFromString(serialized)
    except Exception as e:  # protobuf's DecodeError, and its C++ parser's errors
        raise ExampleError("%s: not a serialized tf.train.Example: %s" % (where, e)) from None
    out = {}
    for name, feature in example.features.feature.items():
        kind = feature.WhichOneof("kind")
        out[name] = (kind, list(getattr(feature, kind).value) if kind else [])
    return out
