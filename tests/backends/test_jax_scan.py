"""Counted loops that write TensorArrays at their counter run as `lax.scan` on the JAX
backend, with the numpy executor's results and errors; other loops stay `lax.while_loop`s."""

import numpy as np
import pytest

import autograph
import autograph.tf as tf

jax = pytest.importorskip("jax")


def _run_both(python_function, *args):
    """(numpy executor result, JAX result, the primitives of the JAX program)."""
    reference = autograph.function(python_function, backend="numpy")(*args)
    function = autograph.function(python_function, backend="jax", strict=True)
    result = function(*args)
    cf = function.get_concrete_function(*args)
    assert cf.backend == "jax"
    feeds = [np.asarray(a._value) for a in args]
    program = str(jax.make_jaxpr(cf._compiled._flat)(*feeds))
    return reference, result, program


def test_a_loop_writing_element_i_of_a_tensor_array_is_a_scan():
    def rnn(data, state):
        out = tf.TensorArray(tf.float32, size=data.shape[0])
        for i in tf.range(data.shape[0]):
            state = tf.tanh(tf.matmul(data[i], tf.ones([3, 3])) * 0.3 + state)
            out = out.write(i, state)
        return out.stack(), state
    data = tf.constant(np.linspace(-1, 1, 5 * 2 * 3).reshape(5, 2, 3).astype(np.float32))
    (ref_stack, ref_state), (stack, state), program = _run_both(
        rnn, data, tf.constant(np.zeros((2, 3), np.float32)))
    assert "scan" in program and "while" not in program.replace("scan", "")
    assert stack.dtype == tf.float32 and stack.shape == (5, 2, 3)
    np.testing.assert_allclose(stack.numpy(), ref_stack.numpy(), rtol=1e-5)
    np.testing.assert_allclose(state.numpy(), ref_state.numpy(), rtol=1e-5)


def test_a_scan_from_a_later_start_keeps_the_elements_written_before():
    def partial(x):
        out = tf.TensorArray(tf.int32, size=6)
        out = out.write(0, x).write(1, x * 2)
        i = tf.constant(2)
        while i < 5:
            out = out.write(i, x * i)
            i += 1
        out = out.write(5, x - 1)
        return out.stack()
    reference, result, program = _run_both(partial, tf.constant([3, 4]))
    assert "scan" in program
    assert result.dtype == tf.int32
    np.testing.assert_array_equal(result.numpy(), reference.numpy())
    np.testing.assert_array_equal(result.numpy()[:, 0], [3, 6, 6, 9, 12, 2])


def test_a_tensor_array_also_read_in_the_loop_stays_a_while_loop():
    def running(x):
        out = tf.TensorArray(tf.float32, size=4, element_shape=[2])
        out = out.write(0, x)
        for i in tf.range(1, 4):
            out = out.write(i, out.read(i - 1) * 2.0)
        return out.stack()
    reference, result, program = _run_both(running, tf.constant([1.0, -1.0]))
    assert "while" in program and "scan" not in program
    np.testing.assert_allclose(result.numpy(), reference.numpy())


def test_an_index_error_in_a_scanned_body_is_the_executors_error():
    def overrun(x):
        out = tf.TensorArray(tf.float32, size=5)
        for i in tf.range(5):
            out = out.write(i, x[i])
        return out.stack()
    x = tf.constant([1.0, 2.0, 3.0])
    with pytest.raises(Exception) as expected:
        autograph.function(overrun, backend="numpy")(x)
    with pytest.raises(type(expected.value)) as got:
        autograph.function(overrun, backend="jax", strict=True)(x)
    assert str(got.value).splitlines()[0] == str(expected.value).splitlines()[0]


def _program_outputs(function, *args):
    """The number of values the compiled JAX program of `function`'s trace for `args`
    returns (a program with a check also returns its failed flag)."""
    cf = function.get_concrete_function(*args)
    assert cf.backend == "jax"
    feeds = [np.asarray(a._value) for a in args]
    return len(jax.make_jaxpr(cf._compiled._flat)(*feeds).out_avals)


def test_indexing_with_the_counter_of_a_scanned_loop_compiles_no_range_check():
    def doubled_rows(x):
        out = tf.TensorArray(tf.float32, size=x.shape[0])
        for i in tf.range(x.shape[0]):
            out = out.write(i, x[i] * 2.0)
        return out.stack()
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
    reference, result, program = _run_both(doubled_rows, x)
    np.testing.assert_array_equal(result.numpy(), reference.numpy())
    # the counter runs 0..3 over 4 rows and the scan writes every element: no flag
    function = autograph.function(doubled_rows, backend="jax", strict=True)
    function(x)
    assert _program_outputs(function, x) == 1


def test_a_scanned_loop_assigns_variables_and_writes_64_bit_elements():
    counter = tf.Variable(1.0)

    def accumulate(x):
        out = tf.TensorArray(tf.int64, size=4)
        for i in tf.range(4):
            counter.assign_add(tf.cast(i, tf.float32))
            out = out.write(i, tf.cast(x, tf.int64) * tf.cast(i, tf.int64))
        return out.stack()
    reference = autograph.function(accumulate, backend="numpy")(tf.constant(3))
    assert counter.numpy() == 7.0
    counter.assign(1.0)
    function = autograph.function(accumulate, backend="jax", strict=True)
    result = function(tf.constant(3))
    assert counter.numpy() == 7.0
    assert result.dtype == tf.int64
    np.testing.assert_array_equal(result.numpy(), reference.numpy())
    cf = function.get_concrete_function(tf.constant(3))
    with jax.enable_x64(True):
        program = str(jax.make_jaxpr(cf._compiled._flat)(np.int32(3), np.float32(1.0)))
    assert "scan" in program
