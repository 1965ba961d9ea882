"""Rebuilds the concrete functions of graphs.json (the format is described in
graph_encode.py and docs/saved_model.md) through the op registry, checking every field."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from runtime import dtypes, errors, executor, nest
from runtime import shape as shape_lib
from runtime.concrete_function import ConcreteFunction, fed_specs
from runtime.graph import Capture, Graph, SubGraph
from runtime.ops import attr_types, registry
from runtime.saved_model import attrs as attr_codec
from runtime.saved_model import files
from runtime.saved_model.errors import SavedModelError
from runtime.saved_model.graph_encode import BIT_GENERATORS
from runtime.saved_model.schema import Reader
from runtime.saved_model.structures import decode_structure
from runtime.signature import TensorSpec
from runtime.tensor import SymbolicTensor, make_eager
from runtime.variables import Variable

# The largest recorded source file whose lines a traceback of a loaded model shows.
_SOURCE_LIMIT_BYTES = 1 << 24
_PARAM_KINDS = {kind.name: kind for kind in (
    inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD,
    inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.KEYWORD_ONLY,
    inspect.Parameter.VAR_KEYWORD)}


class SavedLocation(errors.SourceLocation):
    """A user's line recorded in a saved model, with its text (the source may be gone)."""

    __slots__ = ("text",)
    text: str

    def __init__(self, filename: str, lineno: int, function: str, text: str) -> None:
        super().__init__(filename, lineno, function)
        object.__setattr__(self, "text", text)  # (a SourceLocation does not change)

    def _fields(self) -> tuple[str, int, str, str]:
        return self.filename, self.lineno, self.function, self.text

    def source_line(self) -> str:
        """The saved text of the line."""
        return self.text

    def frame_filename(self) -> str:
        """The recorded file name when it names a regular file of reasonable size, whose
        lines tracebacks may read; else a `<saved model: ...>` name that no tool opens (the
        recorded path may be a FIFO, a device or a huge file)."""
        if files.is_regular_file(self.filename, _SOURCE_LIMIT_BYTES):
            return self.filename
        return "<saved model: %s>" % self.filename


class Decoder:
    """Rebuilds the concrete functions of graphs.json (see the module docstring)."""

    def __init__(self, reader: Reader, functions: dict[str, Any], constants: Any,
                 variables: list[Variable], generators: list[np.random.Generator],
                 allow_file_output: bool = False) -> None:
        self.reader = reader
        self._allow_file_output = allow_file_output
        self._functions_data = functions
        self._constants = constants
        self._variables = variables
        self._generators = generators
        self._functions: dict[str, ConcreteFunction] = {}
        self._decoding: set[str] = set()
        self._graph_only: set[str] = set()  # functions with inputs but no signature
        self._outer_inputs: list[list[SymbolicTensor]] = []
        self._graph_names: list[str] = []
        self._current_graph: Graph | None = None

    # -- the DecodeContext of attrs.decode ----------------------------------------------------
    def array(self, ref: Any, where: str) -> np.ndarray:
        """A constant array by its reference."""
        return self._constants.get(ref, where, self.reader)

    def subgraph(self, data: Any, where: str) -> SubGraph:
        """An If/While branch or body, nested in the graph being decoded."""
        r = self.reader
        data = r.obj(data, where, ("graph", "placeholders", "outputs"))
        graph, tensors, captured = self._graph(data["graph"], where + ".graph",
                                               self._graph_names[-1] + "_sub", nested=True)
        placeholders = [self._tensor(tensors, ref, "%s.placeholders[%d]" % (where, i))
                        for i, ref in enumerate(r.seq(data["placeholders"],
                                                      where + ".placeholders"))]
        for i, t in enumerate(placeholders):
            if t.node.op.name != "Placeholder":
                r.fail("%s.placeholders[%d]" % (where, i), "is not a placeholder")
        outputs = [self._tensor(tensors, ref, "%s.outputs[%d]" % (where, i))
                   for i, ref in enumerate(r.seq(data["outputs"], where + ".outputs"))]
        sub = SubGraph(graph, placeholders, outputs)
        sub.captured.extend(captured)
        return sub

    def function(self, key: str, where: str) -> ConcreteFunction:
        """The concrete function `key` of the functions table."""
        found = self._functions.get(key)
        if found is not None:
            return found
        if key not in self._functions_data:
            self.reader.fail(where, "no function %r in the functions table" % key)
        if key in self._decoding:
            self.reader.fail(where, "function %r calls itself" % key)
        self._decoding.add(key)
        saved_outer = self._outer_inputs
        self._outer_inputs = []
        try:
            cf = self._function(self._functions_data[key], "functions.%s" % key)
            if cf._feeds and not cf.structured_input_signature[0] and \
                    not cf.structured_input_signature[1]:
                self._graph_only.add(key)
        finally:
            self._outer_inputs = saved_outer
            self._decoding.discard(key)
        self._functions[key] = cf
        return cf

    def user_function(self, key: str, where: str) -> ConcreteFunction:
        """The concrete function `key`, as an object's method or a serving signature: one
        that takes inputs must say, by its signature, how a call feeds them."""
        cf = self.function(key, where)
        if key in self._graph_only:
            self.reader.fail(where, "function %r takes graph inputs but has no signature: only "
                                    "a call op inside a graph can call it" % key)
        return cf

    def generator(self, index: int, where: str) -> np.random.Generator:
        """The random generator `index` of the generators table."""
        if index >= len(self._generators):
            self.reader.fail(where, "no generator %d" % index)
        return self._generators[index]

    # -- functions and graphs ---------------------------------------------------------------
    def _function(self, data: Any, where: str) -> ConcreteFunction:
        r = self.reader
        data = r.obj(data, where, ("name", "graph", "inputs", "outputs", "params", "signature",
                                   "structured_outputs", "check_numerics"))
        name = _name(r, data["name"], where + ".name")
        self._graph_names.append(name)
        try:
            graph, tensors, captured = self._graph(data["graph"], where + ".graph", name,
                                                   nested=False)
        finally:
            self._graph_names.pop()
        feeds = [self._tensor(tensors, ref, "%s.inputs[%d]" % (where, i))
                 for i, ref in enumerate(r.seq(data["inputs"], where + ".inputs"))]
        if any(t.node.op.name != "Placeholder" for t in feeds):
            r.fail(where + ".inputs", "every input must be a placeholder")
        flat_outputs = [self._tensor(tensors, ref, "%s.outputs[%d]" % (where, i))
                        for i, ref in enumerate(r.seq(data["outputs"], where + ".outputs"))]
        params = []
        for i, p in enumerate(r.seq(data["params"], where + ".params")):
            at = "%s.params[%d]" % (where, i)
            p = r.seq(p, at)
            if len(p) != 4:
                r.fail(at, "expected [name, kind, has_default, default]")
            kind = _PARAM_KINDS.get(r.text(p[1], at + "[1]"))
            if kind is None:
                r.fail(at + "[1]", "unknown parameter kind %r" % p[1])
            has_default = r.flag(p[2], at + "[2]")
            default = decode_structure(p[3], at + "[3]", r, None) if has_default else None
            param = r.text(p[0], at + "[0]")
            if not executor.is_plain_name(param):
                r.fail(at + "[0]", "parameter name %r is not a Python identifier" % (param,))
            params.append((param, kind, has_default, default))
        signature = [decode_structure(v, "%s.signature[%d]" % (where, i), r, None)
                     for i, v in enumerate(r.seq(data["signature"], where + ".signature"))]
        if len(signature) != len(params):
            r.fail(where + ".signature", "one value per parameter expected")
        structured = decode_structure(data["structured_outputs"], where + ".structured_outputs",
                                      r, flat_outputs)
        template: list[tuple[str, Any]] = []
        index = {id(t): i for i, t in enumerate(flat_outputs)}
        for leaf in nest.flatten(structured):
            if isinstance(leaf, SymbolicTensor):
                template.append(("t", index[id(leaf)]))
            else:
                template.append(("py", leaf))
        if sum(1 for kind, _ in template if kind == "t") != len(flat_outputs):
            r.fail(where + ".structured_outputs", "must use every output exactly once")
        _check_feeds_match_signature(r, where, feeds, signature)
        graph.inputs = list(feeds)
        graph.outputs = list(flat_outputs)
        cf = ConcreteFunction(name, graph, feeds, flat_outputs, template, structured, params,
                              signature, r.flag(data["check_numerics"], where + ".check_numerics"))
        try:  # compiled now, as a trace would be, to check it (nothing of it runs: no folding)
            with executor.checking_without_folding():
                cf._compiled_run()
        except RecursionError:
            r.fail(where, "the graph nests control flow and calls too deeply to compile")
        except Exception as e:
            r.fail(where, "the graph does not compile (%s: %s)" % (type(e).__name__, e))
        return cf

    def forget_compiled(self) -> None:
        """Drops the compiled forms made while checking the functions (without folding):
        each compiles again, with folding, at its first call."""
        for cf in self._functions.values():
            cf.swap_compiled(None)

    def _tensor(self, nodes: dict[str, Any], ref: Any, where: str) -> SymbolicTensor:
        ref = self.reader.text(ref, where)
        name, _, index = ref.rpartition(":") if ":" in ref else (ref, "", "0")
        node = nodes.get(name)
        outputs = node.outputs if node is not None else None
        if outputs is None or not index.isdigit() or int(index) >= len(outputs):
            self.reader.fail(where, "no tensor %r in the graph (a node is referred to "
                                    "before it is defined, or does not exist)" % ref)
        if ":" in ref and index == "0":
            self.reader.fail(where, "output 0 is spelled %r" % name)
        return outputs[int(index)]

    def _graph(self, data: Any, where: str, name: str, nested: bool) -> Any:
        r = self.reader
        data = r.obj(data, where, ("nodes", "captures"))
        graph = Graph(name, outer=self._current_graph if nested else None)
        tensors: dict[str, Any] = {}  # node name -> node
        previous = self._current_graph
        self._current_graph = graph
        try:
            for i, node_data in enumerate(r.seq(data["nodes"], where + ".nodes")):
                self._node(graph, tensors, node_data, "%s.nodes[%d]" % (where, i))
        finally:
            self._current_graph = previous
        captured: list[tuple[SymbolicTensor, int]] = []
        seen = set()
        for i, c in enumerate(r.seq(data["captures"], where + ".captures")):
            at = "%s.captures[%d]" % (where, i)
            c = r.obj(c, at)
            kinds = [k for k in ("variable", "constant", "outer") if k in c]
            if len(kinds) != 1:
                r.fail(at, "expected exactly one of the fields variable, constant, outer")
            kind = kinds[0]
            r.obj(c, at, ("placeholder", kind), ("dtype",) if kind == "constant" else ())
            placeholder = self._tensor(tensors, c["placeholder"], at + ".placeholder")
            if placeholder.node.op.name != "Placeholder" or id(placeholder) in seen:
                r.fail(at + ".placeholder", "not a placeholder, or captured twice")
            seen.add(id(placeholder))
            external = self._external(kind, c, at, placeholder, nested, captured)
            capture = Capture(external, placeholder, False)
            graph.captures.append(capture)
            graph._captures_by_id[id(external)] = capture
        return graph, tensors, captured

    def _external(self, kind: str, c: dict[str, Any], at: str, placeholder: SymbolicTensor,
                  nested: bool, captured: list[Any]) -> Any:
        r = self.reader
        dtype, shape = placeholder.dtype, placeholder._shape
        if kind == "variable":
            index = r.integer(c["variable"], at + ".variable")
            if index >= len(self._variables) or dtype.name != "resource":
                r.fail(at, "no variable %d, or the placeholder is not a resource" % index)
            return self._variables[index]
        if kind == "constant":
            value = attr_codec.decode(c["constant"], at + ".constant", self, r)
            saved = attr_codec.decode_dtype(c["dtype"], at + ".dtype", r)
            if saved is not dtype or not isinstance(value, (np.ndarray, np.generic)) or \
                    np.dtype(value.dtype) != dtype.np_dtype or np.shape(value) != shape:
                r.fail(at, "the constant does not match its placeholder's dtype and shape")
            return make_eager(value, dtype)
        if not nested:
            r.fail(at, "only a sub-graph captures outer tensors")
        index = r.integer(c["outer"], at + ".outer")
        inputs = self._outer_inputs[-1]
        if index >= len(inputs):
            r.fail(at + ".outer", "the op has no input %d" % index)
        outer = inputs[index]
        if outer.dtype is not dtype or outer._shape != shape:
            r.fail(at, "the outer tensor does not match its placeholder's dtype and shape")
        captured.append((placeholder, index))
        return outer

    def _node(self, graph: Graph, tensors: dict[str, Any], data: Any, where: str) -> None:
        r = self.reader
        data = r.obj(data, where, ("name", "op", "inputs", "control_inputs", "attrs",
                                   "outputs", "location"))
        name = _name(r, data["name"], where + ".name")
        if name in tensors or ":" in name:
            r.fail(where + ".name", "node name %r is repeated or has a ':'" % name)
        op_name = r.text(data["op"], where + ".op")
        op = registry.REGISTRY.get(op_name)
        if op is None:
            r.fail(where + ".op", "no op named %r is registered" % op_name)
        if op.saving.refusal is not None:
            r.fail(where + ".op", "op %s is never saved (%s)" % (op_name, op.saving.refusal))
        if op.saving.replacement is not None:
            r.fail(where + ".op", "op %s is never saved (a saved model holds another op in its "
                                  "place)" % op_name)
        inputs = [self._tensor(tensors, ref, "%s.inputs[%d]" % (where, i))
                  for i, ref in enumerate(r.seq(data["inputs"], where + ".inputs"))]
        controls = [r.text(c, where + ".control_inputs")
                    for c in r.seq(data["control_inputs"], where + ".control_inputs")]
        self._outer_inputs.append(inputs)
        try:
            attrs = self._attrs(op, r.obj(data["attrs"], where + ".attrs"), where + ".attrs",
                                len(inputs))
        finally:
            self._outer_inputs.pop()
        saved_specs = [self._spec(s, "%s.outputs[%d]" % (where, i))
                       for i, s in enumerate(r.seq(data["outputs"], where + ".outputs"))]
        specs = [(t.dtype, t._shape) for t in inputs]
        try:
            out_specs = op.infer(specs, attrs)
            if op.saving.check is not None:
                op.saving.check(specs, attrs)
            same = [(d, None if s is None else tuple(s)) for d, s in out_specs] == saved_specs
        except Exception as e:  # a corrupt attribute: its op's own checks say what is wrong
            r.fail(where, "op %s rejects its saved inputs and attributes (%s: %s)"
                   % (op_name, type(e).__name__, e))
        if not same:
            r.fail(where + ".outputs", "op %s gives %s for these inputs, not the saved %s"
                   % (op_name, registry.describe_operands(out_specs),
                      registry.describe_operands(saved_specs)))
        self._check_file_output(op, attrs, where)
        location = self._location(data["location"], where + ".location")
        for c in controls:
            if c not in tensors:
                r.fail(where + ".control_inputs", "no earlier node %r" % c)
        graph.add_node(op, inputs, attrs, out_specs, name=name, location=location)
        node = graph.nodes[-1]
        node.location = location  # (add_node would put the loader's caller for None)
        if node.name != name:
            r.fail(where + ".name", "node name %r is repeated" % name)
        node.control_inputs.extend(tensors[c] for c in controls)
        tensors[name] = node

    def _check_file_output(self, op: registry.OpDef, attrs: dict[str, Any], where: str) -> None:
        """Refuses a node that writes a file, unless the caller of load allowed it."""
        if op.saving.file_output is None or self._allow_file_output:
            return
        path = op.saving.file_output(attrs)
        if path is not None:
            self.reader.fail(where, "op %s writes to the file %r when the function runs: a "
                                    "loaded model writes files only when its loader allows it "
                                    "(load(path, allow_file_output=True))" % (op.name, path))

    def _attrs(self, op: registry.OpDef, data: dict[str, Any], where: str,
               input_count: int) -> dict[str, Any]:
        attrs: dict[str, Any] = {}
        late = []
        declared = registry.declared_attributes(op, input_count)
        for name, value in data.items():
            codec = op.saving.codecs.get(name)
            plain = isinstance(name, str) and name.isascii() and name.isidentifier()
            at = "%s.%s" % (where, name) if plain else where
            if not plain or name.startswith("__"):
                self.reader.fail(at, "attribute name %r is not a Python identifier (or starts "
                                     "with '__')" % (name,))
            if declared is not None and name not in declared:
                self.reader.fail(at, "op %s has no attribute %r (its attributes: %s)"
                                 % (op.name, name, ", ".join(sorted(declared)) or "none"))
            if codec is registry.UNSAVED:
                self.reader.fail(at, "attribute %r of op %s is never saved" % (name, op.name))
            if codec is None:
                attrs[name] = attr_codec.decode(value, at, self, self.reader)
            elif codec.with_attrs:
                late.append((name, value, codec, at))
            else:
                try:
                    attrs[name] = codec.decode(value)
                except ValueError as e:
                    self.reader.fail(at, str(e))
        missing = sorted(registry.required_attributes(op, input_count) - set(data))
        if missing:
            self.reader.fail(where, "op %s needs the attribute %r" % (op.name, missing[0]))
        for name, value in attrs.items():  # (a late codec reads them: checked first)
            self._check_type(op, name, value, "%s.%s" % (where, name))
        decoded = dict(attrs)
        for name, value, codec, at in late:
            try:
                attrs[name] = codec.decode(value, decoded)
            except ValueError as e:
                self.reader.fail(at, str(e))
        return attrs

    def _check_type(self, op: registry.OpDef, name: str, value: Any, where: str) -> None:
        """Refuses an attribute value that is not of its op's declared type (see
        runtime/ops/attr_types.py), or an attribute with no declared type."""
        declared = registry.attribute_type(op, name)
        if declared is None:
            self.reader.fail(where, "op %s declares no type for attribute %r, so a saved model "
                                    "cannot hold it" % (op.name, name))
        if declared in attr_types.NEVER_LOADED:
            self.reader.fail(where, "attribute %r of op %s is %s, which a saved model never "
                                    "holds" % (name, op.name, declared.name))
        problem = declared.problem(value)
        if problem is not None:
            self.reader.fail(where, "attribute %r of op %s: %s" % (name, op.name, problem))

    def _spec(self, data: Any, where: str) -> Any:
        r = self.reader
        data = r.seq(data, where)
        if len(data) != 2:
            r.fail(where, "expected [dtype, shape]")
        return (attr_codec.decode_dtype(data[0], where + "[0]", r),
                attr_codec.decode_shape(data[1], where + "[1]", r))

    def _location(self, data: Any, where: str) -> SavedLocation | None:
        if data is None:
            return None
        r = self.reader
        data = r.seq(data, where)
        if len(data) != 4:
            r.fail(where, "expected [file, line, function, text]")
        lineno = r.integer(data[1], where, minimum=1)
        if lineno > 10 ** 7:
            r.fail(where, "line number %d out of range" % lineno)
        return SavedLocation(r.text(data[0], where), lineno,
                             r.text(data[2], where), r.text(data[3], where))


_NAME_LIMIT = 1024


def _name(r: Reader, value: Any, where: str) -> str:
    """A node's or function's name: printable text of 1 to _NAME_LIMIT characters. (It is
    never written into generated source: see executor.python_name.)"""
    name = r.text(value, where)
    if not name or len(name) > _NAME_LIMIT or not name.isprintable():
        r.fail(where, "a name must be 1 to %d printable characters, found %r"
               % (_NAME_LIMIT, name[:80]))
    return name


def decode_generator(data: Any, where: str, reader: Reader) -> np.random.Generator:
    """A random generator from its saved state."""
    data = reader.obj(data, where, ("state",))
    state = attr_codec.decode(data["state"], where + ".state", None, reader)
    if not isinstance(state, dict) or state.get("bit_generator") not in BIT_GENERATORS:
        reader.fail(where, "not the state of a known random generator")
    bit_generator = BIT_GENERATORS[state["bit_generator"]]()
    try:
        bit_generator.state = state
    except (ValueError, TypeError, KeyError, OverflowError) as e:
        reader.fail(where, "invalid generator state (%s)" % e)
    return np.random.Generator(bit_generator)


def wrap_unexpected(path: str, error: Exception) -> SavedModelError:
    """A SavedModelError for an unexpected failure while rebuilding a graph."""
    return SavedModelError(path, "%s: %s" % (type(error).__name__, error))


def _check_feeds_match_signature(r: Any, where: str, feeds: list[SymbolicTensor],
                                 signature: list[Any]) -> None:
    """Fails unless a saved signature feeds exactly the graph's inputs: one per tensor,
    variable or fed object, in order, each tensor of its placeholder's dtype and shape (else
    a call that matches the signature would feed the graph values it was not built for)."""
    specs = fed_specs(signature)
    if not signature:  # a graph-only function (a gradient's), called by ops with flat feeds
        return
    if len(specs) != len(feeds):
        r.fail(where + ".signature", "the signature feeds %d inputs but the graph has %d"
               % (len(specs), len(feeds)))
    for i, (spec, feed) in enumerate(zip(specs, feeds)):
        if isinstance(spec, TensorSpec):
            if spec.dtype is not feed.dtype or tuple(spec._shape or ()) != tuple(
                    feed._shape or ()) or (spec._shape is None) != (feed._shape is None):
                r.fail(where + ".signature", "input %d is a %s tensor of shape %s in the "
                       "signature but a %s placeholder of shape %s in the graph"
                       % (i, spec.dtype.name, shape_lib.to_string(spec._shape),
                          feed.dtype.name, shape_lib.to_string(feed._shape)))
        elif feed.dtype is not dtypes.resource:
            r.fail(where + ".signature", "input %d is a %s in the signature but a %s "
                   "placeholder in the graph" % (i, type(spec).__name__, feed.dtype.name))
