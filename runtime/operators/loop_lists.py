"""Python lists that a loop on a tensor appends to, carried as TensorArrays.

    out = []
    for i in tf.range(n):          the compiler carries `out` as loop state (the analysis
        out.append(i * i)          counts `out.append(...)` as modifying `out`)
    tf.stack(out)

A loop variable holding a Python list of tensors (or an empty one) is traced as a
StagedList: a growing TensorArray that `append` writes to. What the first traced
iteration does with it decides how the loop carries it:
  * it appended tensors, and the variable still holds that list: carried as a TensorArray
    and left a StagedList after the loop (`tf.stack`, `len`, indexing, `for` work);
  * it appended other Python values (a trace-time log), or nothing: the StagedList turns
    into a stand-in for the Python list, passing appends and reads on to it, and the
    variable gets the list back after the loop (as if the loop did not carry it);
  * it assigned the variable another value: staging restarts with the list as an
    ordinary loop variable (before any While op is built).
"""

from typing import Any, Callable, Mapping, Sequence

from runtime.operators.staged_lists import StagedList
from runtime.operators.staging import describe, fail
from runtime.tensor import Tensor


class Restart(Exception):
    """Raised after the first traced iteration to stage the loop again with the lists at
    `indices` as they are."""

    def __init__(self, token: object, indices: list[int]) -> None:
        super().__init__("restart loop staging")
        self.token = token
        self.indices = indices


def list_check(token: object,
               origins: Mapping[Any, int]) -> Callable[[Sequence[Any], Sequence[Any]], None]:
    """The `check` deciding, after the first traced iteration, how each list is carried."""
    def check(values, body_out):
        restart = []
        for value, after in zip(values, body_out):
            origin = value._origin if isinstance(value, StagedList) else None
            if origin is None or origin not in origins or not origin.trial:
                continue
            if not (isinstance(after, StagedList) and after._origin is origin):
                restart.append(origins[origin])
            elif origin.unstageable and origin.appended:
                fail(TypeError, "%s is a list that a loop on a tensor appends both tensors "
                     "and other Python values (%r) to; a list grown in such a loop is staged "
                     "as a TensorArray and holds tensors of one dtype and shape only"
                     % (describe(origin.name),
                        [v for v in origin.values if not isinstance(v, Tensor)][:3]))
            elif origin.unstageable or not origin.appended:
                origin.python = True
        if restart:
            raise Restart(token, restart)
        for origin in origins:
            origin.trial = False
    return check
