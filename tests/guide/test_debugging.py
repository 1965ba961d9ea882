"""Guide section "Debugging": run_functions_eagerly, print vs tf.print, check_numerics."""

import numpy as np
import pytest

import autograph.tf as tf


def make_f():
    @tf.function
    def f(x):
        print("Traced with", x)
        tf.print("Executed with", x)
        return x * 2
    return f


def test_python_print_runs_only_while_tracing(capsys, warns_print_of_tensor):
    f = make_f()
    for value in (1, 2, 3):
        f(tf.constant(value))
    captured = capsys.readouterr()
    assert captured.out == 'Traced with Tensor("x:0", shape=(), dtype=int32)\n'
    assert f.experimental_get_tracing_count() == 1


def test_python_print_marks_each_retrace(capsys, warns_print_of_tensor):
    f = make_f()
    f(tf.constant(1))
    f(tf.constant(1.0))
    f(tf.constant([1, 2]))
    f(tf.constant(5))
    lines = capsys.readouterr().out.splitlines()
    assert lines == ['Traced with Tensor("x:0", shape=(), dtype=int32)',
                     'Traced with Tensor("x:0", shape=(), dtype=float32)',
                     'Traced with Tensor("x:0", shape=(2,), dtype=int32)']
    assert f.experimental_get_tracing_count() == len(lines)


def test_tf_print_runs_on_every_call_with_the_call_values(capsys, warns_print_of_tensor):
    f = make_f()
    for value in (1, 2, 3):
        f(tf.constant(value))
    assert capsys.readouterr().err == (
        "Executed with 1\n"
        "Executed with 2\n"
        "Executed with 3\n")


def test_run_functions_eagerly_runs_python_code_on_every_call(capsys):
    f = make_f()
    tf.config.run_functions_eagerly(True)
    try:
        assert tf.config.functions_run_eagerly()
        assert f(tf.constant(1)).numpy() == 2
        assert f(tf.constant(2)).numpy() == 4
    finally:
        tf.config.run_functions_eagerly(False)
    captured = capsys.readouterr()
    assert captured.out == (
        "Traced with tf.Tensor(1, shape=(), dtype=int32)\n"
        "Traced with tf.Tensor(2, shape=(), dtype=int32)\n")
    assert captured.err == "Executed with 1\nExecuted with 2\n"
    assert f.experimental_get_tracing_count() == 0


def test_run_functions_eagerly_can_be_turned_back_off(capsys, warns_print_of_tensor):
    f = make_f()
    tf.config.run_functions_eagerly(True)
    f(tf.constant(1))
    tf.config.run_functions_eagerly(False)
    assert not tf.config.functions_run_eagerly()
    f(tf.constant(1))
    f(tf.constant(2))
    out = capsys.readouterr().out
    assert out == ("Traced with tf.Tensor(1, shape=(), dtype=int32)\n"
                   'Traced with Tensor("x:0", shape=(), dtype=int32)\n')
    assert f.experimental_get_tracing_count() == 1


def test_eager_tensors_are_concrete_when_running_eagerly():
    seen = []

    @tf.function
    def f(x):
        seen.append(x.numpy())
        return x + 1

    tf.config.run_functions_eagerly(True)
    try:
        assert f(tf.constant(41)).numpy() == 42
    finally:
        tf.config.run_functions_eagerly(False)
    assert seen == [41]


def test_enable_check_numerics_finds_where_nan_is_created():
    tf.debugging.enable_check_numerics()
    try:
        @tf.function
        def f(x):
            return tf.math.log(x) * 2.0

        assert f(tf.constant(1.0)).numpy() == 0.0
        with pytest.raises(tf.errors.InvalidArgumentError):
            f(tf.constant(-1.0))
    finally:
        tf.debugging.disable_check_numerics()


def test_without_check_numerics_nan_flows_through():
    @tf.function
    def f(x):
        return tf.math.log(x) * 2.0

    assert np.isnan(f(tf.constant(-1.0)).numpy())
