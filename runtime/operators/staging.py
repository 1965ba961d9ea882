"""Shared machinery for staging Python control flow as graph ops.

Converted statements carry their state as a tuple of values, one per variable the statement
modifies (`symbol_names` names them, for error messages). Staging a statement means tracing
its branches or body into sub-graphs and reconciling the state they produce:
  * Python numbers and bools become tensors where the other side (or the loop) has tensors;
  * a variable assigned on some paths only (one branch, a loop that may run zero times)
    comes out as a MaybeUndefined: its value plus a run-time definedness flag, checked where
    it is read (see runtime.operators.undefined); the compiler's own flags and return values
    instead get a neutral value (zeros / False) where unset, as they are read only when set;
  * a key or attribute of the state (`d['v']`, `s.v`; see runtime.operators.composites)
    that exists after one branch only, or that a loop creates, is an error naming it;
  * a variable whose dtype or nesting structure differs between branches or iterations is
    an error naming it and both types;
  * a loop variable whose shape changes across iterations is relaxed to None dimensions;
  * TensorArrays (composites of one handle tensor, see runtime.tensor_array) are carried
    as their handle; their static metadata (element shape, size) is joined across branches
    and iterations, so an element shape learned in a loop body holds after the loop;
  * a Python list that a loop on a tensor appends tensors to is carried as a TensorArray
    (a StagedList), see the last section.
"""

import os
import re
import threading

import numpy as np

from runtime import context, control_flow, dtypes, errors, nest, tensor_array
from runtime import shape as shape_lib
from runtime.operators import try_regions, undefined
from runtime.operators.composites import Missing
from runtime.operators.staged_lists import StagedList
from runtime.operators.undefined import (
    DeadValue,
    MaybeUndefined,
    Undefined,
    UndefinedRead,
    UndefinedReturnValue,
)
from runtime.ops import array_ops, common
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor
from runtime.variables import Variable

# Variables the compiler introduces; when only one branch sets them, the other side gets a
# neutral value (the flag is False there, or the return value is never used).
COMPILER_SYMBOLS = ("do_return", "retval_", "break_", "continue_")
LOOP_COUNTER = "<loop counter>"  # the state name of the hidden counter of a staged for loop


try_body = try_regions.try_body
refuse_inside_try = try_regions.refuse_inside_try


def _no_state():
    return ()


def _ignore_state(values):
    pass


def state_functions(get_state, set_state):
    """The statement's state functions; converted code omits them when it has no state."""
    return get_state or _no_state, set_state or _ignore_state


def is_symbolic(value):
    """True for tensors that exist only in a graph being built."""
    return isinstance(value, SymbolicTensor)


def as_condition(value):
    """Reads variables, so that `if v:` on a Variable sees a tensor; a staged list is true
    when it is not empty (a tensor when its length is known only at run time)."""
    if isinstance(value, Variable):
        return value.read_value()
    if isinstance(value, StagedList):
        length = value._len()
        return length > 0
    return value


_COMPILER_SYMBOL = re.compile(r"(%s)(_\d+)?\Z" % "|".join(COMPILER_SYMBOLS))


def _is_compiler_symbol(name):
    """The compiler's names are the bases above, or a base plus `_N` when the user's
    function already uses the base."""
    return name is not None and _COMPILER_SYMBOL.match(name) is not None


_DESCRIPTIONS = {
    "retval_": "the return value of %(function)s",
    "do_return": "the flag recording whether %(function)s has returned",
    "break_": "the flag recording a break from the loop at %(where)s",
    "continue_": "the flag recording a continue in the loop at %(where)s",
    LOOP_COUNTER: "the counter of the loop at %(where)s",
}


def describe(name, kind=None):
    """How a message names state variable `name`: the user's names quoted (after `kind`,
    such as 'loop variable', when given); the compiler's own variables (COMPILER_SYMBOLS,
    the loop counter) by what they stand for in the user's function, never by their
    generated names."""
    match = _COMPILER_SYMBOL.match(name) if name else None
    base = match.group(1) if match is not None else name
    if base not in _DESCRIPTIONS and base.startswith("<") and base.endswith(">"):
        return base[1:-1]  # a description already: '<the value of an `and` expression>'
    if base not in _DESCRIPTIONS:
        return "%s '%s'" % (kind, name) if kind else "'%s'" % name
    location = errors.user_location(2)
    if location is None:
        return _DESCRIPTIONS[base] % {"function": "the function", "where": "?"}
    return _DESCRIPTIONS[base] % {
        "function": location.function,
        "where": "%s:%d" % (os.path.basename(location.filename), location.lineno)}


def _fail(error_class, message):
    raise error_class(errors.with_user_location(message, errors.user_location(3)))


def _python_to_tensor(value, name, dtype_hint=None):
    if isinstance(value, (bool, int, float, str, bytes, np.ndarray, np.generic)):
        return common.convert_to_tensor(value, dtype_hint=dtype_hint)
    if isinstance(value, Variable):
        return value.read_value()
    _fail(TypeError, "%s holds a Python %s (%r), which cannot be carried through staged "
          "control flow: only tensors, numbers, bools and strings (and nested "
          "tuples/lists/dicts of them) can" % (describe(name), type(value).__name__, value))


def require_scalar_bool(value, what):
    """Checks that a staged condition is a scalar bool tensor."""
    if value.dtype is not dtypes.bool_:
        _fail(TypeError, "the condition of %s must be a bool tensor, got %s" % (
            what, value.dtype.name))
    if value._shape not in ((), None):
        _fail(ValueError, "the condition of %s must be a scalar, got shape %s; reduce it "
              "with tf.reduce_all or tf.reduce_any" % (what, shape_lib.to_string(value._shape)))


# -- conditionals ------------------------------------------------------------------------------


def staged_cond(pred, true_fn, false_fn, what, symbol_names=None, restore_only=()):
    """Traces both functions as branches of an If op on `pred`; returns the merged result.

    With `symbol_names`, the functions return one value per named variable. Variables named
    in `restore_only` are not read after the statement (the compiler carries them only so
    that each branch starts from their value before it): they come out as DeadValue."""
    refuse_inside_try(what)
    require_scalar_bool(pred, what)
    then_sub, then_value = control_flow.trace_subgraph("cond_true", _raising_at_run_time(true_fn),
                                                       [])
    else_sub, else_value = control_flow.trace_subgraph("cond_false",
                                                       _raising_at_run_time(false_fn), [])
    then_value, else_value = (_stand_in(then_value, else_value, then_sub),
                              _stand_in(else_value, then_value, else_sub))
    if symbol_names is None:
        names = ["<the value of %s>" % what]
        then_values, else_values = [then_value], [else_value]
    else:
        names = list(symbol_names)
        then_values, else_values = list(then_value), list(else_value)
    then_outs, else_outs, specs, builders = [], [], [], []
    for name, a, b in zip(names, then_values, else_values):
        if name in restore_only:
            builders.append(lambda outputs, name=name: DeadValue(name))
            continue
        _refuse_missing_in_one_branch(name, a, b)
        builders.append(_merge_symbol(name, a, b, then_sub, else_sub, then_outs, else_outs,
                                      specs))
    then_sub.outputs = then_outs
    else_sub.outputs = else_outs
    outputs = control_flow.build_if(pred, then_sub, else_sub, specs)
    merged = [build(outputs) for build in builders]
    return merged[0] if symbol_names is None else tuple(merged)


def _refuse_missing_in_one_branch(name, a, b):
    """A key or attribute (`d['v']`, `s.v`) that exists after one branch only: Python
    creates (or deletes) it depending on the condition, which no graph value can stand for."""
    if isinstance(a, Missing) != isinstance(b, Missing):
        _fail(ValueError, "%s exists after the %s branch of a conditional on a tensor but "
              "not after the %s branch (it does not exist before the conditional, or one "
              "branch deletes it): set it before the conditional or in both branches"
              % ((describe(name),) + (("else", "if") if isinstance(a, Missing)
                                      else ("if", "else"))))


def _raising_at_run_time(fn):
    """`fn`, a branch or loop body being traced, made to raise when it runs if it reads a
    variable that is unassigned on its path: plain Python raises only if it gets there.
    Returns the UndefinedRead instead of the results then."""
    def run(*args):
        try:
            return fn(*args)
        except UndefinedRead as e:
            e.stage()
            return e
    return run


def _stand_in(value, other, sub):
    """The results of a branch that always raises when it runs (`value` is its UndefinedRead):
    values like the `other` branch's, never used. When both branches raise, so does the
    statement, wherever it runs: the error goes on to the enclosing branch or body (or, at
    the top of the function, to the caller of the trace)."""
    if not isinstance(value, UndefinedRead):
        return value
    if isinstance(other, UndefinedRead) or \
            nest.map_composites(lambda c: None, other) is not other:
        raise value

    def stand_in(v):
        if isinstance(v, MaybeUndefined):
            return MaybeUndefined(v.symbol_name, stand_in(v.value),
                                  common.convert_to_tensor(False))
        if isinstance(v, Undefined) or not any(isinstance(leaf, (Tensor, Variable))
                                               for leaf in nest.flatten(v)):
            return v
        return placeholder_value("value", v)
    with sub.graph.as_default():
        if type(other) is tuple:  # one value per state variable
            return tuple(stand_in(v) for v in other)
        return stand_in(other)


def branch_copies(values):
    """`values` with each staged list replaced by a copy, so that what one branch of a staged
    `if` appends is not seen by the other."""
    return tuple(v.copy() if isinstance(v, StagedList) else v for v in values)


def _merge_symbol(name, a, b, then_sub, else_sub, then_outs, else_outs, specs):
    """Reconciles one variable's values from the two branches; returns a function that
    rebuilds the merged value from the If op's outputs."""
    a, b = _resolve_pending(a), _resolve_pending(b)
    if a is b and isinstance(a, MaybeUndefined):
        return lambda outputs: a  # neither branch assigns it
    if _needs_flag(name, a, b):
        return _merge_flagged(name, _with_flag(name, a, b, then_sub),
                              _with_flag(name, b, a, else_sub),
                              then_sub, else_sub, then_outs, else_outs, specs)
    a, b = _promote_to_staged_list(name, a, b), _promote_to_staged_list(name, b, a)
    a, b = _spread_undefined(a, b), _spread_undefined(b, a)
    if nest.structure_signature(a) != nest.structure_signature(b):
        _fail(TypeError, "%s has a different structure in the two branches: %r vs %r"
              % (describe(name), a, b))
    if a is b and isinstance(a, list):
        _refuse_list_grown_in_branch(name, a, then_sub, else_sub)
    template = _join(name, a, b, ("in the if branch", "in the else branch"))
    leaves = []
    for x, y in zip(nest.flatten(a), nest.flatten(b)):
        leaves.append(_merge_leaf(name, x, y, then_sub, else_sub, then_outs, else_outs, specs))

    def build(outputs):
        values = [leaf(outputs) for leaf in leaves]
        return nest.pack_sequence_as(template, values) if nest.is_nested(template) \
            else values[0]
    return build


def _spread_undefined(value, other):
    """An Undefined `value` (a compiler symbol only the other branch sets: `return a, b`
    there) as `other`'s structure with the marker at each leaf, so that each leaf gets its
    neutral value."""
    if isinstance(value, Undefined) and nest.is_nested(other) and \
            not isinstance(other, StagedList):
        return nest.map_structure(lambda leaf: value, other)
    return value


def _needs_flag(name, a, b):
    """True when a user variable is defined after one branch only, or may be undefined after
    either (the compiler's own symbols get neutral values instead, see _merge_leaf)."""
    if _is_compiler_symbol(name) or isinstance(a, UndefinedReturnValue) or \
            isinstance(b, UndefinedReturnValue):
        return False
    if isinstance(a, MaybeUndefined) or isinstance(b, MaybeUndefined):
        return True
    return isinstance(a, Undefined) != isinstance(b, Undefined)


def _with_flag(name, value, other, sub):
    """`value` from branch `sub` as a MaybeUndefined: an Undefined one as zeros shaped like
    `other` (the other branch's value) with the flag False (a loop variable that entered the
    loop undefined: its loop-carried value and flag), a defined one with the flag True."""
    if isinstance(value, MaybeUndefined):
        return value
    template = other.value if isinstance(other, MaybeUndefined) else other
    if isinstance(value, PendingUndefined):
        return value.materialize(template)
    if isinstance(value, Undefined):
        with sub.graph.as_default():
            return MaybeUndefined(name, placeholder_value(name, template), False)
    return MaybeUndefined(name, value, True)


def _merge_flagged(name, a, b, then_sub, else_sub, then_outs, else_outs, specs):
    value = _merge_symbol(name, a.value, b.value, then_sub, else_sub, then_outs, else_outs,
                          specs)
    flag = _merge_leaf(name, a.defined, b.defined, then_sub, else_sub, then_outs, else_outs,
                       specs)

    def build(outputs):
        defined = flag(outputs)
        if defined is True or defined is False:
            return value(outputs) if defined else Undefined(name)
        return MaybeUndefined(name, value(outputs), defined)
    return build


def placeholder_value(name, template):
    """Zeros with the structure, dtypes and shapes of `template` (a dimension known only at
    run time has size 0 here): the value of a variable where it is undefined, never read."""
    def zeros(leaf):
        if isinstance(leaf, Variable):
            leaf = leaf.read_value()
        if not isinstance(leaf, Tensor):
            leaf = _python_to_tensor(leaf, name)
        if leaf.dtype.kind not in ("int", "float", "bool", "string"):
            _fail(TypeError, "%s holds a %s, assigned on some paths of staged control flow "
                  "only; define it before the statement" % (describe(name), leaf.dtype.name))
        shape = leaf._shape_tuple()
        dims = [] if shape is None else [0 if d is None else d for d in shape]
        return array_ops.zeros(dims, leaf.dtype)
    if nest.map_composites(lambda c: None, template) is not template:
        _fail(TypeError, "%s holds %r, assigned on some paths of staged control flow only; "
              "define it before the statement" % (describe(name), template))
    return nest.map_structure(zeros, template)


def _promote_to_staged_list(name, value, other):
    """A plain list `value` as a staged list when the other branch turned it into one (a
    loop on a tensor in that branch appended to it)."""
    if isinstance(other, StagedList) and isinstance(value, list):
        staged = StagedList.candidate(value, name)
        if staged is not None:
            return staged
    return value


def _join(name, a, b, where):
    """`a` with its TensorArrays' metadata joined with `b`'s (runtime.tensor_array.join)."""
    try:
        return tensor_array.join(name, a, b, where)
    except TypeError as e:
        _fail(TypeError, str(e))


def _refuse_list_grown_in_branch(name, value, then_sub, else_sub):
    """Both branches hand back the same Python list: a branch changed it in place (appended
    to it). Holding a tensor computed in a branch, it cannot be merged by an If op."""
    for leaf in nest.flatten(value):
        if _escaped(leaf, then_sub) or _escaped(leaf, else_sub):
            _fail(ValueError, "%s is a Python list that a branch of a conditional on a tensor "
                  "appends a tensor to; a list cannot grow inside a staged branch. Append "
                  "after the conditional (e.g. a value chosen with tf.where or tf.cond), or "
                  "build it in a loop on a tensor (staged as a TensorArray) or with "
                  "tf.TensorArray" % describe(name))


def _merge_leaf(name, x, y, then_sub, else_sub, then_outs, else_outs, specs):
    x_undefined, y_undefined = isinstance(x, Undefined), isinstance(y, Undefined)
    if x_undefined and y_undefined:
        return lambda outputs: x
    if (x is None or x_undefined) and (y is None or y_undefined):
        return lambda outputs: None  # e.g. a bare `return` on one side, none on the other
    if not x_undefined and not y_undefined and not isinstance(x, (Tensor, Variable)) and \
            not isinstance(y, (Tensor, Variable)) and _same_python_value(x, y):
        return lambda outputs: x
    tx = _branch_tensor(name, x, y, then_sub)
    ty = _branch_tensor(name, y, x, else_sub)
    if tx.dtype is not ty.dtype:
        _fail(TypeError, "%s has dtype %s in the if branch but %s in the else branch; a "
              "variable must keep one dtype through a conditional on a tensor"
              % (describe(name), tx.dtype.name, ty.dtype.name))
    index = len(specs)
    then_outs.append(tx)
    else_outs.append(ty)
    specs.append((tx.dtype, shape_lib.relax(tx._shape, ty._shape)))
    return lambda outputs: outputs[index]


def _escaped(value, sub):
    """True for a symbolic tensor of a graph that neither is nor encloses branch `sub`."""
    return isinstance(value, SymbolicTensor) and not sub.graph.can_read(value.graph)


def _same_python_value(x, y):
    if x is y:
        return True
    if type(x) is not type(y):
        return False
    try:
        return bool(x == y)
    except Exception:  # arrays and odd objects: treat as different
        return False


def _branch_tensor(name, value, other, sub):
    """`value` as a tensor of branch graph `sub` (neutral value when Undefined)."""
    with sub.graph.as_default():
        if isinstance(value, Undefined):
            return _neutral_like(name, other)
        if isinstance(value, Tensor):
            return sub.graph.capture(value)
        hint = other.dtype if isinstance(other, Tensor) else None
        return sub.graph.capture(_python_to_tensor(value, name, hint))


def _neutral_like(name, other):
    """A zero (or False) standing in for a compiler symbol only the other branch sets."""
    if isinstance(other, (Tensor, Variable)):
        return placeholder_value(name, other)
    return _python_to_tensor(type(other)(), name)


# -- loops ---------------------------------------------------------------------------------------


class PendingUndefined(Undefined):
    """A variable that has no value before a loop on a tensor, as the loop body being traced
    sees it: undefined in the first iteration, maybe assigned by an earlier one.

    Its type is learned where the body first gives it a value (a branch that assigns it, or
    the body's result): `materialize` then adds the loop-carried value and its definedness
    flag as inputs of the body graph, so the body is traced once. The loop starts them as
    zeros and False (or, in a loop nested in another such loop, as the enclosing loop's).
    The compiler's own symbols (a return value, read only once the return flag is set) get
    no flag: they start as zeros."""

    __slots__ = ("graph", "outer", "materialized", "initial", "flagged", "never_assigned")

    def __init__(self, symbol_name, graph, outer):
        super().__init__(symbol_name)
        self.graph = graph
        self.outer = outer
        self.materialized = None
        self.initial = None
        self.never_assigned = False  # known from a trial trace, see _learn_types
        self.flagged = not (_is_compiler_symbol(symbol_name) or
                            isinstance(outer, UndefinedReturnValue))

    def materialize(self, template):
        """The loop-carried MaybeUndefined, typed like `template` the first time."""
        if self.materialized is None:
            name = self.symbol_name
            template = nest.map_structure(
                lambda leaf: leaf if isinstance(leaf, Tensor) else _python_to_tensor(leaf, name),
                template)
            if isinstance(self.outer, PendingUndefined):
                self.initial = self.outer.materialize(template)
            else:
                with self.graph.outer.as_default():
                    self.initial = placeholder_value(name, template)
                    if self.flagged:
                        self.initial = MaybeUndefined(name, self.initial,
                                                      common.convert_to_tensor(False))
            label = control_flow.clean_label(name)
            value = nest.map_structure(
                lambda t: self.graph.add_placeholder(label, t.dtype, t._shape), template)
            self.materialized = value
            if self.flagged:
                flag = self.graph.add_placeholder(label + "_defined", dtypes.bool_, ())
                self.materialized = MaybeUndefined(name, value, flag)
        return self.materialized

    def _read(self):
        if self.materialized is not None:
            return undefined.ld(self.materialized)
        self._fail()

    def _fail(self, *args, **kwargs):
        if self.materialized is not None:
            self.materialized._fail()
        if self.never_assigned or getattr(_trial, "active", False) or (
                context.current_graph() is self.graph and
                not isinstance(self.outer, PendingUndefined)):
            # Read on every path of the body before it assigns the variable: the first
            # iteration raises, as Undefined does; the body raises whenever it runs. (In a
            # trial trace, see _learn_types, every such read is taken as raising.)
            Undefined._fail(self)
        # Elsewhere an earlier iteration may have assigned the variable.
        _fail(_UntypedRead, "%s is read in a loop on a tensor before the loop body assigns "
              "it, and it has no value before the loop: its type is not known where it is "
              "read. Assign it before the loop" % describe(self.symbol_name))


class _UntypedRead(ValueError):
    """A loop body read a variable it assigns later, with no value before the loop, so of
    no known type yet (see _learn_types)."""


_trial = threading.local()


def _learn_types(state, specs, traced):
    """Types the variables that enter a loop undefined when the body reads one before it
    assigns it (a read in a branch that only later iterations take): traces the body once
    more, throwaway, with such reads raising, and returns {index: value} with what the
    body assigns them, for the real trace to start them typed. (The body's trace-time
    Python side effects run twice here.)

    A variable the trial does not assign is assigned on no path of the body that does not
    read it first, so no iteration ever assigns it: in the real trace its reads raise."""
    _trial.active = True
    try:
        _, body_out = control_flow.trace_subgraph("trial_body", traced, specs,
                                                  state.leaf_names)
    finally:
        _trial.active = False
    learned = {}
    for i, (pending, out) in enumerate(zip(traced.pending_list(), body_out)):
        if pending is None:
            continue
        out = _resolve_pending(out)
        if pending.materialized is not None:
            out = pending.materialized
        if not isinstance(out, Undefined):
            learned[i] = out.value if isinstance(out, MaybeUndefined) else out
    return learned


def _resolve_pending(value):
    """A materialized PendingUndefined as the MaybeUndefined it stands for."""
    if isinstance(value, PendingUndefined) and value.materialized is not None:
        return value.materialized
    return value


def _state_leaves(value):
    """The tensors a loop carries for one variable: a MaybeUndefined's value and flag, none
    for an undefined one."""
    if isinstance(value, Undefined):
        return []
    if isinstance(value, MaybeUndefined):
        return nest.flatten(value.value) + [value.defined]
    return nest.flatten(value)


def _pack_state(template, leaves):
    if isinstance(template, Undefined):
        return template
    if isinstance(template, MaybeUndefined):
        return MaybeUndefined(template.symbol_name, _pack_state(template.value, leaves[:-1]),
                              leaves[-1])
    return nest.pack_sequence_as(template, leaves) if nest.is_nested(template) else leaves[0]


def _state_signature(value):
    if isinstance(value, MaybeUndefined):
        return ("maybe undefined", nest.structure_signature(value.value))
    return nest.structure_signature(value)


class LoopState:
    """The flattened loop variables: one entry per tensor leaf, plus the structure per name."""

    def __init__(self, names, values):
        self.names = list(names)
        self.templates = list(values)
        self.leaf_names = []
        self.leaves = []
        self.counts = []
        for name, value in zip(self.names, self.templates):
            leaves = _state_leaves(value)
            self.counts.append(len(leaves))
            self.leaf_names.extend([name] * len(leaves))
            self.leaves.extend(leaves)

    def split(self, leaves):
        """`leaves` (one per leaf of the state) in one list per variable."""
        out, position = [], 0
        for count in self.counts:
            out.append(list(leaves[position:position + count]))
            position += count
        return out

    def rebuild(self, leaves):
        """Per-variable values with the leaves replaced by `leaves`."""
        return [_pack_state(t, chunk) for t, chunk in zip(self.templates, self.split(leaves))]


def staged_loop(names, init, cond_fn, body_fn, stage_lists="empty"):
    """Stages a loop as a While op.

    `init` holds one value per name; `cond_fn(values)` returns the continuation condition
    and `body_fn(values)` the values after one iteration. Returns the final values.

    A variable still undefined before the loop enters the body as a PendingUndefined, which
    learns its type from the body; after the loop it is a MaybeUndefined (undefined when the
    loop ran zero times). If the body never assigns it (the assignment sits behind a Python
    condition that is false while tracing), it is not carried and stays undefined.

    A Python list variable the body appends tensors to is carried as a TensorArray (see the
    last section): with `stage_lists=True` (converted loops) any list of tensors, by default
    only lists that start empty. (A list of tensors that the body assigns anew costs a
    second trace of the body to find out; tf.while_loop's own list of loop variables is
    such a list, and never empty.)"""
    refuse_inside_try("a loop")
    init = list(init)
    _refuse_missing_before_loop(names, init)
    init = [_captured(value) for value in init]
    if stage_lists and any(type(v) is list and (stage_lists is True or not v) for v in init):
        return _staged_loop_with_lists(names, init, cond_fn, body_fn, stage_lists is True)
    return _staged_loop(names, init, cond_fn, body_fn)


def _refuse_missing_before_loop(names, init):
    """A key or attribute the loop modifies that does not exist before it: Python creates
    it only if the loop runs, which no graph value can stand for."""
    for name, value in zip(names, init):
        if isinstance(value, Missing):
            _fail(ValueError, "%s does not exist before a loop on a tensor that sets it, so "
                  "it would exist after the loop only if the loop runs at least once: set it "
                  "before the loop" % describe(name))


def _captured(value):
    """`value` with its eager tensors captured into the graph being built (a loop variable
    may start as a tensor made outside the function: an attribute set in `__init__`). Lists
    stay as they are: a list loop variable is tracked by identity (see the last section)."""
    graph = context.current_graph()
    if graph is None or isinstance(value, list):
        return value
    if isinstance(value, EagerTensor):
        return graph.capture(value)
    if isinstance(value, (tuple, dict)) and \
            any(isinstance(leaf, EagerTensor) for leaf in nest.flatten(value)):
        return nest.map_structure(
            lambda leaf: graph.capture(leaf) if isinstance(leaf, EagerTensor) else leaf, value)
    return value


def _staged_loop(names, init, cond_fn, body_fn, check=None):
    """`staged_loop` once the lists are settled; `check(init, body_out)`, when given, sees
    the values after the first traced iteration before anything else does.

    The body is traced again only when what it gives a variable does not fit how the
    variable entered: a shape to relax, a TensorArray size learned, a definedness flag a
    variable defined before the loop needs (a `del` in the body)."""
    forms = [_resolve_pending(value) for value in init]
    var_specs = [[_leaf_spec(leaf, name) for leaf in _state_leaves(value)]
                 for name, value in zip(names, forms)]
    learned = None
    for _ in range(4):
        state = LoopState(names, [tensor_array.entering_loop(t) for t in forms])
        specs = [spec for chunk in var_specs for spec in chunk]
        traced = _BodyTrace(names, state, body_fn, learned)
        try:
            body_sub, body_out = control_flow.trace_subgraph("while_body", traced, specs,
                                                             state.leaf_names)
        except _UntypedRead:
            if learned is not None or getattr(_trial, "active", False):
                raise
            learned = _learn_types(state, specs, _BodyTrace(names, state, body_fn, None))
            continue
        pending = traced.pending
        if check is not None:
            check(init, body_out)
        entry, placeholders, outputs = _carried_state(state, pending, body_sub, body_out)
        upgraded = [i for i, (form, out) in enumerate(zip(entry.templates, outputs))
                    if _needs_flag_in_loop(form, out)]
        if upgraded:  # trace again with a definedness flag for these
            for i in upgraded:
                forms[i] = MaybeUndefined(names[i], forms[i], True)
                var_specs[i] = var_specs[i] + [(dtypes.bool_, ())]
            continue
        body_sub.placeholders = [ph for chunk in placeholders for ph in chunk]
        entry_specs = [[(t.dtype, t._shape) for t in chunk] for chunk in placeholders]
        outs, relaxed = _check_body_outputs(entry, outputs, body_sub,
                                            [s for chunk in entry_specs for s in chunk])
        # A TensorArray's element shape or dtype learned in the body holds for the loop's
        # result without tracing again (the traced body stays valid); a changed static
        # size does need it (the body may have used it as a constant).
        joined = _joined_templates(entry, outputs)
        sizes_changed = False
        if joined is not None:
            sizes_changed = (tensor_array.static_sizes(joined) !=
                             tensor_array.static_sizes(entry.templates))
            entry.templates = joined
        forms = [_initial_form(form, pending.get(i)) for i, form in enumerate(forms)]
        if [s for chunk in entry_specs for s in chunk] == relaxed and not sizes_changed:
            break
        var_specs = entry.split(relaxed)
        if joined is not None:
            forms = [_with_metadata(form, template) for form, template in zip(forms, joined)]
    else:
        _fail(ValueError, "the loop variables %s keep changing shape across iterations"
              % ", ".join(sorted(set(state.leaf_names))))
    body_sub.outputs = outs
    specs = relaxed
    cond_sub, cond_value = control_flow.trace_subgraph(
        "while_cond", lambda *ph: cond_fn(entry.rebuild(list(ph))), specs, entry.leaf_names)
    with cond_sub.graph.as_default():
        cond_value = as_condition(cond_value)
        if not isinstance(cond_value, Tensor):
            cond_value = common.convert_to_tensor(bool(cond_value))
        require_scalar_bool(cond_value, "a while loop")
        cond_sub.outputs = [cond_sub.graph.capture(cond_value)]
    init_leaves = [_to_tensor(leaf, name, dtype) for leaf, name, (dtype, _) in
                   zip(LoopState(names, forms).leaves, entry.leaf_names, specs)]
    outputs = control_flow.build_while(init_leaves, cond_sub, body_sub, specs)
    return entry.rebuild(list(outputs))


class _BodyTrace:
    """The loop body as traced: the variables undefined before the loop enter it as
    PendingUndefined. After a trial trace (`learned` not None, see _learn_types) they are
    typed from the start, or known never to be assigned."""

    def __init__(self, names, state, body_fn, learned):
        self.names = names
        self.state = state
        self.body_fn = body_fn
        self.learned = learned
        self.pending = {}

    def __call__(self, *placeholders):
        values = self.state.rebuild(list(placeholders))
        graph = context.current_graph()
        for i, value in enumerate(values):
            if isinstance(value, Undefined):
                values[i] = self.pending[i] = PendingUndefined(self.names[i], graph, value)
                if self.learned is not None and i in self.learned:
                    self.pending[i].materialize(self.learned[i])
                elif self.learned is not None:
                    self.pending[i].never_assigned = True
        out = _raising_at_run_time(self.body_fn)(values)
        return values if isinstance(out, UndefinedRead) else out

    def pending_list(self):
        """The PendingUndefined per variable (None for the others)."""
        return [self.pending.get(i) for i in range(len(self.names))]


def _leaf_spec(leaf, name):
    if isinstance(leaf, Tensor):
        return (leaf.dtype, leaf._shape)
    if isinstance(leaf, Variable):
        return (leaf.dtype, leaf._static_shape)
    tensor = _python_to_tensor(leaf, name)
    return (tensor.dtype, tensor._shape)


def _to_tensor(leaf, name, dtype):
    return leaf if isinstance(leaf, Tensor) else _python_to_tensor(leaf, name, dtype)


def _initial_form(form, pending):
    """A variable's value before the loop, once the body has typed an undefined one."""
    if pending is not None and pending.initial is not None:
        return pending.initial
    return form


def _with_metadata(form, template):
    if isinstance(form, (Undefined, MaybeUndefined)):
        return form
    return template


def _needs_flag_in_loop(template, out):
    """True for a variable defined before the loop that the body leaves undefined on some
    path (a `del`): it needs a definedness flag from the start."""
    return isinstance(out, (Undefined, MaybeUndefined)) and \
        not isinstance(template, (Undefined, MaybeUndefined))


def _carried_state(state, pending, body_sub, body_out):
    """Matches the body's results to how the variables entered it: typing the undefined
    ones from what the body gives them, and giving a definedness flag to the results of
    those that entered with one. Returns (the entry LoopState, the body's placeholders per
    variable, the results as the loop carries them)."""
    traced = state.split(body_sub.placeholders)
    entry, placeholders, outputs = [], [], []
    for i, (name, template, out) in enumerate(zip(state.names, state.templates, body_out)):
        out = _resolve_pending(out)
        chunk = traced[i]
        if i in pending:
            if pending[i].materialized is None:
                if not isinstance(out, Undefined):
                    pending[i].materialize(out.value if isinstance(out, MaybeUndefined)
                                           else out)
            if pending[i].materialized is not None:
                template = pending[i].materialized
                chunk = _state_leaves(template)
            else:
                out = template = state.templates[i]  # never assigned: not carried
        if isinstance(template, MaybeUndefined):
            out = _with_flag(name, out, template, body_sub)
        entry.append(template)
        placeholders.append(chunk)
        outputs.append(out)
    return LoopState(state.names, entry), placeholders, outputs


def _joined_templates(state, body_out):
    """The loop variables' templates with the metadata of their TensorArrays joined with
    the body's (an element shape learned in the body), or None when nothing changes."""
    joined = [_join(name, template, value, ("before the loop", "after an iteration"))
              if not isinstance(template, (Undefined, MaybeUndefined)) else template
              for name, template, value in zip(state.names, state.templates, body_out)]
    if all(a is b for a, b in zip(joined, state.templates)):
        return None
    return joined


def _check_body_outputs(state, body_out, body_sub, specs):
    outs = []
    relaxed = []
    for name, template, value in zip(state.names, state.templates, body_out):
        if _state_signature(template) != _state_signature(value):
            shown = [v.value if isinstance(v, MaybeUndefined) else v for v in (template, value)]
            _fail(TypeError, "%s changed structure in the loop body: it was %r before the "
                  "loop and %r after an iteration" % (describe(name, "loop variable"),
                                                       shown[0], shown[1]))
    flat = [leaf for value in body_out for leaf in _state_leaves(value)]
    with body_sub.graph.as_default():
        for name, leaf, (dtype, shape) in zip(state.leaf_names, flat, specs):
            if isinstance(leaf, Undefined):
                _fail(ValueError, "%s is undefined after an iteration"
                      % describe(name, "loop variable"))
            if not isinstance(leaf, Tensor):
                leaf = _python_to_tensor(leaf, name, dtype)
            if leaf.dtype is not dtype:
                _fail(TypeError, "%s changed dtype in the loop body: it was %s before the "
                      "loop and %s after an iteration" % (describe(name, "loop variable"),
                                                          dtype.name, leaf.dtype.name))
            leaf = body_sub.graph.capture(leaf)
            outs.append(leaf)
            new_shape = shape if shape_lib.is_subtype(leaf._shape, shape) else \
                shape_lib.relax(shape, leaf._shape)
            relaxed.append((dtype, new_shape))
    return outs, relaxed


# -- lists appended to in a loop on a tensor -----------------------------------------------------
#
#     out = []
#     for i in tf.range(n):          the compiler carries `out` as loop state (the analysis
#         out.append(i * i)          counts `out.append(...)` as modifying `out`)
#     tf.stack(out)
#
# A loop variable holding a Python list of tensors (or an empty one) is traced as a
# StagedList: a growing TensorArray that `append` writes to. What the first traced
# iteration does with it decides how the loop carries it:
#   * it appended tensors, and the variable still holds that list: carried as a TensorArray
#     and left a StagedList after the loop (`tf.stack`, `len`, indexing, `for` work);
#   * it appended other Python values (a trace-time log), or nothing: the StagedList turns
#     into a stand-in for the Python list, passing appends and reads on to it, and the
#     variable gets the list back after the loop (as if the loop did not carry it);
#   * it assigned the variable another value: staging restarts with the list as an
#     ordinary loop variable (before any While op is built).


class _Restart(Exception):
    """Raised after the first traced iteration to stage the loop again with the lists at
    `indices` as they are."""

    def __init__(self, token, indices):
        super().__init__("restart loop staging")
        self.token = token
        self.indices = indices


def _staged_loop_with_lists(names, init, cond_fn, body_fn, nonempty):
    current = list(init)
    for i, value in enumerate(init):
        if type(value) is list and (nonempty or not value):
            staged = StagedList.candidate(value, names[i])
            if staged is not None:
                current[i] = staged
    while True:
        origins = {v._origin: i for i, v in enumerate(current)
                   if isinstance(v, StagedList) and v is not init[i]}
        if not origins:
            return _staged_loop(names, current, cond_fn, body_fn)
        token = object()
        try:
            final = _staged_loop(names, current, cond_fn, body_fn, _list_check(token, origins))
        except _Restart as restart:
            if restart.token is not token:
                raise
            for i in restart.indices:
                current[i] = init[i]
            continue
        except Exception:
            if any(origin.appended and not origin.python for origin in origins):
                raise
            current = list(init)  # not about the lists: stage as before, to report it so
            continue
        return [v._origin.values if isinstance(v, StagedList) and
                v._origin in origins and v._origin.python else v for v in final]


def _list_check(token, origins):
    """The `check` deciding, after the first traced iteration, how each list is carried."""
    def check(values, body_out):
        restart = []
        for value, after in zip(values, body_out):
            origin = value._origin if isinstance(value, StagedList) else None
            if origin not in origins or not origin.trial:
                continue
            if not (isinstance(after, StagedList) and after._origin is origin):
                restart.append(origins[origin])
            elif origin.unstageable and origin.appended:
                _fail(TypeError, "%s is a list that a loop on a tensor appends both tensors "
                      "and other Python values (%r) to; a list grown in such a loop is staged "
                      "as a TensorArray and holds tensors of one dtype and shape only"
                      % (describe(origin.name),
                         [v for v in origin.values if not isinstance(v, Tensor)][:3]))
            elif origin.unstageable or not origin.appended:
                origin.python = True
        if restart:
            raise _Restart(token, restart)
        for origin in origins:
            origin.trial = False
    return check
