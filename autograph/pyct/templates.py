"""Building gast trees from code templates.

    replace('''
        def body_name():
            nonlocal_decl
            body
    ''', body_name='if_body', nonlocal_decl=..., body=[...statements])

Each keyword names a placeholder identifier in the template. A string replaces it by that
name; an expression node replaces it in place; a list of statements replaces a placeholder
that stands alone as a statement. Function names and argument names may be placeholders.
Two placeholders need no keyword: `ag__` stands for the namespace converted code calls and
`fscope` for the function's scope, spelled as runtime.reserved_names says
(`replace('ag__.ld(name)', name='x')`).
"""

import functools
import textwrap
from typing import Any

import gast

from autograph.pyct import traversal
from runtime import reserved_names


class _Replacer(traversal.Transformer):
    def __init__(self, replacements):
        self.replacements = replacements

    def _lookup(self, name):
        return self.replacements.get(name)

    def visit_Expr(self, node):
        if isinstance(node.value, gast.Name) and node.value.id in self.replacements:
            value = self.replacements[node.value.id]
            if isinstance(value, list):
                return list(value)
            if isinstance(value, gast.stmt):
                return value
        return self.generic_visit(node)

    def visit_Name(self, node):
        value = self._lookup(node.id)
        if value is None:
            return node
        if isinstance(value, str):
            return gast.Name(id=value, ctx=node.ctx, annotation=None, type_comment=None)
        if isinstance(value, gast.AST):
            replacement = value
            _set_ctx(replacement, node.ctx)
            return replacement
        raise TypeError("cannot substitute %r for %s" % (value, node.id))

    def visit_FunctionDef(self, node):
        value = self._lookup(node.name)
        if isinstance(value, str):
            node.name = value
        self.generic_visit(node)
        return node

    def visit_Nonlocal(self, node):
        node.names = [self._lookup(n) if isinstance(self._lookup(n), str) else n
                      for n in node.names]
        return node

    def visit_Global(self, node):
        return self.visit_Nonlocal(node)


def _set_ctx(node, ctx):
    if isinstance(node, (gast.Name, gast.Attribute, gast.Subscript, gast.Starred)):
        node.ctx = type(ctx)()
    if isinstance(node, (gast.Tuple, gast.List)):
        node.ctx = type(ctx)()
        for elt in node.elts:
            _set_ctx(elt, ctx)


def replace(template, **replacements):
    """Parses `template` (statements) with placeholders replaced; returns a list of stmts."""
    module = _copy(_parse(template))
    module = _Replacer({**_reserved_placeholders(), **replacements}).visit(module)
    return module.body


def _reserved_placeholders():
    """The placeholders every template may use (see the module docstring)."""
    return {"ag__": reserved_names.NAMESPACE, "fscope": reserved_names.FUNCTION_SCOPE}


@functools.lru_cache(maxsize=256)
def _parse(template):
    """The parsed template. A conversion uses the same few templates dozens of times: each
    use gets a copy (`_copy`), as the replacement edits the tree in place."""
    return gast.parse(textwrap.dedent(template))


def _copy(node):
    """A deep copy of a parsed template's nodes and lists. A fresh parse holds nothing else
    (fields, positions and constants), and this is several times faster than `copy.deepcopy`
    and than parsing again."""
    if isinstance(node, list):
        return [_copy(item) for item in node]
    if not isinstance(node, gast.AST):
        return node
    cls: Any = type(node)
    new = cls.__new__(cls)
    fields = new.__dict__
    for key, value in node.__dict__.items():
        fields[key] = _copy(value) if isinstance(value, (list, gast.AST)) else value
    return new


def replace_as_expression(template, **replacements):
    """Like `replace`, for a template that is a single expression; returns the expression."""
    body = replace(template, **replacements)
    if len(body) != 1 or not isinstance(body[0], gast.Expr):
        raise ValueError("template is not a single expression: %r" % template)
    return body[0].value


def name_node(name, ctx=None):
    """A gast Name."""
    return gast.Name(id=name, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def string_tuple(names):
    """A gast Tuple of string constants: `('x', 'y')`; `names` are strings or names
    (QualifiedNames: their text)."""
    return gast.Tuple(elts=[gast.Constant(value=str(n), kind=None) for n in names],
                      ctx=gast.Load())
