"""Gradients of the staged control-flow ops (runtime/ops/control_flow_ops.py): If and While.

If: the gradient is another If on the same predicate. Each of its branches re-emits the
forward branch (only the nodes the gradient uses) and backpropagates through it, returning
the gradients of the If's inputs (the tensors the branch captured) and of the variables the
branch reads. Both branches return the same list; a branch that does not touch an input
returns zeros for it.

While: the gradient is one `WhileGrad` node. When the gradient is built, three graphs are
made once from the loop's sub-graphs and compiled by the executor:
  * the condition, pruned to what computes it (so a print in it does not run again);
  * one forward iteration of the body, re-emitting only what computes the next state and
    what the gradient reads (prints and assignments in the body do not run again); it
    returns the next state and that iteration's *intermediates*;
  * the body's VJP, built in a graph nested in the forward iteration: (gradient of the
    state out, intermediates) -> (gradient of the state in, gradients of the captured
    tensors and of the variables the body reads). The forward values it uses are exactly
    what it captures from the forward iteration, which is how the intermediates are chosen.
At run time the kernel runs the loop's iterations again from the same initial values,
keeping each iteration's state and intermediates, then runs the VJP once per iteration in
reverse, summing the gradients of the captured tensors and variables over iterations.

Both recompute forward values from the op's inputs, except the *residuals*: values a second
run would not reproduce (random draws, variable reads, iterator reads, py_function results;
see residuals.py). The forward If returns its branch's, and the forward While keeps each
iteration's in a list; the gradient is fed them. A loop with residuals is replayed from that
list, which also gives its trip count (the condition is not run again).

The WhileGrad op, its kernel and its own gradient (second order) are declared in
runtime/ops/while_grad_ops.py.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from runtime import context, dtypes, executor, subgraphs
from runtime import shape as shape_lib
from runtime.dtypes import DType
from runtime.gradients import residuals
from runtime.gradients.backprop import (
    External,
    GradContext,
    GradResult,
    backprop,
    can_carry,
    carries,
    external_key_in,
    graph_externals,
    zeros_like_tensor,
)
from runtime.gradients.inliner import Inliner
from runtime.graph import Graph, Node, SubGraph
from runtime.ops import array_ops
from runtime.ops.gradient_ops import fully_known
from runtime.ops.registry import execute
from runtime.ops.while_grad_ops import WHILE_GRAD_OP, WhileGradPlan, WhileGraphs
from runtime.shape import Shape
from runtime.tensor import SymbolicTensor, Tensor
from runtime.variables import OPS as VARIABLE_OPS
from runtime.variables import Variable

# A tensor's (dtype, static shape): how control_flow_ops is told an If's outputs.
OutSpec = tuple[DType, Shape]
# control_flow_ops.build_if(pred, then, else, out specs): adds an If, returns its outputs.
BuildIf = Callable[[Tensor, SubGraph, SubGraph, list[OutSpec]], Sequence[SymbolicTensor]]
# A gradient branch's result slot: ("in", input index) or ("ext", index among externals).
Slot = tuple[str, int]
# (a branch's residual, the If output holding its value, that output's index)
FedResidual = tuple[SymbolicTensor, SymbolicTensor, int]

# -- If ----------------------------------------------------------------------------------------


def if_grad(ctx: GradContext, grads: list[Tensor | None], build_if: BuildIf) -> GradResult:
    """If's gradient rule: an If on the same predicate (added with `build_if`, see
    control_flow_ops) whose branches backpropagate through the forward ones."""
    inputs = cast(Sequence[SymbolicTensor], ctx.inputs)  # an If node's: graph tensors
    pred = inputs[0]
    wanted = [i for i in range(1, len(inputs)) if ctx.needed[i]]
    externals = list(ctx.needed_externals)
    kept = _branch_residuals(ctx)
    branches: dict[str, tuple[SubGraph, dict[Slot, SymbolicTensor]]] = {}
    for name in ("then", "else"):
        sub = ctx.attrs[name]
        branch, result = subgraphs.trace_subgraph(
            "cond_grad_" + name,
            lambda sub=sub, fed=kept[name]: _branch_vjp(sub, inputs, grads, wanted, externals,
                                                       fed), [])
        branches[name] = (branch, result)
    slots = [slot for slot in [("in", i) for i in wanted] + [("ext", k) for k in
                                                             range(len(externals))]
             if any(result.get(slot) is not None for _, result in branches.values())]
    none = GradResult([None] * len(inputs))
    if not slots:
        return none
    specs: list[OutSpec] = []
    for slot in slots:
        found = [result[slot] for _, result in branches.values() if result.get(slot) is not None]
        shape = found[0]._shape
        for other in found[1:]:
            shape = shape_lib.relax(shape, other._shape)
        specs.append((found[0].dtype, shape))
    for branch, result in branches.values():
        outs = []
        with branch.graph.as_default():
            for slot, (dtype, shape) in zip(slots, specs):
                t: Tensor | None = result.get(slot)
                if t is None:
                    t = _zeros(slot, dtype, shape, inputs, externals)
                outs.append(branch.graph.capture(t))
        branch.outputs = outs
    outputs = build_if(pred, branches["then"][0], branches["else"][0], specs)
    input_grads: list[Tensor | None] = [None] * len(inputs)
    external_grads: list[tuple[External, Tensor | None]] = []
    for slot, out in zip(slots, outputs):
        if slot[0] == "in":
            input_grads[slot[1]] = out
        else:
            external_grads.append((externals[slot[1]], out))
    return GradResult(input_grads, external_grads)


def _branch_residuals(ctx: GradContext) -> dict[str, list[FedResidual]]:
    """{branch name: [(residual of the branch, the If's output holding its value, its
    index among the If's outputs)]}."""
    if not residuals.expose(ctx._record):
        return {"then": [], "else": []}
    then_r, else_r = ctx.attrs["residuals"]
    first = ctx.attrs["n_outputs"]

    def output(i: int) -> SymbolicTensor:
        return cast(SymbolicTensor, ctx.output(i))  # an If node's: graph tensors
    return {"then": [(t, output(first + k), first + k) for k, t in enumerate(then_r)],
            "else": [(t, output(first + len(then_r) + k), first + len(then_r) + k)
                     for k, t in enumerate(else_r)]}


def _branch_vjp(sub: SubGraph, inputs: Sequence[SymbolicTensor], grads: list[Tensor | None],
                wanted: list[int], externals: list[External],
                fed: list[FedResidual]) -> dict[Slot, SymbolicTensor]:
    """Inside a gradient branch: backpropagates through forward branch `sub`, re-emitted into
    the current graph (`fed`: its residuals, see _branch_residuals; a gradient flowing into
    one of those If outputs is a target too). Returns {slot: gradient tensor} for the inputs
    and externals reached."""
    graph = context.current_graph()
    mapping = {id(ph): inputs[i] for ph, i in sub.captured}
    mapping.update({id(t): value for t, value, _ in fed})
    inliner = Inliner(sub.graph, graph, mapping)
    key = external_key_in(sub.graph)
    by_index = {i: ph for ph, i in sub.captured}
    slots: list[Slot] = []
    sources = []
    for i in wanted:
        ph = by_index.get(i)
        if ph is not None:
            slots.append(("in", i))
            sources.append(id(ph))
    for k, external in enumerate(externals):
        slots.append(("ext", k))
        sources.append(key(external))
    targets = [(id(out), graph.capture(g)) for out, g in zip(sub.outputs, grads)
               if g is not None and carries(out.dtype)]
    targets += [(id(t), graph.capture(grads[k])) for t, _, k in fed
                if k < len(grads) and grads[k] is not None and carries(t.dtype)]
    if not sources or not targets:
        return {}
    found = backprop(sub.graph.nodes, targets, sources, set(sources), inliner.view, key)
    return {slot: g for slot, g in zip(slots, found) if g is not None}


def replay_if(node: Node, value_of: Callable[[SymbolicTensor], SymbolicTensor],
              build_if: BuildIf) -> Sequence[SymbolicTensor]:
    """Adds to the current graph (with `build_if`) an If running `node`'s branches again with
    their residuals fed (`node`'s residual outputs); returns its outputs, standing for
    `node`'s first ones. `value_of(t)`: the current graph's tensor for a tensor of `node`'s
    graph."""
    then_r, else_r = node.attrs["residuals"]
    first = node.attrs["n_outputs"]
    inputs = [value_of(t) for t in node.inputs]
    kept = [value_of(t) for t in node.outputs[first:]]
    fed = {"then": list(zip(then_r, kept[:len(then_r)])),
           "else": list(zip(else_r, kept[len(then_r):]))}
    branches: dict[str, SubGraph] = {}
    for name in ("then", "else"):
        sub = node.attrs[name]
        branch, outs = subgraphs.trace_subgraph(
            "cond_replay_" + name, lambda sub=sub, fed=fed[name]: _replay_branch(sub, inputs, fed),
            [])
        with branch.graph.as_default():
            branch.outputs = [branch.graph.capture(t) for t in outs]
        branches[name] = branch
    specs = [(t.dtype, t._shape) for t in node.outputs[:first]]
    return build_if(inputs[0], branches["then"], branches["else"], specs)


def _replay_branch(sub: SubGraph, inputs: list[SymbolicTensor],
                   fed: list[tuple[SymbolicTensor, SymbolicTensor]]) -> list[SymbolicTensor]:
    graph = context.current_graph()
    mapping = {id(ph): inputs[i] for ph, i in sub.captured}
    mapping.update({id(t): value for t, value in fed})
    inliner = Inliner(sub.graph, graph, mapping)
    return [inliner.in_target(t) for t in sub.outputs]


def _zeros(slot: Slot, dtype: DType, shape: Shape, inputs: Sequence[SymbolicTensor],
           externals: list[External]) -> Tensor:
    """Zeros for a gradient the current branch does not produce."""
    if dtype.kind == "float" and shape is not None and fully_known(shape):
        return array_ops.zeros(list(shape), dtype)
    if slot[0] == "ext":
        source = externals[slot[1]]
        value = source.read_value() if isinstance(source, Variable) else source
        return array_ops.zeros_like(value)
    source = inputs[slot[1]]
    if source.dtype.kind == "variant":
        return zeros_like_tensor(source)
    if source.dtype is dtypes.resource:
        source = execute(VARIABLE_OPS["ReadVariableOp"], [source],
                         {"dtype": dtype, "shape": shape})[0]
    return array_ops.zeros_like(source)


# -- While -------------------------------------------------------------------------------------


def _spec(t: SymbolicTensor) -> OutSpec:
    return t.dtype, t._shape


def _compiled_cond(cond: SubGraph) -> Callable[..., tuple[Any, ...]]:
    """The loop condition compiled with only the nodes computing it (no prints)."""
    feeds = list(cond.placeholders) + [ph for ph, _ in cond.captured]
    graph = Graph("while_cond_forward")
    with graph.as_default():
        placeholders = [graph.add_placeholder("in", *_spec(ph)) for ph in feeds]
        inliner = Inliner(cond.graph, graph, {id(ph): p for ph, p in zip(feeds, placeholders)})
        outputs = [inliner.value(t) for t in cond.outputs]
    return executor.compile_graph(graph, placeholders, outputs, "while_cond_forward").run


def while_grad(ctx: GradContext, grads: list[Tensor | None]) -> GradResult:
    """While's gradient rule: one WhileGrad node, which replays the loop and runs its
    body's VJP once per iteration in reverse (see the module docstring)."""
    cond, body = ctx.attrs["cond"], ctx.attrs["body"]
    inputs = cast(Sequence[SymbolicTensor], ctx.inputs)  # a While node's: graph tensors
    n = len(body.placeholders)
    float_states = [i for i in range(n) if carries(body.placeholders[i].dtype)]
    body_captured = [ph for ph, _ in body.captured]
    body_indices = [i for _, i in body.captured]
    cond_indices = [i for _, i in cond.captured]
    wanted = [j for j, (ph, i) in enumerate(body.captured) if ctx.needed[i] and can_carry(ph)]
    body_externals = {id(e) for e in graph_externals(body.graph)}
    externals = [e for e in ctx.needed_externals if id(e) in body_externals]
    # With residuals (values a second run would not reproduce), the forward loop kept each
    # iteration's: the iterations are replayed from them.
    replayed = bool(residuals.expose(ctx._record))
    body_residuals = ctx.attrs["residuals"] if replayed else ()

    # `forward`: one iteration of the body, re-emitted on demand (only what computes the
    # state and what the gradient reads: prints and assignments are not run again).
    # `vjp`, nested in it: the body's VJP; what it captures from `forward` are the
    # intermediates each iteration must keep for its gradient.
    forward = Graph("while_body_forward")
    with forward.as_default():
        states = [forward.add_placeholder("state", *_spec(ph)) for ph in body.placeholders]
        captured = [forward.add_placeholder("captured", *_spec(ph)) for ph in body_captured]
        fed = [forward.add_placeholder("residual", *_spec(t)) for t in body_residuals]
    mapping = {id(ph): t for ph, t in zip(body.placeholders, states)}
    mapping.update({id(ph): t for ph, t in zip(body_captured, captured)})
    mapping.update({id(t): p for t, p in zip(body_residuals, fed)})
    vjp = Graph("while_body_grad", outer=forward)
    inliner = Inliner(body.graph, forward, mapping, consumer=vjp)
    with vjp.as_default():
        dstates = [vjp.add_placeholder("grad_state", *_spec(body.placeholders[i]))
                   for i in float_states]
        key = external_key_in(body.graph)
        sources = ([id(body.placeholders[i]) for i in float_states] +
                   [id(body_captured[j]) for j in wanted] + [key(e) for e in externals])
        targets = [(id(body.outputs[i]), g) for i, g in zip(float_states, dstates)]
        found = backprop(body.graph.nodes, targets, sources, set(sources), inliner.view, key)
    nf = len(float_states)
    kept_captured = [(j, g) for j, g in zip(wanted, found[nf:nf + len(wanted)])
                     if g is not None]
    kept_externals = [(e, g) for e, g in zip(externals, found[nf + len(wanted):])
                      if g is not None]
    vjp_outputs = found[:nf] + [g for _, g in kept_captured] + [g for _, g in kept_externals]
    kept = [c for c in vjp.captures if isinstance(c.external, SymbolicTensor)]
    next_states = [inliner.in_target(t) for t in body.outputs]
    forward_run = executor.compile_graph(
        forward, states + captured + fed, next_states + [c.external for c in kept],
        "while_body_forward").run
    vjp_run = executor.compile_graph(vjp, dstates + [c.placeholder for c in kept],
                                     vjp_outputs, "while_body_grad").run

    dy_slots = [k for k, i in enumerate(float_states) if grads[i] is not None]
    out_specs = [(inputs[i].dtype, inputs[i]._shape) for i in float_states]
    out_specs += [_spec(g) for _, g in kept_captured]
    out_specs += [_spec(g) for _, g in kept_externals]
    plan = WhileGradPlan(n, float_states, len(body_captured), len(cond_indices), dy_slots,
                         None if replayed else _compiled_cond(cond), forward_run, vjp_run,
                         [j for j, _ in kept_captured], [e for e, _ in kept_externals])
    plan.graphs = WhileGraphs(body, forward, states + captured + fed,
                              next_states + [c.external for c in kept], vjp,
                              dstates + [c.placeholder for c in kept], vjp_outputs,
                              body_residuals)
    node_inputs = (list(inputs[:n]) + [inputs[i] for i in body_indices] +
                   [inputs[i] for i in cond_indices] +
                   [grads[i] for i in float_states if grads[i] is not None])
    if replayed:
        node_inputs.append(ctx.output(len(ctx.attrs["out_specs"])))
    outs = execute(WHILE_GRAD_OP, node_inputs, {"plan": plan, "out_specs": tuple(out_specs)},
                   name="while_grad")
    input_grads: list[Any] = [None] * len(inputs)
    for k, i in enumerate(float_states):
        input_grads[i] = outs[k]
    position = nf
    for j, _ in kept_captured:
        input_grads[body_indices[j]] = outs[position]
        position += 1
    extras = []
    for e, _ in kept_externals:
        extras.append((e, outs[position]))
        position += 1
    return GradResult(input_grads, extras)
