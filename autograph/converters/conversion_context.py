"""The one context object shared by the passes converting one function."""

import gast

from autograph.pyct import traversal
from autograph.pyct.analysis import activity
from runtime import reserved_names


class Namer:
    """Fresh names that collide with nothing the user's function uses."""

    def __init__(self, used):
        self.used = set(used)
        self._stable = {}

    def new(self, base):
        """`base`, or `base_1`, `base_2`... whichever is still free; reserves it."""
        name = base
        count = 0
        while name in self.used:
            count += 1
            name = "%s_%d" % (base, count)
        self.used.add(name)
        return name

    def stable(self, base):
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

    def __init__(self, namespace=None, features=()):
        self.namespace = namespace
        self.features = features


def attach_environment(function_node, namespace=None, features=()):
    """Records the Environment for the Context made for `function_node`."""
    function_node._ag_environment = Environment(namespace, features)


class Context:
    """Per-function conversion state: names in use, source info, loop extra tests."""

    def __init__(self, function_node, source_info, original_name=None):
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
        self.loop_flags = {}  # id(loop node) -> [flag names that end the loop when true]
        self.globals = activity.declared_global(function_node)
        # Taken before any pass: lowering jumps drops statements that can never run, but a
        # name they assign is still local to the function (reading it raises
        # UnboundLocalError, not NameError).
        self.original_locals = frozenset(activity.assigned_names(function_node.body))
        self.annotations = None

    def add_loop_flag(self, loop, flag):
        """Records that `loop` must stop once `flag` is true (lowered break or return)."""
        self.loop_flags.setdefault(id(loop), []).append(flag)

    def location(self, node):
        """'file:line' of `node` in the user's source."""
        line = getattr(node, "lineno", 0) + self.source_info.line_offset
        return "%s:%d" % (self.source_info.filename, line)


# the attribute marking a node whose line is final: the user's, or one set_origin gave it
_ORIGIN_MARK = "_ag_origin"


def set_origin(nodes, origin):
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


def mark_original(tree):
    """Marks every node of the user's tree as original (its line is the user's line)."""
    for node in traversal.walk(tree):
        if hasattr(node, "lineno"):
            setattr(node, _ORIGIN_MARK, True)
    return tree
