"""Wraps the converted function's body in its `FunctionScope`.

    def f(x):                    def ag__f(x):
        return x + 1     ->          with ag__.FunctionScope('f') as fscope:
                                         return x + 1

The scope is the `fscope` that `converted_call` receives, and turns an exception escaping
the function into one that names the user's line. With optional features enabled (see
autograph.features) it names them: `ag__.FunctionScope('f', ('BUILTIN_FUNCTIONS',))`.
"""

import gast

from autograph.converters import base
from autograph.converters.conversion_context import Context, set_origin
from autograph.pyct import templates
from runtime import reserved_names


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Renames function `node` to ag__<name> (reserved_names.converted_function_name) and
    wraps its body in a FunctionScope."""
    docstring, body = base.split_docstring(node.body)
    arguments = "name, features" if ctx.features else "name"
    wrapped = templates.replace(
        "with ag__.FunctionScope(%s) as fscope:\n    body" % arguments,
        name=gast.Constant(value=ctx.original_name, kind=None), body=body or [gast.Pass()],
        features=templates.string_tuple(ctx.features))
    node.body = docstring + set_origin(wrapped, node)
    node.name = reserved_names.converted_function_name(ctx.original_name)
    return node
