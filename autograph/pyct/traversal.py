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


def children(node: ast.AST) -> list[ast.AST]:
    """The direct child nodes of `node`, in `ast.iter_child_nodes` order."""
    found = []
    for name in node._fields:
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
        for name in node._fields:
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
        for field in node._fields:
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
