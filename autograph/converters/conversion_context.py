"""The one context object shared by the passes converting one function."""

from typing import Any, Iterable, Mapping

import gast

from autograph.pyct import traversal
from autograph.pyct.analysis import activity
from autograph.pyct.parsing import SourceInfo
from runtime import reserved_names


class Namer:
    """Fresh names that collide with nothing the user's function uses."""

    def __init__(self, used: Iterable[str]) -> None:
        self.used = set(used)
        self._stable: dict[str, str] = {}

    def new(self, base: str) -> str:
        """`base`, or `base_1`, `base_2`... whichever is still free; reserves it."""
        name = base
        count = 0
        while name in self.used:
            count += 1
            name = "%s_%d" % (base, count)
        self.used.add(name)
        return name

    def stable(self, base: str) -> str:
        """The same name every time for `base` (free of the user's names). For generated
        helpers that are defined right before their single use, so reuse is safe."""
        found = self._stable.get(base)
        if found is None:
            found = self._stable[base] = self.new(base)
        return found


class Environment:
    """What a parsed function is converted in, beyond its source: `namespace`, the names
    it reads from outside (None: unknown, e.g. a module the CLI converts), and `features`,
    the optional features enabled (a sorted tuple of names, see autograph.features)."""

    __slots__ = ("namespace", "features")

    def __init__(self, namespace: Mapping[str, Any] | None = None,
                 features: tuple[str, ...] = ()) -> None:
        self.namespace = namespace
        self.features = features


def attach_environment(function_node: gast.AST, namespace: Mapping[str, Any] | None = None,
                       features: tuple[str, ...] = ()) -> None:
    """Records the Environment for the Context made for `function_node`."""
    function_node._ag_environment = Environment(namespace, features)


class Context:
    """Per-function conversion state: names in use, source info, loop extra tests."""

    # (flag, value) names of a lowered return, set only by the returns pass when it lowers
    return_names: tuple[str, str]

    def __init__(self, function_node: gast.AST, source_info: SourceInfo,
                 original_name: str | None = None) -> None:
        self.function_node = function_node
        self.source_info = source_info
        # the name the user knows the function by (the function scope's name)
        self.original_name = function_node.name if original_name is None else original_name
        environment = getattr(function_node, "_ag_environment", None) or Environment()
        # The names the function reads from outside (its globals and closure), when known:
        # the directives pass looks its callees up there.
        self.namespace = environment.namespace
        self.features = environment.features
        used = set()
        for n in traversal.walk(function_node):
            if isinstance(n, gast.Name):
                used.add(n.id)
            elif isinstance(n, (gast.FunctionDef, gast.ClassDef)):
                used.add(n.name)
        self.namer = Namer(used | {reserved_names.NAMESPACE, reserved_names.FUNCTION_SCOPE})
        # id(loop node) -> [flag names that end the loop when true]
        self.loop_flags: dict[int, list[str]] = {}
        self.globals = activity.declared_global(function_node)
        # Taken before any pass: lowering jumps drops statements that can never run, but a
        # name they assign is still local to the function (reading it raises
        # UnboundLocalError, not NameError).
        self.original_locals = frozenset(activity.assigned_names(function_node.body))
        # the dataflow facts (pyct.analysis.dataflow.Annotations) once pipeline.analyse ran
        self.annotations: Any = None

    def add_loop_flag(self, loop: gast.AST, flag: str) -> None:
        """Records that `loop` must stop once `flag` is true (lowered break or return)."""
        self.loop_flags.setdefault(id(loop), []).append(flag)

    def location(self, node: gast.AST) -> str:
        """'file:line' of `node` in the user's source."""
        line = getattr(node, "lineno", 0) + self.source_info.line_offset
        return "%s:%d" % (self.source_info.filename, line)


# the attribute marking a node whose line is final: the user's, or one set_origin gave it
_ORIGIN_MARK = "_ag_origin"


def set_origin(nodes: Any, origin: gast.AST | None) -> Any:
    """Gives generated nodes (those without a line yet) the line of the statement they replace."""
    line = getattr(origin, "lineno", None)
    if line is None:
        return nodes
    # Nodes that already have a line (the user's, or generated ones placed earlier) keep it,
    # and so do their subtrees: passes place what they generate as they go, inside out.
    stack = list(nodes) if isinstance(nodes, list) else [nodes]
    while stack:
        sub = stack.pop()
        if getattr(sub, _ORIGIN_MARK, False):
            continue
        if "lineno" in getattr(sub, "_attributes", ()):
            sub.lineno = line
            sub.col_offset = getattr(origin, "col_offset", 0)
            sub.end_lineno = line
            sub.end_col_offset = getattr(origin, "end_col_offset", 0)
            setattr(sub, _ORIGIN_MARK, True)
        stack.extend(traversal.children(sub))
    return nodes


def mark_original(tree: gast.AST) -> gast.AST:
    """Marks every node of the user's tree as original (its line is the user's line)."""
    for node in traversal.walk(tree):
        if hasattr(node, "lineno"):
            setattr(node, _ORIGIN_MARK, True)
    return tree
