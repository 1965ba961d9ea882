"""`autograph.function` and the facade's `tf.function` around runtime Functions: their options,
the shared run_functions_eagerly switch, escaped tensors."""

import warnings

import pytest

import autograph.tf as tf
from runtime import backends, context
from runtime.tensor import SymbolicTensor


def test_an_escaped_symbolic_tensor_passed_to_a_call_is_rejected():
    escaped = []

    @tf.function
    def leak(x):
        escaped.append(x)
        return x

    with pytest.warns(tf.autograph.SideEffectWarning, match="tensor of the trace"):
        leak(tf.constant(1))
    assert isinstance(escaped[0], SymbolicTensor)
    with pytest.raises(TypeError):
        tf.function(lambda t: t)(escaped[0])


def test_reduce_retracing_on_the_autograph_function_decorator():
    import autograph

    @autograph.function(reduce_retracing=True)
    def f(x):
        return x * 2

    for n in range(1, 6):
        f(tf.zeros([n]))
    assert f.experimental_get_tracing_count() == 2


def test_jit_compile_and_its_older_name_experimental_compile_are_accepted_and_recorded():
    @tf.function(jit_compile=True)
    def f(x):
        return x + 1

    @tf.function(experimental_compile=True)
    def g(x):
        return x + 1

    with warnings.catch_warnings():  # jit_compile: compiled where a backend can, else warned
        warnings.simplefilter("ignore", backends.BackendFallbackWarning)
        assert f(tf.constant(1)).numpy() == 2 and g(tf.constant(1)).numpy() == 2
    assert f.jit_compile is True and g.jit_compile is True
    assert tf.function(lambda x: x).jit_compile is None
    with pytest.raises(ValueError, match="experimental_compile"):
        tf.function(lambda x: x, jit_compile=True, experimental_compile=True)


def test_run_functions_eagerly_is_the_same_switch_in_the_autograph_package(
        functions_run_eagerly):
    import autograph

    assert autograph.functions_run_eagerly()
    assert context.functions_run_eagerly()
