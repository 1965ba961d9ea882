"""tf.py_function and tf.numpy_function: the Python function runs eagerly and at every call of
a graph, in program order, never folded even without inputs; its results are cast to `Tout`;
both work as decorators, their arguments checked. Gradients come from the Python function's
own tape (eagerly, with the tape in a function, through a staged loop), and a run's record is
forgotten with its outputs; an output that is not a tensor is an error when a gradient needs
it."""

import numpy as np
import pytest

from runtime import dtypes, errors, gradients
from runtime.function import function
from runtime.gradients import GradientTape
from runtime.ops import array_ops, math_ops, py_function_ops, reduction_ops


def test_py_function_eagerly():
    result = py_function_ops.py_function(lambda x, y: x * y + 1, [array_ops.constant(3.0), 2.0],
                                dtypes.float32)
    assert result.dtype is dtypes.float32
    assert result.numpy() == 7.0


def test_py_function_in_a_graph_runs_python_on_every_call():
    calls = []

    def record(x):
        calls.append(x.numpy().tolist())
        return x * 10

    @function
    def f(x):
        return py_function_ops.py_function(record, [x], dtypes.int32) + 1

    assert f(array_ops.constant([1, 2])).numpy().tolist() == [11, 21]
    assert f(array_ops.constant([3, 4])).numpy().tolist() == [31, 41]
    assert calls == [[1, 2], [3, 4]]
    assert f.experimental_get_tracing_count() == 1


def test_py_function_with_several_outputs_and_with_none():
    a, b = py_function_ops.py_function(lambda x: (x + 1, x - 1), [array_ops.constant(5)],
                              [dtypes.int32, dtypes.int32])
    assert (a.numpy(), b.numpy()) == (6, 4)
    seen = []
    assert py_function_ops.py_function(lambda x: seen.append(int(x)), [array_ops.constant(9)],
                                       None) is None
    assert seen == [9]


def test_py_function_casts_python_results_to_tout():
    result = py_function_ops.py_function(lambda: 3, [], dtypes.float64)
    assert result.dtype is dtypes.float64
    assert result.numpy() == 3.0


@pytest.mark.parametrize("api", [py_function_ops.py_function, py_function_ops.numpy_function])
def test_py_function_and_numpy_function_as_decorators(api):
    calls = []

    @api(Tout=dtypes.float32)
    def scaled(x, k):
        """Docstring kept."""
        calls.append(1)
        return x * k

    assert scaled.__name__ == "scaled" and scaled.__doc__ == "Docstring kept."
    assert float(scaled(array_ops.constant(2.0), 3.0)) == 6.0

    @function
    def f(x):
        return scaled(x, 4.0) + 1.0

    assert float(f(array_ops.constant(1.0))) == 5.0
    assert float(f(array_ops.constant(2.0))) == 9.0
    assert len(calls) == 3  # every call, in the graph too


@pytest.mark.parametrize("api", [py_function_ops.py_function, py_function_ops.numpy_function])
def test_py_function_decorator_arguments_are_checked(api):
    with pytest.raises(TypeError, match="missing argument `Tout`"):
        api()
    with pytest.raises(TypeError, match="takes no `inp`"):
        api(inp=[1.0], Tout=dtypes.float32)
    with pytest.raises(TypeError, match="missing argument `inp`"):
        api(lambda x: x, Tout=dtypes.float32)


def test_py_function_with_unused_result_still_runs_in_order():
    calls = []

    def record(tag):
        def run(x):
            calls.append((tag, int(x)))
            return x
        return run

    @function
    def f(x):
        py_function_ops.py_function(record("a"), [x], dtypes.int32)
        py_function_ops.py_function(record("b"), [x + 1], dtypes.int32)
        py_function_ops.py_function(record("a"), [x], dtypes.int32)
        return array_ops.constant(0)

    f(array_ops.constant(1))
    f(array_ops.constant(10))
    assert calls == [("a", 1), ("b", 2), ("a", 1), ("a", 10), ("b", 11), ("a", 10)]


def test_py_function_with_constant_inputs_is_not_folded():
    counter = []

    def tick():
        counter.append(1)
        return len(counter)

    @function
    def f():
        return py_function_ops.py_function(tick, [], dtypes.int32)

    assert [f().numpy() for _ in range(3)] == [1, 2, 3]


def test_py_function_gradient_eagerly_is_that_of_its_tf_ops():
    x = array_ops.constant([1.0, 2.0, 3.0], dtypes.float64)
    with GradientTape() as tape:
        tape.watch(x)
        y = py_function_ops.py_function(lambda t: t * t, [x], dtypes.float64)
        z = reduction_ops.reduce_sum(3.0 * y)
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), 6.0 * x.numpy())


def test_py_function_gradient_with_the_tape_inside_a_function():
    @function
    def f(x):
        with gradients.GradientTape() as tape:
            tape.watch(x)
            y = py_function_ops.py_function(lambda t: math_ops.sin(t) * t, [x], dtypes.float64)
        return tape.gradient(y, x)

    x = np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(f(array_ops.constant(x)).numpy(), np.cos(x) * x + np.sin(x))


def test_py_function_gradient_through_a_function_and_a_staged_loop():
    @function
    def f(x):
        total = array_ops.constant(0.0, dtypes.float64)
        for i in array_ops.range(3):
            scale = math_ops.cast(i + 1, dtypes.float64)
            total += reduction_ops.reduce_sum(py_function_ops.py_function(
                lambda t, s: t * t * s, [x, scale], dtypes.float64))
        return total

    x = array_ops.constant([1.0, -2.0], dtypes.float64)
    with GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    np.testing.assert_allclose(float(y), 6.0 * 5.0)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), 12.0 * x.numpy())


def test_py_function_gradient_of_several_outputs_and_inputs():
    a = array_ops.constant(2.0, dtypes.float64)
    b = array_ops.constant(5.0, dtypes.float64)
    with GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        p, q = py_function_ops.py_function(lambda u, v: (u * v, u + v * v), [a, b],
                                  [dtypes.float64, dtypes.float64])
        y = p + 10.0 * q
    ga, gb = tape.gradient(y, [a, b])
    assert (float(ga), float(gb)) == (5.0 + 10.0, 2.0 + 100.0)
    assert float(tape.gradient(p, b)) == 2.0


def test_py_function_runs_are_forgotten_with_their_outputs():
    import gc

    from runtime.gradients import py_function_grads
    x = array_ops.constant([1.0, 2.0])
    for _ in range(3):
        with GradientTape() as tape:
            tape.watch(x)
            y = py_function_ops.py_function(lambda t: t * t, [x], dtypes.float32)
        g = tape.gradient(y, x)
        del y, tape
    gc.collect()
    np.testing.assert_allclose(g.numpy(), [2.0, 4.0])
    assert not py_function_grads._RUNS


def test_py_function_returning_an_unconnected_value_raises_when_a_gradient_needs_it():
    x = array_ops.constant([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(x)
        y = py_function_ops.py_function(lambda t: t.numpy() * 2, [x], dtypes.float32)
    with pytest.raises(errors.InvalidArgumentError,
                       match="output 0 of tf.py_function.*not a tensor") as info:
        tape.gradient(y, x)
    assert __file__ in str(info.value)  # the user's line
