"""The JAX backend: graphs lowered through jax.jit give the numpy executor's results, carry
variables in and out, raise the executor's errors, and fall back (never silently) where they
cannot be lowered."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from two_cpu_devices import run_on_two_cpu_devices

import autograph
import autograph.tf as tf
from runtime import backends
from tests.autograph.source_lines import line_of

jax = pytest.importorskip("jax")
jax_backend = pytest.importorskip("runtime.backends.jax_backend")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def both(python_function, *args):
    """(numpy executor result, JAX result, the JAX ConcreteFunction) for the same args."""
    reference = autograph.function(python_function, backend="numpy")(*args)
    function = autograph.function(python_function, backend="jax", strict=True)
    result = function(*args)
    return reference, result, function.get_concrete_function(*args)


def fizzbuzz(n):
    total = 0
    for i in tf.range(1, n + 1):
        if i % 15 == 0:
            total += 100
        elif i % 3 == 0:
            total += 10
        elif i % 5 == 0:
            total += 1
        else:
            total += i
    return total


def test_loops_and_conditionals_run_on_jax_with_the_executors_results():
    reference, result, cf = both(fizzbuzz, tf.constant(1000))
    assert cf.backend == "jax"
    assert result.dtype == tf.int32 and int(result) == int(reference) == 275736


def test_a_counted_loop_writing_a_tensor_array_runs_on_jax():
    def rnn(x):
        out = tf.TensorArray(tf.float32, size=6)
        for i in tf.range(6):
            x = tf.tanh(x * 1.5 + 0.1)
            out = out.write(i, x)
        return out.stack()
    reference, result, cf = both(rnn, tf.constant([0.5, -1.0, 2.0]))
    assert cf.backend == "jax"
    assert result.shape == (6, 3)
    np.testing.assert_allclose(result.numpy(), reference.numpy(), rtol=1e-5)


def test_variables_are_inputs_and_outputs_written_back_after_the_call():
    def make(v):
        def accumulate(n):
            for _ in tf.range(n):
                if v < 5.0:
                    v.assign_add(2.0)
                else:
                    v.assign_sub(0.5)
            return v.read_value() * 10.0
        return accumulate

    v, w = tf.Variable(1.0), tf.Variable(1.0)
    on_jax = autograph.function(make(v), backend="jax", strict=True)
    on_numpy = autograph.function(make(w), backend="numpy")
    assert float(on_jax(tf.constant(4))) == float(on_numpy(tf.constant(4))) == 65.0
    assert float(v.numpy()) == float(w.numpy()) == 6.5
    assert on_jax.get_concrete_function(tf.constant(4)).backend == "jax"
    v.assign(0.0)  # a later call starts from the value assigned outside
    assert float(on_jax(tf.constant(1))) == 20.0


def test_a_variable_passed_as_an_argument_is_updated():
    @autograph.function(backend="jax", strict=True)
    def bump(variable, delta):
        variable.assign_add(delta)
        return variable.read_value()

    a, b = tf.Variable([1, 2], dtype=tf.int32), tf.Variable([10, 20], dtype=tf.int32)
    bump(a, tf.constant([1, 1]))
    bump(b, tf.constant([5, 5]))
    assert a.numpy().tolist() == [2, 3] and b.numpy().tolist() == [15, 25]


def test_an_error_is_raised_like_the_executor_naming_the_op_and_line():
    v = tf.Variable(0)

    def divide(x, y):
        v.assign_add(1)
        return x // y  # the failing line

    function = autograph.function(divide, backend="jax", strict=True)
    assert int(function(tf.constant(7), tf.constant(2))) == 3
    assert int(v.numpy()) == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="division by zero") as raised:
        function(tf.constant(7), tf.constant(0))
    assert "FloorDiv" in str(raised.value)
    assert ":%d" % line_of(divide, "the failing line") in str(raised.value)
    assert int(v.numpy()) == 2  # the failed JAX run wrote nothing back; the executor's did


def test_a_tensor_array_read_out_of_range_raises():
    @autograph.function(backend="jax", strict=True)
    def read(i):
        ta = tf.TensorArray(tf.float32, size=3)
        ta = ta.write(0, 1.0)
        return ta.read(i)

    assert float(read(tf.constant(0))) == 1.0
    assert read.get_concrete_function(tf.constant(0)).backend == "jax"
    with pytest.raises(tf.errors.InvalidArgumentError, match="before it was written"):
        read(tf.constant(1))
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
        read(tf.constant(5))


def test_64_bit_values_keep_their_dtype_and_int32_wraps():
    def wide(x):
        return x * 3 + 2 ** 40

    reference, result, cf = both(wide, tf.constant(5, tf.int64))
    assert result.dtype == tf.int64 and int(result) == int(reference) == 2 ** 40 + 15
    assert cf.backend == "jax"

    def wraps(x):
        for _ in tf.range(3):
            x = x * 65536 + 7
        return x

    reference, result, cf = both(wraps, tf.constant(3))
    assert result.dtype == tf.int32 and int(result) == int(reference)
    assert not jax.config.jax_enable_x64  # the 64-bit mode was scoped to the calls


def test_a_host_op_falls_back_with_a_warning_naming_it():
    def printing(x):  # (a py_function's result has a shape known only at run time)
        y = tf.py_function(lambda a: a + 1, [x], tf.float32)  # the host op
        return tf.reshape(y, [])

    function = autograph.function(printing, backend="jax")
    with pytest.warns(backends.BackendFallbackWarning, match="EagerPyFunc"):
        assert float(function(tf.constant(1.0))) == 2.0
    cf = function.get_concrete_function(tf.constant(1.0))
    assert cf.backend == "numpy"
    assert ":%d" % line_of(printing, "the host op") in cf.backend_report().reason
    strict = autograph.function(printing, backend="jax", strict=True)
    with pytest.raises(backends.Unsupported, match="EagerPyFunc"):
        strict(tf.constant(1.0))


def test_a_string_argument_is_declined_when_compiled_not_at_the_first_call():
    def scaled(label, x):  # the string argument is not even used
        return x * 2.0

    specs = (tf.TensorSpec([], tf.string), tf.TensorSpec([2], tf.float32))
    function = autograph.function(scaled, backend="jax")
    with pytest.warns(backends.BackendFallbackWarning, match="takes a string argument"):
        cf = function.get_concrete_function(*specs)
    assert cf.backend == "numpy" and "string argument" in cf.backend_report().reason
    result = cf(tf.constant("a"), tf.constant([1.0, 2.0]))  # no warning at the call
    assert result.numpy().tolist() == [2.0, 4.0]
    strict = autograph.function(scaled, backend="jax", strict=True)
    with pytest.raises(backends.Unsupported, match="takes a string argument"):
        strict.get_concrete_function(*specs)


def test_device_placement_and_a_bad_device():
    function = autograph.function(fizzbuzz, backend="jax", device="cpu", strict=True)
    assert int(function(tf.constant(30))) == int(autograph.function(fizzbuzz)(tf.constant(30)))
    with pytest.raises(ValueError, match="cpu:7"):
        autograph.function(fizzbuzz, backend="jax", device="cpu:7")
    with pytest.raises(ValueError, match="'rows'"):
        autograph.function(fizzbuzz, backend="jax", shardings=["rows"])
    with pytest.raises(ValueError, match="backend='jax'"):
        autograph.function(fizzbuzz, device="cpu")


def test_export_stablehlo_runs_in_jax_with_the_same_results():
    pytest.importorskip("flatbuffers")  # what jax.export serializes with
    v = tf.Variable([1.0, 2.0, 3.0])

    @autograph.function
    def model(x, n):
        for _ in tf.range(n):
            x = tf.tanh(x) + v
        return x, tf.reduce_sum(x)

    cf = model.get_concrete_function(tf.TensorSpec([None, 3], tf.float32),
                                     tf.TensorSpec([], tf.int32))
    data = jax_backend.export_stablehlo(cf)
    assert isinstance(data, bytes)
    exported = jax.export.deserialize(bytearray(data))
    x = np.ones((4, 3), np.float32)
    y, total, failed = exported.call(x, np.int32(3))
    want_y, want_total = cf(x, np.int32(3))
    np.testing.assert_allclose(np.asarray(y), want_y.numpy(), rtol=1e-5)
    np.testing.assert_allclose(float(total), float(want_total), rtol=1e-5)
    assert not bool(failed)

    @autograph.function
    def assigns(x):
        v.assign_add(x)
        return v.read_value()

    with pytest.raises(ValueError, match="assigns variables"):
        jax_backend.export_stablehlo(assigns.get_concrete_function(tf.constant([1.0, 1, 1])))


@pytest.mark.slow
def test_batch_sharding_splits_over_two_devices_with_the_same_results(tmp_path):
    script = textwrap.dedent("""
        import numpy as np, jax
        import autograph, autograph.tf as tf
        assert len(jax.devices()) == 2
        def layer(x, w):
            for _ in tf.range(3):
                x = tf.tanh(x * w + 0.5)
            return x, tf.reduce_sum(x)
        x = np.random.RandomState(0).randn(8, 4).astype(np.float32)
        w = np.random.RandomState(1).randn(4).astype(np.float32)
        reference = autograph.function(layer)(x, w)
        sharded = autograph.function(layer, backend="jax", shardings=["batch", None],
                                     strict=True)
        got = sharded(x, w)
        for a, b in zip(got, reference):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-5)
        compiled = sharded.get_concrete_function(x, w)._compiled
        x_sharding, w_sharding = compiled.input_shardings
        assert x_sharding.num_devices == 2 and not x_sharding.is_fully_replicated
        assert x_sharding.shard_shape((8, 4)) == (4, 4)
        assert w_sharding.is_fully_replicated
        print("ok")
    """)
    run_on_two_cpu_devices(script, tmp_path)


def test_compiled_programs_persist_under_the_user_cache_folder(tmp_path):
    script = textwrap.dedent("""
        import autograph, autograph.tf as tf
        def count(n):
            i = 0
            while i < n:
                i += 1
            return i
        assert int(autograph.function(count, backend="jax", strict=True)(tf.constant(9))) == 9
    """)
    env = dict(os.environ, PYTHONPATH=REPO, AUTOGRAPH_CACHE_DIR=str(tmp_path),
               JAX_PLATFORMS="cpu")
    path = tmp_path / "count.py"
    path.write_text(script)
    ran = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                         env=env, timeout=300)
    assert ran.returncode == 0, ran.stderr
    assert os.listdir(tmp_path / "jax")  # JAX's persistent compilation cache wrote there


def test_array_ops_lowered_for_jax_give_the_executors_results():
    def model(x, w, i):
        logits = tf.matmul(x, w, transpose_b=True)
        picked = tf.gather(logits, tf.constant([1, 0, 1]))
        joined = tf.concat([picked, logits[1:]], axis=0)
        return tf.nn.softmax(joined), tf.argmax(joined, axis=1), tf.stack([logits[i], logits[0]])

    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
    w = np.ones((4, 3), np.float32) - np.eye(4, 3, dtype=np.float32)
    reference, result, cf = both(model, x, w, tf.constant(1))
    assert cf.backend == "jax"
    for got, want in zip(result, reference):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of bounds"):
        autograph.function(model, backend="jax", strict=True)(x, w, tf.constant(5))


def test_matrix_products_ask_xla_for_full_float32_precision():
    # (on a GPU, XLA's default multiplies float32 matrices in TF32: ~1e-3 off the executor)
    @tf.function(backend="jax")
    def products(a, b):
        return tf.matmul(a, b), tf.einsum("ij,jk->ik", a, b), tf.matmul(a[0:1], b)

    a = tf.constant(np.ones((3, 3), np.float32))
    products(a, a)
    source = products.get_concrete_function(a, a).backend_source
    products_lowered = [line for line in source.splitlines() if "dot_general" in line]
    assert len(products_lowered) == 3
    assert all("precision = [HIGHEST, HIGHEST]" in line for line in products_lowered), \
        products_lowered


def test_a_transposed_matrix_product_contracts_in_place_without_a_transpose():
    # (a transpose before the product made XLA's CPU backend copy the operand and multiply
    # in a loop: a gradient's hidden^T @ g ran 10x slower than jax.grad's own product)
    @tf.function(backend="jax")
    def products(a, b, c, d):
        return (tf.matmul(a, b, transpose_a=True), tf.matmul(a, c, transpose_b=True),
                tf.matmul(a, d, transpose_a=True, transpose_b=True))

    rng = np.random.default_rng(0)
    a, b, c, d = (tf.constant(rng.normal(size=shape).astype(np.float32))
                  for shape in [(5, 3), (5, 1), (4, 3), (2, 5)])
    results = products(a, b, c, d)
    for got, want in zip(results, [a.numpy().T @ b.numpy(), a.numpy() @ c.numpy().T,
                                   a.numpy().T @ d.numpy().T]):
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-5)
    source = products.get_concrete_function(a, b, c, d).backend_source
    assert "transpose" not in source
    assert source.count("dot_general") == 3


def test_a_loop_whose_test_is_pure_carries_no_test_value():
    # (the test is the while's condition, as hand-written lax.while_loop has it)
    @tf.function(backend="jax")
    def doubling(limit):
        x = tf.constant(1)
        while x < limit:
            x = x * 2 + 1
        return x

    limit = tf.constant(100)
    assert doubling(limit).numpy() == 127 and doubling(tf.constant(0)).numpy() == 1
    loops = [line for line in doubling.get_concrete_function(limit).backend_source.splitlines()
             if "stablehlo.while" in line]
    assert len(loops) == 1 and "tensor<i1>" not in loops[0], loops
