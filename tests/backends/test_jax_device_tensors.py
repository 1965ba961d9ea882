"""Device-resident tensors: a JAX-backed Function returns its results on the device (copied to
the host only when read) and takes device-resident arguments without copying them; every
other consumer (numpy, eager ops, numpy and numba Functions, tapes) reads their numpy values."""

import copy
import os
import pickle
import textwrap

import numpy as np
import pytest
from two_cpu_devices import run_on_two_cpu_devices

import autograph
import autograph.tf as tf
from runtime import signature as sig
from runtime.backends import BackendFallbackWarning
from runtime.device_tensor import DeviceTensor
from runtime.tensor import EagerTensor

jax = pytest.importorskip("jax")
jax_backend = pytest.importorskip("runtime.backends.jax_backend")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_HOST_SLOT = EagerTensor.__dict__["_value"]  # where a DeviceTensor keeps its numpy copy


def copied_to_host(t):
    """True once device tensor `t` has been copied to the host (its numpy value read)."""
    try:
        _HOST_SLOT.__get__(t, DeviceTensor)
    except AttributeError:
        return False
    return True


def step(x):
    for _ in tf.range(3):
        x = tf.tanh(x * 1.5 + 0.25)
    return x


def jax_function(python_function, **options):
    return autograph.function(python_function, backend="jax", strict=True, **options)


def test_results_stay_on_the_device_and_equal_the_executors():
    x = tf.constant([0.5, -1.0, 2.0])
    reference = autograph.function(step, backend="numpy")(x)
    result = jax_function(step)(x)
    assert type(result) is DeviceTensor and isinstance(result, EagerTensor)
    assert not copied_to_host(result)
    assert result.shape == (3,) and result.dtype == tf.float32 and len(result) == 3
    assert not copied_to_host(result)  # dtype, shape and len need no copy
    np.testing.assert_allclose(result.numpy(), reference.numpy(), rtol=1e-6)
    assert copied_to_host(result)
    assert result._value is result._value  # copied from the device once, then kept


def test_a_result_reads_like_any_eager_tensor():
    x = tf.constant([0.5, -1.0, 2.0])
    reference = autograph.function(step, backend="numpy")(x)
    result = jax_function(step)(x)
    same = tf.constant(np.array(result.numpy()))  # (XLA's tanh may round an ulp apart)
    assert str(result) == str(same) and repr(result) == repr(same)
    assert [float(v) for v in result] == pytest.approx([float(v) for v in reference])
    assert float(np.sum(result)) == pytest.approx(float(np.sum(reference.numpy())))
    np.testing.assert_allclose(np.asarray(result) * 2, reference.numpy() * 2, rtol=1e-6)
    np.testing.assert_allclose((result + 1).numpy(), (reference + 1).numpy(), rtol=1e-6)
    assert float(tf.reduce_sum(result)) == pytest.approx(float(tf.reduce_sum(reference)))
    assert "%.3f" % jax_function(lambda v: tf.reduce_sum(v))(x) == "%.3f" % 1.5


def test_a_device_tensor_copies_and_pickles_as_a_device_tensor():
    result = jax_function(step)(tf.constant([0.5, -1.0]))
    for copied in (copy.copy(result), copy.deepcopy(result),
                   pickle.loads(pickle.dumps(result))):
        assert type(copied) is DeviceTensor and copied.dtype == tf.float32
        assert copied.numpy().tolist() == result.numpy().tolist()


def test_the_host_copy_is_read_only_so_it_cannot_disagree_with_the_device():
    result = jax_function(step)(tf.constant([0.5, -1.0]))
    with pytest.raises(ValueError, match="read-only"):
        np.asarray(result)[0] = 7.0
    for copied in (np.array(result), result.numpy()):  # copies, writable (as TensorFlow's)
        copied[0] = 7.0
    assert result.numpy()[0] != 7.0
    assert jax_function(lambda x: x * 2.0)(result).numpy()[0] != 14.0


def test_a_device_tensor_feeds_a_jax_function_without_a_copy():
    function = jax_function(step)
    first = function(tf.constant([0.5, -1.0, 2.0]))
    with jax.transfer_guard("disallow"):  # a host-to-device copy would raise here
        second = function(first)  # (this first device call caches the device key)
        third = function(second)
    assert not copied_to_host(first) and not copied_to_host(second)
    assert function.experimental_get_tracing_count() == 1  # one trace for host and device
    expected = autograph.function(step, backend="numpy")
    np.testing.assert_allclose(
        third.numpy(), expected(expected(tf.constant(first.numpy()))).numpy(), rtol=1e-5)


def test_a_concrete_function_takes_a_device_tensor_without_a_copy():
    function = jax_function(step)
    first = function(tf.constant([0.5, -1.0]))
    concrete = function.get_concrete_function(first)
    with jax.transfer_guard("disallow"):
        result = concrete(first)
    assert type(result) is DeviceTensor and not copied_to_host(first)


def test_a_device_tensor_feeds_numpy_and_numba_functions_as_its_numpy_value():
    first = jax_function(step)(tf.constant([0.5, -1.0, 2.0]))
    host = tf.constant(np.array(first.numpy()))
    backends = ["numpy", "auto"]
    try:
        import numba  # noqa: F401
        backends.append("numba")
    except ImportError:
        pass
    for backend in backends:
        function = autograph.function(step, backend=backend)
        for _ in range(2):  # the second call too: a device key is never cached for them
            result = function(first)
            assert type(result) is EagerTensor, backend
            np.testing.assert_allclose(result.numpy(), function(host).numpy(), rtol=1e-6)
        assert function.experimental_get_tracing_count() == 1, backend


def test_a_jax_function_that_fell_back_takes_a_device_tensors_numpy_value():
    def labelled(x):  # strings are host-only: the graph runs on the numpy executor
        return x + 1.0, tf.strings.format("{}", x)

    function = autograph.function(labelled, backend="jax")
    x = jax_backend.to_device(np.array([1.0, 2.0], np.float32))
    with pytest.warns(BackendFallbackWarning, match="string value"):
        first, _ = function(x)
    second, label = function(x)
    assert type(second) is EagerTensor and second.numpy().tolist() == [2.0, 3.0]
    assert first.numpy().tolist() == [2.0, 3.0] and label.numpy() == b"[1 2]"
    assert not function.get_concrete_function(x).takes_device_arrays()


def test_a_device_tensor_with_an_input_signature_and_inside_a_trace():
    first = jax_function(step)(tf.constant([0.5, -1.0]))
    signed = autograph.function(step, input_signature=[tf.TensorSpec([None], tf.float32)])
    np.testing.assert_allclose(signed(first).numpy(),
                               signed(tf.constant(first.numpy())).numpy(), rtol=1e-6)
    inner = jax_function(step)

    @autograph.function
    def outer(x):
        return inner(x) * 2.0  # a call node: the JAX graph's numpy results inside a graph

    np.testing.assert_allclose(outer(first).numpy(), inner(first).numpy() * 2, rtol=1e-6)


def test_gradients_of_a_jax_function_fed_a_device_tensor():
    first = jax_function(step)(tf.constant([0.5, -1.0]))
    function = jax_function(lambda v: tf.reduce_sum(v * v))
    with tf.GradientTape() as tape:
        tape.watch(first)
        y = function(first)
    grad = tape.gradient(y, first)
    np.testing.assert_allclose(float(y), float(np.sum(first.numpy() ** 2)), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(grad), 2 * first.numpy(), rtol=1e-6)


def test_errors_are_raised_at_the_call_with_device_resident_arguments():
    def divide(x, y):
        return x // y

    function = jax_function(divide)
    assert int(function(jax_backend.to_device(7), jax_backend.to_device(2))) == 3
    with pytest.raises(tf.errors.InvalidArgumentError, match="division by zero"):
        function(jax_backend.to_device(7), jax_backend.to_device(0))
    with pytest.raises(tf.errors.InvalidArgumentError, match="division by zero"):
        function.get_concrete_function(tf.constant(7), tf.constant(0))(
            jax_backend.to_device(7), jax_backend.to_device(0))


def test_variables_stay_on_the_host_and_first_calls_that_create_them_work():
    counter = tf.Variable(0.0)

    @autograph.function(backend="jax", strict=True)
    def accumulate(x):
        counter.assign_add(tf.reduce_sum(x))
        return x * 2.0

    x = jax_backend.to_device(np.array([1.0, 2.0], np.float32))
    result = accumulate(x)
    result = accumulate(result)
    assert type(result) is DeviceTensor
    assert result.numpy().tolist() == [4.0, 8.0] and float(counter.numpy()) == 9.0

    class Model(tf.Module):
        @autograph.function(backend="jax")
        def __call__(self, x):
            if not hasattr(self, "w"):
                self.w = tf.Variable(2.0)
            return x * self.w

    model = Model()
    for _ in range(3):  # the first call runs the variable-initialising trace on numpy
        assert model(x).numpy().tolist() == [2.0, 4.0]


def test_to_device_keeps_64_bit_dtypes_and_places_on_a_named_device():
    t = jax_backend.to_device(np.array([2**40, 3], np.int64), device="cpu")
    assert type(t) is DeviceTensor and t.dtype == tf.int64
    assert t.device_array.dtype == np.int64 and t.numpy().tolist() == [2**40, 3]
    doubled = jax_function(lambda v: v * 2)(t)
    assert doubled.dtype == tf.int64 and doubled.numpy().tolist() == [2**41, 6]
    placed = jax_function(lambda v: v + 1, device="cpu:0")(doubled)
    assert placed.numpy().tolist() == [2**41 + 1, 7]
    assert placed.device_array.devices() == {jax.devices("cpu")[0]}
    with pytest.raises(TypeError, match="string"):
        jax_backend.to_device(tf.constant("text"))
    assert t.block_until_ready() is t


def test_a_plain_eager_tensor_keeps_no_device_copy():
    # Its numpy value may be the user's own array (tf.constant does not copy an ndarray):
    # each call copies it to the device, so a change made in place is always seen.
    array = np.array([1.0, 2.0], np.float32)
    x = tf.constant(array)
    function = jax_function(lambda v: v * 2.0)
    assert function(x).numpy().tolist() == [2.0, 4.0]
    array[0] = 5.0
    assert function(x).numpy().tolist() == [10.0, 4.0]


@pytest.mark.slow
def test_sharded_results_stay_sharded_until_read(tmp_path):
    script = textwrap.dedent("""
        import numpy as np, jax
        import autograph, autograph.tf as tf
        assert len(jax.devices()) == 2
        def layer(x):
            return tf.tanh(x * 0.5 + 0.25)
        x = np.random.RandomState(0).randn(8, 4).astype(np.float32)
        sharded = autograph.function(layer, backend="jax", shardings="batch", strict=True)
        got = sharded(x)
        sharding = got.device_array.sharding
        assert sharding.num_devices == 2 and not sharding.is_fully_replicated
        again = sharded(got)
        assert again.device_array.sharding.num_devices == 2
        reference = autograph.function(layer)
        np.testing.assert_allclose(again.numpy(), reference(reference(x)).numpy(), rtol=1e-5)
        print("ok")
    """)
    run_on_two_cpu_devices(script, tmp_path)


def _sgd_steps(backends_in_order):
    """A variable updated by one SGD step per backend named, in that order; its values."""
    w = tf.Variable(np.array([1.0, -2.0, 0.5], np.float32))

    def sgd(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(w * x - 1.0))
        w.assign_sub(0.1 * tape.gradient(loss, w))
        return loss

    steps = {name: tf.function(sgd, backend=name) for name in set(backends_in_order)}
    x = tf.constant(np.array([0.5, 1.5, -1.0], np.float32))
    losses = [float(steps[name](x).numpy()) for name in backends_in_order]
    return w, losses


def test_a_variable_a_jax_function_assigns_stays_on_the_device_until_read():
    w, _ = _sgd_steps(["jax", "jax"])
    assert w._device is not None and w._host is None  # no copy to the host between steps
    reference, _ = _sgd_steps(["numpy", "numpy"])
    np.testing.assert_allclose(w.numpy(), reference.numpy(), rtol=1e-6)
    assert w._device is None  # read: the host value is the only one now


def test_a_variable_shared_by_jax_and_executor_functions_has_one_value():
    order = ["jax", "numpy", "jax", "jax", "numpy"]
    w, losses = _sgd_steps(order)
    reference, reference_losses = _sgd_steps(["numpy"] * len(order))
    np.testing.assert_allclose(losses, reference_losses, rtol=1e-6)
    np.testing.assert_allclose(w.numpy(), reference.numpy(), rtol=1e-6)


def test_a_variable_shared_by_jax_and_numba_functions_has_one_value():
    pytest.importorskip("numba")
    order = ["jax", "numba", "jax", "numba", "numba", "jax"]
    w, losses = _sgd_steps(order)
    reference, reference_losses = _sgd_steps(["numpy"] * len(order))
    np.testing.assert_allclose(losses, reference_losses, rtol=1e-6)
    np.testing.assert_allclose(w.numpy(), reference.numpy(), rtol=1e-6)


def _goes_direct(function, *args):
    """True when `function`'s trace for `args` runs its cached calls through the compiled
    graph's own run (JaxCompiledGraph.fast_call)."""
    fast = function.get_concrete_function(*args).fast_call()
    return fast is not None and fast.direct


def test_a_plain_one_output_graph_is_called_directly_with_the_executors_results():
    f = jax_function(step)
    x = tf.constant([0.5, -1.0, 2.0])
    reference = autograph.function(step, backend="numpy")(x).numpy()
    first = f(x)
    assert _goes_direct(f, x)
    for _ in range(3):
        result = f(x)
        assert type(result) is DeviceTensor and result.shape == (3,)
        np.testing.assert_allclose(result.numpy(), reference, rtol=1e-6)
    np.testing.assert_allclose(f(first).numpy(), autograph.function(
        step, backend="numpy")(reference).numpy(), rtol=1e-6)


def test_the_dispatcher_calls_the_program_itself_until_jax_gives_it_up():
    f = autograph.function(step, backend="jax")  # (not strict: giving up warns)
    x = jax_backend.to_device(tf.constant([0.5, -1.0, 2.0]))
    reference = autograph.function(step, backend="numpy")(x).numpy()
    for _ in range(3):
        f(x)
    device = f._fast_calls[sig.make_key((x,))].device
    program, calls = device.program, []

    def counted(*feeds):
        calls.append(len(feeds))
        return program(*feeds)

    def failing(*feeds):
        raise RuntimeError("the device went away")

    device.program = counted
    result = f(x)
    assert calls == [1] and type(result) is DeviceTensor and result._key == (
        tf.float32, (3,), jax_backend.ON_DEVICE)
    np.testing.assert_allclose(result.numpy(), reference, rtol=1e-6)
    device.program = failing  # what the program alone cannot serve, the record's run does
    np.testing.assert_allclose(f(x).numpy(), reference, rtol=1e-6)

    def flagged(*feeds):  # a tuple of results (checks, say): the record's run unpacks it
        return program(*feeds), None

    device.program = flagged
    result = f(x)
    assert type(result) is DeviceTensor and type(result._array) is not tuple
    np.testing.assert_allclose(result.numpy(), reference, rtol=1e-6)
    cf = f.get_concrete_function(x)
    with pytest.warns(BackendFallbackWarning, match="the device went away"):
        cf._compiled._give_up(RuntimeError("the device went away"))
    assert device.program is None  # the dispatcher takes the record's run from now on
    np.testing.assert_allclose(f(x).numpy(), reference, rtol=1e-6)
    assert cf.backend_report().running == "numpy"


def test_cached_calls_alternating_between_shapes_each_run_their_own_trace():
    f = jax_function(step)
    numpy_step = autograph.function(step, backend="numpy")
    values = [np.float32([0.5, -1.0, 2.0]), np.float32([[1.0, 2.0]]), np.float32([3.0, 4.0, 5.0])]
    tensors = [jax_backend.to_device(tf.constant(v)) for v in values]
    assert tensors[0]._key == tensors[2]._key and tensors[0]._key is not tensors[2]._key
    for _ in range(4):  # past the first and the sampled calls: the dispatcher's own path
        for tensor, value in zip(tensors, values):
            result = f(tensor)
            assert result.shape == value.shape
            np.testing.assert_allclose(result.numpy(), numpy_step(value).numpy(), rtol=1e-6)
    assert len(f._fast_calls) == 2


def test_a_one_output_graph_returning_a_structure_returns_it_on_every_call():
    def listed(x):
        return [step(x)]

    def keyed(x):
        return {"y": step(x)}

    x = tf.constant([0.5, -1.0, 2.0])
    for function, unpack in ((listed, lambda r: r[0]), (keyed, lambda r: r["y"])):
        f = jax_function(function)
        reference = autograph.function(function, backend="numpy")(x)
        for _ in range(4):  # the first calls, then the cached ones
            result = f(x)
            assert type(result) is type(reference)
            np.testing.assert_allclose(unpack(result).numpy(), unpack(reference).numpy(),
                                       rtol=1e-6)


def test_a_relaxed_trace_called_directly_computes_each_new_shape():
    f = autograph.function(step, backend="jax",
                           input_signature=[tf.TensorSpec([None], tf.float32)])
    numpy_step = autograph.function(step, backend="numpy")
    for n in (3, 3, 5, 1, 5):
        x = tf.constant(np.linspace(-1, 1, n).astype(np.float32))
        result = f(x)
        assert result.shape == (n,)
        np.testing.assert_allclose(result.numpy(), numpy_step(x).numpy(), rtol=1e-6)


def test_a_graph_that_checks_values_is_not_called_directly_and_raises_like_the_executor():
    def pick(x, i):
        return tf.gather(x, i) * 2.0

    f = jax_function(pick)
    x = tf.constant([1.0, 2.0, 3.0])
    assert f(x, tf.constant(2)).numpy() == 6.0
    assert f(x, tf.constant(1)).numpy() == 4.0
    assert not _goes_direct(f, x, tf.constant(1))
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of range|not in"):
        f(x, tf.constant(7))


def test_a_graph_with_host_calls_is_not_called_directly_and_prints_once(capsys):
    def loud(x):
        tf.print("value", x)
        return x + 1.0

    f = jax_function(loud)
    x = tf.constant(1.0)
    for _ in range(3):
        assert f(x).numpy() == 2.0
    assert not _goes_direct(f, x)
    printed = capsys.readouterr()
    assert (printed.out + printed.err).count("value") == 3


def _specialised(function):
    """True when `function`'s cached calls with device tensors run their trace's direct
    call (the fast path, see runtime.fast_call), its class unchanged."""
    return type(function) is autograph.Function and any(
        all(sig.is_device_part(part) for part in key) and key in function._fast_calls
        and cf.fast_call().direct for key, cf in function._cache.items())


def test_a_function_fed_device_tensors_is_specialised_and_keeps_its_semantics():
    f = jax_function(step)
    x = jax_backend.to_device(tf.constant([0.5, -1.0, 2.0]))
    numpy_step = autograph.function(step, backend="numpy")
    for _ in range(300):  # past a sampled call, which specialises it
        result = f(x)
    assert _specialised(f) and isinstance(f, type(numpy_step))
    assert list(f._fast_calls) == [sig.make_key((x,))]  # (the dispatcher's inline key)
    np.testing.assert_allclose(result.numpy(), numpy_step(x).numpy(), rtol=1e-6)
    # what the specialised call does not take goes the general way, with the same results
    other = jax_backend.to_device(tf.constant([1.0, 2.0]))  # another shape: a new trace
    np.testing.assert_allclose(f(other).numpy(), numpy_step(other).numpy(), rtol=1e-6)
    np.testing.assert_allclose(f(x=x).numpy(), result.numpy(), rtol=1e-6)
    host = tf.constant([0.5, -1.0, 2.0])  # not on the device
    np.testing.assert_allclose(f(host).numpy(), result.numpy(), rtol=1e-6)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(f(x))
    assert tape.gradient(y, x) is not None
    tf.config.run_functions_eagerly(True)
    try:
        eager = f(x)
    finally:
        tf.config.run_functions_eagerly(False)
    assert type(eager) is not DeviceTensor
    assert f.experimental_get_tracing_count() == 2
    with pytest.raises(TypeError):
        f(x, x)


def test_a_specialised_function_still_counts_and_samples_its_calls():
    f = jax_function(step)
    x = jax_backend.to_device(tf.constant([0.5, -1.0]))
    for _ in range(300):
        f(x)
    assert _specialised(f)
    before = f.stats()
    for _ in range(3200):
        f(x)
    after = f.stats()
    assert after.calls == before.calls + 3200
    assert after.mean_call_seconds is not None and after.mean_call_seconds > 0


def test_a_function_of_several_device_tensors_is_specialised_for_all_of_them():
    def mixed(x, y):
        return tf.tanh(x * 1.5) + y

    f = jax_function(mixed)
    x = jax_backend.to_device(tf.constant([0.5, -1.0]))
    y = jax_backend.to_device(tf.constant([2.0, 3.0]))
    for _ in range(300):
        result = f(x, y)
    assert _specialised(f)
    reference = autograph.function(mixed, backend="numpy")
    np.testing.assert_allclose(result.numpy(), reference(x, y).numpy(), rtol=1e-6)
    wider = jax_backend.to_device(tf.constant([2.0, 3.0, 4.0]))  # the second one differs
    np.testing.assert_allclose(f(x[:1], wider[:1]).numpy(),
                               reference(x[:1], wider[:1]).numpy(), rtol=1e-6)
    np.testing.assert_allclose(f(y, x).numpy(), reference(y, x).numpy(), rtol=1e-6,
                               atol=1e-6)  # (tanh(4.5) - 1 cancels: XLA's tanh is an ulp off)
    assert f.experimental_get_tracing_count() == 2


def test_a_function_fed_host_tensors_is_not_specialised():
    f = jax_function(step)
    x = tf.constant([0.5, -1.0])
    for _ in range(300):
        f(x)
    assert not _specialised(f)
