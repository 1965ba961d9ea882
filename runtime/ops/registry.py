"""The one op registry: every op declared once, with all its rules, read by eager execution,
graph building, shape inference, the executor, constant folding and gradients.

An op is an `OpDef`, made by one `register(...)` call that states everything about it (the
way JAX declares a primitive with its rules next to it); no other module changes it later:
  * `kernel(*input_values, **attrs)` computes outputs from numpy values;
  * `infer(input_specs, attrs)` returns the output specs `[(dtype, shape), ...]` from the
    inputs' specs, raising `SpecError` for bad dtypes or shapes;
  * `grad`, the gradient decision (required): a rule `rule(ctx, grads) -> [gradient per
    input]` (see runtime.gradients.backprop.GradContext), `NOT_DIFFERENTIABLE` (no gradient
    flows to the inputs), or `NO_GRADIENT` (asking for a gradient through the op is an
    error: graph sources and ops whose higher-order gradient is not written). The rule is a
    function referenced directly, written beside the op or imported by its module (a name
    in a string, 'module:rule', is refused, as it is for a kernel or a lowering);
  * `emit`, the executor decision (required): `KERNEL_CALL` (generated code calls the
    kernel), an expression rule `emit(outs, ins, attrs, emitter)` that writes the executor's
    Python for the op, or returns None for the kernel call (`outs` are the names to assign;
    `ins` are `executor.Operand`s: each input's expression (a str) with its `dtype`, static
    `shape` and, for a constant, `value`, so that the op can pick the fastest Python giving
    the kernel's results, e.g. `x % c` for integers and a non-zero constant `c`;
    `emitter.bind(value)` names a value for the generated code), or `statements(rule)` for
    control flow: `rule(emitter, node, ins, outs, indent)` writes Python statements around
    the op's sub-graphs;
  * `traits` (see TRAITS): what the graph passes may do with the op;
  * `static_value(node, constant_value)`, optional: the op's output value known while the
    graph is built, from its attributes and its inputs' known values (`constant_value(t)`
    gives one or None);
  * `lowerings`: per-backend lowering rules, {backend name: rule}: "array" for a template in
    numpy-API terms that every array backend reads (`xp` is its array module), or a backend's
    own name; see runtime/lowering_api.py for the vocabulary. An op a compiled backend
    cannot run (it runs Python) declares the `host_only` trait instead;
  * `saving`, optional: how runtime/saved_model writes the op's nodes when the generic
    attribute encoding (numbers, strings, dtypes, shapes, arrays, sub-graphs, functions) is
    not enough: `not_saveable(reason)` (the op holds Python code or Python-side state, and
    saving a graph that uses it fails naming the node and the user's line) or
    `attr_codecs(name=AttrCodec(...), ...)` (per-attribute encode/decode rules);
  * `attr_types`, optional: {attribute name: type} in the vocabulary of runtime/ops/attr_types.py,
    for attributes whose type neither the naming convention there, a bool or str default of
    the kernel parameter, nor an attribute codec declares (see `attribute_type`); a saved
    model's loader checks every attribute value against its type.

`execute(op, inputs, attrs)` is the single entry point: eagerly it validates and runs the
kernel; inside a trace it adds a node to the current graph.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from runtime import context, errors
from runtime.dtypes import DType
from runtime.ops import attr_types as types_lib
from runtime.ops.attr_types import AttrType
from runtime.specs import Spec, SpecError, describe_operands  # the op's operand specs
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor, make_eager

InferRule = Callable[[list[Spec], Mapping[str, Any]], list[Spec]]
GradRule = Callable[[Any, list[Any]], list[Any]]

REGISTRY: dict[str, OpDef] = {}
_EMPTY: dict[str, Any] = {}
_tapes = context.tapes  # the recording GradientTapes: one check per eager op

# What the graph passes may do with an op: the executor and constant folding read these (and
# the ops' declared rules), never op names.
TRAITS = {
    "stateful": "reads or changes state (variables, random, iterators): never folded, "
                "merged or moved",
    "side_effects": "acts beyond its outputs (printing, assigning, checking): never removed "
                    "(implies stateful)",
    "no_fold": "never constant-folded, though equal nodes may be merged",
    "host_only": "runs Python or host I/O; a compiled backend must call back to the host",
    "elementwise": "each output element depends only on the same element of each input "
                   "(rank-0 inputs broadcast): compiled backends may fuse such ops into one "
                   "loop, running the op's lowering on scalars",
    "may_raise": "its kernel raises on some inputs (bounds, division by zero, a failed "
                 "check): a compiled backend's lowering must check the same",
    "unrepeatable": "running it again may give other outputs (a random draw, a variable read "
                    "or assignment, an iterator read, a Python call): a gradient keeps its "
                    "forward outputs rather than computing them again",
    "placeholder": "has no kernel: its value is fed when the graph runs",
    "constant": "its value is its `value` attribute",
    "forwards": "its one output is its one input (alias it, emit no code)",
    "shape_only": "reads only its input's static shape: folds when that shape is known",
    "view": "an output may share memory with an input (a reshape, a basic slice, an op that "
            "may return an input as it is, control flow): a Function copies such a result "
            "where that input may hold state (see executor.outputs_holding_state)",
    "conditional": "runs one of its sub-graphs `then` and `else` by its first input (an If): "
                   "the gradient machinery reads their residuals",
    "loop": "runs its sub-graph `body` while its sub-graph `cond` holds (a While): the "
            "gradient machinery keeps each iteration's residuals",
    "calls_function": "runs the ConcreteFunction of its `f` attribute (a call): the gradient "
                      "machinery reads that function's graph (its residuals, the variables "
                      "it reads)",
    "shares_state": "an output may share memory with state that outlives the run (a "
                    "variable's value, an iterator's element, a Python function's result): "
                    "a Function returning it returns a copy",
}


class _Decision:
    """A named explicit decision (`KERNEL_CALL`, `NOT_DIFFERENTIABLE`, `NO_GRADIENT`)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


KERNEL_CALL = _Decision("KERNEL_CALL")
NOT_DIFFERENTIABLE = _Decision("NOT_DIFFERENTIABLE")
NO_GRADIENT = _Decision("NO_GRADIENT")


class Statements:
    """The emit decision of a control-flow op: `rule` writes statements, not an expression."""

    __slots__ = ("rule",)

    def __init__(self, rule: Callable[..., Any]) -> None:
        self.rule = rule


def statements(rule: Callable[..., Any]) -> Statements:
    """Declares `rule(emitter, node, ins, outs, indent)` as an op's statement-writing emit."""
    return Statements(rule)


class AttrCodec:
    """How one attribute of an op is saved: `encode(value)` returns JSON data (None, bool,
    int, float, str, lists of them, dicts with str keys) or raises TypeError saying why the
    value cannot be saved; `decode(data)` returns the value, raising ValueError for data
    that `encode` never writes (a corrupt file). `decode` must not run code named by the
    data (no imports, no eval): loading a saved model executes nothing from it.

    With `with_attrs=True` both also receive the node's other attributes (decoded first):
    `encode(value, attrs)`, `decode(data, attrs)` (an attribute that refers to tensors of a
    sub-graph or of a called function held by another attribute)."""

    __slots__ = ("encode", "decode", "with_attrs")

    def __init__(self, encode: Callable[..., Any], decode: Callable[..., Any],
                 with_attrs: bool = False) -> None:
        self.encode = encode
        self.decode = decode
        self.with_attrs = with_attrs


class Saving:
    """An op's saving decision (see `not_saveable`, `attr_codecs`, `saved_as`)."""

    __slots__ = ("refusal", "codecs", "check", "file_output", "replacement")

    def __init__(self, refusal: str | None, codecs: Mapping[str, AttrCodec],
                 check: Callable[[list[Spec], Mapping[str, Any]], None] | None = None,
                 file_output: Callable[[Mapping[str, Any]], str | None] | None = None,
                 replacement: Callable[[Any, Any], tuple[OpDef, dict[str, Any]]] | None = None
                 ) -> None:
        self.refusal = refusal
        self.codecs = dict(codecs)
        self.check = check
        self.file_output = file_output
        self.replacement = replacement


def not_saveable(reason: str) -> Saving:
    """Declares that graphs using the op cannot be saved; `reason` ends the error message
    ('it runs a Python function')."""
    return Saving(reason, {})


def attr_codecs(*, check: Callable[[list[Spec], Mapping[str, Any]], None] | None = None,
                file_output: Callable[[Mapping[str, Any]], str | None] | None = None,
                **codecs: AttrCodec) -> Saving:
    """Declares how the named attributes are saved (the others use the generic encoding).
    `check(input_specs, attrs)`, when given, checks a loaded node beyond what `infer` checks
    (how sub-graphs fit the op's inputs and outputs), raising ValueError for a node that a
    save never writes. `file_output(attrs)`, for an op that may write files, gives the path
    a node with these attributes writes (None: none); a loader refuses such a node unless
    its caller allows file output."""
    return Saving(None, codecs, check, file_output)


def saved_as(replacement: Callable[[Any, Any], tuple[OpDef, dict[str, Any]]]) -> Saving:
    """Declares that a node of the op is saved as a node of another op, with the same name,
    inputs and outputs: `replacement(node, options) -> (op, attrs)`, `options` being the
    save's SaveOptions. For an op whose attributes hold Python objects that a saved model
    cannot hold, but a traced graph can stand for (tf.custom_gradient's gradient function,
    saved as a graph, never as code)."""
    return Saving(None, {}, replacement=replacement)


GENERIC_SAVING = Saving(None, {})


def _never(value: Any) -> Any:
    raise AssertionError("UNSAVED attributes are left out, never encoded or decoded")


# The codec of a bookkeeping attribute that another pass adds to a finished graph (a
# gradient's residuals): left out of a saved model, together with the outputs it added.
UNSAVED = AttrCodec(_never, _never)


def _not_differentiable(ctx: Any, grads: list[Any]) -> list[None]:
    return [None] * len(ctx.needed)


class OpDef:
    """The declaration of one op: kernel, inference rule, gradient, emit rule and traits.

    `emit` is None for a kernel call (or a control-flow op), else the expression rule;
    `lower` is the statement rule of a control-flow op, else None; `emit_decision` and
    `grad_decision` keep what was declared."""

    __slots__ = ("name", "kernel", "infer", "grad_decision", "grad", "emit_decision", "emit",
                 "lower", "traits", "stateful", "side_effects", "no_fold", "static_value",
                 "lowerings", "node_name", "doc", "saving", "attr_types")

    def __init__(self, name: str, kernel: Callable[..., Any], infer: InferRule,
                 grad: Any, emit: Any, traits: frozenset[str],
                 static_value: Callable[..., Any] | None, node_name: str,
                 doc: str | None, lowerings: Mapping[str, Any] | None = None,
                 saving: Saving = GENERIC_SAVING,
                 attr_types: Mapping[str, AttrType] | None = None) -> None:
        self.name = name
        self.kernel = kernel
        self.infer = infer
        self.grad_decision = grad
        # the gradient rule, `rule(ctx, grads)`, or None when the op has no gradient
        self.grad: GradRule | None = (None if grad is NO_GRADIENT else _not_differentiable
                                      if grad is NOT_DIFFERENTIABLE else grad)
        self.emit_decision = emit
        self.emit = emit if callable(emit) else None
        self.lower = emit.rule if isinstance(emit, Statements) else None
        self.traits = traits
        self.side_effects = "side_effects" in traits
        self.stateful = self.side_effects or "stateful" in traits
        self.no_fold = "no_fold" in traits
        self.static_value = static_value
        # backend name (or "array") -> lowering rule, as declared
        self.lowerings: dict[str, Any] = dict(lowerings or {})
        self.node_name = node_name
        self.doc = doc
        self.saving = saving
        # attribute name -> AttrType, as declared (see `attribute_type` for the others)
        self.attr_types: dict[str, AttrType] = dict(attr_types or {})

    def __setattr__(self, attr: str, value: Any) -> None:
        """A registered op is complete: no module may change its rules afterwards."""
        if REGISTRY.get(getattr(self, "name", "")) is self:
            raise AttributeError("op %s is complete where it is declared (runtime/ops): its %s "
                                 "cannot be set afterwards" % (self.name, attr))
        object.__setattr__(self, attr, value)

    def __repr__(self) -> str:
        return "<OpDef %s>" % self.name


def tensor_refs(tensors: Iterable[Any], graph: Any) -> list[str]:
    """Names of `tensors` of `graph` ('node' or 'node:1'), for an attribute codec; raises
    TypeError for a tensor of another graph."""
    refs = []
    for t in tensors:
        if t.graph is not graph:
            raise TypeError("tensor %s is not in graph %s" % (t.name, graph.name))
        refs.append(t.node.name if t.index == 0 else "%s:%d" % (t.node.name, t.index))
    return refs


def resolve_refs(refs: Any, graph: Any) -> tuple[Any, ...]:
    """The tensors of `graph` named by `refs` (see `tensor_refs`); ValueError for bad refs."""
    if not isinstance(refs, (list, tuple)) or not all(isinstance(r, str) for r in refs):
        raise ValueError("expected a list of tensor names, got %r" % (refs,))
    nodes = {node.name: node for node in graph.nodes}
    tensors = []
    for ref in refs:
        name, _, index = ref.rpartition(":") if ":" in ref else (ref, "", "0")
        node = nodes.get(name)
        if node is None or not index.isdigit() or int(index) >= len(node.outputs):
            raise ValueError("no tensor %r in graph %s" % (ref, graph.name))
        tensors.append(node.outputs[int(index)])
    return tuple(tensors)


# A rule named in a string ('package.module:function') rather than referenced
_NAMED_RULE = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")


def _check_decisions(name: str, kernel: Any, grad: Any, emit: Any,
                     traits: frozenset[str]) -> None:
    if not callable(kernel):
        raise TypeError("op %r: the kernel must be a function, referenced directly, got %r"
                        % (name, kernel))
    if not (grad is NOT_DIFFERENTIABLE or grad is NO_GRADIENT or callable(grad)):
        raise TypeError("op %r: grad must be a rule (a function, referenced directly, not "
                        "named in a string), NOT_DIFFERENTIABLE or NO_GRADIENT, got %r"
                        % (name, grad))
    if not (emit is KERNEL_CALL or callable(emit) or isinstance(emit, Statements)):
        raise TypeError("op %r: emit must be KERNEL_CALL, an emit rule or statements(rule), "
                        "got %r" % (name, emit))
    unknown = set(traits) - set(TRAITS)
    if unknown:
        raise ValueError("op %r: unknown traits %s" % (name, sorted(unknown)))


def register(name: str, kernel: Callable[..., Any], infer: InferRule, *, grad: Any,
             emit: Any, traits: Iterable[str] = (),
             static_value: Callable[..., Any] | None = None, node_name: str | None = None,
             doc: str | None = None, lowerings: Mapping[str, Any] | None = None,
             saving: Saving | None = None,
             attr_types: Mapping[str, AttrType] | None = None) -> OpDef:
    """Declares op `name` with all its rules (see the module docstring); returns its OpDef.
    Each name may be declared only once;
    `lowerings` maps a backend name (or "array") to its lowering rule; `attr_types` declares
    the types of attributes that no convention types (see `attribute_type`)."""
    if name in REGISTRY:
        raise ValueError("op %r is already registered" % name)
    trait_set = frozenset(traits)
    _check_decisions(name, kernel, grad, emit, trait_set)
    if saving is not None and not isinstance(saving, Saving):
        raise TypeError("op %r: saving must be not_saveable(reason), attr_codecs(...) or "
                        "saved_as(replacement), got %r" % (name, saving))
    for backend, rule in (lowerings or {}).items():
        if not (isinstance(rule, str) or callable(rule)) or (
                isinstance(rule, str) and _NAMED_RULE.fullmatch(rule)):
            raise TypeError("op %r: the %r lowering must be a template string or a rule "
                            "referenced directly (not 'module:rule'), got %r"
                            % (name, backend, rule))
    for attr, attr_type in (attr_types or {}).items():
        if not isinstance(attr_type, AttrType):
            raise TypeError("op %r: the type of attribute %r must be an AttrType "
                            "(runtime/ops/attr_types.py), got %r" % (name, attr, attr_type))
    op = OpDef(name, kernel, infer, grad, emit, trait_set, static_value, node_name or name, doc,
               lowerings, saving or GENERIC_SAVING, attr_types)
    REGISTRY[name] = op
    return op


def get(name: str) -> OpDef:
    """The OpDef registered as `name`."""
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError("no op named %r is registered" % name) from None


_declared: dict[tuple[str, int], frozenset[str] | None] = {}


def declared_attributes(op: OpDef, input_count: int) -> frozenset[str] | None:
    """The names of the attributes `op` declares for a node of `input_count` inputs: the
    keyword parameters of its kernel (`kernel(*input_values, **attrs)`) after the inputs;
    none for a numpy ufunc kernel (its `out=`, `where=`... are not the op's attributes). A
    kernel that takes any attribute (`**attrs`: control flow, placeholders) declares those of
    its `attr_types` and attribute codecs, or None (any name) when it declares none. A saved
    model's loader refuses anything else."""
    key = (op.name, input_count)
    if key not in _declared:
        kernel = _kernel_function(op)
        if isinstance(kernel, np.ufunc):
            _declared[key] = frozenset()
            return _declared[key]
        names = []
        positional = input_count
        parameters = inspect.signature(kernel).parameters.values()
        for p in parameters:
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and positional > 0:
                positional -= 1  # fed by an input
            elif p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                names.append(p.name)
        if any(p.kind is p.VAR_KEYWORD for p in parameters):
            named = set(op.attr_types) | set(op.saving.codecs)
            _declared[key] = frozenset(named | set(names)) if named else None
        else:
            _declared[key] = frozenset(names)
    return _declared[key]


def required_attributes(op: OpDef, input_count: int) -> frozenset[str]:
    """The attributes a node of `op` with `input_count` inputs must have: those of
    `declared_attributes` whose kernel parameter has no default."""
    declared = declared_attributes(op, input_count)
    if not declared:
        return frozenset()
    parameters = inspect.signature(_kernel_function(op)).parameters
    return frozenset(name for name in declared
                     if name in parameters and parameters[name].default is parameters[name].empty)


def keyword_attributes(op: OpDef) -> frozenset[str] | None:
    """The attributes of `op` whatever its input count: its kernel's keyword-only parameters
    and those with a default (the others may be fed by inputs); for a kernel that takes any
    attribute (`**attrs`), those `declared_attributes` names, or None when it names none."""
    kernel = _kernel_function(op)
    if isinstance(kernel, np.ufunc):
        return frozenset()
    parameters = inspect.signature(kernel).parameters.values()
    names = {p.name for p in parameters
             if p.kind is p.KEYWORD_ONLY
             or p.kind is p.POSITIONAL_OR_KEYWORD and p.default is not p.empty}
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        named = set(op.attr_types) | set(op.saving.codecs)
        return frozenset(names | named) if named else None
    return frozenset(names)


def _kernel_function(op: OpDef) -> Any:
    return op.kernel


# The type a kernel parameter's default value declares for its attribute.
_DEFAULT_TYPES: dict[type, AttrType] = {bool: types_lib.BOOL, str: types_lib.STR}


def attribute_type(op: OpDef, name: str) -> AttrType | None:
    """The declared type of attribute `name` of `op`, by the first that declares one: the
    op's `attr_types`; its attribute codec (which checks what it decodes: CODEC); a bool or
    str default of the kernel parameter; the naming convention
    (`attr_types.conventional_type`). None when nothing declares one."""
    key = (op.name, name)
    if key not in _attribute_types:
        _attribute_types[key] = _find_attribute_type(op, name)
    return _attribute_types[key]


_attribute_types: dict[tuple[str, str], AttrType | None] = {}


def _find_attribute_type(op: OpDef, name: str) -> AttrType | None:
    found = op.attr_types.get(name)
    if found is not None:
        return found
    if name in op.saving.codecs:
        return types_lib.CODEC
    kernel = _kernel_function(op)
    if not isinstance(kernel, np.ufunc):
        parameter = inspect.signature(kernel).parameters.get(name)
        if parameter is not None and type(parameter.default) in _DEFAULT_TYPES:
            return _DEFAULT_TYPES[type(parameter.default)]
    found = types_lib.conventional_type(name)
    if found is None and op.saving.refusal is not None:
        return types_lib.TRACE_ONLY  # the op is never saved: its attributes are never loaded
    return found


def execute(op: OpDef, inputs: Sequence[Any], attrs: Mapping[str, Any] = _EMPTY,
            name: str | None = None) -> list[Tensor]:
    """Runs `op` on `inputs` (tensors or resources): eagerly, or by adding a graph node.

    Returns the list of output tensors.
    """
    graph = context.current_graph() if context.building else None
    if graph is not None:
        return graph.add_op(op, inputs, attrs, name)
    values = []
    specs: list[Spec] = []
    for t in inputs:
        if type(t) is EagerTensor:
            value = t._value
            values.append(value)
            specs.append((t.dtype, value.shape))
        elif isinstance(t, SymbolicTensor):
            raise TypeError(errors.with_user_location(
                "an op outside of the function building code is being passed a graph tensor "
                "(%s): a symbolic tensor leaked out of a traced function. Return it from the "
                "function instead." % t.name))
        else:  # variables and other resources
            values.append(t._eager_value())
            specs.append(t._spec())
    try:
        out_specs = op.infer(specs, attrs)
    except SpecError as e:
        message = ("%s: %s (operands: %s)" % (op.name, e.message, describe_operands(specs))
                   if e.kernel_message is None
                   else errors.eager_kernel_message(op.name, e.kernel_message, e.kernel_name,
                                                    e.called_name))
        raise errors.InvalidArgumentError(errors.with_user_location(message),
                                          op.name) from None
    try:
        result = op.kernel(*values, **attrs)
    except errors.OpError as e:
        if not e.in_kernel_words:
            raise
        raise type(e)(errors.with_user_location(errors.eager_kernel_message(op.name, e.message)),
                      op.name) from None
    except (ValueError, IndexError, TypeError, ZeroDivisionError, FloatingPointError,
            OverflowError) as e:
        raise errors.InvalidArgumentError(errors.with_user_location(
            "%s failed: %s (operands: %s)" % (op.name, e, describe_operands(specs))),
            op.name) from None
    if len(out_specs) == 1:
        outputs: list[Tensor] = [make_eager(result, out_specs[0][0])]
    else:
        outputs = [make_eager(r, spec[0]) for r, spec in zip(result, out_specs)]
    if context.numerics_checked():
        _check_numerics(op, outputs)
    if _tapes:  # GradientTapes are recording (runtime.gradients.tape)
        for tape in _tapes:
            tape._record(op, inputs, attrs, outputs)
    return outputs


def nonfinite_kind(value: Any) -> str | None:
    """'NaN' or 'Inf' when a float value holds such elements, else None (check_numerics)."""
    if np.all(np.isfinite(value)):
        return None
    return "NaN" if np.any(np.isnan(value)) else "Inf"


def _check_numerics(op: OpDef, outputs: Sequence[Any]) -> None:
    for t in outputs:
        kind = nonfinite_kind(t._value) if t.dtype.is_floating else None
        if kind is not None:
            raise errors.InvalidArgumentError(errors.with_user_location(
                "check_numerics: %s produced %s values" % (op.name, kind)), op.name)


def execute1(op: OpDef, inputs: Sequence[Any], attrs: Mapping[str, Any] = _EMPTY,
             name: str | None = None) -> Tensor:
    """`execute` for single-output ops: returns the one output tensor."""
    return execute(op, inputs, attrs, name)[0]


def np_result(value: Any, dtype: DType) -> Any:
    """Casts a kernel's intermediate numpy result to `dtype`'s storage when it differs."""
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype == dtype.np_dtype:
        return value
    return np.asarray(value, dtype=dtype.np_dtype)
