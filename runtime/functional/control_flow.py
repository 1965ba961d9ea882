"""TensorFlow's functional control flow: `tf.cond` and `tf.while_loop`, on the same staging
machinery as converted `if` and `while` statements."""

from runtime import nest
from runtime import shape as shape_lib
from runtime.operators import cond_staging, loop_staging, staging
from runtime.ops import math_ops


def cond(pred, true_fn=None, false_fn=None, name=None):
    """`true_fn()` if `pred` else `false_fn()`; both branches staged when `pred` is symbolic."""
    if true_fn is None or false_fn is None:
        raise TypeError("cond needs both true_fn and false_fn")
    pred = staging.as_condition(pred)
    if not staging.is_symbolic(pred):
        return true_fn() if pred else false_fn()
    return cond_staging.staged_cond(pred, true_fn, false_fn, "tf.cond")


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None):
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`; returns the finals.

    Runs as Python while the condition is a Python value or eager tensor; staged as a While
    op as soon as it is symbolic. `maximum_iterations` bounds the number of iterations.
    `shape_invariants`, a structure of TensorShapes like `loop_vars`, gives the staged loop
    variables those static shapes (a value that does not fit is a ValueError)."""
    single = not isinstance(loop_vars, (list, tuple))
    values = [loop_vars] if single else list(loop_vars)

    def step(vals):
        out = body(*vals)
        if single:
            return [out]
        if len(vals) == 1 and not isinstance(out, (list, tuple)):
            return [out]  # TF accepts a bare value for a single loop variable
        return list(out)

    def finish(vals):
        return vals[0] if single else type(loop_vars)(vals)

    count = 0
    if not staging.is_symbolic(maximum_iterations):
        while maximum_iterations is None or count < maximum_iterations:
            test = staging.as_condition(cond(*values))
            if staging.is_symbolic(test):
                break
            if not test:
                return finish(values)
            values = step(values)
            count += 1
        else:
            return finish(values)

    def cond_fn(state):
        test = staging.as_condition(cond(*state[0]))
        if maximum_iterations is None:
            return test
        return math_ops.logical_and(state[1] < maximum_iterations, test)

    def body_fn(state):
        out = step(state[0])
        if nest.structure_signature(out) != nest.structure_signature(list(state[0])):
            raise TypeError("while_loop body must return the same structure as loop_vars")
        return [out] if maximum_iterations is None else [out, state[1] + 1]

    invariants = {}
    if shape_invariants is not None:
        shapes = [shape_invariants] if single else list(shape_invariants)
        invariants[0] = [shape_lib.normalize(s) for s in nest.flatten(shapes)]
    if maximum_iterations is None:
        final = loop_staging.staged_loop(("loop_vars",), [values], cond_fn, body_fn,
                                         invariants=invariants)[0]
    else:
        final = loop_staging.staged_loop(("loop_vars", "iterations"), [values, count], cond_fn,
                                         body_fn, invariants=invariants)[0]
    return finish(final)
