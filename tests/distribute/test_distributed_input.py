"""Datasets split over replicas: TensorFlow's rebatching rules, datasets from a function."""

import pytest

import autograph.tf as tf


def _parts(strategy, element):
    return [p.numpy().tolist() for p in strategy.experimental_local_results(element)]


def test_a_global_batch_is_split_into_consecutive_replica_batches(logical_cpus):
    logical_cpus(3)
    strategy = tf.distribute.MirroredStrategy()
    data = strategy.experimental_distribute_dataset(tf.data.Dataset.range(13).batch(8))
    assert isinstance(data, tf.distribute.DistributedDataset)
    assert isinstance(iter(data), tf.distribute.DistributedIterator)
    first, last = list(data)
    # 8 over 3 replicas: [3, 3, 2]; the last batch of 5 fills the first replicas: [3, 2, 0]
    assert _parts(strategy, first) == [[0, 1, 2], [3, 4, 5], [6, 7]]
    assert _parts(strategy, last) == [[8, 9, 10], [11, 12], []]


def test_one_replica_gets_the_global_batch_unchanged():
    strategy = tf.distribute.MirroredStrategy()
    data = strategy.experimental_distribute_dataset(tf.data.Dataset.range(5).batch(4))
    assert [x.numpy().tolist() for x in data] == [[0, 1, 2, 3], [4]]


def test_nested_elements_are_split_leaf_by_leaf(logical_cpus):
    logical_cpus(2)
    strategy = tf.distribute.MirroredStrategy()
    ds = tf.data.Dataset.from_tensor_slices({"x": [1, 2, 3, 4], "y": [5, 6, 7, 8]}).batch(4)
    element = next(iter(strategy.experimental_distribute_dataset(ds)))
    assert _parts(strategy, element["x"]) == [[1, 2], [3, 4]]
    assert _parts(strategy, element["y"]) == [[5, 6], [7, 8]]


def test_datasets_from_a_function_feed_consecutive_elements_to_the_replicas(logical_cpus):
    logical_cpus(2)
    strategy = tf.distribute.MirroredStrategy()
    contexts = []

    def dataset_fn(context):
        contexts.append(context)
        batch = context.get_per_replica_batch_size(4)
        return tf.data.Dataset.range(8).batch(batch)
    data = strategy.distribute_datasets_from_function(dataset_fn)
    assert [_parts(strategy, x) for x in data] == [[[0, 1], [2, 3]], [[4, 5], [6, 7]]]
    assert (contexts[0].num_replicas_in_sync, contexts[0].num_input_pipelines,
            contexts[0].input_pipeline_id) == (2, 1, 0)


def test_a_per_replica_batch_size_that_does_not_divide_is_named():
    context = tf.distribute.InputContext(num_replicas_in_sync=3)
    with pytest.raises(ValueError, match="`global_batch_size` 8 is not divisible"):
        context.get_per_replica_batch_size(8)


def test_a_training_step_function_consumes_a_distributed_iterator(logical_cpus):
    logical_cpus(2)
    strategy = tf.distribute.MirroredStrategy()
    iterator = iter(strategy.experimental_distribute_dataset(tf.data.Dataset.range(8).batch(4)))

    @tf.function
    def total(it):
        return strategy.reduce("SUM", next(it), axis=0)
    assert total(iterator).numpy() == 6
    assert total(iterator).numpy() == 22


def test_a_loop_in_a_function_over_datasets_from_a_function_feeds_consecutive_replicas(
        logical_cpus):
    logical_cpus(2)
    strategy = tf.distribute.MirroredStrategy()
    data = strategy.distribute_datasets_from_function(
        lambda context: tf.data.Dataset.range(10).batch(2, drop_remainder=True))

    @tf.function
    def weighted_total(data):
        total = tf.constant(0, tf.int64)
        for x in data:  # replica 0: [0, 1], [4, 5]; replica 1: [2, 3], [6, 7]; [8, 9] dropped
            ids = strategy.run(
                lambda x: tf.reduce_sum(x) * tf.cast(
                    tf.distribute.get_replica_context().replica_id_in_sync_group + 1,
                    tf.int64), args=(x,))
            total += strategy.reduce("SUM", ids, axis=None)
        return total
    eager = sum(int(strategy.reduce("SUM", strategy.run(
        lambda x: tf.reduce_sum(x) * tf.cast(
            tf.distribute.get_replica_context().replica_id_in_sync_group + 1, tf.int64),
        args=(x,)), axis=None)) for x in data)
    assert weighted_total(data).numpy() == eager == (1 + 9) + 2 * (5 + 13)
