"""Devices and the settings of `tf.config` as TensorFlow names them: the device lists,
visible devices, memory growth, thread pools, `tf.device` scopes and the eager switch."""

import copy

import pytest

import autograph.tf as tf
from runtime import devices


@pytest.fixture(autouse=True)
def settings_restored():
    saved = copy.deepcopy(devices._state)
    yield
    devices._state.clear()
    devices._state.update(saved)


def test_the_cpu_is_always_listed():
    cpu = tf.config.list_physical_devices("CPU")
    assert cpu == [tf.config.PhysicalDevice("/physical_device:CPU:0", "CPU")]
    assert cpu[0] in tf.config.list_physical_devices()
    assert tf.config.list_physical_devices("cpu") == cpu  # the type in any case
    assert tf.config.experimental.list_physical_devices("CPU") == cpu
    assert tf.config.list_logical_devices("CPU") == [
        tf.config.LogicalDevice("/device:CPU:0", "CPU")]
    assert tf.config.experimental.list_logical_devices("CPU") == \
        tf.config.list_logical_devices("CPU")


def test_accelerators_are_jaxs(monkeypatch):
    monkeypatch.setattr(devices, "_accelerators", lambda: [("GPU", 0), ("GPU", 1)])
    assert [d.name for d in tf.config.list_physical_devices("GPU")] == [
        "/physical_device:GPU:0", "/physical_device:GPU:1"]
    assert len(tf.config.list_logical_devices()) == 3


def test_visible_devices_can_be_narrowed(monkeypatch):
    monkeypatch.setattr(devices, "_accelerators", lambda: [("GPU", 0), ("GPU", 1)])
    gpus = tf.config.list_physical_devices("GPU")
    tf.config.set_visible_devices(gpus[1], "GPU")
    assert tf.config.get_visible_devices("GPU") == [gpus[1]]
    assert tf.config.experimental.get_visible_devices("CPU") == \
        tf.config.list_physical_devices("CPU")
    assert [d.name for d in tf.config.list_logical_devices("GPU")] == ["/device:GPU:1"]
    tf.config.experimental.set_visible_devices(gpus, "GPU")
    assert tf.config.get_visible_devices("GPU") == gpus


def test_visible_devices_refuse_unknown_devices_and_hiding_the_cpu():
    with pytest.raises(ValueError, match="Unrecognized device"):
        tf.config.set_visible_devices([tf.config.PhysicalDevice("/physical_device:GPU:7",
                                                                "GPU")])
    with pytest.raises(ValueError, match="CPU must stay visible"):
        tf.config.set_visible_devices([], "CPU")


def test_memory_growth_is_recorded_per_device():
    cpu = tf.config.list_physical_devices("CPU")[0]
    assert tf.config.experimental.get_memory_growth(cpu) is False
    tf.config.experimental.set_memory_growth(cpu, True)
    assert tf.config.experimental.get_memory_growth(cpu) is True
    with pytest.raises(ValueError, match="Unrecognized device"):
        tf.config.experimental.set_memory_growth("GPU:0", True)


def test_thread_pool_sizes_are_recorded():
    assert tf.config.threading.get_inter_op_parallelism_threads() == 0
    assert tf.config.threading.get_intra_op_parallelism_threads() == 0
    tf.config.threading.set_inter_op_parallelism_threads(2)
    tf.config.threading.set_intra_op_parallelism_threads(4)
    assert tf.config.threading.get_inter_op_parallelism_threads() == 2
    assert tf.config.threading.get_intra_op_parallelism_threads() == 4
    with pytest.raises(ValueError, match="integer >= 0"):
        tf.config.threading.set_intra_op_parallelism_threads(-1)


@pytest.mark.parametrize("spec, canonical", [
    ("/GPU:0", "/device:GPU:0"),
    ("gpu:1", "/device:GPU:1"),
    ("/cpu:0", "/device:CPU:0"),
    ("/device:CPU:0", "/device:CPU:0"),
    ("/job:localhost/replica:0/task:0/device:GPU:0",
     "/job:localhost/replica:0/task:0/device:GPU:0"),
    ("", ""),
    (None, ""),
])
def test_device_scopes_name_devices_as_tensorflow_does(spec, canonical):
    with tf.device(spec):
        assert devices.current_device() == canonical
        assert float(tf.constant(2.0) * 3.0) == 6.0  # placement is soft: it still runs
    assert devices.current_device() == ""


def test_device_scopes_nest_and_refuse_what_is_not_a_device():
    with tf.device("/GPU:0"):
        with tf.device("/CPU:0"):
            assert devices.current_device() == "/device:CPU:0"
        assert devices.current_device() == "/device:GPU:0"
    with pytest.raises(ValueError, match="Unknown attribute: 'graphics card'"):
        with tf.device("/graphics card"):
            pass


def test_the_experimental_eager_switch_is_the_eager_switch():
    calls = []

    @tf.function
    def f(x):
        calls.append(1)  # a Python side effect: runs on every call only when eager
        return x + 1

    tf.config.experimental_run_functions_eagerly(True)
    try:
        assert tf.config.functions_run_eagerly()
        assert tf.config.experimental_functions_run_eagerly()
        f(tf.constant(1))
        f(tf.constant(2))
        assert len(calls) == 2
    finally:
        tf.config.experimental_run_functions_eagerly(False)
    assert not tf.config.functions_run_eagerly()


def test_nodes_made_in_a_device_scope_record_it():
    @tf.function
    def f(x):
        with tf.device("/cpu:0"):
            y = x * 2.0
        return y + 1.0

    assert float(f(tf.constant(1.0))) == 3.0
    nodes = f.get_concrete_function(tf.constant(1.0)).graph.as_graph_def().node
    devices_by_op = {n.op: n.device for n in nodes}
    assert devices_by_op["Mul"] == "/device:CPU:0"
    assert devices_by_op["AddV2"] == ""


def test_the_jax_backend_places_a_graph_on_its_scoped_device():
    pytest.importorskip("jax")
    from runtime.backends import jax_backend

    def scoped(spec):
        @tf.function(backend="jax", strict=True)
        def f(x):
            with tf.device(spec):
                return x * 2.0
        assert float(f(tf.constant(2.0))) == 4.0
        return jax_backend.scoped_device(f.get_concrete_function(tf.constant(2.0)).graph)

    assert scoped("/CPU:0").platform == "cpu"
    if not tf.config.list_physical_devices("GPU"):
        assert scoped("/GPU:0") is None  # soft placement: JAX chooses
