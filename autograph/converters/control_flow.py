"""`if`, `while` and `for` statements to `ag__.if_stmt` / `while_stmt` / `for_stmt` calls.

    while tf.reduce_sum(x) > 1:        def get_state():
        x = tf.tanh(x)                     return (x,)
                                       def set_state(vars_):
                                           nonlocal x
                                 ->        (x,) = vars_
                                       def loop_test():
                                           return tf.reduce_sum(x) > 1
                                       def loop_body():
                                           nonlocal x
                                           x = tf.tanh(x)
                                       ag__.while_stmt(loop_test, loop_body, get_state,
                                                       set_state, ('x',))

The state is the variables the statement modifies that are live afterwards (or, for loops, at
the top of an iteration), from the analysis, and likewise the composite names it modifies
(`d['v']`, `s.total`), which the state functions read and write through `ag__.maybe` (a key or
attribute may be missing); get_state of a statement that modifies a composite it cannot carry
starts with `ag__.refuse_composite(...)`. Containers the statement changes in place with their
methods (`items.pop()`) are state too, named with the calls in the keyword
`mutated=('items.pop',)` (see runtime.operators.mutations). Variables the generated functions
share that may be unbound before the statement are bound to `ag__.Undefined` at the start of
the function (or of the generated function they are local to). An `if` whose test is certainly
a Python value (`x is None`, `isinstance(...)`, a constant) is left as a plain `if`, and a
`for` over literal Python data or `range` of constants without lowered jumps as a plain `for`.

Reads the analysis finds may be undefined become `ag__.ld(y)` (a run-time check for a value
staged control flow defines on some paths only), and `del y` becomes
`y = ag__.del_(y, 'y')`, so that the state functions can still read the name.
"""

import collections

import gast

from autograph.converters import base, directives
from autograph.converters.conversion_context import Context, set_origin
from autograph.pyct import qual_names, templates, traversal
from autograph.pyct.analysis import activity
from autograph.pyct.qual_names import QualifiedName
from runtime import reserved_names

_STATIC_CALLS = frozenset(["isinstance", "issubclass", "hasattr", "callable"])


def is_static_test(test: gast.expr) -> bool:
    """True when `test` certainly evaluates to a Python value, never a tensor."""
    if isinstance(test, gast.Constant):
        return True
    if isinstance(test, gast.Compare):
        return all(isinstance(op, (gast.Is, gast.IsNot)) for op in test.ops)
    if isinstance(test, gast.Call) and isinstance(test.func, gast.Name):
        return test.func.id in _STATIC_CALLS
    if isinstance(test, gast.Call) and isinstance(test.func, gast.Attribute) and \
            isinstance(test.func.value, gast.Name) and \
            test.func.value.id == reserved_names.NAMESPACE and \
            test.func.attr == "not_" and len(test.args) == 1:
        return is_static_test(test.args[0])
    return False


def is_static_iterable(iterated: gast.expr) -> bool:
    """True when a `for` certainly iterates Python data: a literal list, tuple, set, dict or
    string, or `range` of constants (already turned into a converted_call)."""
    if isinstance(iterated, (gast.List, gast.Tuple, gast.Set, gast.Dict)):
        return True
    if isinstance(iterated, gast.Constant):
        return isinstance(iterated.value, (str, bytes))
    if isinstance(iterated, gast.Call) and isinstance(iterated.func, gast.Attribute) and \
            iterated.func.attr == "converted_call" and iterated.args:
        func, args = iterated.args[0], iterated.args[1]
        return (isinstance(func, gast.Name) and func.id == "range"
                and isinstance(args, gast.Tuple)
                and all(isinstance(a, gast.Constant) for a in args.elts))
    return False


def _assignment_counts(node):
    counts: collections.Counter[str] = collections.Counter()
    for sub in traversal.walk(node):
        if isinstance(sub, gast.Name) and isinstance(sub.ctx, (gast.Store, gast.Del)):
            counts[sub.id] += 1
    return counts


def _def(name, args, body):
    arguments = gast.arguments(
        args=[gast.Name(id=a, ctx=gast.Param(), annotation=None, type_comment=None)
              for a in args],
        posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    return gast.FunctionDef(name=name, args=arguments, body=body or [gast.Pass()],
                            decorator_list=[], returns=None, type_comment=None,
                            type_params=[])


class _Transformer(base.FunctionTransformer):
    def __init__(self, ctx):
        super().__init__(ctx)
        self.function_counts = _assignment_counts(ctx.function_node)
        # Counted before any rewriting: the generated set_state functions assign too.
        self.statement_counts = {id(n): _assignment_counts(n)
                                 for n in traversal.walk(ctx.function_node)
                                 if isinstance(n, (gast.If, gast.While, gast.For))}
        self.params = set(activity.parameter_names(ctx.function_node))
        self.unbound = set()  # names to bind to ag__.Undefined at the function's start

    # -- shared pieces ------------------------------------------------------------------------
    def _scope_decl(self, names):
        """`nonlocal`/`global` statements making `names` refer to the enclosing variables."""
        decls = []
        globals_ = sorted(n for n in names if n in self.ctx.globals)
        locals_ = sorted(n for n in names if n not in self.ctx.globals)
        if globals_:
            decls.append(gast.Global(names=globals_))
        if locals_:
            decls.append(gast.Nonlocal(names=locals_))
        return decls

    def _shared_names(self, node, state):
        """Modified names the generated functions must share with the enclosing scope."""
        info = self.ctx.annotations.info(node)
        inside = self.statement_counts[id(node)]
        outside = {n for n, c in self.function_counts.items() if c > inside.get(n, 0)}
        return sorted(info.modified & (set(state) | outside | self.params | self.ctx.globals))

    def _state_functions(self, state, refused=(), deleted=(), checked=()):
        get_name = self.ctx.namer.stable(reserved_names.GET_STATE)
        set_name = self.ctx.namer.stable(reserved_names.SET_STATE)
        vars_name = self.ctx.namer.stable(reserved_names.STATE_VARIABLES)
        get_body = [_refusal(text, reason) for text, reason in refused]
        get_body += [_list_deletion_check(text, container) for text, container in deleted]
        get_body += [_mutation_check(receiver, call) for receiver, call in checked]
        get_body.append(gast.Return(value=_state_tuple(state, gast.Load())))
        if state:
            plain = [n.root for n in state if not n.is_composite()]
            set_body = self._scope_decl(plain) + templates.replace(
                "target = vars_", target=_state_tuple(state, gast.Store()), vars_=vars_name)
        else:
            set_body = [gast.Pass()]
        return (get_name, set_name,
                [_def(get_name, [], get_body), _def(set_name, [vars_name], set_body)])

    def _need_bindings(self, node, names):
        """Records the names the generated functions share that may be unbound before
        `node`: the function binds them to `ag__.Undefined` at its start (never right before
        the statement, where that would overwrite a value some paths already assigned)."""
        info = self.ctx.annotations.info(node)
        self.unbound.update(n for n in names
                            if n not in info.defined_in and n not in self.ctx.globals)

    def _visit_blocks(self, node):
        """Visits the statement lists of `node`; returns the names recorded for binding to
        Undefined (see _need_bindings) while visiting each, by field."""
        recorded = {}
        for field in ("body", "orelse"):
            outer, self.unbound = self.unbound, set()
            setattr(node, field, base.visit_statements(self, getattr(node, field)))
            recorded[field] = self.unbound
            self.unbound = outer | (self.unbound if not _is_converted(node, self.ctx) else set())
        return recorded

    def _block_def(self, name, args, body, recorded):
        """A generated function holding a visited statement list, with the names recorded
        while visiting it (see _bind_locals)."""
        fn = _def(name, args, body)
        fn._ag_unbound = recorded
        return fn

    def _bind_locals(self, defs, shared):
        """Binds to `ag__.Undefined`, at the start of each generated function in `defs`, the
        names recorded in its statements that are local to it (assigned there, not shared
        with the enclosing scope): the state functions of statements nested in it read
        them. The others are left for an enclosing scope."""
        for fn in defs:
            recorded: set[str] = getattr(fn, "_ag_unbound", set())
            local = recorded & (activity.assigned_names(fn.body) - set(shared))
            self.unbound |= recorded - local
            if local:
                decls = [s for s in fn.body if isinstance(s, (gast.Nonlocal, gast.Global))]
                fn.body[len(decls):len(decls)] = set_origin(_undefined_bindings(local), fn)

    def _loop_test(self, node, test):
        flags = self.ctx.loop_flags.get(id(node), [])
        if not flags:
            return test
        guard = None
        for flag in flags:
            not_flag = templates.replace_as_expression("ag__.not_(flag)", flag=flag)
            guard = not_flag if guard is None else templates.replace_as_expression(
                "ag__.and_(lambda: left, lambda: right)", left=guard, right=not_flag)
        if test is None:
            return guard
        return templates.replace_as_expression(
            "ag__.and_(lambda: guard, lambda: test)", guard=guard, test=test)

    def _staged(self, node, is_loop, build, call):
        """The frame every converted statement shares: its state (from the analysis), the
        get_state/set_state functions, and the names to bind to Undefined. `build(shared)`
        returns the statement's own functions and the leading arguments of its `ag__` call,
        `call`; the state arguments follow, left out when there is no state."""
        info = self.ctx.annotations.info(node)
        state = info.state_names(is_loop)
        shared = self._shared_names(node, state)
        defs, args = build(shared)
        self._bind_locals(defs, shared)
        state_defs, keywords = [], []
        carried = sorted(qual_names.names(state) + info.composites)
        refused = info.composites_refused
        if carried or refused or info.mutations_checked:
            get_name, set_name, state_defs = self._state_functions(
                carried, refused, info.composites_deleted, info.mutations_checked)
            args = args + [templates.name_node(get_name), templates.name_node(set_name),
                           templates.string_tuple(carried)]
            restore_only = [QualifiedName(n) for n in state
                            if n not in info.live_out] if not is_loop else []
            restore_only = sorted(restore_only + list(info.composites_restore_only))
            if restore_only:
                keywords.append(gast.keyword(arg="restore_only",
                                             value=templates.string_tuple(restore_only)))
            if info.composites_must_exist:
                keywords.append(gast.keyword(
                    arg="must_exist", value=templates.string_tuple(info.composites_must_exist)))
            mutated = [c for c in info.mutated if c.base() in carried]
            if mutated:
                keywords.append(gast.keyword(arg="mutated",
                                             value=templates.string_tuple(mutated)))
        while args and isinstance(args[-1], gast.Constant) and args[-1].value is None:
            args.pop()  # trailing defaults
        statement = gast.Expr(value=gast.Call(
            func=templates.replace_as_expression("ag__." + call), args=args,
            keywords=keywords))
        self._need_bindings(node, set(state) | set(shared))
        return set_origin(state_defs + defs + [statement], node)

    # -- statements ---------------------------------------------------------------------------
    def visit_If(self, node):
        recorded = self._visit_blocks(node)
        if not _is_converted(node, self.ctx):
            return node

        def build(shared):
            body_name = self.ctx.namer.stable(reserved_names.IF_BODY)
            defs = [self._block_def(body_name, [], self._scope_decl(shared) + node.body,
                                    recorded["body"])]
            args = [node.test, templates.name_node(body_name)]
            if node.orelse:
                else_name = self.ctx.namer.stable(reserved_names.ELSE_BODY)
                defs.append(self._block_def(else_name, [],
                                            self._scope_decl(shared) + node.orelse,
                                            recorded["orelse"]))
                args.append(templates.name_node(else_name))
            else:
                args.append(gast.Constant(value=None, kind=None))
            return defs, args
        return self._staged(node, False, build, "if_stmt")

    def visit_While(self, node):
        options = directives.take_loop_options(node)
        recorded = self._visit_blocks(node)
        self.unbound |= recorded["orelse"]

        def build(shared):
            test_name = self.ctx.namer.stable(reserved_names.LOOP_TEST)
            body_name = self.ctx.namer.stable(reserved_names.LOOP_BODY)
            return ([_def(test_name, [], [gast.Return(value=self._loop_test(node, node.test))]),
                     self._block_def(body_name, [], self._scope_decl(shared) + node.body,
                                     recorded["body"])],
                    [templates.name_node(test_name), templates.name_node(body_name)])
        statements = self._staged(node, True, build, "while_stmt")
        _add_opts(statements[-1], node, options)
        return statements

    def visit_For(self, node):
        options = directives.take_loop_options(node)  # no effect on a loop left as Python
        recorded = self._visit_blocks(node)
        if not _is_converted(node, self.ctx):
            # Unrolled at trace time either way: plain Python reads better. The iterable is
            # counted, to report a loop that unrolls into too many ops (UnrollingWarning).
            node.iter = set_origin(templates.replace_as_expression(
                "ag__.python_loop(iterated)", iterated=node.iter), node)
            return node
        self.unbound |= recorded["orelse"]

        def build(shared):
            body_name = self.ctx.namer.stable(reserved_names.LOOP_BODY)
            item_name = self.ctx.namer.stable(reserved_names.LOOP_ITEM)
            bind_target = set_origin(templates.replace(
                "target = item", target=node.target, item=item_name), node)
            defs = [self._block_def(body_name, [item_name],
                                    self._scope_decl(shared) + bind_target + node.body,
                                    recorded["body"])]
            extra = self._loop_test(node, None)
            extra_node = gast.Constant(value=None, kind=None)
            if extra is not None:
                extra_name = self.ctx.namer.stable(reserved_names.EXTRA_TEST)
                defs.insert(0, _def(extra_name, [], [gast.Return(value=extra)]))
                extra_node = templates.name_node(extra_name)
            return defs, [node.iter, extra_node, templates.name_node(body_name)]
        statements = self._staged(node, True, build, "for_stmt")
        if isinstance(node.target, gast.Name):
            # The target's name, for the loop counter of a range over tensors (TF's option).
            options = dict(iterate_names=gast.Constant(value=node.target.id, kind=None),
                           **options)
        _add_opts(statements[-1], node, options)
        return statements


def _add_opts(statement, loop, options):
    """Gives the loop's `ag__` call the keyword `opts={name: expression, ...}`, when there
    are options (its target's name, the set_loop_options arguments)."""
    if not options:
        return
    opts = gast.Dict(keys=[gast.Constant(value=name, kind=None) for name in options],
                     values=list(options.values()))
    statement.value.keywords.append(gast.keyword(arg="opts", value=set_origin(opts, loop)))


def _state_tuple(names, ctx):
    """`(x, ag__.maybe(d)['v'], ag__.maybe(s).total)`: the state as an expression or an
    assignment target. `ag__.maybe` reads a missing key or attribute as a marker, and
    writing a marker leaves it missing (see runtime.operators.composites)."""
    elts = []
    for name in names:
        if not name.is_composite():
            elts.append(templates.name_node(name.root, type(ctx)()))
            continue
        node = _through_maybe(name.ast())
        node.ctx = type(ctx)()
        elts.append(node)
    return gast.Tuple(elts=elts, ctx=ctx)


def _through_maybe(node):
    """`d['x'][1]` as `ag__.maybe(ag__.maybe(d)['x'])[1]`: each step through `maybe`, so a
    missing base reads as missing too."""
    if isinstance(node, (gast.Attribute, gast.Subscript)):
        node.value = templates.replace_as_expression(
            "ag__.maybe(base)", base=_through_maybe(node.value))
    return node


def _refusal(text, reason):
    """The statement refusing, when staged, a composite the statement modifies but cannot
    carry (the Python path never calls get_state); `text`: the composite as written (its key
    may be any expression: it names no QualifiedName)."""
    return templates.replace("ag__.refuse_composite(text, reason)",
                             text=gast.Constant(value=text, kind=None),
                             reason=gast.Constant(value=reason, kind=None))[0]


def _list_deletion_check(item, container):
    """The statement refusing, when staged, to delete `item` of a list (see
    runtime.operators.composites.refuse_list_deletion)."""
    return templates.replace(
        "ag__.refuse_list_deletion(container, text)",
        container=container.ast(),
        text=gast.Constant(value=item.text, kind=None))[0]


def _mutation_check(receiver, call):
    """The statement refusing, when staged, a call `call` (`items.pop`) that changes a list,
    dict or set of another scope in place (see runtime.operators.mutations)."""
    return templates.replace(
        "ag__.refuse_outer_mutation(receiver, call)",
        receiver=_through_maybe(receiver.ast()),
        call=gast.Constant(value=call.text, kind=None))[0]


def _is_converted(node, ctx):
    """True for the statements this pass turns into ag__ calls."""
    if isinstance(node, gast.If):
        return not is_static_test(node.test)
    if isinstance(node, gast.For):
        return not is_static_iterable(node.iter) or bool(ctx.loop_flags.get(id(node)))
    return isinstance(node, gast.While)


def _converted_statements(node, ctx):
    """The statements of function `node` that this pass turns into ag__ calls."""
    return [sub for sub in traversal.walk(node) if _is_converted(sub, ctx)]


def _maybe_undefined(converted, ctx):
    """Names some converted statement (of `converted`) starts as `ag__.Undefined` (assigned
    inside it but not definitely before it)."""
    names: set[str] = set()
    for sub in converted:
        info = ctx.annotations.info(sub)
        names.update(n for n in info.state_names(not isinstance(sub, gast.If))
                     if n not in info.defined_in and n not in ctx.globals)
    return names


class _GuardReads(traversal.Transformer):
    """`y` -> `ag__.ld(y)` for reads of possibly undefined names (per the definedness
    analysis), so that reading one that was never assigned raises Python's
    UnboundLocalError (or, for a value staged control flow defines on some run-time paths
    only, checks its flag when the graph runs) instead of passing a marker on. Reads in
    nested functions run later, so all of theirs are guarded.

    `del y` -> `y = ag__.del_(y, 'y')` for the `deleted` names: the name stays bound (to an
    Undefined marker), so the state functions of staged statements can still read it."""

    def __init__(self, names, maybe_undefined_reads, deleted):
        self.names = names
        self.maybe_undefined_reads = maybe_undefined_reads
        self.deleted = deleted
        self.nested = 0

    def visit_AugAssign(self, node):
        """`y += v` with `y` maybe undefined -> `y = ag__.ld(y)` first (`+=` may update `y` in
        place, so it stays an augmented assignment)."""
        self.generic_visit(node)
        target = node.target
        if self.nested or not isinstance(target, gast.Name) or target.id not in self.names or \
                id(target) not in self.maybe_undefined_reads:
            return node
        load = templates.replace("name = ag__.ld(name)", name=target.id)
        return set_origin(load, node) + [node]

    def visit_Delete(self, node):
        if self.nested:
            return self.generic_visit(node)
        out = []
        for target in node.targets:
            if isinstance(target, gast.Name) and target.id in self.deleted:
                out.extend(templates.replace(
                    "name = ag__.del_(name, text)", name=target.id,
                    text=gast.Constant(value=target.id, kind=None)))
            else:
                out.append(gast.Delete(targets=[self.visit(target)]))
        return set_origin(out, node)

    def visit_FunctionDef(self, node):
        self.nested += 1
        self.generic_visit(node)
        self.nested -= 1
        return node

    def visit_Name(self, node):
        if node.id in self.names and isinstance(node.ctx, gast.Load) and (
                self.nested or id(node) in self.maybe_undefined_reads):
            return set_origin(templates.replace_as_expression("ag__.ld(name)", name=node.id),
                              node)
        return node


class _GuardCompositeReads(traversal.Transformer):
    """`d['a']` -> `ag__.ld(d['a'])` for reads of the composites some converted statement
    carries: one that staged control flow sets on some run-time paths only holds a
    MaybeUndefined afterwards, whose flag the read checks when the graph runs. A read of
    the whole container (`len(d)`, `return d`, `f(d)`) goes through `ag__.ld_items(d)`,
    which checks such items. `d['a'] += v` first loads `d['a'] = ag__.ld(d['a'])`. Reads in
    nested functions are left alone (they see values the marker was resolved into, or
    raise on the marker itself)."""

    def __init__(self, names):
        self.names = names
        self.roots = {name.root for name in names}

    def _guarded(self, node):
        return qual_names.from_node(node) in self.names

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = visit_FunctionDef

    def visit_AugAssign(self, node):
        node.value = self.visit(node.value)
        target = node.target
        if not isinstance(target, (gast.Attribute, gast.Subscript)):
            return node
        guarded = self._guarded(target)
        self._visit_base(target)
        if not guarded:
            return node
        load = templates.replace("target = ag__.ld(value)", target=_as_expression(target),
                                 value=_as_expression(target))
        for statement in load:
            statement.targets[0].ctx = gast.Store()
        return set_origin(load, node) + [node]

    def visit_Attribute(self, node):
        return self._visit_access(node)

    def visit_Subscript(self, node):
        return self._visit_access(node)

    def _visit_base(self, node):
        """Visits the parts of access `node` that are read to reach it: its key, and a
        base that is not a plain name (`d['a']['b']` reads `d['a']`)."""
        if isinstance(node, gast.Subscript):
            node.slice = self.visit(node.slice)
        if not isinstance(node.value, gast.Name):
            node.value = self.visit(node.value)

    def _visit_access(self, node):
        guarded = isinstance(node.ctx, gast.Load) and self._guarded(node)
        self._visit_base(node)
        if guarded:
            return set_origin(templates.replace_as_expression("ag__.ld(value)", value=node),
                              node)
        return node

    def visit_Name(self, node):
        if node.id in self.roots and isinstance(node.ctx, gast.Load):
            return set_origin(templates.replace_as_expression("ag__.ld_items(name)",
                                                              name=node.id), node)
        return node


def _as_expression(target):
    """A fresh copy of the access `target` (`d['a']`, `s.v`) as an expression."""
    name = qual_names.from_node(target)
    assert name is not None  # a guarded access: one of the carried composites' names
    return name.ast()


def _carried_composites(converted, ctx):
    """The composites some converted statement (of `converted`) carries."""
    names = set()
    for sub in converted:
        names.update(ctx.annotations.info(sub).composites)
    return names


def transform(node: gast.FunctionDef, ctx: Context) -> gast.FunctionDef:
    """Converts the control-flow statements of function `node` (analysis must have run)."""
    deleted = activity.deleted_names(node.body) - ctx.globals
    orphaned = _orphaned_locals(node, ctx)
    read_early = _locals_read_maybe_unbound(node, ctx)
    converted = _converted_statements(node, ctx)
    undefined = _maybe_undefined(converted, ctx) | deleted | orphaned | read_early
    carried = _carried_composites(converted, ctx)
    if undefined:
        guard = _GuardReads(undefined, ctx.annotations.maybe_undefined_reads, deleted)
        node.body = base.visit_statements(guard, node.body)
    if carried:
        node.body = base.visit_statements(_GuardCompositeReads(carried), node.body)
    transformer = _Transformer(ctx)
    body = base.visit_statements(transformer, node.body)
    inits = _undefined_bindings(transformer.unbound | orphaned | read_early)
    docstring, code = base.split_docstring(body)
    node.body = docstring + set_origin(inits, node) + code
    return node


def _orphaned_locals(node, ctx):
    """Local names of the user's function that only statements dropped as unreachable (after
    a `return`, `break` or `continue`) assigned: bound to Undefined, so that reading one
    raises UnboundLocalError as in Python."""
    still_assigned = {n.id for n in traversal.walk(node)
                      if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del))}
    params = set(activity.parameter_names(node))
    return set(ctx.original_locals - still_assigned - params - ctx.globals)


def _locals_read_maybe_unbound(node, ctx):
    """Local names read somewhere they may be unbound (per the definedness analysis). Bound to
    Undefined at the start, so that a read from a generated branch or loop function (where
    the name is free, not state) raises UnboundLocalError as in Python, not a NameError about
    a free variable."""
    local = set(ctx.original_locals) - ctx.globals - set(activity.parameter_names(node))
    reads = ctx.annotations.maybe_undefined_reads
    return {sub.id for sub in traversal.walk(node)
            if isinstance(sub, gast.Name) and sub.id in local and id(sub) in reads}




def _undefined_bindings(names):
    """`name = ag__.Undefined('name')` for each of `names`, sorted."""
    inits = []
    for name in sorted(names):
        inits.extend(templates.replace("name = ag__.Undefined(text)", name=name,
                                       text=gast.Constant(value=name, kind=None)))
    return inits


