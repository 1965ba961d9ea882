"""The `try` statements a trace is inside, and what may not be staged there.

An op staged into a graph runs later, when the graph runs, outside every `try` statement of
the traced Python code: the errors it raises then cannot be caught by an `except` clause, nor
swallowed by a `finally:` block that jumps (`return`, `break`, `continue`). Plain Python would
catch or swallow them, so staging such ops there is refused with an error naming the `try`:

  * in the body of a `try` with `except` clauses (`try_body`): control flow on a tensor, a
    tensor `assert`, and the run-time check of a read of a variable that may be unassigned;
    except where the handlers catch only StopIteration (`try: while ...: next(it)` /
    `except StopIteration:`), which no staged op raises: there, as in TensorFlow, a dataset
    iterator that ends inside the staged code raises OutOfRangeError when the graph runs,
    naming the line of `next`, where Python would run the handler;
  * in the body, handlers and `else:` of a `try` whose `finally:` block jumps (the region
    from `runtime.operators.try_statements.FinallyJumps` to the start of that block): a
    run-time check (that definedness check, or that of a range step of 0; the Python error
    it stands for would be swallowed by the jump), noted with `note_run_time_check`.

Running eagerly (no graph), or tracing a separate Function inside the `try`, is fine.
"""

import contextlib
import sys
import threading
from typing import Any, Callable, Iterator

from runtime import context, errors

_regions = threading.local()
_watchers = threading.local()  # the FinallyJumps being traced, innermost last


def watch_checks(watcher: Any) -> None:
    """Makes `watcher.note_check(what, advice, location)` see each run-time check staged
    from now until `unwatch_checks(watcher)` (see try_statements.FinallyJumps)."""
    stack = getattr(_watchers, "stack", None)
    if stack is None:
        stack = _watchers.stack = []
    stack.append(watcher)


def unwatch_checks(watcher: Any) -> None:
    _watchers.stack.remove(watcher)


def note_run_time_check(what: str, advice: str,
                        location: errors.SourceLocation | None) -> None:
    """Tells the `try` statements being traced whose `finally:` block jumps that a check
    which may raise when the graph runs is being staged: `what` says what may fail ("local
    variable 'e' may be unassigned"), `advice` how to avoid it, `location` where."""
    for watcher in getattr(_watchers, "stack", ()):
        watcher.note_check(what, advice, location)


def _stack():
    stack = getattr(_regions, "stack", None)
    if stack is None:
        stack = _regions.stack = []
    return stack


@contextlib.contextmanager
def try_body(where: str, caught: Callable[[], Any] | None = None) -> Iterator[None]:
    """Marks the body of a `try` with `except` clauses (`where` is its 'file:line');
    `caught()` gives the classes its handlers catch (a tuple, maybe nested), None: any."""
    graph = context.current_graph()
    stack = _stack()
    stack.append((where, graph.root if graph is not None else None, caught))
    try:
        yield
    finally:
        stack.pop()


def _flat_classes(caught):
    if isinstance(caught, tuple):
        return [cls for item in caught for cls in _flat_classes(item)]
    return [caught]


def _catches_only_stop_iteration(caught):
    """Whether the handlers given by `caught()` catch nothing but StopIteration (and its
    subclasses): no op of a graph raises that when it runs. (An iterator that ends raises
    OutOfRangeError, which they do not catch either.) Any doubt counts as 'no'."""
    if caught is None:
        return False
    try:
        classes = _flat_classes(caught())
    except Exception:  # noqa: BLE001 - a name the handler uses is unbound: Python fails later
        return False
    return all(isinstance(cls, type) and issubclass(cls, StopIteration) for cls in classes)


def _enclosing_try_body():
    """'file:line' of the innermost try body around the graph being built whose handlers
    could catch an error the graph raises when it runs, or None."""
    stack = getattr(_regions, "stack", None)
    if not stack:
        return None
    graph = context.current_graph()
    root = graph.root if graph is not None else None
    for where, try_root, caught in reversed(stack):
        if try_root is not None and try_root is root and \
                not _catches_only_stop_iteration(caught):
            return where
    return None


# the attribute staged_statement sets on the errors it marks
_STAGING_MARK = "_ag_raised_while_staging"


@contextlib.contextmanager
def staged_statement() -> Iterator[None]:
    """Marks an error leaving a statement while it is staged (a refusal, or an error met
    while tracing its branches or body) as one that a jump in a `finally:` block must not
    swallow (try_statements.FinallyJumps): whether Python would raise it depends on values
    known only when the graph runs, and the code after it was never traced, so swallowing
    it would leave made-up values behind."""
    try:
        yield
    except Exception as e:
        setattr(e, _STAGING_MARK, True)
        raise


def raised_while_staging(error: BaseException) -> bool:
    """Whether `error` left a statement that was being staged (see staged_statement)."""
    return getattr(error, _STAGING_MARK, False)


def staging_error_behind(error: BaseException) -> BaseException | None:
    """The refusal or staging error that `error`, which ended a trace, replaced while it
    propagated (a `finally:` block that ran on the way out failed in turn, on state the
    refused statement never set), or None. That error is the one to report: it says what
    cannot be staged; the later one is a consequence of it."""
    if isinstance(error, TryRefusal) or raised_while_staging(error):
        return None
    seen = set()
    cause = error.__context__
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        if isinstance(cause, TryRefusal) or raised_while_staging(cause):
            return cause
        cause = cause.__context__
    return None


class TryRefusal(NotImplementedError):
    """A refusal to stage something inside a `try`: no handler of that `try` may catch it,
    and no jump of its `finally:` block may swallow it (`reraise_refusal`)."""


def _fail(message):
    raise TryRefusal(errors.with_user_location(message, errors.user_location(4)))


def reraise_refusal() -> None:
    """Called first in each `except` clause of converted code: passes a TryRefusal on, so
    that the handler does not run in place of the code that was refused."""
    handled = sys.exc_info()[1]
    if isinstance(handled, TryRefusal):
        raise handled


def refuse_inside_try(what: str) -> None:
    """Raises NotImplementedError when `what` (control flow on a tensor, a tensor `assert`)
    would be staged into the graph of a trace that is inside a try body with `except`."""
    where = _enclosing_try_body()
    if where is not None:
        _fail("%s on a tensor cannot be staged inside the `try` at %s: errors raised when the "
              "graph runs cannot be caught by its `except` clauses. Move the tensor-dependent "
              "code out of the try, or the try out of the traced function" % (what, where))


def refuse_error_inside_try(what: str) -> None:
    """Raises TryRefusal when `what` ("a range step of 0"), an error that the graph raises
    when it runs, would be staged inside a try body whose `except` clauses could catch it."""
    where = _enclosing_try_body()
    if where is not None:
        _fail("%s raises when the graph runs, inside the `try` at %s, where its `except` "
              "clauses cannot catch it. Move it out of the try, or the try out of the traced "
              "function" % (what, where))


def refuse_check_inside_try(symbol_name: str) -> None:
    """Raises TryRefusal when the run-time check of a read of `symbol_name` (which may be
    unassigned) would be staged inside a try body whose `except` clauses could catch it."""
    where = _enclosing_try_body()
    if where is not None:
        _fail("'%s' may be unassigned here, depending on values known only when the graph "
              "runs, inside the `try` at %s: the error for reading it unassigned would be "
              "raised when the graph runs, where its `except` clauses cannot catch it. Assign "
              "'%s' on every path before the `try`" % (symbol_name, where, symbol_name))
