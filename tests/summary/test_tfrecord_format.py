"""TFRecord framing (runtime/io/tfrecord.py): records written are read back, and the reader
refuses a truncated or corrupt file, naming the record, before it allocates what a length
declares."""

import os
import struct

import pytest

from runtime.io import crc32c, tfrecord


def _write(path, records):
    with tfrecord.RecordWriter(path) as writer:
        for record in records:
            writer.write(record)


def test_records_written_are_read_back_in_order(tmp_path):
    records = [b"", b"one", bytes(range(256)) * 50]
    _write(tmp_path / "r.tfrecord", records)
    assert list(tfrecord.read_records(tmp_path / "r.tfrecord")) == records


def test_a_record_is_length_masked_length_crc_data_masked_data_crc(tmp_path):
    _write(tmp_path / "r", [b"abc"])
    raw = (tmp_path / "r").read_bytes()
    length = struct.pack("<Q", 3)
    assert raw == (length + struct.pack("<I", crc32c.mask(crc32c.value(length))) + b"abc"
                   + struct.pack("<I", crc32c.mask(crc32c.value(b"abc"))))


def test_an_empty_file_holds_no_records(tmp_path):
    (tmp_path / "r").write_bytes(b"")
    assert list(tfrecord.read_records(tmp_path / "r")) == []


def test_writer_on_an_open_file_closes_it_with_close(tmp_path):
    f = open(tmp_path / "r", "wb")
    writer = tfrecord.RecordWriter(f)
    writer.write(b"x")
    writer.close()
    assert f.closed and writer.closed
    writer.close()  # a second close does nothing
    assert list(tfrecord.read_records(tmp_path / "r")) == [b"x"]


def _corrupt(tmp_path, edit):
    _write(tmp_path / "r", [b"first", b"second"])
    raw = bytearray((tmp_path / "r").read_bytes())
    edit(raw)
    (tmp_path / "r").write_bytes(bytes(raw))
    return tmp_path / "r"


FIRST = tfrecord.HEADER_BYTES + len(b"first") + tfrecord.FOOTER_BYTES


@pytest.mark.parametrize("edit, message", [
    (lambda raw: raw.__setitem__(FIRST + 13, raw[FIRST + 13] ^ 1),
     r"record 1 \(at byte %d\): the data's checksum does not match" % FIRST),
    (lambda raw: raw.__setitem__(0, 6),
     r"record 0 \(at byte 0\): the length's checksum does not match"),
    (lambda raw: raw.__delitem__(slice(-3, None)),
     r"record 1 .*declares 6 bytes of data but the file holds only 3 more: truncated"),
    (lambda raw: raw.extend(b"\x01\x02"), r"record 2 .*truncated header"),
], ids=["data", "length", "truncated data", "truncated header"])
def test_a_corrupt_or_truncated_record_is_refused_naming_it(tmp_path, edit, message):
    path = _corrupt(tmp_path, edit)
    with pytest.raises(tfrecord.RecordError, match=message):
        list(tfrecord.read_records(path))


def test_a_huge_declared_length_is_refused_before_anything_is_read(tmp_path):
    length = struct.pack("<Q", 1 << 60)
    (tmp_path / "r").write_bytes(length + struct.pack("<I", crc32c.mask(crc32c.value(length))))
    with pytest.raises(tfrecord.RecordError, match="declares %d bytes" % (1 << 60)):
        list(tfrecord.read_records(tmp_path / "r"))


def test_a_fifo_or_a_folder_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "records.fifo"
    os.mkfifo(fifo)
    with pytest.raises(tfrecord.RecordError, match="is a FIFO \\(named pipe\\), not a regular"):
        list(tfrecord.read_records(fifo))
    with pytest.raises(tfrecord.RecordError, match="is a folder, not a regular file"):
        list(tfrecord.read_records(tmp_path))
