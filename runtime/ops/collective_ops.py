"""Collectives between the replicas of a distribution strategy's compiled step.

`CollectiveAllReduce` combines a tensor over the replicas (attrs: `reduce_op` SUM or MEAN,
`replicas` the replica count) and `ReplicaIdInSyncGroup` is the replica's index. They
lower to JAX's collectives over the mesh axis "replica" (`lax.psum`, `lax.pmean`,
`lax.axis_index`) when a strategy runs its step as one program over its devices (see
runtime.distribute.mesh_run); their numpy kernels are those of one replica (the value
itself, index 0), since several replicas on the numpy runtime run as replica threads that
combine eagerly.
"""

import numpy as np

from runtime import dtypes, lowering_api
from runtime.ops import attr_types, common
from runtime.ops.registry import KERNEL_CALL, NOT_DIFFERENTIABLE, execute1, register

OPS = {}
# numba compiles one replica's program: collectives need JAX's mesh
_NUMBA = lowering_api.unsupported("collectives run only in a JAX mesh program")
AXIS = "replica"  # the mesh axis the replicas are laid along


def _all_reduce_kernel(x, reduce_op, replicas):
    return x


def _all_reduce_jax(lw, node, ins):
    if node.attrs["replicas"] == 1:
        return [ins[0]]
    if node.attrs["reduce_op"] == "MEAN":
        return [lw.lax.pmean(ins[0], AXIS)]
    return [lw.lax.psum(ins[0], AXIS)]


def _all_reduce_grad(ctx, grads):
    # each replica's input reaches every replica's output: the gradient is combined the
    # same way (d mean / d x_i = 1/N of every replica's upstream gradient)
    return [all_reduce(grads[0], ctx.attrs["reduce_op"], ctx.attrs["replicas"])]


OPS["CollectiveAllReduce"] = register(
    "CollectiveAllReduce", _all_reduce_kernel, lambda specs, attrs: [specs[0]],
    grad=_all_reduce_grad, emit=KERNEL_CALL, traits=("no_fold",),  # (its kernel is one replica's)
    lowerings={"jax": _all_reduce_jax, "numba": _NUMBA},
    attr_types={"reduce_op": attr_types.choice("SUM", "MEAN"), "replicas": attr_types.INT},
    doc="A tensor combined over the replicas of a strategy's step (SUM or MEAN).")


def _replica_id_kernel(replicas):
    return np.int32(0)


def _replica_id_jax(lw, node, ins):
    if node.attrs["replicas"] == 1:
        return [np.int32(0)]
    return [lw.lax.axis_index(AXIS).astype(np.int32)]


OPS["ReplicaIdInSyncGroup"] = register(
    "ReplicaIdInSyncGroup", _replica_id_kernel, lambda specs, attrs: [(dtypes.int32, ())],
    grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL, traits=("side_effects",),
    lowerings={"jax": _replica_id_jax, "numba": _NUMBA}, attr_types={"replicas": attr_types.INT},
    doc="The index of the replica running a strategy's step.")


def all_reduce(x, reduce_op, replicas):
    """`x` combined over `replicas` replicas by `reduce_op` ("SUM" or "MEAN")."""
    return execute1(OPS["CollectiveAllReduce"], [common.convert_to_tensor(x)],
                    {"reduce_op": reduce_op, "replicas": int(replicas)})


def replica_id(replicas):
    """The int32 index of the replica running the step (among `replicas`)."""
    return execute1(OPS["ReplicaIdInSyncGroup"], [], {"replicas": int(replicas)})
