"""`tf.strings`: string ops (strings are UTF-8 bytes; split-like ops give RaggedTensors)."""

from runtime.composite import ragged_strings as _ragged_strings
from runtime.ops import string_ops as _strings

as_string = _strings.as_string
bytes_split = _ragged_strings.bytes_split
format = _strings.format  # noqa: A001 - TensorFlow's name
join = _strings.join
length = _strings.length
lower = _strings.lower
ngrams = _ragged_strings.ngrams
reduce_join = _strings.reduce_join
regex_full_match = _strings.regex_full_match
regex_replace = _strings.regex_replace
split = _ragged_strings.split
strip = _strings.strip
substr = _strings.substr
to_hash_bucket_fast = _strings.to_hash_bucket_fast
to_number = _strings.to_number
unicode_decode = _ragged_strings.unicode_decode
unicode_encode = _ragged_strings.unicode_encode
unicode_split = _ragged_strings.unicode_split
unicode_transcode = _strings.unicode_transcode
upper = _strings.upper
