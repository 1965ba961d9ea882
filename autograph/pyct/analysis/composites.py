"""Composite names (`a.b`, `a.b.c`, `a[k]`, `a.b[k]`) that control-flow statements modify.

A staged statement that assigns `d['v']` or `s.total` must carry it as state, like a
variable: otherwise both branches of a staged `if` write it while tracing and the last one
wins, whatever the condition says. This module finds, for every If, While and For:
  * the composites the statement modifies (assigns, deletes or augments) and may carry:
    those whose keys are constants or names the statement does not assign, and whose base
    the statement does not rebind (`s = S(); s.v = 1` makes `s` the state, not `s.v`);
  * the composites it modifies but cannot carry (a key that the statement assigns, as
    `d[i]` in a loop over `i`, or a key that is not a plain expression of names and
    constants), with the reason: staging such a statement is refused at trace time;
  * which of them are live: read after the statement, at the top of a loop iteration, or
    by the other branch (see below).

Liveness is by full path, over *dead* sets: a backward pass finds the composites certainly
overwritten or dropped before any read (`del d[k]` reads: the item must exist). A read of
`a` itself (passing it to a call, returning it, calling a method of it) reads every
composite under it; a read of `a.b` reads
`a.b.c` too; keys that are not both constants may be equal; rebinding `a` makes its old
composites live again. Only the items of a local container (`local_items`: a dict, list or
set made in the function that cannot escape it or get a second name) can be dead: any other
object may be read through another name, or by the caller once the function returns, so a
composite of it that a statement modifies is always carried.
"""

import ast

import gast

from autograph.pyct import qual_names, traversal
from autograph.pyct.analysis import activity
from autograph.pyct.qual_names import QualifiedName
from runtime import reserved_names

_NESTED_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)


def _text(node: gast.AST) -> str:
    """`node` as the user wrote it: calls the expressions pass turned into
    `ag__.converted_call(f, args, kwargs, fscope)` read as `f(*args, **kwargs)` again."""
    return ast.unparse(_AsWritten().visit(gast.gast_to_ast(node)))


class _AsWritten(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
                func.value.id == reserved_names.NAMESPACE and func.attr == "converted_call" and \
                len(node.args) >= 2 and isinstance(node.args[1], ast.Tuple):
            keywords = []
            kwargs = node.args[2] if len(node.args) > 2 else None
            if isinstance(kwargs, ast.Dict):
                keywords = [ast.keyword(arg=k.value if isinstance(k, ast.Constant) and
                                        isinstance(k.value, str) else None, value=v)
                            for k, v in zip(kwargs.keys, kwargs.values)]
            return ast.Call(func=node.args[0], args=node.args[1].elts, keywords=keywords)
        return node


path_of = qual_names.from_node


# -- the effects of straight-line code -----------------------------------------------------------


class _Effects:
    """What a simple statement (or an expression) does to composites, for the backward pass."""

    def __init__(self):
        self.reads = []    # paths whose whole value is read (and what lies under them)
        self.steps = []    # paths read only to reach a step under them
        self.kills = []    # composites overwritten or deleted
        self.rebinds = set()

    def apply(self, dead):
        """The dead set before the code, from the one after it."""
        dead = set(dead) | set(self.kills)
        dead = {p for p in dead if not (p.names & self.rebinds)}
        dead = {p for p in dead if not any(r.may_reach(p) for r in self.reads)}
        dead = {p for p in dead if not any(p.may_prefix(s) for s in self.steps)}
        return frozenset(dead)


def effects(node):
    """The _Effects of `node` (statements or expressions; nested functions count as reads of
    every name they mention)."""
    found = _Effects()
    for item in node if isinstance(node, list) else [node]:
        _collect(item, found)
    return found


def _collect(node, found):
    if node is None:
        return
    if isinstance(node, _NESTED_SCOPES):
        if not isinstance(node, gast.ClassDef):
            for default in node.args.defaults + node.args.kw_defaults:
                _collect(default, found)
        for sub in traversal.walk(node):
            if isinstance(sub, gast.Name) and sub is not node:
                found.reads.append(QualifiedName(sub.id))
        found.rebinds.add(node.name)
        return
    if isinstance(node, gast.Name):
        if isinstance(node.ctx, gast.Load):
            found.reads.append(path_of(node))
        elif isinstance(node.ctx, (gast.Store, gast.Del)):
            found.rebinds.add(node.id)
        return
    if isinstance(node, gast.Call):
        _collect_receiver(node, found)
    if isinstance(node, gast.AugAssign):
        _collect_target_read(node.target, found)
    if isinstance(node, (gast.Attribute, gast.Subscript)):
        _collect_access(node, found)
        return
    for child in traversal.children(node):
        _collect(child, found)


def _collect_receiver(call, found):
    """A method call (`s.update()`, or `converted_call(s.update, ...)` once converted) reads
    the whole receiver `s`."""
    callee = call.func
    if isinstance(callee, gast.Attribute) and callee.attr == "converted_call" and call.args:
        callee = call.args[0]
    if isinstance(callee, gast.Attribute):
        receiver = path_of(callee.value)
        if receiver is not None:
            found.reads.append(receiver)


def _collect_target_read(target, found):
    path = path_of(target)
    if path is not None and path.is_composite():
        found.reads.append(path)


def _collect_access(node, found):
    path = path_of(node)
    if isinstance(node, gast.Subscript):
        _collect(node.slice, found)
    if path is None:
        _collect(node.value, found)  # read as a whole: conservative
        return
    if isinstance(node.ctx, (gast.Load, gast.Del)):  # `del d[k]` needs the item to exist
        found.reads.append(path)
        return
    found.kills.append(path)
    found.steps.append(path.base())


# -- modified composites of one statement ------------------------------------------------------


def modified(statement, plain_modified, defined_in=frozenset(), local=frozenset()):
    """The composites `statement` modifies: ({QualifiedName: None} of those it may carry,
    {text: (QualifiedName or None, reason)} of those it cannot carry). `plain_modified`: the
    names it assigns; `defined_in`: the names certainly defined before it; `local`: the function's
    own names (a method changing `a.b` in place makes it modified when `a` is one: `tf.sparse`
    is a module, `tf.sparse.add` no change)."""
    writes: list[QualifiedName] = []
    unsupported: list[tuple[str, str]] = []
    targets = statement.body + statement.orelse
    if isinstance(statement, gast.For):
        targets = [statement.target] + targets
    for node in targets:
        _collect_writes(node, writes, unsupported)
    for receiver in mutating_receivers(statement).values():
        if receiver.root in local and receiver not in writes:
            writes.append(receiver)
    carried: dict[QualifiedName, None] = {}
    refused: dict[str, tuple[QualifiedName | None, str]] = {}
    for path in writes:
        if path.root in plain_modified and not _restores_rebound_root(statement, path,
                                                                      defined_in):
            continue  # the base is rebound: the base is the state
        changing = sorted((path.names - {path.root}) & set(plain_modified))
        if path.has_slice_key():
            refused[path.text] = (path, "its key is a slice, and assigning a slice may "
                                        "change the length of a list (the items after it "
                                        "cannot be restored for the other path)")
        elif changing:
            refused[path.text] = (path, "its key changes inside the statement (%s is "
                                        "assigned in it)" % ", ".join(changing))
        else:
            carried[path] = None
    for text, root in unsupported:
        if root not in plain_modified:
            refused.setdefault(text, (None, "its key is not made of constants and variables "
                                            "only"))
    # `s.a = A(); s.a.b = 1`: the composite whose base is itself modified is not state;
    # but an `if` carries it too (see _restores_rebound_root).
    for path in list(carried) if not isinstance(statement, gast.If) else ():
        if any(other.root == path.root and len(other.steps) < len(path.steps) and
               other.steps == path.steps[:len(other.steps)] for other in carried):
            del carried[path]
    return carried, refused


def deleted_items(statement):
    """The composites `statement` deletes with a key that may index a list (`del l[0]`,
    `del d[k]`; not `del d['a']`), as {item: its container}."""
    found = {}
    for node in traversal.walk(gast.Module(body=statement.body + statement.orelse,
                                      type_ignores=[])):
        if isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Del) and \
                not (isinstance(node.slice, gast.Constant) and
                     isinstance(node.slice.value, str)):
            path = path_of(node)
            if path is not None:
                found[path] = path.base()
    return found


def mutating_calls(statement):
    """The names `a.b.m` of the calls in `statement` (not in nested functions) of methods
    changing composite `a.b` in place (see mutated_receiver)."""
    return set(mutating_receivers(statement))


def mutating_receivers(statement):
    """{`a.b.m`: `a.b`} for the calls of mutating_calls."""
    found = {}
    stack = list(statement.body + statement.orelse)
    while stack:
        node = stack.pop()
        if isinstance(node, _NESTED_SCOPES):
            continue
        receiver = mutated_receiver(node)
        if receiver is not None:
            found[receiver.attribute(node.attr)] = receiver
        stack.extend(traversal.children(node))
    return found


def _restores_rebound_root(statement, path, defined_in):
    """True for `d['a']` of an `if` that also rebinds `d` (`d['a'] = 1; d = {}`): carried
    with `d`, so that the other branch starts from the item of the object `d` held before
    the statement, which the first branch traced may have changed in place. (Loop bodies
    are traced on a rebuilt value of `d`; a `d` undefined before has no item to restore.)
    Likewise `d['x'][1]` with `d['x']`, below."""
    return isinstance(statement, gast.If) and path.root in defined_in


def _collect_writes(node, writes, unsupported):
    if isinstance(node, _NESTED_SCOPES):
        return
    if isinstance(node, (gast.Attribute, gast.Subscript)) and \
            isinstance(node.ctx, (gast.Store, gast.Del)):
        path = path_of(node)
        if path is not None:
            if path not in writes:
                writes.append(path)
        else:
            base = node.value
            while isinstance(base, (gast.Attribute, gast.Subscript)):
                base = base.value
            if isinstance(base, gast.Name):  # not `f().x = 1`: an object we cannot name
                unsupported.append((_text(node), base.id))
    for child in traversal.children(node):
        _collect_writes(child, writes, unsupported)


# -- the backward pass ----------------------------------------------------------------------------


class Liveness:
    """Dead sets before and after every control-flow statement of one function.

    `dead_out[id(node)]`: composites certainly overwritten after the statement before any
    read; `dead_in[id(node)]`: the same at its start (for loops, at the top of an
    iteration)."""

    def __init__(self, at_exit=frozenset()):
        self.dead_out = {}
        self.dead_in = {}
        self.at_exit = frozenset(at_exit)  # dead where the function ends (see local_items)
        self._effects = {}  # id(node) -> _Effects: loops visit their bodies repeatedly

    def effects(self, node):
        """`effects(node)`, computed once per node."""
        found = self._effects.get(id(node))
        if found is None:
            found = self._effects[id(node)] = effects(node)
        return found

    def run(self, function_node):
        self.block(function_node.body, self.at_exit)
        return self

    def block(self, stmts, dead):
        for stmt in reversed(stmts):
            dead = self.stmt(stmt, dead)
        return dead

    def stmt(self, node, dead):
        if isinstance(node, gast.If):
            self.dead_out[id(node)] = dead
            inside = self.block(node.body, dead) & self.block(node.orelse, dead)
            self.dead_in[id(node)] = self.effects(node.test).apply(inside)
            return self.dead_in[id(node)]
        if isinstance(node, (gast.While, gast.For)):
            return self._loop(node, dead)
        if isinstance(node, (gast.Return, gast.Raise)):
            return self.effects(node).apply(self.at_exit)
        if isinstance(node, (gast.With, gast.AsyncWith)):
            return self.effects(node.items).apply(self.block(node.body, dead))
        if isinstance(node, gast.Try):
            after = self.block(node.finalbody, dead)
            self.block(node.body + node.orelse, after)
            for handler in node.handlers:
                self.block(handler.body, after)
            return frozenset()  # exceptions leave the body anywhere: keep all live
        if isinstance(getattr(node, "body", None), list) and \
                not isinstance(node, _NESTED_SCOPES):
            return frozenset()  # another compound statement: its kills are not certain
        return self.effects(node).apply(dead)

    def _loop(self, node, dead):
        self.dead_out[id(node)] = dead
        exit_ = self.block(node.orelse, dead)
        if isinstance(node, gast.While):
            head, enter = self.effects(node.test), _Effects()
        else:
            head, enter = _Effects(), self.effects(node.target)
        top = head.apply(exit_)
        while True:
            body = enter.apply(self.block(node.body, top))
            new_top = head.apply(exit_ & body)
            if new_top == top:
                break
            top = new_top
        self.dead_in[id(node)] = top
        if isinstance(node, gast.For):
            return self.effects(node.iter).apply(top)
        return top


# -- objects that cannot outlive the function ------------------------------------------------


_FRESH_CALLS = frozenset(["dict", "list", "set"])
_SAFE_METHODS = frozenset(["get", "pop", "popitem", "update", "clear", "setdefault", "append",
                           "extend", "insert", "remove", "index", "count", "copy", "add",
                           "discard"])


def writes_composites(function_node):
    """True when the function's own code assigns or deletes some `a.b` or `a[k]`, or
    changes one in place with a method (`a.b.pop()`)."""
    return any(isinstance(node, (gast.Attribute, gast.Subscript)) and
               isinstance(node.ctx, (gast.Store, gast.Del)) or
               mutated_receiver(node) is not None for node in _own_nodes(function_node))


def mutated_receiver(node):
    """The QualifiedName of composite `a.b` when `node` is `a.b.m`, a method changing a container in
    place (activity.MUTATING_METHODS), else None."""
    if isinstance(node, gast.Attribute) and node.attr in activity.MUTATING_METHODS and \
            isinstance(node.ctx, gast.Load):
        path = path_of(node.value)
        if path is not None and path.is_composite():
            return path
    return None


def local_items(function_node, excluded):
    """The written composites `r[k]` / `r.a` (one step) of local containers `r`: names always
    bound to a new dict, list or set (a display, a comprehension, `dict(...)`) and used only
    to reach their items, with non-aliasing methods (`r.get(k)`, not `r.values()`), with
    `len(r)` or `k in r`. Such an object dies with the function, so its items are dead where
    it ends. `excluded`: names that are never local (parameters, globals, names read by
    nested functions)."""
    nodes = list(_own_nodes(function_node))
    bindings, escaped = _local_uses(nodes)
    local = {name for name, fresh in bindings.items() if fresh} - escaped - set(excluded)
    found = set()
    for node in nodes:
        if isinstance(node, (gast.Attribute, gast.Subscript)) and \
                isinstance(node.ctx, (gast.Store, gast.Del)):
            path = path_of(node)
            if path is not None and len(path.steps) == 1 and path.root in local:
                found.add(path)
    return frozenset(found)


def _own_nodes(function_node):
    """The nodes of the function's own scope (not of nested functions and classes)."""
    stack = list(function_node.body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _NESTED_SCOPES):
            stack.extend(traversal.children(node))


def _is_fresh(value):
    if isinstance(value, (gast.Dict, gast.List, gast.Set, gast.DictComp, gast.ListComp,
                          gast.SetComp)):
        return True
    return isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and \
        value.func.id in _FRESH_CALLS


def _local_uses(nodes):
    """({name: True if every binding makes a new container}, {names used in a way that may
    let their object escape or get another name}), from the function's own `nodes`."""
    bindings, escaped, allowed = {}, set(), set()
    for node in nodes:
        if isinstance(node, gast.Assign):
            fresh = len(node.targets) == 1 and isinstance(node.targets[0], gast.Name) and \
                _is_fresh(node.value)
            if fresh:
                allowed.add(id(node.targets[0]))
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name):
            allowed.add(id(node.value))
        if isinstance(node, gast.Call):
            allowed.update(_allowed_in_call(node))
        if isinstance(node, gast.Compare):
            allowed.update(id(c) for op, c in zip(node.ops, node.comparators)
                           if isinstance(op, (gast.In, gast.NotIn)) and
                           isinstance(c, gast.Name))
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            bindings[node.name] = False
    for node in nodes:
        if not isinstance(node, gast.Name):
            continue
        if isinstance(node.ctx, gast.Store):
            bindings[node.id] = bindings.get(node.id, True) and id(node) in allowed
        elif id(node) not in allowed:
            escaped.add(node.id)
    return bindings, escaped


def _allowed_in_call(call):
    """The ids of names a call uses without letting their object escape: the receiver of a
    non-aliasing method, the argument of `len`."""
    callee, args = call.func, call.args
    if isinstance(callee, gast.Attribute) and callee.attr == "converted_call" and \
            len(call.args) >= 2 and isinstance(call.args[1], gast.Tuple):
        callee, args = call.args[0], call.args[1].elts
    if isinstance(callee, gast.Attribute) and isinstance(callee.value, gast.Name) and \
            callee.attr in _SAFE_METHODS:
        return [id(callee.value)]
    if isinstance(callee, gast.Name) and callee.id == "len" and len(args) == 1 and \
            isinstance(args[0], gast.Name):
        return [id(args[0])]
    return []
