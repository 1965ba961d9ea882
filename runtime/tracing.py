"""Tracing helpers of `Function`: placeholders for a call's arguments, what a trace
remembers of them, its outputs, and calls of one trace from inside another.

They read the call's cache key (`runtime.signature.make_key`) through `ArgKey`, which
names its parts; the key itself stays a plain tuple, cheap to build on every call.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from runtime import nest, trace_type
from runtime import shape as shape_lib
from runtime import signature as sig
from runtime.composite.base import CompositeSpec
from runtime.concrete_function import Identity
from runtime.ops import array_ops, common
from runtime.ops.call_ops import CALL_OP
from runtime.ops.registry import execute
from runtime.signature import TensorSpec, VariableSpec
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor, to_numpy
from runtime.variables import GraphVariable, Variable, uninitialized_error


def feed_for_signature(spec, value, feeds):
    if nest.is_composite(spec):  # a SparseTensorSpec, RaggedTensorSpec (runtime.composite)
        if not spec.is_compatible_with(value):
            raise TypeError("incompatible")
        for s, v in zip(spec._nest_components(), value._nest_components()):
            feed_for_signature(s, v, feeds)
        return
    if isinstance(spec, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(spec):
            raise TypeError("structure mismatch")
        for s, v in zip(spec, value):
            feed_for_signature(s, v, feeds)
        return
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            raise TypeError("structure mismatch")
        for k in sorted(spec, key=repr):
            feed_for_signature(spec[k], value[k], feeds)
        return
    if isinstance(value, Variable):
        value = value.read_value()
    if isinstance(value, Tensor):
        if value.dtype is not spec.dtype or not shape_lib.is_compatible(
                spec._shape, value._shape_tuple()):
            raise TypeError("incompatible")
        feeds.append(value._value if isinstance(value, EagerTensor) else value)
        return
    array, _ = to_numpy(value, spec.dtype)
    if not shape_lib.is_compatible(spec._shape, array.shape):
        raise TypeError("incompatible")
    feeds.append(array)


class ArgKey(NamedTuple):
    """One argument's part of a call's cache key (`signature.make_key`), its parts named.

    The key is a plain tuple whose layout depends on the argument's kind; `read` decodes it
    once per trace, never on a cached call."""

    children: tuple[Any, ...] = ()  # keys of a composite's components, of items, of dict values
    names: tuple[Any, ...] = ()     # a dict's keys, in the key's (sorted) order
    dtype: Any = None               # a tensor's dtype and shape
    shape: Any = None
    by_identity: bool = False       # a Python object keyed by its id, not its value
    fed_object: bool = False        # an object fed at run time, keyed by its spec (a Dataset)
    trace_type: Any = None          # the TraceType an object is keyed by (runtime.trace_type)

    @classmethod
    def read(cls, value: Any, key: Any) -> ArgKey:
        """The parts of `key`, the cache-key part of argument `value`."""
        if nest.is_composite(value):
            _, _, _, components = key
            return cls(children=components)
        if isinstance(value, dict):
            _, names, items = key
            return cls(children=items, names=names)
        if isinstance(value, (list, tuple)):
            _, items = key
            return cls(children=items)
        if isinstance(value, Variable):
            _, dtype, shape = key
            return cls(dtype=dtype, shape=shape)
        if sig.is_tensor_like(value):
            dtype, shape = key
            return cls(dtype=dtype, shape=shape)
        tag, part = key
        return cls(by_identity=tag == "id", fed_object=tag == "fed",
                   trace_type=part if tag == trace_type.TRACED_AS else None)


def _rebuild_sequence(value, children):
    if hasattr(type(value), "_fields"):  # a namedtuple
        return type(value)(*children)
    return type(value)(children)


def make_inputs(value, key, name, graph, feeds):
    """Replaces tensor-like leaves of an argument with placeholders (recorded in `feeds`)."""
    parts = ArgKey.read(value, key)
    if nest.is_composite(value):
        return value._nest_rebuild([make_inputs(c, k, name, graph, feeds)
                                    for c, k in zip(value._nest_components(), parts.children)])
    if isinstance(value, (list, tuple)):
        return _rebuild_sequence(value, [make_inputs(v, k, name, graph, feeds)
                                         for v, k in zip(value, parts.children)])
    if isinstance(value, dict):
        rebuilt = {k: make_inputs(value[k], kk, name, graph, feeds)
                   for k, kk in zip(parts.names, parts.children)}
        return type(value)((k, rebuilt[k]) for k in value) if type(value) is not dict else {
            k: rebuilt[k] for k in value}
    if isinstance(value, Variable):
        placeholder = graph.add_placeholder(name, sig.dtypes.resource, ())
        feeds.append(placeholder)
        variable = GraphVariable(placeholder, value)
        graph.argument_variables[id(placeholder)] = variable  # for GradientTape
        return variable
    if sig.is_tensor_like(value):
        placeholder = graph.add_placeholder(name, parts.dtype, parts.shape)
        feeds.append(placeholder)
        return placeholder
    if parts.fed_object:
        placeholder = graph.add_placeholder(name, sig.dtypes.resource, ())
        feeds.append(placeholder)
        return value._fed_object_spec().stand_in(placeholder)
    if parts.trace_type is not None:
        return trace_type.placeholder(parts.trace_type, name)
    return value


def traced_value(value, key, name):
    """What a trace remembers of an argument named `name` (None for **kwargs, whose items
    are named by their keys): specs for tensors, the value for Python data. A spec is named
    as TensorFlow names it: the name a TensorSpec argument gives, else its path in the
    argument ('l_1_b' for `l[1]["b"]`); dicts keep the argument's key order."""
    parts = ArgKey.read(value, key)
    if nest.is_composite(value):
        return value._nest_rebuild([traced_value(c, k, name)
                                    for c, k in zip(value._nest_components(), parts.children)])
    if isinstance(value, (list, tuple)):
        return _rebuild_sequence(value, [traced_value(v, k, sig.part_name(name, i))
                                         for i, (v, k) in enumerate(zip(value, parts.children))])
    if isinstance(value, dict):
        traced = {k: traced_value(value[k], kk, sig.part_name(name, k))
                  for k, kk in zip(parts.names, parts.children)}
        return {k: traced[k] for k in value}
    if isinstance(value, Variable):
        return VariableSpec(value._static_shape, value.dtype, name)
    if sig.is_tensor_like(value):
        given = value.name if isinstance(value, TensorSpec) else None
        return TensorSpec(parts.shape, parts.dtype, given or name)
    if parts.by_identity:
        return Identity(value)
    if parts.fed_object:
        return value._fed_object_spec()
    if parts.trace_type is not None:
        return parts.trace_type
    return value


def _collect_graph_feeds(values, feeds):
    for value in nest.flatten(list(values)):
        if isinstance(value, (Tensor, Variable)):
            feeds.append(value._handle() if isinstance(value, Variable) else value)
        elif isinstance(value, np.ndarray):
            feeds.append(common.convert_to_tensor(value))


def call_in_graph(cf, values):
    """Calls concrete function `cf` from inside another trace: adds a PartitionedCall node.
    The node runs `cf` itself, never its variable-initialising first trace, so `cf`'s
    variables must hold values already (see runtime.init_lifting)."""
    if cf._first_call is not None:
        pending = [v for v in cf._first_call.graph.created_variables if v._value is None]
        if pending:
            raise uninitialized_error(pending, cf.name)
    feeds: list[Any] = []
    _collect_graph_feeds(values, feeds)
    outs = execute(CALL_OP, feeds, {"f": cf}, name="PartitionedCall")
    flat = []
    for kind, item in cf._output_template:
        flat.append(outs[item] if kind == "t" else item)
    return nest.pack_sequence_as(cf.structured_outputs, flat)


def record_outputs(result, graph):
    """Turns the traced function's result into graph outputs through Identity nodes."""
    flat = nest.flatten(result)
    outputs: list[SymbolicTensor] = []
    template: list[tuple[str, Any]] = []
    structured = []
    for leaf in flat:
        tensor = None
        if isinstance(leaf, Variable):
            tensor = leaf.read_value()
        elif isinstance(leaf, Tensor):
            tensor = graph.capture(leaf)
        elif isinstance(leaf, (int, float, bool, np.ndarray, np.generic, str, bytes)):
            tensor = common.convert_to_tensor(leaf)
        if tensor is None:
            template.append(("py", leaf))
            structured.append(leaf)
            continue
        identity = array_ops.identity(tensor, name="Identity")
        template.append(("t", len(outputs)))
        outputs.append(identity)
        structured.append(identity)
    return outputs, template, nest.pack_sequence_as(result, structured)


def checked_input_signature(input_signature: Any) -> tuple[Any, ...]:
    """`input_signature` as a tuple, after checking that it is a list or tuple (a bare
    TensorSpec is the common mistake) of TensorSpecs (nested structures of them allowed)."""
    if isinstance(input_signature, (TensorSpec, VariableSpec)):
        raise TypeError("input_signature must be a list or tuple of TensorSpecs, one per "
                        "argument; got a single %r: wrap it in a list, "
                        "input_signature=[%r]" % (input_signature, input_signature))
    if not isinstance(input_signature, (list, tuple)):
        raise TypeError("input_signature must be a list or tuple of TensorSpecs, one per "
                        "argument; got %r (%s)" % (input_signature,
                                                   type(input_signature).__name__))
    for leaf in nest.flatten(list(input_signature)):
        if not isinstance(leaf, TensorSpec):
            raise TypeError("input_signature must contain only TensorSpecs, got %r" % (leaf,))
    return tuple(input_signature)


def check_fits_signature(specs: Any, values: Any) -> None:
    """TypeError when the arguments given to get_concrete_function (TensorSpecs or values)
    do not fit the input_signature `specs`: the one trace would not be theirs."""
    for spec, value in zip(specs, values[:len(specs)]):
        if not _fits(spec, value):
            raise incompatible_with_signature(specs, values)


def _fits(spec: Any, value: Any) -> bool:
    """True when argument `value` (a value, a spec, or a structure of them) fits `spec`."""
    if isinstance(value, TensorSpec):
        return isinstance(spec, TensorSpec) and spec.is_compatible_with(value)
    if isinstance(value, CompositeSpec):
        return _spec_fits(spec, value)
    if isinstance(spec, (list, tuple)) and isinstance(value, (list, tuple)):
        return len(spec) == len(value) and all(_fits(s, v) for s, v in zip(spec, value))
    if isinstance(spec, dict) and isinstance(value, dict):
        return set(spec) == set(value) and all(_fits(spec[k], value[k]) for k in spec)
    try:
        feed_for_signature(spec, value, [])
    except (TypeError, ValueError):
        return False
    return True


def _spec_fits(spec: Any, value: Any) -> bool:
    """True when the composite spec `value` (a SparseTensorSpec given to
    get_concrete_function) describes values that `spec` accepts: same kind, and each
    component spec compatible."""
    if type(value) is not type(spec) or value._kind != spec._kind:
        return False
    pairs = zip(nest.flatten(spec), nest.flatten(value))
    return all(s.dtype is v.dtype and shape_lib.is_compatible(s._shape, v._shape)
               for s, v in pairs)


def incompatible_with_signature(specs: Any, values: Any) -> TypeError:
    """The error for arguments `values` that do not fit the input_signature `specs`."""
    return TypeError(
        "Python inputs incompatible with input_signature:\n  inputs: (\n    %s)\n  "
        "input_signature: (\n    %s)" % (",\n    ".join(str(v) for v in values[:len(specs)]),
                                           ",\n    ".join(repr(s) for s in specs)))
