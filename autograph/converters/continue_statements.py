"""Lowers `continue` to a flag reset at the top of every iteration.

    for x in xs:                  for x in xs:
        if x < 0:                     continue_ = False
            continue      ->          if x < 0:
        y += x                            continue_ = True
                                      if not continue_:
                                          y += x
"""

import gast

from autograph.converters import base, jumps
from autograph.converters.conversion_context import Context, set_origin
from autograph.pyct import templates
from runtime import reserved_names


class _Transformer(base.FunctionTransformer):
    def _visit_loop(self, node):
        self.generic_visit(node)
        is_continue = lambda n: isinstance(n, gast.Continue)  # noqa: E731
        if any(jumps.contains(s, is_continue, jumps.not_loop_or_function) for s in node.body):
            flag = self.ctx.namer.new(reserved_names.CONTINUE_FLAG)
            jump = jumps.Jump("continue", flag,
                              lambda n: templates.replace("flag = True", flag=flag),
                              jumps.not_loop_or_function, self.ctx)
            body = jumps.lower_block(node.body, jump)
            reset = set_origin(templates.replace("flag = False", flag=flag), node.body[0])
            node.body = reset + body
        return node

    visit_While = _visit_loop
    visit_For = _visit_loop


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Lowers the continues of every loop in function `node`."""
    return _Transformer(ctx).visit_body(node)
