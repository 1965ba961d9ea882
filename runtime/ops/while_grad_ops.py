"""The ops of a staged loop's gradient: WhileGrad and its own gradient, WhileGradGrad.

WhileGrad is a While's gradient (built by runtime/gradients/control_flow_grads.py, which says
how): its kernel replays the loop's iterations and runs the body's VJP backwards. For a loop
s[k+1] = body(s[k], c) run N times it computes

    g[N] = dy;   g[k], h[k] = vjp(g[k+1], m[k])   for k = N-1 .. 0
    outputs:     g[0] (state gradients), sum of h[k] (captured tensors and variables)

where m[k] are the intermediates `forward(s[k], c, r[k]) -> (s[k+1], m[k])` computes (r[k]:
the iteration's residuals). Its gradient, for cotangents (G, H) of those outputs, runs the
same two loops and then their reverses, each step the VJP of one graph:

  * through the backward loop, in forward order: (gg[k+1], mm[k]) = VJP of `vjp` at
    (g[k+1], m[k]) for cotangents (gg[k], H), starting from gg[0] = G; gg[N] is dy's;
  * through the forward loop, in reverse: (ss[k], cc[k], rr[k]) = VJP of `forward` at
    (s[k], c, r[k]) for cotangents (ss[k+1], mm[k]); ss[0] is the initial state's and the
    sum of cc[k] the captured tensors'.

A residual is a fixed value in both graphs; its cotangent rr[k] goes where its value came
from: a variable read (the variable's gradient), a random draw or iterator read (nowhere).
Another residual (a py_function result, the outputs of a call or control-flow node in the
body) that receives one makes the gradient raise instead of dropping it.
"""

from typing import Any

import numpy as np

from runtime import executor, lowering_api
from runtime.gradients import residuals
from runtime.gradients.backprop import (
    GradResult,
    add_values,
    backprop,
    carries,
    external_key_in,
    register_externals_rule,
    zeros_like_tensor,
    zeros_like_value,
)
from runtime.gradients.inliner import Inliner
from runtime.graph import Graph
from runtime.ops.registry import (
    KERNEL_CALL,
    NO_GRADIENT,
    NOT_DIFFERENTIABLE,
    execute,
    not_saveable,
    register,
)
from runtime.ops.variable_ops import OPS as VARIABLE_OPS
from runtime.tensor import EagerTensor
from runtime.variables import Variable

# -- WhileGrad ---------------------------------------------------------------------------------


class WhileGradPlan:
    """Everything the WhileGrad kernel needs, built once with the gradient."""

    def __init__(self, n, float_states, n_body, n_cond, dy_slots, cond_run, forward_run,
                 vjp_run, captured_out, externals_out):
        self.replayed = cond_run is None    # iterations replayed from the loop's residuals
        self.n = n                          # loop variables
        self.float_states = float_states    # indices of the float loop variables
        self.n_body = n_body                # body captured inputs
        self.n_cond = n_cond                # cond captured inputs
        self.dy_slots = dy_slots            # positions in float_states given an upstream dy
        self.cond_run = cond_run            # (state, cond captured) -> (keep going,)
        self.forward_run = forward_run      # (state, body captured) -> state + intermediates
        self.vjp_run = vjp_run              # (dstate out, intermediates) -> dstate in + rest
        self.captured_out = captured_out    # [body captured position] with a gradient output
        self.externals_out = externals_out  # [external] with a gradient output
        self.graphs = None                  # WhileGraphs, for a gradient of this gradient

    def __repr__(self):
        return "<WhileGradPlan %d loop variables>" % self.n


class WhileGraphs:
    """The graphs behind a WhileGradPlan's compiled runs (see WhileGradGrad below): `forward`
    (feeds: states, body captured, residuals; outputs: next states, intermediates) and `vjp`
    (feeds: state gradients, intermediates; outputs as WhileGrad's), and the body residuals
    the forward feeds stand for."""

    def __init__(self, body, forward, forward_feeds, forward_outputs, vjp, vjp_feeds,
                 vjp_outputs, body_residuals):
        self.body = body
        self.forward = forward
        self.forward_feeds = forward_feeds
        self.forward_outputs = forward_outputs
        self.vjp = vjp
        self.vjp_feeds = vjp_feeds
        self.vjp_outputs = vjp_outputs
        self.body_residuals = body_residuals


def split_inputs(plan, values):
    """WhileGrad's input values: (initial state, body captured, cond captured, upstream
    gradients, each iteration's residuals or None)."""
    n, n_body, n_cond = plan.n, plan.n_body, plan.n_cond
    kept = None
    if plan.replayed:
        kept = residuals.unbox(values[-1])
        values = values[:-1]
    return (values[:n], values[n:n + n_body], values[n + n_body:n + n_body + n_cond],
            values[n + n_body + n_cond:], kept)


def run_forward(plan, state, body_values, cond_values, kept):
    """Runs the loop's iterations again (replayed from their residuals, or while the
    condition holds); returns [(state before, residuals fed, state after, intermediates)]."""
    n = plan.n
    history = []
    forward_run = plan.forward_run
    if kept is not None:
        for fed in kept:
            out = forward_run(*state, *body_values, *fed)
            history.append((state, fed, out[:n], out[n:]))
            state = out[:n]
        return history
    cond_run = plan.cond_run
    while cond_run(*state, *cond_values)[0]:
        out = forward_run(*state, *body_values)
        history.append((state, (), out[:n], out[n:]))
        state = out[:n]
    return history


def while_grad_kernel(*values, plan, out_specs):
    state, body_values, cond_values, dys, kept = split_inputs(plan, values)
    history = run_forward(plan, state, body_values, cond_values, kept)
    float_states = plan.float_states
    nf = len(float_states)
    grads = [None] * nf
    for slot, dy in zip(plan.dy_slots, dys):
        grads[slot] = dy
    rest_count = len(plan.captured_out) + len(plan.externals_out)
    totals = [None] * rest_count
    vjp = plan.vjp_run
    for _, _, after, intermediates in reversed(history):
        fed = [g if g is not None else zeros_like_value(after[i])
               for g, i in zip(grads, float_states)]
        result = vjp(*fed, *intermediates)
        grads = result[:nf]
        for j in range(rest_count):
            totals[j] = add_values(totals[j], result[nf + j])
    out = [g if g is not None else zeros_like_value(state[i])
           for g, i in zip(grads, float_states)]
    for j, position in enumerate(plan.captured_out):
        g = totals[j]
        out.append(g if g is not None else zeros_like_value(body_values[position]))
    for j, external in enumerate(plan.externals_out):
        g = totals[len(plan.captured_out) + j]
        out.append(g if g is not None else zeros_like_value(external))
    out = [np.asarray(v, dtype=spec[0].np_dtype) for v, spec in zip(out, out_specs)]
    return out[0] if len(out) == 1 else tuple(out)


def _out_specs_infer(specs, attrs):
    return list(attrs["out_specs"])


# A gradient of a staged while loop runs compiled Python kept in its `plan`: no saved form yet.
_PLAN_NOT_SAVEABLE = not_saveable(
    "it is the gradient of a tensor-dependent while loop, whose plan holds compiled Python "
    "(saving it is not supported yet: take the gradient outside the saved function)")


# -- WhileGradGrad --------------------------------------------------------------------------


class SecondOrderPlan:
    """The compiled VJPs of one WhileGrad's `vjp` and `forward` graphs."""

    def __init__(self, vjp_vjp, forward_vjp, n_captured, residual_targets, tensors):
        self.vjp_vjp = vjp_vjp          # (g[k+1], m[k], gg[k], H) -> (gg[k+1], mm[k])
        # (s[k], c, r[k], ss[k+1], mm[k]) -> (ss, cc, rr, eager tensors' cotangents)
        self.forward_vjp = forward_vjp
        self.n_captured = n_captured
        self.tensors = tensors          # the eager tensors the loop body reads
        # per residual: ("variable", Variable), ("captured", position) or None
        self.residual_targets = residual_targets


def _placeholders(graph, tensors, name):
    return [graph.add_placeholder(name, t.dtype, t._shape) for t in tensors]


def _vjp_of(source, feeds, outputs, name, extra_sources=()):
    """Compiles the VJP of graph `source` (fed by `feeds`, giving `outputs`, None allowed):
    (feed values, output cotangents) -> cotangents of the feeds and of `extra_sources`."""
    graph = Graph(name)
    with graph.as_default():
        values = _placeholders(graph, feeds, "value")
        live = [t for t in outputs if t is not None]
        cotangents = _placeholders(graph, live, "cotangent")
        inliner = Inliner(source, graph, {id(f): v for f, v in zip(feeds, values)})
        key = external_key_in(source)
        sources = [id(f) for f in feeds] + [key(e) for e in extra_sources]
        targets = [(id(t), c) for t, c in zip(live, cotangents) if carries(t.dtype)]
        found = backprop(source.nodes, targets, sources, set(sources), inliner.view, key)
    run = executor.compile_graph(graph, values + cotangents, found, name).run
    return run, [t is not None for t in outputs]


def _resource_of(graph, t):
    """The variable a resource placeholder of `graph` captured, or the placeholder itself."""
    for capture in graph.captures:
        if capture.placeholder is t:
            return capture.external
    return t


def _residual_target(graph, t):
    """Where the cotangent of residual `t` (a tensor of the loop body) goes."""
    node = t.node
    op = node.op
    if op is VARIABLE_OPS["ReadVariableOp"]:
        resource = _resource_of(graph, node.inputs[0])
        if isinstance(resource, Variable):
            return ("variable", resource)
        return ("resource", resource)
    if "unrepeatable" in op.traits and op.grad_decision is NOT_DIFFERENTIABLE:
        return None  # a random draw, an iterator read, an assignment: no gradient flows in
    first = node.attrs.get("n_outputs") if isinstance(node.attrs, dict) else None
    if first is None or t.index < first:
        return ("unsupported", node)
    # a residual of the callee or of a branch, handed out by the node: where that one's goes
    if "calls_function" in op.traits:
        inner_graph, inner = node.attrs["f"].graph, node.attrs["residuals"][t.index - first]
    elif "conditional" in op.traits:
        then_r, else_r = node.attrs["residuals"]
        k = t.index - first
        inner_graph, inner = ((node.attrs["then"].graph, then_r[k]) if k < len(then_r) else
                              (node.attrs["else"].graph, else_r[k - len(then_r)]))
    else:
        return ("unsupported", node)
    target = _residual_target(inner_graph, inner)
    return target if target is None or target[0] != "resource" else ("unsupported", node)


def _second_order_plan(plan):
    found = getattr(plan, "second_order", None)
    if found is not None:
        return found
    graphs = plan.graphs
    vjp_vjp = _vjp_of(graphs.vjp, graphs.vjp_feeds, graphs.vjp_outputs,
                      "while_body_grad_grad")
    tensors = _eager_externals(graphs)
    forward_vjp = _vjp_of(graphs.forward, graphs.forward_feeds, graphs.forward_outputs,
                          "while_body_forward_grad", tensors)
    body = graphs.body
    targets = []
    captured_phs = [ph for ph, _ in body.captured]
    for t in graphs.body_residuals:
        target = _residual_target(body.graph, t)
        if target is not None and target[0] == "resource":
            position = next((j for j, ph in enumerate(captured_phs) if ph is target[1]), None)
            target = ("captured", position) if position is not None else ("unsupported",
                                                                            t.node)
        targets.append(target)
    found = plan.second_order = SecondOrderPlan(vjp_vjp, forward_vjp, plan.n_body, targets,
                                                tensors)
    return found


def _eager_externals(graphs):
    return [c.external for c in graphs.forward.captures
            if isinstance(c.external, EagerTensor) and carries(c.external.dtype)]


def loop_externals(plan):
    """What a WhileGrad's loop reads without taking it as an input: the variables it read
    (their reads are residuals) and the eager tensors it captured. Its externals."""
    graphs = plan.graphs
    if graphs is None:
        return ()
    out: list[Any] = []
    for t in graphs.body_residuals:
        target = _residual_target(graphs.body.graph, t)
        if target is not None and target[0] == "variable" and \
                all(v is not target[1] for v in out):
            out.append(target[1])
    return tuple(out) + tuple(_eager_externals(graphs))


def _zero_filled(values, like):
    return [v if v is not None else zeros_like_value(w) for v, w in zip(values, like)]


def _unsupported_error(node):
    where = node.location
    return NotImplementedError(
        "a second-order gradient through this loop needs the gradient through %s (op %s%s), "
        "whose forward value the loop kept: that is not supported. Take the inner gradient "
        "with the loop's inputs only, or compute that value outside the loop."
        % (node.name, node.op.name,
           ", made at %s:%d" % (where.filename, where.lineno) if where is not None else ""))


def while_grad_grad_kernel(*values, plan, n_inputs, externals, out_specs):
    second = _second_order_plan(plan)
    inputs, cots = values[:n_inputs], values[n_inputs:]
    state, body_values, cond_values, dys, kept = split_inputs(plan, inputs)
    history = run_forward(plan, state, body_values, cond_values, kept)
    float_states = plan.float_states
    nf = len(float_states)
    # the backward loop again, keeping each step's incoming state gradient g[k+1]
    g: list[Any] = [None] * nf
    for slot, dy in zip(plan.dy_slots, dys):
        g[slot] = dy
    incoming: list[Any] = [None] * len(history)
    for k in range(len(history) - 1, -1, -1):
        after, intermediates = history[k][2], history[k][3]
        g = _zero_filled(g, [after[i] for i in float_states])
        incoming[k] = g
        g = list(plan.vjp_run(*g, *intermediates)[:nf])
    # its reverse, in forward order
    run, vjp_live = second.vjp_vjp
    gg, hh = list(cots[:nf]), list(cots[nf:])
    mm: list[Any] = [None] * len(history)
    for k, (_, _, _, intermediates) in enumerate(history):
        outs = [c for c, live in zip(gg + hh, vjp_live) if live]
        result = run(*incoming[k], *intermediates, *outs)
        gg = list(result[:nf])
        mm[k] = list(result[nf:])
    dys_bar = [gg[slot] for slot in plan.dy_slots]
    # the reverse of the forward loop
    run, forward_live = second.forward_vjp
    ss = [None] * plan.n
    captured_bar = [None] * plan.n_body
    external_bar = {id(v): None for v in externals}
    n_res = len(second.residual_targets)
    n_body = plan.n_body
    for k in range(len(history) - 1, -1, -1):
        before, fed, after, intermediates = history[k]
        cot_state = _zero_filled(ss, after)
        cot_m = _zero_filled(mm[k], intermediates)
        outs = [c for c, live in zip(cot_state + cot_m, forward_live) if live]
        result = run(*before, *body_values, *fed, *outs)
        ss = list(result[:plan.n])
        for j in range(n_body):
            captured_bar[j] = add_values(captured_bar[j], result[plan.n + j])
        for t, tt in zip(second.tensors, result[plan.n + n_body + n_res:]):
            if id(t) in external_bar:
                external_bar[id(t)] = add_values(external_bar[id(t)], tt)
        for target, rr in zip(second.residual_targets, result[plan.n + n_body:]):
            if rr is None or target is None or not np.any(rr):
                continue
            kind, what = target
            if kind == "variable" and id(what) in external_bar:
                external_bar[id(what)] = add_values(external_bar[id(what)], rr)
            elif kind == "captured" and what is not None:
                captured_bar[what] = add_values(captured_bar[what], rr)
            elif kind == "unsupported":
                raise _unsupported_error(what)
    out = [ss[i] if ss[i] is not None else zeros_like_value(state[i]) for i in float_states]
    out += [c if c is not None else zeros_like_value(v)
            for c, v in zip(captured_bar, body_values)]
    out += [d if d is not None else zeros_like_value(v) for d, v in zip(dys_bar, dys)]
    out += [external_bar[id(v)] if external_bar[id(v)] is not None else zeros_like_value(v)
            for v in externals]
    out = [np.asarray(v, dtype=spec[0].np_dtype) for v, spec in zip(out, out_specs)]
    return out[0] if len(out) == 1 else tuple(out)


def while_grad_grad(ctx, grads):
    plan = ctx.attrs["plan"]
    if plan.graphs is None:
        raise LookupError("No gradient defined for this WhileGrad (built without its graphs)")
    inputs = ctx.inputs
    n, n_body, nf = plan.n, plan.n_body, len(plan.float_states)
    cots = [g if g is not None else zeros_like_tensor(ctx.output(i))
            for i, g in enumerate(grads)]
    externals = list(ctx.needed_externals)
    dy_start = n + n_body + plan.n_cond
    specs = [(inputs[i].dtype, inputs[i]._shape) for i in plan.float_states]
    specs += [(inputs[n + j].dtype, inputs[n + j]._shape) for j in range(n_body)]
    specs += [(inputs[dy_start + k].dtype, inputs[dy_start + k]._shape)
              for k in range(len(plan.dy_slots))]
    specs += [(v.dtype, v._static_shape if isinstance(v, Variable) else v._shape_tuple())
              for v in externals]
    outs = execute(WHILE_GRAD_GRAD_OP, list(inputs) + cots,
                   {"plan": plan, "n_inputs": len(inputs), "externals": tuple(externals),
                    "out_specs": tuple(specs)}, name="while_grad_grad")
    input_grads: list[Any] = [None] * len(inputs)
    for k, i in enumerate(plan.float_states):
        input_grads[i] = outs[k]
    for j in range(n_body):
        if inputs[n + j].dtype.kind in ("float", "resource"):
            input_grads[n + j] = outs[nf + j]
    for k in range(len(plan.dy_slots)):
        input_grads[dy_start + k] = outs[nf + n_body + k]
    start = nf + n_body + len(plan.dy_slots)
    extras = [(v, outs[start + i]) for i, v in enumerate(externals)]
    return GradResult(input_grads, extras)


WHILE_GRAD_OP = register("WhileGrad", while_grad_kernel, _out_specs_infer, grad=while_grad_grad,
                         emit=KERNEL_CALL, traits=("stateful", "view"),
                         saving=_PLAN_NOT_SAVEABLE, lowerings=lowering_api.GRADIENTS_ON_HOST)
WHILE_GRAD_GRAD_OP = register(
    "WhileGradGrad", while_grad_grad_kernel, _out_specs_infer, grad=NO_GRADIENT,
    emit=KERNEL_CALL, traits=("stateful", "view"), saving=_PLAN_NOT_SAVEABLE,
    lowerings=lowering_api.GRADIENTS_ON_HOST)
# A WhileGrad node reads what its loop read (the variables and eager tensors of its graphs).
register_externals_rule(WHILE_GRAD_OP, lambda attrs: loop_externals(attrs["plan"]))
