"""Nested Python structures of a function's signature and outputs, as JSON.

Leaves are TensorSpecs `{"tensor_spec": {"dtype", "shape", "name"}}`, VariableSpecs
`{"variable_spec": {...}}`, the function's outputs `{"output": i}` (the i-th flat output
tensor) and plain Python values (attrs.py's encoding without arrays). Containers are JSON lists
(tuples), `{"list": [...]}`, `{"dict": [[key, value], ...]}` and `{"namedtuple": {"name",
"fields", "values"}}` (rebuilt as a namedtuple class of that name and fields). A
SparseTensorSpec is `{"sparse_tensor_spec": {"dtype", "shape"}}`, a SparseTensor among the
outputs `{"sparse_tensor": [indices, values, dense_shape]}` (its three component leaves).
"""

from __future__ import annotations

import collections
import keyword
from typing import Any

from runtime.composite.ragged import RaggedTensor, RaggedTensorSpec
from runtime.composite.sparse import SparseTensor, SparseTensorSpec
from runtime.saved_model import attrs as attr_codec
from runtime.saved_model.errors import NotSaveableError
from runtime.saved_model.schema import Reader
from runtime.signature import TensorSpec, VariableSpec
from runtime.tensor import SymbolicTensor

_TAGS = ("tensor_spec", "variable_spec", "output", "list", "dict", "namedtuple",
         "sparse_tensor_spec", "sparse_tensor", "ragged_spec", "ragged")


def encode_structure(value: Any, flat_index: dict[int, int] | None) -> Any:
    """The JSON of `value`; with `flat_index` (id(output tensor) -> position), output
    tensors are allowed as leaves."""
    if isinstance(value, (TensorSpec, VariableSpec)):
        tag = "tensor_spec" if isinstance(value, TensorSpec) else "variable_spec"
        return {tag: {"dtype": value.dtype.name, "shape": attr_codec.encode_shape(value._shape),
                      "name": value.name}}
    if isinstance(value, SparseTensorSpec):
        return {"sparse_tensor_spec": {"dtype": value.dtype.name,
                                       "shape": attr_codec.encode_shape(value._shape)}}
    if isinstance(value, SparseTensor):
        return {"sparse_tensor": [encode_structure(c, flat_index)
                                  for c in value._to_components()]}
    if isinstance(value, RaggedTensorSpec):
        return {"ragged_spec": {"dtype": value.dtype.name,
                                "shape": attr_codec.encode_shape(value._shape),
                                "ragged_rank": value.ragged_rank}}
    if isinstance(value, RaggedTensor):
        return {"ragged": [encode_structure(c, flat_index) for c in value._to_components()]}
    if isinstance(value, SymbolicTensor) and flat_index is not None and \
            id(value) in flat_index:
        return {"output": flat_index[id(value)]}
    if isinstance(value, tuple) and hasattr(type(value), "_fields"):
        fields = list(getattr(value, "_fields"))  # noqa: B009 - a namedtuple's fields
        return {"namedtuple": {"name": type(value).__name__, "fields": fields,
                               "values": [encode_structure(v, flat_index) for v in value]}}
    if type(value) is tuple:
        return [encode_structure(v, flat_index) for v in value]
    if type(value) is list:
        return {"list": [encode_structure(v, flat_index) for v in value]}
    if type(value) is dict:
        return {"dict": [[attr_codec.encode(k, None), encode_structure(v, flat_index)]
                         for k, v in value.items()]}
    try:
        return attr_codec.encode(value, None)
    except NotSaveableError:
        raise NotSaveableError("its signature or outputs hold %r (%s), which a saved model "
                               "cannot hold" % (value, type(value).__name__)) from None


def decode_structure(data: Any, where: str, reader: Reader,
                     flat_outputs: list[SymbolicTensor] | None) -> Any:
    """The structure `encode_structure` wrote; output leaves become `flat_outputs` items."""
    if isinstance(data, list):
        return tuple(decode_structure(v, "%s[%d]" % (where, i), reader, flat_outputs)
                     for i, v in enumerate(data))
    if not isinstance(data, dict) or len(data) != 1 or next(iter(data)) not in _TAGS:
        return attr_codec.decode(data, where, None, reader)
    tag, body = next(iter(data.items()))
    inner = "%s.%s" % (where, tag)
    if tag in ("tensor_spec", "variable_spec"):
        body = reader.obj(body, inner, ("dtype", "shape", "name"))
        dtype = attr_codec.decode_dtype(body["dtype"], inner + ".dtype", reader)
        shape = attr_codec.decode_shape(body["shape"], inner + ".shape", reader)
        name = body["name"]
        if name is not None:
            reader.text(name, inner + ".name")
        if tag == "tensor_spec":
            if dtype.name == "resource":
                reader.fail(inner + ".dtype", "a tensor cannot be a resource")
            return TensorSpec(shape, dtype, name)
        return VariableSpec(shape, dtype, name)
    if tag == "sparse_tensor_spec":
        body = reader.obj(body, inner, ("dtype", "shape"))
        return SparseTensorSpec(attr_codec.decode_shape(body["shape"], inner + ".shape", reader),
                                attr_codec.decode_dtype(body["dtype"], inner + ".dtype", reader))
    if tag == "sparse_tensor":
        parts = [decode_structure(v, "%s[%d]" % (inner, i), reader, flat_outputs)
                 for i, v in enumerate(reader.seq(body, inner))]
        if len(parts) != 3 or not all(isinstance(p, SymbolicTensor) for p in parts):
            reader.fail(inner, "expected the three output tensors of a SparseTensor")
        return SparseTensor._make(*parts)
    if tag == "ragged_spec":
        body = reader.obj(body, inner, ("dtype", "shape", "ragged_rank"))
        return RaggedTensorSpec(attr_codec.decode_shape(body["shape"], inner + ".shape", reader),
                                attr_codec.decode_dtype(body["dtype"], inner + ".dtype", reader),
                                reader.integer(body["ragged_rank"], inner + ".ragged_rank"))
    if tag == "ragged":
        parts = reader.seq(body, inner)
        if len(parts) != 2:
            reader.fail(inner, "expected [values, row_splits]")
        values, splits = (decode_structure(v, "%s[%d]" % (inner, i), reader, flat_outputs)
                          for i, v in enumerate(parts))
        if not isinstance(values, (SymbolicTensor, RaggedTensor)) or \
                not isinstance(splits, SymbolicTensor):
            reader.fail(inner, "expected the output tensors of a RaggedTensor")
        return RaggedTensor._make(values, splits)
    if tag == "output":
        index = reader.integer(body, inner)
        if flat_outputs is None or index >= len(flat_outputs):
            reader.fail(inner, "no output %d here" % index)
        return flat_outputs[index]
    if tag == "list":
        return [decode_structure(v, "%s[%d]" % (inner, i), reader, flat_outputs)
                for i, v in enumerate(reader.seq(body, inner))]
    if tag == "dict":
        result = {}
        for i, item in enumerate(reader.seq(body, inner)):
            at = "%s[%d]" % (inner, i)
            item = reader.seq(item, at)
            if len(item) != 2:
                reader.fail(at, "expected [key, value]")
            key = attr_codec.decode(item[0], at + "[0]", None, reader)
            try:
                hash(key)
            except TypeError:
                reader.fail(at + "[0]", "a dict key must be hashable")
            result[key] = decode_structure(item[1], at + "[1]", reader, flat_outputs)
        return result
    body = reader.obj(body, inner, ("name", "fields", "values"))
    name = reader.text(body["name"], inner + ".name")
    fields = [reader.text(f, inner + ".fields") for f in reader.seq(body["fields"],
                                                                    inner + ".fields")]
    values = [decode_structure(v, "%s.values[%d]" % (inner, i), reader, flat_outputs)
              for i, v in enumerate(reader.seq(body["values"], inner + ".values"))]
    names = [name] + fields
    if len(values) != len(fields) or len(set(fields)) != len(fields) or not all(
            n.isidentifier() and not keyword.iskeyword(n) for n in names) or any(
            f.startswith("_") for f in fields):
        reader.fail(inner, "not a valid namedtuple (identifiers, one value per field)")
    return collections.namedtuple(name, fields)(*values)
