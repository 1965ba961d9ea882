"""`assert` statements: plain Python on Python values, a run-time check on tensors.

    assert x > 0, 'x must be positive'  ->  ag__.assert_stmt(x > 0, lambda: 'x must be positive')

TensorFlow leaves `assert` unconverted; here a failing check on a symbolic tensor raises,
when the graph runs, an error that is both an AssertionError (as plain Python raises) and a
tf.errors.InvalidArgumentError (as TensorFlow's assert ops raise).
"""

from typing import Any, Callable

from runtime import errors
from runtime.operators import staging
from runtime.ops import io_ops


def assert_stmt(expression: Any, message_fn: Callable[[], Any] | None = None) -> None:
    """Checks `expression` now (Python values) or every time the graph runs (tensors)."""
    expression = staging.as_condition(expression)
    if not staging.is_symbolic(expression):
        if not expression:
            raise AssertionError(message_fn() if message_fn is not None else "")
        return
    staging.refuse_inside_try("an assert")
    message = message_fn() if message_fn is not None else "assertion failed"
    io_ops.assert_that(expression, [], str(message), error_class=errors.AssertionFailedError)
