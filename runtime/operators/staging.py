"""Shared machinery for staging Python control flow as graph ops.

Converted statements carry their state as a tuple of values, one per variable the statement
modifies (`symbol_names` names them, for error messages). Staging a statement means tracing
its branches or body into sub-graphs and reconciling the state they produce:
  * Python numbers and bools become tensors where the other side (or the loop) has tensors;
  * a variable assigned in only one branch is an error naming it, unless it is one of the
    compiler's own flags and return values, which get a neutral value (zeros / False);
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

import contextlib
import re
import threading

import numpy as np

from runtime import context
from runtime import control_flow
from runtime import dtypes
from runtime import errors
from runtime import nest
from runtime import shape as shape_lib
from runtime import tensor_array
from runtime.operators.composites import Missing
from runtime.operators.undefined import DeadValue, Undefined, UndefinedReturnValue
from runtime.ops import array_ops, common
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor
from runtime.variables import Variable

# Variables the compiler introduces; when only one branch sets them, the other side gets a
# neutral value (the flag is False there, or the return value is never used).
COMPILER_SYMBOLS = ("do_return", "retval_", "break_", "continue_")


_try_bodies = threading.local()


@contextlib.contextmanager
def try_body(where):
    """Marks the body of a `try` that has `except` clauses (`where` is its 'file:line').

    Staging control flow into the graph being traced there is refused: its ops would run
    later, when the graph runs, where the `except` clauses can no longer catch what they
    raise. Running eagerly (no graph), or tracing a separate Function, is fine."""
    stack = getattr(_try_bodies, "stack", None)
    if stack is None:
        stack = _try_bodies.stack = []
    graph = context.current_graph()
    stack.append((where, graph.root if graph is not None else None))
    try:
        yield
    finally:
        stack.pop()


def refuse_inside_try(what):
    """Raises NotImplementedError when `what` would be staged into the graph of a trace that
    is inside a try body."""
    stack = getattr(_try_bodies, "stack", None)
    if not stack:
        return
    graph = context.current_graph()
    root = graph.root if graph is not None else None
    for where, try_root in reversed(stack):
        if try_root is not None and try_root is root:
            _fail(NotImplementedError,
                  "%s on a tensor cannot be staged inside the `try` at %s: errors raised when "
                  "the graph runs cannot be caught by its `except` clauses. Move the "
                  "tensor-dependent code out of the try, or the try out of the traced "
                  "function" % (what, where))


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
    if isinstance(value, tensor_array.StagedList):
        length = value._len()
        return length > 0
    return value


_COMPILER_SYMBOL = re.compile(r"(%s)(_\d+)?\Z" % "|".join(COMPILER_SYMBOLS))


def _is_compiler_symbol(name):
    """The compiler's names are the bases above, or a base plus `_N` when the user's
    function already uses the base."""
    return name is not None and _COMPILER_SYMBOL.match(name) is not None


def _fail(error_class, message):
    raise error_class(errors.with_user_location(message, errors.user_location(3)))


def _python_to_tensor(value, name, dtype_hint=None):
    if isinstance(value, (bool, int, float, str, bytes, np.ndarray, np.generic)):
        return common.convert_to_tensor(value, dtype_hint=dtype_hint)
    if isinstance(value, Variable):
        return value.read_value()
    _fail(TypeError, "'%s' holds a Python %s (%r), which cannot be carried through staged "
          "control flow: only tensors, numbers, bools and strings (and nested "
          "tuples/lists/dicts of them) can" % (name, type(value).__name__, value))


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
    then_sub, then_value = control_flow.trace_subgraph("cond_true", lambda: true_fn(), [])
    else_sub, else_value = control_flow.trace_subgraph("cond_false", lambda: false_fn(), [])
    if symbol_names is None:
        names = ["value"]
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
        _fail(ValueError, "'%s' exists after the %s branch of a conditional on a tensor but "
              "not after the %s branch (it does not exist before the conditional, or one "
              "branch deletes it): set it before the conditional or in both branches"
              % ((name,) + (("else", "if") if isinstance(a, Missing) else ("if", "else"))))


def branch_copies(values):
    """`values` with each staged list replaced by a copy, so that what one branch of a staged
    `if` appends is not seen by the other."""
    return tuple(v.copy() if isinstance(v, tensor_array.StagedList) else v for v in values)


def _merge_symbol(name, a, b, then_sub, else_sub, then_outs, else_outs, specs):
    """Reconciles one variable's values from the two branches; returns a function that
    rebuilds the merged value from the If op's outputs."""
    a, b = _promote_to_staged_list(name, a, b), _promote_to_staged_list(name, b, a)
    if nest.structure_signature(a) != nest.structure_signature(b):
        _fail(TypeError, "'%s' has a different structure in the two branches: %r vs %r"
              % (name, a, b))
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


def _promote_to_staged_list(name, value, other):
    """A plain list `value` as a staged list when the other branch turned it into one (a
    loop on a tensor in that branch appended to it)."""
    if isinstance(other, tensor_array.StagedList) and isinstance(value, list):
        staged = tensor_array.StagedList.candidate(value, name)
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
            _fail(ValueError, "'%s' is a Python list that a branch of a conditional on a tensor "
                  "appends a tensor to; a list cannot grow inside a staged branch. Append "
                  "after the conditional (e.g. a value chosen with tf.where or tf.cond), or "
                  "build it in a loop on a tensor (staged as a TensorArray) or with "
                  "tf.TensorArray" % name)


def _merge_leaf(name, x, y, then_sub, else_sub, then_outs, else_outs, specs):
    x_undefined, y_undefined = isinstance(x, Undefined), isinstance(y, Undefined)
    if x_undefined and y_undefined:
        return lambda outputs: x
    if x_undefined or y_undefined:
        if not (_is_compiler_symbol(name) or isinstance(x if x_undefined else y,
                                                          UndefinedReturnValue)):
            branch = "else" if y_undefined else "if"
            _fail(ValueError, "'%s' must also be initialized in the %s branch: it is assigned "
                  "in only one branch of a conditional on a tensor and used afterwards"
                  % (name, branch))
    if (x is None or x_undefined) and (y is None or y_undefined):
        return lambda outputs: None  # e.g. a bare `return` on one side, none on the other
    if not x_undefined and not y_undefined and not isinstance(x, (Tensor, Variable)) and \
            not isinstance(y, (Tensor, Variable)) and _same_python_value(x, y):
        return lambda outputs: x
    tx = _branch_tensor(name, x, y, then_sub)
    ty = _branch_tensor(name, y, x, else_sub)
    if tx.dtype is not ty.dtype:
        _fail(TypeError, "'%s' has dtype %s in the if branch but %s in the else branch; a "
              "variable must keep one dtype through a conditional on a tensor"
              % (name, tx.dtype.name, ty.dtype.name))
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
    """A zero (or False) standing in for a value only the other branch defines."""
    if isinstance(other, Variable):
        other = other.read_value()
    if isinstance(other, Tensor):
        shape = other._shape_tuple()
        if shape is None or None in shape:
            _fail(ValueError, "'%s' is set in only one branch of a conditional on a tensor, "
                  "with a shape (%s) not known when the graph is built"
                  % (name, shape_lib.to_string(shape)))
        return array_ops.zeros(list(shape), other.dtype)
    return _python_to_tensor(type(other)(), name)


# -- loops ---------------------------------------------------------------------------------------


class LoopState:
    """The flattened loop variables: one entry per tensor leaf, plus the structure per name."""

    def __init__(self, names, values):
        self.names = list(names)
        self.templates = list(values)
        self.leaf_names = []
        self.leaves = []
        for name, value in zip(self.names, self.templates):
            for leaf in nest.flatten(value):
                self.leaf_names.append(name)
                self.leaves.append(leaf)

    def rebuild(self, leaves):
        """Per-variable values with the leaves replaced by `leaves`."""
        out = []
        position = 0
        for template in self.templates:
            count = len(nest.flatten(template))
            chunk = leaves[position:position + count]
            position += count
            out.append(nest.pack_sequence_as(template, chunk) if nest.is_nested(template)
                       else chunk[0])
        return out


def staged_loop(names, init, cond_fn, body_fn, stage_lists="empty"):
    """Stages a loop as a While op.

    `init` holds one value per name; `cond_fn(values)` returns the continuation condition
    and `body_fn(values)` the values after one iteration. Returns the final values.

    A variable still undefined before the loop gets its dtype and shape from a throwaway
    trace of the body; if the body never assigns it (the assignment sits behind a Python
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
            _fail(ValueError, "'%s' does not exist before a loop on a tensor that sets it, so "
                  "it would exist after the loop only if the loop runs at least once: set it "
                  "before the loop" % name)


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
    the values after the first traced iteration before anything else does."""
    learned = {}
    if any(isinstance(v, Undefined) for v in init):
        learned = _learn_undefined_specs(names, init, body_fn)
        carried = [i for i, v in enumerate(init)
                   if not isinstance(v, Undefined) or learned[i] is not None]
        if len(carried) < len(init):
            return _loop_without(names, init, carried, learned, cond_fn, body_fn, check)
    state = LoopState(names, init)
    state.templates = [tensor_array.entering_loop(t) for t in state.templates]
    init_leaves = _initial_leaves(state, learned)
    specs = [(t.dtype, t._shape) for t in init_leaves]
    for _ in range(3):
        body_sub, body_out = control_flow.trace_subgraph(
            "while_body", lambda *ph: body_fn(state.rebuild(list(ph))), specs,
            state.leaf_names)
        if check is not None:
            check(init, body_out)
        outs, relaxed = _check_body_outputs(state, body_out, body_sub, specs)
        # A TensorArray's element shape or dtype learned in the body holds for the loop's
        # result without tracing again (the traced body stays valid); a changed static
        # size does need it (the body may have used it as a constant).
        joined = _joined_templates(state, body_out)
        sizes_changed = False
        if joined is not None:
            sizes_changed = (tensor_array.static_sizes(joined) !=
                             tensor_array.static_sizes(state.templates))
            state.templates = joined
        if relaxed == specs and not sizes_changed:
            break
        specs = relaxed
    else:
        _fail(ValueError, "the loop variables %s keep changing shape across iterations"
              % ", ".join(sorted(set(state.leaf_names))))
    body_sub.outputs = outs
    cond_sub, cond_value = control_flow.trace_subgraph(
        "while_cond", lambda *ph: cond_fn(state.rebuild(list(ph))), specs, state.leaf_names)
    with cond_sub.graph.as_default():
        cond_value = as_condition(cond_value)
        if not isinstance(cond_value, Tensor):
            cond_value = common.convert_to_tensor(bool(cond_value))
        require_scalar_bool(cond_value, "a while loop")
        cond_sub.outputs = [cond_sub.graph.capture(cond_value)]
    outputs = control_flow.build_while(init_leaves, cond_sub, body_sub, specs)
    return state.rebuild(list(outputs))


def _joined_templates(state, body_out):
    """The loop variables' templates with the metadata of their TensorArrays joined with
    the body's (an element shape learned in the body), or None when nothing changes."""
    joined = [_join(name, template, value, ("before the loop", "after an iteration"))
              for name, template, value in zip(state.names, state.templates, body_out)]
    if all(a is b for a, b in zip(joined, state.templates)):
        return None
    return joined


def _loop_without(names, init, carried, learned, cond_fn, body_fn, check=None):
    """Stages the loop over the `carried` variables only; the others stay as they are."""
    def full(values):
        out = list(init)
        for i, value in zip(carried, values):
            out[i] = value
        return out

    def body(values):
        after = body_fn(full(values))
        return [after[i] for i in carried]

    result = _staged_loop([names[i] for i in carried], [init[i] for i in carried],
                          lambda values: cond_fn(full(values)), body, check)
    return full(result)


def _initial_leaves(state, learned):
    leaves = []
    for i, (name, leaf) in enumerate(zip(state.leaf_names, state.leaves)):
        if isinstance(leaf, Undefined):
            dtype, shape = learned[state.names.index(name)]
            if shape is None or None in shape:
                _fail(ValueError, "'%s' must be defined before the loop: it is first assigned "
                      "inside a loop on a tensor, with a shape (%s) that is not known before "
                      "the loop runs" % (name, shape_lib.to_string(shape)))
            leaves.append(array_ops.zeros(list(shape), dtype))
        elif isinstance(leaf, Tensor):
            leaves.append(leaf)
        else:
            leaves.append(_python_to_tensor(leaf, name))
    return leaves


def _learn_undefined_specs(names, init, body_fn):
    """Traces the body once, throwaway, to learn the type of variables first set inside it.

    Returns {index: (dtype, shape)} for each undefined variable the body assigns, and
    {index: None} for those it leaves undefined."""
    state = LoopState(names, init)
    specs = []
    for i, leaf in enumerate(state.leaves):
        if isinstance(leaf, Undefined):
            specs.append(None)
        elif isinstance(leaf, Tensor):
            specs.append((leaf.dtype, leaf._shape))
        else:
            specs.append((_python_to_tensor(leaf, state.leaf_names[i]).dtype, ()))
    defined = [i for i, s in enumerate(specs) if s is not None]

    def trial(*placeholders):
        leaves = list(state.leaves)
        for i, ph in zip(defined, placeholders):
            leaves[i] = ph
        try:
            return body_fn(state.rebuild(leaves))
        except UnboundLocalError as e:
            _fail(ValueError, "a variable must be defined before the loop: %s" % e)

    _, out = control_flow.trace_subgraph("trial_body", trial, [specs[i] for i in defined])
    learned = {}
    for i, (before, after) in enumerate(zip(init, out)):
        if not isinstance(before, Undefined):
            continue
        if isinstance(after, Undefined):
            learned[i] = None
            continue
        if nest.is_nested(after):
            _fail(TypeError, "'%s' is first assigned inside a loop on a tensor, with a nested "
                  "value (%r); define it before the loop" % (names[i], after))
        tensor = after if isinstance(after, Tensor) else _python_to_tensor(after, names[i])
        learned[i] = (tensor.dtype, tensor._shape)
    return learned


def _check_body_outputs(state, body_out, body_sub, specs):
    outs = []
    relaxed = []
    for name, template, value in zip(state.names, state.templates, body_out):
        if nest.structure_signature(template) != nest.structure_signature(value):
            _fail(TypeError, "loop variable '%s' changed structure in the loop body: it was "
                  "%r before the loop and %r after an iteration" % (name, template, value))
    flat = [leaf for value in body_out for leaf in nest.flatten(value)]
    with body_sub.graph.as_default():
        for name, leaf, (dtype, shape) in zip(state.leaf_names, flat, specs):
            if isinstance(leaf, Undefined):
                _fail(ValueError, "loop variable '%s' is undefined after an iteration" % name)
            if not isinstance(leaf, Tensor):
                leaf = _python_to_tensor(leaf, name, dtype)
            if leaf.dtype is not dtype:
                _fail(TypeError, "loop variable '%s' changed dtype in the loop body: it was %s "
                      "before the loop and %s after an iteration" % (name, dtype.name,
                                                                     leaf.dtype.name))
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
            staged = tensor_array.StagedList.candidate(value, names[i])
            if staged is not None:
                current[i] = staged
    while True:
        origins = {v._origin: i for i, v in enumerate(current)
                   if isinstance(v, tensor_array.StagedList) and v is not init[i]}
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
        return [v._origin.values if isinstance(v, tensor_array.StagedList) and
                v._origin in origins and v._origin.python else v for v in final]


def _list_check(token, origins):
    """The `check` deciding, after the first traced iteration, how each list is carried."""
    def check(values, body_out):
        restart = []
        for value, after in zip(values, body_out):
            origin = value._origin if isinstance(value, tensor_array.StagedList) else None
            if origin not in origins or not origin.trial:
                continue
            if not (isinstance(after, tensor_array.StagedList) and after._origin is origin):
                restart.append(origins[origin])
            elif origin.unstageable and origin.appended:
                _fail(TypeError, "'%s' is a list that a loop on a tensor appends both tensors "
                      "and other Python values (%r) to; a list grown in such a loop is staged "
                      "as a TensorArray and holds tensors of one dtype and shape only"
                      % (origin.name, [v for v in origin.values
                                       if not isinstance(v, Tensor)][:3]))
            elif origin.unstageable or not origin.appended:
                origin.python = True
        if restart:
            raise _Restart(token, restart)
        for origin in origins:
            origin.trial = False
    return check
