"""The walking rules the converters share.

A converter rewrites the code of one function: the statements of its own body. The code of
a nested function, lambda or class runs in its own scope and is not this function's code:
nested functions and lambdas are converted on their own when they are called, and a class
body runs as plain Python when the class is defined (its methods are converted when called).
`FunctionTransformer` does not descend into them, and `visit_body` visits a function's
statements (a statement may become several). A docstring stays the function's first
statement: `split_docstring` separates it from the code a pass wraps or prefixes.
"""

import gast

from autograph.converters.conversion_context import Context
from autograph.pyct import traversal


class FunctionTransformer(traversal.Transformer):
    """A gast transformer over the code of one function (see the module docstring)."""

    # The expressions pass rewrites lambda bodies in place (their calls and operators are
    # written in this function); the statement passes find nothing to do in them.
    descends_into_lambdas = False

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def visit_FunctionDef(self, node: gast.AST) -> gast.AST:
        return node  # converted on its own when called

    visit_AsyncFunctionDef = visit_ClassDef = visit_FunctionDef

    def visit_Lambda(self, node: gast.Lambda) -> gast.AST:
        if self.descends_into_lambdas:
            return self.generic_visit(node)
        return node

    def visit_statements(self, statements: list[gast.stmt]) -> list[gast.stmt]:
        """`statements` visited, each possibly replaced by several."""
        return visit_statements(self, statements)

    def visit_body(self, function_node: gast.AST) -> gast.AST:
        """Visits the statements of `function_node`'s own body in place; returns the node."""
        function_node.body = self.visit_statements(function_node.body)
        return function_node


def visit_statements(transformer: traversal.Transformer,
                     statements: list[gast.stmt]) -> list[gast.stmt]:
    """`statements` visited by `transformer`, which may turn one into several."""
    out = []
    for statement in statements:
        result = transformer.visit(statement)
        out.extend(result if isinstance(result, list) else [result])
    return out


def is_docstring(statement: gast.stmt) -> bool:
    """True for a string constant statement (a docstring when it comes first)."""
    return isinstance(statement, gast.Expr) and isinstance(statement.value, gast.Constant) \
        and isinstance(statement.value.value, str)


def split_docstring(body: list[gast.stmt]) -> tuple[list[gast.stmt], list[gast.stmt]]:
    """(docstring statements, the rest) of a function body: the docstring stays first."""
    if body and is_docstring(body[0]):
        return body[:1], body[1:]
    return [], body
