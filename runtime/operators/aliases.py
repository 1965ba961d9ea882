"""Lists and dicts that staged control flow would silently separate from their other names.

Staging merges a variable's values from the branches of an `if` (or from before a loop and
after an iteration) into one value built from the graph's outputs: a list or dict the
variable holds comes out as a new list or dict. Python's variable, though, names one of
the original objects, which another variable may name too:

    e = {'v': 1}
    d = {'v': 0}
    if n > 0:          # tensor n: after the statement `d` is a new dict, neither `e`
        d = e          #   nor the old one, so `d['v'] = 5` is never seen through `e`
    d['v'] = 5
    return e['v']

No graph value can stand for "the object `e` names on one path, another on the other".
So before merging, `refuse_shared_containers` looks for a list or dict of the state that
is also reachable, on one of the paths, from another variable of the user's function (or
from another state variable on the same path), and refuses naming both variables and the
statement's line. Containers built inside the branch or loop body have no other name, and
are merged as before.
"""

import sys
from types import FrameType
from typing import Any, Collection, Sequence

from runtime import errors, reserved_names
from runtime.operators.staging import is_compiler_symbol
from runtime.operators.undefined import MaybeUndefined, Undefined
from runtime.tensor import Tensor

_MUTABLE = (list, dict)
_SCAN_LIMIT = 10000  # objects visited while collecting a frame's reachable containers


def _containers(value, found=None):
    """The lists and dicts in `value` that merging would rebuild: `value` itself and those
    nested in it through lists, tuples and dicts."""
    found = [] if found is None else found
    if isinstance(value, _MUTABLE):
        found.append(value)
    if isinstance(value, (list, tuple)):
        for item in value:
            _containers(item, found)
    elif isinstance(value, dict):
        for item in value.values():
            _containers(item, found)
    return found


def _reachable(name, value, found, budget):
    """Records in `found` ({id: (text, object)}) the lists and dicts reachable from variable
    `name` holding `value`: through lists, tuples, dicts and one level of attributes."""
    stack = [(name, value, 0)]
    while stack and budget[0] > 0:
        text, obj, depth = stack.pop()
        budget[0] -= 1
        if isinstance(obj, (Tensor, str, bytes, int, float, bool)) or obj is None:
            continue
        if isinstance(obj, (Undefined, MaybeUndefined)):
            continue  # a variable unbound on some path: no object, and touching it raises
        if isinstance(obj, _MUTABLE):
            if id(obj) in found:
                continue
            found[id(obj)] = (text, obj)
        if depth >= 3:
            continue
        if isinstance(obj, (list, tuple)):
            stack.extend(("%s[%d]" % (text, i), item, depth + 1) for i, item in enumerate(obj))
        elif isinstance(obj, dict):
            stack.extend(("%s[%r]" % (text, k), item, depth + 1) for k, item in obj.items())
        elif depth == 0 and hasattr(obj, "__dict__") and not isinstance(obj, type):
            attributes = getattr(obj, "__dict__", None)
            if isinstance(attributes, dict):
                stack.extend(("%s.%s" % (text, k), item, depth + 1)
                             for k, item in attributes.items())


def _other_names(state_names):
    """{id: (text, object)} of the lists and dicts reachable from the variables of the
    converted function running the statement (its frames: the function and the generated
    functions of its statements), other than the statement's state."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and not frame.f_code.co_filename.startswith(
            reserved_names.FILE_PREFIX):
        frame = frame.f_back
    if frame is None:
        return {}
    owner = frame.f_code.co_filename
    skipped = set(state_names)
    found: dict[int, tuple[str, Any]] = {}
    budget = [_SCAN_LIMIT]
    while frame is not None:
        if frame.f_code.co_filename == owner:
            for name, value in frame.f_locals.items():
                if name in skipped or is_compiler_symbol(name) or name.startswith(
                        (reserved_names.NAMESPACE, reserved_names.CONVERTED_PREFIX)):
                    continue
                skipped.add(name)  # the same variable, seen again from an outer frame
                _reachable(name, value, found, budget)
        frame = frame.f_back
    return found


def refuse_shared_containers(names: Sequence[str],
                             paths: Sequence[tuple[str, Sequence[Any]]], what: str,
                             skip: Collection[str] = ()) -> None:
    """Refuses to merge state variables `names` whose lists or dicts, on one of `paths`
    ((description, one value per name) each), are also reachable from another variable
    (see the module docstring). `what`: 'a conditional on a tensor', 'a loop on a tensor';
    `skip`: names not merged (dead after the statement, or written back in place)."""
    checked = [i for i, name in enumerate(names)
               if name not in skip and not is_compiler_symbol(name) and
               not name.startswith("<")]
    if not any(_containers(values[i]) for _, values in paths for i in checked):
        return
    others = _other_names(names)
    for where, values in paths:
        seen: dict[int, str] = {}
        for i in checked:
            for obj in _containers(values[i]):
                other = others.get(id(obj))
                if other is not None and other[0] != names[i]:  # not `s.v`'s own path
                    _refuse(names[i], other[0], what, where)
                if seen.get(id(obj), names[i]) != names[i]:
                    _refuse(names[i], seen[id(obj)], what, where)
                seen[id(obj)] = names[i]


def _refuse(name, other, what, where):
    raise ValueError(errors.with_user_location(
        "'%s' and '%s' name the same %s %s of %s, but staging builds '%s' anew from the "
        "graph's values: a graph cannot make a variable name one object or another "
        "depending on a tensor, so a change through one name would not be seen through "
        "the other. Copy it (`%s = dict(%s)` or `list(...)`), or assign '%s' a new list "
        "or dict on every path"
        % (name, other, "list or dict", where, what, name, name, other, name),
        errors.user_location(1)))
