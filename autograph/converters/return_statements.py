"""Lowers `return` inside branches and loops to `do_return`/`retval_` variables.

    def f(x):                         def f(x):
        for i in range(x):                do_return = False
            if i > 3:                     retval_ = ag__.UndefinedReturnValue()
                return i        ->        for i in range(x):      # stops once do_return
        return -1                             if i > 3:
                                                  do_return = True
                                                  retval_ = i
                                          if not do_return:
                                              do_return = True
                                              retval_ = -1
                                          return fscope.ret(retval_, do_return)

Functions whose only `return` is their last statement are left alone. When every path ends
in a `return`, the epilogue is a plain `return retval_`; otherwise `fscope.ret` decides
between the value and the None of falling off the end.
"""

import gast

from autograph import templates
from autograph.converters import jumps
from autograph.converters.context import set_origin


def _is_return(node):
    return isinstance(node, gast.Return)


def _descend(node):
    return isinstance(node, (gast.If, gast.With, gast.Try, gast.While, gast.For))


def _needs_lowering(body):
    for i, stmt in enumerate(body):
        if isinstance(stmt, gast.Return):
            continue
        if _descend(stmt) and jumps.contains(stmt, _is_return, _descend):
            return True
    return False


def _always_returns(body):
    """True when every path through `body` ends in a `return` (loops may run zero times)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, gast.Return):
        return True
    if isinstance(last, gast.If):
        return _always_returns(last.body) and _always_returns(last.orelse)
    if isinstance(last, gast.With):
        return _always_returns(last.body)
    return False


def _mark_loops(stmts, ctx, flag):
    for stmt in stmts:
        if isinstance(stmt, (gast.While, gast.For)) and jumps.contains(stmt, _is_return,
                                                                     _descend):
            ctx.add_loop_flag(stmt, flag)
        if _descend(stmt):
            for field in ("body", "orelse", "finalbody"):
                _mark_loops(getattr(stmt, field, None) or [], ctx, flag)
            for handler in getattr(stmt, "handlers", None) or []:
                _mark_loops(handler.body, ctx, flag)


def transform(node, ctx):
    """Lowers the returns of function `node` when any is nested in a statement."""
    if not _needs_lowering(node.body):
        return node
    flag = ctx.namer.new("do_return")
    value = ctx.namer.new("retval_")
    ctx.return_names = (flag, value)
    _mark_loops(node.body, ctx, flag)

    def replace(ret):
        result = ret.value if ret.value is not None else gast.Constant(value=None, kind=None)
        return templates.replace("flag = True\nvalue = result", flag=flag, value=value,
                                 result=result)

    body = jumps.lower_block(node.body, _is_return, replace, _descend, flag)
    prologue = templates.replace(
        "flag = False\nvalue = ag__.UndefinedReturnValue()", flag=flag, value=value)
    if _always_returns(node.body):
        epilogue = templates.replace("return value", value=value)
    else:
        epilogue = templates.replace("return fscope.ret(value, flag)", flag=flag, value=value)
    first = node.body[0]
    node.body = set_origin(prologue, first) + body + set_origin(epilogue, node.body[-1])
    return node
