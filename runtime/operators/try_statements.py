"""`try` statements whose `finally:` block jumps (`return`, `break` or `continue`).

    try:                          finally_ = ag__.FinallyJumps('file.py:3')
        g()                       with finally_:
    finally:                ->        try:
        return 0                          g()
                                      finally:
                                          finally_.begin_finally()
                                          pending_return, do_return = do_return, False
                                          retval_ = 0
                                          do_return = True
                                          do_return = finally_.resume(do_return,
                                                                      pending_return)

In Python such a jump replaces whatever was pending when the `finally:` block began: a
`return`, `break` or `continue` of the `try` body, or an exception in flight, which is
swallowed. The compiler lowers jumps to flags; this context manager does the swallowing.
A run-time check staged before the `finally:` block (a variable's definedness, a range's
step) could raise only when the graph runs, where no jump can swallow it: a block that jumps
after one is refused.
"""

from typing import Any

from runtime import errors
from runtime.operators import conditionals, staging, try_regions
from runtime.ops import math_ops


class FinallyJumps:
    """Wraps a `try` statement (at 'file:line' `where`) whose `finally:` block may jump:
    an exception leaving the `try` is swallowed when that block jumped."""

    __slots__ = ("where", "jumped", "checks", "in_finally")

    def __init__(self, where: str) -> None:
        self.where = where
        # One flag per kind of jump: each pass lowering a kind resumes it separately, maybe
        # inside a staged branch of another kind's guard, so they are never combined.
        self.jumped: list[Any] = []
        # Run-time checks staged before the `finally:` block (a variable's definedness, a
        # range's step): each may raise when the graph runs, which a jump in the block would
        # have to swallow.
        self.checks: list[tuple[str, str, errors.SourceLocation | None]] = []
        self.in_finally = False

    def __enter__(self):
        try_regions.watch_checks(self)
        return self

    def begin_finally(self) -> None:
        """Marks the start of the `finally:` block."""
        self.in_finally = True

    def note_check(self, what: str, advice: str,
                   location: errors.SourceLocation | None) -> None:
        """Notes a run-time check staged in the `try` (see try_regions.note_run_time_check)."""
        if not self.in_finally:
            self.checks.append((what, advice, location))

    def resume(self, jumped: Any, pending: Any) -> Any:
        """The flag of one kind of jump after the `finally:` block: set when the block
        jumped (`jumped`), which also swallows an exception in flight, or when the `try`
        body's jump is `pending`."""
        jumped = staging.as_condition(jumped)
        if self.checks and (staging.is_symbolic(jumped) or jumped):
            self._refuse_swallowing_checks()
        self.jumped.append(jumped)
        return _either(jumped, staging.as_condition(pending))

    def resume_value(self, returned: Any, value: Any, pending_value: Any) -> Any:
        """The return value after the `finally:` block: its own when the block returned
        (`returned`), else the value of the return pending from the `try` body (a return
        in the block that a later jump cancelled has overwritten `value`)."""
        if value is pending_value:
            return value
        returned = staging.as_condition(returned)
        if not staging.is_symbolic(returned):
            return value if returned else pending_value
        return conditionals.if_exp(returned, lambda: value, lambda: pending_value,
                                   "the return value")

    def _refuse_swallowing_checks(self):
        what, advice, _ = self.checks[0]
        raise try_regions.TryRefusal(errors.with_user_location(
            "the `finally:` block of the `try` at %s jumps (return, break or continue), "
            "which in Python swallows an error the `try` raises; but %s, and that error, "
            "raised by the graph, cannot be swallowed. %s, or move the jump out of the "
            "`finally:` block" % (self.where, what, advice), errors.user_location(3)))

    def __exit__(self, exc_type, exc, tb):
        try_regions.unwatch_checks(self)
        if exc is None or isinstance(exc, try_regions.TryRefusal) or \
                try_regions.raised_while_staging(exc):
            return False  # never swallowed: the code after it was not traced
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
