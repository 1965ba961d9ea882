"""What code running on one replica sees: `tf.distribute.get_replica_context()`.

Inside `strategy.run`, each replica runs the step function with its own ReplicaContext
(`replica_id_in_sync_group`, `num_replicas_in_sync`, `all_reduce`, `merge_call`). When a
strategy runs several replicas on the host, each replica is a thread and the replicas take
turns (one runs at a time, so traces and eager ops never interleave): a collective
(`all_reduce`, `merge_call`, an update of a mirrored variable) waits until every replica
has reached it, the first replica combines the values, and each replica goes on with the
result, as TensorFlow's MirroredStrategy runs replicas in eager mode.

Outside any `run`, code is in the cross-replica context of the current strategy
(`get_replica_context()` is None inside `strategy.scope()`) or, with no strategy entered,
in the default strategy's one replica.
"""

import threading
from typing import Any

import numpy as np

from runtime import nest
from runtime.distribute import reduce_op as reduce_ops
from runtime.distribute import values as values_lib
from runtime.distribute.entered import (
    adopt_stack,
    cross_replica,
    current_entry,
    in_replica,
    thread_stack,
)
from runtime.ops import common
from runtime.variables import ResourceVariable, VariableAggregation


class Rendezvous:
    """Where the replicas of one `run` meet: `decide(replica_id, value, combine)` waits for
    every replica's value, lets replica 0 compute `combine(values)` and hands each replica
    the result; `turn` is the lock a replica holds while it runs."""

    def __init__(self, count):
        self._barrier = threading.Barrier(count)
        self._slots = [None] * count
        self._shared: tuple[bool, Any] = (True, None)  # (ok, the result or the error)
        self.turn = threading.Lock()

    def abort(self):
        """Releases the replicas waiting here (a replica failed): they raise."""
        self._barrier.abort()

    def _wait(self):
        self.turn.release()
        try:
            self._barrier.wait()
        finally:
            self.turn.acquire()

    def decide(self, replica_id, value, combine):
        self._slots[replica_id] = value
        self._wait()
        if replica_id == 0:
            try:
                self._shared = (True, combine(list(self._slots)))
            except BaseException as e:  # noqa: BLE001 - every replica raises it
                self._shared = (False, e)
        self._wait()
        ok, result = self._shared
        self._wait()  # (every replica has read the result before the next round writes)
        if not ok:
            raise result
        return result


class ReplicaContext:
    """`tf.distribute.ReplicaContext`: the replica a step function runs on."""

    def __init__(self, strategy, replica_id_in_sync_group, rendezvous=None):
        self._strategy = strategy
        self._replica_id = replica_id_in_sync_group
        self._rendezvous = rendezvous

    @property
    def strategy(self):
        """The strategy running this replica."""
        return self._strategy

    @property
    def num_replicas_in_sync(self):
        """How many replicas run the step together."""
        return self._strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self):
        """This replica's index among the replicas in sync (an int32 tensor, as in
        TensorFlow)."""
        return common.convert_to_tensor(
            np.int32(self._strategy._first_replica + self._replica_id))

    @property
    def devices(self):
        """The devices this replica runs on."""
        return (self._strategy.extended.worker_devices[self._replica_id],)

    def _combine(self, value, combine):
        if self._rendezvous is None:  # one replica here: nothing to wait for
            return combine([value])
        return self._rendezvous.decide(self._replica_id, value, combine)

    def all_reduce(self, reduce_op, value, options=None):
        """`value` (a nest of tensors) combined over the replicas by `reduce_op` (SUM, MEAN):
        every replica gets the same result."""
        reduce_op = reduce_ops.as_reduce_op(reduce_op)

        def combine(per_replica):
            flats = [nest.flatten(v) for v in per_replica]
            reduced = [self._strategy._combine(reduce_op, parts) for parts in zip(*flats)]
            return nest.pack_sequence_as(per_replica[0], reduced)
        return self._combine(value, combine)

    def merge_call(self, merge_fn, args=(), kwargs=None):
        """Calls `merge_fn(strategy, *args, **kwargs)` once, in the cross-replica context,
        with each argument that differs between replicas as a PerReplica value; each replica
        gets its part of the result."""
        kwargs = dict(kwargs or {})

        def combine(per_replica):
            merged_args = values_lib.regroup([a for a, _ in per_replica])
            merged_kwargs = values_lib.regroup([k for _, k in per_replica])
            with cross_replica(self._strategy):
                return merge_fn(self._strategy, *merged_args, **merged_kwargs)
        result = self._combine((tuple(args), kwargs), combine)
        return values_lib.select_replica(self._replica_id, result)

    def _assign_mirrored(self, variable, op_name, value, read_value):
        """One update of mirrored `variable` by every replica (see MirroredVariable)."""
        aggregation = variable.aggregation
        if aggregation is VariableAggregation.NONE:
            values_lib.check_aggregation(variable)

        def combine(per_replica):
            if aggregation is VariableAggregation.ONLY_FIRST_REPLICA:
                chosen = per_replica[0]
            else:
                chosen = self._strategy._combine(
                    reduce_ops.ReduceOp.from_variable_aggregation(aggregation), per_replica)
            with cross_replica(self._strategy):
                return ResourceVariable._assign(variable, op_name, chosen, read_value)
        return self._combine(value, combine)

    def __repr__(self):
        return "<ReplicaContext %d of %d>" % (self._replica_id, self.num_replicas_in_sync)


def current_replica_context():
    """The innermost ReplicaContext of this thread (None in a cross-replica context or
    outside every strategy)."""
    entry = current_entry()
    return entry if isinstance(entry, ReplicaContext) else None


__all__ = ["ReplicaContext", "Rendezvous", "adopt_stack", "cross_replica", "current_entry",
           "current_replica_context", "in_replica", "thread_stack"]
