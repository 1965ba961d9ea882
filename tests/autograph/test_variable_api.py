"""The Variable API as TensorFlow has it: the type a variable is, what assignments return
(the variable, read where it is used), `read_value=False`, and the `trainable`,
`synchronization`, `aggregation` and `validate_shape` arguments."""

import numpy as np
import pytest

import autograph.tf as tf


def test_a_variable_is_a_resource_variable_and_a_tf_variable():
    v = tf.Variable(1.0)
    assert type(v).__name__ == "ResourceVariable"
    assert isinstance(v, tf.Variable)
    assert repr(v) == "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>"


def test_a_variable_of_several_lines_starts_its_value_on_a_new_line():
    v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
    assert repr(v) == ("<tf.Variable 'Variable:0' shape=(2, 2) dtype=float32, numpy=\n"
                       "array([[1., 2.],\n       [3., 4.]], dtype=float32)>")


@pytest.mark.parametrize("method, argument, expected", [
    ("assign", [3.0, 4.0], [3.0, 4.0]),
    ("assign_add", [1.0, 1.0], [2.0, 3.0]),
    ("assign_sub", [1.0, 1.0], [0.0, 1.0]),
])
def test_an_assignment_returns_the_variable_read_when_used(method, argument, expected):
    v = tf.Variable([1.0, 2.0])
    result = getattr(v, method)(argument)
    assert isinstance(result, tf.Variable)
    assert repr(result) == ("<tf.Variable 'UnreadVariable' shape=(2,) dtype=float32, "
                            "numpy=%r>" % np.array(expected, np.float32))
    np.testing.assert_array_equal(result.numpy(), expected)
    v.assign([7.0, 8.0])  # a later assignment shows through it, as in TensorFlow
    np.testing.assert_array_equal(result.numpy(), [7.0, 8.0])
    np.testing.assert_array_equal((result + 1.0).numpy(), [8.0, 9.0])
    result.assign_add([1.0, 1.0])  # and assigning through it assigns the variable
    np.testing.assert_array_equal(v.numpy(), [8.0, 9.0])


def test_an_assignment_with_read_value_false_returns_none():
    v = tf.Variable(1)
    assert v.assign(2, read_value=False) is None
    assert v.assign_add(3, read_value=False) is None
    assert v.assign_sub(1, read_value=False) is None
    assert v.numpy() == 4


def test_an_assignment_returned_from_a_function_gives_the_final_value():
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        first = v.assign(x)
        doubled = first * 2.0  # read here: after the first assignment
        v.assign_add(10.0)
        return first, doubled  # `first` is read at the end, as in TensorFlow

    first, doubled = f(tf.constant(3.0))
    assert float(first) == 13.0
    assert float(doubled) == 6.0
    assert float(v.numpy()) == 13.0


def test_assignments_in_a_staged_loop_can_be_chained():
    v = tf.Variable(0)

    @tf.function
    def f(n):
        total = tf.constant(0)
        for i in tf.range(n):
            total += v.assign_add(i)
        return total

    assert int(f(tf.constant(4))) == 0 + 1 + 3 + 6
    assert int(v.numpy()) == 6


def test_synchronization_and_aggregation_are_tensorflows_enums():
    v = tf.Variable(1.0)
    assert v.synchronization is tf.VariableSynchronization.AUTO
    assert v.aggregation is tf.VariableAggregation.NONE
    on_read = tf.Variable(0.0, synchronization=tf.VariableSynchronization.ON_READ,
                          aggregation=tf.VariableAggregation.SUM)
    assert not on_read.trainable  # TensorFlow's default for ON_READ
    assert on_read.aggregation is tf.VariableAggregation.SUM
    with pytest.raises(ValueError, match="only for non-trainable"):
        tf.Variable(0.0, trainable=True, synchronization=tf.VariableSynchronization.ON_READ)
    with pytest.raises(ValueError, match="VariableAggregation"):
        tf.Variable(0.0, aggregation="sum")


def test_validate_shape_false_lets_assignments_change_the_shape():
    v = tf.Variable([1.0, 2.0], validate_shape=False)
    assert v.shape.rank is None
    v.assign([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])
    fixed = tf.Variable([1.0, 2.0])
    with pytest.raises(Exception, match="shape"):
        fixed.assign([1.0, 2.0, 3.0])


def test_an_unknown_variable_argument_is_refused():
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        tf.Variable(1.0, colour="red")
