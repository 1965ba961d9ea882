"""`GradientTape`: records operations to differentiate them later (TensorFlow's API).

    with GradientTape() as tape:
        y = x * x            # x watched (tape.watch(x)), or a trainable Variable read
    tape.gradient(y, x)

Eagerly, an entered tape is listed in `context.tapes`; `registry.execute` hands it each op
it runs (`_record`), and a Function called eagerly hands it one record for the whole call
(`_record_call`, see function_grads). A tape keeps a record only when one of the op's
inputs is watched or computed from a watched value, so unrelated work costs nothing.

Inside a trace (a tape used in a tf.function), ops become nodes of the graph being built,
so the tape records nothing itself: it remembers which stretch of the graph's nodes was
made while it recorded (minus `stop_recording` blocks), and `gradient` backpropagates over
those nodes, adding the gradient ops to the same graph.

Trainable variables are watched automatically when read while the tape records (unless
`watch_accessed_variables=False`); the gradient with respect to a variable is the sum over
its reads. Sources not connected to the target get None (or zeros with
`unconnected_gradients=UnconnectedGradients.ZERO`); integer and bool tensors get None.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, cast

from runtime import context, nest
from runtime.gradients import function_grads, jacobians
from runtime.gradients.backprop import (
    DIFFERENTIABLE_KINDS,
    External,
    GradKey,
    Operand,
    Record,
    backprop,
    carries,
    external_key_in,
    implicit_externals,
)
from runtime.ops import array_ops
from runtime.ops.call_ops import CALL_OP
from runtime.ops.common import convert_to_tensor
from runtime.ops.registry import OpDef
from runtime.tensor import SymbolicTensor, Tensor
from runtime.variables import OPS as VARIABLE_OPS
from runtime.variables import GraphVariable, Variable

if TYPE_CHECKING:
    from runtime.concrete_function import ConcreteFunction
    from runtime.graph import Node

_READ = VARIABLE_OPS["ReadVariableOp"]


class UnconnectedGradients:
    """What `gradient` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


class GradientTape:
    """Records operations for automatic differentiation (see the module docstring)."""

    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True) -> None:
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        self._recording = False
        self._used = False
        self._graph: Any = None     # the graph a tape entered inside a trace records
        # [start, end] node index ranges of that graph (end None while recording)
        self._ranges: list[list[int | None]] = []
        self._records: list[Record] = []  # eager records
        self._live: set[int] = set()  # eager: ids of watched values and values computed from them
        self._watched: list[Tensor] = []  # explicitly watched tensors (kept alive)
        self._watched_variables: list[Variable] = []
        self._watched_variable_ids: set[int] = set()

    # -- recording ---------------------------------------------------------------------------
    def __enter__(self) -> GradientTape:
        if self._recording:
            raise ValueError("this GradientTape is already recording")
        self._start()
        self._recording = True
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc_value: BaseException | None,
                 traceback: TracebackType | None) -> Literal[False]:
        if self._recording:
            self._stop()
            self._recording = False
        return False

    def _start(self) -> None:
        graph = context.current_graph()
        if graph is None:
            if self._graph is not None:
                raise ValueError("a GradientTape used inside a traced function cannot record "
                                 "eagerly as well")
            context.tapes.append(self)
        else:
            if self._graph is None and (self._records or self._ranges):
                raise ValueError("a GradientTape that recorded eagerly cannot record inside a "
                                 "traced function as well")
            if self._graph is not None and self._graph is not graph:
                raise ValueError("a GradientTape can record in only one traced function")
            self._graph = graph
            self._ranges.append([len(graph.nodes), None])

    def _stop(self) -> None:
        if self._graph is None:
            if self in context.tapes:
                context.tapes.remove(self)
        else:
            last = self._ranges[-1]
            if last[1] is None:
                last[1] = len(self._graph.nodes)

    @contextlib.contextmanager
    def stop_recording(self) -> Iterator[None]:
        """A block in which this tape records nothing."""
        if not self._recording:
            raise ValueError("stop_recording needs the tape to be recording (inside its "
                             "`with` block)")
        self._stop()
        try:
            yield
        finally:
            self._start()

    def reset(self) -> None:
        """Forgets everything recorded and watched (the tape keeps recording if it was)."""
        recording = self._recording
        if recording:
            self._stop()
        self._records = []
        self._live = set()
        self._watched = []
        self._watched_variables = []
        self._watched_variable_ids = set()
        self._ranges = []
        self._graph = None
        self._used = False
        if recording:
            self._start()

    def watch(self, tensor: Any) -> None:
        """Makes the tape differentiate with respect to `tensor` (a tensor, a Variable, or a
        nested structure of them)."""
        for value in nest.flatten(tensor):
            if isinstance(value, Variable):
                self._watch_variable(value)
            elif isinstance(value, Tensor):
                self._watched.append(value)
                if self._graph is None and value.dtype.kind in DIFFERENTIABLE_KINDS:
                    self._live.add(id(value))
            else:
                raise ValueError("GradientTape.watch needs tensors or variables, got %r"
                                 % (value,))

    def _watch_variable(self, variable: Variable) -> None:
        if id(variable) not in self._watched_variable_ids:
            self._watched_variable_ids.add(id(variable))
            self._watched_variables.append(variable)
            if self._graph is None:
                self._live.add(id(variable))

    def _auto_watch(self, variable: Variable) -> bool:
        """Watches a variable being read (when trainable and auto-watching); True if watched."""
        if id(variable) in self._live:
            return True
        if self._watch_accessed and variable.trainable and \
                variable.dtype.kind in DIFFERENTIABLE_KINDS:
            self._watch_variable(variable)
            return True
        return False

    def _record(self, op: OpDef, inputs: Sequence[Operand], attrs: Mapping[str, Any],
                outputs: Sequence[Tensor]) -> None:
        """Called by `registry.execute` for each op run eagerly while the tape records."""
        live = self._live
        if op is _READ:  # an eager read's input is the variable itself
            if not self._auto_watch(cast(Variable, inputs[0])):
                return
        else:
            for t in inputs:
                if id(t) in live:
                    break
            else:
                return
        self._records.append(Record(op, attrs, tuple(inputs), outputs))
        for t in outputs:
            if carries(t.dtype):
                live.add(id(t))

    @staticmethod
    def record_function_call(cf: ConcreteFunction, feeds: list[Any], args: Any) -> Any:
        """Runs ConcreteFunction `cf` eagerly on `feeds` and records the call on every
        recording tape (see function_grads.record_call); how runtime.function, which the
        gradients build on, records calls while a tape records."""
        return function_grads.record_call(cf, feeds, args)

    def _record_call(self, cf: ConcreteFunction, inputs: Sequence[Operand],
                     outputs: Sequence[Tensor], externals: Sequence[External],
                     attrs: Mapping[str, Any] | None = None) -> None:
        """Records an eager call of ConcreteFunction `cf` when it reads a watched value
        (`attrs`: the record's, when the call also returned residuals)."""
        live = self._live
        hit = False
        for value in tuple(inputs) + tuple(externals):
            if isinstance(value, Variable):
                hit = self._auto_watch(value) or hit
            elif id(value) in live:
                hit = True
        if not hit:
            return
        self._records.append(Record(CALL_OP, attrs or {"f": cf}, tuple(inputs), outputs))
        for t in outputs:
            if carries(t.dtype):
                live.add(id(t))

    # -- queries -----------------------------------------------------------------------------
    def watched_variables(self) -> tuple[Variable, ...]:
        """The variables watched so far (explicitly, or read while recording)."""
        if self._graph is not None:
            self._graph_watched_keys()
        return tuple(self._watched_variables)

    # -- gradients ---------------------------------------------------------------------------
    def gradient(self, target: Any, sources: Any, output_gradients: Any = None,
                 unconnected_gradients: str = UnconnectedGradients.NONE) -> Any:
        """The gradients of `target` (a tensor or nested structure of tensors, summed) with
        respect to `sources` (tensors or Variables, possibly nested), shaped like `sources`.
        `output_gradients` weights each target (ones by default)."""
        self._check_usable()
        if unconnected_gradients not in (UnconnectedGradients.NONE, UnconnectedGradients.ZERO):
            raise ValueError("unconnected_gradients must be 'none' or 'zero', got %r"
                             % (unconnected_gradients,))
        flat_targets = nest.flatten(target)
        flat_sources = nest.flatten(sources)
        for s in flat_sources:
            if not isinstance(s, (Tensor, Variable)):
                raise ValueError("gradient sources must be tensors or variables, got %r" % (s,))
        if output_gradients is None:
            flat_output_grads = [None] * len(flat_targets)
        else:
            flat_output_grads = nest.flatten(output_gradients)
            if len(flat_output_grads) != len(flat_targets):
                raise ValueError("output_gradients must match the structure of target: %d "
                                 "targets, %d output gradients"
                                 % (len(flat_targets), len(flat_output_grads)))
        grads = self._gradients(flat_targets, flat_sources, flat_output_grads)
        if unconnected_gradients == UnconnectedGradients.ZERO:
            grads = [g if g is not None else _zeros_like_source(s)
                     for g, s in zip(grads, flat_sources)]
        self._spent()
        return nest.pack_sequence_as(sources, grads)

    def jacobian(self, target: Tensor | Variable, sources: Any,
                 unconnected_gradients: str = UnconnectedGradients.NONE,
                 parallel_iterations: int | None = None,
                 experimental_use_pfor: bool = True) -> Any:
        """The Jacobian of `target` with respect to each of `sources` (possibly nested):
        for a source, a tensor of shape `target.shape + source.shape` (see
        runtime.gradients.jacobians)."""
        return jacobians.jacobian(self, target, sources, unconnected_gradients,
                                  experimental_use_pfor)

    def batch_jacobian(self, target: Tensor | Variable, source: Tensor | Variable,
                       unconnected_gradients: str = UnconnectedGradients.NONE,
                       parallel_iterations: int | None = None,
                       experimental_use_pfor: bool = True) -> Tensor | None:
        """The Jacobian of each example of `target` (its first dimension is the batch) with
        respect to the same example of `source`: shape `[batch] + target.shape[1:] +
        source.shape[1:]` (see runtime.gradients.jacobians)."""
        return jacobians.batch_jacobian(self, target, source, unconnected_gradients,
                                        experimental_use_pfor)

    def _gradients(self, flat_targets: list[Any], flat_sources: list[Operand],
                   flat_output_grads: list[Any], into_graph: bool = False) -> list[Tensor | None]:
        """One gradient (or None) per source, without spending the tape. `into_graph`: the
        gradient ops of an eager tape are added to the graph being built (a Jacobian's
        backward pass, traced to be vectorised) instead of running."""
        recording = self._recording
        if recording:
            self._stop()  # the gradient computation itself is not recorded on this tape
        try:
            if self._graph is not None:
                return self._graph_gradient(flat_targets, flat_sources, flat_output_grads)
            return self._eager_gradient(flat_targets, flat_sources, flat_output_grads,
                                        into_graph)
        finally:
            if recording:
                self._start()

    def _check_usable(self) -> None:
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one "
                               "set of gradients (or jacobians); create it with "
                               "persistent=True to call gradient() several times")

    def _spent(self) -> None:
        """After a gradient or Jacobian: a tape that is not persistent lets its records go."""
        if not self._persistent:
            self._used = True
            self._records = []
            self._live = set()

    def _targets(self, flat_targets: list[Any], flat_output_grads: list[Any],
                 key: Callable[[Tensor], GradKey], variable_key: Callable[[Variable], GradKey]
                 ) -> list[tuple[GradKey, Tensor]]:
        """[(key, output gradient)] for the targets; a Variable target has the variable's
        key, as a Variable source has: its gradient with respect to itself is one."""
        targets = []
        for t, g in zip(flat_targets, flat_output_grads):
            if isinstance(t, Variable):
                t_key = variable_key(t)
                t = t.read_value()
            else:
                t_key = None
            if not isinstance(t, Tensor):
                raise ValueError("gradient targets must be tensors, got %r" % (t,))
            if t.dtype.kind not in DIFFERENTIABLE_KINDS:
                continue
            if g is None:
                shape = t._shape_tuple()
                g = (array_ops.ones(list(shape), t.dtype) if shape is not None and
                     None not in shape else array_ops.ones_like(t))
            else:
                g = convert_to_tensor(g, dtype_hint=t.dtype)
            targets.append((key(t) if t_key is None else t_key, g))
        return targets

    def _eager_gradient(self, flat_targets: list[Any], flat_sources: list[Operand],
                        flat_output_grads: list[Any], into_graph: bool) -> list[Tensor | None]:
        if context.current_graph() is not None and not into_graph:
            raise RuntimeError("this GradientTape recorded eagerly; call gradient() outside "
                               "traced functions")
        watched = {id(v) for v in self._watched_variables}
        watched.update(id(t) for t in self._watched if t.dtype.kind in DIFFERENTIABLE_KINDS)
        targets = self._targets(flat_targets, flat_output_grads, id, id)
        sources = [id(s) for s in flat_sources]
        watched.update(_sources_among_targets(sources, targets))
        grads = backprop(self._records, targets, sources, watched)
        return [_as_source_grad(g, s) for g, s in zip(grads, flat_sources)]

    # -- inside a trace --------------------------------------------------------------------------
    def _graph_records(self) -> list[Node]:
        nodes = self._graph.nodes
        records = []
        for start, end in self._ranges:
            records.extend(nodes[start:len(nodes) if end is None else end])
        return records

    def _tensor_key(self, t: Tensor) -> GradKey:
        """The key of tensor `t` among the recorded graph's tensors."""
        graph = self._graph
        if isinstance(t, SymbolicTensor) and t.graph is graph:
            return id(t)
        capture = graph._captures_by_id.get(id(t))
        return id(capture.placeholder) if capture is not None else id(t)

    def _variable_key(self, variable: Variable) -> GradKey:
        if isinstance(variable, GraphVariable):
            return self._tensor_key(variable._handle_tensor)
        return external_key_in(self._graph)(variable)

    def _variable_of(self, handle: Tensor) -> Variable | None:
        """The variable a resource tensor of the recorded graph stands for (None if unknown)."""
        while isinstance(handle, SymbolicTensor):
            graph = handle.graph
            found = graph.argument_variables.get(id(handle))
            if found is not None:
                return found
            external = None
            for capture in graph.captures:
                if capture.placeholder is handle:
                    external = capture.external
                    break
            if external is None:
                return None
            if isinstance(external, Variable):
                return external
            handle = external
        return None

    def _graph_watched_keys(self) -> set[GradKey]:
        """The keys watched in the recorded graph: explicit watches, plus the trainable
        variables read in the recorded nodes (auto-watched, added to watched_variables)."""
        keys = {self._tensor_key(t) for t in self._watched}
        for v in list(self._watched_variables):
            keys.add(self._variable_key(v))
        if not self._watch_accessed:
            return keys
        key = external_key_in(self._graph)
        for node in self._graph_records():
            if node.op is _READ:
                self._watch_handle(node.inputs[0], keys)
            elif node.op.lower is not None or node.op is CALL_OP:
                # variables read inside: handles passed in, or variables captured directly
                for t in node.inputs:
                    if t.dtype.kind == "resource":
                        self._watch_handle(t, keys)
                for external in implicit_externals(node.op, node.attrs):
                    if isinstance(external, Variable) and external.trainable and \
                            external.dtype.kind in DIFFERENTIABLE_KINDS:
                        keys.add(key(external))
                        self._watch_variable(external)
        return keys

    def _watch_handle(self, handle: SymbolicTensor, keys: set[GradKey]) -> None:
        """Auto-watches the variable behind resource tensor `handle` (a variable whose
        trainability is unknown is watched)."""
        variable = self._variable_of(handle)
        if variable is None or (variable.trainable
                                 and variable.dtype.kind in DIFFERENTIABLE_KINDS):
            keys.add(id(handle))
            if variable is not None:
                self._watch_variable(variable)

    def _graph_gradient(self, flat_targets: list[Any], flat_sources: list[Operand],
                        flat_output_grads: list[Any]) -> list[Tensor | None]:
        graph = self._graph
        if graph not in context.thread_graphs():
            raise RuntimeError("this GradientTape recorded inside a traced function; call "
                               "gradient() inside that function too")
        watched = self._graph_watched_keys()
        targets = self._targets(flat_targets, flat_output_grads, self._tensor_key,
                                self._variable_key)
        sources = [self._variable_key(s) if isinstance(s, Variable) else self._tensor_key(s)
                   for s in flat_sources]
        watched.update(_sources_among_targets(sources, targets))
        grads = backprop(self._graph_records(), targets, sources, watched,
                         external_key=external_key_in(graph))
        return [_as_source_grad(g, s) for g, s in zip(grads, flat_sources)]


def _sources_among_targets(sources: list[GradKey],
                           targets: list[tuple[GradKey, Tensor]]) -> list[GradKey]:
    """The keys of sources that are targets too: each is its own gradient's start (its
    gradient includes the target's output gradient, watched or not, as in TensorFlow)."""
    target_keys = {key for key, _ in targets}
    return [key for key in sources if key in target_keys]


def _as_source_grad(grad: Tensor | None, source: Operand) -> Tensor | None:
    """Integer and bool sources get no gradient."""
    if grad is None:
        return None
    if not isinstance(source, Variable) and source.dtype.kind not in DIFFERENTIABLE_KINDS:
        return None
    return grad


def _zeros_like_source(source: Operand) -> Tensor:
    if isinstance(source, Variable):
        return array_ops.zeros_like(source.read_value())
    return array_ops.zeros_like(source)
