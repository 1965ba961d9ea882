"""A custom training loop gives the same losses on one replica and on several."""

import importlib.util
import pathlib

import numpy as np
import pytest

import autograph.tf as tf

GLOBAL_BATCH = 8


class Linear(tf.Module):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable([[0.5], [-0.25]], aggregation=tf.VariableAggregation.MEAN)
        self.b = tf.Variable([0.1], aggregation=tf.VariableAggregation.MEAN)

    def __call__(self, x):
        return tf.matmul(x, self.w) + self.b


def _dataset():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 2)).astype(np.float32)
    y = (x @ np.array([[2.0], [-1.0]], np.float32) + 0.5).astype(np.float32)
    return tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)


def _train(strategy, epochs=3, learning_rate=0.1):
    with strategy.scope():
        model = Linear()
    data = strategy.experimental_distribute_dataset(_dataset())

    def step(x, y):
        with tf.GradientTape() as tape:
            # the loss of the global batch: each replica's part scaled by the global size
            loss = tf.reduce_sum(tf.square(model(x) - y)) / GLOBAL_BATCH
        grads = tape.gradient(loss, [model.w, model.b])
        grads = tf.distribute.get_replica_context().all_reduce("SUM", grads)
        for variable, grad in zip([model.w, model.b], grads):
            # every replica applies the same all-reduced update (their MEAN is stored)
            variable.assign_sub(learning_rate * grad)
        return loss

    losses = []
    for _ in range(epochs):
        for x, y in data:
            per_replica = strategy.run(step, args=(x, y))
            losses.append(float(strategy.reduce("SUM", per_replica, axis=None).numpy()))
    return losses, model.w.numpy()


@pytest.mark.parametrize("replicas", [2, 4])
def test_several_replicas_give_the_one_replica_losses(logical_cpus, replicas):
    one_losses, one_w = _train(tf.distribute.MirroredStrategy())
    logical_cpus(replicas)
    many_losses, many_w = _train(tf.distribute.MirroredStrategy())
    np.testing.assert_allclose(many_losses, one_losses, rtol=1e-5)
    np.testing.assert_allclose(many_w, one_w, rtol=1e-5)
    assert many_losses[-1] < many_losses[0]


def test_the_distributed_training_example_learns_the_same_on_any_replica_count(logical_cpus):
    path = pathlib.Path(__file__).parents[2] / "examples" / "distributed_training.py"
    spec = importlib.util.spec_from_file_location("distributed_training_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    one = example.train(tf.distribute.MirroredStrategy(), epochs=2)
    logical_cpus(2)
    two = example.train(tf.distribute.MirroredStrategy(), epochs=2)
    np.testing.assert_allclose(two, one, rtol=1e-5)
    assert two[-1] < two[0] / 2
