"""`tf.strings`: string ops (strings are UTF-8 bytes)."""

from runtime.ops import string_ops as _strings

join = _strings.join
length = _strings.length
format = _strings.format  # noqa: A001 - TensorFlow's name
