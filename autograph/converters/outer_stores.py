"""Stores into state defined outside the function go through `ag__.store_outer`, which
reports a tensor leaking out of a trace (runtime.side_effects):

    global x                      global x
    x = a + 1              ->     x = ag__.store_outer(a + 1, 'x')
    obj.field = a          ->     obj.field = ag__.store_outer(a, 'obj.field', obj)
    totals[k] += a         ->     totals[k] += ag__.store_outer(a, 'totals[k]', totals)

A target is outside the function when it is a name declared `global`, or an attribute or
item of a name the function neither binds nor takes as a parameter (a global or a closure
value; the runtime checks that the object was not made by the trace itself). Objects passed
as arguments, `self` included, and `nonlocal` names are left alone: whether they were made
by the trace cannot be told from here.
"""

import gast

from autograph.converters import base
from autograph.converters.conversion_context import Context, set_origin
from autograph.pyct import templates, traversal
from autograph.pyct.unparsing import unparse

_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef,
           gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def _own_nodes(function_node):
    """The nodes of the function's own scope (not of nested functions, classes or
    comprehensions)."""
    stack = list(function_node.body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(traversal.children(node))


def _scope_names(function_node):
    """(names declared global, names the function binds or takes as parameters)."""
    declared, bound = set(), set()
    for arg in traversal.walk(function_node.args):
        if isinstance(arg, gast.Name):
            bound.add(arg.id)
    for node in _own_nodes(function_node):
        if isinstance(node, gast.Global):
            declared.update(node.names)
        elif isinstance(node, gast.Nonlocal):
            bound.update(node.names)  # left alone (see the module docstring)
        elif isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            bound.add(node.id)
        elif isinstance(node, (gast.Import, gast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, gast.ExceptHandler) and isinstance(node.name, str):
            bound.add(node.name)
        elif isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            bound.add(node.name)
    return declared, bound - declared


def _root(target):
    while isinstance(target, (gast.Attribute, gast.Subscript)):
        target = target.value
    return target


def _text(node):
    try:
        return unparse(gast.gast_to_ast(node))
    except Exception:  # a description only; never fail conversion over it
        return "<target>"


class _Transformer(base.FunctionTransformer):
    def __init__(self, ctx, declared, bound):
        super().__init__(ctx)
        self.declared = declared
        self.bound = bound

    def _outer(self, target):
        """(description, root Name or None) for a target outside the function, else None."""
        if isinstance(target, gast.Name):
            return (target.id, None) if target.id in self.declared else None
        if isinstance(target, (gast.Attribute, gast.Subscript)):
            root = _root(target)
            if isinstance(root, gast.Name) and root.id not in self.bound:
                return _text(target), root.id
        return None

    def _store_call(self, value, outer):
        text, root = outer
        if root is None:
            return templates.replace_as_expression(
                "ag__.store_outer(value, text)", value=value,
                text=gast.Constant(value=text, kind=None))
        return templates.replace_as_expression(
            "ag__.store_outer(value, text, root)", value=value,
            text=gast.Constant(value=text, kind=None),
            root=gast.Name(id=root, ctx=gast.Load(), annotation=None, type_comment=None))

    def _outer_targets(self, targets):
        found = []
        for target in targets:
            elements = target.elts if isinstance(target, (gast.Tuple, gast.List)) else [target]
            for element in elements:
                outer = self._outer(element.value if isinstance(element, gast.Starred)
                                    else element)
                if outer is not None:
                    found.append(outer)
        return found

    def visit_Assign(self, node):
        found = self._outer_targets(node.targets)
        if found:
            text = ", ".join(t for t, _ in found)
            roots = [r for _, r in found if r is not None]
            node.value = set_origin(self._store_call(
                node.value, (text, roots[0] if len(roots) == len(found) else None)), node)
        return node

    def visit_AnnAssign(self, node):
        outer = self._outer(node.target)
        if outer is not None and node.value is not None:
            node.value = set_origin(self._store_call(node.value, outer), node)
        return node

    def visit_AugAssign(self, node):
        outer = self._outer(node.target)
        if outer is not None:
            node.value = set_origin(self._store_call(node.value, outer), node)
        return node


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Wraps the stores of function `node` into outer state (not of nested functions)."""
    declared, bound = _scope_names(node)
    return _Transformer(ctx, declared, bound).visit_body(node)
