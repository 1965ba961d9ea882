"""Composite names (`d['v']`, `s.total`) in the state of staged statements.

The state functions of a statement that modifies `d['v']` read and write it through
`maybe`:

    def get_state():                         def set_state(vars_):
        return (x, ag__.maybe(d)['v'])           nonlocal x
                                                 (x, ag__.maybe(d)['v']) = vars_

The key may be missing before the statement (Python creates it in one branch, or in the
first iteration). Reading it then gives a `Missing` marker instead of raising, and writing a
marker back leaves it missing (deleting what a traced branch created), so the user's object
never holds a marker. Staging refuses a composite that exists on only one path
(runtime.operators.staging), since no graph value can stand for "no such key".
"""

from collections.abc import Mapping
from typing import Any, NoReturn

from runtime import errors
from runtime.operators.undefined import Undefined

_MISSING_ERRORS = (KeyError, IndexError, AttributeError)


class Missing(Undefined):
    """A key, item or attribute that does not exist (yet)."""

    __slots__ = ()


class maybe:  # noqa: N801 (reads as a function in converted code)
    """`obj` seen through a lens: `maybe(obj)[k]` and `maybe(obj).a` read a missing key or
    attribute as `Missing`; assigning an Undefined marker (Missing, or a value the compiler
    found dead) deletes a missing key or attribute again and otherwise leaves it alone."""

    __slots__ = ("_obj",)

    def __init__(self, obj: Any) -> None:
        object.__setattr__(self, "_obj", obj)

    def __getitem__(self, key):
        obj = self._obj
        if isinstance(obj, Undefined):  # its base is missing, or dead
            return Missing("[%r]" % (key,))
        # A mapping is asked first: reading a defaultdict's missing key would create it.
        if isinstance(obj, Mapping) and key not in obj:
            return Missing("[%r]" % (key,))
        try:
            return obj[key]
        except _MISSING_ERRORS:
            return Missing("[%r]" % (key,))

    def __getattr__(self, name):
        if isinstance(self._obj, Undefined):
            return Missing("." + name)
        try:
            return getattr(self._obj, name)
        except AttributeError:
            return Missing("." + name)

    def __setitem__(self, key, value):
        if isinstance(self._obj, Undefined):
            return  # a base the statement rebinds and no one reads after it (a DeadValue)
        if not isinstance(value, Undefined):
            self._obj[key] = value
        elif isinstance(value, Missing):
            try:
                del self._obj[key]
            except _MISSING_ERRORS:
                pass

    def __setattr__(self, name, value):
        if isinstance(self._obj, Undefined):
            return
        if not isinstance(value, Undefined):
            setattr(self._obj, name, value)
        elif isinstance(value, Missing):
            try:
                delattr(self._obj, name)
            except AttributeError:
                pass


def refuse_composite(text: str, reason: str) -> NoReturn:
    """Refuses to stage a statement that modifies composite `text` which it cannot carry.

    Called by the statement's get_state, which only staging calls; the error names the line
    of the statement in the user's function (the frame calling the operator)."""
    raise ValueError(errors.with_user_location(
        "'%s' is modified inside a conditional or loop on a tensor, but cannot be carried "
        "through it: %s" % (text, reason), errors.user_location(3)))


def refuse_list_deletion(obj: Any, text: str) -> None:
    """Refuses to stage a statement that deletes item `text` of `obj` (`del l[0]`) when
    `obj` is not a mapping: deleting a list's item shifts the items after it, which restoring
    `text` for the other path cannot undo. Called by the statement's get_state."""
    if not isinstance(obj, (Mapping, Undefined)):
        raise ValueError(errors.with_user_location(
            "'%s' is deleted inside a conditional or loop on a tensor, but cannot be carried "
            "through it: deleting an item of a %s shifts the items after it. Delete it "
            "outside the statement" % (text, type(obj).__name__), errors.user_location(3)))
