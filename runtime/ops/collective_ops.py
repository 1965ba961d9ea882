"""Collectives between the replicas of a distribution strategy's compiled step.

`CollectiveAllReduce` combines a tensor over the replicas (attrs: `reduce_op` SUM or MEAN,
`replicas` the replica count) and `ReplicaIdInSyncGroup` is the replica's index. They
lower to JAX's collectives over the mesh axis "replica" (`lax.psum`, `lax.pmean`,
`lax.axis_index`) when a strategy runs its step as one program over its devices (see
runtime.distribute.mesh_run); their numpy kernels are those of one replica (the value
itself, index 0), since several replicas on the numpy runtime run as replica threads that
combine eagerly.

`MeshRun` is `strategy.run` inside a Function, over a mesh of JAX devices: the step's
ConcreteFunction (`f`, traced once with the collectives above) run on every replica. Its
inputs and outputs are stacked `[replicas, ...]`, one row per replica. The JAX backend
lowers it in place, as a `shard_map` over the mesh inside the Function's own program (the
step's variables are read and assigned as the Function's state); the numpy executor calls
`run`, the step's compiled mesh program, on the stacked values (runtime.distribute.mesh_run).
"""

import numpy as np

from runtime import dtypes, lowering_api
from runtime.ops import attr_types, common
from runtime.ops.registry import (
    KERNEL_CALL,
    NO_GRADIENT,
    NOT_DIFFERENTIABLE,
    execute,
    execute1,
    not_saveable,
    register,
)
from runtime.variables import Variable

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


def _mesh_run_kernel(*values, f, replicas, mesh, run, dispatch_guard=None):
    results = run(*values)
    return tuple(results) if len(results) != 1 else results[0]


def _mesh_run_infer(specs, attrs):
    count = attrs["replicas"]
    return [(t.dtype, None if t._shape is None else (count,) + tuple(t._shape))
            for t in attrs["f"].flat_outputs]


def _host_calls(graph, lw):
    """True when `graph` (or a graph nested in it) holds an op that calls back to the host."""
    for node in graph.nodes:
        if lw.is_host_call(node.op):
            return True
        for value in node.attrs.values():
            inner = getattr(value, "graph", None)
            if inner is not None and _host_calls(inner, lw):
                return True
    return False


def _mesh_run_jax(lw, node, ins):
    """The step lowered under `shard_map` over the mesh, inside the enclosing program: each
    replica gets its row of every input and the variables' values (replicated); it gives
    its row of every output, and the values of the variables it assigns (equal on every
    replica: the step all-reduced them by their aggregation), which become the state."""
    f, mesh = node.attrs["f"], node.attrs["mesh"]
    if any(d.process_index != lw.jax.process_index() for d in mesh.devices.flat):
        # (the Function's own program runs on this process's devices; the op's kernel runs
        # the step's program over every process's devices, as the processes agree)
        raise lowering_api.Unsupported("the step's mesh spans several processes")
    if _host_calls(f.graph, lw):
        raise lowering_api.Unsupported("the step calls back to the host")
    spec = lw.jax.sharding.PartitionSpec
    keys = sorted({lw.slot_of(c.external).key for c in _captured_variables(f.graph)})
    state = {k: lw.state[k] for k in keys}
    assigned, checked = set(), []

    def per_replica(rows, state):
        before = set(lw.assigned)
        with lw.scope(state, None):
            fed = {id(placeholder): row[0] for placeholder, row in zip(f.inputs, rows)}
            values = lw.lower_graph(f.graph, fed, f.flat_outputs)
            after, failed = dict(lw.state), lw.failed
        assigned.update(lw.assigned - before)
        checked.append(failed is not None)
        if failed is None:
            failed = lw.jnp.zeros((), bool)
        return ([lw.jnp.asarray(v)[None] for v in values],
                {k: after[k] for k in keys}, lw.jnp.reshape(failed, (1,)))

    outputs, after, failed = lw.jax.shard_map(
        per_replica, mesh=mesh, in_specs=([spec(AXIS)] * len(ins), spec()),
        out_specs=([spec(AXIS)] * len(f.flat_outputs), spec(), spec(AXIS)),
        check_vma=False)(list(ins), state)
    for key in assigned:
        lw.state[key] = after[key]
    lw.assigned.update(assigned)
    lw.check_assignments()
    if any(checked):  # (a replica's check failed: the numpy executor raises the error)
        lw.fail_if(failed)
    return outputs


def _captured_variables(graph):
    """The captures of `graph` and its nested graphs that are variables."""
    found = [c for c in graph.captures if isinstance(c.external, Variable)]
    for node in graph.nodes:
        for value in node.attrs.values():
            inner = getattr(value, "graph", None)
            if inner is not None:
                found.extend(_captured_variables(inner))
    return found


OPS["MeshRun"] = register(
    "MeshRun", _mesh_run_kernel, _mesh_run_infer, grad=NO_GRADIENT, emit=KERNEL_CALL,
    traits=("side_effects",), lowerings={"jax": _mesh_run_jax, "numba": _NUMBA},
    attr_types={"f": attr_types.FUNCTION, "replicas": attr_types.INT,
                "mesh": attr_types.TRACE_ONLY, "run": attr_types.CALLABLE,
                "dispatch_guard": attr_types.TRACE_ONLY},
    saving=not_saveable("it runs a distribution strategy's step over a JAX device mesh"),
    doc="A distribution strategy's step run on every replica of a JAX device mesh.")


def mesh_run(inputs, f, replicas, mesh, run, dispatch_guard=None):
    """The outputs `[replicas, ...]` of step `f` run on every replica of `mesh`: `inputs` are
    stacked `[replicas, ...]`, one per placeholder of `f`; `run(*stacked numpy values)`
    runs the step's mesh program where the graph runs on the numpy executor;
    `dispatch_guard`, when given, is called around the dispatch of a JAX program holding
    the op (runtime.backends.jax_backend.dispatch_guard)."""
    attrs = {"f": f, "replicas": int(replicas), "mesh": mesh, "run": run}
    if dispatch_guard is not None:
        attrs["dispatch_guard"] = dispatch_guard
    return execute(OPS["MeshRun"], [common.convert_to_tensor(x) for x in inputs], attrs)
