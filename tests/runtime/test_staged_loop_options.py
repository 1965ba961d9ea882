"""The loop operators with loop options (runtime.operators.loop_options) and the staged
builtins (runtime.operators.staged_builtins), called as converted code calls them, in
Functions traced without conversion."""

import io

import numpy as np
import pytest

from runtime.function import Function
from runtime.operators import loop_options, staged_builtins
from runtime.operators.loops import for_stmt, while_stmt
from runtime.ops import array_ops, math_ops
from runtime.shape import TensorShape


def _counting_loop(n, opts):
    """`c = 0; for i in tf.range(n): c += 1` as converted code writes it, with `opts`."""
    state = {"c": 0}

    def body(i):
        state["c"] = math_ops.add(state["c"], 1)

    for_stmt(array_ops.range(n), None, body, lambda: (state["c"],),
             lambda values: state.update(c=values[0]), ("c",), opts)
    return state["c"]


def test_for_stmt_with_maximum_iterations_stops_early():
    def f(n):
        return _counting_loop(n, {"iterate_names": "i", "maximum_iterations": 2})

    assert Function(f, autograph=False)(array_ops.constant(5)).numpy() == 2
    assert Function(f, autograph=False)(array_ops.constant(1)).numpy() == 1


def test_while_stmt_counts_python_iterations_toward_the_maximum():
    def f(x):
        state = {"steps": 0}
        python_tests = [True, True]  # two Python iterations, then the tensor test

        def test():
            return python_tests.pop() if python_tests else math_ops.greater(x, 0)

        def body():
            state["steps"] = math_ops.add(state["steps"], 1)
        while_stmt(test, body, lambda: (state["steps"],),
                   lambda values: state.update(steps=values[0]), ("steps",),
                   {"maximum_iterations": 5})
        return state["steps"]

    assert Function(f, autograph=False)(array_ops.constant(1)).numpy() == 5


def test_shape_invariants_are_matched_by_identity_with_the_state():
    v = array_ops.constant([1.0])
    options = loop_options.LoopOptions({"shape_invariants": [(v, TensorShape([None]))]})
    assert options.invariants_for((array_ops.constant([1.0]), v)) == {1: [(None,)]}
    nested = (v, v)
    assert loop_options.LoopOptions(
        {"shape_invariants": [(nested, (TensorShape([None]), TensorShape([1])))]}
    ).invariants_for((nested,)) == {0: [(None,), (1,)]}


@pytest.mark.parametrize("opts, error, text", [
    ({"parallel_iterations": 0}, ValueError, "parallel_iterations must be a positive int"),
    ({"swap_memory": "yes"}, TypeError, "swap_memory must be a bool"),
    ({"maximum_iterations": 2.5}, TypeError, "maximum_iterations must be an int"),
    ({"shape_invariants": [1, 2]}, TypeError, "list of \\(tensor, shape\\) pairs"),
])
def test_bad_options_are_refused_by_name(opts, error, text):
    with pytest.raises(error, match=text):
        loop_options.LoopOptions(opts)


def test_an_eager_tensor_bound_is_checked_as_a_traced_one_is():
    options = loop_options.LoopOptions({"maximum_iterations": array_ops.constant(3)})
    assert options.remaining(1).numpy() == 2
    with pytest.raises(TypeError, match=r"got a int32 tensor of shape \(2,\)"):
        loop_options.LoopOptions({"maximum_iterations": array_ops.constant([1, 2])})


def test_set_loop_options_called_as_a_function_does_nothing():
    assert loop_options.set_loop_options(maximum_iterations=1) is None


def test_staged_print_prints_the_values_at_every_call():
    out = io.StringIO()

    def f(x):
        staged_builtins.print_("x =", x, file=out)
        return x

    run = Function(f, autograph=False)
    run(array_ops.constant([1, 2]))
    run(array_ops.constant([3, 4]))
    assert out.getvalue() == "x = [1 2]\nx = [3 4]\n"
    staged_builtins.print_("eager", array_ops.constant(2.5), file=out)
    assert out.getvalue().endswith("eager 2.5\n")


def test_staged_enumerate_and_zip_iterate_like_python_outside_loops():
    x = array_ops.constant([4, 5])

    def f(t):
        return [i for i, _ in staged_builtins.enumerate_(t)], list(staged_builtins.zip_(t, t))

    indices, pairs = Function(f, autograph=False).python_function(x)
    assert indices == [0, 1] and len(pairs) == 2
    np.testing.assert_array_equal(staged_builtins.sum_(np.array([1, 2])), 3)
