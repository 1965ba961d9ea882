"""Spells out the arguments of zero-argument `super()` in a method.

    def m(self, x):                      def m(self, x):
        if x > 0:                ->          if x > 0:
            x = super().m(x)                     x = super(__class__, self).m(x)
        return x                             return x

Zero-argument `super()` reads the class from the `__class__` cell and the instance from the
first parameter of the frame that calls it. Converted code moves statements into generated
functions (`if_body`, `loop_body`, the lambdas of `and`/`or`), whose frames have neither,
so the call fails there with "super(): no arguments". With both arguments written out, the
names resolve through ordinary closures: `__class__` to the original method's class cell
(the converted function is bound to the original's closure cells by name), and the first
parameter to the converted function's own.

Runs before any pass creates nested functions (autograph.pipeline states it: the passes
that do require 'super-explicit'). Only calls in the function's own scope
are rewritten: a nested function or lambda calling `super()` uses its own first parameter,
as in plain Python.
"""

import gast

from autograph.converters.conversion_context import Context, set_origin
from autograph.pyct import traversal


def _first_parameter(node):
    positional = node.args.posonlyargs + node.args.args
    return positional[0].id if positional else None


def _binds_super(node):
    """True when the function itself binds the name `super` (then it is not the builtin)."""
    for sub in _own_scope(node):
        if isinstance(sub, gast.Name) and sub.id == "super" and \
                isinstance(sub.ctx, (gast.Store, gast.Del, gast.Param)):
            return True
        if isinstance(sub, (gast.Global, gast.Nonlocal)) and "super" in sub.names:
            return True
        if isinstance(sub, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)) and \
                sub.name == "super":
            return True
        if isinstance(sub, gast.alias) and (sub.asname or sub.name.split(".")[0]) == "super":
            return True
    return False


def _mentions_super(node):
    """True when the name `super` appears anywhere in `node` (most functions: nowhere, and
    then there is nothing to rewrite)."""
    return any(isinstance(sub, gast.Name) and sub.id == "super" for sub in traversal.walk(node))


def _own_scope(node):
    """The nodes of function `node`, not descending into nested functions, lambdas and
    classes (comprehensions are descended into: their `super()` sees the same instance)."""
    stack = list(traversal.children(node))
    while stack:
        sub = stack.pop()
        yield sub
        if isinstance(sub, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)):
            # Defaults and decorators run in this scope; the body does not.
            stack.extend(sub.args.defaults + [d for d in sub.args.kw_defaults if d])
            stack.extend(getattr(sub, "decorator_list", []))
            continue
        if isinstance(sub, gast.ClassDef):
            stack.extend(sub.bases + [k.value for k in sub.keywords] + sub.decorator_list)
            continue
        stack.extend(traversal.children(sub))


def _is_zero_argument_super(node):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and \
        node.func.id == "super" and not node.args and not node.keywords


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Rewrites `super()` into `super(__class__, <first parameter>)` in function `node`."""
    first = _first_parameter(node)
    if first is None or not _mentions_super(node) or _binds_super(node):
        return node  # nothing to rewrite, or no instance to name (Python fails the same way)
    for sub in _own_scope(node):
        if _is_zero_argument_super(sub):
            sub.args = set_origin([
                gast.Name(id="__class__", ctx=gast.Load(), annotation=None, type_comment=None),
                gast.Name(id=first, ctx=gast.Load(), annotation=None, type_comment=None),
            ], sub)
    return node
