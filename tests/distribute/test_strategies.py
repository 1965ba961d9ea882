"""Strategies, their scopes and mirrored variables."""

import pytest

import autograph.tf as tf


def test_code_outside_every_scope_runs_under_the_default_strategy():
    strategy = tf.distribute.get_strategy()
    assert strategy.num_replicas_in_sync == 1
    assert not tf.distribute.has_strategy()
    assert tf.distribute.get_replica_context() is not None
    assert not tf.distribute.in_cross_replica_context()


def test_a_scope_makes_its_strategy_current_and_its_context_cross_replica():
    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        assert tf.distribute.get_strategy() is strategy
        assert tf.distribute.has_strategy()
        assert tf.distribute.get_replica_context() is None
        assert tf.distribute.in_cross_replica_context()
    assert tf.distribute.get_strategy() is not strategy


def test_mirrored_strategy_without_split_devices_has_one_replica_on_the_cpu():
    strategy = tf.distribute.MirroredStrategy()
    assert strategy.num_replicas_in_sync == 1
    assert strategy.extended.worker_devices == ("/device:CPU:0",)


def test_mirrored_strategy_mirrors_over_the_logical_cpus(logical_cpus):
    logical_cpus(3)
    assert [d.name for d in tf.config.list_logical_devices("CPU")] == [
        "/device:CPU:0", "/device:CPU:1", "/device:CPU:2"]
    assert tf.distribute.MirroredStrategy().num_replicas_in_sync == 3
    chosen = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:2"])
    assert chosen.extended.worker_devices == ("/device:CPU:0", "/device:CPU:2")


def test_virtual_device_configuration_is_the_older_name_of_the_split(logical_cpus):
    cpu = tf.config.experimental.list_physical_devices("CPU")[0]
    tf.config.experimental.set_virtual_device_configuration(
        cpu, [tf.config.experimental.VirtualDeviceConfiguration()] * 2)
    assert len(tf.config.experimental.get_virtual_device_configuration(cpu)) == 2
    assert tf.distribute.MirroredStrategy().num_replicas_in_sync == 2


def test_a_strategy_device_the_machine_lacks_is_named():
    with pytest.raises(ValueError, match="'/gpu:7' is not a logical device"):
        tf.distribute.MirroredStrategy(["/gpu:7"])


def test_one_device_strategy_runs_one_replica_on_its_device():
    strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
    assert strategy.num_replicas_in_sync == 1
    assert strategy.run(lambda x: x * 2, args=(tf.constant(3),)).numpy() == 6


def test_variables_created_in_a_scope_are_mirrored(logical_cpus):
    logical_cpus(2)
    strategy = tf.distribute.MirroredStrategy()
    with strategy.scope():
        v = tf.Variable(1.0)
    plain = tf.Variable(1.0)
    assert type(v).__name__ == "MirroredVariable"
    assert type(plain).__name__ == "ResourceVariable"
    assert strategy.extended.variable_created_in_scope(v)
    assert len(strategy.experimental_local_results(v)) == 2


def test_mixing_two_strategies_is_refused():
    first, second = tf.distribute.MirroredStrategy(), tf.distribute.OneDeviceStrategy("/cpu:0")
    with first.scope():
        with pytest.raises(ValueError, match="Mixing different tf.distribute.Strategy"):
            with second.scope():
                pass


def test_reduce_op_names_and_variable_aggregations():
    assert tf.distribute.ReduceOp.SUM.value == "SUM"
    assert tf.distribute.ReduceOp.from_variable_aggregation(
        tf.VariableAggregation.MEAN) is tf.distribute.ReduceOp.MEAN
    with pytest.raises(ValueError, match="Could not convert"):
        tf.distribute.ReduceOp.from_variable_aggregation(tf.VariableAggregation.NONE)


def test_the_strategy_types_and_their_extended_parts():
    strategy = tf.distribute.MirroredStrategy()
    assert isinstance(strategy, tf.distribute.Strategy)
    assert isinstance(strategy.extended, tf.distribute.StrategyExtended)
    assert strategy.extended.parameter_devices == strategy.extended.worker_devices
    assert tf.distribute.get_cross_replica_context() is tf.distribute.get_strategy()
    with strategy.scope():
        assert tf.distribute.get_cross_replica_context() is strategy
    replica = strategy.run(tf.distribute.get_replica_context)
    assert isinstance(replica, tf.distribute.ReplicaContext)


def test_logical_device_configuration_reads_back_and_clears(logical_cpus):
    cpu = tf.config.list_physical_devices("CPU")[0]
    assert tf.config.get_logical_device_configuration(cpu) is None
    tf.config.experimental.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration(memory_limit=64)] * 2)
    assert tf.config.experimental.get_logical_device_configuration(cpu)[1].memory_limit == 64
    tf.config.set_logical_device_configuration(cpu, None)
    assert len(tf.config.list_logical_devices("CPU")) == 1
    with pytest.raises(ValueError, match="LogicalDeviceConfiguration"):
        tf.config.set_logical_device_configuration(cpu, ["half"])


@pytest.mark.parametrize("name, what", [
    ("ParameterServerStrategy", "parameter servers"),
    ("CentralStorageStrategy", "central device"),
    ("TPUStrategy", "TPU embeddings"),
])
def test_strategies_without_a_jax_counterpart_are_refused_by_name(name, what):
    # tf.distribute.experimental.ParameterServerStrategy,
    # tf.distribute.experimental.CentralStorageStrategy, tf.distribute.experimental.TPUStrategy
    with pytest.raises(NotImplementedError, match="%s is not supported: .*%s" % (name, what)):
        getattr(tf.distribute.experimental, name)(None)
    assert tf.distribute.TPUStrategy is tf.distribute.experimental.TPUStrategy
