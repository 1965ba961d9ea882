"""`strategy.run` and what a replica sees: its context, collectives, merge_call, results."""

import numpy as np
import pytest

import autograph.tf as tf


@pytest.fixture
def two_replicas(logical_cpus):
    logical_cpus(2)
    return tf.distribute.MirroredStrategy()


def _per_replica(strategy, values):
    def value_fn(context):
        assert isinstance(context, tf.distribute.experimental.ValueContext)
        return tf.constant(values[context.replica_id_in_sync_group])
    return strategy.experimental_distribute_values_from_function(value_fn)


def test_run_with_one_replica_returns_the_plain_result():
    strategy = tf.distribute.MirroredStrategy()
    result = strategy.run(lambda x: x + 1, args=(tf.constant(1.0),))
    assert result.numpy() == 2.0
    assert strategy.experimental_local_results(result) == (result,)


def test_run_gives_each_replica_its_part_and_returns_per_replica_results(two_replicas):
    values = _per_replica(two_replicas, [1.0, 10.0])
    result = two_replicas.run(lambda x, scale: x * scale, args=(values,),
                              kwargs={"scale": tf.constant(2.0)})
    assert isinstance(result, tf.distribute.DistributedValues)
    parts = two_replicas.experimental_local_results(result)
    assert [p.numpy() for p in parts] == [2.0, 20.0]


def test_each_replica_knows_its_id_and_the_replica_count(two_replicas):
    def step():
        ctx = tf.distribute.get_replica_context()
        return ctx.replica_id_in_sync_group, ctx.num_replicas_in_sync
    ids, counts = two_replicas.run(step)
    assert [i.numpy() for i in ids.values] == [0, 1]
    assert counts == 2


def test_all_reduce_gives_every_replica_the_combined_value(two_replicas):
    values = _per_replica(two_replicas, [1.0, 3.0])

    def step(x):
        ctx = tf.distribute.get_replica_context()
        return ctx.all_reduce(tf.distribute.ReduceOp.SUM, x), ctx.all_reduce("MEAN", x)
    sums, means = two_replicas.run(step, args=(values,))
    assert [s.numpy() for s in two_replicas.experimental_local_results(sums)] == [4.0, 4.0]
    assert [m.numpy() for m in two_replicas.experimental_local_results(means)] == [2.0, 2.0]


def test_merge_call_runs_once_in_the_cross_replica_context(two_replicas):
    values = _per_replica(two_replicas, [1.0, 3.0])
    calls = []

    def merge(strategy, value):
        calls.append(tf.distribute.in_cross_replica_context())
        return strategy.reduce("SUM", value, axis=None)

    def step(x):
        return tf.distribute.get_replica_context().merge_call(merge, args=(x,))
    result = two_replicas.run(step, args=(values,))
    assert calls == [True]
    assert result.numpy() == 4.0


def test_reduce_over_replicas_and_along_an_axis(two_replicas):
    values = _per_replica(two_replicas, [[1.0, 2.0], [3.0, 4.0, 5.0]])
    assert two_replicas.reduce("SUM", values, axis=0).numpy() == 15.0
    assert two_replicas.reduce("MEAN", values, axis=0).numpy() == 3.0
    same = _per_replica(two_replicas, [[1.0, 2.0], [3.0, 6.0]])
    np.testing.assert_allclose(two_replicas.reduce("MEAN", same, axis=None).numpy(), [2.0, 4.0])


def test_reduce_sum_of_a_plain_tensor_over_several_replicas_is_refused(two_replicas):
    with pytest.raises(ValueError, match="non-DistributedValues"):
        two_replicas.reduce("SUM", tf.constant(1.0), axis=None)


def test_gather_concatenates_the_replicas_parts(two_replicas):
    values = _per_replica(two_replicas, [[1, 2], [3]])
    assert two_replicas.gather(values, axis=0).numpy().tolist() == [1, 2, 3]


def test_a_replica_error_is_raised_by_run(two_replicas):
    def step():
        if tf.distribute.get_replica_context().replica_id_in_sync_group.numpy() == 1:
            raise KeyError("replica one failed")
        return tf.distribute.get_replica_context().all_reduce("SUM", tf.constant(1.0))
    with pytest.raises(KeyError, match="replica one failed"):
        two_replicas.run(step)


@pytest.mark.parametrize("aggregation, expected", [
    (tf.VariableAggregation.SUM, 4.0 + 10.0),
    (tf.VariableAggregation.MEAN, (4.0 + 10.0) / 2),
    (tf.VariableAggregation.ONLY_FIRST_REPLICA, 4.0),
])
def test_an_assignment_on_every_replica_is_combined_by_the_aggregation(two_replicas, aggregation,
                                                                      expected):
    with two_replicas.scope():
        v = tf.Variable(0.0, aggregation=aggregation)
    two_replicas.run(lambda x: v.assign(x), args=(_per_replica(two_replicas, [4.0, 10.0]),))
    assert v.numpy() == expected


def test_an_assignment_on_every_replica_without_an_aggregation_is_refused(two_replicas):
    with two_replicas.scope():
        v = tf.Variable(0.0)
    with pytest.raises(ValueError, match="You must specify an aggregation method"):
        two_replicas.run(lambda: v.assign_add(1.0))


def test_run_inside_a_function_with_one_replica_is_traced_once():
    strategy = tf.distribute.MirroredStrategy()
    traces = []

    @tf.function
    def step(x):
        def replica_fn(y):
            traces.append(1)
            return tf.distribute.get_replica_context().all_reduce("SUM", y * 2)
        return strategy.run(replica_fn, args=(x,))
    assert step(tf.constant(2.0)).numpy() == 4.0
    assert step(tf.constant(3.0)).numpy() == 6.0
    assert len(traces) == 1


def test_run_inside_a_function_replicates_the_step_in_its_graph(two_replicas):
    with two_replicas.scope():
        total = tf.Variable(0.0, aggregation=tf.VariableAggregation.SUM)
    traces = []

    def replica_fn(x):
        traces.append(1)
        ctx = tf.distribute.get_replica_context()
        if x > 2.0:  # a tensor condition: staged on each replica
            x = x * 10.0
        total.assign_add(x)
        return ctx.all_reduce("SUM", x) + tf.cast(ctx.replica_id_in_sync_group, tf.float32)

    @tf.function
    def step(values):
        return two_replicas.run(replica_fn, args=(values,))
    values = _per_replica(two_replicas, [1.0, 3.0])
    for _ in range(2):
        result = step(values)
        assert [r.numpy() for r in two_replicas.experimental_local_results(result)] == \
            [31.0, 32.0]
    assert len(traces) == 2  # once per replica, in the one trace
    assert step.experimental_get_tracing_count() == 1
    assert total.numpy() == 2 * 31.0
