"""Names a Function reads from outside and calls back into itself: globals and closure
variables are read while tracing (the guide's "Depending on Python global and free
variables"), and recursion never stops tracing when its condition is a tensor."""

import gast

from autograph.lint.rule import rule
from autograph.lint.scope import (
    BUILTIN_NAMES,
    ConvertedFunction,
    ModuleFacts,
    statements_of,
    stores_in,
    text_of,
)
from autograph.pyct.analysis import activity

_FUNCTIONS = (gast.FunctionDef, gast.AsyncFunctionDef)


def _enclosing_bindings(fn, name):
    """The assignments to `name` in the scope the function reads it from: the nearest
    enclosing function that binds it, else the module (with `global` assignments)."""
    scope = fn.module.enclosing(fn.node, _FUNCTIONS)
    while scope is not None:
        if name in activity.assigned_names(scope.body) or \
                name in activity.parameter_names(scope):
            return [n for stmt in statements_of(scope.body)
                    if not isinstance(stmt, _FUNCTIONS + (gast.ClassDef,))
                    for n in stores_in(stmt) if n.id == name]
        scope = fn.module.enclosing(scope, _FUNCTIONS)
    return fn.module.bindings.get(name, [])


def _branch_path(module, node):
    """[(ancestor, the field, or handler, of it that holds `node`'s line of descent)], from
    the innermost ancestor out."""
    path, child = [], node
    parent = module.parents.get(child)
    while parent is not None:
        key = None
        for field, value in gast.iter_fields(parent):
            if value is child or (isinstance(value, list) and any(v is child for v in value)):
                key = child if isinstance(child, gast.ExceptHandler) else field
                break
        path.append((parent, key))
        child, parent = parent, module.parents.get(parent)
    return path


def _alternatives(module: ModuleFacts, first: gast.AST, second: gast.AST) -> bool:
    """True when at most one of two bindings runs: they are in different branches of an
    `if`, or one is in a `try` body and the other in one of its handlers (or in two
    handlers): `try: HAVE = True` / `except ImportError: HAVE = False`."""
    keys = dict((id(a), k) for a, k in _branch_path(module, first))
    for ancestor, key in _branch_path(module, second):
        if id(ancestor) in keys:
            other = keys[id(ancestor)]
            if other == key:
                return False
            if isinstance(ancestor, (gast.If, gast.IfExp)):
                return True
            if isinstance(ancestor, gast.Try):
                return isinstance(key, gast.ExceptHandler) or \
                    isinstance(other, gast.ExceptHandler)
            return False
    return False


def _loops_around(module, node):
    """The loops around `node` in its own function (or at module level)."""
    ancestor = module.parents.get(node)
    while ancestor is not None and not isinstance(ancestor, _FUNCTIONS):
        if isinstance(ancestor, (gast.For, gast.While, gast.AsyncFor)):
            yield ancestor
        ancestor = module.parents.get(ancestor)


def _reassigned(fn: ConvertedFunction, bindings: list[gast.AST]) -> bool:
    """True when the name may be bound again after the Function exists: a binding below
    its def (or in another function, or in a loop the def is not in: each iteration would
    rebind it) that is not the only one run, since its alternatives (other branch of an
    `if`, a `try` and its handler) never both run."""
    module = fn.module
    around_def = set(id(a) for a in _ancestors(module, fn.node))
    late = []
    for binding in bindings:
        if any(id(loop) not in around_def for loop in _loops_around(module, binding)):
            return True
        in_function = module.enclosing(binding, _FUNCTIONS) is not \
            module.enclosing(fn.node, _FUNCTIONS)
        if in_function or binding.lineno > fn.node.lineno:
            late.append(binding)
    return any(a is not b and not _alternatives(module, a, b)
               for b in late for a in bindings)


def _ancestors(module, node):
    ancestor = module.parents.get(node)
    while ancestor is not None:
        yield ancestor
        ancestor = module.parents.get(ancestor)


@rule("AG501", "reassigned-outer-name", "a read of a global or closure variable that is "
      "reassigned elsewhere")
def reassigned_outer_name(fn):
    """A Function reads globals and closure variables while it traces and bakes their
    values into the graph: when the name is assigned again later (`foo = 100`), the calls
    that reuse the trace still see the old value. Pass the value as an argument (a new
    value then traces again, or use a tensor), or keep it in a `tf.Variable` and
    `.assign` it. Names bound once (constants, functions, imports) are fine, and so are
    bindings before the def, alternatives (`try`/`except`, `if`/`else`) and a loop that
    makes a new Function per iteration."""
    seen = set()
    for node in fn.walk():
        if not (isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load)):
            continue
        name = node.id
        if name in seen or name in fn.local_names or name in fn.declared_global \
                or name in fn.module.imported:
            continue
        bindings = _enclosing_bindings(fn, name)
        if not bindings or not _reassigned(fn, bindings):
            continue
        seen.add(name)
        lines = sorted({b.lineno for b in bindings})
        yield (node, "`%s` is read while tracing, but is assigned again (line%s %s): "
                     "calls that reuse the trace keep the value it had then"
               % (name, "s" if len(lines) > 1 else "", ", ".join(str(n) for n in lines)),
               "pass %s as an argument, or keep it in a tf.Variable and .assign() it" % name)


def _calls(module, node, method_class):
    """(call node, callee def) for the calls in `node` of the module's own functions:
    plain names (module-level defs) and `self.name(...)` for methods of `method_class`."""
    for call in gast.walk(node):
        if not isinstance(call, gast.Call):
            continue
        func, callee = call.func, None
        if isinstance(func, gast.Name) and func.id not in BUILTIN_NAMES:
            callee = next((d for d in module.definitions.get(func.id, [])
                           if module.enclosing(d, _FUNCTIONS + (gast.ClassDef,)) is None),
                          None)
        elif isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) \
                and func.value.id == "self" and method_class is not None:
            callee = next((d for d in method_class.body
                           if isinstance(d, _FUNCTIONS) and d.name == func.attr), None)
        if callee is not None:
            yield call, callee


def _callees(module, function_node):
    """`_calls` of a def (methods: through `self`), computed once per def."""
    owner = module.parents.get(function_node)
    method_class = owner if isinstance(owner, gast.ClassDef) else None
    return module.memo(("callees", function_node),
                       lambda m: list(_calls(m, function_node, method_class)))


def _reaches(module, start, goal, limit=200):
    """True when the function `start` calls `goal`, directly or through the module's
    other functions."""
    stack = [start]
    visited: set[gast.AST] = set()
    while stack and len(visited) < limit:
        current = stack.pop()
        if current in visited:
            continue
        visited.add(current)
        for _, callee in _callees(module, current):
            if callee is goal:
                return True
            stack.append(callee)
    return False


@rule("AG601", "recursion", "a Function that calls itself")
def recursion(fn):
    """A Function that calls itself (directly or through other functions of the module)
    is traced again at each level: with a Python base case, every level is unrolled into
    the graph; with a tensor condition, tracing never stops (both branches of a staged
    `if` are traced). Write the recursion as a loop (`while` over a tensor condition, or
    `tf.while_loop`)."""
    if fn.called or fn.name in fn.local_names:
        return  # recursion of a helper over Python data is ordinary Python
    for call, callee in _callees(fn.module, fn.node):
        if callee is fn.node or _reaches(fn.module, callee, fn.node):
            how = "itself" if callee is fn.node else "itself through `%s`" % callee.name
            yield (call, "`%s` calls %s: each level is traced again (unrolled into the "
                         "graph), and a tensor condition never stops the tracing"
                   % (fn.name, how),
                   "write it as a loop (while over a tensor condition, or tf.while_loop)")


def _attribute_changes(fn, call, text):
    """Assignments to `text` (`simple_model.bias`) in the scope of `call`, below it."""
    scope = fn.module.enclosing(call, _FUNCTIONS)
    body = scope.body if scope is not None else fn.module.tree.body
    found: list[gast.AST] = []
    for stmt in statements_of(body):
        targets = stmt.targets if isinstance(stmt, gast.Assign) else \
            [stmt.target] if isinstance(stmt, (gast.AugAssign, gast.AnnAssign)) else []
        found.extend(stmt for t in targets if text_of(t) == text and stmt.lineno > call.lineno)
    return found


@rule("AG502", "changed-argument-attribute",
      "an attribute of an argument that the caller changes between calls")
def changed_argument_attribute(fn):
    """A Function keys its traces on the identity of a Python object argument, not on its
    attributes: after `model.bias += 5.0`, calling it with the same `model` reuses the
    trace, and the graph still holds the old `bias`. Found when a call in the file passes
    an object whose attribute the same scope assigns, and the Function reads that
    attribute. Keep such attributes in `tf.Variable`s (`model.bias.assign_add(5.0)`), or
    make a new Function after the change."""
    reported = set()
    for node in fn.walk():
        if not (isinstance(node, gast.Attribute) and isinstance(node.ctx, gast.Load)
                and fn.is_parameter_name(node.value) and node.value.id not in fn.rebound):
            continue
        param = node.value.id
        for call in fn.calls():
            passed = fn.argument(call, param)
            if not isinstance(passed, gast.Name):
                continue
            changes = _attribute_changes(fn, call, passed.id + "." + node.attr)
            key = (param, node.attr)
            if changes and key not in reported:
                reported.add(key)
                yield (node, "`%s.%s` is read while tracing, but line %d changes "
                             "`%s.%s` of the object passed here: calls with the same "
                             "object reuse the trace and its old value"
                       % (param, node.attr, changes[0].lineno, passed.id, node.attr),
                       "make %s.%s a tf.Variable and .assign() it, or create a new "
                       "Function after the change" % (passed.id, node.attr))
