"""What the lint knows about a module before any rule runs, read from its syntax alone.

`ModuleFacts` resolves import aliases (`import autograph.tf as tf`, `import tensorflow as
tf`, `from autograph import function`, ...) to canonical dotted names (`tf.function`,
`autograph.function`), counts the module-level bindings of each name, and finds the
functions that are converted: decorated with a converter (`@tf.function`,
`@tf.function(...)`, `@autograph.function`) or passed to one (`g = tf.function(f)`), and
the module-level functions those call (converted with them).
Each becomes a `ConvertedFunction`: its node, parameters, local names and the module facts.
"""

from __future__ import annotations

import builtins
import collections
from typing import Iterable

import gast

from autograph.pyct.analysis import activity

# Canonical names: TensorFlow's namespace is `tf`, whichever module provides it.
_CANONICAL_PREFIXES = (("autograph.tf", "tf"), ("tensorflow", "tf"))
CONVERTERS = frozenset({"tf.function", "autograph.function", "autograph.to_graph",
                        "tf.autograph.to_graph"})
NOT_CONVERTED = frozenset({"autograph.do_not_convert", "tf.autograph.experimental.do_not_convert"})
# Functions that run a Python callable on every call of the graph.
PYTHON_CALLBACKS = ("tf.py_function", "tf.numpy_function")
BUILTIN_NAMES = frozenset(dir(builtins))
_FUNCTION_NODES = (gast.FunctionDef, gast.AsyncFunctionDef)
_MATCH_CASE = getattr(gast, "match_case", ())  # older gast releases have no `match`
_SCOPE_NODES = _FUNCTION_NODES + (gast.Lambda, gast.ClassDef)


def canonical(dotted: str) -> str:
    """`dotted` with TensorFlow's module spelled `tf` (`autograph.tf.X`, `tensorflow.X`)."""
    for prefix, replacement in _CANONICAL_PREFIXES:
        if dotted == prefix or dotted.startswith(prefix + "."):
            return replacement + dotted[len(prefix):]
    return dotted


def text_of(node: gast.AST) -> str | None:
    """`a.b.c` for a Name or a chain of Attributes on one, else None."""
    if isinstance(node, gast.Name):
        return node.id
    if isinstance(node, gast.Attribute):
        base = text_of(node.value)
        return None if base is None else base + "." + node.attr
    return None


def root_name(node: gast.AST) -> str | None:
    """The name an expression of attributes and subscripts starts from (`a` in `a.b[0].c`)."""
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def statements_of(body):
    """The statements of `body` and of the blocks nested in them, not entering functions or
    classes."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, _SCOPE_NODES):
            continue
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(stmt, field, None) or []:
                if isinstance(child, (gast.ExceptHandler, _MATCH_CASE)):
                    yield from statements_of(child.body)
                else:
                    yield from statements_of([child])


class ModuleFacts:
    """Aliases, module-level bindings, parents and converted functions of one module."""

    def __init__(self, tree: gast.Module, path: str) -> None:
        self.tree = tree
        self.path = path
        self.parents: dict = {}
        for node in gast.walk(tree):
            for child in gast.iter_child_nodes(node):
                self.parents[child] = node
        self._memo: dict = {}
        self.aliases = self._aliases()
        self.imported = set(self.aliases) | self._imported_names()
        self.bindings = self._bindings()
        self.definitions = self._definitions()
        self.functions = self._converted()

    # -- names ---------------------------------------------------------------------------

    def _aliases(self) -> dict[str, str]:
        aliases = {}
        for node in gast.walk(self.tree):
            if isinstance(node, gast.Import):
                for alias in node.names:
                    if alias.asname:
                        aliases[alias.asname] = canonical(alias.name)
                    else:
                        first = alias.name.split(".")[0]
                        aliases[first] = canonical(first)
            elif isinstance(node, gast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    aliases[alias.asname or alias.name] = canonical(node.module + "." +
                                                                    alias.name)
        # A notebook cell or snippet that uses `tf` without importing it means TensorFlow.
        aliases.setdefault("tf", "tf")
        return aliases

    def _imported_names(self) -> set[str]:
        return {(alias.asname or alias.name).split(".")[0]
                for node in gast.walk(self.tree) if isinstance(node, gast.ImportFrom)
                for alias in node.names}

    def qualified(self, node: gast.AST) -> str | None:
        """The canonical dotted name of an expression such as `tf.function` (None when it
        does not start from an imported name)."""
        dotted = text_of(node)
        if dotted is None:
            return None
        first, _, rest = dotted.partition(".")
        if first not in self.aliases:
            return None
        return canonical(self.aliases[first] + ("." + rest if rest else ""))

    def is_call_of(self, node: gast.AST, *names: str) -> bool:
        """True when `node` is a call of one of the canonical `names` (`tf.Variable`)."""
        return isinstance(node, gast.Call) and self.qualified(node.func) in names

    def _bindings(self) -> dict[str, list]:
        """Module-level name -> the nodes that bind it by assignment (not def, class or
        import), including assignments in functions that declare it `global`."""
        found = collections.defaultdict(list)

        def record(statements, only=None):
            for stmt in statements:
                if isinstance(stmt, _SCOPE_NODES + (gast.Import, gast.ImportFrom)):
                    continue
                for node in stores_in(stmt):
                    if only is None or node.id in only:
                        found[node.id].append(node)

        record(statements_of(self.tree.body))
        for node in gast.walk(self.tree):
            if isinstance(node, _FUNCTION_NODES):
                declared = activity.declared_global(node) & _globals_of(node)
                if declared:
                    record(statements_of(node.body), declared)
        return found

    def _definitions(self) -> dict[str, list]:
        """Name -> every def of that name in the module (any depth), in source order."""
        found = collections.defaultdict(list)
        for node in gast.walk(self.tree):
            if isinstance(node, _FUNCTION_NODES):
                found[node.name].append(node)
        return found

    # -- converted functions ---------------------------------------------------------------

    def _converted(self) -> list[ConvertedFunction]:
        """The functions decorated with a converter or passed to one, in source order."""
        chosen: dict = {}
        self._call_names = collections.defaultdict(set)  # def -> {(name, scope)}
        for node in gast.walk(self.tree):
            if isinstance(node, _FUNCTION_NODES):
                for decorator in node.decorator_list:
                    call = decorator if isinstance(decorator, gast.Call) else None
                    target = call.func if call is not None else decorator
                    if self.qualified(target) in CONVERTERS:
                        chosen[node] = _has_signature(call)
                        self._call_names[node].add(
                            (node.name, self.enclosing(node, _FUNCTION_NODES)))
            elif isinstance(node, gast.Call) and self.qualified(node.func) in CONVERTERS \
                    and node.args and isinstance(node.args[0], gast.Name):
                definition = self._definition_before(node.args[0].id, node)
                if definition is not None:
                    chosen[definition] = chosen.get(definition) or _has_signature(node)
                    assign = self.parents.get(node)
                    if isinstance(assign, gast.Assign):
                        self._call_names[definition].update(
                            (t.id, self.enclosing(assign, _FUNCTION_NODES))
                            for t in assign.targets if isinstance(t, gast.Name))
        helpers = self._helpers(chosen)
        ordered = sorted(list(chosen) + helpers, key=lambda n: (n.lineno, n.col_offset))
        return [ConvertedFunction(n, self, chosen.get(n, False), self._call_names[n],
                                  called=n not in chosen) for n in ordered]

    def _helpers(self, converted: dict[gast.AST, bool]) -> list:
        """The module-level functions that the converted ones call (by name, directly or
        through each other): a Function converts them too, and runs them while tracing.
        Not those marked `do_not_convert`."""
        found, stack = [], list(converted)
        seen = set(converted)
        while stack:
            caller = stack.pop()
            for node in self.walk_traced(caller):
                if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)):
                    continue
                callee = next((d for d in self.definitions.get(node.func.id, [])
                               if self.enclosing(d, _FUNCTION_NODES + (gast.ClassDef,))
                               is None), None)
                if callee is None or callee in seen or any(
                        self.qualified(getattr(d, "func", d)) in NOT_CONVERTED
                        for d in callee.decorator_list):
                    continue
                seen.add(callee)
                found.append(callee)
                stack.append(callee)
        return found

    def _definition_before(self, name, call):
        """The def of `name` that a call at `call` most likely means: one bound in the
        call's function or a function around it (the module included), the last one above
        the call (else the first below it)."""
        scopes, scope = [], self.enclosing(call, _FUNCTION_NODES)
        while scope is not None:
            scopes.append(scope)
            scope = self.enclosing(scope, _FUNCTION_NODES)
        scopes.append(None)
        every = self.definitions.get(name, [])
        candidates = [d for d in every
                      if self.enclosing(d, _FUNCTION_NODES + (gast.ClassDef,)) in scopes] \
            or every
        above = [d for d in candidates if d.lineno <= call.lineno]
        if above:
            return above[-1]
        return candidates[0] if candidates else None

    def walk_traced(self, function_node):
        """The nodes of a function's body that run while it traces: all but the nested
        defs and lambdas it hands to `tf.py_function`/`tf.numpy_function`."""
        skipped = self.memo(("python callbacks", function_node),
                            lambda m: m._python_callbacks(function_node))
        stack = list(reversed(function_node.body))
        while stack:
            node = stack.pop()
            if node in skipped:
                continue
            yield node
            stack.extend(reversed(list(gast.iter_child_nodes(node))))

    def _python_callbacks(self, function_node):
        """The nested defs and lambdas the function passes to tf.py_function (or
        tf.numpy_function)."""
        passed, names = set(), set()
        for node in gast.walk(function_node):
            if self.is_call_of(node, *PYTHON_CALLBACKS):
                given = node.args[:1] + [k.value for k in node.keywords if k.arg == "func"]
                for value in given:
                    if isinstance(value, gast.Lambda):
                        passed.add(value)
                    elif isinstance(value, gast.Name):
                        names.add(value.id)
        if names:
            passed.update(n for n in gast.walk(function_node) if n is not function_node
                          and isinstance(n, _FUNCTION_NODES) and n.name in names)
        return passed

    def memo(self, key, compute):
        """`compute(self)`, computed once per module (for facts several rules or functions
        share)."""
        if key not in self._memo:
            self._memo[key] = compute(self)
        return self._memo[key]

    def calls_by_name(self) -> dict:
        """Name -> the calls `name(...)` in the module, in source order."""
        def index(module):
            found = collections.defaultdict(list)
            for node in gast.walk(module.tree):
                if isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
                    found[node.func.id].append(node)
            for calls in found.values():
                calls.sort(key=lambda c: (c.lineno, c.col_offset))
            return found
        return self.memo("calls_by_name", index)

    def enclosing(self, node, kinds):
        """The nearest ancestor of `node` that is one of `kinds` (None at module level)."""
        node = self.parents.get(node)
        while node is not None and not isinstance(node, kinds):
            node = self.parents.get(node)
        return node


def _has_signature(call: gast.Call) -> bool:
    return call is not None and any(k.arg == "input_signature" for k in call.keywords)


def _globals_of(function_node: gast.AST) -> set[str]:
    return {name for stmt in statements_of(function_node.body)
            if isinstance(stmt, gast.Global) for name in stmt.names}


def stores_in(stmt):
    """The Name nodes a statement binds itself (not the statements of its blocks, nor
    nested functions, lambdas, classes or comprehensions, whose names are their own)."""
    stack = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            yield node
        for child in gast.iter_child_nodes(node):
            if isinstance(child, gast.stmt) or isinstance(
                    child, _SCOPE_NODES + (gast.ListComp, gast.SetComp, gast.DictComp,
                                           gast.GeneratorExp)):
                continue
            if isinstance(child, gast.ExceptHandler):
                stack.extend(n for n in (child.type, child.name) if n is not None)
                continue
            stack.append(child)


class ConvertedFunction:
    """A function the lint checks: `node` (its def), `module` (the ModuleFacts),
    `params`, `local_names` (bound in it or in functions nested in it), `rebound` (names
    its own body assigns), `declared_global`,
    `tensor_params` (parameters an `input_signature` makes tensors) and `call_names` (the
    (name, scope) pairs the Function is called by: its own name when decorated, `g` for
    `g = tf.function(f)`, each with the function that binds it, None for the module)."""

    def __init__(self, node: gast.AST, module: ModuleFacts, has_signature: bool,
                 call_names: Iterable[tuple[str, gast.AST | None]] | None = None,
                 called: bool = False) -> None:
        self.node = node
        self.called = called
        self.call_names = frozenset(call_names or ())
        self.module = module
        self.name = node.name
        self.params = activity.parameter_names(node)
        self.declared_global = activity.declared_global(node)
        inner = set()
        for sub in gast.walk(node):
            if sub is not node and isinstance(sub, (gast.FunctionDef, gast.AsyncFunctionDef,
                                                    gast.Lambda)):
                inner |= set(activity.parameter_names(sub))
                inner |= activity.assigned_names(sub.body)
            elif isinstance(sub, gast.comprehension):
                inner |= activity.assigned_names(sub.target)
        self.rebound = activity.assigned_names(node.body) - self.declared_global
        self.local_names = (self.rebound | set(self.params) | inner) - self.declared_global
        self.is_method = isinstance(module.parents.get(node), gast.ClassDef)
        positional = [a.id for a in node.args.posonlyargs + node.args.args]
        if self.is_method and positional:
            positional = positional[1:]
        self.tensor_params = frozenset(positional if has_signature else ())

    def walk(self):
        """Every node of the function's body, nested functions and lambdas included, except
        those handed to `tf.py_function`/`tf.numpy_function`: they run as Python on every
        call, where print, `.numpy()` and Python state are right."""
        return self.module.walk_traced(self.node)

    def is_outer(self, name: str | None) -> bool:
        """True for a name this function does not bind: a global, a closure variable or a
        parameter's object (not an imported module or a builtin)."""
        if name is None or name in self.module.imported:
            return False
        if name in self.params:
            return not self.called and name not in self.rebound
        return name not in self.local_names

    def is_builtin(self, node: gast.AST, *names: str) -> bool:
        """True when `node` is the builtin `names` (a Name not rebound in the module or
        this function)."""
        return (isinstance(node, gast.Name) and node.id in names
                and node.id not in self.local_names and node.id not in self.module.bindings
                and node.id not in self.module.imported
                and node.id not in self.module.definitions)

    def ancestors(self, node):
        """The ancestors of `node` up to (not including) the function's def."""
        node = self.module.parents.get(node)
        while node is not None and node is not self.node:
            yield node
            node = self.module.parents.get(node)

    def is_parameter_name(self, node: gast.AST) -> bool:
        """True when `node` reads one of the function's parameters (not rebound in it)."""
        return isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) \
            and node.id in self.params

    def calls(self):
        """The calls of the Function in the module by one of `call_names`, where that name
        means it (in the scope that binds it, not where another binding hides it), outside
        its own body, in source order."""
        by_name = self.module.calls_by_name()
        inside = set(gast.walk(self.node))
        found = {c for name, scope in self.call_names for c in by_name.get(name, ())
                 if c not in inside and self._sees(c, name, scope)}
        return sorted(found, key=lambda c: (c.lineno, c.col_offset))

    def _sees(self, call: gast.Call, name: str, scope: gast.AST | None) -> bool:
        """True when `name` at `call` is the binding made in `scope` (None: the module)."""
        current = self.module.enclosing(call, _FUNCTION_NODES)
        while current is not scope:
            if current is None:
                return False  # the call is outside the scope that binds the name
            if name in activity.assigned_names(current.body) or \
                    name in activity.parameter_names(current):
                return False  # a binding in between hides it
            current = self.module.enclosing(current, _FUNCTION_NODES)
        return True

    def argument(self, call, param):
        """The expression `call` passes as parameter `param` (None when it is not passed by
        position or keyword)."""
        for keyword in call.keywords:
            if keyword.arg == param:
                return keyword.value
        positional = [a.id for a in self.node.args.posonlyargs + self.node.args.args]
        if self.is_method:
            positional = positional[1:]
        index = positional.index(param) if param in positional else None
        if index is not None and index < len(call.args) and not any(
                isinstance(a, gast.Starred) for a in call.args[:index + 1]):
            return call.args[index]
        return None
