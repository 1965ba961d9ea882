"""Reverse-mode differentiation over *records*: one algorithm for eager tapes and graphs.

A record is anything with `.op` (an OpDef), `.attrs`, `.inputs` and `.outputs`: an eager
tape entry (`Record`), or a graph `Node`. `backprop` walks records backwards from targets
and calls each op's gradient rule, `op.grad(ctx, grads)`, declared with the op in
runtime/ops (most rules are in the `*_grads` modules, named by the declaration). A rule
receives a `GradContext` (the op's attributes, inputs and outputs, and which inputs need a
gradient) and one gradient per output (None where nothing flows back), and returns one
gradient per input (None where there is none), or a `GradResult` that also carries
gradients for the *externals* of the op: the variables and eager tensors that the
sub-graphs of a control-flow op, or the graph of a called function, read without taking
them as inputs.

Rules build their results with the ordinary ops API, so the same rule runs eagerly (eager
tape) and adds graph nodes while tracing (a tape inside a tf.function, or a gradient
function built for a Function, a branch or a loop body).

Gradients are accumulated per *key*: `id()` of the tensor as recorded (the records keep
them alive), of a Variable (eager reads take the variable itself as input), or of the
resource placeholder standing for a captured variable in a graph (`external_key_in`).

Records of a graph can be *inlined* into another graph (`inliner.Inliner`): the rule then sees
the inputs and outputs re-emitted in the graph being built (on demand: only the forward
nodes a gradient actually uses are re-emitted, so print and assignment nodes are not run
again), while the keys stay those of the original graph. That is how gradient functions of
Functions, If branches and While bodies are built from their forward graphs.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, Union, cast, overload

import numpy as np

from runtime import errors
from runtime.dtypes import DType
from runtime.graph import Graph, Node, SubGraph
from runtime.ops import array_ops, math_ops
from runtime.ops.registry import OpDef
from runtime.shape import Shape
from runtime.tensor import SymbolicTensor, Tensor
from runtime.variables import Variable

# What gradients are keyed by: id() of a tensor, a variable or a placeholder (module doc).
GradKey = int
# What an op reads and a gradient can flow into: a tensor, or (eager reads) a Variable.
Operand = Union[Tensor, Variable]
# What a gradient rule reads besides its inputs: variables and eager tensors.
External = Union[Variable, Tensor]


class RecordView(Protocol):
    """A record's inputs and outputs as seen from the graph being built (inliner's
    `InlinedNode`): re-emitted there when first asked for."""

    @property
    def inputs(self) -> Sequence[Tensor]: ...

    @property
    def outputs(self) -> Sequence[Tensor]: ...

    def input(self, i: int) -> Tensor: ...

    def output(self, i: int) -> Tensor: ...


class GradResult:
    """A rule's result with gradients for externals: `inputs` (one per input, or None) and
    `externals`, a list of (variable or eager tensor, gradient)."""

    __slots__ = ("inputs", "externals")

    def __init__(self, inputs: Sequence[Tensor | None],
                 externals: Sequence[tuple[External, Tensor | None]] = ()) -> None:
        self.inputs = inputs
        self.externals = externals


class Record:
    """One op executed eagerly while a tape was recording."""

    __slots__ = ("op", "attrs", "inputs", "outputs")

    def __init__(self, op: OpDef, attrs: Mapping[str, Any], inputs: tuple[Operand, ...],
                 outputs: Sequence[Tensor]) -> None:
        self.op = op
        self.attrs = attrs
        self.inputs = inputs
        self.outputs = outputs

    def __repr__(self) -> str:
        return "<Record %s>" % self.op.name


class GradContext:
    """What a gradient rule sees of one op: `op`, `attrs`, `inputs`, `outputs`, `needed`
    (per input: does it need a gradient), `externals` (implicit inputs, see module doc) and
    `needed_externals` (those that need a gradient)."""

    __slots__ = ("op", "attrs", "_record", "_view", "needed", "externals", "needed_externals")

    def __init__(self, record: Record | Node, view: RecordView | None, needed: list[bool],
                 externals: Sequence[External], needed_externals: list[External]) -> None:
        self.op: OpDef = record.op
        self.attrs = record.attrs
        self._record = record
        self._view = view
        self.needed = needed
        self.externals = externals
        self.needed_externals = needed_externals

    @property
    def inputs(self) -> Sequence[Operand]:
        """The op's inputs, as tensors of the graph being built (or eager tensors)."""
        return self._view.inputs if self._view is not None else self._record.inputs

    @property
    def outputs(self) -> Sequence[Tensor]:
        """The op's outputs, as tensors of the graph being built (or eager tensors)."""
        return self._view.outputs if self._view is not None else self._record.outputs

    def input(self, i: int) -> Operand:
        """Input `i` only (inlined records re-emit just what is asked for)."""
        if self._view is not None:
            return self._view.input(i)
        return self._record.inputs[i]

    def output(self, i: int) -> Tensor:
        """Output `i` only."""
        if self._view is not None:
            return self._view.output(i)
        return self._record.outputs[i]

    def input_shape(self, i: int) -> Shape:
        """The static shape of input `i` (a tuple with None entries, or None), known
        without re-emitting anything."""
        return _static_shape(self._record.inputs[i])

    def output_shape(self, i: int) -> Shape:
        """The static shape of output `i`."""
        return _static_shape(self._record.outputs[i])

    def input_dtype(self, i: int) -> DType:
        """The dtype of input `i`."""
        return self._record.inputs[i].dtype


def _static_shape(t: Operand) -> Shape:
    shape = getattr(t, "_shape_tuple", None)
    return shape() if shape is not None else None


# Values whose gradient flows: floats, complex numbers, and TensorArray handles (`variant`),
# whose gradient is a TensorArray of the gradients of their elements (see
# runtime/tensor_array/grads.py).
GRADIENT_KINDS = frozenset(["float", "complex", "variant"])
DIFFERENTIABLE_KINDS = frozenset(["float", "complex"])  # the tensors a tape watches


def carries(dtype: DType) -> bool:
    """True for the dtypes of values that have a gradient (float, complex, TensorArray
    handles)."""
    return dtype.kind in GRADIENT_KINDS


def can_carry(t: Operand) -> bool:
    """True for what can receive a gradient: float tensors, float variables, TensorArray
    handles and resource handles (the placeholder of a variable in a graph)."""
    kind = t.dtype.kind
    return kind in GRADIENT_KINDS or kind == "resource"


def no_gradient_error(op: OpDef, where: str = "") -> LookupError:
    """The LookupError for a gradient asked through `op`, which has none: TensorFlow's
    words, with the advice in a note (shown with the traceback)."""
    error = LookupError("gradient registry has no entry for: %s" % op.name)
    errors.add_note(error, (
        "No gradient is defined for operation%s (op type: %s): one is needed through it "
        "because it lies between the sources and the target. Wrap its inputs in "
        "tf.stop_gradient if no gradient should flow through it." % (where, op.name)))
    return error


# -- externals: what control flow and calls read without taking it as an input ------------

# graph -> ((node count, capture count), its externals)
_externals_cache: weakref.WeakKeyDictionary[Graph, tuple[tuple[int, int], tuple[External, ...]]] \
    = weakref.WeakKeyDictionary()


def graph_externals(graph: Graph) -> tuple[External, ...]:
    """The variables and eager tensors that `graph` captures, or that its sub-graphs and the
    functions it calls capture (recursively), in a stable order without duplicates."""
    size = (len(graph.nodes), len(graph.captures))
    cached = _externals_cache.get(graph)
    if cached is not None and cached[0] == size:
        return cached[1]
    found: list[External] = []
    seen = set()
    pending = [graph]
    visited = set()
    while pending:
        g = pending.pop()
        if id(g) in visited:
            continue
        visited.add(id(g))
        for capture in g.captures:
            external = capture.external
            if capture.leaked or isinstance(external, SymbolicTensor):
                continue
            if id(external) not in seen:
                seen.add(id(external))
                found.append(external)
        inner: list[Graph] = []
        for node in g.nodes:
            if "calls_function" in node.op.traits:
                inner.append(node.attrs["f"].graph)
            elif node.op.lower is not None:
                inner.extend(sub.graph for sub in _subgraphs(node.attrs))
            elif node.op in _EXTERNALS_RULES:  # WhileGrad
                for external in implicit_externals(node.op, node.attrs):
                    if id(external) not in seen:
                        seen.add(id(external))
                        found.append(external)
        pending.extend(reversed(inner))
    result = tuple(found)
    _externals_cache[graph] = (size, result)
    return result


def _subgraphs(attrs: Mapping[str, Any]) -> list[SubGraph]:
    return [v for v in attrs.values() if isinstance(v, SubGraph)]


# Rules of the gradient modules above this one, which build on it and so give them here:
# {op: rule(attrs) -> the externals the op reads} (WhileGrad: see runtime/ops/while_grad_ops.py).
ExternalsRule = Callable[[Mapping[str, Any]], tuple[External, ...]]
_EXTERNALS_RULES: dict[OpDef, ExternalsRule] = {}


def register_externals_rule(op: OpDef, rule: ExternalsRule) -> None:
    """Declares `rule(attrs)`: the externals that nodes of `op` read besides their inputs."""
    _EXTERNALS_RULES[op] = rule


def implicit_externals(op: OpDef, attrs: Mapping[str, Any]) -> tuple[External, ...]:
    """The externals of a call or control-flow op (empty for every other op)."""
    if op.lower is not None:
        out = []
        seen = set()
        for sub in _subgraphs(attrs):
            for e in graph_externals(sub.graph):
                if id(e) not in seen:
                    seen.add(id(e))
                    out.append(e)
        return tuple(out)
    f = attrs.get("f") if attrs else None
    if f is not None and "calls_function" in op.traits:
        return graph_externals(f.graph)
    rule = _EXTERNALS_RULES.get(op)
    if rule is not None:  # WhileGrad: what its loop read (see while_grad_ops)
        return rule(attrs)
    return ()


def external_key_in(graph: Graph | None) -> Callable[[External], GradKey]:
    """The key function for externals when backpropagating over `graph`'s nodes: the
    placeholder that captured the external, or the external itself (eager records, or an
    external only read inside called functions or sub-graphs)."""
    if graph is None:
        return id
    by_id = graph._captures_by_id

    def key(external: External) -> GradKey:
        capture = by_id.get(id(external))
        return id(capture.placeholder) if capture is not None else id(external)
    return key


# -- the algorithm ----------------------------------------------------------------------------


@overload
def backprop(records: Sequence[Node], targets: Sequence[tuple[GradKey, Tensor | None]],
             sources: Sequence[GradKey], watched: set[GradKey],
             view: Callable[[Node], RecordView],
             external_key: Callable[[External], GradKey] = id) -> list[SymbolicTensor | None]:
    ...  # inlined: the gradients are tensors of the graph being built


@overload
def backprop(records: Sequence[Record | Node], targets: Sequence[tuple[GradKey, Tensor | None]],
             sources: Sequence[GradKey], watched: set[GradKey], view: None = None,
             external_key: Callable[[External], GradKey] = id) -> list[Tensor | None]:
    ...


def backprop(records: Sequence[Record | Node], targets: Sequence[tuple[GradKey, Tensor | None]],
             sources: Sequence[GradKey], watched: set[GradKey],
             view: Callable[[Node], RecordView] | None = None,
             external_key: Callable[[External], GradKey] = id) -> Sequence[Tensor | None]:
    """Gradients of `targets` with respect to `sources`.

    `records`: forward-ordered records; `targets`: [(key, gradient tensor)]; `sources`: keys;
    `watched`: keys from which gradients may flow (a record takes part when one of its
    inputs is watched or computed from a watched key); `view(record)`: what the rule sees as
    inputs and outputs (for inlined records), None for the record itself;
    `external_key(external)`: the key of an external. Returns one gradient (or None) per
    source."""
    live = set(watched)
    plan: list[tuple[Record | Node, list[bool], tuple[External, ...], list[External]]] = []
    for rec in records:
        inputs = rec.inputs
        needed = None
        for i, t in enumerate(inputs):
            if id(t) in live and can_carry(t):
                if needed is None:
                    needed = [False] * len(inputs)
                needed[i] = True
        externals = implicit_externals(rec.op, rec.attrs) if (
            rec.op.lower is not None or "calls_function" in rec.op.traits
            or rec.op in _EXTERNALS_RULES) else ()
        needed_externals = [e for e in externals if external_key(e) in live]
        if needed is None and not needed_externals:
            continue
        for t in rec.outputs:
            if t.dtype.kind in GRADIENT_KINDS:
                live.add(id(t))
        plan.append((rec, needed or [False] * len(inputs), externals, needed_externals))

    acc: dict[GradKey, list[Tensor]] = {}
    for key, grad in targets:
        if grad is not None:
            acc.setdefault(key, []).append(grad)
    for rec, needed, externals, needed_externals in reversed(plan):
        grads = [_total(acc, id(t)) if t.dtype.kind in GRADIENT_KINDS else None
                 for t in rec.outputs]
        if all(g is None for g in grads):
            continue
        rule = rec.op.grad
        if rule is None:
            name = getattr(rec, "name", None)
            raise no_gradient_error(rec.op, " %r" % name if name else "")
        # a view is given only when the records are a graph's nodes (inliner.Inliner.view)
        seen_as = view(cast(Node, rec)) if view is not None else None
        ctx = GradContext(rec, seen_as, needed, externals, needed_externals)
        result = rule(ctx, grads)
        if isinstance(result, GradResult):
            input_grads, external_grads = result.inputs, result.externals
        else:
            input_grads, external_grads = result, ()
        for t, need, g in zip(rec.inputs, needed, input_grads):
            if need and g is not None:
                _check_shape(rec, t, g)
                acc.setdefault(id(t), []).append(g)
        for external, g in external_grads:
            if g is not None:
                acc.setdefault(external_key(external), []).append(g)
    return [_total(acc, key) if key in live else None for key in sources]


def _check_shape(rec: Record | Node, t: Operand, g: Tensor) -> None:
    """A rule's gradient must have its input's shape (checked where both are static)."""
    want = _static_shape(t)
    have = g._shape_tuple()
    if want is None or have is None or len(want) == len(have) and all(
            a is None or b is None or a == b for a, b in zip(want, have)):
        return
    if t.dtype.kind == "resource":
        return
    raise ValueError("internal error: the gradient rule of %s gave a gradient of shape %s "
                     "for an input of shape %s" % (rec.op.name, have, want))


def _total(acc: dict[GradKey, list[Tensor]], key: GradKey) -> Tensor | None:
    grads = acc.get(key)
    if not grads:
        return None
    if len(grads) == 1:
        return grads[0]
    adder = _ADDERS.get(grads[0].dtype.kind)
    total = adder(grads) if adder is not None else math_ops.add_n(grads)
    acc[key] = [total]
    return total


# How gradients of a non-float kind are summed: {dtype kind: function(list of gradients)}.
_ADDERS: dict[str, Callable[[list[Tensor]], Tensor]] = {}


def register_adder(kind: str, adder: Callable[[list[Tensor]], Tensor]) -> None:
    """Declares how gradients of dtype kind `kind` are summed (TensorArrays register one)."""
    _ADDERS[kind] = adder


# Zero gradients in graphs for kinds other than float: {dtype kind: function(tensor)}.
_ZEROS: dict[str, Callable[[Tensor], Tensor]] = {}


def register_zeros(kind: str, zeros_like: Callable[[Tensor], Tensor]) -> None:
    """Declares how a zero gradient for a tensor of dtype kind `kind` is made."""
    _ZEROS[kind] = zeros_like


def zeros_like_tensor(t: Tensor) -> Tensor:
    """A zero gradient for tensor `t` (zeros_like for floats)."""
    make = _ZEROS.get(t.dtype.kind)
    if make is not None:
        return make(t)
    return array_ops.zeros_like(t)


# Kernels that handle gradients as run-time values (WhileGrad) need zeros and sums of values
# that are not arrays: {Python type: (zeros_like(value), add(a, b))}.
# (Run-time values are Any: numpy arrays, and whatever value types register rules here.)
_VALUE_RULES: dict[type, tuple[Callable[[Any], Any], Callable[[Any, Any], Any]]] = {}


def register_value_rules(cls: type, zeros_like: Callable[[Any], Any],
                         add: Callable[[Any, Any], Any]) -> None:
    """Declares zeros and sums for run-time values of type `cls` (TensorArray values)."""
    _VALUE_RULES[cls] = (zeros_like, add)


def _unwrap(value: Any) -> Any:
    if isinstance(value, np.ndarray) and value.dtype == object and value.ndim == 0:
        return value[()]
    return value


def zeros_like_value(value: Any) -> Any:
    """A zero gradient shaped like run-time value `value` (a variable: like its value)."""
    if isinstance(value, Variable):
        return np.zeros_like(value._value)
    rules = _VALUE_RULES.get(type(_unwrap(value)))
    if rules is not None:
        return rules[0](_unwrap(value))
    return np.zeros_like(value)


def add_values(a: Any, b: Any) -> Any:
    """The sum of two run-time gradient values (None is zero)."""
    if a is None:
        return b
    if b is None:
        return a
    rules = _VALUE_RULES.get(type(_unwrap(a)))
    if rules is not None:
        return rules[1](_unwrap(a), _unwrap(b))
    return a + b
