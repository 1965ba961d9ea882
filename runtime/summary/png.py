"""PNG encoding of 8-bit images, with zlib alone (no imaging library): what an image summary
stores for TensorBoard to show.

    encode(np.zeros((2, 3, 3), np.uint8))   # height 2, width 3, RGB -> b'\\x89PNG...'

A PNG file is its signature and chunks, each `length, type, data, CRC-32 of type+data`:
IHDR (width, height, bit depth 8, colour type), IDAT (the zlib-compressed rows, each
preceded by its filter byte, 0 = none here) and IEND.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
# channels -> PNG colour type: grey, grey + alpha, RGB, RGBA
COLOUR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def encode(image: np.ndarray, compression: int = 6) -> bytes:
    """The PNG file of `image`, a uint8 array of shape [height, width, channels] with 1 to 4
    channels."""
    image = np.asarray(image)
    if image.dtype != np.uint8 or image.ndim != 3 or image.shape[2] not in COLOUR_TYPES:
        raise ValueError("a PNG image is a uint8 array [height, width, channels] with 1 to 4 "
                         "channels, got %s %s" % (image.dtype, image.shape))
    height, width, channels = image.shape
    header = struct.pack(">IIBBBBB", width, height, 8, COLOUR_TYPES[channels], 0, 0, 0)
    rows = np.zeros((height, 1 + width * channels), np.uint8)  # column 0: filter "none"
    rows[:, 1:] = image.reshape(height, width * channels)
    return (SIGNATURE + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(rows.tobytes(), compression))
            + _chunk(b"IEND", b""))
