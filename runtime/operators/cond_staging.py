"""Staging a conditional on a tensor as an If op: both branches traced, their results merged.

See runtime.operators.staging for how the state of a statement is reconciled.
"""

from typing import Any, Callable, Collection, Iterable, Mapping, Sequence

from runtime import dtypes, nest, subgraphs
from runtime import shape as shape_lib
from runtime.operators import aliases, mutations
from runtime.operators.composites import Missing
from runtime.operators.deferred_errors import DeferredError
from runtime.operators.pending_undefined import PendingUndefined, resolve_pending, with_flag
from runtime.operators.staged_lists import StagedList
from runtime.operators.staging import (
    BRANCH_OF,
    describe,
    fail,
    is_compiler_symbol,
    join_metadata,
    placeholder_value,
    python_to_tensor,
    raising_at_run_time,
    refuse_inside_try,
    require_scalar_bool,
)
from runtime.operators.undefined import (
    DeadValue,
    MaybeUndefined,
    Undefined,
    UndefinedReturnValue,
)
from runtime.ops import common, control_flow_ops
from runtime.tensor import SymbolicTensor, Tensor
from runtime.variables import Variable


def staged_cond(pred: Any, true_fn: Callable[[], Any], false_fn: Callable[[], Any], what: str,
                symbol_names: Sequence[str] | None = None, restore_only: Collection[str] = (),
                mutated: Mapping[str, list[str]] | None = None,
                must_exist: Collection[str] = ()) -> Any:
    """Traces both functions as branches of an If op on `pred`; returns the merged result.

    With `symbol_names`, the functions return one value per named variable. Variables named
    in `restore_only` are not read after the statement (the compiler carries them only so
    that each branch starts from their value before it): they come out as DeadValue.
    `mutated` maps the names of containers the branches change in place to those calls
    (runtime.operators.mutations): they must keep one structure. The keys and attributes
    named in `must_exist` may not be missing after one branch only."""
    refuse_inside_try(what)
    require_scalar_bool(pred, what)
    traced = ("a branch of %s on a tensor" % what, BRANCH_OF)
    then_sub, then_value = subgraphs.trace_subgraph(
        "cond_true", raising_at_run_time(true_fn, traced), [])
    else_sub, else_value = subgraphs.trace_subgraph(
        "cond_false", raising_at_run_time(false_fn, traced), [])
    then_value, else_value = (_stand_in(then_value, else_value, then_sub),
                              _stand_in(else_value, then_value, else_sub))
    if symbol_names is None:
        names = ["<the value of %s>" % what]
        then_values, else_values = [then_value], [else_value]
    else:
        names = list(symbol_names)
        then_values, else_values = list(then_value), list(else_value)
    if symbol_names is not None:
        aliases.refuse_shared_containers(
            names, [("after the if branch", then_values), ("after the else branch",
                                                           else_values)],
            "a conditional on a tensor", set(restore_only) | set(mutated or ()))
    # the branches' output tensors, their (dtype, shape) specs, and how each symbol is
    # rebuilt from the If's outputs
    then_outs: list[Tensor] = []
    else_outs: list[Tensor] = []
    specs: list[tuple[dtypes.DType, shape_lib.Shape]] = []
    builders: list[Callable[..., Any]] = []
    for name, a, b in zip(names, then_values, else_values):
        if name in restore_only:
            builders.append(lambda outputs, name=name: DeadValue(name))
            continue
        if name in must_exist:
            _refuse_missing_in_one_branch(name, a, b)
        mutations.refuse_changed_shape(name, a, b, mutated or {}, "a conditional on a tensor",
                                       ("after the if branch", "after the else branch"))
        builders.append(_merge_symbol(name, a, b, then_sub, else_sub, then_outs, else_outs,
                                      specs))
    then_sub.outputs = then_outs
    else_sub.outputs = else_outs
    outputs = control_flow_ops.build_if(pred, then_sub, else_sub, specs)
    merged = [build(outputs) for build in builders]
    return merged[0] if symbol_names is None else tuple(merged)


def _refuse_missing_in_one_branch(name, a, b):
    """A key or attribute (`d['v']`, `s.v`) of an object the function did not make that
    exists after one branch only: Python creates (or deletes) it depending on the
    condition, which would leave a definedness flag inside an object that outlives the
    call."""
    if isinstance(a, Missing) != isinstance(b, Missing):
        fail(ValueError, "%s exists after the %s branch of a conditional on a tensor but "
             "not after the %s branch (it does not exist before the conditional, or one "
             "branch deletes it), and its object is not one the function made: set it "
             "before the conditional or in both branches"
             % ((describe(name),) + (("else", "if") if isinstance(a, Missing)
                                     else ("if", "else"))))


def _stand_in(value, other, sub):
    """The results of a branch that always raises when it runs (`value` is its DeferredError):
    values like the `other` branch's, never used. When both branches raise, so does the
    statement, wherever it runs: the error goes on to the enclosing branch or body (or, at
    the top of the function, to the caller of the trace)."""
    if not isinstance(value, DeferredError):
        return value
    if isinstance(other, DeferredError) or \
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


def branch_copies(values: Iterable[Any]) -> tuple[Any, ...]:
    """`values` with each staged list replaced by a copy, so that what one branch of a staged
    `if` appends is not seen by the other."""
    return tuple(v.copy() if isinstance(v, StagedList) else v for v in values)


def _merge_symbol(name, a, b, then_sub, else_sub, then_outs, else_outs, specs):
    """Reconciles one variable's values from the two branches; returns a function that
    rebuilds the merged value from the If op's outputs."""
    a, b = resolve_pending(a), resolve_pending(b)
    if a is b and isinstance(a, MaybeUndefined):
        return lambda outputs: a  # neither branch assigns it
    if _needs_flag(name, a, b):
        return _merge_flagged(name, with_flag(name, a, b, then_sub),
                              with_flag(name, b, a, else_sub),
                              then_sub, else_sub, then_outs, else_outs, specs)
    a, b = _promote_to_staged_list(name, a, b), _promote_to_staged_list(name, b, a)
    a, b = _spread_undefined(a, b), _spread_undefined(b, a)
    if nest.structure_signature(a) != nest.structure_signature(b):
        fail(TypeError, "%s has a different structure in the two branches: %r vs %r"
             % (describe(name), a, b))
    if a is b and isinstance(a, list):
        _refuse_list_grown_in_branch(name, a, then_sub, else_sub)
    template = join_metadata(name, a, b, ("in the if branch", "in the else branch"))
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
    if is_compiler_symbol(name) or any(_stands_for_compiler_symbol(v) for v in (a, b)):
        return False
    if isinstance(a, MaybeUndefined) or isinstance(b, MaybeUndefined):
        return True
    return isinstance(a, Undefined) != isinstance(b, Undefined)


def _stands_for_compiler_symbol(value):
    """True for a value of the compiler's own symbols (no definedness flag), met under
    another name: a return value, or its loop-carried stand-in, merged by a conditional
    expression such as the one choosing the return value after a `finally:` block."""
    return isinstance(value, UndefinedReturnValue) or \
        (isinstance(value, PendingUndefined) and not value.flagged)


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


def _promote_to_staged_list(name, value, other):
    """A plain list `value` as a staged list when the other branch turned it into one (a
    loop on a tensor in that branch appended to it)."""
    if isinstance(other, StagedList) and isinstance(value, list):
        staged = StagedList.candidate(value, name)
        if staged is not None:
            return staged
    return value


def _refuse_list_grown_in_branch(name, value, then_sub, else_sub):
    """Both branches hand back the same Python list: a branch changed it in place (appended
    to it). Holding a tensor computed in a branch, it cannot be merged by an If op."""
    for leaf in nest.flatten(value):
        if _escaped(leaf, then_sub) or _escaped(leaf, else_sub):
            fail(ValueError, "%s is a Python list that a branch of a conditional on a tensor "
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
        fail(TypeError, "%s has dtype %s in the if branch but %s in the else branch; a "
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
        return sub.graph.capture(python_to_tensor(value, name, hint))


def _neutral_like(name, other):
    """A zero (or False) standing in for a compiler symbol only the other branch sets."""
    if isinstance(other, (Tensor, Variable)):
        return placeholder_value(name, other)
    return python_to_tensor(type(other)(), name)
