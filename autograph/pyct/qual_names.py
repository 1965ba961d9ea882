"""Qualified names: a variable (`x`) or a composite reached from one by attribute and item
steps (`s.total`, `d['v']`, `a.b[k]`), as one typed value.

The analysis finds the composites a statement modifies; the control-flow converter carries
them as state, reads and writes them in generated code, and names them in error messages.
All of that goes through a `QualifiedName`: its `text` is what the user wrote (and what
messages and the generated name tuples show), `ast()` builds the expression that reaches it,
and `base()` / `root` / `attribute(name)` walk it; nothing parses a name back from its text
(a key such as `d['a.b']` holds a dot that is no attribute step).

    name = from_node(<the gast tree of `d['v'].total`>)
    name.text           # "d['v'].total"
    name.root           # 'd'
    name.base().text    # "d['v']"
    name.ast()          # a new gast tree of `d['v'].total` (a load, no source position)
"""

from __future__ import annotations

import ast
import functools
from typing import Iterable, Optional, Union

import gast

from autograph.pyct import traversal

# The nodes a key may be made of to name a composite: names, constants and arithmetic on
# them (`0`, `'v'`, `k`, `i + 1`, `-1`, `(0, 1)`, `1:3`).
_KEY_NODES = (gast.Constant, gast.Name, gast.UnaryOp, gast.BinOp, gast.Tuple, gast.Slice,
              gast.Load, gast.unaryop, gast.operator)


class Attribute:
    """An attribute step: `.name`."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    @property
    def text(self) -> str:
        """The step as written: `.name`."""
        return "." + self.name

    def _key(self) -> tuple:
        return (".", self.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Attribute) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return "Attribute(%r)" % self.name


class Item:
    """An item step: `[key]`, with the key as written, whether it reads no names (a
    constant, or arithmetic on constants), whether it is a slice, and its expression."""

    __slots__ = ("key", "constant", "is_slice", "_node")

    def __init__(self, key: str, constant: bool, is_slice: bool, node: gast.AST) -> None:
        self.key = key
        self.constant = constant
        self.is_slice = is_slice
        self._node = node  # a private copy without positions, copied again for each use

    @property
    def text(self) -> str:
        """The step as written: `[key]`."""
        return "[%s]" % self.key

    def key_node(self) -> gast.AST:
        """A new gast tree of the key."""
        return _bare_copy(self._node)

    def _key(self) -> tuple:
        return ("[]", self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Item) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return "Item(%r)" % self.key


Step = Union[Attribute, Item]


@functools.total_ordering
class QualifiedName:
    """A variable, or a composite of one (see the module docstring). Equal names have equal
    texts; names order by their text (the order of the tuples that generated code shows)."""

    __slots__ = ("root", "steps", "names", "text", "_hash")

    def __init__(self, root: str, steps: tuple[Step, ...] = (),
                 names: Optional[frozenset[str]] = None) -> None:
        self.root = root
        self.steps = steps
        # The variables the name reads: its root and those its keys read.
        self.names: frozenset[str] = frozenset([root]) if names is None else names
        self.text = root + "".join(step.text for step in steps)
        self._hash = hash(self.text)

    def is_composite(self) -> bool:
        """True for `a.b` and `a[k]`, False for a plain variable `a`."""
        return bool(self.steps)

    def base(self) -> Optional[QualifiedName]:
        """The name without its last step (`d['v']` of `d['v'].total`); None for a variable."""
        if not self.steps:
            return None
        return QualifiedName(self.root, self.steps[:-1], self.names)

    def attribute(self, name: str) -> QualifiedName:
        """This name followed by attribute step `.name` (`items.pop` of `items`)."""
        return QualifiedName(self.root, self.steps + (Attribute(name),), self.names)

    @property
    def last(self) -> Optional[Step]:
        """The last step, or None for a variable."""
        return self.steps[-1] if self.steps else None

    def has_slice_key(self) -> bool:
        """True when some item step's key is a slice (`l[1:3]`)."""
        return any(isinstance(step, Item) and step.is_slice for step in self.steps)

    def may_reach(self, other: QualifiedName) -> bool:
        """True when one name may be a prefix of the other (a read of one reads the other):
        item keys that are not both constants may be equal."""
        if self.root != other.root:
            return False
        return all(_may_be_same_step(a, b) for a, b in zip(self.steps, other.steps))

    def may_prefix(self, other: QualifiedName) -> bool:
        """True when this name may be a prefix of (or equal to) `other`."""
        return len(self.steps) <= len(other.steps) and self.may_reach(other)

    def ast(self) -> gast.expr:
        """A new gast expression reaching the name (loads, without source positions)."""
        node: gast.expr = gast.Name(id=self.root, ctx=gast.Load(), annotation=None,
                                    type_comment=None)
        for step in self.steps:
            if isinstance(step, Attribute):
                node = gast.Attribute(value=node, attr=step.name, ctx=gast.Load())
            else:
                node = gast.Subscript(value=node, slice=step.key_node(), ctx=gast.Load())
        return node

    def __eq__(self, other: object) -> bool:
        return isinstance(other, QualifiedName) and other.text == self.text

    def __lt__(self, other: QualifiedName) -> bool:
        return self.text < other.text

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return "QualifiedName(%r)" % self.text


def _may_be_same_step(a: Step, b: Step) -> bool:
    if a == b:
        return True
    if isinstance(a, Item) and isinstance(b, Item):
        return not (a.constant and b.constant)  # keys that are not both constants may be equal
    return False


def from_node(node: gast.AST) -> Optional[QualifiedName]:
    """The QualifiedName of a Name / Attribute / Subscript chain whose keys are made of names
    and constants only (see key_is_plain), else None."""
    if isinstance(node, gast.Name):
        return QualifiedName(node.id)
    if not isinstance(node, (gast.Attribute, gast.Subscript)):
        return None
    base = from_node(node.value)
    if base is None:
        return None
    if isinstance(node, gast.Attribute):
        return QualifiedName(base.root, base.steps + (Attribute(node.attr),), base.names)
    key = node.slice
    if not key_is_plain(key):
        return None
    key_names = frozenset(sub.id for sub in traversal.walk(key) if isinstance(sub, gast.Name))
    step = Item(_key_text(key), not key_names, isinstance(key, gast.Slice), _bare_copy(key))
    return QualifiedName(base.root, base.steps + (step,), base.names | key_names)


def key_is_plain(node: gast.AST) -> bool:
    """True for keys made of names and constants only (`0`, `'v'`, `k`, `i + 1`, `1:3`)."""
    return all(isinstance(sub, _KEY_NODES) for sub in traversal.walk(node))


def _key_text(node: gast.AST) -> str:
    if isinstance(node, gast.Constant):
        return repr(node.value)
    if isinstance(node, gast.Name):
        return node.id
    return ast.unparse(gast.gast_to_ast(node))


def _bare_copy(node: gast.AST) -> gast.AST:
    """A copy of the gast tree `node` with its fields only: no source positions and none of
    the marks passes leave on nodes (a copy is new code, placed where it is used)."""
    fields = {}
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, gast.AST):
            value = _bare_copy(value)
        elif isinstance(value, list):
            value = [_bare_copy(v) if isinstance(v, gast.AST) else v for v in value]
        fields[name] = value
    return type(node)(**fields)


def names(texts: Iterable[str]) -> tuple[QualifiedName, ...]:
    """The variables named `texts`, as QualifiedNames (plain names: no steps)."""
    return tuple(QualifiedName(text) for text in texts)
