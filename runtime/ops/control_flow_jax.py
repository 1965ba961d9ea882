"""The JAX rules of staged control flow, declared by If and While (control_flow_ops): the
taken branch of a constant predicate, both branches and a select for small loop-free ones,
else `lax.cond`; a While as `lax.scan` when it is a counted loop writing TensorArrays, else
as `lax.while_loop`. Their state (variables, the error flag) is threaded through the carry.

A rule is `rule(lw, node, ins) -> [output values]` (runtime/backends/jax_lowering.py); it
computes with `lw.jax`, `lw.jnp` and `lw.lax` and imports no jax, so that declaring the ops
imports none.

Counted loops: a While whose test is `i < n` (n known at compile time) and whose body adds 1
to the counter `i` runs a number of times known at compile time; the TensorArrays it writes
at index `i` (and uses for nothing else) become the scan's stacked outputs instead of buffers
updated in the carry with `.at[i].set`, which XLA runs much slower (a dynamic update of the
whole buffer per step). `lower_counted(lw, node, ins)` gives the While's output values, or
None when the loop is not of that shape. Inside the body the counter is known to lie in
start..n-1 (`lw.bound`), so indexing with it compiles no range check, and an array the scan
fills whole is known to be written everywhere (reading it back compiles no check either).
The error flag is carried as in the while loop; a scan does not stop early when it is set, so
loops whose body holds another loop or a call (which might not end on the values of a failed
step) are left to the while loop.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime import executor
from runtime.graph import SubGraph
from runtime.lowering_api import (
    HostHandle,
    PendingTensorArray,
    TensorArrayBuffer,
    Unsupported,
    VariableSlot,
    is_concrete,
)

_SELECT_LIMIT = 24  # branches up to this many nodes, without loops, run both and select


# -- If -------------------------------------------------------------------------------------------


def lower_if(lw: Any, node: Any, ins: list[Any]) -> list[Any]:
    """If: the taken branch when the predicate is a constant; both branches and a select
    when they are small and loop-free (no branch can hang, and the error flag and state are
    selected too); else `lax.cond`."""
    if "residuals" in node.attrs:
        raise Unsupported("keeps residuals for a gradient")
    then_sub, else_sub = node.attrs["then"], node.attrs["else"]
    out_specs = node.attrs["out_specs"]
    pred = ins[0]
    if is_concrete(pred):
        sub = then_sub if bool(np.asarray(pred)) else else_sub
        return _cast_outputs(lw, node, _run_branch(lw, sub, ins), out_specs)

    def branch(sub: Any) -> Any:
        def run(operand: Any) -> Any:
            state, failed = operand
            with lw.scope(state, failed):
                values = _cast_outputs(lw, node, _run_branch(lw, sub, ins), out_specs)
                values = [lw.carried(v) for v in values]
                return values, lw.state, lw.failed
        return run

    then_fn, else_fn = branch(then_sub), branch(else_sub)
    operand = (lw.state, lw.failed)
    jax, jnp, lax = lw.jax, lw.jnp, lw.lax
    then_shape = jax.eval_shape(then_fn, operand)
    else_shape = jax.eval_shape(else_fn, operand)
    checked = then_shape[2] is not None or else_shape[2] is not None
    then_fn = _materializing(lw, then_fn, else_shape, checked)
    else_fn = _materializing(lw, else_fn, then_shape, checked)
    pred = jnp.asarray(pred)
    if _small_and_loop_free(lw, then_sub.graph) and _small_and_loop_free(lw, else_sub.graph):
        a, b = then_fn(operand), else_fn(operand)

        def select(x: Any, y: Any) -> Any:
            if jnp.shape(x) != jnp.shape(y):  # where would broadcast one to the other
                raise Unsupported("has branches giving values of different shapes")
            return jnp.where(pred, x, y)
        try:
            chosen = jax.tree_util.tree_map(select, a, b)
        except ValueError as e:  # the branches give values of different structures
            raise Unsupported("has branches of different structures: %s" % e)
    else:
        try:
            chosen = lax.cond(pred, then_fn, else_fn, operand)
        except TypeError as e:
            raise Unsupported("has branches of different types: %s" % e)
    values, lw.state, lw.failed = chosen
    return values


def _run_branch(lw: Any, sub: Any, ins: list[Any]) -> list[Any]:
    fed = {id(ph): ins[i] for ph, i in sub.captured}
    return lw.lower_graph(sub.graph, fed, sub.outputs)


def _cast_outputs(lw: Any, node: Any, values: list[Any], specs: Any) -> list[Any]:
    out = []
    for value, (dtype, shape) in zip(values, specs):
        if isinstance(value, (TensorArrayBuffer, PendingTensorArray, VariableSlot, HostHandle)):
            out.append(value)
        elif value is None:
            raise Unsupported("has a branch without a value")
        else:
            out.append(lw.jnp.asarray(value, dtype.np_dtype))
    return out


def _small_and_loop_free(lw: Any, graph: Any) -> bool:
    return _loop_free_size(lw, graph) <= _SELECT_LIMIT


def _loop_free_size(lw: Any, graph: Any) -> float:
    """The number of nodes in `graph` and its branches; infinite with a loop, a call or a
    host call (whose effects must not happen in the branch not taken)."""
    count = 0.0
    for n in graph.nodes:
        if "body" in n.attrs or "f" in n.attrs or lw.is_host_call(n.op):
            return float("inf")
        count += 1 + sum(_loop_free_size(lw, a.graph) for a in n.attrs.values()
                         if isinstance(a, SubGraph))
    return count


def _materializing(lw: Any, fn: Any, other_shape: Any, checked: bool) -> Any:
    """`fn` whose pending TensorArrays become buffers where the other branch has a buffer at
    the same place, and whose error flag is an array when a branch has one (`checked`), so
    that both branches give one structure."""
    def run(operand: Any) -> Any:
        values, state, failed = fn(operand)
        if checked and failed is None:
            failed = lw.jnp.zeros((), bool)
        fixed = [_materialize(lw, v, w) for v, w in zip(values, other_shape[0])]
        return fixed, state, failed
    return run


def _materialize(lw: Any, value: Any, shape: Any) -> Any:
    if isinstance(value, PendingTensorArray) and isinstance(shape, TensorArrayBuffer):
        jnp = lw.jnp
        return TensorArrayBuffer(jnp.zeros(shape.data.shape, shape.data.dtype),
                                 jnp.zeros(value.size, bool), value.size)
    return value


# -- counted loops as lax.scan ------------------------------------------------------------------


def _has_loop_or_call(graph: Any) -> bool:
    for n in graph.nodes:
        if "body" in n.attrs or "f" in n.attrs:
            return True
        if any(_has_loop_or_call(a.graph) for a in n.attrs.values()
               if isinstance(a, SubGraph)):
            return True
    return False


def _static_int(t: Any, simplified: executor.Simplified, sub: SubGraph,
                ins: list[Any]) -> int | None:
    """The value of scalar integer tensor `t` of `sub`'s graph when known at compile time."""
    t = simplified.resolve(t)
    value = simplified.constants.get(id(t))
    if value is None:
        fed = {id(ph): ins[i] for ph, i in sub.captured}
        value = fed.get(id(t))
    if value is None or not is_concrete(value):
        return None
    value = np.asarray(value)
    if value.shape != () or value.dtype.kind not in "iu":
        return None
    return int(value)


def _counter(node: Any, ins: list[Any]) -> tuple[int, int] | None:
    """(the counter's loop position, the trip count) when the While counts i = start..n-1."""
    cond, body = node.attrs["cond"], node.attrs["body"]
    cond_s = executor.simplify(cond.graph, cond.outputs)
    test = cond_s.resolve(cond.outputs[0])
    if test.node.op.name != "Less":
        return None
    counter, limit = test.node.inputs
    counter = cond_s.resolve(counter)
    k = next((i for i, p in enumerate(cond.placeholders) if p is counter), None)
    if k is None:
        return None
    n = _static_int(limit, cond_s, cond, ins)
    start = ins[k]
    if n is None or not is_concrete(start) or np.asarray(start).dtype.kind not in "iu":
        return None
    body_s = executor.simplify(body.graph, body.outputs)
    step = body_s.resolve(body.outputs[k])
    if step.node.op.name != "AddV2":
        return None
    a, b = (body_s.resolve(x) for x in step.node.inputs)
    one = b if a is body.placeholders[k] else a if b is body.placeholders[k] else None
    if one is None or _static_int(one, body_s, body, ins) != 1:
        return None
    return k, max(0, n - int(start))


def _written_arrays(node: Any, k: int, ins: list[Any], count: int) -> dict[int, Any]:
    """Loop position -> the value written, for each TensorArray the body writes at the
    counter and uses for nothing else."""
    body = node.attrs["body"]
    found = {}
    for j, placeholder in enumerate(body.placeholders[:count]):
        if not isinstance(ins[j], (TensorArrayBuffer, PendingTensorArray)):
            continue
        write = body.outputs[j].node
        if write.op.name != "TensorArrayWrite" or write.inputs[0] is not placeholder:
            continue
        if write.inputs[1] is not body.placeholders[k]:
            continue
        users = [n for n in body.graph.nodes if any(t is placeholder for t in n.inputs)]
        if users != [write]:
            continue
        found[j] = write.inputs[2]
    return found


def lower_counted(lw: Any, node: Any, ins: list[Any]) -> list[Any] | None:
    """The While as `lax.scan` (see the module docstring), or None."""
    body = node.attrs["body"]
    if _has_loop_or_call(body.graph) or _has_loop_or_call(node.attrs["cond"].graph):
        return None
    found = _counter(node, ins)
    if found is None:
        return None
    k, trips = found
    count = len(body.placeholders)
    start = int(np.asarray(ins[k]))
    arrays = {j: v for j, v in _written_arrays(node, k, ins, count).items()
              if start >= 0 and start + trips <= ins[j].size}
    if not arrays or trips == 0:
        return None
    jnp, lax = lw.jnp, lw.lax
    specs = node.attrs["out_specs"]
    carried = [j for j in range(count) if j not in arrays]
    written = list(arrays.values())

    def typed(j: Any, value: Any) -> Any:
        return lw.carried(jnp.asarray(value, specs[j][0].np_dtype))

    def step(carry: Any, _: Any) -> Any:
        values, state, failed = carry
        counter = values[carried.index(k)]
        lw.bound(counter, start, start + trips - 1)  # (indexing with it needs no check)
        with lw.scope(state, failed):
            fed = {id(body.placeholders[j]): v for j, v in zip(carried, values)}
            fed.update({id(ph): ins[i] for ph, i in body.captured})
            try:
                outs = lw.lower_graph(body.graph, fed,
                                      [body.outputs[j] for j in carried] + written)
            finally:
                lw.unbound(counter)
            new = [typed(j, v) for j, v in zip(carried, outs)]
            elements = [jnp.asarray(v, ins[j].np_dtype if isinstance(ins[j], PendingTensorArray)
                                    else ins[j].data.dtype)
                        for j, v in zip(arrays, outs[len(carried):])]
            return (new, lw.state, lw.failed), elements

    values = [typed(j, ins[j]) for j in carried]
    carry = (values, lw.state, lw.failed)
    if carry[2] is None and lw.jax.eval_shape(step, carry, None)[0][2] is not None:
        carry = (values, lw.state, jnp.zeros((), bool))
    try:
        (values, lw.state, lw.failed), stacked = lax.scan(step, carry, None, length=trips)
    except TypeError as e:
        raise Unsupported("changes the type or shape of a loop value: %s" % e)
    out: list[Any] = [None] * count
    for j, value in zip(carried, values):
        out[j] = value
    for j, ys in zip(arrays, stacked):
        out[j] = _filled(lw, ins[j], ys, start)
    return out


def _filled(lw: Any, array: Any, ys: Any, start: int) -> TensorArrayBuffer:
    """`array` with elements start.. set to the rows of `ys` (and marked written)."""
    jnp = lw.jnp
    trips = ys.shape[0]
    if isinstance(array, PendingTensorArray):
        if start == 0 and trips == array.size:
            written = jnp.ones(array.size, bool)
            lw.bound(written, 1, 1)  # (reading it whole needs no check)
            return TensorArrayBuffer(ys, written, array.size)
        array = TensorArrayBuffer(jnp.zeros((array.size,) + tuple(ys.shape[1:]), ys.dtype),
                                  jnp.zeros(array.size, bool), array.size)
    if tuple(array.data.shape[1:]) != tuple(ys.shape[1:]):
        raise Unsupported("writes an element of shape %s to a TensorArray of %s"
                          % (tuple(ys.shape[1:]), tuple(array.data.shape[1:])))
    return TensorArrayBuffer(array.data.at[start:start + trips].set(ys),
                             array.written.at[start:start + trips].set(True), array.size)


# -- While --------------------------------------------------------------------------------------


def lower_while(lw: Any, node: Any, ins: list[Any]) -> list[Any]:
    """While: a counted loop writing TensorArrays as `lax.scan` (`lower_counted`), else as
    `lax.while_loop` over (loop values, state, error flag, next test). The test
    runs once before the loop and after each body, as on the numpy executor; the loop also
    stops once an error is flagged (the numpy executor then raises it). A pure test (no
    assignment, no check, no host call) is the loop's condition instead, carrying nothing."""
    if node.attrs.get("residuals") is not None:
        raise Unsupported("keeps residuals for a gradient")
    counted = lower_counted(lw, node, ins)
    if counted is not None:
        return counted
    cond, body = node.attrs["cond"], node.attrs["body"]
    count = len(body.placeholders)
    jax, jnp, lax = lw.jax, lw.jnp, lw.lax
    specs = node.attrs["out_specs"]

    def test(values: list[Any]) -> Any:
        fed = {id(ph): v for ph, v in zip(cond.placeholders, values)}
        fed.update({id(ph): ins[i] for ph, i in cond.captured})
        return jnp.asarray(lw.lower_graph(cond.graph, fed, cond.outputs)[0], bool)

    def stepping(carry: Any) -> Any:  # the body: (values, state, flag) -> the next ones
        values, state, failed = carry[:3]
        with lw.scope(state, failed):
            fed = {id(ph): v for ph, v in zip(body.placeholders, values)}
            fed.update({id(ph): ins[i] for ph, i in body.captured})
            new = lw.lower_graph(body.graph, fed, body.outputs)
            return [lw.carried(v) for v in _cast_outputs(lw, node, new, specs)], \
                lw.state, lw.failed

    def step(carry: Any) -> Any:  # the body, then the test (its effects after the body's)
        values, state, failed = stepping(carry)
        with lw.scope(state, failed):
            again = test(values)
            return values, lw.state, lw.failed, again

    values = [lw.carried(v) for v in _cast_outputs(lw, node, list(ins[:count]), specs)]
    state_before, failed_before = dict(lw.state), lw.failed
    first = test(values)
    # a test that neither assigns variables nor sets the error flag (host calls set it) is
    # pure: it becomes the loop's condition instead of a value carried from each body
    pure = lw.failed is failed_before and len(lw.state) == len(state_before) and \
        all(lw.state.get(k) is v for k, v in state_before.items())
    carry = (values, lw.state, lw.failed, first)
    for _ in range(4):  # pending TensorArrays written in the body get their buffers first,
        shape = jax.eval_shape(step, carry)  # and a body with checks an error flag
        fixed = [_materialize(lw, v, s) for v, s in zip(carry[0], shape[0])]
        flagged = carry[2] is None and shape[2] is not None
        if all(a is b for a, b in zip(fixed, carry[0])) and not flagged:
            break
        carry = (fixed, carry[1], jnp.zeros((), bool) if flagged else carry[2], carry[3])

    def going_on(c: Any) -> Any:
        return c[3] if c[2] is None else jnp.logical_and(c[3], jnp.logical_not(c[2]))

    def testing(c: Any) -> Any:  # the pure test, on the carried values
        values, state, failed = c
        with lw.scope(state, failed):
            go = test(values)
        return go if failed is None else jnp.logical_and(go, jnp.logical_not(failed))

    try:
        if pure:
            values, lw.state, lw.failed = lax.while_loop(testing, stepping, carry[:3])
        else:
            values, lw.state, lw.failed, _ = lax.while_loop(going_on, step, carry)
    except TypeError as e:
        raise Unsupported("changes the type or shape of a loop value: %s" % e)
    return values
