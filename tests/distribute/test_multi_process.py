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


losses = [float(strategy.reduce("SUM", strategy.run(step, args=(a, b)), axis=None))
          for a, b in data]
mesh = strategy._mesh()
print(json.dumps({"replicas": strategy.num_replicas_in_sync, "losses": losses,
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


def _run_workers(script, workers, devices):
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
        command = [sys.executable, str(script), str(devices)]
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


def test_two_worker_processes_of_two_devices_train_as_one_process_does(tmp_path):
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    (single,) = _run_workers(script, 1, 1)
    first, second = _run_workers(script, 2, 2)  # each process: its CPU split in two
    assert single["replicas"] == 1
    assert first["replicas"] == second["replicas"] == 4
    assert first["losses"] == pytest.approx(single["losses"], rel=1e-5)
    assert second["losses"] == first["losses"]
    assert first["w"] == pytest.approx(single["w"], rel=1e-5)
    assert len(first["losses"]) == 4
    assert first["mesh_devices"] == second["mesh_devices"] == 4
    assert first["mesh_programs"] == second["mesh_programs"] == [1]
