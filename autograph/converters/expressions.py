"""Expression-level rewrites: lazy `and`/`or`/`not`, conditional expressions, chained
comparisons, `assert`, and calls.

    a and b            ->  ag__.and_(lambda: a, lambda: b)
    not a              ->  ag__.not_(a)
    x if c else y      ->  ag__.if_exp(c, lambda: x, lambda: y, 'x if c else y')
    a < b < c          ->  ag__.compare_chain(a, '<', lambda: b, '<', lambda: c)
    c in t             ->  ag__.in_(c, t)      (and `not in` -> ag__.not_in)
    assert c, msg      ->  ag__.assert_stmt(c, lambda: msg)
    f(x, k=1)          ->  ag__.converted_call(f, (x,), {'k': 1}, fscope)

A few introspection builtins are left as plain calls: they must run at trace time with
Python semantics. `print` (unless it prints only constants) and `next` go through
`converted_call` too, which calls them as they are after checking for a trace-time side
effect (see runtime.side_effects); with the BUILTIN_FUNCTIONS feature (autograph.features)
`converted_call` stages `print` of a tensor, so that it prints its value at every call.
"""

import gast

from autograph.converters import base
from autograph.converters.conversion_context import Context, set_origin
from autograph.pyct import templates
from autograph.pyct.unparsing import unparse
from runtime import reserved_names

PLAIN_CALLS = frozenset(["isinstance", "issubclass", "hasattr", "getattr", "setattr",
                         "callable", "type", "super", "id", "repr", "str", "dir", "vars",
                         "locals", "globals", "iter", "list", "tuple", "dict", "set",
                         "sorted", "reversed"])


_COMPARE_TEXT = {gast.Lt: "<", gast.LtE: "<=", gast.Gt: ">", gast.GtE: ">=", gast.Eq: "==",
                 gast.NotEq: "!=", gast.Is: "is", gast.IsNot: "is not", gast.In: "in",
                 gast.NotIn: "not in"}

_MEMBERSHIP = {gast.In: "ag__.in_", gast.NotIn: "ag__.not_in"}


def _lambda(body):
    node = gast.Lambda(
        args=gast.arguments(args=[], posonlyargs=[], vararg=None, kwonlyargs=[],
                            kw_defaults=[], kwarg=None, defaults=[]), body=body)
    node._ag_deferred_operand = True  # called right away by its operator: no real closure
    return node


def _source_text(node):
    try:
        return unparse(gast.gast_to_ast(node))
    except Exception:  # a description only; never fail conversion over it
        return "<expression>"


def _prints_only_constants(node):
    return all(isinstance(arg, gast.Constant) for arg in node.args) and all(
        isinstance(k.value, gast.Constant) for k in node.keywords)


class _Transformer(base.FunctionTransformer):
    descends_into_lambdas = True

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        name = "ag__.and_" if isinstance(node.op, gast.And) else "ag__.or_"
        result = node.values[-1]
        for value in reversed(node.values[:-1]):
            result = templates.replace_as_expression(
                "op(left, right)", op=templates.replace_as_expression(name),
                left=_lambda(value), right=_lambda(result))
        return set_origin(result, node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.Not):
            return set_origin(templates.replace_as_expression(
                "ag__.not_(value)", value=node.operand), node)
        return node

    def visit_IfExp(self, node):
        text = _source_text(node)
        self.generic_visit(node)
        return set_origin(templates.replace_as_expression(
            "ag__.if_exp(test, body, orelse, text)", test=node.test, body=_lambda(node.body),
            orelse=_lambda(node.orelse), text=gast.Constant(value=text, kind=None)), node)

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1:
            op = _MEMBERSHIP.get(type(node.ops[0]))
            if op is None:
                return node
            return set_origin(templates.replace_as_expression(
                op + "(item, container)", item=node.left, container=node.comparators[0]), node)
        args = [node.left]
        for op, operand in zip(node.ops, node.comparators):
            args.append(gast.Constant(value=_COMPARE_TEXT[type(op)], kind=None))
            args.append(_lambda(operand))
        call = gast.Call(func=templates.replace_as_expression("ag__.compare_chain"),
                         args=args, keywords=[])
        return set_origin(call, node)

    def visit_Assert(self, node):
        self.generic_visit(node)
        message = node.msg if node.msg is not None else gast.Constant(
            value="assertion failed: " + _source_text(node.test), kind=None)
        return set_origin(templates.replace(
            "ag__.assert_stmt(test, message)", test=node.test, message=_lambda(message)), node)

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if getattr(node, "_ag_runtime_call", False):
            return node
        if isinstance(func, gast.Name) and (func.id in PLAIN_CALLS or func.id.startswith(
                reserved_names.NAMESPACE) or func.id == "print" and _prints_only_constants(node)):
            return node
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and \
                func.value.id in (reserved_names.NAMESPACE, reserved_names.FUNCTION_SCOPE):
            return node
        args = gast.Tuple(elts=list(node.args), ctx=gast.Load())
        if node.keywords:
            kwargs = gast.Dict(keys=[gast.Constant(value=k.arg, kind=None) if k.arg else None
                                     for k in node.keywords],
                               values=[k.value for k in node.keywords])
        else:
            kwargs = gast.Constant(value=None, kind=None)
        return set_origin(templates.replace_as_expression(
            "ag__.converted_call(func, args, kwargs, fscope)", func=func, args=args,
            kwargs=kwargs), node)


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Rewrites the expressions of function `node` (not of nested functions)."""
    return _Transformer(ctx).visit_body(node)
