"""Source text of stdlib `ast` trees, spelled the same on every supported Python.

`ast.unparse` of Python 3.10 writes `lambda : x` and parenthesizes tuple targets
(`(a, b) = t`, `for (i, x) in ...`); from 3.11 on it writes `lambda: x` and `a, b = t`.
Generated code is shown to users (`to_code`) and compared in tests, so 3.10 gets the 3.11
spelling. Both spellings are the same program: only the text differs.
"""

import ast
import sys
from typing import Any


def unparse(tree):
    """The source text of stdlib `ast` node `tree`, without a trailing newline."""
    if _Unparser310 is None:
        return ast.unparse(tree)
    return _Unparser310().visit(tree)


def _make_unparser_310():
    # `ast._Unparser` is private (typeshed leaves it out), but only this one released
    # version (3.10) needs it.
    precedence: Any = getattr(ast, "_Precedence")
    unparser: Any = getattr(ast, "_Unparser")

    class Unparser310(unparser):
        """3.10's unparser with 3.11's spelling of lambdas and tuple targets."""

        def visit_Tuple(self, node):
            if node.elts and self.get_precedence(node) <= precedence.TUPLE:
                self.items_view(self.traverse, node.elts)
            else:
                super().visit_Tuple(node)

        def visit_Assign(self, node):
            self.set_precedence(precedence.TUPLE, *node.targets)
            super().visit_Assign(node)

        def visit_For(self, node):
            self.set_precedence(precedence.TUPLE, node.target)
            super().visit_For(node)

        def visit_AsyncFor(self, node):
            self.set_precedence(precedence.TUPLE, node.target)
            super().visit_AsyncFor(node)

        def visit_Lambda(self, node):
            with self.require_parens(precedence.TEST, node):
                self.write("lambda")
                start = len(self._source)
                self.traverse(node.args)
                if len(self._source) > start:  # parameters: one space after `lambda`
                    self._source.insert(start, " ")
                self.write(": ")
                self.set_precedence(precedence.TEST, node.body)
                self.traverse(node.body)

    return Unparser310


_Unparser310 = _make_unparser_310() if sys.version_info < (3, 11) else None
