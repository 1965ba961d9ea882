"""Scopes over graph building: `name_scope`, `control_dependencies` and `init_scope`.

    with tf.name_scope("layer"):          # nodes named 'layer/MatMul', 'layer/add'
        with tf.name_scope("inner"):      # 'layer/inner/...'
            ...
    with tf.control_dependencies([assign]):
        y = tf.identity(x)                # its node lists '^assign' among its inputs

Inside a trace a name scope prefixes the names of the nodes added to the current graph (and
to the graphs of the loop bodies and branches traced inside it); entering a scope name the
graph already used gives it a fresh one ('layer_1'), as TensorFlow does, and a name ending in
'/' is used as it is. Eagerly it only yields its name.

`control_dependencies` records the given ops as control inputs of the nodes that the block
adds to the same graph (GraphDef inputs '^name'). The executor runs a graph's nodes in
program order and never removes a node with side effects, so an op created in the block
runs after the given ops; eagerly, ops run as they are called, so the block changes nothing.
`None` as the list clears the dependencies for the block.

`init_scope` runs its block eagerly even inside a trace (TensorFlow lifts it out of the
function being traced): values made there are eager tensors, captured as constants.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

from runtime import context
from runtime.tensor import SymbolicTensor, Tensor


class name_scope:  # noqa: N801 - TensorFlow's name
    """A context manager naming the nodes added in its block `name/...` (see
    runtime.scopes); entering it gives the full scope name, e.g. 'outer/name/'."""

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise TypeError("name_scope: name must be a string, got %r" % (name,))
        self._name = name
        self._saved: list[tuple[Any, str]] = []

    @property
    def name(self) -> str:
        """The scope's name as given."""
        return self._name

    def __enter__(self) -> str:
        graph = context.current_graph()
        name = self._name
        if graph is None:
            self._saved.append((None, ""))
            return name + "/" if name and not name.endswith("/") else name
        previous = graph.name_stack
        if not name:
            scope = ""
        elif name.endswith("/"):
            scope = name
        else:
            scope = graph.unique_name(previous + name) + "/"
        self._saved.append((graph, previous))
        graph.name_stack = scope
        return scope

    def __exit__(self, *exc_info: Any) -> None:
        graph, previous = self._saved.pop()
        if graph is not None:
            graph.name_stack = previous


def _control_node(value: Any) -> Any:
    """The graph node a control dependency names: a tensor's op, or an op itself."""
    if isinstance(value, SymbolicTensor):
        return value.node
    if hasattr(value, "control_inputs") and hasattr(value, "op"):  # a graph Node
        return value
    if isinstance(value, Tensor) or value is None:
        return None  # eager values ran already
    if hasattr(value, "read_value") and hasattr(value, "assign"):
        # what an assignment returned stands for the assignment (`op`: its node); a
        # variable's reads and assignments run in program order anyway
        return getattr(value, "op", None)
    handle = getattr(value, "handle", None)  # a TensorArray: its handle tensor
    if isinstance(handle, SymbolicTensor):
        return handle.node
    if isinstance(handle, Tensor):
        return None
    if callable(value):
        raise TypeError("control_dependencies: got the callable %r; call it first (in a "
                        "traced function, ops are listed, not functions)" % (value,))
    raise TypeError("control_dependencies: expected tensors or ops, got %r (%s)"
                    % (value, type(value).__name__))


@contextlib.contextmanager
def control_dependencies(control_inputs: Iterable[Any] | None) -> Iterator[None]:
    """Makes the ops the block adds to the current graph run after `control_inputs` (tensors
    or ops; None clears the dependencies in the block). See runtime.scopes."""
    graph = context.current_graph()
    if graph is None:
        if control_inputs is not None:
            for value in control_inputs:
                _control_node(value)  # the same checks as in a trace
        yield
        return
    previous = graph.control_dependencies
    if control_inputs is None:
        added: list[Any] = []
        current: list[Any] = []
    else:
        added = [node for node in map(_control_node, control_inputs)
                 if node is not None and node.graph is graph]
        current = previous + [node for node in added if node not in previous]
    graph.control_dependencies = current
    try:
        yield
    finally:
        graph.control_dependencies = previous


@contextlib.contextmanager
def init_scope() -> Iterator[None]:
    """Runs the block eagerly, outside any graph being built (see runtime.scopes), with no
    control dependencies and no name scope."""
    with context.eager_scope():
        yield
