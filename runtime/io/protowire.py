"""The protocol-buffer wire format, by hand: enough to write and read the few messages that
TensorFlow's files hold (checkpoint entries, object graphs, event records), with no
generated code and no `protobuf` dependency.

A message is a sequence of fields, each a key (`field_number << 3 | wire_type`, a varint)
then a value: a varint (wire type 0), 8 little-endian bytes (1), a length-prefixed byte
string (2, also nested messages and packed repeated numbers) or 4 little-endian bytes (5).

    data = field_varint(1, 3) + field_bytes(2, b"w")    # writing: concatenate fields
    fields = Fields.parse(data, "BundleEntryProto")    # reading: fields by number
    fields.varint(1), fields.string(2)                 # -> 3, 'w'

Reading is strict, since the bytes come from files: a truncated varint, a length that runs
past the end, a group or unknown wire type, or a field of the wrong wire type raises
`WireFormatError`, naming the message and field.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator

VARINT, FIXED64, LENGTH_DELIMITED, FIXED32 = 0, 1, 2, 5
_UINT64 = (1 << 64) - 1


class WireFormatError(ValueError):
    """Bytes that are not a well-formed protocol-buffer message."""


# -- writing -------------------------------------------------------------------------------------
def varint(number: int) -> bytes:
    """`number` as a varint; a negative one as its 64-bit two's complement (10 bytes), as
    protocol buffers write negative int32 and int64 values."""
    number &= _UINT64
    out = bytearray()
    while number > 0x7F:
        out.append((number & 0x7F) | 0x80)
        number >>= 7
    out.append(number)
    return bytes(out)


def key(number: int, wire_type: int) -> bytes:
    """The key that starts field `number` of `wire_type`."""
    return varint(number << 3 | wire_type)


def field_varint(number: int, value: int) -> bytes:
    """Field `number` holding an integer, enum or bool as a varint."""
    return key(number, VARINT) + varint(int(value))


def field_bytes(number: int, payload: bytes | str) -> bytes:
    """Field `number` holding a byte string, a string (UTF-8) or an encoded message."""
    if isinstance(payload, str):
        payload = payload.encode("utf-8")
    return key(number, LENGTH_DELIMITED) + varint(len(payload)) + bytes(payload)


def field_fixed32(number: int, value: int) -> bytes:
    """Field `number` holding an unsigned 32-bit integer in 4 bytes (`fixed32`)."""
    return key(number, FIXED32) + struct.pack("<I", value)


def field_double(number: int, value: float) -> bytes:
    """Field `number` holding a `double`."""
    return key(number, FIXED64) + struct.pack("<d", value)


# -- reading -------------------------------------------------------------------------------------
def read_varint(data: bytes | memoryview, position: int, what: str = "varint") -> tuple[int, int]:
    """The varint at `position` of `data` and the position after it."""
    result = 0
    shift = 0
    end = len(data)
    while True:
        if position >= end:
            raise WireFormatError("%s: truncated varint" % what)
        byte = data[position]
        position += 1
        if shift == 63 and byte > 1:
            raise WireFormatError("%s: varint longer than 64 bits" % what)
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, position
        shift += 7


def signed(value: int) -> int:
    """A varint read back as the signed 64-bit integer it encodes."""
    return value - (1 << 64) if value >> 63 else value


def iter_fields(data: bytes | memoryview,
                what: str) -> Iterator[tuple[int, int, int | bytes]]:
    """(field number, wire type, value) for each field of message `data`, in order:
    an int for varints and fixed-width values, bytes for length-delimited ones."""
    data = memoryview(data)
    position = 0
    end = len(data)
    while position < end:
        field_key, position = read_varint(data, position, what)
        number, wire_type = field_key >> 3, field_key & 7
        if number == 0:
            raise WireFormatError("%s: field number 0" % what)
        if wire_type == VARINT:
            value, position = read_varint(data, position, "%s field %d" % (what, number))
            yield number, wire_type, value
        elif wire_type in (FIXED64, FIXED32):
            size = 8 if wire_type == FIXED64 else 4
            if position + size > end:
                raise WireFormatError("%s field %d: truncated" % (what, number))
            yield number, wire_type, int.from_bytes(data[position:position + size], "little")
            position += size
        elif wire_type == LENGTH_DELIMITED:
            length, position = read_varint(data, position, "%s field %d" % (what, number))
            if length > end - position:
                raise WireFormatError("%s field %d: declares %d bytes, %d left"
                                      % (what, number, length, end - position))
            yield number, wire_type, bytes(data[position:position + length])
            position += length
        else:
            raise WireFormatError("%s field %d: unsupported wire type %d"
                                  % (what, number, wire_type))


class Fields:
    """The fields of one message by number, read with the accessor of the field's type;
    an absent field reads as its default (0, '', b'', an empty list), as in proto3."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._values: dict[int, list[tuple[int, int | bytes]]] = {}

    @classmethod
    def parse(cls, data: bytes | memoryview, what: str) -> Fields:
        """Reads message `data`; `what` (the message's name) is used in errors."""
        fields = cls(what)
        for number, wire_type, value in iter_fields(data, what):
            fields._values.setdefault(number, []).append((wire_type, value))
        return fields

    def _numbers(self, number: int, wire_type: int, kind: str) -> list[int]:
        values = []
        for found_type, value in self._values.get(number, ()):
            if found_type != wire_type or not isinstance(value, int):
                raise WireFormatError("%s field %d: expected %s, found wire type %d"
                                      % (self.what, number, kind, found_type))
            values.append(value)
        return values

    def varint(self, number: int, default: int = 0) -> int:
        """The last value of varint field `number` (unsigned)."""
        values = self._numbers(number, VARINT, "a varint")
        return values[-1] if values else default

    def int64(self, number: int) -> int:
        """Varint field `number` as a signed 64-bit integer (int32 and int64 fields)."""
        return signed(self.varint(number))

    def fixed32(self, number: int, default: int = 0) -> int:
        """The last value of fixed32 field `number`."""
        values = self._numbers(number, FIXED32, "4 fixed bytes")
        return values[-1] if values else default

    def double(self, number: int) -> float:
        """The last value of double field `number`."""
        values = self._numbers(number, FIXED64, "8 fixed bytes")
        if not values:
            return 0.0
        return float(struct.unpack("<d", values[-1].to_bytes(8, "little"))[0])

    def data(self, number: int) -> bytes:
        """The last value of length-delimited field `number` (bytes, a nested message)."""
        values = self.repeated_data(number)
        return values[-1] if values else b""

    def string(self, number: int) -> str:
        """The last value of string field `number`, decoded from UTF-8."""
        raw = self.data(number)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise WireFormatError("%s field %d: not UTF-8 text" % (self.what, number)) from None

    def repeated_data(self, number: int) -> list[bytes]:
        """Every value of length-delimited field `number` (repeated messages, strings)."""
        values = []
        for found_type, value in self._values.get(number, ()):
            if found_type != LENGTH_DELIMITED or not isinstance(value, bytes):
                raise WireFormatError("%s field %d: expected a length-delimited value, found "
                                      "wire type %d" % (self.what, number, found_type))
            values.append(value)
        return values

    def repeated_varint(self, number: int) -> list[int]:
        """Every value of repeated varint field `number`, packed or not."""
        values: list[int] = []
        for wire_type, value in self._values.get(number, ()):
            if isinstance(value, int) and wire_type == VARINT:
                values.append(value)
            elif isinstance(value, bytes) and wire_type == LENGTH_DELIMITED:
                position = 0
                while position < len(value):
                    item, position = read_varint(value, position,
                                                 "%s field %d" % (self.what, number))
                    values.append(item)
            else:
                raise WireFormatError("%s field %d: expected varints, found wire type %d"
                                      % (self.what, number, wire_type))
        return values

    def has(self, number: int) -> bool:
        """Whether field `number` is present."""
        return number in self._values
