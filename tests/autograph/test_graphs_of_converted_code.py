"""Graphs traced from converted code: leaked symbolic tensors and node locations."""

import pytest

import autograph.tf as tf


def test_symbolic_tensor_leaked_into_another_function_raises_type_error():
    leaked = []

    @tf.function
    def first(x):
        leaked.append(x * 2)
        return x

    @tf.function
    def second(y):
        return y + leaked[0]

    with pytest.warns(tf.autograph.SideEffectWarning, match="tensor of the trace"):
        first(tf.constant(1.0))
    with pytest.raises(TypeError, match="mul:0"):
        second(tf.constant(1.0))


def test_leaked_symbolic_tensor_passed_as_an_argument_raises_type_error():
    leaked = []

    @tf.function
    def first(x):
        leaked.append(x + 1)
        return x

    with pytest.warns(tf.autograph.SideEffectWarning, match="tensor of the trace"):
        first(tf.constant(1))
    with pytest.raises(TypeError):
        tf.function(lambda t: t * 2)(leaked[0])


@pytest.mark.parametrize("autograph", [False, True], ids=["as written", "converted"])
def test_node_locations_point_at_the_user_lines(autograph):
    def f(x):
        y = tf.exp(x)  # the exp line
        return y

    cf = tf.function(f, autograph=autograph).get_concrete_function(tf.constant(1.0))
    node = [n for n in cf.graph.get_operations() if n.type == "Exp"][0]
    assert node.location.filename == __file__
    assert node.location.lineno == f.__code__.co_firstlineno + 1
    assert node.location.function == "f"
    assert "the exp line" in node.location.source_line()
    assert "the exp line" in str(node.location)
