"""MultiWorkerMirroredStrategy over two processes on the loopback address (each a worker of
TF_CONFIG's cluster with two logical CPUs, meeting on jax.distributed) gives the losses of
one process of one replica: each step is one mesh program over the 4 JAX CPU devices of both
processes, and the short last batch (30 samples in batches of 8) runs on every process's
replica threads."""

import json
import os
import socket
import subprocess
import sys

import pytest

pytest.importorskip("jax")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

WORKER = r'''
import json
import numpy as np
import autograph.tf as tf

import sys

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(
    cpu, [tf.config.LogicalDeviceConfiguration()] * int(sys.argv[1]))
strategy = tf.distribute.MultiWorkerMirroredStrategy(initialization_timeout_s=60)
with strategy.scope():
    w = tf.Variable([[0.5], [-0.25]], aggregation=tf.VariableAggregation.MEAN)
rng = np.random.default_rng(0)
x = rng.normal(size=(30, 2)).astype(np.float32)
y = (x @ np.array([[2.0], [-1.0]], np.float32)).astype(np.float32)
data = strategy.experimental_distribute_dataset(
    tf.data.Dataset.from_tensor_slices((x, y)).batch(8))


def step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(tf.matmul(x, w) - y)) / 8
    grad = tf.distribute.get_replica_context().all_reduce("SUM", tape.gradient(loss, w))
    w.assign_sub(0.1 * grad)
    return loss


def reduced_step(a, b):
    return strategy.reduce("SUM", strategy.run(step, args=(a, b)), axis=None)


def loop_over_data():
    losses = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    for a, b in data:
        losses = losses.write(losses.size(), reduced_step(a, b))
    return losses.stack()


kinds = []
mode = sys.argv[2]
if mode == "eager":
    losses = [float(reduced_step(a, b)) for a, b in data]
elif mode == "function":
    train = tf.function(reduced_step)
    losses = [float(train(a, b)) for a, b in data]
    concrete = train.get_concrete_function(*next(iter(data)))  # (a full batch's trace)
    kinds = sorted({n.op.name for n in concrete.graph.nodes} & {"MeshRun", "MatMul"})
else:  # the loop over the distributed dataset inside the Function
    losses = [float(v) for v in tf.function(loop_over_data)().numpy()]
mesh = strategy._mesh()
print(json.dumps({"replicas": strategy.num_replicas_in_sync, "losses": losses,
                  "kinds": kinds,
                  "mesh_devices": 0 if mesh is None else int(mesh.devices.size),
                  "mesh_programs": [len(s._programs)
                                    for s in getattr(strategy, "_mesh_steps", {}).values()],
                  "w": w.numpy().ravel().tolist()}))
'''


def _free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _run_workers(script, workers, devices, mode):
    addresses = ["localhost:%d" % port for port in _free_ports(workers)]
    processes = []
    for index in range(workers):
        config = {"cluster": {"worker": addresses}, "task": {"type": "worker", "index": index}}
        env = dict(os.environ, PYTHONPATH=REPO, JAX_PLATFORMS="cpu")
        env.pop("XLA_FLAGS", None)
        if workers > 1:
            env["TF_CONFIG"] = json.dumps(config)
        else:
            env.pop("TF_CONFIG", None)
        command = [sys.executable, str(script), str(devices), mode]
        processes.append(subprocess.Popen(command, env=env, text=True, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE))
    results = []
    try:
        for process in processes:
            out, err = process.communicate(timeout=180)
            assert process.returncode == 0, err
            results.append(json.loads(out.strip().splitlines()[-1]))
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    return results


@pytest.fixture(scope="module")
def worker_script(tmp_path_factory):
    script = tmp_path_factory.mktemp("workers") / "worker.py"
    script.write_text(WORKER)
    return script


@pytest.fixture(scope="module")
def one_process(worker_script):
    """What one process of one replica computes (eagerly)."""
    (single,) = _run_workers(worker_script, 1, 1, "eager")
    assert single["replicas"] == 1
    return single


def _check_trains_as_one_process(first, second, single):
    assert first["replicas"] == second["replicas"] == 4
    assert first["losses"] == pytest.approx(single["losses"], rel=1e-5)
    assert second["losses"] == first["losses"]
    assert first["w"] == pytest.approx(single["w"], rel=1e-5)
    assert len(first["losses"]) == 4
    assert first["mesh_devices"] == second["mesh_devices"] == 4


def test_two_worker_processes_of_two_devices_train_as_one_process_does(worker_script,
                                                                        one_process):
    first, second = _run_workers(worker_script, 2, 2, "eager")  # each: its CPU split in two
    _check_trains_as_one_process(first, second, one_process)
    assert first["mesh_programs"] == second["mesh_programs"] == [1]


def test_a_step_in_a_function_of_two_worker_processes_is_one_mesh_program(worker_script,
                                                                          one_process):
    # the full batches: one MeshRun op over the 4 devices of both processes; the short last
    # batch (process 0: replicas of 2 and 2 samples, process 1: of 2 and 0) runs on every
    # process's replica threads, as the processes agree at run time
    first, second = _run_workers(worker_script, 2, 2, "function")
    _check_trains_as_one_process(first, second, one_process)
    assert first["kinds"] == second["kinds"] == ["MeshRun"]
    assert first["mesh_programs"] == second["mesh_programs"] == [1]


def test_a_loop_over_a_distributed_dataset_in_a_function_of_two_worker_processes(
        worker_script, one_process):
    first, second = _run_workers(worker_script, 2, 2, "loop")
    _check_trains_as_one_process(first, second, one_process)
