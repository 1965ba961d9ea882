"""init_scope lifting of variable initial values (runtime.init_lifting): a variable created in
a trace from ops that do not depend on the trace's inputs holds its value as soon as it
exists; one that depends on them, or on an op with side effects, is initialised by the graph
the first time it runs; a nested function's trace may only create the former."""

import numpy as np
import pytest

from runtime import init_lifting, variables
from runtime.function import function
from runtime.graph import Graph
from runtime.ops import array_ops, math_ops


def test_a_value_computed_from_constants_is_lifted_out_of_the_graph():
    graph = Graph("g")
    with graph.as_default():
        value = math_ops.add(array_ops.fill([2], 1.5), array_ops.constant([1.0, 2.0]))
    lifted = init_lifting.lift(value)
    assert lifted is not None
    np.testing.assert_array_equal(lifted.numpy(), [2.5, 3.5])


def test_a_value_computed_from_an_input_is_not_lifted():
    graph = Graph("g")
    with graph.as_default():
        x = graph.add_placeholder("x", array_ops.constant(1.0).dtype, ())
        value = math_ops.multiply(x, array_ops.constant(2.0))
    assert init_lifting.lift(value) is None


def test_a_variable_made_from_ops_on_constants_has_its_value_once_traced():
    holder = []

    @function
    def f(x):
        if not holder:
            holder.append(variables.Variable(array_ops.fill([2], 2.0) * 3.0))
        return x * holder[0]

    f.get_concrete_function(array_ops.constant([1.0, 1.0]))  # traced, never run
    np.testing.assert_array_equal(holder[0].numpy(), [6.0, 6.0])
    np.testing.assert_array_equal(f(array_ops.constant([1.0, 2.0])).numpy(), [6.0, 12.0])


def test_a_lifted_value_reads_an_eager_variable_as_it_is_then():
    source = variables.Variable(4.0)
    holder = []

    @function
    def f():
        if not holder:
            holder.append(variables.Variable(source.read_value() * 2.0))
        return holder[0].read_value()

    assert f().numpy() == 8.0
    source.assign(100.0)
    assert f().numpy() == 8.0


def test_an_initial_value_with_side_effects_runs_them_once():
    counter = variables.Variable(0.0)
    holder = []

    @function
    def f():
        if not holder:
            holder.append(variables.Variable(counter.assign_add(1.0)))
        return holder[0].read_value()

    assert f().numpy() == 1.0
    assert f().numpy() == 1.0
    assert counter.numpy() == 1.0


def test_a_nested_function_may_create_a_variable_from_ops_on_constants():
    holder = []

    @function
    def inner(x):
        if not holder:
            holder.append(variables.Variable(array_ops.ones([2]) * 5.0))
        return x + holder[0]

    @function
    def outer(x):
        return inner(x) * 2.0

    x = array_ops.constant([1.0, 2.0])
    np.testing.assert_array_equal(outer(x).numpy(), [12.0, 14.0])
    np.testing.assert_array_equal(outer(x).numpy(), [12.0, 14.0])


def test_a_nested_function_creating_a_variable_from_its_argument_is_refused():
    holder = []

    @function
    def inner(x):
        if not holder:
            holder.append(variables.Variable(x * 2.0, name="from_x"))
        return x + holder[0]

    @function
    def outer(x):
        return inner(x)

    with pytest.raises(ValueError, match="'from_x:0'.*depends on the function's arguments"):
        outer(array_ops.constant([1.0, 2.0]))
