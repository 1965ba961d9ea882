"""Wraps the converted function's body in its `FunctionScope`.

    def f(x):                    def ag__f(x):
        return x + 1     ->          with ag__.FunctionScope('f') as fscope:
                                         return x + 1

The scope is the `fscope` that `converted_call` receives, and turns an exception escaping
the function into one that names the user's line.
"""

import gast

from autograph.converters import base
from autograph.converters.conversion_context import set_origin
from autograph.pyct import templates


def transform(node, ctx):
    """Renames function `node` to ag__<name> and wraps its body in a FunctionScope."""
    docstring, body = base.split_docstring(node.body)
    wrapped = templates.replace(
        "with ag__.FunctionScope(name) as fscope:\n    body",
        name=gast.Constant(value=ctx.original_name, kind=None), body=body or [gast.Pass()])
    node.body = docstring + set_origin(wrapped, node)
    node.name = "ag__" + ctx.original_name
    return node
