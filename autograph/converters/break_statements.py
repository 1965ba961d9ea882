"""Lowers `break` to a flag that the loop tests.

    while x > 0:                  break_ = False
        if x > 5:                 while x > 0:          # plus `not break_` (see loops)
            break         ->          if x > 5:
        x -= 1                            break_ = True
                                      if not break_:
                                          x -= 1

A loop's `else:` block runs after the loop only when no break happened.
"""

import gast

from autograph.converters import base, jumps
from autograph.converters.conversion_context import Context, set_origin
from autograph.pyct import templates
from runtime import reserved_names


class _Transformer(base.FunctionTransformer):
    def _visit_loop(self, node):
        self.generic_visit(node)
        is_break = lambda n: isinstance(n, gast.Break)  # noqa: E731
        has_break = any(jumps.contains(s, is_break, jumps.not_loop_or_function)
                        for s in node.body)
        after = []
        if has_break:
            flag = self.ctx.namer.new(reserved_names.BREAK_FLAG)
            jump = jumps.Jump("break", flag, lambda n: templates.replace("flag = True", flag=flag),
                              jumps.not_loop_or_function, self.ctx)
            node.body = jumps.lower_block(node.body, jump) or [gast.Pass()]
            self.ctx.add_loop_flag(node, flag)
            before = set_origin(templates.replace("flag = False", flag=flag), node)
            if node.orelse:
                after = set_origin(templates.replace("if not flag:\n    orelse", flag=flag,
                                                     orelse=node.orelse), node)
            node.orelse = []
            return before + [node] + after
        after = node.orelse
        node.orelse = []
        return [node] + after

    visit_While = _visit_loop
    visit_For = _visit_loop


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Lowers the breaks of every loop in function `node`."""
    return _Transformer(ctx).visit_body(node)
