"""Multi-worker strategies: cluster resolvers (TF_CONFIG and given clusters) and a job of
one worker."""

import json

import pytest

import autograph.tf as tf

TWO_WORKERS = {"worker": ["localhost:12345", "localhost:12346"]}


def test_tf_config_cluster_resolver_reads_the_cluster_and_task(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", json.dumps(
        {"cluster": TWO_WORKERS, "task": {"type": "worker", "index": 1}}))
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    assert isinstance(resolver, tf.distribute.cluster_resolver.ClusterResolver)
    assert resolver.cluster_spec() == tf.train.ClusterSpec(TWO_WORKERS)
    assert (resolver.task_type, resolver.task_id) == ("worker", 1)
    assert resolver.master() == "localhost:12346"


def test_tf_config_that_is_not_json_is_named(monkeypatch):
    monkeypatch.setenv("TF_CONFIG", "{cluster")
    with pytest.raises(ValueError, match="TF_CONFIG is not valid JSON"):
        tf.distribute.cluster_resolver.TFConfigClusterResolver().cluster_spec()


def test_simple_cluster_resolver_holds_what_it_is_given():
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
        tf.train.ClusterSpec(TWO_WORKERS), task_type="worker", task_id=0, rpc_layer="grpc")
    assert resolver.cluster_spec().num_tasks("worker") == 2
    assert resolver.master() == "grpc://localhost:12345"


def test_a_job_of_one_worker_runs_like_a_mirrored_strategy(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    strategy = tf.distribute.MultiWorkerMirroredStrategy()
    assert strategy.num_replicas_in_sync == 1
    assert strategy.run(lambda: tf.constant(2) * 3).numpy() == 6
    assert tf.distribute.experimental.MultiWorkerMirroredStrategy is \
        tf.distribute.MultiWorkerMirroredStrategy


def test_a_cluster_with_parameter_servers_is_refused_by_name():
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
        {"worker": ["a:1"], "ps": ["b:2"]}, task_type="worker", task_id=0)
    with pytest.raises(NotImplementedError, match="parameter servers are not supported"):
        tf.distribute.MultiWorkerMirroredStrategy(resolver)


def test_a_task_outside_the_cluster_is_named():
    resolver = tf.distribute.cluster_resolver.SimpleClusterResolver(
        TWO_WORKERS, task_type="worker", task_id=5)
    with pytest.raises(ValueError, match=r"task \('worker', 5\) is not in the cluster"):
        tf.distribute.MultiWorkerMirroredStrategy(resolver)
