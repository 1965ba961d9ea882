"""The generic JSON encoding of op attributes and Python values of signatures.

    None, true/false, integers, strings    themselves
    finite float                           a JSON number (always with a '.' or exponent)
    other float                            {"float": "nan" | "inf" | "-inf"}
    tuple                                  a JSON list
    list                                   {"list": [...]}
    dict with string keys                  {"dict": {...}}
    DType                                  {"dtype": "float32"}
    numpy array / numpy scalar             {"array": ref} / {"scalar": ref}  (ref: values.py)
    If/While branch or body                {"subgraph": {...}}              (graph_encode.py)
    a called ConcreteFunction              {"function": key}                (graph_encode.py)
    numpy random Generator                 {"generator": index}             (graph_encode.py)

Anything else cannot be saved (encode raises NotSaveableError). An op declares codecs of its
own for attributes outside this list (`saving=attr_codecs(...)` in its `register` call).
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import numpy as np

from runtime import dtypes
from runtime.concrete_function import ConcreteFunction
from runtime.graph import SubGraph
from runtime.saved_model.errors import NotSaveableError
from runtime.saved_model.schema import Reader
from runtime.tensor_array.value import variant

TAGS = ("float", "list", "dict", "dtype", "array", "scalar", "subgraph", "function",
        "generator")
_FLOATS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}
# Every dtype a graph holds, by name: the tensor dtypes, variables' and TensorArrays' handles.
DTYPES = {d.name: d for d in dtypes.ALL + (dtypes.resource, variant)}


class EncodeContext(Protocol):
    """What the encoder needs for values stored outside the attribute itself."""

    def array(self, value: Any) -> Any:
        """The JSON reference of an array stored in a `.npz` file."""

    def subgraph(self, value: SubGraph) -> Any:
        """The JSON of an If/While sub-graph."""

    def function(self, value: ConcreteFunction) -> str:
        """The key of a called trace in `functions`."""

    def generator(self, value: np.random.Generator) -> int:
        """The index of a random generator in `generators`."""


class DecodeContext(Protocol):
    """What the decoder needs for values stored outside the attribute itself."""

    reader: Reader

    def array(self, ref: Any, where: str) -> np.ndarray:
        """The array an `array` reference names (`where`: the JSON path, for errors)."""

    def subgraph(self, data: Any, where: str) -> SubGraph:
        """The If/While sub-graph of its JSON."""

    def function(self, key: str, where: str) -> ConcreteFunction:
        """The loaded trace of a key in `functions`."""

    def generator(self, index: int, where: str) -> np.random.Generator:
        """The random generator of an index in `generators`."""


def encode(value: Any, ctx: EncodeContext | None) -> Any:
    """The JSON form of `value` (see the module docstring); `ctx` None allows plain values
    only (no arrays, sub-graphs, functions or generators)."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int) and type(value) is int:
        return value
    if type(value) is float:
        if math.isfinite(value):
            return value
        return {"float": "nan" if math.isnan(value) else "inf" if value > 0 else "-inf"}
    if type(value) is tuple:
        return [encode(v, ctx) for v in value]
    if type(value) is list:
        return {"list": [encode(v, ctx) for v in value]}
    if type(value) is dict and all(isinstance(k, str) for k in value):
        return {"dict": {k: encode(v, ctx) for k, v in value.items()}}
    if isinstance(value, dtypes.DType):
        return {"dtype": value.name}
    if ctx is not None:
        if isinstance(value, np.ndarray):
            return {"array": ctx.array(value)}
        if isinstance(value, np.generic):
            return {"scalar": ctx.array(np.asarray(value))}
        if isinstance(value, SubGraph):
            return {"subgraph": ctx.subgraph(value)}
        if isinstance(value, ConcreteFunction):
            return {"function": ctx.function(value)}
        if isinstance(value, np.random.Generator):
            return {"generator": ctx.generator(value)}
    raise NotSaveableError("a %s value (%s) cannot be saved"
                           % (type(value).__name__, _short_repr(value)))


def decode(data: Any, where: str, ctx: DecodeContext | None, reader: Reader) -> Any:
    """The value that JSON `data` encodes (see `encode`); raises SavedModelError for data
    that `encode` never writes."""
    if data is None or isinstance(data, (bool, str, int, float)):
        return data
    if isinstance(data, list):
        return tuple(decode(v, "%s[%d]" % (where, i), ctx, reader) for i, v in enumerate(data))
    reader.obj(data, where)
    if len(data) != 1 or next(iter(data)) not in TAGS:
        reader.fail(where, "expected one of the tags %s, found the fields %s"
                    % (", ".join(TAGS), sorted(data)))
    tag, body = next(iter(data.items()))
    inner = "%s.%s" % (where, tag)
    if tag == "float":
        if body not in _FLOATS:
            reader.fail(inner, "expected 'nan', 'inf' or '-inf', found %r" % (body,))
        return _FLOATS[body]
    if tag == "list":
        return [decode(v, "%s[%d]" % (inner, i), ctx, reader)
                for i, v in enumerate(reader.seq(body, inner))]
    if tag == "dict":
        return {k: decode(v, "%s.%s" % (inner, k), ctx, reader)
                for k, v in reader.obj(body, inner).items()}
    if tag == "dtype":
        return decode_dtype(body, inner, reader)
    if ctx is None:
        reader.fail(where, "a %r value is not allowed here" % tag)
    if tag == "array":
        return ctx.array(body, inner)
    if tag == "scalar":
        array = ctx.array(body, inner)
        if array.ndim != 0:
            reader.fail(inner, "a scalar must have shape []")
        return array[()]
    if tag == "subgraph":
        return ctx.subgraph(body, inner)
    if tag == "function":
        return ctx.function(reader.text(body, inner), inner)
    return ctx.generator(reader.integer(body, inner), inner)


def decode_dtype(data: Any, where: str, reader: Reader) -> dtypes.DType:
    """The DType named by `data` (a name such as 'float32', or 'resource')."""
    name = reader.text(data, where)
    found = DTYPES.get(name)
    if found is None:
        reader.fail(where, "unknown dtype %r" % name)
    return found


def encode_shape(shape: Any) -> Any:
    """A static shape as JSON: a list of ints and nulls, or null for an unknown rank."""
    return None if shape is None else [None if d is None else int(d) for d in shape]


def decode_shape(data: Any, where: str, reader: Reader) -> Any:
    """The static shape that `encode_shape` wrote."""
    if data is None:
        return None
    return tuple(None if d is None else reader.integer(d, where)
                 for d in reader.seq(data, where))


def _short_repr(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
