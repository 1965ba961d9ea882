"""`tf.bitwise`: bit operations on integer tensors."""

from runtime.ops import math_ops as _math

bitwise_and = _math.bitwise_and
bitwise_or = _math.bitwise_or
bitwise_xor = _math.bitwise_xor
invert = _math.invert
left_shift = _math.left_shift
right_shift = _math.right_shift
