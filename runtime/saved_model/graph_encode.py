"""Graphs and concrete functions as JSON (decoding them back: graph_decode.py).

A function entry of graphs.json:

    {"name": "f", "graph": GRAPH, "inputs": ["x"], "outputs": ["Identity"],
     "params": [["x", "POSITIONAL_OR_KEYWORD", false, null]],
     "signature": [VALUE...], "structured_outputs": VALUE, "check_numerics": false}

A GRAPH lists its nodes in program order (every input is an output of an earlier node) and its
captures; a node is

    {"name": "add", "op": "AddV2", "inputs": ["x", "split:1"], "control_inputs": [],
     "attrs": {...}, "outputs": [["float32", [null, 3]]],
     "location": ["model.py", 12, "f", "y = x + 1"]}

and a capture is a placeholder's name with what it stands for: `{"variable": i}`, `{"constant":
VALUE}` (a captured eager tensor) or, in a sub-graph, `{"outer": j}` (the j-th input of the
If/While node that owns the sub-graph). Loading rebuilds the graph through the op registry: every
op must be registered, and its shape and dtype inference must give the saved output specs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from runtime.concrete_function import ConcreteFunction
from runtime.graph import Capture, Graph, SubGraph, tensor_ref_name
from runtime.ops import registry
from runtime.saved_model import attrs as attr_codec
from runtime.saved_model.errors import NotSaveableError
from runtime.saved_model.structures import encode_structure
from runtime.saved_model.values import ArrayTable
from runtime.tensor import EagerTensor, SymbolicTensor
from runtime.variables import Variable

# The random bit generators whose state a saved model holds (JSON-able states).
BIT_GENERATORS = {"PCG64": np.random.PCG64, "PCG64DXSM": np.random.PCG64DXSM,
                  "SFC64": np.random.SFC64, "Philox": np.random.Philox}


def _where(node: Any) -> str:
    location = node.location
    if location is None:
        return "node %r (%s)" % (node.name, node.op.name)
    return "node %r (%s), created at %s:%d" % (node.name, node.op.name, location.filename,
                                               location.lineno)


def _late(saving: registry.Saving, name: str) -> tuple[bool, str]:
    """Sort key of attributes: those whose codec reads the others come last."""
    codec = saving.codecs.get(name)
    return (codec is not None and codec.with_attrs, name)


class Encoder:
    """Encodes concrete functions into the `functions` table of graphs.json, collecting
    arrays, variables and random generators on the way."""

    def __init__(self, options: Any = None) -> None:
        self.options = options  # the save's SaveOptions (read by an op's saved_as rule)
        self.constants = ArrayTable("c")
        self.variable_values = ArrayTable("v")
        self.functions: dict[str, Any] = {}
        self.traces: dict[str, ConcreteFunction] = {}  # function key -> the trace encoded
        self.variables: list[dict[str, Any]] = []
        self.generators: list[dict[str, Any]] = []
        self._function_keys: dict[int, str] = {}
        self._variable_index: dict[int, int] = {}
        self._generator_index: dict[int, int] = {}
        self._keep: list[Any] = []  # keeps the ids above unique while saving

    # -- the EncodeContext of attrs.encode ------------------------------------------------
    def array(self, value: Any) -> Any:
        """Stores a constant array; returns its reference."""
        return self.constants.add(value)

    def subgraph(self, sub: SubGraph) -> Any:
        """The JSON of an If/While branch or body."""
        return {"graph": self.graph(sub.graph, {id(ph): i for ph, i in sub.captured}),
                "placeholders": [tensor_ref_name(t) for t in sub.placeholders],
                "outputs": [tensor_ref_name(t) for t in sub.outputs]}

    def function(self, cf: ConcreteFunction) -> str:
        """The key of `cf` in the functions table (encoding it the first time)."""
        key = self._function_keys.get(id(cf))
        if key is None:
            key = "%s_%d" % (cf.name, len(self._function_keys))
            self._function_keys[id(cf)] = key
            self.traces[key] = cf
            self.functions[key] = self._encode_function(cf)
        return key

    def generator(self, rng: np.random.Generator) -> int:
        """The index of a random generator's saved state (shared generators stay shared)."""
        index = self._generator_index.get(id(rng))
        if index is None:
            state = rng.bit_generator.state
            name = state.get("bit_generator")
            if name not in BIT_GENERATORS:
                raise NotSaveableError("a %s random generator cannot be saved" % name)
            index = len(self.generators)
            self.generators.append({"state": attr_codec.encode(state, None)})
            self._generator_index[id(rng)] = index
            self._keep.append(rng)
        return index

    # -- functions and graphs ---------------------------------------------------------------
    def variable(self, variable: Variable) -> int:
        """The index of `variable` in the variables table."""
        index = self._variable_index.get(id(variable))
        if index is None:
            if variable._value is None:
                raise NotSaveableError("variable %s has no value yet (it is initialised by the "
                                       "first call of the function that creates it): call the "
                                       "function once before saving" % variable.name)
            index = len(self.variables)
            self.variables.append({
                "name": variable.name, "dtype": variable.dtype.name,
                "shape": attr_codec.encode_shape(variable._static_shape),
                "trainable": variable.trainable,
                "value": self.variable_values.add(variable._value)})
            self._variable_index[id(variable)] = index
            self._keep.append(variable)
        return index

    def _encode_function(self, cf: ConcreteFunction) -> dict[str, Any]:
        flat_index = {id(t): i for i, t in enumerate(cf.flat_outputs)}
        try:
            structured = encode_structure(cf.structured_outputs, flat_index)
            signature = [encode_structure(v, None) for v in cf._traced_values]
            params = [[name, kind.name, has_default,
                       encode_structure(default, None) if has_default else None]
                      for name, kind, has_default, default in cf._params]
        except NotSaveableError as e:
            raise NotSaveableError("cannot save function %s: %s" % (cf.name, e)) from None
        return {"name": cf.name, "graph": self.graph(cf.graph, {}),
                "inputs": [tensor_ref_name(t) for t in cf._feeds],
                "outputs": [tensor_ref_name(t) for t in cf.flat_outputs],
                "params": params, "signature": signature,
                "structured_outputs": structured, "check_numerics": cf._check_numerics}

    def graph(self, graph: Graph, outer_inputs: dict[int, int]) -> dict[str, Any]:
        """The JSON of `graph`; `outer_inputs` maps id(placeholder) to the op input feeding
        it, for a sub-graph's captured outer tensors."""
        saved_outputs: dict[int, int] = {}
        nodes = []
        for node in graph.nodes:
            op, node_attrs = node.op, node.attrs
            if op.saving.replacement is not None:  # saved as another op's node
                op, node_attrs = op.saving.replacement(node, self.options)
            if op.saving.refusal is not None:
                raise NotSaveableError("cannot save %s: %s" % (_where(node),
                                                               op.saving.refusal))
            for t in node.inputs:
                self._check_saved(t, saved_outputs, node)
            nodes.append(self._node(node, op, node_attrs, saved_outputs))
        captures = []
        for capture in graph.captures:
            captures.append(self._capture(capture, outer_inputs, graph))
        return {"nodes": nodes, "captures": captures}

    def _check_saved(self, t: SymbolicTensor, saved_outputs: dict[int, int], user: Any) -> None:
        count = saved_outputs.get(id(t.node))
        if count is not None and t.index >= count:
            raise NotSaveableError(
                "cannot save %s: it uses %s, an output that a gradient added to %s; "
                "take the gradient outside the saved function"
                % (_where(user), tensor_ref_name(t), _where(t.node)))

    def _node(self, node: Any, op: Any, node_attrs: Mapping[str, Any],
              saved_outputs: dict[int, int]) -> dict[str, Any]:
        """The JSON of `node`, saved as a node of `op` with attributes `node_attrs` (its own,
        unless its op is saved as another)."""
        saving = op.saving
        attrs = {}
        kept = {}
        for name, value in sorted(node_attrs.items(), key=lambda item: _late(saving, item[0])):
            codec = saving.codecs.get(name)
            if codec is registry.UNSAVED:
                continue
            kept[name] = value
            try:
                if codec is None:
                    attrs[name] = attr_codec.encode(value, self)
                else:
                    attrs[name] = (codec.encode(value, node_attrs) if codec.with_attrs
                                   else codec.encode(value))
            except (NotSaveableError, TypeError) as e:
                raise NotSaveableError("cannot save %s: attribute %r: %s"
                                       % (_where(node), name, e)) from None
        count = len(node.outputs)
        if len(kept) != len(node_attrs):  # bookkeeping left out: so are the outputs it added
            specs = [(t.dtype, t._shape) for t in node.inputs]
            count = len(op.infer(specs, kept))
            saved_outputs[id(node)] = count
        location = node.location
        return {"name": node.name, "op": op.name,
                "inputs": [tensor_ref_name(t) for t in node.inputs],
                "control_inputs": [c.name for c in node.control_inputs],
                "attrs": attrs,
                "outputs": [[t.dtype.name, attr_codec.encode_shape(t._shape)]
                            for t in node.outputs[:count]],
                "location": None if location is None else [
                    str(location.filename), int(location.lineno), str(location.function),
                    location.source_line()]}

    def _capture(self, capture: Capture, outer_inputs: dict[int, int],
                 graph: Graph) -> dict[str, Any]:
        placeholder = tensor_ref_name(capture.placeholder)
        external = capture.external
        if capture.leaked:
            raise NotSaveableError("cannot save graph %s: it captured %s, a symbolic tensor "
                                   "that leaked out of another trace" % (graph.name, placeholder))
        if id(capture.placeholder) in outer_inputs:
            return {"placeholder": placeholder, "outer": outer_inputs[id(capture.placeholder)]}
        if isinstance(external, Variable):
            return {"placeholder": placeholder, "variable": self.variable(external)}
        if isinstance(external, EagerTensor):
            return {"placeholder": placeholder, "dtype": external.dtype.name,
                    "constant": attr_codec.encode(external._value, self)}
        raise NotSaveableError("cannot save graph %s: it captured %r, which a saved model "
                               "cannot hold (only variables and tensors)" % (graph.name, external))
