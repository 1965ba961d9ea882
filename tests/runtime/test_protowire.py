"""The protocol-buffer wire format: writing fields, reading them back, refusing bad bytes."""

import pytest

from runtime.io import protowire as w


def test_varints_of_small_large_and_negative_numbers():
    assert w.varint(0) == b"\x00"
    assert w.varint(300) == b"\xac\x02"
    assert len(w.varint(-1)) == 10
    for number in (0, 1, 127, 128, 2**40, 2**64 - 1):
        assert w.read_varint(w.varint(number), 0) == (number, len(w.varint(number)))
    assert w.signed(w.read_varint(w.varint(-5), 0)[0]) == -5


def test_fields_read_back_by_number_and_type():
    data = (w.field_varint(1, 7) + w.field_bytes(2, "name") + w.field_fixed32(6, 0xDEADBEEF)
            + w.field_bytes(3, b"a") + w.field_bytes(3, b"b") + w.field_double(4, 2.5))
    fields = w.Fields.parse(data, "Message")
    assert fields.varint(1) == 7
    assert fields.string(2) == "name"
    assert fields.fixed32(6) == 0xDEADBEEF
    assert fields.repeated_data(3) == [b"a", b"b"]
    assert fields.double(4) == 2.5
    assert fields.varint(9) == 0 and fields.string(9) == "" and not fields.has(9)


def test_packed_and_unpacked_repeated_varints():
    packed = w.field_bytes(3, w.varint(1) + w.varint(300))
    assert w.Fields.parse(packed + w.field_varint(3, 5), "M").repeated_varint(3) == [1, 300, 5]


@pytest.mark.parametrize("data, message", [
    (b"\x08", "truncated varint"),
    (b"\x12\x05ab", "declares 5 bytes, 2 left"),
    (b"\x0b", "unsupported wire type 3"),
    (b"\x00", "field number 0"),
    (b"\x08" + b"\xff" * 10 + b"\x01", "longer than 64 bits"),
    (b"\x35\x01\x02", "truncated"),
])
def test_malformed_messages_are_refused_by_name(data, message):
    with pytest.raises(w.WireFormatError, match=message):
        w.Fields.parse(data, "Message")


def test_a_field_of_the_wrong_wire_type_is_refused():
    with pytest.raises(w.WireFormatError, match="Message field 1: expected a varint"):
        w.Fields.parse(w.field_bytes(1, b"x"), "Message").varint(1)
