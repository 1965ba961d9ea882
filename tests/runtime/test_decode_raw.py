"""tf.io.decode_raw: the bytes of strings read as numbers, as TensorFlow reads them."""

import numpy as np
import pytest

from runtime import dtypes, errors
from runtime.function import function
from runtime.ops import array_ops, string_ops


def test_bytes_read_as_uint8_give_the_character_codes():
    out = string_ops.decode_raw(array_ops.constant("Duck"), dtypes.uint8)
    assert out.dtype is dtypes.uint8
    np.testing.assert_array_equal(out.numpy(), [68, 117, 99, 107])


@pytest.mark.parametrize("traced", [False, True])
def test_byte_order_and_the_last_dimension(traced):
    def decode(x):
        return string_ops.decode_raw(x, dtypes.int16, little_endian=False)
    run = function(decode) if traced else decode
    out = run(array_ops.constant(["Duck", "Gose"]))
    np.testing.assert_array_equal(out.numpy(), [[0x4475, 0x636B], [0x476F, 0x7365]])


def test_fixed_length_cuts_or_pads_with_zeros():
    out = string_ops.decode_raw(array_ops.constant(["ab", "abcdef"]), dtypes.uint8,
                                fixed_length=4)
    np.testing.assert_array_equal(out.numpy(), [[97, 98, 0, 0], [97, 98, 99, 100]])


def test_strings_of_different_lengths_are_refused():
    with pytest.raises(errors.InvalidArgumentError, match="same size"):
        string_ops.decode_raw(array_ops.constant(["ab", "abc"]), dtypes.uint8)
