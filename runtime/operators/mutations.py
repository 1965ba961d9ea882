"""Lists, dicts and sets that staged control flow changes in place with their methods.

    items = [1, 2, 3]              ag__.if_stmt(x > 0, if_body, None, get_state, set_state,
    if x > 0:              ->                   ('items',), mutated=('items.pop',))
        items.pop()

Tracing runs both branches of an `if` on a tensor, so `items.pop()` must not change the
user's list: each branch changes a copy of its own (`branch_copies`), the copies are merged
like any state, and the merged contents are written back into the user's object
(`write_back`), which keeps its identity. A loop body already runs on a container rebuilt
from the loop's tensors; the loop's result is written back the same way.

A graph value has one structure on every path, so a method that leaves the container with
another length or other keys on one path (`pop`, `insert`, `clear`, a new key of `update`,
a new member of `add`) is refused, naming the container, the call and the statement's line
(`refuse_changed_shape`); methods that keep it (`reverse`, `sort`, `update` of an existing
key, `__setitem__`) are staged and give Python's answer.
"""

from typing import Any, Iterable, Mapping, Sequence

from runtime import errors, nest
from runtime.operators.undefined import MaybeUndefined, Undefined

_CONTAINERS = (list, dict, set)
_GROWING_HINT = (" (a list that grows in a loop on a tensor is staged as a TensorArray; "
                 "tf.TensorArray works anywhere)")


def calls_by_name(mutated: Iterable[str]) -> dict[str, list[str]]:
    """{container name: ['name.method()', ...]} from the `mutated` keyword's 'name.method'
    texts."""
    found: dict[str, list[str]] = {}
    for text in mutated:
        found.setdefault(text.rsplit(".", 1)[0], []).append(text + "()")
    return found


def branch_copies(names: Sequence[str], values: Sequence[Any],
                  calls: Mapping[str, list[str]]) -> tuple[Any, ...]:
    """`values` with the containers named in `calls` replaced by shallow copies, so that a
    branch being traced changes its own."""
    return tuple(_copy(v) if name in calls else v for name, v in zip(names, values))


def _copy(value):
    return type(value)(value) if type(value) in _CONTAINERS else value


def _shape(value):
    """What must agree between two paths: the set itself (a set is carried as a Python
    value), or the structure of a list or dict (its length, its keys)."""
    if isinstance(value, set):
        return ("set", frozenset(value))
    return nest.structure_signature(value)


def refuse_changed_shape(name: str, before: Any, after: Any,
                         calls: Mapping[str, list[str]], where: str,
                         sides: tuple[str, str]) -> None:
    """Refuses a container `name` changed in place (by `calls`) that `before` and `after`
    (its values on two paths, `sides` naming them) leave with different lengths or keys.
    `where` is 'a conditional on a tensor' or 'a loop on a tensor'."""
    if name not in calls or type(before) not in _CONTAINERS or \
            type(after) is not type(before) or _shape(before) == _shape(after):
        return
    kind = type(before).__name__
    what = {"list": "length", "dict": "keys", "set": "members"}[kind]
    raise ValueError(errors.with_user_location(
        "'%s' is changed in place by %s inside %s, and its %s differ%s: %s %s, %s %s. A "
        "graph carries one structure on every path: call it outside the statement, or keep "
        "the %s's %s the same on every path%s"
        % (name, " and ".join(calls[name]), where, what, "s" if kind == "list" else "",
           _shown(before), sides[0], _shown(after), sides[1], kind, what,
           _GROWING_HINT if kind == "list" else ""),
        errors.user_location(1)))


def refuse_sets_in_loop(names: Sequence[str], values: Sequence[Any],
                        calls: Mapping[str, list[str]]) -> None:
    """Refuses a set among the state `values` of a loop on a tensor that the body changes
    in place (by `calls`): a loop carries tensors, and a set's members are Python values
    that its iterations would choose."""
    for name, value in zip(names, values):
        if name in calls and isinstance(value, set):
            raise ValueError(errors.with_user_location(
                "'%s' is changed in place by %s inside a loop on a tensor, but it is a set, "
                "which a loop on a tensor cannot carry (its members would depend on the "
                "number of iterations): change it outside the loop, or keep the values in "
                "a tensor" % (name, " and ".join(calls[name])), errors.user_location(1)))


def _shown(value):
    if isinstance(value, dict):
        return sorted(value, key=repr)
    if isinstance(value, set):
        return sorted(value, key=repr)
    return "%d item%s" % (len(value), "" if len(value) == 1 else "s")


def write_back(names: Sequence[str], originals: Sequence[Any], merged: Sequence[Any],
               calls: Mapping[str, list[str]]) -> tuple[Any, ...]:
    """The state after the statement, with each container named in `calls` written into
    its object from before the statement (which keeps its identity) instead of replaced by
    the merged copy."""
    out = list(merged)
    for i, (name, original, value) in enumerate(zip(names, originals, merged)):
        if name not in calls or type(original) not in _CONTAINERS or value is original or \
                isinstance(value, (Undefined, MaybeUndefined)) or \
                type(value) is not type(original):
            continue
        if isinstance(original, list):
            original[:] = value
        else:
            original.clear()
            original.update(value)
        out[i] = original
    return tuple(out)


def refuse_outer_mutation(receiver: Any, call: str) -> None:
    """Refuses to stage a statement that calls `call` ('items.pop'), changing in place a
    list, dict or set `receiver` of another scope (a global, a closure value), which the
    statement cannot carry: both branches would change it while tracing. Other receivers
    (a module: `np.add`) pass. Called by the statement's get_state."""
    if isinstance(receiver, _CONTAINERS):
        name = call.rsplit(".", 1)[0]
        raise ValueError(errors.with_user_location(
            "'%s' is modified inside a conditional or loop on a tensor, but cannot be "
            "carried through it: %s() changes it in place, and it is not a variable of this "
            "function (a global or a closure value). Copy it into a local variable first, "
            "or change it outside the statement" % (name, call), errors.user_location(2)))
