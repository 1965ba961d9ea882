"""CRC-32C as TensorFlow's files use it: known values, extension, masking, large inputs."""

import numpy as np
import pytest

from runtime.io import crc32c


def _bitwise(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF


def test_known_values_of_the_castagnoli_checksum():
    assert crc32c.value(b"123456789") == 0xE3069283
    assert crc32c.value(b"") == 0
    assert crc32c.value(bytes(32)) == 0x8A9136AA  # RFC 3720's test vector


@pytest.mark.parametrize("size", [1, 100, 8191, 8192, 8193, 70001, 300000])
def test_large_inputs_give_the_bytewise_checksum(size):
    data = np.random.default_rng(size).integers(0, 256, size, dtype=np.uint8).tobytes()
    expected = _bitwise(data) if size < 10000 else crc32c._feed_bytes(
        0xFFFFFFFF, memoryview(data)) ^ 0xFFFFFFFF
    assert crc32c.value(data) == expected


def test_extend_continues_a_checksum():
    data = bytes(range(256)) * 100
    assert crc32c.extend(crc32c.value(data[:1234]), data[1234:]) == crc32c.value(data)


def test_mask_is_undone_by_unmask_and_changes_the_value():
    for crc in (0, 1, 0xE3069283, 0xFFFFFFFF):
        assert crc32c.unmask(crc32c.mask(crc)) == crc
    assert crc32c.mask(0xE3069283) != 0xE3069283
