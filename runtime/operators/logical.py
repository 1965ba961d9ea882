"""Lazy `and`, `or` and `not` that also work on tensors.

    a and b      ->  ag__.and_(lambda: a, lambda: b)
    not a        ->  ag__.not_(a)
    a < b <= c   ->  ag__.compare_chain(a, '<', lambda: b, '<=', lambda: c)
    c in t       ->  ag__.in_(c, t)          c not in t  ->  ag__.not_in(c, t)

On Python values they behave exactly like the Python operators (short-circuit, returning an
operand). On a symbolic tensor the right operand is staged in a cond, so it is only
computed when needed, as in Python.
"""

import operator
from typing import Any, Callable

from runtime.operators import cond_staging, staging, staging_log
from runtime.ops import common, math_ops, tensor_operators
from runtime.tensor import Tensor


def and_(left_fn: Callable[[], Any], right_fn: Callable[[], Any]) -> Any:
    """`left and right`, evaluating `right` only when needed."""
    return _and(staging.as_condition(left_fn()), right_fn, "and")


def _and(left, right_fn, construct):
    """`and_` once the left operand is a condition; `construct` names it in explain's
    report."""
    if staging_log.active is not None:
        with staging_log.active.statement(construct, left):
            return _run_and(left, right_fn)
    return _run_and(left, right_fn)


def _run_and(left, right_fn):
    if not staging.is_symbolic(left):
        return right_fn() if left else left
    return cond_staging.staged_cond(left, lambda: staging.as_condition(right_fn()), lambda: left,
                               "an `and` expression")


def or_(left_fn: Callable[[], Any], right_fn: Callable[[], Any]) -> Any:
    """`left or right`, evaluating `right` only when needed."""
    left = staging.as_condition(left_fn())
    if staging_log.active is not None:
        with staging_log.active.statement("or", left):
            return _run_or(left, right_fn)
    return _run_or(left, right_fn)


def _run_or(left, right_fn):
    if not staging.is_symbolic(left):
        return left if left else right_fn()
    return cond_staging.staged_cond(left, lambda: left, lambda: staging.as_condition(right_fn()),
                               "an `or` expression")


def not_(value: Any) -> Any:
    """`not value` (elementwise logical not for tensors)."""
    value = staging.as_condition(value)
    if staging.is_symbolic(value):
        return math_ops.logical_not(value)
    return not value


def in_(item: Any, container: Any) -> Any:
    """`item in container`; on a tensor `container`, a bool tensor telling whether any
    element equals `item` (Python's `in` would make a bool of it, which a symbolic tensor
    cannot be)."""
    if isinstance(container, Tensor) or hasattr(container, "_as_tensor"):
        return tensor_operators.contains(common.convert_to_tensor(container), item)
    return item in container


def not_in(item: Any, container: Any) -> Any:
    """`item not in container` (see `in_`)."""
    result = in_(item, container)
    if isinstance(result, Tensor):
        return math_ops.logical_not(result)
    return not result


_COMPARISONS = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne, "is": operator.is_, "is not": operator.is_not,
    "in": in_, "not in": not_in,
}


def compare_chain(left: Any, *steps: Any) -> Any:
    """`left op1 b op2 c ...`: `steps` alternates operator strings and functions returning
    the next operand. Each operand is computed once, and only while the comparisons so far
    hold (staged as a cond when one of them is a tensor)."""
    op, right_fn = steps[0], steps[1]
    right = right_fn()
    result = _COMPARISONS[op](left, right)
    if len(steps) == 2:
        return result
    return _and(staging.as_condition(result), lambda: compare_chain(right, *steps[2:]),
                "comparison chain")
