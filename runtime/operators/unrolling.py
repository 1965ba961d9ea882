"""Unrolling accounted: Python loops that run while a graph is being built count their
iterations and the ops they add; one that adds more than `diagnostics.UNROLL_LIMIT` ops to one
graph warns (UnrollingWarning) once, at its line.

`for_stmt`/`while_stmt` (runtime.operators.loops) count with an UnrollCounter; a loop over
Python data that the compiler leaves as a plain `for` iterates `python_loop(iterable)`.
"""

from typing import Any, Iterable, Iterator

from runtime import context, diagnostics


def python_loop(iterable: Iterable[Any]) -> Iterator[Any]:
    """`iter(iterable)`; while a graph is being built, an iterator that also counts the
    iterations and the ops they add, reported when the loop runs to its end."""
    counter = UnrollCounter()
    if counter.graph is None:
        return iter(iterable)
    return _CountedIterator(iter(iterable), counter)


class _CountedIterator:
    """An iterator that counts its items for an UnrollCounter."""

    __slots__ = ("items", "counter")

    def __init__(self, items, counter):
        self.items = items
        self.counter = counter

    def __iter__(self):
        return self

    def __next__(self):
        try:
            item = next(self.items)
        except StopIteration:
            self.counter.report()
            raise
        self.counter.count(item)
        return item


class UnrollCounter:
    """Counts the iterations of a Python loop and the ops they add to the graph being built;
    `report` warns (once per loop line and Function) when they exceed UNROLL_LIMIT, unless
    the loop iterates over callables."""

    __slots__ = ("graph", "start", "iterations", "over_callables")

    def __init__(self):
        self.graph = context.current_graph()
        self.start = len(self.graph.nodes) if self.graph is not None else 0
        self.iterations = 0
        # A loop over layers or functions (`for layer in self.layers`) is the model's
        # structure, not a trip count: no tf.range can replace it, so it never warns.
        self.over_callables = False

    def count(self, item: Any) -> None:
        """Counts one iteration of a `for` loop, over `item`."""
        self.iterations += 1
        if callable(item) or isinstance(item, tuple) and any(map(callable, item)):
            self.over_callables = True  # (a tuple: enumerate(layers), zip(layers, ...))

    def report(self) -> None:
        if self.graph is None or self.over_callables or \
                self.graph is not context.current_graph():
            return
        added = len(self.graph.nodes) - self.start
        if added > diagnostics.UNROLL_LIMIT:
            diagnostics.warn_once(
                "unroll", "this Python loop ran %d iterations while tracing and unrolled "
                "them into %d ops of one graph (more than %d): the graph grows with the trip "
                "count; loop over tf.range(n) or a tf.data.Dataset to make one While op"
                % (self.iterations, added, diagnostics.UNROLL_LIMIT),
                diagnostics.UnrollingWarning)
