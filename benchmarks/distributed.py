"""Steps per second of a data-parallel training step over 1, 2 and 4 devices: the step of a
MirroredStrategy as a `tf.function` (strategy.run + strategy.reduce inside, on the JAX
backend: one program, see docs/distribute.md), the same calls made eagerly, and the same
step written by hand with JAX, as `jax.jit` with shardings and as `jax.jit` of `shard_map`.

    python -m benchmarks.distributed          # a table; each device count in its own process
    python -m benchmarks.distributed --rounds 9

XLA's host device count is fixed when jax is imported, so each device count runs in a
subprocess with XLA_FLAGS=--xla_force_host_platform_device_count=N (CPU devices stand in
for accelerators). Not in `python -m benchmarks`, which runs in one process.

Each subprocess times the Function and the hand-written steps in rounds, taking turns
within each round (so that the machine's load weighs on all of them), then the eager calls
(3 runs), and reports each variant's median steps per second; the time ratio is the median
of the per-round ratios. All variants synchronise the same
way: the data and parameters are placed on the devices once, before timing; each step is
dispatched without reading its result on the host; the last step's loss is read (waited
for) once, at the end. Over several CPU devices each dispatch first waits for the previous
step, in every variant (the strategy does it itself, see
runtime.distribute.mesh_values.CpuDispatch: XLA's CPU collectives abort the process when
programs run ahead of each other on a machine with fewer cores than devices). The
strategy's step returns per-replica losses, summed by `strategy.reduce` (in the Function,
as TensorFlow's custom training loops do); the hand-written steps return the summed loss.
"""

import json
import os
import statistics
import subprocess
import sys
import time

BATCH, FEATURES, HIDDEN = 512, 64, 256
LEARNING_RATE = 0.01
STEPS = 100  # per timed run
EAGER_STEPS = 10  # (the eager one-replica step runs op by op: slow)
ROUNDS = 7


def _data():
    import numpy as np
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, FEATURES)).astype(np.float32)
    y = rng.standard_normal((BATCH, 1)).astype(np.float32)
    w1 = (rng.standard_normal((FEATURES, HIDDEN)) / 8).astype(np.float32)
    w2 = (rng.standard_normal((HIDDEN, 1)) / 16).astype(np.float32)
    return x, y, w1, w2


def _rate(step, count):
    """Steps per second of one run of `count` steps of `step`, waiting for the last."""
    start = time.perf_counter()
    for _ in range(count):
        result = step()
    float(result)  # (waits for the last step)
    return count / (time.perf_counter() - start)


def strategy_steps(devices):
    """(the step as a tf.function, the same calls made eagerly) of a MirroredStrategy over
    `devices` replicas; each returns the summed loss."""
    import autograph.tf as tf
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration()] * devices)
    strategy = tf.distribute.MirroredStrategy()
    x, y, w1_value, w2_value = _data()
    with strategy.scope():
        w1 = tf.Variable(w1_value, aggregation=tf.VariableAggregation.MEAN)
        w2 = tf.Variable(w2_value, aggregation=tf.VariableAggregation.MEAN)
    element = next(iter(strategy.experimental_distribute_dataset(
        tf.data.Dataset.from_tensors((x, y)))))

    def step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2) - y))
            loss = loss / BATCH
        grads = tf.distribute.get_replica_context().all_reduce("SUM", tape.gradient(loss,
                                                                                    [w1, w2]))
        w1.assign_sub(LEARNING_RATE * grads[0])
        w2.assign_sub(LEARNING_RATE * grads[1])
        return loss

    def run(x, y):
        return strategy.reduce("SUM", strategy.run(step, args=(x, y)), axis=None)
    function = tf.function(run, backend="jax")
    report = function.get_concrete_function(*element).backend_report()
    if report.running != "jax":
        raise RuntimeError("the distributed step does not run on JAX: %s" % report)
    return (lambda: function(*element)), (lambda: run(*element))


def jax_steps(devices):
    """The same step by hand over a mesh of `devices` JAX devices, as (jax.jit with the
    batch sharded, jax.jit of shard_map with an explicit psum); each returns the loss."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:devices]), ("batch",))
    spec = jax.sharding.PartitionSpec
    split = jax.sharding.NamedSharding(mesh, spec("batch"))
    whole = jax.sharding.NamedSharding(mesh, spec())
    x, y, w1, w2 = _data()
    x, y = jax.device_put(x, split), jax.device_put(y, split)
    full = jax.lax.Precision.HIGHEST  # (the strategy's products are full float32, too)

    def loss_fn(params, x, y):
        w1, w2 = params
        hidden = jax.nn.relu(jnp.matmul(x, w1, precision=full))
        return jnp.sum(jnp.square(jnp.matmul(hidden, w2, precision=full) - y)) / BATCH

    def update(params, grads):
        return jax.tree_util.tree_map(lambda p, g: p - LEARNING_RATE * g, params, grads)

    @jax.jit
    def sharded(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return update(params, grads), loss

    def replica(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        grads = jax.lax.psum(grads, "batch")
        return update(params, grads), jax.lax.psum(loss, "batch")

    mapped = jax.jit(jax.shard_map(replica, mesh=mesh, in_specs=(spec(), spec("batch"),
                                                                  spec("batch")),
                                   out_specs=(spec(), spec())))

    def looping(program):
        state = [jax.device_put((w1, w2), whole), None]

        def run():
            if devices > 1 and state[1] is not None:
                state[1].block_until_ready()  # (as the strategy does over CPU devices)
            state[0], state[1] = program(state[0], x, y)
            return state[1]
        return run
    return looping(sharded), looping(mapped)


def _one(devices, rounds):
    """Times every variant over `rounds` rounds; prints the medians as JSON."""
    function, eager = strategy_steps(devices)
    jit, mapped = jax_steps(devices)
    steps = {"function": function, "eager": eager, "jit": jit, "shard_map": mapped}
    losses = {name: float(step()) for name, step in steps.items()}  # (compiles, and waits)
    for hand in ("jit", "shard_map"):  # (the same first step; "eager" goes on from it)
        if abs(losses[hand] - losses["function"]) > 1e-5 * abs(losses[hand]):
            raise AssertionError("the first losses differ: %r" % losses)
    rates = {name: [] for name in steps}
    order = ["function", "jit", "shard_map"]
    for round_index in range(rounds):
        for name in order if round_index % 2 == 0 else order[::-1]:
            rates[name].append(_rate(steps[name], STEPS))
    # (the eager calls after the others: their Python garbage slowed the next variant down)
    for _ in range(3):
        rates["eager"].append(_rate(eager, EAGER_STEPS if devices == 1 else STEPS))
    found = {name: statistics.median(found) for name, found in rates.items()}
    for hand in ("jit", "shard_map"):
        found["ratio_" + hand] = statistics.median(
            [h / f for h, f in zip(rates[hand], rates["function"])])
    found.update(devices=devices, first_losses=losses)
    print(json.dumps(found))


def _load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def main(rounds=ROUNDS):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    print("Median steps/s over %d interleaved rounds of %d steps (load average before: %s)"
          % (rounds, STEPS, _load()))
    print()
    print("| devices | tf.function steps/s | eager strategy.run steps/s | jax.jit + shardings "
          "steps/s | jax.jit(shard_map) steps/s | time ratio to jit + shardings | to "
          "shard_map |")
    print("|---|---|---|---|---|---|---|")
    for devices in (1, 2, 4):
        env = dict(os.environ, PYTHONPATH=root, JAX_PLATFORMS="cpu",
                   XLA_FLAGS="--xla_force_host_platform_device_count=%d" % devices)
        ran = subprocess.run([sys.executable, "-m", "benchmarks.distributed", str(devices),
                              str(rounds)], capture_output=True, text=True, env=env,
                             timeout=900)
        if ran.returncode != 0:
            lines = [line for line in ran.stderr.splitlines() if line.startswith(("F", "E"))]
            why = (lines or ["exit status %d" % ran.returncode])[-1]
            print("| %d | failed: %s | | | | | |" % (devices, why))
            continue
        found = json.loads(ran.stdout.strip().splitlines()[-1])
        print("| %d | %.0f | %.0f | %.0f | %.0f | %.2fx | %.2fx |" % (
            devices, found["function"], found["eager"], found["jit"], found["shard_map"],
            found["ratio_jit"], found["ratio_shard_map"]))
    print()
    print("(load average after: %s)" % _load())


if __name__ == "__main__":
    arguments = sys.argv[1:]
    if arguments[:1] == ["--rounds"]:
        main(int(arguments[1]))
    elif arguments:  # (a device count's subprocess: devices, rounds)
        _one(int(arguments[0]), int(arguments[1]))
    else:
        main()
