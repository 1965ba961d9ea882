"""TensorFlow's functional control flow: `tf.cond` and `tf.while_loop`, on the same staging
machinery as converted `if` and `while` statements."""

from runtime import nest
from runtime.operators import staging


def cond(pred, true_fn=None, false_fn=None, name=None):
    """`true_fn()` if `pred` else `false_fn()`; both branches staged when `pred` is symbolic."""
    if true_fn is None or false_fn is None:
        raise TypeError("cond needs both true_fn and false_fn")
    pred = staging.as_condition(pred)
    if not staging.is_symbolic(pred):
        return true_fn() if pred else false_fn()
    return staging.staged_cond(pred, true_fn, false_fn, "tf.cond")


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None):
    """Repeats `loop_vars = body(*loop_vars)` while `cond(*loop_vars)`; returns the finals.

    Runs as Python while the condition is a Python value or eager tensor; staged as a While
    op as soon as it is symbolic."""
    single = not isinstance(loop_vars, (list, tuple))
    values = [loop_vars] if single else list(loop_vars)
    count = 0

    def call(fn, vals):
        return fn(*vals)

    def limit_ok(i):
        return maximum_iterations is None or i < maximum_iterations

    while limit_ok(count):
        test = staging.as_condition(call(cond, values))
        if staging.is_symbolic(test):
            break
        if not test:
            return values[0] if single else type(loop_vars)(values)
        out = call(body, values)
        values = [out] if single else list(out)
        count += 1
    else:
        return values[0] if single else type(loop_vars)(values)
    if maximum_iterations is not None:
        raise NotImplementedError("maximum_iterations with a tensor condition is not supported")

    def cond_fn(state):
        return call(cond, state[0])

    def body_fn(state):
        out = call(body, state[0])
        out = [out] if single else list(out)
        if nest.structure_signature(out) != nest.structure_signature(list(state[0])):
            raise TypeError("while_loop body must return the same structure as loop_vars")
        return [out]

    final = staging.staged_loop(("loop_vars",), [values], cond_fn, body_fn)[0]
    return final[0] if single else type(loop_vars)(final)
