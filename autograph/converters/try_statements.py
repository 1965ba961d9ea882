"""Marks the bodies of `try` statements that have `except` clauses.

    try:                              try:
        y = f(x)                  ->      with ag__.try_body('file.py:12'):
    except KeyError:                          y = f(x)
        y = 0                         except KeyError:
                                          ag__.reraise_refusal()
                                          y = 0

A `try` runs as plain Python while tracing, which is right for everything that happens at
trace time. Control flow staged inside its body would run later, with the graph, where the
`except` clauses cannot catch its errors; `try_body` makes the runtime refuse that with an
error naming the `try`, instead of silently losing the handlers. No handler may catch that
refusal (an `except Exception:` would otherwise run instead, giving a made-up result):
`reraise_refusal` passes it on.
"""

import gast

from autograph.converters import base
from autograph.converters.conversion_context import set_origin
from autograph.pyct import templates


class _Transformer(base.FunctionTransformer):
    def visit_Try(self, node):
        self.generic_visit(node)
        if node.handlers:
            where = gast.Constant(value=self.ctx.location(node), kind=None)
            node.body = set_origin(templates.replace(
                "with ag__.try_body(where):\n    body", where=where, body=node.body), node)
            for handler in node.handlers:
                guard = templates.replace("ag__.reraise_refusal()")
                guard[0].value._ag_runtime_call = True
                handler.body = set_origin(guard, handler) + handler.body
        return node


def transform(node, ctx):
    """Wraps the body of every try-with-except of function `node` in `ag__.try_body`."""
    return _Transformer(ctx).visit_body(node)
