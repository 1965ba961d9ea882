"""Batching rules: how an op computes many examples at once when some of its inputs carry a
leading batch dimension (JAX's `vmap` rules, TensorFlow's `pfor` converters).

`GradientTape.jacobian` builds the backward pass for one output gradient and then batches
it over every row of the Jacobian (runtime/gradients/vectorize.py): each op of the backward
pass that reads a batched value is replaced by its batched form, given by the op's rule,
declared in its family's module next to the op with `declare(op, rule)`:

    rule(batcher, node, args, batched) -> [output, ...]

`args` are the op's inputs in the graph being built (or eager values), `batched[i]` says
whether input i has the extra leading dimension of size `batcher.size`, and every output the
rule returns has it. A rule builds its outputs with the ops API and the `batcher`'s helpers
(`rank`, `expand`, `batch`, `rerun`, `reduce_sum`, `unbatchable`); a rule that cannot
batch a case (an unknown rank, a computed axis) calls `batcher.unbatchable(reason)`, and the
Jacobian falls back to its loop. An op with the `elementwise` trait needs no declaration:
`elementwise` below serves it. The rule helpers of this module (`elementwise`,
`along_an_axis`, `all_batched`, `shifted_axis`) are shared by the families' declarations.
"""

from collections.abc import Callable
from typing import Any

BatchRule = Callable[[Any, Any, list[Any], list[bool]], list[Any]]

_RULES: dict[Any, BatchRule] = {}


def declare(op: Any, rule: BatchRule) -> None:
    """Declares `rule` as `op`'s batching rule (once per op)."""
    if op in _RULES:
        raise ValueError("op %s already has a batching rule" % op.name)
    if not callable(rule):
        raise TypeError("op %s: a batching rule must be callable, got %r" % (op.name, rule))
    _RULES[op] = rule


def rule_for(op: Any) -> BatchRule | None:
    """`op`'s batching rule: declared, or `elementwise` for an elementwise op; else None."""
    rule = _RULES.get(op)
    if rule is None and "elementwise" in op.traits:
        return elementwise
    return rule


def aligned(batcher: Any, args: list[Any], batched: list[bool]) -> list[Any]:
    """`args` with each batched one given the per-example rank of the highest-ranked
    argument (ones inserted after the batch dimension), so that numpy broadcasting pairs
    example dimensions with example dimensions and unbatched arguments broadcast over the
    batch."""
    rank = max(batcher.rank(a, b) for a, b in zip(args, batched))
    return [batcher.expand(a, rank) if b else a for a, b in zip(args, batched)]


def elementwise(batcher: Any, node: Any, args: list[Any], batched: list[bool]) -> list[Any]:
    """An op that broadcasts its operands (elementwise ops, MatMul's batch dimensions)."""
    return batcher.rerun(node, aligned(batcher, args, batched))


def all_batched(batcher: Any, args: list[Any], batched: list[bool]) -> list[Any]:
    """`args` with the unbatched ones repeated over the batch (for ops whose operands must
    have one shape: AddN, ConcatV2, Pack)."""
    return [a if b else batcher.batch(a) for a, b in zip(args, batched)]


def along_an_axis(batcher: Any, node: Any, args: list[Any], batched: list[bool]) -> list[Any]:
    """An op of one operand working along its `axis` attribute (Cumsum, Cumprod, Softmax,
    LogSoftmax, Unpack): the axis shifted past the batch."""
    return batcher.rerun(node, args, dict(node.attrs, axis=shifted_axis(node.attrs["axis"])))


def shifted_axis(axis: int) -> int:
    """An axis of an example as an axis of the batch: a non-negative one moves up by one,
    a negative one (counted from the end) stays."""
    return axis + 1 if axis >= 0 else axis
