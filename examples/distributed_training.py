"""Data-parallel training with tf.distribute: a tf.Module model, a distributed dataset, and a
custom training loop with `strategy.run` and `strategy.reduce`.

    python examples/distributed_training.py              # the replicas: logical CPUs
    XLA_FLAGS=--xla_force_host_platform_device_count=4 \\
        python examples/distributed_training.py 4        # one XLA host device per replica

With jax installed and one JAX device per replica, each step is one compiled program over
the devices (see docs/distribute.md); otherwise the replicas run on the host. The losses are
the same for any replica count.
"""

import sys

import numpy as np

import autograph.tf as tf

GLOBAL_BATCH = 16
LEARNING_RATE = 0.1


class Regression(tf.Module):
    """A linear model y = x @ w + b."""

    def __init__(self, features):
        super().__init__()
        # every replica applies the same all-reduced update: the MEAN of equal values is it
        self.w = tf.Variable(tf.zeros([features, 1]), aggregation=tf.VariableAggregation.MEAN)
        self.b = tf.Variable(tf.zeros([1]), aggregation=tf.VariableAggregation.MEAN)

    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b


def make_dataset():
    """64 noisy samples of y = 3 x0 - 2 x1 + 1, batched by the global batch size."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(64, 2)).astype(np.float32)
    y = (x @ np.array([[3.0], [-2.0]], np.float32) + 1.0 +
         0.01 * rng.normal(size=(64, 1))).astype(np.float32)
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)


def train(strategy, epochs=5):
    """Trains a model under `strategy`; returns the loss of each step."""
    with strategy.scope():
        model = Regression(2)
    data = strategy.experimental_distribute_dataset(make_dataset())

    def step(x, y):
        with tf.GradientTape() as tape:
            # each replica's share of the global batch's mean squared error
            loss = tf.reduce_sum(tf.square(model(x) - y)) / GLOBAL_BATCH
        grads = tape.gradient(loss, [model.w, model.b])
        grads = tf.distribute.get_replica_context().all_reduce("SUM", grads)
        for variable, grad in zip([model.w, model.b], grads):
            variable.assign_sub(LEARNING_RATE * grad)
        return loss

    losses = []
    for _ in range(epochs):
        for x, y in data:
            per_replica = strategy.run(step, args=(x, y))
            losses.append(float(strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica,
                                                axis=None)))
    return losses


def main(replicas=2):
    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration()] * replicas)
    strategy = tf.distribute.MirroredStrategy()
    losses = train(strategy)
    print("replicas: %d, first loss %.4f, last loss %.6f"
          % (strategy.num_replicas_in_sync, losses[0], losses[-1]))
    return losses


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
