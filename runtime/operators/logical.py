"""Lazy `and`, `or` and `not` that also work on tensors.

    a and b      ->  ag__.and_(lambda: a, lambda: b)
    not a        ->  ag__.not_(a)

On Python values they behave exactly like the Python operators (short-circuit, returning an
operand). On a symbolic tensor the right operand is staged in a cond, so it is only
computed when needed, as in Python.
"""

from runtime.operators import staging
from runtime.ops import math_ops


def and_(left_fn, right_fn):
    """`left and right`, evaluating `right` only when needed."""
    left = staging.as_condition(left_fn())
    if not staging.is_symbolic(left):
        return right_fn() if left else left
    return staging.staged_cond(left, lambda: staging.as_condition(right_fn()), lambda: left, "and")


def or_(left_fn, right_fn):
    """`left or right`, evaluating `right` only when needed."""
    left = staging.as_condition(left_fn())
    if not staging.is_symbolic(left):
        return left if left else right_fn()
    return staging.staged_cond(left, lambda: left, lambda: staging.as_condition(right_fn()), "or")


def not_(value):
    """`not value` (elementwise logical not for tensors)."""
    value = staging.as_condition(value)
    if staging.is_symbolic(value):
        return math_ops.logical_not(value)
    return not value
