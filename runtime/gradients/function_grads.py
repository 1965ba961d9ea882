"""Gradients through Function calls.

For a ConcreteFunction `f`, a *gradient function* is built once (per set of inputs that
need a gradient) and cached on `f`: a ConcreteFunction whose graph has a placeholder for
each of `f`'s inputs and for the gradient of each float output, re-emits the forward nodes
the gradient uses (inlining) and backpropagates through them. It returns the gradients of
`f`'s inputs and of the variables (and eager tensors) `f` captured, including those read by
functions `f` calls and by its control flow.

  * An eager call of a Function under a recording tape is one tape record (`record_call`);
    its gradient calls the gradient function eagerly.
  * A call inside a trace is a PartitionedCall node; its gradient is another PartitionedCall
    node calling the gradient function. The same rule serves both.

The gradient function recomputes the forward values it needs from `f`'s inputs (only
those: prints and assignments that do not feed the gradient are not run again), except the
*residuals* of `f`'s graph (random draws, variable reads, iterator reads, py_function
results: see residuals.py), which a second run would not reproduce: the forward call
returns them too (a call node is given extra outputs when its gradient is built; an eager
call under a tape runs a version of the graph that returns them), and the gradient function
takes them as extra inputs, then the gradients flowing into them (for higher orders).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Union, cast

import numpy as np

from runtime import context, nest
from runtime.concrete_function import ConcreteFunction
from runtime.device_tensor import DeviceTensor, host_feeds
from runtime.gradients import residuals
from runtime.gradients.backprop import (
    DIFFERENTIABLE_KINDS,
    External,
    GradContext,
    GradResult,
    Operand,
    backprop,
    external_key_in,
    graph_externals,
)
from runtime.gradients.inliner import Inliner
from runtime.graph import Graph, Node
from runtime.ops import array_ops
from runtime.ops.registry import OpDef, execute
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor, make_eager
from runtime.variables import Variable

# Where a gradient function's output goes: ("in", index of the call's input) or ("ext", the
# external whose gradient it is).
Slot = tuple[str, Union[int, External]]


class FunctionGradient:
    """The gradient function of one ConcreteFunction for one choice of needed inputs."""

    def __init__(self, function: ConcreteFunction | None, dy_indices: list[int],
                 layout: list[Slot]) -> None:
        self.function = function      # a ConcreteFunction, or None when nothing is connected
        self.dy_indices = dy_indices  # forward outputs whose gradient it takes
        self.layout = layout          # per output: ("in", input index) or ("ext", external)


def gradient_function(f: ConcreteFunction, input_mask: Sequence[bool],
                      external_mask: Sequence[bool], residuals: Sequence[SymbolicTensor] = (),
                      residual_mask: Sequence[bool] = ()) -> FunctionGradient:
    """The (cached) FunctionGradient of ConcreteFunction `f` for the inputs and externals
    (`graph_externals(f.graph)`) selected by the masks. With `residuals` (tensors of
    `f.graph`, see residuals.py), it takes their forward values as extra inputs, then the
    gradients flowing into those selected by `residual_mask` (a gradient of this gradient
    reaches them: they are outputs of the forward call like the others)."""
    cache = f.__dict__.setdefault("_gradient_functions", {})
    key = (tuple(input_mask), tuple(external_mask), tuple(id(t) for t in residuals),
           tuple(residual_mask))
    found = cache.get(key)
    if found is None:
        found = cache[key] = _build(f, input_mask, external_mask, residuals, residual_mask)
    return found


def _build(f: ConcreteFunction, input_mask: Sequence[bool], external_mask: Sequence[bool],
           residuals: Sequence[SymbolicTensor], residual_mask: Sequence[bool]) -> FunctionGradient:
    forward = f.graph
    externals = graph_externals(forward)
    graph = Graph(f.name + "_grad")
    with graph.as_default():
        xs = [graph.add_placeholder(ph.node.name, ph.dtype, ph._shape) for ph in f._feeds]
        dy_indices = [i for i, t in enumerate(f.flat_outputs)
                      if t.dtype.kind in DIFFERENTIABLE_KINDS]
        dys = [graph.add_placeholder("grad_" + f.flat_outputs[i].node.name,
                                     f.flat_outputs[i].dtype, f.flat_outputs[i]._shape)
               for i in dy_indices]
        kept = [graph.add_placeholder("residual", t.dtype, t._shape) for t in residuals]
        kept_dys = [(t, graph.add_placeholder("grad_residual", t.dtype, t._shape))
                    for t, m in zip(residuals, residual_mask) if m]
        mapping = {id(ph): x for ph, x in zip(f._feeds, xs)}
        mapping.update({id(t): r for t, r in zip(residuals, kept)})
        inliner = Inliner(forward, graph, mapping)
        key = external_key_in(forward)
        slots: list[Slot] = []
        sources = []
        for i, (ph, need) in enumerate(zip(f._feeds, input_mask)):
            if need:
                slots.append(("in", i))
                sources.append(id(ph))
        for external, need in zip(externals, external_mask):
            if need:
                slots.append(("ext", external))
                sources.append(key(external))
        targets = [(id(f.flat_outputs[i]), dy) for i, dy in zip(dy_indices, dys)]
        targets += [(id(t), dy) for t, dy in kept_dys]
        found = backprop(forward.nodes, targets, sources, set(sources), inliner.view, key)
    layout = [slot for slot, g in zip(slots, found) if g is not None]
    outputs = [g for g in found if g is not None]
    if not outputs:
        return FunctionGradient(None, dy_indices, [])
    feeds = xs + dys + kept + [dy for _, dy in kept_dys]
    graph.inputs = list(feeds)
    graph.outputs = list(outputs)
    cf = ConcreteFunction(f.name + "_grad", graph, feeds, outputs,
                          [("t", i) for i in range(len(outputs))], list(outputs), [], [])
    return FunctionGradient(cf, dy_indices, layout)


def replay_function(f: ConcreteFunction) -> ConcreteFunction:
    """ConcreteFunction `f` with its residuals fed (cached on `f`): (f's inputs, f's
    residuals) -> f's outputs. It runs f again giving the forward values, and a gradient
    through it reaches the residuals too (a read's, the variable)."""
    found = f.__dict__.get("_replay_function")
    if found is not None:
        return found
    kept = residuals.graph_residuals(f.graph)
    graph = Graph(f.name + "_replay")
    with graph.as_default():
        xs = [graph.add_placeholder(ph.node.name, ph.dtype, ph._shape) for ph in f._feeds]
        rs = [graph.add_placeholder("residual", t.dtype, t._shape) for t in kept]
        mapping = {id(ph): x for ph, x in zip(f._feeds, xs)}
        mapping.update({id(t): r for t, r in zip(kept, rs)})
        inliner = Inliner(f.graph, graph, mapping)
        outputs = [array_ops.identity(inliner.in_target(t)) for t in f.flat_outputs]
    feeds = xs + rs
    graph.inputs = list(feeds)
    graph.outputs = list(outputs)
    found = ConcreteFunction(f.name + "_replay", graph, feeds, outputs,
                             [("t", i) for i in range(len(outputs))], list(outputs), [], [])
    f.__dict__["_replay_function"] = found
    return found


def call_grad(ctx: GradContext, grads: list[Tensor | None]) -> GradResult:
    """The gradient rule of a Function call (a PartitionedCall node, or an eager call's
    record): a call of the callee's gradient function (see the module docstring)."""
    f = ctx.attrs["f"]
    n = len(f._feeds)
    needed_ids = {id(e) for e in ctx.needed_externals}
    kept = residuals.expose(ctx._record)
    first = len(f.flat_outputs)
    kept_grads = (list(grads[first:]) + [None] * len(kept))[:len(kept)]
    gradient = gradient_function(f, ctx.needed[:n], [id(e) in needed_ids for e in
                                                     graph_externals(f.graph)],
                                 ctx.attrs.get("residuals", ()) if kept else (),
                                 tuple(g is not None for g in kept_grads))
    input_grads: list[Tensor | None] = [None] * len(ctx.needed)
    if gradient.function is None:
        return GradResult(input_grads)
    inputs = ctx.inputs
    dys = []
    for i in gradient.dy_indices:
        g = grads[i]
        dys.append(g if g is not None else array_ops.zeros_like(ctx.output(i)))
    kept_values = [ctx.output(first + k) for k in range(len(kept))]
    outs = call_concrete(ctx.op, gradient.function, list(inputs[:n]) + dys + kept_values +
                         [g for g in kept_grads if g is not None])
    external_grads: list[tuple[External, Tensor | None]] = []
    for (kind, which), g in zip(gradient.layout, outs):
        if kind == "in":
            input_grads[cast(int, which)] = g
        else:
            external_grads.append((cast(External, which), g))
    return GradResult(input_grads, external_grads)


def call_concrete(call_op: OpDef, cf: ConcreteFunction,
                  inputs: Sequence[Operand]) -> Sequence[Tensor]:
    """Calls ConcreteFunction `cf` on flat tensors (and variables): a node of `call_op` (the
    PartitionedCall op being differentiated) inside a trace; eagerly, a direct run, recorded
    on the tapes that are recording."""
    if context.current_graph() is not None:
        return execute(call_op, inputs, {"f": cf}, name="PartitionedCall")
    values = [t._value if isinstance(t, EagerTensor) else t for t in inputs]
    if not context.tapes:
        results = cf._compiled_run()(*values)
        return [make_eager(v, t.dtype) for v, t in zip(results, cf.flat_outputs)]
    kept = residuals.graph_residuals(cf.graph)  # recorded: a gradient may be taken
    results = cf._compiled_run(kept)(*values)
    n = len(cf.flat_outputs)
    outputs = [make_eager(v, t.dtype) for v, t in zip(results[:n], cf.flat_outputs)]
    attrs = {"f": cf, "residuals": kept, "n_outputs": n} if kept else None
    recorded = outputs + [EagerTensor(v, t.dtype) for v, t in zip(results[n:], kept)]
    externals = graph_externals(cf.graph)
    for tape in list(context.tapes):
        tape._record_call(cf, inputs, recorded, externals, attrs)
    return outputs


def record_call(cf: ConcreteFunction, feeds: list[Any], args: Any) -> Any:
    """Runs `cf` eagerly on `feeds` (its call's flat values) and records the call on each
    recording tape that watches one of its inputs or of the variables it reads.
    `args` holds the call's arguments, in which the fed tensors are found again."""
    cf = cf._take_first_call()  # the trace that runs is the one recorded
    kept = residuals.graph_residuals(cf.graph)
    fed = host_feeds(feeds)  # (device arrays, where the call fed them, as numpy values)
    if kept:
        result, kept_values = cf._call_flat_with(fed, kept)
    else:
        result, kept_values = cf._call_flat(fed), None
    inputs = _input_tensors(cf, feeds, args)
    outputs = _output_tensors(cf, result)
    attrs = None
    if kept_values is not None:  # the gradient function is fed them (residuals.py)
        attrs = {"f": cf, "residuals": kept, "n_outputs": len(outputs)}
        outputs = outputs + [EagerTensor(v, t.dtype) for v, t in zip(kept_values, kept)]
    externals = graph_externals(cf.graph)
    for tape in list(context.tapes):
        tape._record_call(cf, inputs, outputs, externals, attrs)
    return result


def _input_tensors(cf: ConcreteFunction, feeds: list[Any], args: Any) -> list[Operand]:
    """The tensors (and variables) that were fed, in feed order: a fed array is matched
    back to the argument tensor holding it; other fed values become fresh tensors."""
    pool: dict[int, list[Any]] = {}
    for leaf in nest.flatten(list(args) if isinstance(args, tuple) else args):
        if type(leaf) is DeviceTensor:  # fed as its device array
            pool.setdefault(id(leaf._array), []).append(leaf)
        elif isinstance(leaf, EagerTensor):
            pool.setdefault(id(leaf._value), []).append(leaf)
    inputs: list[Any] = []
    for value, placeholder in zip(feeds, cf._feeds):
        if isinstance(value, Variable):
            inputs.append(value)
            continue
        candidates = pool.get(id(value))
        if candidates:
            inputs.append(candidates.pop(0))
        else:
            inputs.append(EagerTensor(np.asarray(value, dtype=placeholder.dtype.np_dtype),
                                      placeholder.dtype))
    return inputs


def _output_tensors(cf: ConcreteFunction, result: Any) -> list[EagerTensor]:
    if cf._single_output:
        return [result]
    flat = nest.flatten(result)
    return [flat[position] for position, (kind, _) in enumerate(cf._output_template)
            if kind == "t"]


def replay_call(node: Node, target: Graph, value_of: Callable[[SymbolicTensor], SymbolicTensor]
                ) -> tuple[list[SymbolicTensor], list[SymbolicTensor]]:
    """Re-emits call `node` (into `target`) as a call of its callee's replay function, fed
    the call's inputs and its residual outputs: stands for the call's first outputs."""
    replay = replay_function(node.attrs["f"])
    first = node.attrs["n_outputs"]
    inputs = [value_of(t) for t in list(node.inputs) + list(node.outputs[first:])]
    specs = [(t.dtype, t._shape) for t in replay.flat_outputs]
    outputs = target.add_node(node.op, inputs, {"f": replay}, specs, node.name, node.location)
    return node.outputs[:first], outputs

