"""The "jax" lowering rules of staged control flow: If (`lax.cond`, or both branches and a
select) and While (`lax.while_loop`, or `lax.scan` for a counted loop writing TensorArrays,
runtime/backends/jax_scan.py). Their state (variables, the error flag) is threaded through
the carry.

The other ops declare their JAX rules beside them (runtime/ops); If and While name these in
their `register` calls as 'runtime.backends.jax_rules:NAME' (`lowering_api.jax_rule`), since
they are built on the lowerer's scoping and the scan lowering. A rule is
`rule(lowerer, node, ins) -> [output values]` (see runtime/backends/jax_lowering.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.backends import jax_host, jax_scan
from runtime.backends.jax_lowering import Lowerer
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


# -- control flow -----------------------------------------------------------------------------


def lower_if(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
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
    if _small_and_loop_free(then_sub.graph) and _small_and_loop_free(else_sub.graph):
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


def _run_branch(lw: Lowerer, sub: Any, ins: list[Any]) -> list[Any]:
    fed = {id(ph): ins[i] for ph, i in sub.captured}
    return lw.lower_graph(sub.graph, fed, sub.outputs)


def _cast_outputs(lw: Lowerer, node: Any, values: list[Any], specs: Any) -> list[Any]:
    out = []
    for value, (dtype, shape) in zip(values, specs):
        if isinstance(value, (TensorArrayBuffer, PendingTensorArray, VariableSlot, HostHandle)):
            out.append(value)
        elif value is None:
            raise Unsupported("has a branch without a value")
        else:
            out.append(lw.jnp.asarray(value, dtype.np_dtype))
    return out


def _small_and_loop_free(graph: Any) -> bool:
    return _loop_free_size(graph) <= _SELECT_LIMIT


def _loop_free_size(graph: Any) -> float:
    """The number of nodes in `graph` and its branches; infinite with a loop, a call or a
    host call (whose effects must not happen in the branch not taken)."""
    count = 0.0
    for n in graph.nodes:
        if "body" in n.attrs or "f" in n.attrs or jax_host.is_host_call(n.op):
            return float("inf")
        count += 1 + sum(_loop_free_size(a.graph) for a in n.attrs.values()
                         if isinstance(a, SubGraph))
    return count


def _materializing(lw: Lowerer, fn: Any, other_shape: Any, checked: bool) -> Any:
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


def _materialize(lw: Lowerer, value: Any, shape: Any) -> Any:
    if isinstance(value, PendingTensorArray) and isinstance(shape, TensorArrayBuffer):
        jnp = lw.jnp
        return TensorArrayBuffer(jnp.zeros(shape.data.shape, shape.data.dtype),
                                 jnp.zeros(value.size, bool), value.size)
    return value


def lower_while(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """While: a counted loop writing TensorArrays as `lax.scan` (see jax_scan), else as
    `lax.while_loop` over (loop values, state, error flag, next test). The test
    runs once before the loop and after each body, as on the numpy executor; the loop also
    stops once an error is flagged (the numpy executor then raises it). A pure test (no
    assignment, no check, no host call) is the loop's condition instead, carrying nothing."""
    if node.attrs.get("residuals") is not None:
        raise Unsupported("keeps residuals for a gradient")
    counted = jax_scan.lower_counted(lw, node, ins)
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


# -- variables --------------------------------------------------------------------------------


# -- checks -----------------------------------------------------------------------------------


# -- TensorArrays -----------------------------------------------------------------------------


# -- array ops the array backends do not lower yet --------------------------------------------


