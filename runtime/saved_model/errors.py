"""The two errors of saved models: one for a folder that cannot be loaded, one for an object
that cannot be saved. Both are ValueErrors."""

from __future__ import annotations


class SavedModelError(ValueError):
    """A saved-model folder that cannot be loaded: missing, truncated, corrupt, edited so that
    it no longer matches its checksums, or written in a newer format. `path` names the file
    and `problem` says what is wrong with it."""

    def __init__(self, path: str, problem: str) -> None:
        super().__init__("cannot load the saved model: %s: %s" % (path, problem))
        self.path = path
        self.problem = problem


class NotSaveableError(ValueError):
    """An object or graph that a saved model cannot hold (a py_function, a Python iterator,
    a function that was never traced...); the message names the op and the user's line."""
