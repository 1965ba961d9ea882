"""Walking syntax trees (gast or ast) fast: the analyses and converters visit every node of a
function many times, and `ast.iter_child_nodes` / `ast.walk` spend most of that in their
generators. `children` and `walk` give the same nodes in the same order, with less work
per node.
"""

from __future__ import annotations

import ast
from collections import deque
from typing import Any, Iterator

_AST = ast.AST

# Fields that never hold a node (names, flags, constants' values), by field name, and those
# of some node classes only.
_SCALAR_FIELDS = frozenset(["id", "attr", "type_comment", "kind", "arg", "asname", "module",
                            "level", "is_async", "conversion", "simple", "tag"])
_SCALAR_FIELDS_OF = {"Constant": {"value"}, "Global": {"names"}, "Nonlocal": {"names"}}
_NAMED_BY_NODE = frozenset(["ExceptHandler"])  # its `name` is a node (in gast)
_NODE_FIELDS: dict = {}  # node class -> the names of its fields that may hold nodes


def _node_fields(cls: type[ast.AST]) -> tuple:
    """The fields of node class `cls` that may hold nodes, in `_fields` order."""
    found = _NODE_FIELDS.get(cls)
    if found is None:
        scalar = _SCALAR_FIELDS | _SCALAR_FIELDS_OF.get(cls.__name__, set())
        if cls.__name__ not in _NAMED_BY_NODE:
            scalar = scalar | {"name"}
        found = _NODE_FIELDS[cls] = tuple(f for f in cls._fields if f not in scalar)
    return found


def children(node: ast.AST) -> list[ast.AST]:
    """The direct child nodes of `node`, in `ast.iter_child_nodes` order."""
    found = []
    fields = _NODE_FIELDS.get(type(node))
    for name in _node_fields(type(node)) if fields is None else fields:
        value = getattr(node, name, None)
        if isinstance(value, _AST):
            found.append(value)
        elif isinstance(value, list):
            found.extend([item for item in value if isinstance(item, _AST)])
    return found


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """`node` and every node under it, in `ast.walk` order (breadth first)."""
    todo = deque([node])
    while todo:
        node = todo.popleft()
        fields = _NODE_FIELDS.get(type(node))
        for name in _node_fields(type(node)) if fields is None else fields:
            value = getattr(node, name, None)
            if isinstance(value, _AST):
                todo.append(value)
            elif isinstance(value, list):
                todo.extend([item for item in value if isinstance(item, _AST)])
        yield node


_MISSING = object()
# (transformer class, node class) -> the transformer's visit_<node class> function, or None
_VISITORS: dict = {}


class Transformer(ast.NodeTransformer):
    """`ast.NodeTransformer` (and so `gast.NodeTransformer`) with the same visits in the same
    order: its `visit` finds a class's `visit_<NodeClass>` once, not for every node, and its
    `generic_visit` reads the fields without a generator."""

    def visit(self, node: ast.AST) -> Any:
        key = (type(self), type(node))
        visitor = _VISITORS.get(key, _MISSING)
        if visitor is _MISSING:
            visitor = _VISITORS[key] = getattr(type(self), "visit_" + type(node).__name__,
                                               None)
        if visitor is None:
            return self.generic_visit(node)
        return visitor(self, node)

    def generic_visit(self, node: ast.AST) -> ast.AST:
        fields = _NODE_FIELDS.get(type(node))
        for field in _node_fields(type(node)) if fields is None else fields:
            try:
                old_value = getattr(node, field)
            except AttributeError:
                continue
            if isinstance(old_value, list):
                new_values: list = []
                for value in old_value:
                    if isinstance(value, _AST):
                        value = self.visit(value)
                        if value is None:
                            continue
                        if not isinstance(value, _AST):
                            new_values.extend(value)
                            continue
                    new_values.append(value)
                old_value[:] = new_values
            elif isinstance(old_value, _AST):
                new_node = self.visit(old_value)
                if new_node is None:
                    delattr(node, field)
                else:
                    setattr(node, field, new_node)
        return node
