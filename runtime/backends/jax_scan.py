"""Counted loops as `lax.scan`: a While whose test is `i < n` (n known at compile time) and
whose body adds 1 to the counter `i`, runs a number of times known at compile time; the
TensorArrays it writes at index `i` (and uses for nothing else) become the scan's stacked
outputs instead of buffers updated in the carry with `.at[i].set`, which XLA runs much
slower (a dynamic update of the whole buffer per step).

`lower_counted(lowerer, node, ins)` gives the While's output values, or None when the loop
is not of that shape (the caller lowers it as a `lax.while_loop`). The error flag is carried
as in the while loop; a scan does not stop early when it is set, so loops whose body holds
another loop or a call (which might not end on the values of a failed step) are left to the
while loop.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime import executor
from runtime.backends.jax_lowering import Lowerer
from runtime.graph import SubGraph
from runtime.lowering_api import PendingTensorArray, TensorArrayBuffer, Unsupported, is_concrete


def _has_loop_or_call(graph: Any) -> bool:
    for n in graph.nodes:
        if "body" in n.attrs or "f" in n.attrs:
            return True
        if any(_has_loop_or_call(a.graph) for a in n.attrs.values()
               if isinstance(a, SubGraph)):
            return True
    return False


def _producer(t: Any, simplified: executor.Simplified) -> Any:
    while id(t) in simplified.aliases:
        t = simplified.aliases[id(t)]
    return t


def _static_int(t: Any, simplified: executor.Simplified, sub: SubGraph,
                ins: list[Any]) -> int | None:
    """The value of scalar integer tensor `t` of `sub`'s graph when known at compile time."""
    t = _producer(t, simplified)
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
    test = _producer(cond.outputs[0], cond_s)
    if test.node.op.name != "Less":
        return None
    counter, limit = test.node.inputs
    counter = _producer(counter, cond_s)
    k = next((i for i, p in enumerate(cond.placeholders) if p is counter), None)
    if k is None:
        return None
    n = _static_int(limit, cond_s, cond, ins)
    start = ins[k]
    if n is None or not is_concrete(start) or np.asarray(start).dtype.kind not in "iu":
        return None
    body_s = executor.simplify(body.graph, body.outputs)
    step = _producer(body.outputs[k], body_s)
    if step.node.op.name != "AddV2":
        return None
    a, b = (_producer(x, body_s) for x in step.node.inputs)
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


def lower_counted(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any] | None:
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
        with lw.scope(state, failed):
            fed = {id(body.placeholders[j]): v for j, v in zip(carried, values)}
            fed.update({id(ph): ins[i] for ph, i in body.captured})
            outs = lw.lower_graph(body.graph, fed,
                                  [body.outputs[j] for j in carried] + written)
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


def _filled(lw: Lowerer, array: Any, ys: Any, start: int) -> TensorArrayBuffer:
    """`array` with elements start.. set to the rows of `ys` (and marked written)."""
    jnp = lw.jnp
    trips = ys.shape[0]
    if isinstance(array, PendingTensorArray):
        if start == 0 and trips == array.size:
            return TensorArrayBuffer(ys, jnp.ones(array.size, bool), array.size)
        array = TensorArrayBuffer(jnp.zeros((array.size,) + tuple(ys.shape[1:]), ys.dtype),
                                  jnp.zeros(array.size, bool), array.size)
    if tuple(array.data.shape[1:]) != tuple(ys.shape[1:]):
        raise Unsupported("writes an element of shape %s to a TensorArray of %s"
                          % (tuple(ys.shape[1:]), tuple(array.data.shape[1:])))
    return TensorArrayBuffer(array.data.at[start:start + trips].set(ys),
                             array.written.at[start:start + trips].set(True), array.size)
