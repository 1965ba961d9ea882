"""Names read and assigned by a subtree.

Assignments are counted in the scope being analysed only: the bodies of nested functions,
lambdas, classes and comprehensions bind their own names, so only the name a nested `def`
or `class` binds counts. Reads include free variables read by nested functions and lambdas,
since those read the enclosing scope's value.
"""

import gast

from autograph.pyct import traversal
from autograph.pyct.qual_names import QualifiedName
from runtime import reserved_names

_SCOPE_NODES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef,
                gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


def assigned_names(node):
    """Names bound by `node` (a statement, list of statements or expression) in this scope."""
    found: set[str] = set()
    for child in _iter_nodes(node):
        _collect_assigned(child, found)
    return found


def _iter_nodes(node):
    if isinstance(node, list):
        for item in node:
            yield from _iter_nodes(item)
        return
    yield node


# The node classes _collect_assigned looks at (and their subclasses); it only walks past the
# others, which are most nodes: class -> whether it is one, found once per class.
_BINDING_NODES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda,
                  gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp, gast.Name,
                  gast.alias, gast.ExceptHandler, gast.NamedExpr)
_binds: dict[type, bool] = {}


def _collect_assigned(node, found):
    binds = _binds.get(type(node))
    if binds is None:
        binds = _binds[type(node)] = issubclass(type(node), _BINDING_NODES)
    if not binds:
        for child in traversal.children(node):
            _collect_assigned(child, found)
        return
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
        found.add(node.name)
        return
    if isinstance(node, (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp,
                         gast.GeneratorExp)):
        return
    if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
        found.add(node.id)
    elif isinstance(node, gast.alias):
        found.add((node.asname or node.name).split(".")[0])
    elif isinstance(node, gast.ExceptHandler) and node.name is not None:
        if isinstance(node.name, gast.Name):
            found.add(node.name.id)
    elif isinstance(node, gast.NamedExpr):
        found.add(node.target.id)
    for child in traversal.children(node):
        _collect_assigned(child, found)


def appended_names(node):
    """Names `x` of the calls `x.append(...)` in `node`, in this scope (the method is
    looked up as `x.append`).

    Appending changes a list without assigning its name; a loop on a tensor that appends to
    a list must still carry it (staged as a TensorArray, see runtime.operators.staging)."""
    found: set[str] = set()
    for child in _iter_nodes(node):
        _collect_appended(child, found)
    return found


def _collect_appended(node, found):
    if isinstance(node, _SCOPE_NODES):
        return
    # `x.append`, called (`x.append(v)`, or `converted_call(x.append, ...)` once the
    # expression pass has rewritten the call) or kept to be called later.
    if isinstance(node, gast.Attribute) and node.attr == "append" and \
            isinstance(node.value, gast.Name):
        found.add(node.value.id)
    for child in traversal.children(node):
        _collect_appended(child, found)


# Methods that change a list, dict or set in place. `append` is one too, but a loop on a
# tensor stages a list it appends to as a TensorArray (see appended_names).
MUTATING_METHODS = frozenset([
    "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update",
    "setdefault", "popitem", "add", "discard", "difference_update", "intersection_update",
    "symmetric_difference_update", "__setitem__", "__delitem__"])


def mutating_calls(node):
    """The calls `x.m(...)` in `node`, in this scope, of a method `m` that changes a
    container in place (MUTATING_METHODS), as the set of their QualifiedNames `x.m`."""
    found: set[QualifiedName] = set()
    for child in _iter_nodes(node):
        _collect_mutating(child, found)
    return found


def _collect_mutating(node, found):
    if isinstance(node, _SCOPE_NODES):
        return
    if isinstance(node, gast.Attribute) and node.attr in MUTATING_METHODS and \
            isinstance(node.value, gast.Name) and isinstance(node.ctx, gast.Load):
        found.add(QualifiedName(node.value.id).attribute(node.attr))
    for child in traversal.children(node):
        _collect_mutating(child, found)


def deleted_names(node):
    """Names `node` deletes (`del x`) in this scope."""
    found: set[str] = set()
    for child in _iter_nodes(node):
        _collect_deleted(child, found)
    return found


def _collect_deleted(node, found):
    if isinstance(node, _SCOPE_NODES):
        return
    if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Del):
        found.add(node.id)
    for child in traversal.children(node):
        _collect_deleted(child, found)


def read_names(node):
    """Names loaded anywhere in `node`, including free variables of nested functions.

    The target of an augmented assignment (`x += 1`) and of `del x` counts as read (`del`
    needs the value to exist)."""
    found = set()
    for child in _iter_nodes(node):
        for sub in traversal.walk(child):
            if isinstance(sub, gast.Name) and isinstance(sub.ctx, (gast.Load, gast.Del)):
                found.add(sub.id)
            elif isinstance(sub, gast.AugAssign) and isinstance(sub.target, gast.Name):
                found.add(sub.target.id)
    return found


_MATCH_CAPTURES = tuple(getattr(gast, n) for n in ("MatchAs", "MatchStar") if hasattr(gast, n))
_MATCH_MAPPING = tuple(getattr(gast, n) for n in ("MatchMapping",) if hasattr(gast, n))
_FRESH_VALUES = (gast.Dict, gast.List, gast.Set, gast.DictComp, gast.ListComp, gast.SetComp)


def fresh_object_names(function_node):
    """The names whose every binding in the function's own scope gives them an object the
    function makes there: a list, dict or set display or comprehension, or the result of a
    call of a plain name (`Box()`, `dict(...)`, `SimpleNamespace()`). Any other binding (a
    parameter, `y = other`, `y = self.cache`, a loop target, unpacking, a method's result,
    `global`) may give an object that outlives the call, so such a name is not listed."""
    fresh_targets: set[int] = set()  # ids of the Name nodes bound to a fresh object
    stores: list = []
    for child in _iter_nodes(function_node.body):
        _collect_stores(child, fresh_targets, stores)
    fresh: set[str] = set()
    other = set(parameter_names(function_node)) | declared_global(function_node)
    for name in stores:
        (fresh if id(name) in fresh_targets else other).add(name.id)
    return fresh - other


def _makes_an_object(value):
    if isinstance(value, _FRESH_VALUES):
        return True
    if not isinstance(value, gast.Call):
        return False
    func = value.func
    if isinstance(func, gast.Attribute) and func.attr == "converted_call" and \
            isinstance(func.value, gast.Name) and func.value.id == reserved_names.NAMESPACE and \
            value.args:
        func = value.args[0]  # a call the calls converter rewrote: what it calls
    return isinstance(func, gast.Name)


def _collect_stores(node, fresh_targets, stores):
    if isinstance(node, _SCOPE_NODES):  # a def or class binds its name; the rest is its own
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            stores.append(gast.Name(node.name, gast.Store(), None, None))
        return
    if isinstance(node, (gast.Assign, gast.AnnAssign, gast.NamedExpr)) and \
            _makes_an_object(node.value):
        targets = node.targets if isinstance(node, gast.Assign) else [node.target]
        fresh_targets.update(id(t) for t in targets if isinstance(t, gast.Name))
    if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
        stores.append(node)
    elif isinstance(node, gast.alias):
        stores.append(gast.Name((node.asname or node.name).split(".")[0], gast.Store(),
                                None, None))
    else:  # a match pattern's capture: `case [x, *rest]`, `case {**rest}`
        captured = getattr(node, "rest", None) if isinstance(node, _MATCH_MAPPING) else \
            getattr(node, "name", None) if isinstance(node, _MATCH_CAPTURES) else None
        if isinstance(captured, str):
            stores.append(gast.Name(captured, gast.Store(), None, None))
    for child in traversal.children(node):
        _collect_stores(child, fresh_targets, stores)


def declared_global(function_node):
    """Names the function declares `global` (or `nonlocal`) in its own scope (a nested
    function's declarations are about that function's names only)."""
    names: set[str] = set()
    for child in _iter_nodes(function_node.body):  # a lambda's body is one expression
        _collect_declared(child, names)
    return names


def _collect_declared(node, found):
    if isinstance(node, _SCOPE_NODES):
        return
    if isinstance(node, (gast.Global, gast.Nonlocal)):
        found.update(node.names)
    for child in traversal.children(node):
        _collect_declared(child, found)


def parameter_names(function_node):
    """The function's parameter names (including *args and **kwargs)."""
    args = function_node.args
    names = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]
    if args.vararg is not None:
        names.append(args.vararg.id)
    if args.kwarg is not None:
        names.append(args.kwarg.id)
    return names
