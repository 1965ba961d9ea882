"""`try` statements whose `finally:` block jumps (`return`, `break` or `continue`).

    try:                          finally_ = ag__.FinallyJumps('file.py:3')
        g()                       with finally_:
    finally:                ->        try:
        return 0                          g()
                                      finally:
                                          pending_return, do_return = (
                                              finally_.enter_finally(do_return), False)
                                          retval_ = 0
                                          do_return = True
                                          do_return = finally_.resume(do_return,
                                                                      pending_return)

In Python such a jump replaces whatever was pending when the `finally:` block began: a
`return`, `break` or `continue` of the `try` body, or an exception in flight, which is
swallowed. The compiler lowers jumps to flags; this context manager does the swallowing.
From its start to the start of the `finally:` block, staging a run-time check whose error
Python would swallow is refused (see runtime.operators.try_regions).
"""

from runtime import errors
from runtime.operators import staging, try_regions
from runtime.ops import math_ops


class FinallyJumps:
    """Wraps a `try` statement (at 'file:line' `where`) whose `finally:` block may jump:
    an exception leaving the `try` is swallowed when that block jumped."""

    __slots__ = ("where", "jumped", "_region")  # _region: try_regions token while inside

    def __init__(self, where):
        self.where = where
        # One flag per kind of jump: each pass lowering a kind resumes it separately, maybe
        # inside a staged branch of another kind's guard, so they are never combined.
        self.jumped = []
        self._region = None

    def __enter__(self):
        self._region = try_regions.enter("finally", self.where)
        return self

    def enter_finally(self, pending):
        """Called first in the `finally:` block (once per kind of jump): errors raised from
        here on propagate in Python too. Returns `pending`, the body's jump flag."""
        try_regions.leave(self._region)
        return pending

    def resume(self, jumped, pending):
        """The flag of one kind of jump after the `finally:` block: set when the block
        jumped (`jumped`), which also swallows an exception in flight, or when the `try`
        body's jump is `pending`."""
        jumped = staging.as_condition(jumped)
        self.jumped.append(jumped)
        return _either(jumped, staging.as_condition(pending))

    def __exit__(self, exc_type, exc, tb):
        try_regions.leave(self._region)
        if exc is None or isinstance(exc, try_regions.TryRefusal):
            return False  # a refusal is never swallowed: the code after it was not traced
        if any(staging.is_symbolic(jumped) for jumped in self.jumped):
            raise NotImplementedError(errors.with_user_location(
                "the `finally:` block of the `try` at %s jumps (return, break or continue) "
                "depending on a tensor while an exception raised during tracing is in flight "
                "(%s: %s): whether that exception propagates cannot depend on a value known "
                "only when the graph runs. Make the jump's condition a Python value, or "
                "handle the exception with an `except` clause"
                % (self.where, type(exc).__name__, exc),
                errors.user_location(2))) from exc
        return any(bool(jumped) for jumped in self.jumped)


def _either(a, b):
    """`a or b` for flags that are Python bools or symbolic bool tensors."""
    if not staging.is_symbolic(a):
        return True if a else b
    if not staging.is_symbolic(b):
        return True if b else a
    return math_ops.logical_or(a, b)
