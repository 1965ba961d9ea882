"""The `tf.strings` functions whose results (or operands) are RaggedTensors: split,
bytes_split, unicode_split, unicode_decode, unicode_encode and ngrams.

The ops (runtime.ops.string_ops) work on a vector of strings and output a row per string;
an input of rank k > 1 is flattened first and its k - 1 outer dimensions come back as
uniform row partitions, so a (2, 3) input gives a (2, 3, None) RaggedTensor, as in
TensorFlow. A scalar input gives a dense vector.
"""

from __future__ import annotations

from typing import Any

from runtime import dtypes
from runtime.composite.ragged import RaggedTensor
from runtime.ops import array_ops, reduction_ops, reshape_ops, string_ops
from runtime.ops.common import convert_to_tensor, stack


def _strings(input: Any, what: str) -> Any:  # noqa: A002 - TensorFlow's name
    x = convert_to_tensor(input)
    if x.dtype is not dtypes.string:
        raise TypeError("strings.%s needs string tensors, got %s" % (what, x.dtype.name))
    if x.shape.rank is None:
        raise ValueError("strings.%s needs an input of known rank" % what)
    return x


def _with_outer_dims(x: Any, values: Any, splits: Any) -> Any:
    """The rows (values, splits) of the flattened `x` given x's shape back: a vector for a
    scalar `x`, else a RaggedTensor with x's dimensions outside the ragged one."""
    rank = x.shape.rank
    if rank == 0:
        return values
    result: Any = RaggedTensor.from_row_splits(values, splits, validate=False)
    if rank == 1:
        return result
    shape = array_ops.shape(x, out_type=dtypes.int64)
    for axis in range(rank - 1, 0, -1):
        width = shape[axis]
        rows = reduction_ops.reduce_prod(shape[:axis]) if axis > 1 else shape[0]
        outer = array_ops.range(0, rows * width + 1, width, dtype=dtypes.int64)
        result = RaggedTensor.from_row_splits(result, outer, validate=False)
    return result


def _flat(x: Any) -> Any:
    return x if x.shape.rank == 1 else reshape_ops.reshape(x, [-1])


def split(input: Any, sep: Any = None, maxsplit: int = -1, name: str | None = None) -> Any:  # noqa: A002
    """Each string split at `sep` (None: at runs of whitespace, dropping empty pieces), at
    most `maxsplit` times (-1: no limit): a vector for a scalar input, else a RaggedTensor
    with one more (ragged) dimension."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(split(input.flat_values, sep, maxsplit))
    x = _strings(input, "split")
    if isinstance(sep, bytes):
        sep = sep.decode("utf-8")
    if sep is not None and not isinstance(sep, str):
        raise TypeError("strings.split: sep must be a Python string or None, got %s"
                        % type(sep).__name__)
    if sep == "":
        raise ValueError("strings.split: sep must not be empty (use strings.bytes_split)")
    values, splits = string_ops.split_rows(_flat(x), sep, maxsplit)
    return _with_outer_dims(x, values, splits)


def bytes_split(input: Any, name: str | None = None) -> Any:  # noqa: A002
    """Each string split into its single bytes (a vector for a scalar input, else a
    RaggedTensor with one more ragged dimension)."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(bytes_split(input.flat_values))
    x = _strings(input, "bytes_split")
    values, splits = string_ops.bytes_split_rows(_flat(x))
    return _with_outer_dims(x, values, splits)


def unicode_decode(input: Any, input_encoding: str, errors: str = "replace",  # noqa: A002
                   replacement_char: int = 65533, replace_control_characters: bool = False,
                   name: str | None = None) -> Any:
    """The Unicode code points (int32) of each string in `input_encoding`: a vector for a
    scalar input, else a RaggedTensor with one more ragged dimension."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(unicode_decode(
            input.flat_values, input_encoding, errors, replacement_char,
            replace_control_characters))
    x = _strings(input, "unicode_decode")
    values, splits = string_ops.unicode_decode_rows(
        _flat(x), input_encoding, errors, replacement_char, replace_control_characters,
        as_chars=False)
    return _with_outer_dims(x, values, splits)


def unicode_split(input: Any, input_encoding: str, errors: str = "replace",  # noqa: A002
                  replacement_char: int = 65533, name: str | None = None) -> Any:
    """Each string in `input_encoding` split into its characters, each a UTF-8 string."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(unicode_split(
            input.flat_values, input_encoding, errors, replacement_char))
    x = _strings(input, "unicode_split")
    values, splits = string_ops.unicode_decode_rows(
        _flat(x), input_encoding, errors, replacement_char, False, as_chars=True)
    return _with_outer_dims(x, values, splits)


def unicode_encode(input: Any, output_encoding: str, errors: str = "replace",  # noqa: A002
                   replacement_char: int = 65533, name: str | None = None) -> Any:
    """Strings made of the int code points along the innermost dimension of `input` (a
    tensor of rank >= 1 or a RaggedTensor), encoded in `output_encoding`; the result has
    one dimension less."""
    if isinstance(input, RaggedTensor):
        if isinstance(input.values, RaggedTensor):
            return input.with_values(unicode_encode(input.values, output_encoding, errors,
                                                    replacement_char))
        return string_ops.unicode_encode_rows(input.values, input.row_splits,
                                              output_encoding, errors, replacement_char)
    x = convert_to_tensor(input, dtype_hint=dtypes.int32)
    if not x.dtype.is_integer:
        raise TypeError("strings.unicode_encode needs integer code points, got %s"
                        % x.dtype.name)
    rank = x.shape.rank
    if rank is None or rank == 0:
        raise ValueError("strings.unicode_encode needs code points of known rank >= 1")
    shape = array_ops.shape(x, out_type=dtypes.int64)
    width = shape[-1]
    count = reduction_ops.reduce_prod(shape[:-1])
    splits = array_ops.range(0, count * width + 1, width, dtype=dtypes.int64)
    flat = string_ops.unicode_encode_rows(reshape_ops.reshape(x, [-1]), splits,
                                          output_encoding, errors, replacement_char)
    return reshape_ops.reshape(flat, shape[:-1])


def ngrams(data: Any, ngram_width: Any, separator: str = " ", pad_values: Any = None,
           padding_width: int | None = None, preserve_short_sequences: bool = False,
           name: str | None = None) -> Any:
    """The n-grams of the strings along the innermost dimension of `data` (a vector, a
    tensor or a RaggedTensor): for each width of `ngram_width` (an int or a sequence), each
    window of that many strings joined by `separator`, after padding each row with
    `pad_values` (a string, or a (left, right) pair) `padding_width` times (None: width - 1).
    A row shorter than every width gives no n-gram, or itself joined with
    preserve_short_sequences=True."""
    widths = (ngram_width,) if isinstance(ngram_width, int) else tuple(ngram_width)
    if not widths or any(not isinstance(w, int) or w < 1 for w in widths):
        raise ValueError("strings.ngrams: ngram_width must be positive ints, got %r"
                         % (ngram_width,))
    if isinstance(data, RaggedTensor):
        if isinstance(data.values, RaggedTensor):
            return data.with_values(ngrams(data.values, ngram_width, separator, pad_values,
                                           padding_width, preserve_short_sequences))
        values, splits = string_ops.ngram_rows(data.values, data.row_splits, widths,
                                               separator, pad_values, padding_width,
                                               preserve_short_sequences)
        return RaggedTensor.from_row_splits(values, splits, validate=False)
    x = _strings(data, "ngrams")
    if x.shape.rank == 0:
        raise ValueError("strings.ngrams needs data of rank >= 1")
    if x.shape.rank == 1:
        n = array_ops.size(x, out_type=dtypes.int64)
        splits = stack([convert_to_tensor(0, dtype=dtypes.int64), n])
        values, _ = string_ops.ngram_rows(x, splits, widths, separator, pad_values,
                                          padding_width, preserve_short_sequences)
        return values
    raise ValueError("strings.ngrams: a dense input of rank %d: give a RaggedTensor "
                     "(tf.RaggedTensor.from_tensor) for rows of rank > 1" % x.shape.rank)
