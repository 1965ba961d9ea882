"""The strategies: `tf.distribute.MirroredStrategy`, `OneDeviceStrategy` and the default
strategy that code outside every scope runs under (`get_strategy()`).

A strategy holds its replicas' devices. `scope()` makes the variables created in it
mirrored (runtime.distribute.values.MirroredVariable) and enters the strategy's
cross-replica context; `run(fn, args, kwargs)` calls `fn` once per replica, each call in
its replica's context with its part of every PerReplica argument, and returns PerReplica
results (the plain result when there is one replica). Eagerly, a step over several JAX
devices is one compiled program (runtime.distribute.mesh_run); otherwise the replicas run as
replica threads (runtime.distribute.replica_context), which inside a trace add each
replica's ops to the Function's graph. A JAX device or a logical CPU of
`tf.config.set_logical_device_configuration` is one replica each. `reduce`, `gather` and
`experimental_local_results` turn PerReplica values back into tensors.
"""

import threading
from typing import Any

import numpy as np

from runtime import context, devices, nest
from runtime.distribute import input as input_lib
from runtime.distribute import mesh_run, mesh_values
from runtime.distribute import reduce_op as reduce_ops
from runtime.distribute import replica_context as contexts
from runtime.distribute import values as values_lib
from runtime.ops import common, concat_split_ops, reduction_ops
from runtime.variables import creating_as


class StrategyExtended:
    """`strategy.extended`: the devices a strategy computes on and stores variables on."""

    def __init__(self, strategy, worker_devices):
        self._strategy = strategy
        self._worker_devices = tuple(worker_devices)

    @property
    def worker_devices(self):
        """The replicas' devices, in replica order."""
        return self._worker_devices

    @property
    def parameter_devices(self):
        """The devices holding the copies of a mirrored variable."""
        return self._worker_devices

    def variable_created_in_scope(self, v):
        """True when `v` was created in this strategy's scope."""
        return getattr(v, "_strategy", None) is self._strategy

    def value_container(self, value):
        """The distributed variable `value` is a copy of (here: `value` itself)."""
        return value

    @property
    def experimental_between_graph(self):
        """Whether each worker builds its own program (True for several workers)."""
        return False

    @property
    def experimental_require_static_shapes(self):
        """Whether input shapes must be static (False)."""
        return False

    @property
    def should_checkpoint(self):
        """Whether this worker writes checkpoints (the chief)."""
        return True

    @property
    def should_save_summary(self):
        """Whether this worker writes summaries (the chief)."""
        return True


class Strategy:
    """`tf.distribute.Strategy`: run a step on every replica and combine the results."""

    def __init__(self, worker_devices):
        if not worker_devices:
            raise ValueError("a strategy needs at least one device")
        self._extended = StrategyExtended(self, worker_devices)

    @property
    def extended(self):
        """The strategy's devices and placement (StrategyExtended)."""
        return self._extended

    @property
    def num_replicas_in_sync(self):
        """How many replicas run each step together (in every process)."""
        return len(self._extended.worker_devices)

    @property
    def _local_replicas(self):
        """How many replicas this process runs."""
        return len(self._extended.worker_devices)

    @property
    def _first_replica(self) -> int:
        """The job-wide index of this process's first replica."""
        return 0

    def _combine(self, reduce_op, values):
        """The tensor `reduce_op` makes of this process's replicas' `values` (a multi-worker
        strategy combines them with the other processes' too)."""
        return reduce_ops.combine(reduce_op, values)

    def _across_processes(self, reduce_op, local):
        """`local` (the SUM of this process's replicas' values) as `reduce_op` makes it of
        every replica's value (a multi-worker strategy adds the other processes' sums)."""
        if reduce_op is reduce_ops.ReduceOp.MEAN and self.num_replicas_in_sync > 1:
            count = common.convert_to_tensor(
                np.asarray(self.num_replicas_in_sync, local.dtype.np_dtype))
            return local // count if local.dtype.is_integer else local / count
        return local

    # -- scope ----------------------------------------------------------------------------
    def scope(self):
        """A `with` block whose new variables are mirrored over the replicas, in this
        strategy's cross-replica context."""
        return _Scope(self)

    # -- running replicas -------------------------------------------------------------------
    def run(self, fn, args=(), kwargs=None, options=None):
        """Calls `fn(*args, **kwargs)` on every replica (each PerReplica argument gives each
        replica its own part); returns the results, PerReplica where they differ."""
        kwargs = dict(kwargs or {})
        entry = contexts.current_entry()
        if isinstance(entry, contexts.ReplicaContext):
            raise RuntimeError("strategy.run was called on a replica (inside another "
                               "strategy.run); call it in the cross-replica context")
        if isinstance(entry, Strategy) and entry is not self:
            raise ValueError(_mixing_message(entry, self))
        original, fn = fn, _converted(fn)
        if self._runs_on_mesh():
            result = self._run_on_mesh(original, args, kwargs)
            if result is not None:
                return result
        elif self.num_replicas_in_sync > 1 and self._stages_on_mesh():
            result = self._mesh_step(original).staged(args, kwargs)
            if result is not None:
                return result
        if self._local_replicas == 1:
            with contexts.in_replica(contexts.ReplicaContext(self, 0)), \
                    devices.device(self._extended.worker_devices[0]):
                return fn(*_one(args), **_one(kwargs))
        return values_lib.regroup(self._run_replicas(fn, args, kwargs))

    def _mesh(self):
        """The JAX mesh of the replicas' devices (made once), or None when the replicas are
        not JAX devices (see runtime.distribute.mesh_run.mesh_devices)."""
        if "_mesh_found" not in self.__dict__:
            devices = mesh_run.mesh_devices(self)
            self._mesh_found = None if devices is None else mesh_run.make_mesh(devices)
        return self._mesh_found

    def _runs_on_mesh(self):
        """True when an eager step of several replicas runs as one JAX program (one replica's
        step, and the default strategy's, run as plain calls, as in TensorFlow: Python side
        effects happen at every step)."""
        return self.num_replicas_in_sync > 1 and not isinstance(self, DefaultStrategy) and \
            not context.thread_graphs() and self._mesh() is not None

    def _stages_on_mesh(self):
        """True when `run` is traced into a Function and its step runs as one JAX
        program (over several processes: one program over every process's devices)."""
        return bool(context.thread_graphs()) and self._mesh() is not None

    def _mesh_step(self, fn):
        """The MeshStep of step function `fn` (made once; needs the mesh)."""
        steps = self.__dict__.setdefault("_mesh_steps", {})
        step = steps.get(fn)
        if step is None:
            step = steps[fn] = mesh_run.MeshStep(self, fn, self._mesh())
        return step

    def _run_on_mesh(self, fn, args, kwargs):
        """The step run as one JAX program over the replicas' devices (None: it cannot be;
        see runtime.distribute.mesh_run)."""
        if self._mesh() is None:
            return None
        return self._mesh_step(fn).run(args, kwargs)

    def _stage_input(self, element):
        """A distributed dataset's `element` placed on the replicas' JAX devices when they
        are JAX devices (see runtime.distribute.mesh_values), else as it is: over several
        devices each leaf is stacked on the mesh, on one device each leaf is a device tensor
        (a JAX Function takes it without a copy; numpy reads it once)."""
        if not context.executing_eagerly() or isinstance(self, DefaultStrategy) or \
                context.thread_graphs():
            return element
        if self.num_replicas_in_sync == 1 and self._mesh() is not None:
            return mesh_values.stage_on_device(element, self._mesh())
        if not self._runs_on_mesh() or getattr(self, "_processes", 1) > 1:
            return element  # (several processes: staged by the step, once they agree)
        return mesh_values.stage_per_replica(element, self._mesh(), self._local_replicas)

    def _run_replicas(self, fn, args, kwargs):
        count = self._local_replicas
        rendezvous = contexts.Rendezvous(count)
        results: list[Any] = [None] * count
        failures: list[BaseException | None] = [None] * count
        outer = contexts.thread_stack()
        tracing = context.thread_state()  # (inside a trace, each replica adds to its graph)

        def replica(replica_id):
            with rendezvous.turn, context.adopted_thread_state(tracing):
                contexts.adopt_stack(outer)
                try:
                    with contexts.in_replica(contexts.ReplicaContext(self, replica_id,
                                                                     rendezvous)), \
                            devices.device(self._extended.worker_devices[replica_id]):
                        results[replica_id] = fn(*values_lib.select_replica(replica_id, args),
                                                 **values_lib.select_replica(replica_id, kwargs))
                except BaseException as e:  # noqa: BLE001 - raised by run, in the caller
                    failures[replica_id] = e
                    rendezvous.abort()
        threads = [threading.Thread(target=replica, args=(i,), daemon=True)
                   for i in range(count)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        real = [e for e in failures if e is not None and
                not isinstance(e, threading.BrokenBarrierError)]
        if real or any(failures):
            raise (real or [e for e in failures if e is not None])[0]
        return results

    # -- combining results -------------------------------------------------------------------
    def experimental_local_results(self, value):
        """The per-replica parts of `value` (a nest: a tuple of nests), one per replica."""
        flat = nest.flatten(value, expand_composites=False)
        if not any(isinstance(v, values_lib.DistributedValues) for v in flat):
            return (value,) * self._local_replicas
        return tuple(values_lib.select_replica(i, value)
                     for i in range(self._local_replicas))

    def reduce(self, reduce_op, value, axis=None):
        """`value` (PerReplica, or one tensor for every replica) combined over the replicas
        by `reduce_op`, and along `axis` of each part when given."""
        reduce_op = reduce_ops.as_reduce_op(reduce_op)
        stack = mesh_values.stacked_of(value, self._local_replicas)
        if stack is not None and axis is None:
            return mesh_values.reduce_stacked(reduce_op.value, stack)  # (on the devices)
        stacked = mesh_values.stacked_tensor(value, self._local_replicas)
        if stacked is not None and axis is None:
            # (a mesh step's results in a Function: one reduction over the replicas' axis)
            return self._across_processes(reduce_op, reduction_ops.reduce_sum(stacked, axis=0))
        if isinstance(value, values_lib.DistributedValues):
            parts = list(value.values)
        else:
            # (one replica in this process: a plain value is that replica's)
            if reduce_op is reduce_ops.ReduceOp.SUM and self._local_replicas > 1:
                raise ValueError("A non-DistributedValues value %r cannot be reduced with "
                                 "SUM over %d replicas: reduce a PerReplica value (the "
                                 "result of strategy.run)" % (value, self._local_replicas))
            parts = [value]
        parts = [common.convert_to_tensor(p) for p in parts]
        if axis is None:
            return self._combine(reduce_op, parts)
        total = self._combine(reduce_ops.ReduceOp.SUM,
                              [reduction_ops.reduce_sum(p, axis=axis) for p in parts])
        if reduce_op is reduce_ops.ReduceOp.SUM:
            return total
        count = self._combine(reduce_ops.ReduceOp.SUM, [
            common.convert_to_tensor(np.asarray(_length(p, axis), total.dtype.np_dtype))
            for p in parts])
        return total / count

    def gather(self, value, axis):
        """The replicas' parts of `value` concatenated along `axis`."""
        parts = [common.convert_to_tensor(p) for p in values_lib.local_results(value)]
        return parts[0] if len(parts) == 1 else concat_split_ops.concat(parts, axis)

    # -- input ----------------------------------------------------------------------------
    def experimental_distribute_dataset(self, dataset, options=None):
        """`dataset` (batched by the global batch size) with each batch split over the
        replicas (see runtime.distribute.input)."""
        distributed = input_lib.DistributedDataset(dataset, self.num_replicas_in_sync,
                                                   self._first_replica, self._local_replicas)
        distributed._stage = self._stage_input
        return distributed

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """One dataset per replica, each made by `dataset_fn(InputContext)` (batched by the
        per-replica batch size)."""
        distributed = input_lib.DistributedDatasetsFromFunction(
            dataset_fn, self._local_replicas, *self._input_pipelines())
        distributed._stage = self._stage_input
        return distributed

    def _input_pipelines(self):
        """(how many input pipelines the job has, this process's index among them)."""
        return 1, 0

    def experimental_distribute_values_from_function(self, value_fn):
        """PerReplica values made by `value_fn(ValueContext)` once per replica."""
        count, first = self.num_replicas_in_sync, self._first_replica
        made = [value_fn(input_lib.ValueContext(first + i, count))
                for i in range(self._local_replicas)]
        return made[0] if len(made) == 1 else values_lib.PerReplica(made)

    def __repr__(self):
        return "<%s with %d replica(s) on %s>" % (type(self).__name__, self.num_replicas_in_sync,
                                                  ", ".join(self._extended.worker_devices))


class _Scope:
    def __init__(self, strategy):
        self._strategy = strategy
        self._creating = creating_as(values_lib.MirroredVariable)

    def __enter__(self):
        entry = contexts.current_entry()
        if isinstance(entry, Strategy) and entry is not self._strategy \
                and not isinstance(entry, DefaultStrategy):
            raise ValueError(_mixing_message(entry, self._strategy))
        contexts.cross_replica(self._strategy).__enter__()
        if not isinstance(self._strategy, DefaultStrategy):
            self._creating.__enter__()
        return self._strategy

    def __exit__(self, *exc):
        if not isinstance(self._strategy, DefaultStrategy):
            self._creating.__exit__(*exc)
        contexts.cross_replica(self._strategy).__exit__(*exc)
        return False


def _mixing_message(outer, inner):
    return ("Mixing different tf.distribute.Strategy objects: %r is entered, and %r was "
            "used inside it" % (outer, inner))


def _converted(fn):
    converter = context.function_converter()
    return fn if converter is None else converter(fn)


def _one(structure):
    return values_lib.select_replica(0, structure)


def _length(tensor, axis):
    shape = tensor.shape
    axes = [axis] if isinstance(axis, int) else list(axis)
    count = 1
    for a in axes:
        count *= int(shape[a])
    return count


class DefaultStrategy(Strategy):
    """The strategy of code outside every scope: one replica on the current device."""

    def __init__(self):
        super().__init__(["/device:CPU:0"])


class MirroredStrategy(Strategy):
    """`tf.distribute.MirroredStrategy(devices=None)`: one replica per device, variables
    mirrored on each. By default the accelerators (JAX's GPUs or TPUs), else the logical
    CPUs (one, unless `tf.config.set_logical_device_configuration` split the CPU)."""

    def __init__(self, devices=None, cross_device_ops=None):
        super().__init__(_devices_of(devices))


class OneDeviceStrategy(Strategy):
    """`tf.distribute.OneDeviceStrategy(device)`: one replica on `device`."""

    def __init__(self, device):
        super().__init__(_devices_of([device]))


def _devices_of(chosen):
    logical = [d.name for d in devices.list_logical_devices()]
    if chosen is None:
        accelerators = [d for d in logical if "/device:CPU:" not in d]
        return accelerators or [d for d in logical if "/device:CPU:" in d]
    if isinstance(chosen, str):
        chosen = [chosen]
    found = []
    for spec in chosen:
        name = devices.canonical_device(getattr(spec, "name", spec))
        short = name[name.find("/device:"):] if "/device:" in name else name
        if short not in logical:
            raise ValueError("the strategy's device %r is not a logical device of this "
                             "machine (%s): split the CPU with "
                             "tf.config.set_logical_device_configuration first"
                             % (spec, ", ".join(logical)))
        if short in found:
            raise ValueError("the strategy lists device %r twice" % (spec,))
        found.append(short)
    return found


_default = DefaultStrategy()


def default_strategy():
    """The strategy in effect outside every scope."""
    return _default


def get_strategy():
    """The strategy of the innermost scope or replica entered in this thread (the default
    strategy outside every scope)."""
    entry = contexts.current_entry()
    if isinstance(entry, contexts.ReplicaContext):
        return entry.strategy
    return entry if entry is not None else _default


def has_strategy():
    """True inside a non-default strategy's scope or replica."""
    return get_strategy() is not _default


def in_cross_replica_context():
    """True in a strategy's scope outside its replicas."""
    return isinstance(contexts.current_entry(), Strategy)


def get_replica_context():
    """The ReplicaContext code runs in: the replica's inside `strategy.run`, None in a
    strategy's cross-replica context, the default strategy's one replica elsewhere."""
    entry = contexts.current_entry()
    if entry is None:
        return contexts.ReplicaContext(_default, 0)
    if isinstance(entry, contexts.ReplicaContext):
        return entry
    return None


def get_cross_replica_context():
    """The strategy whose cross-replica context code runs in (the default strategy outside
    every scope; None on a replica)."""
    entry = contexts.current_entry()
    if isinstance(entry, contexts.ReplicaContext):
        return None
    return entry if entry is not None else _default
