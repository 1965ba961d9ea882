"""Steps per second of a data-parallel training step over 1, 2 and 4 devices: the step as
`strategy.run` of a MirroredStrategy (one shard_map program, see docs/distribute.md) beside
the same step written by hand with `jax.jit` and shardings.

    python -m benchmarks.distributed          # a table; each device count in its own process

XLA's host device count is fixed when jax is imported, so each device count runs in a
subprocess with XLA_FLAGS=--xla_force_host_platform_device_count=N (CPU devices stand in
for accelerators). Not in `python -m benchmarks`, which runs in one process.

Both variants synchronise the same way: the data and parameters are placed on the devices
once, before timing; each step is dispatched without reading its result on the host; the
last step's loss is read (waited for) once, at the end. Over several CPU devices each
dispatch first waits for the previous step, in both variants (the strategy does it itself,
see runtime.distribute.mesh_values.CpuDispatch: XLA's CPU collectives abort the process
when programs run ahead of each other on a machine with fewer cores than devices). The
strategy's step also returns per-replica losses, summed by `strategy.reduce` on the devices
each step, as TensorFlow's custom training loops do; the hand-written step returns the
summed loss from its own program.
"""

import json
import os
import subprocess
import sys
import time

BATCH, FEATURES, HIDDEN = 512, 64, 256
STEPS = 100
REPEATS = 5  # (the best run counts: the machine is shared)


def _data():
    import numpy as np
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, FEATURES)).astype(np.float32)
    y = rng.standard_normal((BATCH, 1)).astype(np.float32)
    w1 = (rng.standard_normal((FEATURES, HIDDEN)) / 8).astype(np.float32)
    w2 = (rng.standard_normal((HIDDEN, 1)) / 16).astype(np.float32)
    return x, y, w1, w2


def _rate(step, count=STEPS):
    """Steps per second of one run of `count` steps of `step`, waiting for the last."""
    start = time.perf_counter()
    for _ in range(count):
        result = step()
    float(result)  # (waits for the last step)
    return count / (time.perf_counter() - start)


def _best_rates(steps, repeats=REPEATS):
    """The best steps per second of each of `steps` (name -> step) over `repeats` rounds,
    the variants taking turns within each round (the machine's load then weighs on both)."""
    for step in steps.values():
        float(step())  # (compiles, and waits)
    best = dict.fromkeys(steps, 0.0)
    for _ in range(repeats):
        for name, step in steps.items():
            best[name] = max(best[name], _rate(step))
    return best


def strategy_step(devices):
    """The MirroredStrategy step over `devices` replicas (returns the summed loss)."""
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
        w1.assign_sub(0.01 * grads[0])
        w2.assign_sub(0.01 * grads[1])
        return loss

    def run():
        return strategy.reduce("SUM", strategy.run(step, args=element), axis=None)
    return run


def jax_step(devices):
    """The same step by hand: jax.jit with the batch split over a mesh (returns the loss)."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:devices]), ("batch",))
    split = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("batch"))
    whole = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())
    x, y, w1, w2 = _data()
    x, y = jax.device_put(x, split), jax.device_put(y, split)
    params = jax.device_put((w1, w2), whole)

    full = jax.lax.Precision.HIGHEST  # (the strategy's products are full float32, too)

    def loss_fn(params, x, y):
        w1, w2 = params
        hidden = jax.nn.relu(jnp.matmul(x, w1, precision=full))
        return jnp.sum(jnp.square(jnp.matmul(hidden, w2, precision=full) - y)) / BATCH

    @jax.jit
    def train(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        return jax.tree_util.tree_map(lambda p, g: p - 0.01 * g, params, grads), loss

    state = [params, None]

    def run():
        if devices > 1 and state[1] is not None:
            state[1].block_until_ready()  # (as the strategy does over CPU devices)
        state[0], state[1] = train(state[0], x, y)
        return state[1]
    return run


def _one(devices):
    rates = _best_rates({"strategy": strategy_step(devices), "jax": jax_step(devices)})
    print(json.dumps(dict(rates, devices=devices)))


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    print("| devices | strategy.run steps/s | jax.jit + shardings steps/s | time ratio |")
    print("|---|---|---|---|")
    for devices in (1, 2, 4):
        env = dict(os.environ, PYTHONPATH=root, JAX_PLATFORMS="cpu",
                   XLA_FLAGS="--xla_force_host_platform_device_count=%d" % devices)
        ran = subprocess.run([sys.executable, "-m", "benchmarks.distributed", str(devices)],
                             capture_output=True, text=True, env=env, timeout=600)
        if ran.returncode != 0:
            lines = [line for line in ran.stderr.splitlines() if line.startswith(("F", "E"))]
            why = (lines or ["exit status %d" % ran.returncode])[-1]
            print("| %d | failed: %s | | |" % (devices, why))
            continue
        found = json.loads(ran.stdout.strip().splitlines()[-1])
        print("| %d | %.0f | %.0f | %.2fx |" % (devices, found["strategy"], found["jax"],
                                               found["jax"] / found["strategy"]))


if __name__ == "__main__":
    if len(sys.argv) > 1:
        _one(int(sys.argv[1]))
    else:
        main()
