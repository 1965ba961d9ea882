"""String ops (`tf.strings`, `tf.io.decode_csv`): strings are numpy arrays of Python bytes
objects (UTF-8 unless an op says otherwise), so every op here runs on the host. The
elementwise ones are `dispatchable`: on a RaggedTensor they map its flat values.

Ops whose results are ragged (split, bytes_split, unicode_decode/_split, ngrams) output the
components, the values and the row_splits; runtime.composite.ragged_strings wraps them in
RaggedTensors."""

import re
import unicodedata
from typing import Any

import numpy as np

from runtime import dtypes
from runtime.ops import attr_types, common, farmhash, io_ops
from runtime.ops.common import SpecError, convert_to_tensor, require_kind
from runtime.ops.composite_dispatch import dispatchable
from runtime.ops.registry import KERNEL_CALL, NOT_DIFFERENTIABLE, execute, execute1, register

# string values are numpy arrays of Python bytes objects: no compiled backend holds them
_PYTHON_STRINGS = ("host_only",)

OPS = {}


def _join_infer(specs, attrs):
    for dtype, _ in specs:
        require_kind(dtype, {"string"}, "input")
    return [(dtypes.string, common.broadcast_specs(specs))]


def _join_kernel(*parts, separator):
    separator = separator.encode("utf-8")
    shape = np.broadcast_shapes(*(np.shape(p) for p in parts))
    columns = [np.broadcast_to(p, shape).reshape(-1) for p in parts]
    out = np.empty(len(columns[0]) if columns else 0, dtype=object)
    for i in range(out.size):
        out[i] = separator.join(column[i] for column in columns)
    return out.reshape(shape)


OPS["StringJoin"] = register("StringJoin", _join_kernel, _join_infer, grad=NOT_DIFFERENTIABLE,
                             emit=KERNEL_CALL, traits=_PYTHON_STRINGS)


@dispatchable
def join(inputs, separator="", name=None):
    """The elementwise concatenation of the string tensors `inputs` (broadcast), with
    `separator` between them."""
    tensors = [convert_to_tensor(t) for t in inputs]
    if not tensors:
        raise ValueError("strings.join needs at least one input")
    # a str attribute (the saved-model encoding writes str, not bytes)
    sep = separator.decode("utf-8") if isinstance(separator, bytes) else str(separator)
    return execute1(OPS["StringJoin"], tensors, {"separator": sep}, name=name)


def _length_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, {"string"}, "input")
    return [(dtypes.int32, shape)]


def _length_kernel(x, unit):
    if unit == "BYTE":
        count = len
    else:
        def count(b):
            return len(b.decode("utf-8"))
    flat = [count(b) for b in np.reshape(x, [-1])]
    return np.asarray(flat, dtype=np.int32).reshape(np.shape(x))


OPS["StringLength"] = register("StringLength", _length_kernel, _length_infer,
                               grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                               traits=_PYTHON_STRINGS)


@dispatchable
def length(input, unit="BYTE", name=None):  # noqa: A002 - TensorFlow's name
    """The length of each string, in bytes (unit 'BYTE') or Unicode characters
    ('UTF8_CHAR')."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError("strings.length: unit must be 'BYTE' or 'UTF8_CHAR', got %r" % (unit,))
    return execute1(OPS["StringLength"], [convert_to_tensor(input)], {"unit": unit},
                    name=name)


def _format_infer(specs, attrs):
    if len(specs) != attrs["template"].count(attrs["placeholder"]):
        raise SpecError("shape", "the template has %d placeholders for %d tensors"
                        % (attrs["template"].count(attrs["placeholder"]), len(specs)))
    return [(dtypes.string, ())]


def _format_kernel(*values, template, placeholder, dtypes_, summarize):
    pieces = template.split(placeholder)
    text = pieces[0]
    for value, dtype, piece in zip(values, dtypes_, pieces[1:]):
        text += io_ops.format_tensor_value(value, dtype, summarize, quote_strings=True) + piece
    return np.asarray(text.encode("utf-8"), dtype=object)


OPS["StringFormat"] = register("StringFormat", _format_kernel, _format_infer,
                               grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                               traits=_PYTHON_STRINGS, attr_types={"template": attr_types.STR})


def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001
    """A scalar string: `template` with each `placeholder` replaced by the next tensor of
    `inputs`, written as tf.print writes it (`summarize` elements at each end per dimension;
    -1: all)."""
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    tensors = [convert_to_tensor(t) for t in inputs]
    attrs: dict[str, Any] = {"template": str(template), "placeholder": str(placeholder),
             "dtypes_": tuple(t.dtype for t in tensors), "summarize": int(summarize)}
    if attrs["template"].count(attrs["placeholder"]) != len(tensors):
        raise ValueError("strings.format: the template %r has %d placeholders for %d tensors"
                         % (template, attrs["template"].count(attrs["placeholder"]),
                            len(tensors)))
    return execute1(OPS["StringFormat"], tensors, attrs, name=name)


# -- elementwise string ops: each string mapped to one value ---------------------------------


def _each(x, fn, np_dtype=object):
    """`fn` applied to each element of the numpy array `x`, in an array of x's shape."""
    flat = np.reshape(x, [-1])
    out = np.empty(flat.size, dtype=np_dtype)
    for i, item in enumerate(flat):
        out[i] = fn(item)
    return out.reshape(np.shape(x))


def _string_infer(result_dtype):
    def infer(specs, attrs):
        dtype, shape = specs[0]
        require_kind(dtype, {"string"}, "input")
        return [(result_dtype, shape)]
    return infer


def _unicode_case(change, encoding):
    if encoding in ("", None):
        return change  # bytes.lower/upper change ASCII letters only, as TensorFlow does
    return lambda b: change(b.decode("utf-8")).encode("utf-8")


def _lower_kernel(x, encoding):
    return _each(x, _unicode_case(bytes.lower if encoding == "" else str.lower, encoding))


def _upper_kernel(x, encoding):
    return _each(x, _unicode_case(bytes.upper if encoding == "" else str.upper, encoding))


OPS["StringLower"] = register("StringLower", _lower_kernel, _string_infer(dtypes.string),
                              grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                              traits=_PYTHON_STRINGS)
OPS["StringUpper"] = register("StringUpper", _upper_kernel, _string_infer(dtypes.string),
                              grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                              traits=_PYTHON_STRINGS)


def _case_encoding(encoding, what):
    encoding = "" if encoding is None else str(encoding).lower().replace("_", "-")
    if encoding not in ("", "utf-8", "utf8"):
        raise ValueError("strings.%s: encoding must be '' (ASCII letters only) or 'utf-8', "
                         "got %r" % (what, encoding))
    return "" if encoding == "" else "utf-8"


@dispatchable
def lower(input, encoding="", name=None):  # noqa: A002 - TensorFlow's name
    """Each string with its letters lowercased: ASCII letters only, or with
    encoding='utf-8' every Unicode letter."""
    return execute1(OPS["StringLower"], [convert_to_tensor(input)],
                    {"encoding": _case_encoding(encoding, "lower")}, name=name)


@dispatchable
def upper(input, encoding="", name=None):  # noqa: A002 - TensorFlow's name
    """Each string with its letters uppercased: ASCII letters only, or with
    encoding='utf-8' every Unicode letter."""
    return execute1(OPS["StringUpper"], [convert_to_tensor(input)],
                    {"encoding": _case_encoding(encoding, "upper")}, name=name)


def _strip_kernel(x):
    return _each(x, bytes.strip)


OPS["StringStrip"] = register("StringStrip", _strip_kernel, _string_infer(dtypes.string),
                              grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                              traits=_PYTHON_STRINGS)


@dispatchable
def strip(input, name=None):  # noqa: A002 - TensorFlow's name
    """Each string without its leading and trailing ASCII whitespace."""
    return execute1(OPS["StringStrip"], [convert_to_tensor(input)], name=name)


# -- regular expressions (Python's `re`, close to RE2 for the common syntax) -----------------


def _compile(pattern):
    try:
        return re.compile(pattern.encode("utf-8"))
    except re.error as e:
        raise ValueError("Invalid pattern: %s, error: %s" % (pattern, e)) from None


def _regex_full_match_kernel(x, pattern):
    compiled = _compile(pattern)
    return _each(x, lambda b: compiled.fullmatch(b) is not None, np.bool_)


OPS["RegexFullMatch"] = register("RegexFullMatch", _regex_full_match_kernel,
                                 _string_infer(dtypes.bool_), grad=NOT_DIFFERENTIABLE,
                                 emit=KERNEL_CALL, traits=_PYTHON_STRINGS)


def _pattern(pattern, what):
    if isinstance(pattern, bytes):
        return pattern.decode("utf-8")
    if not isinstance(pattern, str):
        raise TypeError("strings.%s: the pattern must be a Python string known when the "
                        "graph is built, got %s" % (what, type(pattern).__name__))
    _compile(pattern)  # a bad pattern is refused at the call
    return pattern


@dispatchable
def regex_full_match(input, pattern, name=None):  # noqa: A002 - TensorFlow's name
    """Whether each whole string matches the regular expression `pattern`."""
    return execute1(OPS["RegexFullMatch"], [convert_to_tensor(input)],
                    {"pattern": _pattern(pattern, "regex_full_match")}, name=name)


# RE2 rewrites name groups \0..\9 (\0: the whole match) and write a backslash as \\
_REWRITE_PIECE = re.compile(rb"\\(\\|[0-9])")


def _python_rewrite(rewrite):
    def piece(m):
        return b"\\\\" if m.group(1) == b"\\" else b"\\g<" + m.group(1) + b">"
    return _REWRITE_PIECE.sub(piece, rewrite.encode("utf-8"))


def _regex_replace_kernel(x, pattern, rewrite, replace_global):
    compiled = _compile(pattern)
    template = _python_rewrite(rewrite)
    count = 0 if replace_global else 1
    return _each(x, lambda b: compiled.sub(template, b, count=count))


OPS["StaticRegexReplace"] = register("StaticRegexReplace", _regex_replace_kernel,
                                     _string_infer(dtypes.string), grad=NOT_DIFFERENTIABLE,
                                     emit=KERNEL_CALL, traits=_PYTHON_STRINGS)


@dispatchable
def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Each string with the matches of `pattern` replaced by `rewrite` (\\1..\\9 name the
    groups, \\0 the whole match): every match, or the first with replace_global=False."""
    if isinstance(rewrite, bytes):
        rewrite = rewrite.decode("utf-8")
    if not isinstance(rewrite, str):
        raise TypeError("strings.regex_replace: the rewrite must be a Python string known "
                        "when the graph is built, got %s" % type(rewrite).__name__)
    groups = _compile(_pattern(pattern, "regex_replace")).groups
    for m in _REWRITE_PIECE.finditer(rewrite.encode("utf-8")):
        if m.group(1) != b"\\" and int(m.group(1)) > groups:
            raise ValueError("strings.regex_replace: the rewrite %r names group \\%s but the "
                             "pattern %r has %d groups" % (rewrite, m.group(1).decode(),
                                                           pattern, groups))
    return execute1(OPS["StaticRegexReplace"], [convert_to_tensor(input)],
                    {"pattern": _pattern(pattern, "regex_replace"), "rewrite": rewrite,
                     "replace_global": bool(replace_global)}, name=name)


# -- numbers to and from text ----------------------------------------------------------------

_INT_TEXT = re.compile(rb"\s*[+-]?[0-9]+\s*")


def _parse_number(b, dtype):
    """`b` parsed as a number of `dtype`, or ValueError as TensorFlow words it."""
    text = b.strip()
    try:
        if dtype.is_integer:
            if not _INT_TEXT.fullmatch(b):
                raise ValueError
            value = int(text)
            info = np.iinfo(dtype.np_dtype)
            if not info.min <= value <= info.max:
                raise ValueError
            return value
        return float(text)
    except ValueError:
        raise ValueError("StringToNumberOp could not correctly convert string: %s"
                         % b.decode("utf-8", "replace")) from None


def _to_number_kernel(x, out_type):
    return _each(x, lambda b: _parse_number(b, out_type), out_type.np_dtype)


def _to_number_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, {"string"}, "input")
    return [(attrs["out_type"], shape)]


OPS["StringToNumber"] = register("StringToNumber", _to_number_kernel, _to_number_infer,
                                 grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                                 traits=_PYTHON_STRINGS + ("may_raise",))


@dispatchable
def to_number(string_tensor, out_type=dtypes.float32, name=None):
    """Each string parsed as a number of `out_type` (float32, float64, int32 or int64);
    InvalidArgumentError for a string that is not one."""
    out_type = dtypes.as_dtype(out_type)
    if out_type not in (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64):
        raise TypeError("strings.to_number: out_type must be float32, float64, int32 or "
                        "int64, got %s" % out_type.name)
    return execute1(OPS["StringToNumber"], [convert_to_tensor(string_tensor)],
                    {"out_type": out_type}, name=name)


def _hash_bucket_kernel(x, num_buckets):
    return _each(x, lambda b: farmhash.fingerprint64(b) % num_buckets, np.int64)


OPS["StringToHashBucketFast"] = register(
    "StringToHashBucketFast", _hash_bucket_kernel, _string_infer(dtypes.int64),
    grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, traits=_PYTHON_STRINGS,
    attr_types={"num_buckets": attr_types.INT})


@dispatchable
def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002 - TensorFlow's name
    """Each string's bucket in [0, num_buckets): its FarmHash fingerprint modulo
    `num_buckets`, the same number TensorFlow gives."""
    if int(num_buckets) < 1:
        raise ValueError("to_hash_bucket_fast: num_buckets must be at least 1, got %r"
                         % (num_buckets,))
    return execute1(OPS["StringToHashBucketFast"], [convert_to_tensor(input)],
                    {"num_buckets": int(num_buckets)}, name=name)


def _decode_raw_kernel(x, out_type, little_endian=True, fixed_length=None):
    item = np.dtype(out_type.np_dtype).newbyteorder("<" if little_endian else ">")
    flat = [bytes(b) for b in np.reshape(x, [-1])]
    if fixed_length is not None:
        flat = [b[:fixed_length].ljust(fixed_length, b"\0") for b in flat]
    sizes = {len(b) for b in flat}
    if len(sizes) > 1:
        raise ValueError("DecodeRaw requires input strings to all be the same size, got "
                         "sizes %s" % sorted(sizes))
    size = sizes.pop() if sizes else (fixed_length or 0)
    if size % item.itemsize:
        raise ValueError("Input to DecodeRaw has length %d that is not a multiple of %d, the "
                         "size of %s" % (size, item.itemsize, out_type.name))
    values = np.frombuffer(b"".join(flat), dtype=item).astype(out_type.np_dtype)
    return values.reshape(np.shape(x) + (size // item.itemsize,))


def _decode_raw_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, {"string"}, "input_bytes")
    width = None
    fixed_length = attrs["fixed_length"]
    if fixed_length is not None:
        width = fixed_length // attrs["out_type"].np_dtype.itemsize
    return [(attrs["out_type"], None if shape is None else tuple(shape) + (width,))]


OPS["DecodeRaw"] = register("DecodeRaw", _decode_raw_kernel, _decode_raw_infer,
                            grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                            attr_types={"fixed_length": attr_types.optional(attr_types.INT)},
                            traits=_PYTHON_STRINGS + ("may_raise",))


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """The bytes of each string read as numbers of `out_type`: a last dimension of
    len(string) / out_type's size; the strings must all be as long (or `fixed_length`
    bytes, each cut or zero-padded to it)."""
    out_type = dtypes.as_dtype(out_type)
    if out_type is dtypes.string or out_type is dtypes.bool_:
        raise TypeError("decode_raw: out_type must be a numeric dtype, got %s" % out_type.name)
    return execute1(OPS["DecodeRaw"], [convert_to_tensor(input_bytes)],
                    {"out_type": out_type, "little_endian": bool(little_endian),
                     "fixed_length": None if fixed_length is None else int(fixed_length)},
                    name=name)


def _format_spec(dtype, precision, scientific, shortest, width, fill):
    """The printf-style format TensorFlow's AsString uses for `dtype`."""
    flags = fill + ("" if width < 0 else str(width))
    if dtype.is_floating:
        digits = "" if precision < 0 else ".%d" % precision
        return "%" + flags + digits + ("e" if scientific else "g" if shortest else "f")
    return "%" + flags + ("d" if dtype.is_integer else "s")


# The declared type of AsString's `spec`: a format that `_format_spec` writes.
_FORMAT_SPEC = attr_types.AttrType(
    "a printf format of one value ('%[fill][width][.precision]' then e, g, f, d or s)",
    lambda v: isinstance(v, str) and re.fullmatch(r"%[ 0+#-]?\d*(\.\d+)?[egfds]", v) is not None)


def _as_string_kernel(x, dtype, spec):
    if dtype is dtypes.bool_:
        return _each(x, lambda v: (spec % ("true" if v else "false")).encode("utf-8"))
    if dtype.is_floating:
        def text(v):
            if not np.isfinite(v):
                return (spec.replace("e", "s").replace("f", "s").replace("g", "s")
                        % ("nan" if np.isnan(v) else "inf" if v > 0 else "-inf"))
            return spec % float(v)
        return _each(x, lambda v: text(v).encode("utf-8"))
    if dtype is dtypes.string:
        return _each(x, lambda v: (spec % v.decode("utf-8", "replace")).encode("utf-8"))
    return _each(x, lambda v: (spec % int(v)).encode("utf-8"))


_AS_STRING_KINDS = {"float", "int", "bool", "string"}


def _as_string_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, _AS_STRING_KINDS, "input")
    return [(dtypes.string, shape)]


OPS["AsString"] = register("AsString", _as_string_kernel, _as_string_infer,
                           grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, traits=_PYTHON_STRINGS,
                           attr_types={"spec": _FORMAT_SPEC})


@dispatchable
def as_string(input, precision=-1, scientific=False, shortest=False, width=-1,  # noqa: A002
              fill="", name=None):
    """Each element written as a string: floats as printf's %f (6 digits unless
    `precision`), %e with scientific=True, %g with shortest=True; integers in decimal;
    booleans as 'true'/'false'; `width` pads on the left with `fill` (default spaces)."""
    x = convert_to_tensor(input)
    if x.dtype.kind not in _AS_STRING_KINDS:
        raise TypeError("strings.as_string: cannot write %s values" % x.dtype.name)
    if scientific and shortest:
        raise ValueError("strings.as_string: cannot select both scientific and shortest")
    if precision >= 0 and not x.dtype.is_floating:
        raise ValueError("strings.as_string: precision is only for floats, got %s"
                         % x.dtype.name)
    fill = fill.decode("utf-8") if isinstance(fill, bytes) else str(fill)
    if len(fill) > 1 or fill not in ("", " ", "0", "-", "+", "#"):
        raise ValueError("strings.as_string: fill must be one of ' ', '0', '-', '+', '#' or "
                         "'', got %r" % fill)
    if x.dtype is dtypes.bool_ or x.dtype is dtypes.string:
        fill = fill if fill in ("", " ", "-") else ""
    spec = _format_spec(x.dtype, int(precision), bool(scientific), bool(shortest),
                        int(width), fill.strip())
    return execute1(OPS["AsString"], [x], {"dtype": x.dtype, "spec": spec}, name=name)


# -- substrings and encodings ----------------------------------------------------------------


def _substr_one(s, pos, length, unit, index):
    text = s.decode("utf-8", "replace") if unit == "UTF8_CHAR" else s
    size = len(text)
    if not -size <= pos <= size:
        raise ValueError("pos %d out of range for string %r at index %d" % (pos, s, index))
    start = pos + size if pos < 0 else pos
    piece = text[start:start + max(length, 0)]
    return piece.encode("utf-8") if unit == "UTF8_CHAR" else piece


def _substr_kernel(x, pos, length, unit):
    shape = np.broadcast_shapes(np.shape(x), np.shape(pos), np.shape(length))
    xs, ps, ls = (np.broadcast_to(a, shape).reshape(-1) for a in (x, pos, length))
    out = np.empty(xs.size, dtype=object)
    for i in range(xs.size):
        out[i] = _substr_one(xs[i], int(ps[i]), int(ls[i]), unit, i)
    return out.reshape(shape)


def _substr_infer(specs, attrs):
    require_kind(specs[0][0], {"string"}, "input")
    for dtype, _ in specs[1:]:
        require_kind(dtype, {"int"}, "pos and len")
    if specs[1][0] is not specs[2][0]:
        raise SpecError("dtype", "pos and len must have the same dtype, got %s and %s"
                        % (specs[1][0].name, specs[2][0].name))
    return [(dtypes.string, common.broadcast_specs(specs))]


OPS["Substr"] = register("Substr", _substr_kernel, _substr_infer, grad=NOT_DIFFERENTIABLE,
                         emit=KERNEL_CALL, traits=_PYTHON_STRINGS + ("may_raise",))


@dispatchable
def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002 - TensorFlow's names
    """The `len` units of each string from `pos` (negative: from the end), in bytes (unit
    'BYTE') or Unicode characters ('UTF8_CHAR'); `pos` and `len` broadcast against the
    strings. A `pos` beyond the string is InvalidArgumentError; a `len` beyond it stops at
    its end."""
    if unit not in ("BYTE", "UTF8_CHAR"):
        raise ValueError("strings.substr: unit must be 'BYTE' or 'UTF8_CHAR', got %r" % (unit,))
    pos = convert_to_tensor(pos, dtype_hint=dtypes.int32)
    len_ = convert_to_tensor(len, dtype=pos.dtype)
    return execute1(OPS["Substr"], [convert_to_tensor(input), pos, len_], {"unit": unit},
                    name=name)


_ENCODINGS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}


def codec(encoding, what):
    """Python's codec name for one of TensorFlow's encodings ('UTF-8', 'UTF-16-BE',
    'UTF-32-BE'); ValueError naming `what` otherwise."""
    name = encoding.decode() if isinstance(encoding, bytes) else str(encoding)
    if name.upper() not in _ENCODINGS:
        raise ValueError("strings.%s: the encoding must be one of %s, got %r"
                         % (what, ", ".join(_ENCODINGS), encoding))
    return _ENCODINGS[name.upper()]


def check_errors(errors, what):
    """`errors` checked to be 'strict', 'replace' or 'ignore'."""
    if errors not in ("strict", "replace", "ignore"):
        raise ValueError("strings.%s: errors must be 'strict', 'replace' or 'ignore', got %r"
                         % (what, errors))
    return errors


def decode_text(b, encoding, errors, replacement_char, replace_control_characters):
    """The characters of the bytes `b` in `encoding`: invalid sequences raise ValueError
    (errors='strict'), are dropped ('ignore') or become `replacement_char` ('replace')."""
    if errors == "strict":
        try:
            text = b.decode(encoding)
        except UnicodeDecodeError:
            raise ValueError("Invalid formatting on input string %r" % (b,)) from None
    else:
        text = b.decode(encoding, errors)
        if errors == "replace" and replacement_char != 0xFFFD:
            text = text.replace("\ufffd", chr(replacement_char))
    if replace_control_characters:
        text = "".join(chr(replacement_char) if unicodedata.category(c) == "Cc" else c
                       for c in text)
    return text


def _transcode_kernel(x, input_encoding, output_encoding, errors, replacement_char,
                      replace_control_characters):
    def one(b):
        text = decode_text(b, input_encoding, errors, replacement_char,
                           replace_control_characters)
        return text.encode(output_encoding, "surrogatepass" if errors == "strict" else
                           "replace")
    return _each(x, one)


OPS["UnicodeTranscode"] = register("UnicodeTranscode", _transcode_kernel,
                                   _string_infer(dtypes.string), grad=NOT_DIFFERENTIABLE,
                                   emit=KERNEL_CALL, traits=_PYTHON_STRINGS + ("may_raise",))


def unicode_transcode(input, input_encoding, output_encoding, errors="replace",  # noqa: A002
                      replacement_char=65533, replace_control_characters=False, name=None):
    """Each string re-encoded from `input_encoding` to `output_encoding` ('UTF-8',
    'UTF-16-BE', 'UTF-32-BE'); invalid input follows `errors`."""
    attrs = {"input_encoding": codec(input_encoding, "unicode_transcode"),
             "output_encoding": codec(output_encoding, "unicode_transcode"),
             "errors": check_errors(errors, "unicode_transcode"),
             "replacement_char": int(replacement_char),
             "replace_control_characters": bool(replace_control_characters)}
    return execute1(OPS["UnicodeTranscode"], [convert_to_tensor(input)], attrs, name=name)


# -- reduce_join -----------------------------------------------------------------------------


def _reduce_join_kernel(x, axes, keepdims, separator):
    sep = separator.encode("utf-8")
    x = np.asarray(x, dtype=object)
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, kept + list(axes))
    outer = moved.shape[:len(kept)]
    rows = moved.reshape(outer + (-1,)) if moved.size or not axes else \
        np.empty(outer + (0,), dtype=object)
    out = np.empty(outer, dtype=object)
    for index in np.ndindex(*outer):
        out[index] = sep.join(rows[index])
    if keepdims:
        out = out.reshape([1 if a in axes else x.shape[a] for a in range(x.ndim)])
    return out


def _reduce_join_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, {"string"}, "inputs")
    if shape is None:
        return [(dtypes.string, None)]
    axes = attrs["axes"]
    for a in axes:
        if a >= len(shape):
            raise SpecError("shape", "axis %d is out of range for rank %d" % (a, len(shape)))
    if attrs["keepdims"]:
        return [(dtypes.string, tuple(1 if a in axes else d for a, d in enumerate(shape)))]
    return [(dtypes.string, tuple(d for a, d in enumerate(shape) if a not in axes))]


OPS["ReduceJoin"] = register("ReduceJoin", _reduce_join_kernel, _reduce_join_infer,
                             grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, traits=_PYTHON_STRINGS)


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """The strings of `inputs` joined along `axis` (None: all axes), with `separator`
    between them."""
    x = convert_to_tensor(inputs)
    rank = x.shape.rank
    if rank is None:
        raise ValueError("strings.reduce_join needs an input of known rank")
    if axis is None:
        axes = tuple(range(rank))
    else:
        listed = common.static_int_list(axis if isinstance(axis, (list, tuple)) else [axis],
                                        "strings.reduce_join's axis")
        axes = tuple(sorted({common.normalize_axis(a, rank) for a in listed}))
    sep = separator.decode("utf-8") if isinstance(separator, bytes) else str(separator)
    return execute1(OPS["ReduceJoin"], [x],
                    {"axes": axes, "keepdims": bool(keepdims), "separator": sep}, name=name)


# -- ops with ragged results: each string becomes a row of values ----------------------------


def _rows(x, fn, np_dtype):
    """The values and row_splits of the rows `fn(s)` of each string `s` of the vector `x`."""
    splits = np.zeros(len(x) + 1, dtype=np.int64)
    pieces = []
    for i, s in enumerate(x):
        row = fn(s)
        pieces.extend(row)
        splits[i + 1] = len(pieces)
    if np_dtype is not object:
        return np.asarray(pieces, dtype=np_dtype), splits
    values = np.empty(len(pieces), dtype=object)
    for i, piece in enumerate(pieces):
        values[i] = piece
    return values, splits


def _rows_infer(values_dtype):
    def infer(specs, attrs):
        dtype, shape = specs[0]
        require_kind(dtype, {"string"}, "input")
        if shape is not None and len(shape) != 1:
            raise SpecError("shape", "the input must be a vector of strings")
        rows = None if shape is None or shape[0] is None else shape[0] + 1
        return [(values_dtype, (None,)), (dtypes.int64, (rows,))]
    return infer


def _split_one(s, sep, maxsplit):
    if sep is None:
        return s.split(None, maxsplit)
    return s.split(sep.encode("utf-8"), maxsplit)


def _split_kernel(x, sep, maxsplit):
    return _rows(x, lambda s: _split_one(s, sep, maxsplit), object)


OPS["StringSplitV2"] = register("StringSplitV2", _split_kernel, _rows_infer(dtypes.string),
                                grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                                traits=_PYTHON_STRINGS)


def split_rows(strings, sep, maxsplit):
    """The (values, row_splits) of each string of the vector `strings` split at `sep` (None:
    runs of whitespace, empty pieces dropped), at most `maxsplit` times (-1: no limit)."""
    return execute(OPS["StringSplitV2"], [strings], {"sep": sep, "maxsplit": int(maxsplit)})


def _bytes_split_kernel(x):
    return _rows(x, lambda s: [s[i:i + 1] for i in range(len(s))], object)


OPS["StringBytesSplit"] = register("StringBytesSplit", _bytes_split_kernel,
                                   _rows_infer(dtypes.string), grad=NOT_DIFFERENTIABLE,
                                   emit=KERNEL_CALL, traits=_PYTHON_STRINGS)


def bytes_split_rows(strings):
    """The (values, row_splits) of the single bytes of each string of the vector
    `strings`."""
    return execute(OPS["StringBytesSplit"], [strings])


def _unicode_decode_kernel(x, input_encoding, errors, replacement_char,
                           replace_control_characters, as_chars):
    def one(b):
        text = decode_text(b, input_encoding, errors, replacement_char,
                           replace_control_characters)
        if as_chars:
            return [c.encode("utf-8", "replace") for c in text]
        return [ord(c) for c in text]
    return _rows(x, one, object if as_chars else np.int32)


def _unicode_decode_infer(specs, attrs):
    return _rows_infer(dtypes.string if attrs["as_chars"] else dtypes.int32)(specs, attrs)


OPS["UnicodeDecode"] = register("UnicodeDecode", _unicode_decode_kernel,
                                _unicode_decode_infer, grad=NOT_DIFFERENTIABLE,
                                emit=KERNEL_CALL, traits=_PYTHON_STRINGS + ("may_raise",))


def unicode_decode_rows(strings, input_encoding, errors, replacement_char,
                        replace_control_characters, as_chars):
    """The (values, row_splits) of the characters of each string of the vector `strings`:
    int32 code points, or (as_chars) each character as a UTF-8 string."""
    attrs = {"input_encoding": codec(input_encoding, "unicode_decode"),
             "errors": check_errors(errors, "unicode_decode"),
             "replacement_char": int(replacement_char),
             "replace_control_characters": bool(replace_control_characters),
             "as_chars": bool(as_chars)}
    return execute(OPS["UnicodeDecode"], [strings], attrs)


def _encode_char(code, errors, replacement_char):
    if 0 <= code <= 0x10FFFF and not 0xD800 <= code <= 0xDFFF:
        return chr(code)
    if errors == "strict":
        raise ValueError("code point %d is not a valid Unicode character" % code)
    return "" if errors == "ignore" else chr(replacement_char)


def _unicode_encode_kernel(values, splits, output_encoding, errors, replacement_char):
    out = np.empty(len(splits) - 1, dtype=object)
    for i in range(len(out)):
        text = "".join(_encode_char(int(c), errors, replacement_char)
                       for c in values[splits[i]:splits[i + 1]])
        out[i] = text.encode(output_encoding)
    return out


def _unicode_encode_infer(specs, attrs):
    (dtype, shape), (splits_dtype, splits) = specs
    require_kind(dtype, {"int"}, "the code points")
    rows = None if splits is None or splits[0] is None else splits[0] - 1
    return [(dtypes.string, (rows,))]


OPS["UnicodeEncode"] = register("UnicodeEncode", _unicode_encode_kernel,
                                _unicode_encode_infer, grad=NOT_DIFFERENTIABLE,
                                emit=KERNEL_CALL, traits=_PYTHON_STRINGS + ("may_raise",))


def unicode_encode_rows(code_points, row_splits, output_encoding, errors, replacement_char):
    """A string per row of the int code points `code_points` partitioned by `row_splits`,
    encoded in `output_encoding`."""
    attrs = {"output_encoding": codec(output_encoding, "unicode_encode"),
             "errors": check_errors(errors, "unicode_encode"),
             "replacement_char": int(replacement_char)}
    return execute1(OPS["UnicodeEncode"], [code_points, row_splits], attrs)


def _ngram_rows(row, widths, separator, left, right, padding_width, preserve_short):
    sep = separator.encode("utf-8")
    out: list[Any] = []
    for width in widths:
        pad = width - 1 if padding_width is None or padding_width < 0 else \
            min(padding_width, width - 1)
        padded = [left] * pad + list(row) + [right] * pad
        count = len(padded) - width + 1
        out.extend(sep.join(padded[i:i + width]) for i in range(max(count, 0)))
    if not out and preserve_short and len(row):
        out.append(sep.join(row))
    return out


def _ngrams_kernel(values, splits, widths, separator, left, right, padding_width,
                   preserve_short):
    rows = [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]
    left_b, right_b = left.encode("utf-8"), right.encode("utf-8")
    return _rows(rows, lambda row: _ngram_rows(row, widths, separator, left_b, right_b,
                                               padding_width, preserve_short), object)


def _ngrams_infer(specs, attrs):
    (dtype, shape), (_, splits) = specs
    require_kind(dtype, {"string"}, "data")
    return [(dtypes.string, (None,)), (dtypes.int64, splits)]


OPS["StringNGrams"] = register("StringNGrams", _ngrams_kernel, _ngrams_infer,
                               grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                               traits=_PYTHON_STRINGS)


def ngram_rows(values, row_splits, widths, separator, pad_values, padding_width,
               preserve_short_sequences):
    """The (values, row_splits) of the n-grams of each row of the strings `values`
    partitioned by `row_splits`: for each width of `widths`, the windows of that many
    strings joined by `separator` (rows padded by `pad_values` (left, right) on each side,
    `padding_width` of them, None: width - 1)."""
    if pad_values is None:
        left = right = ""
        padding_width = 0
    elif isinstance(pad_values, (list, tuple)):
        if len(pad_values) != 2:
            raise ValueError("strings.ngrams: pad_values must be a string or a pair of "
                             "strings, got %r" % (pad_values,))
        left, right = pad_values
    else:
        left = right = pad_values
    left, right = (v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in (left, right))
    if padding_width is not None and padding_width == 0 and pad_values is not None:
        raise ValueError("strings.ngrams: padding_width must be > 0 with pad_values")
    attrs = {"widths": tuple(widths), "separator": str(separator), "left": left,
             "right": right, "padding_width": padding_width,
             "preserve_short": bool(preserve_short_sequences)}
    return execute(OPS["StringNGrams"], [values, row_splits], attrs)


# -- tf.io.decode_csv ------------------------------------------------------------------------


def csv_fields(record, delim, use_quote, index):
    """The fields of one CSV record (bytes), as TensorFlow's DecodeCSV splits them."""
    fields, i, n = [], 0, len(record)
    while True:
        if use_quote and i < n and record[i:i + 1] == b'"':
            field, i = bytearray(), i + 1
            while True:
                if i >= n:
                    raise ValueError("Quoted field has to end with quote followed by delim "
                                     "or end in record %d" % index)
                c = record[i:i + 1]
                if c == b'"':
                    if record[i + 1:i + 2] == b'"':
                        field += b'"'
                        i += 2
                        continue
                    i += 1
                    break
                field += c
                i += 1
            if i < n and record[i:i + 1] != delim:
                raise ValueError("Quoted fields must be followed by a delimiter or the end of "
                                 "record %d" % index)
            fields.append(bytes(field))
        else:
            end = record.find(delim, i)
            end = n if end < 0 else end
            field = record[i:end]
            if use_quote and b'"' in field:
                raise ValueError("Unquoted fields cannot have quotes/CRLFs inside (record %d)"
                                 % index)
            fields.append(field)
            i = end
        if i >= n:
            return fields
        i += 1  # the delimiter
        if i == n:
            fields.append(b"")
            return fields


def _csv_value(field, default, dtype, column, index):
    if dtype is dtypes.string:
        return field
    try:
        if dtype.is_integer:
            value = int(field)
            info = np.iinfo(dtype.np_dtype)
            if not info.min <= value <= info.max:
                raise ValueError
            return value
        return float(field)
    except ValueError:
        raise ValueError("Field %d in record %d is not a valid %s: %s"
                         % (column, index, dtype.name, field.decode("utf-8", "replace"))
                         ) from None


def parse_csv_record(record, index, defaults, dtypes_, field_delim=",", use_quote_delim=True,
                     na_value="", select_cols=None):
    """The values of the CSV line `record` (bytes; `index` names it in errors), one per
    column of `dtypes_`; an empty field (or `na_value`) takes the column's default (an
    empty default makes it required). ValueError as TensorFlow words it."""
    fields = csv_fields(record, field_delim.encode("utf-8"), use_quote_delim, index)
    if select_cols is not None:
        if len(fields) <= select_cols[-1]:
            raise ValueError("Expect %d fields but have %d in record %d"
                             % (select_cols[-1] + 1, len(fields), index))
        fields = [fields[c] for c in select_cols]
    elif len(fields) != len(dtypes_):
        raise ValueError("Expect %d fields but have %d in record %d"
                         % (len(dtypes_), len(fields), index))
    na = na_value.encode("utf-8")
    values = []
    for column, (field, default, dtype) in enumerate(zip(fields, defaults, dtypes_)):
        if field == b"" or field == na:
            if np.size(default) == 0:
                raise ValueError("Field %d is required but missing in record %d!"
                                 % (column, index))
            values.append(np.reshape(default, [-1])[0])
        else:
            values.append(_csv_value(field, default, dtype, column, index))
    return values


def _decode_csv_kernel(records, *defaults, dtypes_, field_delim, use_quote_delim, na_value,
                       select_cols):
    flat = np.reshape(records, [-1])
    columns = [np.empty(flat.size, dtype=d.np_dtype) for d in dtypes_]
    for index, record in enumerate(flat):
        values = parse_csv_record(record, index, defaults, dtypes_, field_delim,
                                  use_quote_delim, na_value, select_cols)
        for column, value in zip(columns, values):
            column[index] = value
    out = tuple(c.reshape(np.shape(records)) for c in columns)
    return out if len(out) != 1 else out[0]  # one output: itself


def _decode_csv_infer(specs, attrs):
    dtype, shape = specs[0]
    require_kind(dtype, {"string"}, "records")
    for (d, s), expected in zip(specs[1:], attrs["dtypes_"]):
        if d is not expected:
            raise SpecError("dtype", "record_defaults hold %s where %s is expected"
                            % (d.name, expected.name))
        if s is not None and len(s) > 1:
            raise SpecError("shape", "each of record_defaults must be a scalar, or a vector "
                                     "of at most one element")
    return [(d, shape) for d in attrs["dtypes_"]]


OPS["DecodeCSV"] = register("DecodeCSV", _decode_csv_kernel, _decode_csv_infer,
                            grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                            traits=_PYTHON_STRINGS + ("may_raise",))


_CSV_DTYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True,
               name=None, na_value="", select_cols=None):
    """The columns of the CSV lines `records`: one tensor per entry of `record_defaults`
    (each a one-element list or tensor giving the column's dtype and its value where the
    field is empty or `na_value`; an empty one makes the field required)."""
    strings = convert_to_tensor(records)
    defaults = []
    for i, d in enumerate(record_defaults):
        if isinstance(d, (list, tuple)) and len(d) == 0:
            raise ValueError("decode_csv: record_defaults[%d] is an empty list: give a "
                             "dtype with an empty tensor, e.g. tf.constant([], tf.int32)" % i)
        t = convert_to_tensor(d)
        if t.dtype not in _CSV_DTYPES:
            raise TypeError("decode_csv: record_defaults[%d] has dtype %s; columns can be "
                            "float32, float64, int32, int64 or string" % (i, t.dtype.name))
        defaults.append(t)
    if len(str(field_delim)) != 1:
        raise ValueError("decode_csv: field_delim must be one character, got %r"
                         % (field_delim,))
    if select_cols is not None:
        select_cols = tuple(int(c) for c in select_cols)
        if any(b <= a for a, b in zip(select_cols, select_cols[1:])) or \
                (select_cols and select_cols[0] < 0):
            raise ValueError("decode_csv: select_cols must be non-negative and strictly "
                             "increasing, got %r" % (select_cols,))
        if len(select_cols) != len(defaults):
            raise ValueError("decode_csv: %d select_cols for %d record_defaults"
                             % (len(select_cols), len(defaults)))
    attrs = {"dtypes_": tuple(t.dtype for t in defaults), "field_delim": str(field_delim),
             "use_quote_delim": bool(use_quote_delim), "na_value": str(na_value),
             "select_cols": select_cols}
    return execute(OPS["DecodeCSV"], [strings] + defaults, attrs, name=name)
