"""The `try` statements a trace is inside, and what may not be staged there.

An op staged into a graph runs later, when the graph runs, outside every `try` statement of
the traced Python code: the errors it raises then cannot be caught by an `except` clause, nor
swallowed by a `finally:` block that jumps (`return`, `break`, `continue`). Plain Python would
catch or swallow them, so staging such ops there is refused with an error naming the `try`:

  * in the body of a `try` with `except` clauses (`try_body`): control flow on a tensor, a
    tensor `assert`, and the run-time check of a read of a variable that may be unassigned;
  * in the body, handlers and `else:` of a `try` whose `finally:` block jumps (the region
    from `runtime.operators.try_statements.FinallyJumps` to the start of that block): that
    run-time check (the Python error it stands for would be swallowed by the jump).

Running eagerly (no graph), or tracing a separate Function inside the `try`, is fine.
"""

import contextlib
import sys
import threading

from runtime import context, errors

_regions = threading.local()


def _stack():
    stack = getattr(_regions, "stack", None)
    if stack is None:
        stack = _regions.stack = []
    return stack


@contextlib.contextmanager
def try_body(where):
    """Marks the body of a `try` with `except` clauses (`where` is its 'file:line')."""
    graph = context.current_graph()
    stack = _stack()
    stack.append((where, graph.root if graph is not None else None))
    try:
        yield
    finally:
        stack.pop()


def _enclosing_try_body():
    """'file:line' of the innermost try body around the graph being built, or None."""
    stack = getattr(_regions, "stack", None)
    if not stack:
        return None
    graph = context.current_graph()
    root = graph.root if graph is not None else None
    for where, try_root in reversed(stack):
        if try_root is not None and try_root is root:
            return where
    return None


class TryRefusal(NotImplementedError):
    """A refusal to stage something inside a `try`: no handler of that `try` may catch it,
    and no jump of its `finally:` block may swallow it (`reraise_refusal`)."""


def _fail(message):
    raise TryRefusal(errors.with_user_location(message, errors.user_location(4)))


def reraise_refusal():
    """Called first in each `except` clause of converted code: passes a TryRefusal on, so
    that the handler does not run in place of the code that was refused."""
    handled = sys.exc_info()[1]
    if isinstance(handled, TryRefusal):
        raise handled


def refuse_inside_try(what):
    """Raises NotImplementedError when `what` (control flow on a tensor, a tensor `assert`)
    would be staged into the graph of a trace that is inside a try body with `except`."""
    where = _enclosing_try_body()
    if where is not None:
        _fail("%s on a tensor cannot be staged inside the `try` at %s: errors raised when the "
              "graph runs cannot be caught by its `except` clauses. Move the tensor-dependent "
              "code out of the try, or the try out of the traced function" % (what, where))


def refuse_check_inside_try(symbol_name):
    """Raises TryRefusal when the run-time check of a read of `symbol_name` (which may be
    unassigned) would be staged inside a try body whose `except` clauses could catch it."""
    where = _enclosing_try_body()
    if where is not None:
        _fail("'%s' may be unassigned here, depending on values known only when the graph "
              "runs, inside the `try` at %s: the error for reading it unassigned would be "
              "raised when the graph runs, where its `except` clauses cannot catch it. Assign "
              "'%s' on every path before the `try`" % (symbol_name, where, symbol_name))
