"""`tf.io`: reading and parsing input (CSV lines)."""

from runtime.ops import string_ops as _strings

decode_csv = _strings.decode_csv
