"""Python errors met while tracing a branch or loop body of staged control flow.

Plain Python raises such an error only if the program gets there at run time; tracing gets
there on every path, taken or not. So the error is raised while tracing as an instance of
`DeferredError` (as well as of the Python class it stands for, so that the user's own
`except` clauses traced around it still catch it, as Python would): when it leaves the
branch or body being traced, the staging operator catches it (staging.raising_at_run_time)
and calls `stage()`, which adds a check that always fails to that branch or body, and the
graph raises when it runs there. Raised outside staged control flow (where every call gets
there), it reaches the caller of the trace as the Python error it is.

Two kinds: reading a variable unassigned on that path (undefined.UndefinedRead, an
UnboundLocalError) and a range with a step of 0 (py_builtins.RangeStepError, a ValueError).
"""


class DeferredError(Exception):
    """An error met while tracing staged code, to be raised when that code runs."""

    def stage(self) -> None:
        """Adds the check that fails whenever the graph being built runs to this point."""
        raise NotImplementedError
