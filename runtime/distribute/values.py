"""Values of a distributed step: `PerReplica` (one value per replica, possibly different),
`Mirrored` (one value per replica, all equal) and `MirroredVariable` (a variable created in a
strategy's scope, its copies kept equal)."""

from runtime import nest
from runtime.distribute import entered
from runtime.variables import ResourceVariable, VariableAggregation


class DistributedValues:
    """One value per replica (`values`, in replica order): `tf.distribute.DistributedValues`.
    Code in a replica context sees its own replica's value (see `select_replica`)."""

    def __init__(self, values):
        self._values = tuple(values)

    @property
    def values(self):
        """The per-replica values, in replica order."""
        return self._values

    def __len__(self):
        return len(self._values)

    def __repr__(self):
        parts = ", ".join("%d: %r" % (i, v) for i, v in enumerate(self._values))
        return "%s:{\n  %s\n}" % (type(self).__name__, parts)

    # a nested value (runtime.nest): a Function takes and returns it as its replicas' values
    def _nest_components(self):
        return list(self._values)

    def _nest_rebuild(self, components):
        return type(self)(components)

    def _nest_signature(self):
        return (type(self).__name__, len(self._values))


nest.register_composite(DistributedValues)


class PerReplica(DistributedValues):
    """Values that may differ between replicas: the results of `strategy.run`, the elements
    of a distributed dataset."""

    def _nest_components(self):
        # a Function takes each replica's value; one kept on the mesh as a row of a stacked
        # device array (runtime.distribute.mesh_values.ReplicaPart) goes as a plain device
        # tensor, whose kind the Function's cache keys know
        return [v.device_tensor() if hasattr(v, "device_tensor") else v for v in self._values]


class Mirrored(DistributedValues):
    """Values kept equal on every replica."""


def local_results(value):
    """The per-replica parts of `value` as a tuple (a plain value is one replica's)."""
    if isinstance(value, DistributedValues):
        return value.values
    if isinstance(value, MirroredVariable):
        return value.values
    return (value,)


def select_replica(replica_id, structure):
    """`structure` with each DistributedValues replaced by replica `replica_id`'s value."""
    def pick(value):
        if isinstance(value, DistributedValues):
            return value.values[replica_id]
        return value
    return _map_keeping_distributed(pick, structure)


def regroup(per_replica_results):
    """One structure from the replicas' results (same structure each): PerReplica where the
    replicas' leaves differ in identity, the shared leaf where they are the same object; a
    single replica's results are returned as they are."""
    if len(per_replica_results) == 1:
        return per_replica_results[0]
    first = per_replica_results[0]
    flats = [nest.flatten(r, expand_composites=False) for r in per_replica_results]
    for k, flat in enumerate(flats[1:], 1):
        if len(flat) != len(flats[0]):
            raise ValueError("strategy.run: replica %d returned a structure unlike replica "
                             "0's: %r" % (k, per_replica_results[k]))
    leaves = []
    for parts in zip(*flats):
        same = all(p is parts[0] for p in parts)
        leaves.append(parts[0] if same else PerReplica(parts))
    return nest.pack_sequence_as(first, leaves, expand_composites=False)


def per_replica_leaves(parts):
    """One structure from the replicas' `parts` (same structure each), each leaf a
    PerReplica of the replicas' leaves (TensorFlow's distributed dataset elements)."""
    if len(parts) == 1:
        return parts[0]
    flats = [nest.flatten(p) for p in parts]
    return nest.pack_sequence_as(parts[0], [PerReplica(leaves) for leaves in zip(*flats)])


def _map_keeping_distributed(func, structure):
    flat = nest.flatten(structure, expand_composites=False)
    return nest.pack_sequence_as(structure, [func(v) for v in flat], expand_composites=False)


class MirroredVariable(ResourceVariable):
    """A variable created in a strategy's scope: every replica reads the same value, and an
    assignment made on several replicas at once combines their values by the variable's
    `aggregation` (SUM, MEAN, ONLY_FIRST_REPLICA; NONE refuses differing updates, as
    TensorFlow does) before storing one value, so the copies stay equal.

    The copies are one stored value: on the host every replica reads it, and on JAX's
    devices it is a replicated array."""

    _strategy = None  # the strategy whose scope created it

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        entry = entered.current_entry()  # the strategy whose scope is entered, or a replica
        self._strategy = getattr(entry, "strategy", entry)

    @property
    def values(self):
        """The variable once per replica (the copies are kept equal)."""
        count = 1 if self._strategy is None else self._strategy._local_replicas
        return (self,) * count

    def _assign(self, op_name, value, read_value):
        context = entered.current_entry()
        if not hasattr(context, "_assign_mirrored") or context.num_replicas_in_sync == 1:
            return super()._assign(op_name, value, read_value)
        return context._assign_mirrored(self, op_name, value, read_value)


def check_aggregation(variable):
    """Raises ValueError when replicas may not update `variable` together (aggregation NONE,
    as TensorFlow refuses)."""
    if variable.aggregation is VariableAggregation.NONE:
        raise ValueError(
            "You must specify an aggregation method to update a MirroredVariable in Replica "
            "Context (%s was created with aggregation NONE): create it with "
            "aggregation=tf.VariableAggregation.SUM, MEAN or ONLY_FIRST_REPLICA, or update it "
            "in a merge_call" % variable.name)
