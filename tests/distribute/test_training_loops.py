"""A custom training loop (examples/distributed_training.py's) gives the same losses on one
replica and on several."""

import importlib.util
import pathlib

import numpy as np
import pytest

import autograph.tf as tf


@pytest.fixture(scope="module")
def example():
    """The example module, loaded from its file (examples/ is not a package)."""
    path = pathlib.Path(__file__).parents[2] / "examples" / "distributed_training.py"
    spec = importlib.util.spec_from_file_location("distributed_training_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("replicas", [2, 4])
def test_several_replicas_give_the_one_replica_losses(example, logical_cpus, replicas):
    one = example.train(tf.distribute.MirroredStrategy(), epochs=2)
    logical_cpus(replicas)
    many = example.train(tf.distribute.MirroredStrategy(), epochs=2)
    np.testing.assert_allclose(many, one, rtol=1e-5)
    assert many[-1] < many[0] / 2
