"""Marks the bodies of `try` statements that have `except` clauses.

    try:                              try:
        y = f(x)                  ->      with ag__.try_body('file.py:12', lambda: (KeyError,)):
    except KeyError:                          y = f(x)
        y = 0                         except KeyError:
                                          ag__.reraise_refusal()
                                          y = 0

A `try` runs as plain Python while tracing, which is right for everything that happens at
trace time. Control flow staged inside its body would run later, with the graph, where the
`except` clauses cannot catch its errors; `try_body` makes the runtime refuse that with an
error naming the `try`, instead of silently losing the handlers. The lambda gives the
classes the handlers catch (a bare `except:` catches BaseException), evaluated only when
something is staged inside, as Python evaluates them only when an exception arrives: the
runtime decides from them whether a handler could catch an error the graph raises. No
handler may catch a refusal (an `except Exception:` would otherwise run instead, giving a
made-up result): `reraise_refusal` passes it on.
"""

import copy

import gast

from autograph.converters import base
from autograph.converters.conversion_context import Context, set_origin
from autograph.pyct import templates


class _Transformer(base.FunctionTransformer):
    def visit_Try(self, node):
        self.generic_visit(node)
        if node.handlers:
            where = gast.Constant(value=self.ctx.location(node), kind=None)
            caught = gast.Tuple(elts=[_caught_classes(h) for h in node.handlers],
                                ctx=gast.Load())
            node.body = set_origin(templates.replace(
                "with ag__.try_body(where, lambda: caught):\n    body", where=where,
                caught=caught, body=node.body), node)
            for handler in node.handlers:
                guard = templates.replace("ag__.reraise_refusal()")
                guard[0].value._ag_runtime_call = True
                handler.body = set_origin(guard, handler) + handler.body
        return node


def _caught_classes(handler):
    """An expression for what `handler` catches: its class (or tuple of classes), copied;
    BaseException for a bare `except:`."""
    if handler.type is None:
        return templates.name_node("BaseException")
    return copy.deepcopy(handler.type)


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Wraps the body of every try-with-except of function `node` in `ag__.try_body`."""
    return _Transformer(ctx).visit_body(node)
