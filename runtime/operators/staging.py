"""Shared machinery for staging Python control flow as graph ops.

Converted statements carry their state as a tuple of values, one per variable the statement
modifies (`symbol_names` names them, for error messages). Staging a statement means tracing
its branches or body into sub-graphs and reconciling the state they produce:
  * Python numbers and bools become tensors where the other side (or the loop) has tensors;
  * a variable assigned in only one branch is an error naming it, unless it is one of the
    compiler's own flags and return values, which get a neutral value (zeros / False);
  * a variable whose dtype or nesting structure differs between branches or iterations is
    an error naming it and both types;
  * a loop variable whose shape changes across iterations is relaxed to None dimensions.
"""

import contextlib
import re
import threading

import numpy as np

from runtime import control_flow
from runtime import dtypes
from runtime import errors
from runtime import nest
from runtime import shape as shape_lib
from runtime.operators.undefined import DeadValue, Undefined, UndefinedReturnValue
from runtime.ops import array_ops, common
from runtime.tensor import SymbolicTensor, Tensor
from runtime.variables import Variable

# Variables the compiler introduces; when only one branch sets them, the other side gets a
# neutral value (the flag is False there, or the return value is never used).
COMPILER_SYMBOLS = ("do_return", "retval_", "break_", "continue_")


_try_bodies = threading.local()


@contextlib.contextmanager
def try_body(where):
    """Marks the body of a `try` that has `except` clauses (`where` is its 'file:line').

    Staging control flow there is refused: the ops would run later, when the graph runs,
    where the `except` clauses can no longer catch what they raise."""
    stack = getattr(_try_bodies, "stack", None)
    if stack is None:
        stack = _try_bodies.stack = []
    stack.append(where)
    try:
        yield
    finally:
        stack.pop()


def refuse_inside_try(what):
    """Raises NotImplementedError when `what` (a staged statement) is inside a try body."""
    stack = getattr(_try_bodies, "stack", None)
    if stack:
        _fail(NotImplementedError,
              "%s on a tensor cannot be staged inside the `try` at %s: errors raised when the "
              "graph runs cannot be caught by its `except` clauses. Move the tensor-dependent "
              "code out of the try, or the try out of the traced function" % (what, stack[-1]))


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
    """Reads variables, so that `if v:` on a Variable sees a tensor."""
    if isinstance(value, Variable):
        return value.read_value()
    return value


_COMPILER_SYMBOL = re.compile(r"(%s)(_\d+)?\Z" % "|".join(COMPILER_SYMBOLS))


def _is_compiler_symbol(name):
    """The compiler's names are the bases above, or a base plus `_N` when the user's
    function already uses the base."""
    return name is not None and _COMPILER_SYMBOL.match(name) is not None


def _fail(error_class, message):
    raise error_class(errors.with_user_location(message, errors.user_location(3)))


def _python_to_tensor(value, name, dtype_hint=None):
    if isinstance(value, (bool, int, float, np.ndarray, np.generic)):
        return common.convert_to_tensor(value, dtype_hint=dtype_hint)
    if isinstance(value, Variable):
        return value.read_value()
    _fail(TypeError, "'%s' holds a Python %s (%r), which cannot be carried through staged "
          "control flow: only tensors, numbers and bools (and nested tuples/lists/dicts of "
          "them) can" % (name, type(value).__name__, value))


def require_scalar_bool(value, what):
    """Checks that a staged condition is a scalar bool tensor."""
    if value.dtype is not dtypes.bool_:
        _fail(TypeError, "the condition of %s must be a bool tensor, got %s" % (
            what, value.dtype.name))
    if value._shape not in ((), None):
        _fail(ValueError, "the condition of %s must be a scalar, got shape %s; reduce it "
              "with tf.reduce_all or tf.reduce_any" % (what, shape_lib.to_string(value._shape)))


# -- conditionals ------------------------------------------------------------------------------


def staged_cond(pred, true_fn, false_fn, what, symbol_names=None):
    """Traces both functions as branches of an If op on `pred`; returns the merged result.

    With `symbol_names`, the functions return one value per named variable."""
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
        builders.append(_merge_symbol(name, a, b, then_sub, else_sub, then_outs, else_outs,
                                      specs))
    then_sub.outputs = then_outs
    else_sub.outputs = else_outs
    outputs = control_flow.build_if(pred, then_sub, else_sub, specs)
    merged = [build(outputs) for build in builders]
    return merged[0] if symbol_names is None else tuple(merged)


def _merge_symbol(name, a, b, then_sub, else_sub, then_outs, else_outs, specs):
    """Reconciles one variable's values from the two branches; returns a function that
    rebuilds the merged value from the If op's outputs."""
    if nest.structure_signature(a) != nest.structure_signature(b):
        _fail(TypeError, "'%s' has a different structure in the two branches: %r vs %r"
              % (name, a, b))
    leaves = []
    for x, y in zip(nest.flatten(a), nest.flatten(b)):
        leaves.append(_merge_leaf(name, x, y, then_sub, else_sub, then_outs, else_outs, specs))

    def build(outputs):
        values = [leaf(outputs) for leaf in leaves]
        return nest.pack_sequence_as(a, values) if nest.is_nested(a) else values[0]
    return build


def _merge_leaf(name, x, y, then_sub, else_sub, then_outs, else_outs, specs):
    if _escaped(x, then_sub) or _escaped(y, else_sub):
        # The compiler carries variables a branch reads before assigning, so that both
        # branches start from the same values. Such a variable may end a branch holding a
        # tensor private to a finished loop body; the analysis guarantees it is dead after
        # the statement, so it is not merged.
        return lambda outputs: DeadValue(name)
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
    """True for a dead value: a symbolic tensor of a graph that neither is nor encloses
    branch `sub`, or a DeadValue from an inner statement."""
    if isinstance(value, DeadValue):
        return True
    if not isinstance(value, SymbolicTensor):
        return False
    graph = sub.graph
    while graph is not None:
        if value.graph is graph:
            return False
        graph = graph.outer
    return True


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


def staged_loop(names, init, cond_fn, body_fn):
    """Stages a loop as a While op.

    `init` holds one value per name; `cond_fn(values)` returns the continuation condition
    and `body_fn(values)` the values after one iteration. Returns the final values.

    A variable still undefined before the loop gets its dtype and shape from a throwaway
    trace of the body; if the body never assigns it (the assignment sits behind a Python
    condition that is false while tracing), it is not carried and stays undefined."""
    refuse_inside_try("a loop")
    init = list(init)
    learned = {}
    if any(isinstance(v, Undefined) for v in init):
        learned = _learn_undefined_specs(names, init, body_fn)
        carried = [i for i, v in enumerate(init)
                   if not isinstance(v, Undefined) or learned[i] is not None]
        if len(carried) < len(init):
            return _loop_without(names, init, carried, learned, cond_fn, body_fn)
    state = LoopState(names, init)
    init_leaves = _initial_leaves(state, learned)
    specs = [(t.dtype, t._shape) for t in init_leaves]
    for _ in range(3):
        body_sub, body_out = control_flow.trace_subgraph(
            "while_body", lambda *ph: body_fn(state.rebuild(list(ph))), specs,
            state.leaf_names)
        outs, relaxed = _check_body_outputs(state, body_out, body_sub, specs)
        if relaxed == specs:
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


def _loop_without(names, init, carried, learned, cond_fn, body_fn):
    """Stages the loop over the `carried` variables only; the others stay as they are."""
    def full(values):
        out = list(init)
        for i, value in zip(carried, values):
            out[i] = value
        return out

    def body(values):
        after = body_fn(full(values))
        return [after[i] for i in carried]

    result = staged_loop([names[i] for i in carried], [init[i] for i in carried],
                         lambda values: cond_fn(full(values)), body)
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
