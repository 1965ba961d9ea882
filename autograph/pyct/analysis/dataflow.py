"""Liveness and definedness for the control-flow statements of one function.

`analyze(function_node)` walks the (already lowered: no break/continue/return inside
loops and branches) function body once and records, for every If, While and For, a
`StatementInfo`:
  * modified:   names the statement assigns (a for loop's target included), the
                local lists it appends to (`x.append(...)`), and the variables that the
                nested functions it calls rebind through `nonlocal`;
  * live_out:   names read after the statement before being reassigned (`global` and
                `nonlocal` names always: they outlive the function);
  * live_in:    names read by the statement (or after it) before being reassigned;
  * live_loop:  for loops, names live at the top of each iteration (loop-carried reads);
  * defined_in: names definitely assigned before the statement runs;
  * mutated:    the calls `x.pop`, `x.update`, ... of methods changing a local container
                in place (its name is then modified, and live after an `if`; see
                runtime.operators.mutations); mutations_checked: those on objects of
                other scopes, which the statement cannot carry (refused when staged if
                the object is a list, dict or set);
  * composites_must_exist: the carried composites whose root is not a variable the
                function binds (a parameter, a global, a closure value): their object
                outlives the call, so one that exists on some run-time paths only (which
                would need a definedness flag inside the object) is refused;
  * composites: the composite names (`d['v']`, `s.total`) it modifies and must carry, and
                those it modifies but cannot carry (see autograph.pyct.analysis.composites).

Because the body has no jumps left, a structured backward (liveness) and forward
(definedness) pass over the statement lists is exact enough, with a small fixpoint for
loops.
"""

import gast

from autograph.pyct import qual_names, traversal
from autograph.pyct.analysis import activity, composites


class StatementInfo:
    """What the analysis knows about one control-flow statement."""

    __slots__ = ("modified", "live_out", "live_in", "live_loop", "defined_in", "composites",
                 "composites_restore_only", "composites_refused", "composites_deleted",
                 "mutated", "mutations_checked", "composites_must_exist")

    def __init__(self):
        self.modified: frozenset[str] = frozenset()
        self.live_out: frozenset[str] = frozenset()
        self.live_in: frozenset[str] = frozenset()
        self.live_loop: frozenset[str] = frozenset()
        self.defined_in: frozenset[str] = frozenset()
        # QualifiedNames, sorted (by their text), unless said otherwise:
        self.composites = ()               # carried like state_names
        self.composites_restore_only = ()  # of those, the ones dead after an `if`
        self.composites_refused = ()       # (text, reason): modified, live, not carriable
        self.composites_deleted = ()       # (item, container): carried, deleted by a key
        #                                    that may index a list
        self.composites_must_exist = ()    # of the carried, those of objects the function
        #                                    did not make: no definedness flag, see below
        self.mutated = ()                  # `x.pop`, ...: methods changing carried x in place
        self.mutations_checked = ()        # (receiver, call): on objects it cannot carry

    def state_names(self, is_loop):
        """The variables the converted statement must carry, sorted: modified names that are
        live afterwards, and those live on entry (for loops: at the top of each iteration).

        The second group is what makes staged branches independent: a branch that reads a
        variable the other branch assigns must see the value from before the statement."""
        live = self.live_out | (self.live_loop if is_loop else self.live_in)
        return tuple(sorted(self.modified & live))


class UnanalysedNodeError(KeyError):
    """A pass asked for the analysis of a node the analysis never saw (one a later pass
    built or replaced: the pass order is wrong, or the analysis must run again)."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


def _describe(node):
    line = getattr(node, "lineno", None)
    where = f" at line {line}" if line is not None else " (no line: a generated node)"
    return f"{type(node).__name__}{where}"


class Annotations:
    """The analysis results of one function: StatementInfo by node."""

    def __init__(self):
        self._info = {}
        self.maybe_undefined_reads = set()  # ids of Name nodes read maybe before assignment

    def record(self, node):
        """The analysis's own access: the record for `node`, created on first use."""
        found = self._info.get(id(node))
        if found is None:
            found = self._info[id(node)] = StatementInfo()
        return found

    def info(self, node):
        """The record the analysis made for `node`; raises UnanalysedNodeError for a node it
        never analysed."""
        found = self._info.get(id(node))
        if found is None:
            raise UnanalysedNodeError(
                f"no analysis for the {_describe(node)}: it was built or replaced after "
                "dataflow.analyze ran")
        return found

    def has(self, node):
        """True when `node` was analysed."""
        return id(node) in self._info


_COMPOUND = (gast.If, gast.While, gast.For)


def analyze(function_node, loop_flags=None):
    """Runs both analyses over `function_node`; returns its Annotations.

    `loop_flags` maps id(loop) to the flag names its (future) test also reads."""
    annotations = Annotations()
    facts = _NameFacts()
    _Liveness(annotations, loop_flags or {}, facts).block(function_node.body, frozenset())
    params = frozenset(activity.parameter_names(function_node))
    _Definedness(annotations, facts).block(function_node.body, params)
    # `x.append(...)` modifies x too, for the function's own variables (not globals or
    # variables of enclosing functions, which the statement cannot carry).
    local = activity.assigned_names(function_node.body) | params
    # A nested function or lambda may read the function's variables whenever it is called:
    # those stay live everywhere.
    all_closure_reads = _closure_reads(function_node)
    closure_reads = frozenset(all_closure_reads & local)
    # A `global` or `nonlocal` name outlives the function: the module (or the enclosing
    # function) may read it at any time after, so it is live after every statement.
    declared = activity.declared_global(function_node)
    outer = frozenset(declared)
    closure_writes = _closure_writes(function_node, local)
    for node in traversal.walk(function_node):
        if isinstance(node, _COMPOUND):
            info = annotations.record(node)
            modified = activity.assigned_names(node.body + node.orelse)
            modified |= _called_closure_writes(node, closure_writes)
            modified |= activity.appended_names(node.body + node.orelse) & local
            if isinstance(node, gast.For):
                modified |= activity.assigned_names(node.target)
            info.modified = frozenset(modified)
            info.live_out |= closure_reads | outer
            _record_mutations(node, info, local)
    _analyze_composites(function_node, annotations, all_closure_reads, local - declared,
                        declared)
    return annotations


def _closure_writes(function_node, local):
    """{name of a nested function: the variables of `function_node` (among `local`) that
    calling it may rebind}: those it declares `nonlocal` and assigns, and those of the
    nested functions it calls (or mentions: it may pass them on), to a fixpoint."""
    nested = {}
    for node in traversal.walk(function_node):
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef)) and \
                node is not function_node:
            declared = activity.declared_global(node)
            nested[node.name] = (node, set(declared & activity.assigned_names(node.body)
                                           & local))
    writes = {name: set(found) for name, (_, found) in nested.items()}
    changed = True
    while changed:
        changed = False
        for name, (node, _) in nested.items():
            for callee in activity.read_names(node.body) & set(nested):
                if not writes[callee] <= writes[name]:
                    writes[name] |= writes[callee]
                    changed = True
    return {name: frozenset(found) for name, found in writes.items() if found}


def _called_closure_writes(statement, closure_writes):
    """The variables that nested functions called (or mentioned) in `statement` may rebind:
    modified by it as if assigned in its body (see _closure_writes)."""
    if not closure_writes:
        return frozenset()
    parts = statement.body + statement.orelse + [getattr(statement, "test", None),
                                                 getattr(statement, "iter", None)]
    mentioned = activity.read_names([p for p in parts if p is not None])
    found = set()
    for name in mentioned & set(closure_writes):
        found |= closure_writes[name]
    return frozenset(found)


def _record_mutations(node, info, local):
    """Records the calls of methods changing a container in place in statement `node`.

    The container is state, and live after the statement whatever the analysis of names
    says: its object may be reached through other names. (Appending in a loop is left to
    the lists a loop stages as TensorArrays: see appended_names.) An object of another
    scope (a global, a closure value) cannot be carried: staging is refused when it is a
    list, dict or set (`np.add` and `os.remove` are no such calls)."""
    calls = activity.mutating_calls(node.body + node.orelse)
    if not calls:
        return
    is_if = isinstance(node, gast.If)
    carried = sorted(c for c in calls if c.root in local and (is_if or not _appends(c)))
    receivers = {c.root for c in carried}
    info.mutated = tuple(carried)
    info.modified = info.modified | receivers
    info.live_out = info.live_out | receivers
    info.mutations_checked = tuple(sorted(
        (c.base(), c) for c in calls if c.root not in local and not _appends(c)))


def _appends(call):
    """True for a call of a method named `append` (`x.append`)."""
    return call.last == qual_names.Attribute("append")


def _analyze_composites(function_node, annotations, closure_reads, own_names, declared):
    """Fills in the composite fields of each statement's record.

    A modified composite is state unless it is an item of a local container (one that
    cannot escape the function, see composites.local_items) that is certainly overwritten,
    deleted or dropped before any read, both after the statement and at its start (for
    loops: the top of an iteration). Any other object may be reachable through other names
    or after the function returns, so its modified composites are always state."""
    if not composites.writes_composites(function_node):
        return
    made_here = frozenset(activity.fresh_object_names(function_node))
    for node in traversal.walk(function_node):
        if isinstance(node, _COMPOUND):  # containers of other scopes' objects: checked
            info = annotations.record(node)
            info.mutations_checked = info.mutations_checked + tuple(sorted(
                (call.base(), call) for call in composites.mutating_calls(node)
                if call.root not in own_names))
    never_local = closure_reads | set(activity.parameter_names(function_node)) | declared
    local = composites.local_items(function_node, never_local)
    liveness = composites.Liveness(local).run(function_node)
    for node in traversal.walk(function_node):
        if not isinstance(node, _COMPOUND):
            continue
        info = annotations.record(node)
        dead_out = liveness.dead_out.get(id(node), frozenset())
        dead_in = liveness.dead_in.get(id(node), frozenset())

        def dead(path, *where):
            return path in local and all(path in d for d in where)
        carried, refused = composites.modified(node, info.modified, info.defined_in,
                                               own_names)
        state = [p for p in carried if not dead(p, dead_out, dead_in)]
        info.composites = tuple(sorted(state))
        info.composites_must_exist = tuple(sorted(p for p in state if p.root not in made_here))
        info.mutated = info.mutated + tuple(sorted(
            call for call in composites.mutating_calls(node) if
            call.base() in info.composites))
        deleted = composites.deleted_items(node)
        info.composites_deleted = tuple(sorted(
            (item, deleted[item]) for item in info.composites if item in deleted))
        if isinstance(node, gast.If):
            info.composites_restore_only = tuple(sorted(p for p in state if dead(p, dead_out)))
        info.composites_refused = tuple(sorted(
            (text, reason) for text, (p, reason) in refused.items()
            if not dead(p, dead_out, dead_in)))


def _closure_reads(function_node):
    """Free names read by the nested functions, lambdas and classes of `function_node` (not
    the lambdas the expressions pass made for lazy operands, which run on the spot)."""
    found = set()
    for node in traversal.walk(function_node):
        if node is function_node or getattr(node, "_ag_deferred_operand", False):
            continue
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)):
            body = node.body if isinstance(node.body, list) else [node.body]
            bound = activity.assigned_names(body) | set(activity.parameter_names(node))
            found |= activity.read_names(body) - bound
        elif isinstance(node, gast.ClassDef):
            found |= activity.read_names(node.body) - activity.assigned_names(node.body)
    return found


class _NameFacts:
    """The names each simple statement assigns, reads and deletes, found once per analysis:
    both passes ask, and their fixpoints over loops ask again for the same statements."""

    def __init__(self) -> None:
        self._found: dict = {}

    def _memo(self, find, node):
        key = (find, id(node))
        found = self._found.get(key)
        if found is None:
            found = self._found[key] = frozenset(find(node))
        return found

    def assigned(self, node):
        """activity.assigned_names(node)."""
        return self._memo(activity.assigned_names, node)

    def read(self, node):
        """activity.read_names(node)."""
        return self._memo(activity.read_names, node)

    def deleted(self, node):
        """activity.deleted_names(node)."""
        return self._memo(activity.deleted_names, node)


class _Liveness:
    def __init__(self, annotations, loop_flags, facts):
        self.annotations = annotations
        self.loop_flags = loop_flags
        self.facts = facts

    def block(self, stmts, live_out):
        live = frozenset(live_out)
        for stmt in reversed(stmts):
            live = self.stmt(stmt, live)
        return live

    def stmt(self, node, live_out):
        if isinstance(node, gast.If):
            info = self.annotations.record(node)
            info.live_out = live_out
            info.live_in = (frozenset(activity.read_names(node.test))
                            | self.block(node.body, live_out) | self.block(node.orelse, live_out))
            return info.live_in
        if isinstance(node, gast.While):
            return self._loop(node, live_out, activity.read_names(node.test), frozenset())
        if isinstance(node, gast.For):
            return (self._loop(node, live_out, frozenset(), activity.assigned_names(node.target))
                    | activity.read_names(node.iter))
        if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            return (live_out - {node.name}) | activity.read_names(node)
        if isinstance(node, gast.Return):
            return frozenset(activity.read_names(node.value) if node.value else ())
        if isinstance(node, (gast.With, gast.AsyncWith)):
            return self._with(node, live_out)
        if isinstance(node, gast.Try):
            after = self.block(node.finalbody, live_out)
            body = self.block(node.body + node.orelse, after)
            handlers: frozenset[str] = frozenset()
            for handler in node.handlers:
                handlers |= self.block(handler.body, after)
            return body | handlers | after
        return (live_out - self.facts.assigned(node)) | self.facts.read(node)

    def _with(self, node, live_out):
        # Each item's `as` target is bound before the body runs (and before later items are
        # evaluated): its value from before the `with` is dead there.
        live = self.block(node.body, live_out)
        for item in reversed(node.items):
            if item.optional_vars is not None:
                live = live - activity.assigned_names(item.optional_vars)
            live = live | activity.read_names(item)
        return frozenset(live)

    def _loop(self, node, live_out, test_reads, target_names):
        test_reads = frozenset(test_reads) | frozenset(self.loop_flags.get(id(node), ()))
        info = self.annotations.record(node)
        info.live_out = live_out
        after_loop = self.block(node.orelse, live_out)
        top = frozenset(test_reads) | after_loop
        for _ in range(4):
            body_in = self.block(node.body, top) - target_names
            new_top = frozenset(test_reads) | after_loop | body_in
            if new_top == top:
                break
            top = new_top
        info.live_loop = top
        return top


class _Definedness:
    """Forward pass: the names definitely assigned before each statement, and the reads of
    names that may not be assigned yet (in the first iteration, for loops)."""

    def __init__(self, annotations, facts):
        self.annotations = annotations
        self.facts = facts

    def block(self, stmts, defined):
        for stmt in stmts:
            defined = self.stmt(stmt, defined)
        return defined

    def reads(self, node, defined):
        for sub in traversal.walk(node):
            if isinstance(sub, gast.Name) and isinstance(sub.ctx, gast.Load) and \
                    sub.id not in defined:
                self.annotations.maybe_undefined_reads.add(id(sub))
            elif isinstance(sub, gast.AugAssign) and isinstance(sub.target, gast.Name) and \
                    sub.target.id not in defined:
                self.annotations.maybe_undefined_reads.add(id(sub.target))

    def stmt(self, node, defined):
        header = {gast.If: "test", gast.While: "test", gast.For: "iter"}.get(type(node))
        if header is not None:
            self.reads(getattr(node, header), defined)
        elif isinstance(node, (gast.With, gast.AsyncWith)):
            for item in node.items:
                self.reads(item, defined)
        elif not isinstance(node, gast.Try):
            self.reads(node, defined)
        if isinstance(node, gast.If):
            self.annotations.record(node).defined_in = defined
            return self.block(node.body, defined) & self.block(node.orelse, defined)
        if isinstance(node, (gast.While, gast.For)):
            self.annotations.record(node).defined_in = defined
            target = activity.assigned_names(node.target) if isinstance(node, gast.For) \
                else frozenset()
            # A name the body deletes is undefined in the next iteration and after the
            # loop: iterate to the names defined at the top of every iteration.
            entry = defined
            for _ in range(4):
                end = self.block(node.body, entry | target)
                if defined & end == entry:
                    break
                entry = defined & end
            if isinstance(node, gast.While):
                self.reads(node.test, entry)
            return self.block(node.orelse, entry)
        if isinstance(node, (gast.With, gast.AsyncWith)):
            return self.block(node.body, defined | activity.assigned_names(node.items))
        if isinstance(node, gast.Try):
            # An exception may leave the body (or a handler) anywhere: a name any of them
            # deletes (`del x`; `except E as x` unbinds x when the handler ends) may be
            # unbound in what follows.
            handlers = [stmt for h in node.handlers for stmt in h.body]
            caught = {h.name.id for h in node.handlers if isinstance(h.name, gast.Name)}
            self.block(node.body + node.orelse, defined)  # `else:` runs after the body
            for handler in node.handlers:
                self.block(handler.body, defined - activity.deleted_names(node.body))
            deleted = activity.deleted_names(node.body + node.orelse + handlers) | caught
            return self.block(node.finalbody, defined - deleted)
        return (defined | self.facts.assigned(node)) - self.facts.deleted(node)
