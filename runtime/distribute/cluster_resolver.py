"""`tf.distribute.cluster_resolver`: where the processes of a multi-worker job are.

`TFConfigClusterResolver` reads the `TF_CONFIG` environment variable, as TensorFlow does:

    {"cluster": {"worker": ["localhost:12345", "localhost:12346"]},
     "task": {"type": "worker", "index": 0}}

`SimpleClusterResolver` takes the same facts as arguments. The first worker (or the
"chief", when the cluster has one) is the coordinator that `jax.distributed` starts on.
"""

import json
import os

from runtime import devices


class ClusterSpec:
    """`tf.train.ClusterSpec`: job names mapped to their tasks' addresses."""

    def __init__(self, cluster):
        if isinstance(cluster, ClusterSpec):
            cluster = cluster.as_dict()
        jobs = {}
        for job, tasks in dict(cluster or {}).items():
            if isinstance(tasks, dict):
                tasks = [tasks[k] for k in sorted(tasks)]
            jobs[job] = list(tasks)
        self._jobs = jobs

    def as_dict(self):
        """The jobs and their addresses."""
        return {job: list(tasks) for job, tasks in self._jobs.items()}

    @property
    def jobs(self):
        """The job names."""
        return list(self._jobs)

    def num_tasks(self, job_name):
        """How many tasks `job_name` has."""
        return len(self._jobs.get(job_name, ()))

    def job_tasks(self, job_name):
        """The addresses of `job_name`'s tasks."""
        return list(self._jobs.get(job_name, ()))

    def __bool__(self):
        return bool(self._jobs)

    def __eq__(self, other):
        return isinstance(other, ClusterSpec) and self.as_dict() == other.as_dict()

    def __repr__(self):
        return "ClusterSpec(%r)" % (self._jobs,)


class ClusterResolver:
    """What a multi-worker strategy asks: the cluster, this process's task, its devices."""

    task_type = None
    task_id = None
    rpc_layer = None

    def cluster_spec(self):
        """The cluster as a ClusterSpec."""
        raise NotImplementedError

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        """The accelerators of this process, by type (JAX's GPUs or TPUs)."""
        counts: dict[str, int] = {}
        for d in devices.list_logical_devices():
            if d.device_type != "CPU":
                counts[d.device_type] = counts.get(d.device_type, 0) + 1
        return counts

    def master(self, task_type=None, task_id=None, rpc_layer=None):
        """The address of task (`task_type`, `task_id`), this process's by default."""
        task_type = self.task_type if task_type is None else task_type
        task_id = self.task_id if task_id is None else task_id
        if task_type is None or task_id is None:
            return ""
        address = self.cluster_spec().job_tasks(task_type)[task_id]
        layer = rpc_layer or self.rpc_layer
        return "%s://%s" % (layer, address) if layer else address


class SimpleClusterResolver(ClusterResolver):
    """`tf.distribute.cluster_resolver.SimpleClusterResolver(cluster_spec, task_type=...,
    task_id=...)`: the cluster given as arguments."""

    def __init__(self, cluster_spec, master="", task_type=None, task_id=None,
                 environment="", num_accelerators=None, rpc_layer=None):
        self._cluster = ClusterSpec(cluster_spec)
        self._master = master
        self.task_type = task_type
        self.task_id = task_id
        self.environment = environment
        self._accelerators = num_accelerators
        self.rpc_layer = rpc_layer

    def cluster_spec(self):
        """The cluster given."""
        return self._cluster

    def num_accelerators(self, task_type=None, task_id=None, config_proto=None):
        """The accelerators given, else this process's."""
        if self._accelerators is not None:
            return dict(self._accelerators)
        return super().num_accelerators(task_type, task_id, config_proto)


class TFConfigClusterResolver(ClusterResolver):
    """`tf.distribute.cluster_resolver.TFConfigClusterResolver()`: the cluster and task of
    the `TF_CONFIG` environment variable (JSON), read when asked."""

    def __init__(self, task_type=None, task_id=None, rpc_layer=None, environment=None):
        self._task_type = task_type
        self._task_id = task_id
        self._rpc_layer = rpc_layer
        self.environment = environment

    @staticmethod
    def _config():
        text = os.environ.get("TF_CONFIG", "")
        if not text:
            return {}
        try:
            config = json.loads(text)
        except ValueError as e:
            raise ValueError("TF_CONFIG is not valid JSON: %s" % e) from None
        if not isinstance(config, dict):
            raise ValueError("TF_CONFIG must be a JSON object with 'cluster' and 'task', got "
                             "%r" % (text,))
        return config

    @property
    def task_type(self):
        """This process's job ('worker', 'chief'), from TF_CONFIG unless given."""
        if self._task_type is not None:
            return self._task_type
        return self._config().get("task", {}).get("type")

    @task_type.setter
    def task_type(self, task_type):
        self._task_type = task_type

    @property
    def task_id(self):
        """This process's index in its job, from TF_CONFIG unless given."""
        if self._task_id is not None:
            return self._task_id
        index = self._config().get("task", {}).get("index")
        return None if index is None else int(index)

    @task_id.setter
    def task_id(self, task_id):
        self._task_id = task_id

    @property
    def rpc_layer(self):
        """The protocol named by TF_CONFIG's "rpc_layer" (None: none)."""
        return self._rpc_layer or self._config().get("rpc_layer")

    @rpc_layer.setter
    def rpc_layer(self, rpc_layer):
        self._rpc_layer = rpc_layer

    def cluster_spec(self):
        """TF_CONFIG's "cluster"."""
        return ClusterSpec(self._config().get("cluster", {}))


def worker_tasks(resolver):
    """The (job, index) of each process of the cluster in process order: the chief first,
    then the workers; refuses a cluster with parameter servers by name."""
    spec = resolver.cluster_spec()
    jobs = spec.as_dict()
    if "ps" in jobs:
        raise NotImplementedError("the cluster has 'ps' tasks: parameter servers are not "
                                  "supported (see docs/distribute.md)")
    unknown = set(jobs) - {"chief", "worker", "evaluator"}
    if unknown:
        raise ValueError("the cluster names jobs %s: only 'chief' and 'worker' take part in "
                         "training" % sorted(unknown))
    return ([("chief", i) for i in range(spec.num_tasks("chief"))] +
            [("worker", i) for i in range(spec.num_tasks("worker"))])
