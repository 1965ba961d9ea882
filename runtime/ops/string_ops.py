"""String ops: join (StringJoin), length (StringLength) and format (StringFormat, tensors
written as tf.print writes them). Strings are stored as UTF-8 bytes."""

import numpy as np

from runtime import dtypes
from runtime.ops import common, io_ops
from runtime.ops.common import SpecError, convert_to_tensor, require_kind
from runtime.ops.registry import KERNEL_CALL, NOT_DIFFERENTIABLE, execute1, register

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
        text += io_ops.format_tensor_value(value, dtype, summarize) + piece
    return np.asarray(text.encode("utf-8"), dtype=object)


OPS["StringFormat"] = register("StringFormat", _format_kernel, _format_infer,
                               grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
                               traits=_PYTHON_STRINGS)


def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001
    """A scalar string: `template` with each `placeholder` replaced by the next tensor of
    `inputs`, written as tf.print writes it (`summarize` elements at each end per dimension;
    -1: all)."""
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    tensors = [convert_to_tensor(t) for t in inputs]
    attrs = {"template": str(template), "placeholder": str(placeholder),
             "dtypes_": tuple(t.dtype for t in tensors), "summarize": int(summarize)}
    if attrs["template"].count(attrs["placeholder"]) != len(tensors):
        raise ValueError("strings.format: the template %r has %d placeholders for %d tensors"
                         % (template, attrs["template"].count(attrs["placeholder"]),
                            len(tensors)))
    return execute1(OPS["StringFormat"], tensors, attrs, name=name)
