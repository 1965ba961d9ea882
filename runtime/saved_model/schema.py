"""The saved-model format: its name and version, the files of a folder, their JSON spelling
(sorted keys, indented, so that a person can read and diff them) and the checks a loader
makes on what it reads (documented in docs/saved_model.md).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, NoReturn

from runtime.saved_model.errors import SavedModelError

FORMAT_NAME = "autograph-saved-model"
# The format version this runtime writes and the newest it reads; a change that an older
# loader would misread increments it.
FORMAT_VERSION = 1

MANIFEST = "saved_model.json"
GRAPHS = "graphs.json"
CONSTANTS = "constants.npz"
VARIABLES = "variables.npz"
DATA_FILES = (GRAPHS, CONSTANTS, VARIABLES)
# The most bytes each data file may hold: the JSON's parsed form takes several times its
# size in memory; the arrays are read as they are (see values.ArrayStore).
SIZE_LIMITS = {GRAPHS: 1 << 26, CONSTANTS: 1 << 34, VARIABLES: 1 << 34}
# The deepest nesting of lists and objects graphs.json may have (a nested If or While takes
# about six levels).
MAX_JSON_DEPTH = 200


_WIDTH = 100


def dumps(data: Any) -> bytes:
    """The JSON text of `data` as written to a saved model: sorted keys, one item per line
    indented by nesting, except that a list or object whose text fits the line stays on it."""
    return (_format(data, 0) + "\n").encode("utf-8")


def _format(value: Any, indent: int) -> str:
    compact = json.dumps(value, sort_keys=True, allow_nan=False, ensure_ascii=False,
                         separators=(", ", ": "))
    if not isinstance(value, (list, dict)) or not value or len(compact) + indent <= _WIDTH:
        return compact
    pad = " " * (indent + 1)
    if isinstance(value, list):
        items = [pad + _format(v, indent + 1) for v in value]
        return "[\n%s\n%s]" % (",\n".join(items), " " * indent)
    items = [pad + json.dumps(k, ensure_ascii=False) + ": " + _format(value[k], indent + 1)
             for k in sorted(value)]
    return "{\n%s\n%s}" % (",\n".join(items), " " * indent)


def digest(content: bytes) -> str:
    """The SHA-256 of a file's content, as the manifest records it."""
    return hashlib.sha256(content).hexdigest()


def _no_constants(name: str) -> NoReturn:
    raise ValueError("%s is not valid JSON" % name)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError("duplicate key %r" % key)
        result[key] = value
    return result


def loads(content: bytes, path: str) -> Any:
    """Parses a saved JSON file strictly (UTF-8, no NaN, no duplicate keys, lists and objects
    nested at most MAX_JSON_DEPTH deep)."""
    try:
        data = json.loads(content.decode("utf-8"), parse_constant=_no_constants,
                          object_pairs_hook=_no_duplicates)
    except (UnicodeDecodeError, ValueError) as e:
        raise SavedModelError(path, "not valid JSON (%s)" % e) from None
    except RecursionError:
        data = _TOO_DEEP
    if data is _TOO_DEEP or _too_deep(data):
        raise SavedModelError(path, "lists and objects nested more than %d deep (a saved "
                                    "model nests far less)" % MAX_JSON_DEPTH)
    return data


_TOO_DEEP = object()


def _too_deep(data: Any) -> bool:
    """True when `data` nests lists and objects deeper than MAX_JSON_DEPTH (walked without
    recursion)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (list, dict)):
            if depth > MAX_JSON_DEPTH:
                return True
            items = value.values() if isinstance(value, dict) else value
            stack.extend((item, depth + 1) for item in items
                         if isinstance(item, (list, dict)))
    return False


class Reader:
    """Reads fields of a parsed JSON file, raising SavedModelError (naming the file and the
    field) when a field is missing or of the wrong type."""

    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, where: str, problem: str) -> NoReturn:
        """Raises the SavedModelError for `where` (a field path) in this file."""
        raise SavedModelError(self.path, "%s: %s" % (where, problem) if where else problem)

    def obj(self, value: Any, where: str, keys: tuple[str, ...] = (),
            optional: tuple[str, ...] = ()) -> dict[str, Any]:
        """`value` as a dict holding `keys` (and perhaps `optional` ones), nothing else."""
        if not isinstance(value, dict):
            self.fail(where, "expected an object, found %s" % _kind(value))
        if keys or optional:
            missing = [k for k in keys if k not in value]
            if missing:
                self.fail(where, "missing field %r" % missing[0])
            extra = sorted(set(value) - set(keys) - set(optional))
            if extra:
                self.fail(where, "unexpected field %r" % extra[0])
        return value

    def seq(self, value: Any, where: str) -> list[Any]:
        """`value` as a list."""
        if not isinstance(value, list):
            self.fail(where, "expected a list, found %s" % _kind(value))
        return value

    def text(self, value: Any, where: str) -> str:
        """`value` as a str."""
        if not isinstance(value, str):
            self.fail(where, "expected a string, found %s" % _kind(value))
        return value

    def integer(self, value: Any, where: str, minimum: int = 0) -> int:
        """`value` as an int (not a bool) of at least `minimum`."""
        if type(value) is not int:
            self.fail(where, "expected an integer, found %s" % _kind(value))
        if value < minimum:
            self.fail(where, "expected an integer >= %d, found %d" % (minimum, value))
        return value

    def flag(self, value: Any, where: str) -> bool:
        """`value` as a bool."""
        if type(value) is not bool:
            self.fail(where, "expected true or false, found %s" % _kind(value))
        return value


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean",
             int: "an integer", float: "a number", type(None): "null"}
    return "%s (%s)" % (names.get(type(value), type(value).__name__), _short(value))


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."
