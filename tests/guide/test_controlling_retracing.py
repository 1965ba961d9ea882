"""Guide section "Controlling retracing": input_signature, None dimensions, tensor arguments,
and new Function objects to force retracing."""

import numpy as np
import pytest

import autograph.tf as tf


def make_next_collatz():
    @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
    def next_collatz(x):
        print("Tracing with", x)
        return tf.where(x % 2 == 0, x // 2, 3 * x + 1)
    return next_collatz


def test_input_signature_traces_with_unknown_dimension(capsys, warns_print_of_tensor):
    next_collatz = make_next_collatz()
    print(next_collatz(tf.constant([1, 2])))
    assert capsys.readouterr().out == (
        'Tracing with Tensor("x:0", shape=(None,), dtype=int32)\n'
        "tf.Tensor([4 1], shape=(2,), dtype=int32)\n")


def test_next_collatz_values(warns_print_of_tensor):
    next_collatz = make_next_collatz()
    result = next_collatz(tf.constant([1, 2, 3, 4, 5, 6]))
    assert result.dtype == tf.int32
    assert result.numpy().tolist() == [4, 1, 10, 2, 16, 3]
    assert next_collatz.experimental_get_tracing_count() == 1


def test_input_signature_rejects_wrong_rank_with_type_error(capsys, warns_print_of_tensor):
    # TensorFlow 2.21 raises TypeError (the guide's text says ValueError).
    next_collatz = make_next_collatz()
    next_collatz(tf.constant([1, 2]))
    with pytest.raises(TypeError):
        next_collatz(tf.constant([[1, 2], [3, 4]]))
    assert next_collatz.experimental_get_tracing_count() == 1
    assert capsys.readouterr().out.count("Tracing with") == 1


def test_input_signature_rejects_wrong_dtype_with_type_error(warns_print_of_tensor):
    next_collatz = make_next_collatz()
    next_collatz(tf.constant([1, 2]))
    with pytest.raises(TypeError):
        next_collatz(tf.constant([1.0, 2.0]))
    assert next_collatz.experimental_get_tracing_count() == 1


def test_input_signature_rejects_bad_input_even_before_the_first_call(warns_print_of_tensor):
    next_collatz = make_next_collatz()
    with pytest.raises(TypeError):
        next_collatz(tf.constant([[1, 2], [3, 4]]))
    with pytest.raises(TypeError):
        next_collatz(tf.constant([1.0, 2.0]))


def test_none_dimension_reuses_the_trace_for_any_length(capsys, warns_print_of_tensor):
    @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
    def g(x):
        print('Tracing with', x)
        return x

    # No retrace!
    print(g(tf.constant([1, 2, 3])))
    print(g(tf.constant([1, 2, 3, 4, 5])))
    assert capsys.readouterr().out == (
        'Tracing with Tensor("x:0", shape=(None,), dtype=int32)\n'
        "tf.Tensor([1 2 3], shape=(3,), dtype=int32)\n"
        "tf.Tensor([1 2 3 4 5], shape=(5,), dtype=int32)\n")
    assert g.experimental_get_tracing_count() == 1


def test_none_dimension_trace_returns_each_call_value():
    @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
    def g(x):
        return x

    np.testing.assert_array_equal(g(tf.constant([1, 2, 3])).numpy(), [1, 2, 3])
    np.testing.assert_array_equal(g(tf.constant([1, 2, 3, 4, 5])).numpy(), [1, 2, 3, 4, 5])
    assert g(tf.constant([], dtype=tf.int32)).numpy().shape == (0,)


def train_one_step():
    pass


def make_train():
    @tf.function
    def train(num_steps):
        print("Tracing with num_steps = ", num_steps)
        tf.print("Executing with num_steps = ", num_steps)
        for _ in tf.range(num_steps):
            train_one_step()
    return train


def test_retracing_occurs_for_different_python_arguments(capsys):
    train = make_train()
    print("Retracing occurs for different Python arguments.")
    train(num_steps=10)
    train(num_steps=20)
    captured = capsys.readouterr()
    assert captured.out == (
        "Retracing occurs for different Python arguments.\n"
        "Tracing with num_steps =  10\n"
        "Tracing with num_steps =  20\n")
    assert captured.err == (
        "Executing with num_steps =  10\n"
        "Executing with num_steps =  20\n")
    assert train.experimental_get_tracing_count() == 2


def test_same_python_argument_reuses_its_trace(capsys):
    train = make_train()
    train(num_steps=10)
    train(num_steps=10)
    train(10)
    captured = capsys.readouterr()
    assert captured.out == "Tracing with num_steps =  10\n"
    assert captured.err == "Executing with num_steps =  10\n" * 3
    assert train.experimental_get_tracing_count() == 1


def test_traces_are_reused_for_tensor_arguments(capsys, warns_print_of_tensor):
    train = make_train()
    print("Traces are reused for Tensor arguments.")
    train(num_steps=tf.constant(10))
    train(num_steps=tf.constant(20))
    captured = capsys.readouterr()
    assert captured.out == (
        "Traces are reused for Tensor arguments.\n"
        'Tracing with num_steps =  Tensor("num_steps:0", shape=(), dtype=int32)\n')
    assert captured.err == (
        "Executing with num_steps =  10\n"
        "Executing with num_steps =  20\n")
    assert train.experimental_get_tracing_count() == 1


def test_tensor_arguments_reuse_a_trace_without_loops(capsys, warns_print_of_tensor):
    # The point of the `train` example without its tensor loop: tensors key on shape/dtype.
    @tf.function
    def report(num_steps):
        print("Tracing with num_steps = ", num_steps)
        tf.print("Executing with num_steps = ", num_steps)

    report(num_steps=tf.constant(10))
    report(num_steps=tf.constant(20))
    captured = capsys.readouterr()
    assert captured.out == (
        'Tracing with num_steps =  Tensor("num_steps:0", shape=(), dtype=int32)\n')
    assert captured.err == (
        "Executing with num_steps =  10\n"
        "Executing with num_steps =  20\n")
    assert report.experimental_get_tracing_count() == 1


def test_separate_function_objects_do_not_share_traces(capsys):
    def f():
        print('Tracing!')
        tf.print('Executing')

    tf.function(f)()
    tf.function(f)()
    captured = capsys.readouterr()
    assert captured.out == "Tracing!\nTracing!\n"
    assert captured.err == "Executing\nExecuting\n"


def test_one_function_object_traces_once_and_executes_every_call(capsys):
    def f():
        print('Tracing!')
        tf.print('Executing')

    function = tf.function(f)
    function()
    function()
    captured = capsys.readouterr()
    assert captured.out == "Tracing!\n"
    assert captured.err == "Executing\nExecuting\n"
    assert function.experimental_get_tracing_count() == 1
