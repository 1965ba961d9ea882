"""Lowers `return` inside branches and loops to `do_return`/`retval_` variables.

    def f(x):                         def f(x):
        for i in range(x):                do_return = False
            if i > 3:                     retval_ = ag__.UndefinedReturnValue()
                return i        ->        for i in range(x):      # stops once do_return
        return -1                             if i > 3:
                                                  retval_ = i
                                                  do_return = True
                                          if not do_return:
                                              retval_ = -1
                                              do_return = True
                                          return fscope.ret(retval_, do_return)

Functions whose only `return` is their last statement are left alone. When every path ends
in a `return`, the epilogue is a plain `return retval_`; otherwise `fscope.ret` decides
between the value and the None of falling off the end.
"""

import gast

from autograph.converters import jumps
from autograph.converters.conversion_context import Context, set_origin
from autograph.pyct import templates
from runtime import reserved_names


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
    """'yes' when every path through `body` ends in a `return`, 'unless-suppressed' when that
    holds only if no `with` swallows an exception, else None (loops may run zero times)."""
    if not body:
        return None
    last = body[-1]
    if isinstance(last, gast.Return):
        return "yes"
    if isinstance(last, gast.If):
        return _weakest(_always_returns(last.body), _always_returns(last.orelse))
    if isinstance(last, gast.With):
        return "unless-suppressed" if _always_returns(last.body) else None
    if isinstance(last, gast.While):  # `while True:` without a break of its own
        endless = isinstance(last.test, gast.Constant) and bool(last.test.value)
        has_break = jumps.contains(
            last, lambda n: isinstance(n, gast.Break),
            lambda n: n is last or isinstance(n, (gast.If, gast.With, gast.Try)))
        return "yes" if endless and not has_break else None
    if isinstance(last, gast.Try):
        final = _always_returns(last.finalbody)
        if final:
            return final
        main = _always_returns(last.body) or (_always_returns(last.orelse) if last.orelse
                                              else None)
        return _weakest(main, *[_always_returns(h.body) for h in last.handlers])
    return None


def _weakest(*outcomes):
    if None in outcomes:
        return None
    return "unless-suppressed" if "unless-suppressed" in outcomes else "yes"


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


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Lowers the returns of function `node` when any is nested in a statement."""
    if not _needs_lowering(node.body):
        return node
    flag = ctx.namer.new(reserved_names.RETURN_FLAG)
    value = ctx.namer.new(reserved_names.RETURN_VALUE)
    ctx.return_names = (flag, value)
    _mark_loops(node.body, ctx, flag)

    def replace(ret):
        result = ret.value if ret.value is not None else gast.Constant(value=None, kind=None)
        # The value first: when computing it raises, no return happened.
        return templates.replace("value = result\nflag = True", flag=flag, value=value,
                                 result=result)

    always = _always_returns(node.body)  # before lowering, which removes the returns
    body = jumps.lower_block(node.body, jumps.Jump("return", flag, replace, _descend, ctx,
                                                   value))
    prologue = templates.replace(
        "flag = False\nvalue = ag__.UndefinedReturnValue()", flag=flag, value=value)
    if always == "yes":
        epilogue = templates.replace("return value", value=value)
    elif always == "unless-suppressed":
        epilogue = templates.replace("return fscope.ret(value, True)", value=value)
    else:
        epilogue = templates.replace("return fscope.ret(value, flag)", flag=flag, value=value)
    first = node.body[0]
    node.body = set_origin(prologue, first) + body + set_origin(epilogue, node.body[-1])
    return node
