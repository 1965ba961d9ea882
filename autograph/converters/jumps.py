"""Shared machinery for lowering `break`, `continue` and `return` to flag variables.

A jump becomes an assignment to a flag; the statements after it in the same block, and
after the compound statement containing it up to the jump's target, run only while the
flag is unset:

    for x in xs:              for x in xs:                 (the loop also stops when
        if x > 0:                 if x > 0:                 break_ is set: see loops)
            break       ->            break_ = True
        y = x                     if not break_:
                                      y = x
"""

import gast

from autograph import templates
from autograph.converters.context import set_origin


def contains(node, is_jump, descend):
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


def lower_block(stmts, is_jump, replace_jump, descend, flag):
    """Returns `stmts` with jumps replaced and the statements after them guarded."""
    out = []
    for i, stmt in enumerate(stmts):
        if is_jump(stmt):
            out.extend(set_origin(replace_jump(stmt), stmt))
            return out  # anything after a jump in the same block never runs
        had_jump = contains(stmt, is_jump, descend)
        if descend(stmt):
            _lower_nested(stmt, is_jump, replace_jump, descend, flag)
        out.append(stmt)
        if had_jump:
            rest = lower_block(stmts[i + 1:], is_jump, replace_jump, descend, flag)
            if rest:
                guard = templates.replace("if not flag:\n    rest", flag=flag, rest=rest)
                out.extend(set_origin(guard, stmts[i + 1]))
            return out
    return out


def _lower_nested(node, is_jump, replace_jump, descend, flag):
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if isinstance(block, list) and block:
            new = lower_block(block, is_jump, replace_jump, descend, flag)
            setattr(node, field, new or [gast.Pass()])
    for handler in getattr(node, "handlers", None) or []:
        handler.body = lower_block(handler.body, is_jump, replace_jump, descend, flag) or [
            gast.Pass()]


def not_loop_or_function(node):
    """Descend into if/with/try, not into nested loops or functions (own their jumps)."""
    return isinstance(node, (gast.If, gast.With, gast.Try))
