"""The object graph a checkpoint saves, named as TensorFlow names it.

An object's children are what TensorFlow tracks: a Module's attributes that hold a
Variable, a Module, a Checkpoint, or a list, tuple or dict holding any of these (named by
attribute, in the order they were set); a list's or tuple's such elements (named "0", "1",
...); a dict's (named by key); a Checkpoint's objects. Walking breadth first from the root
numbers the nodes (an object reached twice is one node) and names each value by its first
path, escaped ('.' -> '..', '/' -> '.S'), as TensorFlow's keys:

    model/layers/0/kernel/.ATTRIBUTES/VARIABLE_VALUE

An object that saves values of its own other than a variable's (a dataset iterator: its
position) has `_checkpoint_state()`, giving them by attribute name, and
`_restore_checkpoint_state(values, where)`, taking them back (see `saved_state`):

    iterator/.ATTRIBUTES/ITERATOR_STATE/dataset/next
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from runtime import dtypes
from runtime.checkpoint import protos
from runtime.module import Module
from runtime.variables import Variable

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
VARIABLE_VALUE = "VARIABLE_VALUE"


def is_trackable(value: Any) -> bool:
    """Whether `value` is an object a checkpoint can hold (or a container holding one)."""
    if isinstance(value, (Variable, Module)) or getattr(value, "_checkpoint_children", None):
        return True
    if callable(getattr(value, "_checkpoint_state", None)):
        return True
    if isinstance(value, (list, tuple)):
        return any(is_trackable(item) for item in value)
    if isinstance(value, dict):
        return any(is_trackable(item) for item in value.values())
    return False


def children(value: Any) -> Iterator[tuple[str, Any]]:
    """(local name, child) for each object `value` tracks, in TensorFlow's order."""
    own = getattr(value, "_checkpoint_children", None)
    if own is not None:
        yield from own()
    elif isinstance(value, Module):
        for name, item in list(vars(value).items()):
            if is_trackable(item):
                yield name, item
    elif isinstance(value, (list, tuple)):
        for position, item in enumerate(value):
            if is_trackable(item):
                yield str(position), item
    elif isinstance(value, dict):
        for key, item in value.items():
            if is_trackable(item):
                if not isinstance(key, str):
                    raise ValueError(
                        "Unable to save a dictionary holding trackable objects under the "
                        "non-string key %r: checkpoints name values by string keys" % (key,))
                yield key, item


def child(value: Any, name: str) -> Any:
    """`value`'s child named `name`, or None."""
    for local_name, item in children(value):
        if local_name == name:
            return item
    return None


def escape(name: str) -> str:
    """A local name as it appears in a checkpoint key."""
    return name.replace(".", "..").replace("/", ".S")


def variable_full_name(variable: Variable) -> str:
    """The variable's name without the output index (TensorFlow's `full_name`)."""
    name = variable.name
    return name[:-2] if name.endswith(":0") else name


@dataclass
class Gathered:
    """The object graph below a root: objects by node id, their paths and their nodes."""

    objects: list[Any]
    paths: list[tuple[str, ...]]
    nodes: list[protos.TrackableNode]

    def variables(self) -> Iterator[tuple[str, Variable]]:
        """(checkpoint key, variable) for every variable, in node order."""
        for value, node in zip(self.objects, self.nodes):
            if isinstance(value, Variable):
                yield node.attributes[0].checkpoint_key, value


def gather(root: Any, attached: Sequence[tuple[str, Any]] = ()) -> Gathered:
    """The graph below `root`, breadth first; `attached` are extra children of the root
    (a Checkpoint's objects when it was given a `root`)."""
    objects: list[Any] = [root]
    paths: list[tuple[str, ...]] = [()]
    nodes: list[protos.TrackableNode] = [protos.TrackableNode()]
    ids = {id(root): 0}
    position = 0
    while position < len(objects):
        value = objects[position]
        links = list(children(value))
        if position == 0:
            names = {name for name, _ in links}
            links += [(name, item) for name, item in attached if name not in names]
        for name, item in links:
            node_id = ids.get(id(item))
            if node_id is None:
                node_id = ids[id(item)] = len(objects)
                objects.append(item)
                paths.append(paths[position] + (name,))
                nodes.append(protos.TrackableNode())
            nodes[position].children.append((node_id, name))
        position += 1
    for value, path, node in zip(objects, paths, nodes):
        if isinstance(value, Variable):
            key = "/".join(escape(part) for part in path) + "/.ATTRIBUTES/" + VARIABLE_VALUE
            node.attributes.append(protos.SerializedTensor(
                VARIABLE_VALUE, variable_full_name(value), key))
    _mark_values(nodes)
    return Gathered(objects, paths, nodes)


def saved_state(gathered: Gathered) -> list[tuple[str, str, np.ndarray]]:
    """(checkpoint key, dtype name, value) of each value that the objects saving state of
    their own (`_checkpoint_state()`) give, each added to its node's attributes."""
    tensors = []
    for value, path, node in zip(gathered.objects, gathered.paths, gathered.nodes):
        state = getattr(value, "_checkpoint_state", None)
        if isinstance(value, Variable) or not callable(state):
            continue
        prefix = "/".join(escape(part) for part in path) + "/.ATTRIBUTES/"
        for name, array in sorted(state().items()):
            key = prefix + name
            node.attributes.append(protos.SerializedTensor(name, "", key))
            dtype = dtypes.string if array.dtype == object else dtypes.from_numpy(array.dtype)
            tensors.append((key, dtype.name, array))
    _mark_values(gathered.nodes)
    return tensors


def _mark_values(nodes: list[protos.TrackableNode]) -> None:
    """Sets `has_checkpoint_values`: whether a node or a node below it holds a value."""
    state: dict[int, bool] = {}

    def visit(node_id: int) -> bool:
        if node_id in state:
            return state[node_id]
        state[node_id] = False  # (a cycle adds nothing)
        node = nodes[node_id]
        found = bool(node.attributes)
        for child_id, _ in node.children:
            found = visit(child_id) or found
        state[node_id] = found
        return found

    for node_id in range(len(nodes)):
        nodes[node_id].has_checkpoint_values = visit(node_id)


def pretty_path(path: tuple[str, ...]) -> str:
    """A node's path as TensorFlow prints it in errors: '(root).model.layers.0'."""
    return ".".join(("(root)",) + path)
