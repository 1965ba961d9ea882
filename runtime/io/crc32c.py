"""CRC-32C (Castagnoli), the checksum TensorFlow's files carry, and its masked form.

    value(b"123456789") == 0xE3069283
    extend(value(a), b) == value(a + b)
    unmask(mask(c)) == c        # what tables, bundles and records store is mask(crc)

Small inputs go through a byte-at-a-time table in Python. Large ones are cut into equal
chunks whose checksums numpy computes side by side (one vectorised table step per byte
position); the chunk checksums are then chained with the linear map "append L zero bytes",
applied through four 256-entry tables, so a 4 MB tensor costs a few thousand numpy steps.
"""

from __future__ import annotations

import functools

import numpy as np

_POLYNOMIAL = 0x82F63B78  # Castagnoli, bit-reflected
_MASK_DELTA = 0xA282EAD8
_ALL = 0xFFFFFFFF
_SMALL = 8192  # below this many bytes, the Python loop is faster than numpy's set-up


def _byte_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _POLYNOMIAL if crc & 1 else crc >> 1
        table.append(crc)
    return table


_TABLE = _byte_table()
_NP_TABLE = np.array(_TABLE, dtype=np.uint32)


def value(data: bytes | bytearray | memoryview) -> int:
    """The CRC-32C of `data`."""
    return extend(0, data)


def extend(crc: int, data: bytes | bytearray | memoryview) -> int:
    """The CRC-32C of `x + data`, given `crc`, the CRC-32C of some bytes `x`."""
    state = crc ^ _ALL
    view = memoryview(data).cast("B")
    if len(view) < _SMALL:
        return _feed_bytes(state, view) ^ _ALL
    return _feed_chunks(state, np.frombuffer(view, dtype=np.uint8)) ^ _ALL


def mask(crc: int) -> int:
    """`crc` rotated and offset, as TensorFlow stores checksums (a CRC of data that holds
    CRCs is then no longer trivially related to them)."""
    rotated = ((crc >> 15) | (crc << 17)) & _ALL
    return (rotated + _MASK_DELTA) & _ALL


def unmask(masked: int) -> int:
    """The CRC that `mask` turned into `masked`."""
    rotated = (masked - _MASK_DELTA) & _ALL
    return ((rotated >> 17) | (rotated << 15)) & _ALL


def _feed_bytes(state: int, data: memoryview) -> int:
    table = _TABLE
    for byte in data:
        state = table[(state ^ byte) & 0xFF] ^ (state >> 8)
    return state


def _feed_chunks(state: int, data: np.ndarray) -> int:
    chunk = _chunk_length(len(data))
    count = len(data) // chunk
    rows = data[:count * chunk].reshape(count, chunk)
    partial = np.zeros(count, dtype=np.uint32)  # each chunk's register, started at zero
    index = np.empty(count, dtype=np.uint32)
    shifted = np.empty(count, dtype=np.uint32)
    for column in range(chunk):  # partial = table[(partial ^ byte) & 0xFF] ^ (partial >> 8)
        np.bitwise_xor(partial, rows[:, column], out=index)
        np.bitwise_and(index, 0xFF, out=index)
        np.right_shift(partial, 8, out=shifted)
        np.take(_NP_TABLE, index, out=partial)
        np.bitwise_xor(partial, shifted, out=partial)
    zeros = _zeros_tables(chunk)
    t0, t1, t2, t3 = zeros[0], zeros[1], zeros[2], zeros[3]
    for register in partial.tolist():
        # feeding a chunk = the state after `chunk` zero bytes, xor the chunk's own register
        state = (t0[state & 0xFF] ^ t1[(state >> 8) & 0xFF] ^ t2[(state >> 16) & 0xFF]
                 ^ t3[state >> 24] ^ register)
    return _feed_bytes(state, memoryview(data[count * chunk:].tobytes()))


def _chunk_length(size: int) -> int:
    """A power of two near the square root of `size`: as many chunks as bytes per chunk."""
    exponent = max(6, min(16, (size.bit_length() + 1) // 2))
    return 1 << exponent


@functools.lru_cache(maxsize=None)
def _zeros_tables(length: int) -> tuple[list[int], list[int], list[int], list[int]]:
    """Four byte tables of the linear map 'feed `length` zero bytes' on the register."""
    one_zero = [_TABLE[(1 << bit) & 0xFF] ^ ((1 << bit) >> 8) for bit in range(32)]
    result = [1 << bit for bit in range(32)]  # the identity, as images of the unit vectors
    power = one_zero
    remaining = length
    while remaining:
        if remaining & 1:
            result = _compose(power, result)
        power = _compose(power, power)
        remaining >>= 1
    tables = []
    for shift in (0, 8, 16, 24):
        tables.append([_apply(result, byte << shift) for byte in range(256)])
    return tables[0], tables[1], tables[2], tables[3]


def _apply(columns: list[int], vector: int) -> int:
    out = 0
    bit = 0
    while vector:
        if vector & 1:
            out ^= columns[bit]
        vector >>= 1
        bit += 1
    return out


def _compose(outer: list[int], inner: list[int]) -> list[int]:
    """The columns of `outer` after `inner`."""
    return [_apply(outer, column) for column in inner]
