"""The declared types of op attributes: a small closed vocabulary that a saved model's loader
checks every decoded attribute value against, before anything compiles.

An op declares the type of an attribute in its `register` call
(`attr_types={"perm": INTS, ...}`), or by a kernel parameter default of type bool or str, or
by an attribute codec of its `saving` (the codec's decode checks the value), or, most often,
by the naming convention of `conventional_type` (`dtype`, `*_dtype`, `shape`, `axis`,
`keepdims`, `transpose_*`...), which every op registered so far follows; a test walks the
registry so that a new op whose attribute has no type fails.

    DTYPE        a DType                    SHAPE      a static shape: None, or a tuple of
    INT          an integer (not a bool)               non-negative ints and Nones
    BOOL         a bool                     INTS       a tuple or list of integers
    FLOAT        a real number              AXIS       an integer, a list of them, or None
    STR          a string                   ARRAY      a numpy array or scalar
    SUBGRAPH     an If/While branch or body FUNCTION   a called concrete function
    GENERATOR    a numpy random Generator   PLAIN      nested plain values (numbers,
    SCALAR       a number, bool or string              strings, dtypes, tuples, lists, dicts)
    SPECS        (dtype, shape) pairs       CODEC      checked by the op's attribute codec
    CALLABLE     a Python callable          TRACE_ONLY any object, of an op never saved
    optional(t), one_of(t, ...), sequence_of(t), choice(value, ...): combinations.

CALLABLE and TRACE_ONLY attributes live only in traced graphs: saving refuses them, and a
loader refuses them whatever the value (NEVER_LOADED).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from runtime.dtypes import DType


class AttrType:
    """One attribute type: `problem(value)` says why `value` is not of it, or None."""

    __slots__ = ("name", "_accepts")

    def __init__(self, name: str, accepts: Callable[[Any], bool]) -> None:
        self.name = name
        self._accepts = accepts

    def accepts(self, value: Any) -> bool:
        """True when `value` is of this type."""
        return self._accepts(value)

    def problem(self, value: Any) -> str | None:
        """None when `value` is of this type, else what is wrong with it."""
        if self._accepts(value):
            return None
        return "expected %s, found %s" % (self.name, _describe(value))

    def __repr__(self) -> str:
        return "<AttrType %s>" % self.name


def _describe(value: Any) -> str:
    text = repr(value)
    return "%s (%s)" % (type(value).__name__, text if len(text) <= 40 else text[:37] + "...")


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_dim(value: Any) -> bool:
    return value is None or _is_int(value) and value >= 0


def _is_ints(value: Any) -> bool:
    return isinstance(value, (tuple, list)) and all(_is_int(v) for v in value)


def _is_plain(value: Any) -> bool:
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (tuple, list)):
            stack.extend(v)
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif not (v is None or isinstance(v, (bool, int, float, str, DType, np.generic))):
            return False
    return True


def _instance_of(reference: str) -> Callable[[Any], bool]:
    """A check that a value is an instance of the class named 'package.module:Class',
    imported at the first check (the classes of graphs and traces import the registry,
    which imports this module)."""
    found: list[type] = []

    def accepts(value: Any) -> bool:
        if not found:
            module, _, name = reference.partition(":")
            found.append(getattr(importlib.import_module(module), name))
        return isinstance(value, found[0])
    return accepts


DTYPE = AttrType("a dtype", lambda v: isinstance(v, DType))
SHAPE = AttrType("a static shape (null, or a list of non-negative integers and nulls)",
                 lambda v: v is None or isinstance(v, (tuple, list)) and all(map(_is_dim, v)))
INT = AttrType("an integer", _is_int)
BOOL = AttrType("a boolean", lambda v: isinstance(v, (bool, np.bool_)))
FLOAT = AttrType("a number", lambda v: _is_int(v) or isinstance(v, (float, np.floating)))
STR = AttrType("a string", lambda v: isinstance(v, str))
INTS = AttrType("a list of integers", _is_ints)
AXIS = AttrType("an axis (an integer, a list of integers, or null)",
                lambda v: v is None or _is_int(v) or _is_ints(v))
ARRAY = AttrType("a numpy array or scalar", lambda v: isinstance(v, (np.ndarray, np.generic)))
SUBGRAPH = AttrType("a sub-graph", _instance_of("runtime.graph:SubGraph"))
FUNCTION = AttrType("a concrete function",
                    _instance_of("runtime.concrete_function:ConcreteFunction"))
GENERATOR = AttrType("a random generator", lambda v: isinstance(v, np.random.Generator))
PLAIN = AttrType("plain values (numbers, strings, dtypes, lists, dicts)", _is_plain)
SCALAR = AttrType("a number, boolean or string",
                  lambda v: isinstance(v, (bool, int, float, complex, str, bytes, np.generic)))
# Checked by the op's own attribute codec when it decodes the value (see registry.AttrCodec).
CODEC = AttrType("a value its codec decodes", lambda v: True)
# A Python function held by a traced graph: saving refuses it, and a loader refuses it.
CALLABLE = AttrType("a Python callable", callable)
# Any Python object, held by an op that is never saved (its `saving` is not_saveable(...)).
TRACE_ONLY = AttrType("a Python object of a traced graph", lambda v: True)
# The types a loader refuses whatever the value: a saved model never holds such attributes.
NEVER_LOADED = (CALLABLE, TRACE_ONLY)


def optional(t: AttrType) -> AttrType:
    """`t`, or None."""
    return AttrType("%s or null" % t.name, lambda v: v is None or t.accepts(v))


def one_of(*types: AttrType) -> AttrType:
    """Any one of `types`."""
    return AttrType(" or ".join(t.name for t in types),
                    lambda v: any(t.accepts(v) for t in types))


def choice(*options: Any) -> AttrType:
    """One of the values `options` (strings such as 'SAME', 'VALID')."""
    return AttrType("one of %s" % ", ".join(map(repr, options)),
                    lambda v: isinstance(v, Hashable) and v in options)


def sequence_of(t: AttrType) -> AttrType:
    """A tuple or list whose every item is of `t`."""
    return AttrType("a list of (%s)" % t.name,
                    lambda v: isinstance(v, (tuple, list)) and all(t.accepts(x) for x in v))


DTYPES = sequence_of(DTYPE)
STRS = sequence_of(STR)
SHAPES = sequence_of(SHAPE)
# Output specs of a sub-graph or function: (dtype, static shape) pairs.
SPECS = sequence_of(AttrType("a (dtype, shape) pair",
                             lambda v: isinstance(v, (tuple, list)) and len(v) == 2
                             and DTYPE.accepts(v[0]) and SHAPE.accepts(v[1])))

# The types that attribute names mean in every op that has them (exact names, then name
# endings, then name beginnings); `conventional_type` reads them. A name that means another
# thing in some op is declared by that op instead.
_BY_NAME: dict[str, AttrType] = {
    "dtype": DTYPE, "out_type": DTYPE, "output_type": DTYPE, "out_idx": DTYPE,
    "shape": SHAPE, "element_shape": SHAPE, "static_shape": SHAPE,
    "axis": AXIS, "perm": optional(INTS), "select_cols": optional(INTS),
    **dict.fromkeys(("axes", "dilations", "fft_length", "ksize", "multiples", "repeats",
                     "shift", "sizes", "strides", "widths"), INTS),
    "paddings": sequence_of(INTS),
    **dict.fromkeys(("accumulate", "as_chars", "binary_output", "descending", "dynamic_size",
                     "exclusive", "expand_nonconcat_dims", "infer_shape", "keepdims",
                     "per_element", "preserve_short", "proceed", "require_sorted", "reverse",
                     "single", "sorted", "validate"), BOOL),
    **dict.fromkeys(("alpha", "threshold"), FLOAT),
    **dict.fromkeys(("buckets", "decimals", "depth", "lower", "max_outputs", "maxsplit", "num",
                     "num_samples", "num_split", "padding_width", "replacement_char", "summarize",
                     "upper"), INT),
    **dict.fromkeys(("k", "maxlength", "minlength", "num_segments", "rows", "static_length",
                     "static_size", "static_width"), optional(INT)),
    **dict.fromkeys(("description", "encoding", "end", "errors", "field_delim", "left", "message",
                     "na_value", "name", "pattern", "placeholder", "rewrite", "right",
                     "separator", "tag"), STR),
    "sep": optional(STR),
    "padding": choice("SAME", "VALID"),
    "unit": choice("BYTE", "UTF8_CHAR"),
    "value": ARRAY, "rng": GENERATOR, "out_specs": SPECS,
    # numpy's output array (a kernel such as np.round): never an op attribute
    "out": AttrType("null", lambda v: v is None),
}
_BY_SUFFIX: tuple[tuple[str, AttrType], ...] = (
    ("_dtype", DTYPE), ("_dtypes", DTYPES), ("dtypes_", DTYPES), ("_types", DTYPES),
    ("_shape", SHAPE), ("_shapes", SHAPES), ("_keys", STRS), ("_encoding", STR),
)
_BY_PREFIX: tuple[tuple[str, AttrType], ...] = (
    ("transpose_", BOOL), ("adjoint_", BOOL), ("has_", BOOL), ("use_", BOOL),
    ("replace_", BOOL), ("n_", INT),
)


def conventional_type(name: str) -> AttrType | None:
    """The type an attribute named `name` has by the naming convention, or None."""
    found = _BY_NAME.get(name)
    if found is not None:
        return found
    for suffix, t in _BY_SUFFIX:
        if name.endswith(suffix):
            return t
    for prefix, t in _BY_PREFIX:
        if name.startswith(prefix):
            return t
    return None
