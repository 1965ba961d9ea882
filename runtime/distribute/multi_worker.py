"""`tf.distribute.MultiWorkerMirroredStrategy`: synchronous training over several
processes (hosts, or processes on one machine standing in for them), started on
`jax.distributed`.

Each process is one task of the cluster its resolver describes (`TF_CONFIG` by default):

    TF_CONFIG='{"cluster": {"worker": ["localhost:12345", "localhost:12346"]},
                "task": {"type": "worker", "index": 0}}'  python train.py   # and index 1

The first task's address is the coordinator that `jax.distributed.initialize` starts on;
each process runs its own replicas (its logical devices, as MirroredStrategy does). With
one JAX device per replica in every process (a process of N logical CPUs asks JAX for N CPU
devices before starting it), a step is one mesh program over every process's devices
(runtime.distribute.mesh_run). Otherwise, and for a step the mesh cannot run, a collective
(`all_reduce`, `strategy.reduce`, a mirrored variable's update) first combines the
process's replicas, then the processes' results with JAX's cross-process all-gather
(`jax.experimental.multihost_utils.process_allgather`), so that every process gets the same
value. A cluster of one task runs as MirroredStrategy does, without `jax.distributed`.
"""

import os

import numpy as np

from runtime.distribute import cluster_resolver as resolvers
from runtime.distribute import reduce_op as reduce_ops
from runtime.distribute import strategy as strategies
from runtime.ops import common, dependency_ops, py_function_ops
from runtime.tensor import SymbolicTensor

# the (coordinator, processes, process id) jax.distributed was started with
_started: dict[tuple[str, int, int], bool] = {}


def _start_jax(coordinator, processes, process_id, timeout_s, cpu_devices):
    key = (coordinator, processes, process_id)
    if _started:
        if key not in _started:
            raise RuntimeError("jax.distributed was started for %r already; one process takes "
                               "part in one cluster" % (next(iter(_started)),))
        return
    try:
        import jax
    except ImportError:
        raise RuntimeError("MultiWorkerMirroredStrategy over %d processes needs jax "
                           "(pip install jax): its processes meet on jax.distributed"
                           % processes) from None
    if cpu_devices > 1 and "xla_force_host_platform_device_count" not in \
            os.environ.get("XLA_FLAGS", ""):
        # (one JAX CPU device per logical CPU replica, so that a step over every process's
        # replicas is one mesh program; JAX takes this before its CPU backend starts)
        try:
            jax.config.update("jax_num_cpu_devices", cpu_devices)
        except (RuntimeError, AttributeError):  # (started already, or an older jax: the
            pass                                # replicas then run steps on threads)
    jax.distributed.initialize(coordinator_address=coordinator, num_processes=processes,
                               process_id=process_id,
                               initialization_timeout=int(timeout_s))
    _started[key] = True


class MultiWorkerMirroredStrategy(strategies.Strategy):
    """`tf.distribute.MultiWorkerMirroredStrategy(cluster_resolver=None)`: the replicas of
    every process in sync (see the module docstring)."""

    def __init__(self, cluster_resolver=None, communication_options=None,
                 initialization_timeout_s=120):
        resolver = cluster_resolver or resolvers.TFConfigClusterResolver()
        tasks = resolvers.worker_tasks(resolver)
        self.cluster_resolver = resolver
        self._processes = max(1, len(tasks))
        self._process_id = 0
        local = strategies._devices_of(None)  # (asks tf.config, not JAX, on CPUs)
        if len(tasks) > 1:
            me = (resolver.task_type, resolver.task_id)
            if me not in tasks:
                raise ValueError("this process's task %r is not in the cluster %s: set "
                                 "TF_CONFIG's 'task' to one of its workers"
                                 % (me, resolver.cluster_spec().as_dict()))
            self._process_id = tasks.index(me)
            job, index = tasks[0]
            coordinator = resolver.cluster_spec().job_tasks(job)[index]
            # (before anything asks JAX for its devices, as jax.distributed requires)
            _start_jax(coordinator, len(tasks), self._process_id, initialization_timeout_s,
                       sum("/device:CPU:" in name for name in local))
        super().__init__(local)

    @property
    def num_replicas_in_sync(self):
        """The replicas of every process."""
        return self._processes * self._local_replicas

    @property
    def _first_replica(self):
        return self._process_id * self._local_replicas

    def _input_pipelines(self):
        return self._processes, self._process_id

    def _combine(self, reduce_op, values):
        reduce_op = reduce_ops.as_reduce_op(reduce_op)
        local = reduce_ops.combine(reduce_ops.ReduceOp.SUM, values)
        return self._across_processes(reduce_op, local)

    def _across_processes(self, reduce_op, local):
        """`local` (the SUM of this process's replicas' values) combined with the other
        processes' by `reduce_op` over every replica. In a Function's graph the exchange is
        a host call (runtime.ops.py_function_ops.numpy_function) that every process's
        Function runs at the same point of its step."""
        if self._processes > 1:
            if isinstance(local, SymbolicTensor):
                summed = py_function_ops.numpy_function(
                    _sum_over_processes, [local], local.dtype, stateful=True)
                local = dependency_ops.ensure_shape(summed, local._shape_tuple())
            else:
                local = common.convert_to_tensor(
                    np.asarray(_sum_over_processes(np.asarray(local.numpy())),
                               local.dtype.np_dtype))
        return super()._across_processes(reduce_op, local)


def _sum_over_processes(local):
    """The sum of every process's `local` (numpy; the same shape in each), which every
    process gets (JAX's cross-process all-gather)."""
    from jax.experimental import multihost_utils
    gathered = multihost_utils.process_allgather(np.asarray(local))
    return np.asarray(np.sum(gathered, axis=0), np.asarray(local).dtype)
