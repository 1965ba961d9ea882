"""With jax and one XLA host device per replica, `strategy.run` is one compiled program
over the device mesh: a training loop gives the one-replica losses on 2 and 4 devices.

One subprocess per module (XLA's device count is fixed before jax is imported) runs every
scenario and prints its findings as JSON, with the ops whose lowerings its compiled graphs
used: the module is in the backend conformance subset (`lowerings`), and with
`--every-lowering` its graphs count as the run's (the collectives lower only over a mesh of
several devices)."""

import json
import os
import subprocess
import sys

import lowerings_used
import pytest

pytest.importorskip("jax")
pytestmark = pytest.mark.lowerings

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = r'''
import json
import numpy as np
import autograph.tf as tf
import lowerings_used

lowerings_used.note_compiled_ops()
found = {}
cpu = tf.config.list_physical_devices("CPU")[0]


def split(count):
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration()] * count)
    return tf.distribute.MirroredStrategy()


def mesh_runs(strategy):
    steps = getattr(strategy, "_mesh_steps", {})
    return [(len(s._programs), s._function.experimental_get_tracing_count())
            for s in steps.values()]


def train(strategy):
    with strategy.scope():
        w = tf.Variable([[0.5], [-0.25]], aggregation=tf.VariableAggregation.MEAN)
        b = tf.Variable([0.1], aggregation=tf.VariableAggregation.MEAN)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 2)).astype(np.float32)
    y = (x @ np.array([[2.0], [-1.0]], np.float32) + 0.5).astype(np.float32)
    data = strategy.experimental_distribute_dataset(
        tf.data.Dataset.from_tensor_slices((x, y)).batch(8))

    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(tf.matmul(x, w) + b - y)) / 8
        grads = tape.gradient(loss, [w, b])
        grads = tf.distribute.get_replica_context().all_reduce("SUM", grads)
        w.assign_sub(0.1 * grads[0])
        b.assign_sub(0.1 * grads[1])
        return loss
    losses = []
    for _ in range(3):
        for x, y in data:
            losses.append(float(strategy.reduce("SUM", strategy.run(step, args=(x, y)),
                                                axis=None)))
    return losses, mesh_runs(strategy)


def train_in_a_function(strategy, backend=None):
    with strategy.scope():
        w = tf.Variable([[0.5], [-0.25]], aggregation=tf.VariableAggregation.MEAN)
        b = tf.Variable([0.1], aggregation=tf.VariableAggregation.MEAN)
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 2)).astype(np.float32)
    y = (x @ np.array([[2.0], [-1.0]], np.float32) + 0.5).astype(np.float32)
    data = strategy.experimental_distribute_dataset(
        tf.data.Dataset.from_tensor_slices((x, y)).batch(8))
    traces = []

    def step(x, y):
        traces.append(1)
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(tf.matmul(x, w) + b - y)) / 8
        grads = tape.gradient(loss, [w, b])
        grads = tf.distribute.get_replica_context().all_reduce("SUM", grads)
        w.assign_sub(0.1 * grads[0])
        b.assign_sub(0.1 * grads[1])
        return loss

    @tf.function(backend=backend)
    def train_step(x, y):
        return strategy.reduce("SUM", strategy.run(step, args=(x, y)), axis=None)
    losses = [float(train_step(x, y)) for _ in range(3) for x, y in data]
    concrete = train_step.get_concrete_function(*next(iter(data)))
    kinds = sorted({n.op.name for n in concrete.graph.nodes} &
                   {"PyFunc", "MeshRun", "MatMul", "CollectiveAllReduce"})
    return losses, len(traces), kinds, concrete.backend_report().running


for count in (1, 2, 4):
    found["train_%d" % count] = train(split(count))
for count in (2, 4):
    found["function_%d" % count] = train_in_a_function(split(count), "numpy")
    found["jax_function_%d" % count] = train_in_a_function(split(count), "jax")

strategy = split(4)
with strategy.scope():
    counter = tf.Variable(0.0, aggregation=tf.VariableAggregation.MEAN)
element = next(iter(strategy.experimental_distribute_dataset(
    tf.data.Dataset.from_tensors(np.arange(8.0, dtype=np.float32)))))


def doubled_and_counted(x):
    counter.assign_add(tf.distribute.get_replica_context().all_reduce("SUM", 1.0) / 4.0)
    return x * 2.0


for backend in ("numpy", "jax"):
    doubling = tf.function(lambda x: strategy.run(doubled_and_counted, args=(x,)),
                           backend=backend)
    results = [doubling(element) for _ in range(30)]  # (dispatched without reading)
    found["function_results_" + backend] = {
        "kind": type(results[-1]).__name__,
        "values": [t.numpy().tolist() for t in results[-1].values],
        "fed_again": [t.numpy().tolist() for t in doubling(results[-1]).values],
        "counter": float(counter.numpy()),
    }
    counter.assign(0.0)

with strategy.scope():
    w = tf.Variable(np.eye(128, dtype=np.float32) * 0.5, aggregation=tf.VariableAggregation.MEAN)
ones = next(iter(strategy.experimental_distribute_dataset(
    tf.data.Dataset.from_tensors(np.ones((512, 128), np.float32)))))


def products(x):
    product = tf.matmul(tf.matmul(x, w), w, transpose_b=True)
    return tf.distribute.get_replica_context().all_reduce("MEAN", product)


ahead = tf.function(lambda x: strategy.run(products, args=(x,)), backend="jax")
found["dispatched_ahead"] = float([ahead(ones) for _ in range(200)][-1].values[0].numpy()[0, 0])

one = split(1)
one_element = next(iter(one.experimental_distribute_dataset(
    tf.data.Dataset.from_tensors(np.arange(4.0, dtype=np.float32)))))
found["one_replica_element"] = type(one_element).__name__
strategy = split(4)


def collectives():
    ctx = tf.distribute.get_replica_context()
    rid = ctx.replica_id_in_sync_group
    return rid, ctx.all_reduce("MEAN", tf.cast(rid, tf.float32))


ids, means = strategy.run(collectives)
found["ids"] = [int(t.numpy()) for t in strategy.experimental_local_results(ids)]
found["means"] = [float(t.numpy()) for t in strategy.experimental_local_results(means)]
found["collectives_on_mesh"] = mesh_runs(strategy)
for backend in ("numpy", "jax"):
    in_function = tf.function(lambda: strategy.run(collectives), backend=backend)
    ids_in_function, means_in_function = in_function()
    found["collectives_in_function_" + backend] = {
        "ids": [int(t.numpy()) for t in strategy.experimental_local_results(ids_in_function)],
        "means": [float(t.numpy())
                  for t in strategy.experimental_local_results(means_in_function)],
        "running": in_function.get_concrete_function().backend_report().running}

with strategy.scope():
    first = tf.Variable(0.0, aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA)
strategy.run(lambda: first.assign(
    10.0 + tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)))
found["only_first"] = float(first.numpy())

short = strategy.experimental_distribute_dataset(tf.data.Dataset.range(6).batch(4))
found["short_batches"] = [
    [int(t.numpy()) for t in strategy.experimental_local_results(
        strategy.run(lambda x: tf.reduce_sum(x), args=(element,)))]
    for element in short]


placed = next(iter(strategy.experimental_distribute_dataset(
    tf.data.Dataset.from_tensors(np.arange(8.0, dtype=np.float32)))))
doubled = strategy.run(lambda x: x * 2.0, args=(placed,))
quadrupled = strategy.run(lambda x: x * 2.0, args=(doubled,))
found["on_devices"] = {
    "input": [type(t).__name__ for t in placed.values],
    "results": [type(t).__name__ for t in quadrupled.values],
    "one_array": len({id(t._stack) for t in quadrupled.values}),
    "host_copies": [t._stack._host is not None for t in doubled.values + quadrupled.values],
}
found["results_read"] = [t.numpy().tolist() for t in quadrupled.values]
found["reduced"] = float(strategy.reduce("MEAN", quadrupled, axis=None).numpy()[0])

with strategy.scope():
    summed = tf.Variable(0.0, aggregation=tf.VariableAggregation.SUM)
    averaged = tf.Variable(0.0, aggregation=tf.VariableAggregation.MEAN)


def replicated_updates():
    one = tf.distribute.get_replica_context().all_reduce("MEAN", tf.constant(1.0))
    summed.assign_add(one * 2.0)
    averaged.assign_add(one * 2.0)
    return one


strategy.run(replicated_updates)
found["replicated_updates"] = [float(summed.numpy()), float(averaged.numpy())]
found["sum_of_a_constant"] = [float(t.numpy()) for t in strategy.experimental_local_results(
    strategy.run(lambda: tf.distribute.get_replica_context().all_reduce(
        "SUM", tf.constant(1.0))))]


def merging():
    return tf.distribute.get_replica_context().merge_call(
        lambda s: tf.constant(s.num_replicas_in_sync))


def tensor_if(x):
    if x > 1.0:
        y = x * 2.0
    else:
        y = -x
    return y


found["tensor_if"] = [[float(t.numpy()) for t in strategy.experimental_local_results(
    strategy.run(tensor_if, args=(tf.constant(float(i)),)))] for i in range(3)]
found["merge_call"] = [int(t.numpy()) for t in
                       strategy.experimental_local_results(strategy.run(merging))]
found["lowered"] = lowerings_used.used()
print(json.dumps(found))
'''


@pytest.fixture(scope="module")
def found(tmp_path_factory):
    path = tmp_path_factory.mktemp("mesh") / "mesh.py"
    path.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([REPO, os.path.join(REPO, "tests")]),
               JAX_PLATFORMS="cpu",
               XLA_FLAGS="--xla_force_host_platform_device_count=4")
    ran = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=env,
                         timeout=300)
    assert ran.returncode == 0, ran.stderr
    found = json.loads(ran.stdout.strip().splitlines()[-1])
    lowerings_used.add_used(found["lowered"])
    return found


@pytest.mark.parametrize("count", [2, 4])
def test_a_training_loop_on_several_devices_gives_the_one_device_losses(found, count):
    one_losses, _ = found["train_1"]
    losses, compiled = found["train_%d" % count]
    assert losses == pytest.approx(one_losses, rel=1e-5)
    assert losses[-1] < losses[0]
    assert compiled == [[1, 1]]  # one step function, traced once, one mesh program


@pytest.mark.parametrize("count", [2, 4])
def test_run_in_a_function_is_one_op_running_the_mesh_program(found, count):
    one_losses, _ = found["train_1"]
    losses, traces, kinds, running = found["function_%d" % count]
    assert losses == pytest.approx(one_losses, rel=1e-5)
    assert traces == 1  # the step is traced once, for the mesh, not once per replica
    assert kinds == ["MeshRun"]  # the Function's graph holds the one step, not the replicas
    assert running == "numpy"


@pytest.mark.parametrize("count", [2, 4])
def test_run_in_a_jax_function_is_lowered_into_the_functions_program(found, count):
    one_losses, _ = found["train_1"]
    losses, traces, kinds, running = found["jax_function_%d" % count]
    assert losses == pytest.approx(one_losses, rel=1e-5)
    assert traces == 1
    assert kinds == ["MeshRun"]
    assert running == "jax"  # one JAX program: the step's shard_map inside the Function's


@pytest.mark.parametrize("backend", ["numpy", "jax"])
def test_a_function_takes_and_returns_per_replica_values_stacked_on_the_mesh(found, backend):
    got = found["function_results_" + backend]
    assert got["kind"] == "StackedPerReplica"
    assert got["values"] == [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0], [12.0, 14.0]]
    assert got["fed_again"] == [[0.0, 4.0], [8.0, 12.0], [16.0, 20.0], [24.0, 28.0]]
    assert got["counter"] == 31.0


def test_a_jax_function_over_cpu_devices_waits_for_its_previous_step_before_dispatch(found):
    # (200 steps dispatched without reading a result: with more CPU devices than cores,
    # XLA's CPU collectives abort the process when programs run ahead of each other)
    assert found["dispatched_ahead"] == 0.25


def test_a_one_replica_distributed_dataset_places_its_elements_on_the_device(found):
    assert found["one_replica_element"] == "DeviceTensor"


def test_each_device_runs_its_replica_with_collectives_in_the_program(found):
    assert found["ids"] == [0, 1, 2, 3]
    assert found["means"] == [1.5] * 4
    assert found["collectives_on_mesh"] == [[1, 1]]


def test_replica_ids_and_an_all_reduce_in_a_jax_function_give_the_executors_values(found):
    on_jax = found["collectives_in_function_jax"]
    assert on_jax["running"] == "jax"
    assert on_jax["ids"] == [0, 1, 2, 3] and on_jax["means"] == [1.5] * 4
    assert {k: on_jax[k] for k in ("ids", "means")} == {
        k: found["collectives_in_function_numpy"][k] for k in ("ids", "means")}
    assert {("jax", "ReplicaIdInSyncGroup"), ("jax", "CollectiveAllReduce"),
            ("jax", "MeshRun")} <= {tuple(pair) for pair in found["lowered"]}


def test_only_the_first_replicas_assignment_is_kept(found):
    assert found["only_first"] == 10.0


def test_a_short_last_batch_runs_on_the_replica_threads(found):
    # 4 over 4 replicas: [1, 1, 1, 1]; the last batch of 2: [1, 1, 0, 0]
    assert found["short_batches"] == [[0, 1, 2, 3], [4, 5, 0, 0]]


def test_mesh_results_and_dataset_elements_stay_on_the_devices(found):
    placed = found["on_devices"]
    assert placed["input"] == ["ReplicaPart"] * 4
    assert placed["results"] == ["ReplicaPart"] * 4
    assert placed["one_array"] == 1
    assert placed["host_copies"] == [False] * 8  # (nothing was read back between steps)
    assert found["results_read"] == [[0.0, 4.0], [8.0, 12.0], [16.0, 20.0], [24.0, 28.0]]
    assert found["reduced"] == 12.0


def test_an_update_every_replica_holds_alike_is_aggregated_without_a_collective(found):
    # SUM adds the 4 replicas' updates of 2.0; MEAN keeps one
    assert found["replicated_updates"] == [8.0, 2.0]


def test_an_all_reduce_of_a_constant_sums_every_replicas_copy(found):
    assert found["sum_of_a_constant"] == [4.0] * 4


def test_merge_call_runs_on_the_replica_threads(found):
    assert found["merge_call"] == [4, 4, 4, 4]


def test_a_one_replica_mirrored_strategy_calls_its_step_at_every_run():
    import autograph.tf as tf
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    with strategy.scope():
        w = tf.Variable(1.0, aggregation=tf.VariableAggregation.MEAN)
    calls = []

    def step(x):
        calls.append(float(x))  # as in TensorFlow: Python runs at every step, on values
        w.assign_add(x)
        return w * 1.0
    results = [float(strategy.run(step, args=(tf.constant(2.0),)).numpy())
               for _ in range(3)]
    assert results == [3.0, 5.0, 7.0]
    assert calls == [2.0, 2.0, 2.0]


def test_a_step_on_the_mesh_is_converted_so_a_tensor_if_is_staged(found):
    assert found["tensor_if"] == [[-0.0] * 4, [-1.0] * 4, [4.0] * 4]
