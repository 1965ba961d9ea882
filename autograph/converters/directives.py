"""Finds the loop directives (`tf.autograph.experimental.set_loop_options`) of a function.

    for i in tf.range(n):
        tf.autograph.experimental.set_loop_options(maximum_iterations=3)
        ...

The call must be the first statement of a loop body; it is marked, and the control-flow
pass moves its arguments (as the expressions pass rewrote them) into the loop statement's
`opts`, by option name, which are evaluated once before the loop (see
runtime.operators.loop_options):

    ag__.for_stmt(..., opts={'iterate_names': 'i', 'maximum_iterations': 3})

A call is a directive when its callee, a name or a dotted name ending in `set_loop_options`,
is the runtime's `set_loop_options` in the function's namespace, or cannot be looked up at
conversion time (a module converted by the CLI). Anywhere but first in a loop body it is a
ConversionError naming the line; a misspelt option name too.
"""

import builtins
from typing import Any

import gast

from autograph.converters import base
from autograph.converters.conversion_context import Context
from autograph.errors import ConversionError
from runtime.operators import loop_options

DIRECTIVE = "set_loop_options"


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Marks the directives of `node`'s own code (see the module docstring)."""
    _Finder(ctx).visit_body(node)
    return node


def take_loop_options(loop: gast.stmt) -> dict[Any, gast.expr]:
    """Removes the directive from `loop`'s body; returns its arguments ({name: expression},
    empty when the loop has none), as the passes since have rewritten them."""
    for index, statement in enumerate(loop.body):
        if getattr(statement, "_ag_loop_directive", False):
            del loop.body[index]
            if not loop.body:
                loop.body.append(gast.Pass())
            return _option_arguments(statement.value)
    return {}


def _option_arguments(call):
    """{option name: expression} of a directive call, written as the user wrote it or as
    `ag__.converted_call(f, (args...), {'name': value...}, fscope)`."""
    if isinstance(call.func, gast.Attribute) and call.func.attr == "converted_call":
        positional = call.args[1].elts
        given = call.args[2]
        keywords = list(zip([k.value for k in given.keys], given.values)) \
            if isinstance(given, gast.Dict) else []
    else:
        positional = call.args
        keywords = [(k.arg, k.value) for k in call.keywords]
    found = dict(zip(loop_options.OPTION_NAMES, positional))
    found.update(keywords)
    return found


class _Finder(base.FunctionTransformer):
    def __init__(self, ctx):
        super().__init__(ctx)
        self.loop_bodies = []  # the statement lists that are loop bodies, innermost last

    def visit_While(self, node):
        return self._visit_loop(node)

    visit_For = visit_While

    def _visit_loop(self, node):
        self.loop_bodies.append(node.body)
        node.body = self.visit_statements(node.body)
        self.loop_bodies.pop()
        node.orelse = self.visit_statements(node.orelse)
        for field in ("test", "iter", "target"):
            if hasattr(node, field):
                setattr(node, field, self.visit(getattr(node, field)))
        return node

    def visit_Expr(self, node):
        if not self._is_directive(node.value):
            return self.generic_visit(node)
        body = self.loop_bodies[-1] if self.loop_bodies else None
        if body is None or not body or body[0] is not node:
            raise ConversionError(
                "%s: %s must be the first statement of a loop body (it sets the options of "
                "the loop it starts)" % (self.ctx.location(node), DIRECTIVE))
        self._check_arguments(node.value)
        node._ag_loop_directive = True
        return node

    def visit_Call(self, node):
        if self._is_directive(node):
            raise ConversionError(
                "%s: %s is a statement of its own, the first of a loop body; its value "
                "cannot be used" % (self.ctx.location(node), DIRECTIVE))
        return self.generic_visit(node)

    def _is_directive(self, call):
        if not isinstance(call, gast.Call):
            return False
        path = _dotted(call.func)
        if path is None or path[-1] != DIRECTIVE:
            return False
        namespace = getattr(self.ctx, "namespace", None)
        if namespace is None:
            return True
        found = _lookup(namespace, path)
        return found is _UNKNOWN or found is loop_options.set_loop_options

    def _check_arguments(self, call):
        names = loop_options.OPTION_NAMES
        if len(call.args) > len(names) or any(isinstance(a, gast.Starred) for a in call.args):
            raise ConversionError("%s: %s takes at most %d positional arguments, by name: %s"
                                  % (self.ctx.location(call), DIRECTIVE, len(names),
                                     ", ".join(names)))
        found = dict(zip(names, call.args))
        for keyword in call.keywords:
            if keyword.arg not in names:
                raise ConversionError(
                    "%s: %s got %s; its options are: %s" % (
                        self.ctx.location(call), DIRECTIVE,
                        "**kwargs" if keyword.arg is None
                        else "an unknown option %r" % keyword.arg, ", ".join(names)))
            if keyword.arg in found:
                raise ConversionError("%s: %s got option %r twice" % (
                    self.ctx.location(call), DIRECTIVE, keyword.arg))
            found[keyword.arg] = keyword.value


_UNKNOWN = object()


def _dotted(expression):
    """['tf', 'autograph', 'experimental', 'set_loop_options'] for a dotted name, else None."""
    parts = []
    while isinstance(expression, gast.Attribute):
        parts.append(expression.attr)
        expression = expression.value
    if not isinstance(expression, gast.Name):
        return None
    parts.append(expression.id)
    return parts[::-1]


def _lookup(namespace, path):
    """The object a dotted name names in `namespace` (then builtins), or _UNKNOWN when it
    cannot be known at conversion time (a local name, a failing attribute)."""
    root = path[0]
    if root in namespace:
        value = namespace[root]
    elif hasattr(builtins, root):
        value = getattr(builtins, root)
    else:
        return _UNKNOWN
    for attr in path[1:]:
        try:
            value = getattr(value, attr)
        except Exception:
            return _UNKNOWN
    return value
