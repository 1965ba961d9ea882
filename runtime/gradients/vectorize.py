"""Vectorising a backward pass: one graph for one output gradient, re-emitted to compute it
for a whole batch of output gradients at once (TensorFlow's `pfor`, JAX's `vmap`).

    backward graph (traced once)          batched (emitted where the Jacobian is asked)
    seed [3]  ->  Mul(seed, cos(x))  ->   seeds [9, 3]  ->  Mul(seeds, cos(x))  (broadcast)

`vectorize(graph, seed, seeds, results)` walks `graph`'s nodes in order. A node none of
whose inputs depend on the seed is re-emitted as it is (in the graph being built, or run
eagerly); a node that reads a batched value is replaced by what its op's batching rule
(runtime/ops/batching.py) emits, with every output batched. Before emitting anything the
walk checks that every batched node has a rule (and is not stateful); a rule may still refuse
its node on the way (a value of unknown rank, a size known only at run time). Either way
`vectorize` raises `Unbatchable`, whose message the Jacobian logs before taking its loop, and
what the walk emitted before a rule refused is read by nothing: stateless, it is dropped from
the graph being built (or was plain values, eagerly).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from runtime import dtypes
from runtime.graph import Graph, Node
from runtime.ops import batching, common, concat_split_ops, reduction_ops, reshape_ops
from runtime.ops.registry import execute
from runtime.tensor import SymbolicTensor, Tensor


class Unbatchable(Exception):
    """The backward pass holds an op that cannot be batched (the message says which)."""


class Batcher:
    """What a batching rule may use: the batch `size` and helpers that build batched
    values with the ops API."""

    def __init__(self, size: int) -> None:
        self.size = size

    def unbatchable(self, reason: str) -> None:
        """Refuses to batch the op at hand (the Jacobian then takes its loop)."""
        raise Unbatchable(reason)

    def rank(self, x: Any, batched: bool) -> int:
        """The rank of one example of `x` (its rank less the batch dimension if batched)."""
        return len(self.example_shape(x, batched))

    def example_shape(self, x: Any, batched: bool = True) -> tuple[Any, ...]:
        """The static shape of one example of `x` (entries None where unknown)."""
        shape = x._shape_tuple()
        if shape is None:
            self.unbatchable("a value of unknown rank")
        return tuple(shape[1:] if batched else shape)

    def expand(self, x: Any, rank: int) -> Any:
        """Batched `x` with ones inserted after the batch dimension up to example rank
        `rank`."""
        for _ in range(rank - self.rank(x, True)):
            x = reshape_ops.expand_dims(x, 1)
        return x

    def batch(self, x: Any) -> Any:
        """Unbatched `x` repeated over the batch: [size, *x.shape]."""
        shape = self.example_shape(x, False)
        lifted = reshape_ops.expand_dims(x, 0)
        if None not in shape:
            return reshape_ops.broadcast_to(lifted, [self.size] + list(shape))
        return concat_split_ops.tile(lifted, [self.size] + [1] * len(shape))

    def rerun(self, node: Node, args: list[Any], attrs: Any = None) -> list[Any]:
        """`node`'s op run on `args` (with `attrs` in place of the node's, if given)."""
        return execute(node.op, args, node.attrs if attrs is None else attrs)

    def reduce_sum(self, x: Any, axes: list[int], keepdims: bool = False) -> Any:
        """`x` summed over `axes`."""
        return reduction_ops.reduce_sum(x, axes, keepdims=keepdims)


def _check_batchable(graph: Graph, seed: SymbolicTensor, needed: set[int]) -> None:
    """Raises Unbatchable naming the first node the results need that reads the seed
    (directly or through other nodes) and has no batching rule, state or sub-graphs, or that
    waits on control dependencies (which a batched node would not keep)."""
    batched_ids = {id(seed)}
    for node in graph.nodes:
        if id(node) not in needed:
            continue  # (the needed nodes are closed under their inputs)
        if node.control_inputs:
            raise Unbatchable("node %s has control dependencies" % node.name)
        if not any(id(t) in batched_ids for t in node.inputs):
            continue
        if batching.rule_for(node.op) is None:
            raise Unbatchable("op %s (node %s) has no batching rule" % (node.op.name,
                                                                           node.name))
        if node.op.stateful or node.subgraphs():
            raise Unbatchable("op %s (node %s) has state or sub-graphs"
                              % (node.op.name, node.name))
        batched_ids.update(id(t) for t in node.outputs)


def _needed(graph: Graph, results: Sequence[Tensor | None]) -> set[int]:
    """The ids of the nodes the results depend on."""
    needed = set()
    stack = [t.node for t in results if isinstance(t, SymbolicTensor) and t.graph is graph]
    while stack:
        node = stack.pop()
        if id(node) in needed:
            continue
        needed.add(id(node))
        stack.extend(t.node for t in node.inputs)
    return needed


def vectorize(graph: Graph, seed: SymbolicTensor, seeds: Tensor,
              results: Sequence[Tensor | None], size: int) -> list[Tensor | None]:
    """The `results` of `graph` (tensors of it, or None) computed for every output gradient
    of `seeds` (the value fed to placeholder `seed`, with a leading dimension of `size`):
    each has the leading dimension `size` too. Raises Unbatchable when the graph has an op
    that cannot be batched (see the module docstring for what was emitted by then)."""
    needed = _needed(graph, results)
    _check_batchable(graph, seed, needed)  # first: nothing is emitted for a refused graph
    captured = {id(c.placeholder): c.external for c in graph.captures}
    values: dict[int, tuple[Any, bool]] = {id(seed): (seeds, True)}
    batcher = Batcher(size)
    for node in graph.nodes:
        if id(node) not in needed or id(node.outputs[0]) in values:
            continue
        if "placeholder" in node.op.traits:
            if id(node.outputs[0]) not in captured:
                raise Unbatchable("placeholder %s is not the seed nor a capture" % node.name)
            values[id(node.outputs[0])] = (captured[id(node.outputs[0])], False)
            continue
        args = [values[id(t)][0] for t in node.inputs]
        batched = [values[id(t)][1] for t in node.inputs]
        if any(batched):
            rule = batching.rule_for(node.op)
            assert rule is not None  # checked by _check_batchable
            outputs = rule(batcher, node, args, batched)
        else:
            outputs = execute(node.op, args, node.attrs)
        for old, new in zip(node.outputs, outputs):
            values[id(old)] = (new, any(batched))
    batched_results: list[Tensor | None] = []
    for t in results:
        if t is None:
            batched_results.append(None)
            continue
        value, is_batched = values[id(t)] if id(t) in values else (t, False)
        batched_results.append(value if is_batched else batcher.batch(value))
    return batched_results


def one_hot_rows(size: int, shape: list[int], dtype: dtypes.DType) -> Any:
    """The output gradients of a Jacobian's rows: [size, *shape], row i one at flat
    position i of `shape`."""
    return common.convert_to_tensor(np.eye(size, dtype=dtype.np_dtype).reshape(
        [size] + list(shape)))
