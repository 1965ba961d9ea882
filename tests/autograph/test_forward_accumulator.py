"""tf.autodiff.ForwardAccumulator: Jacobian-vector products against the Jacobian, eagerly
and inside a Function, with variables, several primals and unconnected outputs."""

import numpy as np
import pytest

import autograph.tf as tf

RNG = np.random.default_rng(3)


def test_jvp_is_the_jacobian_times_the_tangent():
    x = tf.constant(RNG.normal(size=(3,)))
    w = tf.constant(RNG.normal(size=(3, 2)))
    v = tf.constant(RNG.normal(size=(3,)))
    with tf.autodiff.ForwardAccumulator(primals=x, tangents=v) as acc:
        y = tf.tanh(tf.matmul(x[None, :], w))[0]
    with tf.GradientTape() as tape:
        tape.watch(x)
        again = tf.tanh(tf.matmul(x[None, :], w))[0]
    jacobian = tape.jacobian(again, x).numpy()
    np.testing.assert_allclose(acc.jvp(y).numpy(), jacobian @ v.numpy(), rtol=1e-12)


def test_jvp_inside_a_function_of_a_variable_and_a_tensor():
    v = tf.Variable([1.0, 2.0], dtype=tf.float64)

    @tf.function
    def f(x):
        with tf.autodiff.ForwardAccumulator(primals=[v, x],
                                            tangents=[tf.ones([2], tf.float64),
                                                      tf.zeros([2], tf.float64)]) as acc:
            y = v * v * x
        return acc.jvp(y)

    x = tf.constant([3.0, 4.0], tf.float64)
    np.testing.assert_allclose(f(x).numpy(), 2.0 * v.numpy() * x.numpy())


def test_an_output_that_does_not_depend_on_the_primals_has_no_jvp():
    x = tf.constant([1.0, 2.0])
    with tf.autodiff.ForwardAccumulator(x, tf.ones([2])) as acc:
        y = tf.constant([5.0, 6.0]) * 2.0
    assert acc.jvp(y) is None
    np.testing.assert_array_equal(acc.jvp(y, unconnected_gradients="zero").numpy(), [0, 0])
    assert tf.autodiff.GradientTape is tf.GradientTape


def test_tangents_must_match_the_primals():
    x = tf.constant([1.0, 2.0])
    with pytest.raises(ValueError, match="structure of primals"):
        tf.autodiff.ForwardAccumulator([x, x], [tf.ones([2])])
    with pytest.raises(ValueError, match="dtype"):
        tf.autodiff.ForwardAccumulator(x, tf.ones([2], tf.int32))
