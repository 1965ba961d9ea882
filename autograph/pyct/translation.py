"""gast trees to stdlib `ast` trees and back: `gast.gast_to_ast` and `gast.ast_to_gast`, with
the same results, faster.

gast's translators handle the nodes whose form differs between the two (`Name`, `arg`,
`arguments`, `ExceptHandler`...) in methods of their own, and every other node in a generic
method that looks up the target class, tests and reads each field by name, and copies each
position attribute, for every node; and the stdlib visitor they inherit builds the
`visit_<Class>` name and looks it up on every node too. Loading converted code translates
the whole function once (a tenth of `autograph.to_code`), so the subclasses here find, once
per node class, the method that translates it, or the target class and fields, and keep
gast's own methods for the rest.

gast's classes are not part of its documented interface: where they are missing, gast's
functions are used as they are.
"""

from __future__ import annotations

import ast
from typing import Any

import gast

_MISSING = object()
_ast3 = getattr(gast, "ast3", None)


def _faster(base: Any, target_module: Any) -> Any:
    """A subclass of gast translator class `base` (translating to `target_module`'s nodes)
    with its dispatch and generic translation found once per node class."""

    class Faster(base):
        # node class -> the class's method that translates it, or None (generic_visit)
        _methods: dict[type, Any] = {}
        # node class -> (target class or None, fields, position attributes)
        _shapes: dict[type, tuple[Any, tuple[str, ...], tuple[str, ...]]] = {}

        def visit(self, node: Any) -> Any:
            cls = type(node)
            method = self._methods.get(cls, _MISSING)
            if method is _MISSING:
                method = self._methods[cls] = getattr(type(self), "visit_" + cls.__name__,
                                                      None)
            if method is None:
                return self.generic_visit(node)
            return method(self, node)

        def _visit(self, node: Any) -> Any:
            if isinstance(node, ast.AST):
                return self.visit(node)
            if isinstance(node, list):
                return [self.visit(n) if isinstance(n, ast.AST) else self._visit(n)
                        for n in node]
            return node

        def generic_visit(self, node: Any) -> Any:
            cls = type(node)
            shape = self._shapes.get(cls)
            if shape is None:
                shape = self._shapes[cls] = (getattr(target_module, cls.__name__, None),
                                             tuple(cls._fields), tuple(cls._attributes))
            target, fields, attributes = shape
            if target is None:
                return None  # (as gast: a node the other side has no class for)
            values = {}
            for field in fields:
                value = getattr(node, field, _MISSING)
                if value is not _MISSING:
                    values[field] = self._visit(value)
            new_node = target(**values)
            for attribute in attributes:
                value = getattr(node, attribute, _MISSING)
                if value is not _MISSING:
                    setattr(new_node, attribute, value)
            return new_node

    return Faster


try:
    _ToAst: Any = _faster(_ast3.GAstToAst3, ast)  # type: ignore[union-attr]
    _ToGast: Any = _faster(_ast3.Ast3ToGAst, gast)  # type: ignore[union-attr]
except AttributeError:  # another gast: its own functions
    _ToAst = _ToGast = None


def gast_to_ast(node: Any) -> Any:
    """`gast.gast_to_ast(node)`: the stdlib `ast` tree of gast tree `node`."""
    if _ToAst is None:
        return gast.gast_to_ast(node)
    return _ToAst().visit(node)


def ast_to_gast(node: Any) -> Any:
    """`gast.ast_to_gast(node)`: the gast tree of stdlib `ast` tree `node`."""
    if _ToGast is None:
        return gast.ast_to_gast(node)
    return _ToGast().visit(node)


def parse(source: str, **kwargs: Any) -> Any:
    """`gast.parse(source, ...)`: `ast.parse`, translated to gast."""
    return ast_to_gast(ast.parse(source, **kwargs))
