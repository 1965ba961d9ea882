"""Shared machinery for lowering `break`, `continue` and `return` to flag variables.

A jump becomes an assignment to a flag; the statements after it in the same block, and
after the compound statement containing it up to the jump's target, run only while the
flag is unset:

    for x in xs:              for x in xs:                 (the loop also stops when
        if x > 0:                 if x > 0:                 break_ is set: see loops)
            break       ->            break_ = True
        y = x                     if not break_:
                                      y = x

The `else:` block of a loop or a `try` runs only when its body ended without a jump. A
`finally:` block runs whatever happened; when it jumps itself, its jump replaces the one
pending from the body and swallows an exception in flight, as in Python:

    try:                          finally_ = ag__.FinallyJumps('file.py:3')
        return f(x)               with finally_:
    finally:                          try:
        if x > 0:           ->            retval_ = f(x)
            return 0                      do_return = True
        log(x)                        finally:
                                          pending_return, do_return = do_return, False
                                          if x > 0:
                                              retval_ = 0
                                              do_return = True
                                          if not do_return:
                                              log(x)
                                          do_return = finally_.resume(do_return,
                                                                      pending_return)

The flags of the kinds of jump lowered after this one (break and continue after return)
guard the `resume` of this kind, so that a `break` in the `finally:` block also cancels a
pending `return`.
"""

from typing import Callable

import gast

from autograph.converters.conversion_context import Context, set_origin
from autograph.pyct import templates
from runtime import reserved_names

_NODE_TYPES = {"return": gast.Return, "break": gast.Break, "continue": gast.Continue}
_ORDER = ("return", "break", "continue")  # the order of the passes lowering them


class Jump:
    """One kind of jump lowered in one scope (a function's returns, one loop's breaks or
    continues): `flag` is the variable it sets, `replace(node)` the statements standing for
    jump `node`, `descend(stmt)` says which compound statements hold jumps of this scope."""

    def __init__(self, kind: str, flag: str, replace: Callable[[gast.stmt], list[gast.stmt]],
                 descend: Callable[[gast.AST], bool], ctx: Context,
                 value: str | None = None) -> None:
        self.kind = kind
        self.flag = flag
        self.value = value  # a return's value variable (None for break and continue)
        self.replace = replace
        self.descend = descend
        self.ctx = ctx
        self._type = _NODE_TYPES[kind]

    def is_jump(self, node: gast.AST) -> bool:
        """True for a jump statement of this kind."""
        return isinstance(node, self._type)

    def within(self, node: gast.AST) -> bool:
        """True when statement `node` is, or holds, a jump of this scope."""
        return contains(node, self.is_jump, self.descend)


def contains(node: gast.AST, is_jump: Callable[[gast.AST], bool],
             descend: Callable[[gast.AST], bool]) -> bool:
    """True when `node` holds a jump (found through statements `descend` allows)."""
    if is_jump(node):
        return True
    if not descend(node):
        return False
    for block in _blocks(node):
        for stmt in block:
            if contains(stmt, is_jump, descend):
                return True
    return False


def _blocks(node):
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if isinstance(block, list):
            yield block
    for handler in getattr(node, "handlers", None) or []:
        yield handler.body


def lower_block(stmts: list[gast.stmt], jump: Jump) -> list[gast.stmt]:
    """Returns `stmts` with the jumps of `jump` replaced and the statements after them
    guarded."""
    out = []
    for i, stmt in enumerate(stmts):
        if jump.is_jump(stmt):
            out.extend(set_origin(jump.replace(stmt), stmt))
            return out  # anything after a jump in the same block never runs
        had_jump = jump.within(stmt)
        out.extend(_lower_nested(stmt, jump) if had_jump else [stmt])
        if had_jump:
            rest = lower_block(stmts[i + 1:], jump)
            if rest:
                out.extend(set_origin(_unless_jumped(rest, jump), stmts[i + 1]))
            return out
    return out


def _unless_jumped(stmts, jump):
    return templates.replace("if not flag:\n    stmts", flag=jump.flag, stmts=stmts)


def _lowered(block, jump):
    return lower_block(block, jump) or [gast.Pass()]


def _lower_nested(node, jump):
    """The statements standing for compound statement `node`, which holds a jump."""
    if isinstance(node, gast.Try):
        return _lower_try(node, jump)
    body_jumps = any(jump.within(stmt) for stmt in node.body)
    node.body = _lowered(node.body, jump)
    if getattr(node, "orelse", None):
        orelse = lower_block(node.orelse, jump)
        if body_jumps and isinstance(node, (gast.For, gast.While)):
            orelse = set_origin(_unless_jumped(orelse, jump), node.orelse[0])
        node.orelse = orelse
    return [node]


def _lower_try(node, jump):
    body_jumps = any(jump.within(stmt) for stmt in node.body)
    reset = body_jumps and _may_raise_after_jump(node.body, jump)
    node.body = _lowered(node.body, jump)
    for handler in node.handlers:
        handler.body = _lowered(handler.body, jump)
        if reset:  # the exception it catches cancelled the jump that came before it
            cancel = templates.replace("flag = False", flag=jump.flag)
            handler.body = set_origin(cancel, handler) + handler.body
    if node.orelse:
        orelse = lower_block(node.orelse, jump)
        node.orelse = set_origin(_unless_jumped(orelse, jump), node.orelse[0]) \
            if body_jumps else orelse
    if not _ends_finally(node.finalbody, jump):
        return [node]
    return _lower_finally(node, jump)


def _may_raise_after_jump(stmts, jump):
    """True when a jump in `stmts` may be followed by an exception from the same statements:
    one raised by a `finally:` block or a context manager's exit that the jump passes."""
    for stmt in stmts:
        if not jump.within(stmt) or jump.is_jump(stmt):
            continue
        if isinstance(stmt, gast.With) or (isinstance(stmt, gast.Try) and stmt.finalbody):
            return True
        if any(_may_raise_after_jump(block, jump) for block in _blocks(stmt)):
            return True
    return False


def _lower_finally(node, jump):
    """`try` whose `finally:` block jumps: the block starts with no jump pending (remembering
    the body's), and its own jump, if any, replaces the pending one; `ag__.FinallyJumps`
    swallows an exception in flight when it does, as Python does. The passes lowering other
    kinds of jumps share the `FinallyJumps` of the first."""
    namer = jump.ctx.namer
    pending = namer.new(reserved_names.PENDING_PREFIX + jump.kind)
    scope = getattr(node, "_ag_finally_scope", None)
    wrap = scope is None
    if wrap:
        scope = node._ag_finally_scope = namer.new(reserved_names.FINALLY_SCOPE)
    enter = templates.replace("pending, flag = flag, False", pending=pending, flag=jump.flag)
    if wrap:
        begin = templates.replace("scope.begin_finally()", scope=scope)
        begin[0].value._ag_runtime_call = True
        enter = begin + enter
    leave = templates.replace("flag = scope.resume(flag, pending)", flag=jump.flag,
                              scope=scope, pending=pending)
    if jump.value is not None:
        # A return in the block that a later jump cancels (`continue` in an inner finally)
        # still assigned the value: the pending return's value is kept aside and restored.
        kept = namer.new(reserved_names.PENDING_PREFIX + jump.value.rstrip("_"))
        enter = enter + templates.replace("kept = value", kept=kept, value=jump.value)
        leave = templates.replace("value = scope.resume_value(flag, value, kept)",
                                  value=jump.value, scope=scope, flag=jump.flag,
                                  kept=kept) + leave
    for statement in leave:
        statement.value._ag_runtime_call = True  # a call of the runtime's: never converted
    node.finalbody = set_origin(enter, node.finalbody[0]) + \
        lower_block(node.finalbody, jump) + set_origin(leave, node.finalbody[-1])
    if not wrap:
        return [node]
    # Bound by an assignment rather than `with ... as`: the analysis sees it is local.
    wrapped = templates.replace(
        "scope = ag__.FinallyJumps(where)\nwith scope:\n    try_", scope=scope, try_=[node],
        where=gast.Constant(value=jump.ctx.location(node), kind=None))
    return set_origin(wrapped, node)


def _ends_finally(block, jump):
    """True when `finally:` block `block` may end with a jump of this kind, or of a kind
    lowered after it (break and continue after return, continue after break): such a jump
    cancels the one pending from the `try` body. A jump of a kind lowered before it is a
    flag already; it leaves this kind's pending flag set, which is harmless, as that kind
    ends the same or a wider scope (a return ends every loop, a break the iteration)."""
    if any(jump.within(stmt) for stmt in block):
        return True
    later = tuple(_NODE_TYPES[kind] for kind in _ORDER[_ORDER.index(jump.kind) + 1:])
    return any(contains(stmt, lambda n: isinstance(n, later), not_loop_or_function)
               for stmt in block)


def not_loop_or_function(node: gast.AST) -> bool:
    """Descend into if/with/try, not into nested loops or functions (own their jumps)."""
    return isinstance(node, (gast.If, gast.With, gast.Try))
