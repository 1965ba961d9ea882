"""Staging a loop on a tensor as a While op: the body traced (again, until the loop
variables' types settle), variables undefined before the loop typed from the body.

See runtime.operators.staging for how loop state is reconciled, and
runtime.operators.loop_lists for the Python lists a loop appends to.
"""

from typing import Any, Callable, Collection, Iterable, Mapping, Sequence

from runtime import context, dtypes, nest, subgraphs, tensor_array
from runtime import shape as shape_lib
from runtime.composite.base import CompositeTensor
from runtime.operators import staging_log
from runtime.operators.composites import Missing
from runtime.operators.deferred_errors import DeferredError
from runtime.operators.loop_lists import Restart, list_check
from runtime.operators.pending_undefined import (
    PendingUndefined,
    UntypedRead,
    resolve_pending,
    trial,
    with_flag,
)
from runtime.operators.staged_lists import StagedList
from runtime.operators.staging import (
    LOOP_BODY,
    as_condition,
    describe,
    fail,
    join_metadata,
    python_to_tensor,
    raising_at_run_time,
    refuse_inside_try,
    require_scalar_bool,
)
from runtime.operators.undefined import MaybeUndefined, Undefined
from runtime.ops import common, control_flow_ops
from runtime.tensor import EagerTensor, Tensor
from runtime.tensor_array.value import variant
from runtime.variables import Variable


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

    def __init__(self, names: Iterable[str], values: Iterable[Any]) -> None:
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

    def split(self, leaves: Sequence[Any]) -> list[list[Any]]:
        """`leaves` (one per leaf of the state) in one list per variable."""
        out, position = [], 0
        for count in self.counts:
            out.append(list(leaves[position:position + count]))
            position += count
        return out

    def rebuild(self, leaves: Sequence[Any]) -> list[Any]:
        """Per-variable values with the leaves replaced by `leaves`."""
        return [_pack_state(t, chunk) for t, chunk in zip(self.templates, self.split(leaves))]


def staged_loop(names: Sequence[str], init: Sequence[Any],
                cond_fn: Callable[[list[Any]], Any], body_fn: Callable[[list[Any]], Any],
                stage_lists: bool | str = "empty", invariants: Mapping[int, Any] | None = None,
                must_exist: Collection[str] = ()) -> list[Any]:
    """Stages a loop as a While op.

    `init` holds one value per name; `cond_fn(values)` returns the continuation condition
    and `body_fn(values)` the values after one iteration. Returns the final values.

    A variable still undefined before the loop enters the body as a PendingUndefined, which
    learns its type from the body; after the loop it is a MaybeUndefined (undefined when the
    loop ran zero times). If the body never assigns it (the assignment sits behind a Python
    condition that is false while tracing), it is not carried and stays undefined.

    A Python list variable the body appends tensors to is carried as a TensorArray (see
    runtime.operators.loop_lists): with `stage_lists=True` (converted loops) any list of
    tensors, by default only lists that start empty. (A list of tensors that the body
    assigns anew costs a second trace of the body to find out; tf.while_loop's own list of
    loop variables is such a list, and never empty.)

    `invariants` maps a variable's index to the static shape of each of its tensor leaves
    (shape invariants, see runtime.operators.loop_options): the loop carries it with those
    shapes, and a value that does not fit them is an error naming the variable.

    A key or attribute missing before the loop (`y['a']` the body creates) is carried like
    an undefined variable, with a definedness flag, unless named in `must_exist`."""
    refuse_inside_try("a loop")
    init = list(init)
    _refuse_missing_before_loop(names, init, must_exist)
    init = [_captured(value) for value in init]
    if stage_lists and any(type(v) is list and (stage_lists is True or not v) for v in init):
        return _staged_loop_with_lists(names, init, cond_fn, body_fn, stage_lists is True,
                                       invariants)
    return _staged_loop(names, init, cond_fn, body_fn, invariants=invariants)


def _refuse_missing_before_loop(names, init, must_exist):
    """A key or attribute named in `must_exist` (of an object the function did not make)
    that does not exist before the loop: Python creates it only if the loop runs, which
    would leave a definedness flag inside an object that outlives the call. (Those of
    objects the function made are carried with a flag, like variables.)"""
    for name, value in zip(names, init):
        if name in must_exist and isinstance(value, Missing):
            fail(ValueError, "%s does not exist before a loop on a tensor that sets it, so "
                 "it would exist after the loop only if the loop runs at least once, and "
                 "its object is not one the function made: set it before the loop"
                 % describe(name))


def _captured(value):
    """`value` with its eager tensors captured into the graph being built (a loop variable
    may start as a tensor made outside the function: an attribute set in `__init__`). Lists
    stay as they are: a list loop variable is tracked by identity (see
    runtime.operators.loop_lists)."""
    graph = context.current_graph()
    if graph is None or isinstance(value, list):
        return value
    if isinstance(value, EagerTensor):
        return graph.capture(value)
    if isinstance(value, (tuple, dict, CompositeTensor)) and \
            any(isinstance(leaf, EagerTensor) for leaf in nest.flatten(value)):
        return nest.map_structure(
            lambda leaf: graph.capture(leaf) if isinstance(leaf, EagerTensor) else leaf, value)
    return value


def _staged_loop_with_lists(names, init, cond_fn, body_fn, nonempty, invariants):
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
            return _staged_loop(names, current, cond_fn, body_fn, invariants=invariants)
        token = object()
        try:
            final = _staged_loop(names, current, cond_fn, body_fn, list_check(token, origins),
                                 invariants)
        except Restart as restart:
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
        if staging_log.active is not None:
            staging_log.active.staged_lists([o.name for o in origins if not o.python])
        return [v._origin.values if isinstance(v, StagedList) and
                v._origin in origins and v._origin.python else v for v in final]


def _staged_loop(names, init, cond_fn, body_fn, check=None, invariants=None):
    """`staged_loop` once the lists are settled; `check(init, body_out)`, when given, sees
    the values after the first traced iteration before anything else does.

    The body is traced again only when what it gives a variable does not fit how the
    variable entered: a shape to relax, a TensorArray size learned, a definedness flag a
    variable defined before the loop needs (a `del` in the body)."""
    forms = [resolve_pending(value) for value in init]
    var_specs = [[_leaf_spec(leaf, name) for leaf in _state_leaves(value)]
                 for name, value in zip(names, forms)]
    fixed = _invariant_specs(names, forms, var_specs, invariants or {})
    var_specs = [fixed.get(i, chunk) for i, chunk in enumerate(var_specs)]
    learned = None
    for _ in range(4):
        state = LoopState(names, [tensor_array.entering_loop(t) for t in forms])
        specs = [spec for chunk in var_specs for spec in chunk]
        traced = _BodyTrace(names, state, body_fn, learned)
        try:
            body_sub, body_out = subgraphs.trace_subgraph("while_body", traced, specs,
                                                             state.leaf_names)
        except UntypedRead:
            if learned is not None or getattr(trial, "active", False):
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
                                            [s for chunk in entry_specs for s in chunk],
                                            fixed)
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
        fail(ValueError, "the loop variables %s keep changing shape across iterations"
             % ", ".join(sorted(set(state.leaf_names))))
    body_sub.outputs = outs
    specs = relaxed
    cond_sub, cond_value = subgraphs.trace_subgraph(
        "while_cond", lambda *ph: cond_fn(entry.rebuild(list(ph))), specs, entry.leaf_names)
    with cond_sub.graph.as_default():
        cond_value = as_condition(cond_value)
        if not isinstance(cond_value, Tensor):
            cond_value = common.convert_to_tensor(bool(cond_value))
        require_scalar_bool(cond_value, "a while loop")
        cond_sub.outputs = [cond_sub.graph.capture(cond_value)]
    init_leaves = [_to_tensor(leaf, name, dtype) for leaf, name, (dtype, _) in
                   zip(LoopState(names, forms).leaves, entry.leaf_names, specs)]
    outputs = control_flow_ops.build_while(init_leaves, cond_sub, body_sub, specs)
    return entry.rebuild(list(outputs))


_BODY = ("the body of a loop on a tensor", LOOP_BODY)


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
        out = raising_at_run_time(self.body_fn, _BODY)(values)
        return values if isinstance(out, DeferredError) else out

    def pending_list(self):
        """The PendingUndefined per variable (None for the others)."""
        return [self.pending.get(i) for i in range(len(self.names))]


def _learn_types(state, specs, traced):
    """Types the variables that enter a loop undefined when the body reads one before it
    assigns it (a read in a branch that only later iterations take): traces the body once
    more, throwaway, with such reads raising, and returns {index: value} with what the
    body assigns them, for the real trace to start them typed. (The body's trace-time
    Python side effects run twice here.)

    A variable the trial does not assign is assigned on no path of the body that does not
    read it first, so no iteration ever assigns it: in the real trace its reads raise."""
    trial.active = True
    try:
        _, body_out = subgraphs.trace_subgraph("trial_body", traced, specs,
                                                  state.leaf_names)
    finally:
        trial.active = False
    learned = {}
    for i, (pending, out) in enumerate(zip(traced.pending_list(), body_out)):
        if pending is None:
            continue
        out = resolve_pending(out)
        if pending.materialized is not None:
            out = pending.materialized
        if not isinstance(out, Undefined):
            learned[i] = out.value if isinstance(out, MaybeUndefined) else out
    return learned


def _leaf_spec(leaf, name):
    if isinstance(leaf, Tensor):
        return (leaf.dtype, leaf._shape_tuple())
    if isinstance(leaf, Variable):
        return (leaf.dtype, leaf._static_shape)
    tensor = python_to_tensor(leaf, name)
    return (tensor.dtype, tensor._shape)


def _to_tensor(leaf, name, dtype):
    return leaf if isinstance(leaf, Tensor) else python_to_tensor(leaf, name, dtype)


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
        out = resolve_pending(out)
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
            out = with_flag(name, out, template, body_sub)
        entry.append(template)
        placeholders.append(chunk)
        outputs.append(out)
    return LoopState(state.names, entry), placeholders, outputs


def _joined_templates(state, body_out):
    """The loop variables' templates with the metadata of their TensorArrays joined with
    the body's (an element shape learned in the body), or None when nothing changes."""
    joined = [join_metadata(name, template, value, ("before the loop", "after an iteration"))
              if not isinstance(template, (Undefined, MaybeUndefined)) else template
              for name, template, value in zip(state.names, state.templates, body_out)]
    if all(a is b for a, b in zip(joined, state.templates)):
        return None
    return joined


def _invariant_specs(names, forms, var_specs, invariants):
    """{index: leaf specs} for the variables with shape invariants: each leaf's static shape
    replaced by its invariant, once the value entering the loop fits it (a TensorArray's
    handle keeps its own)."""
    fixed = {}
    for index, shapes in invariants.items():
        if isinstance(forms[index], (Undefined, MaybeUndefined, StagedList)):
            continue  # carried as they are
        chunk = var_specs[index]
        if len(shapes) != len(chunk):
            fail(ValueError, "the shape invariants of %s give %d shapes for its %d tensors"
                 % (describe(names[index], "loop variable"), len(shapes), len(chunk)))
        specs = []
        for (dtype, shape), invariant in zip(chunk, shapes):
            if dtype is variant:  # a TensorArray's handle
                specs.append((dtype, shape))
                continue
            if not shape_lib.is_subtype(shape, invariant):
                fail(ValueError, "%s has shape %s before the loop, which does not fit its "
                     "shape invariant %s" % (describe(names[index], "loop variable"),
                                             shape_lib.to_string(shape),
                                             shape_lib.to_string(invariant)))
            specs.append((dtype, invariant))
        fixed[index] = specs
    return fixed


def _check_body_outputs(state, body_out, body_sub, specs, fixed=None):
    """The body's results as tensors of the body graph, and the loop variables' specs
    relaxed to fit them; a variable with a shape invariant (`fixed`, by index) must fit it."""
    fixed_leaves = _fixed_leaf_positions(state, fixed or {})
    outs = []
    relaxed = []
    for name, template, value in zip(state.names, state.templates, body_out):
        if _state_signature(template) != _state_signature(value):
            shown = [v.value if isinstance(v, MaybeUndefined) else v for v in (template, value)]
            fail(TypeError, "%s changed structure in the loop body: it was %r before the "
                 "loop and %r after an iteration" % (describe(name, "loop variable"),
                                                      shown[0], shown[1]))
    flat = [leaf for value in body_out for leaf in _state_leaves(value)]
    with body_sub.graph.as_default():
        for name, leaf, (dtype, shape) in zip(state.leaf_names, flat, specs):
            if isinstance(leaf, Undefined):
                fail(ValueError, "%s is undefined after an iteration"
                     % describe(name, "loop variable"))
            if not isinstance(leaf, Tensor):
                leaf = python_to_tensor(leaf, name, dtype)
            if leaf.dtype is not dtype:
                fail(TypeError, "%s changed dtype in the loop body: it was %s before the "
                     "loop and %s after an iteration" % (describe(name, "loop variable"),
                                                         dtype.name, leaf.dtype.name))
            leaf = body_sub.graph.capture(leaf)
            outs.append(leaf)
            if len(outs) - 1 in fixed_leaves and not shape_lib.is_subtype(leaf._shape, shape):
                fail(ValueError, "%s has shape %s after an iteration, which does not fit "
                     "its shape invariant %s" % (describe(name, "loop variable"),
                                                shape_lib.to_string(leaf._shape),
                                                shape_lib.to_string(shape)))
            new_shape = shape if shape_lib.is_subtype(leaf._shape, shape) else \
                shape_lib.relax(shape, leaf._shape)
            relaxed.append((dtype, new_shape))
    return outs, relaxed


def _fixed_leaf_positions(state, fixed):
    """The positions, among all the state's leaves, of the leaves of the variables with
    shape invariants."""
    positions: set[int] = set()
    start = 0
    for index, count in enumerate(state.counts):
        if index in fixed:
            positions.update(range(start, start + count))
        start += count
    return positions
