"""Guide section "Basics" / "Usage": a Function is used like a core TensorFlow op.

(The GradientTape and Keras convolution examples of this section are not covered here.)
"""

import numpy as np

import autograph.tf as tf


def make_add():
    @tf.function  # The decorator converts `add` into a `Function`.
    def add(a, b):
        return a + b
    return add


def test_add_of_two_ones_matrices_gives_twos():
    add = make_add()
    result = add(tf.ones([2, 2]), tf.ones([2, 2]))
    assert result.dtype == tf.float32
    assert tuple(result.shape) == (2, 2)
    np.testing.assert_array_equal(result.numpy(), np.array([[2., 2.], [2., 2.]], np.float32))
    assert result.numpy().dtype == np.float32


def test_add_result_prints_like_an_eager_tensor():
    add = make_add()
    result = add(tf.ones([2, 2]), tf.ones([2, 2]))
    assert repr(result) == ("<tf.Tensor: shape=(2, 2), dtype=float32, numpy=\n"
                            "array([[2., 2.],\n"
                            "       [2., 2.]], dtype=float32)>")


def test_add_accepts_a_variable_and_a_python_float():
    # The forward half of the guide's `add(v, 1.0)` example.
    add = make_add()
    v = tf.Variable(1.0)
    result = add(v, 1.0)
    assert result.dtype == tf.float32
    assert result.numpy() == 2.0


def test_add_is_traced_once_for_repeated_same_signature_calls():
    add = make_add()
    add(tf.ones([2, 2]), tf.ones([2, 2]))
    add(tf.zeros([2, 2]), tf.ones([2, 2]))
    assert add.experimental_get_tracing_count() == 1


def test_function_used_inside_another_function_dense_layer():
    add = make_add()

    @tf.function
    def dense_layer(x, w, b):
        return add(tf.matmul(x, w), b)

    result = dense_layer(tf.ones([3, 2]), tf.ones([2, 2]), tf.ones([2]))
    assert result.dtype == tf.float32
    assert tuple(result.shape) == (3, 2)
    np.testing.assert_array_equal(result.numpy(), np.full((3, 2), 3.0, np.float32))
    assert repr(result) == ("<tf.Tensor: shape=(3, 2), dtype=float32, numpy=\n"
                            "array([[3., 3.],\n"
                            "       [3., 3.],\n"
                            "       [3., 3.]], dtype=float32)>")


def test_dense_layer_reuses_its_trace_and_the_inner_function_trace():
    add = make_add()

    @tf.function
    def dense_layer(x, w, b):
        return add(tf.matmul(x, w), b)

    first = dense_layer(tf.ones([3, 2]), tf.ones([2, 2]), tf.ones([2]))
    second = dense_layer(tf.fill([3, 2], 2.0), tf.ones([2, 2]), tf.zeros([2]))
    np.testing.assert_array_equal(first.numpy(), np.full((3, 2), 3.0, np.float32))
    np.testing.assert_array_equal(second.numpy(), np.full((3, 2), 4.0, np.float32))
    assert dense_layer.experimental_get_tracing_count() == 1
    assert add.experimental_get_tracing_count() == 1
