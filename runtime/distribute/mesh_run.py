"""`strategy.run` as one compiled program over JAX's devices.

With jax installed and one JAX device per replica, a step runs as JAX runs a data-parallel
program: the step function is traced once (a Function, converted as any other) inside a
replica context whose collectives are graph ops (runtime.ops.collective_ops), the graph is
lowered by the JAX backend, and the lowered function runs under `jax.shard_map` over a
one-axis mesh ("replica") of the strategy's devices, in one `jax.jit`:

    per-replica inputs   stacked to [replicas, ...], split over the mesh (P("replica"))
    mirrored variables   replicated (P()); their updates are all-reduced by their
                         aggregation in the program, so every replica stores the same value
    results              stacked again, handed back as PerReplica values

A step this cannot compile (replica inputs of different shapes, a `merge_call`, an op JAX
cannot lower) returns None from `run_on_mesh`, and the strategy runs it on its replica
threads instead (runtime.distribute.replica_context).

Inside a Function, `strategy.run` is one `MeshRun` op (runtime.ops.collective_ops) holding
the same traced step, fed and giving stacked values: the JAX backend lowers it into the
Function's own program, the numpy executor runs the program above (`MeshStep.staged`).

Over several processes (MultiWorkerMirroredStrategy on jax.distributed) the mesh holds
every process's devices; each process feeds its own replicas' rows (arrays made with
`jax.make_array_from_process_local_data`) and the processes agree on each step's signature
first, so that all of them run the program or none does. Inside a Function of several
processes the MeshRun op is fed this process's rows and its kernel does the same at every
step (`MeshStep.staged`).
"""

import zlib
from typing import Any

import numpy as np

from runtime import context, nest
from runtime.backends import jax_backend
from runtime.distribute import mesh_values
from runtime.distribute import reduce_op as reduce_ops
from runtime.distribute import replica_context as contexts
from runtime.distribute import values as values_lib
from runtime.function import Function
from runtime.lowering_api import Unsupported
from runtime.ops import (
    array_ops,
    collective_ops,
    common,
    math_ops,
    py_function_ops,
    selection_ops,
)
from runtime.signature import TensorSpec
from runtime.tensor import EagerTensor, Tensor
from runtime.variables import ResourceVariable, VariableAggregation


class _NotOnMesh(Exception):
    """The step needs something the mesh program does not do (it runs on threads)."""


class MeshReplicaContext(contexts.ReplicaContext):
    """The replica context of a step traced for the mesh: its collectives are graph ops."""

    def __init__(self, strategy):
        super().__init__(strategy, 0)

    @property
    def replica_id_in_sync_group(self):
        """This replica's index (a graph op: each replica of the program reads its own)."""
        return collective_ops.replica_id(self.num_replicas_in_sync)

    def all_reduce(self, reduce_op, value, options=None):
        """`value` combined over the replicas by `reduce_op`, in the program."""
        op = reduce_ops.as_reduce_op(reduce_op).value
        count = self.num_replicas_in_sync
        return nest.map_structure(lambda t: collective_ops.all_reduce(t, op, count), value)

    def merge_call(self, merge_fn, args=(), kwargs=None):
        raise _NotOnMesh("merge_call")

    def _assign_mirrored(self, variable, op_name, value, read_value):
        aggregation = variable.aggregation
        if aggregation is VariableAggregation.NONE:
            values_lib.check_aggregation(variable)
        count = self.num_replicas_in_sync
        value = common.convert_to_tensor(value, dtype_hint=variable.dtype)
        if replica_invariant(value):
            # (every replica holds this value: combining it needs no collective)
            if aggregation is VariableAggregation.SUM:
                value = value * common.convert_to_tensor(
                    np.asarray(count, value.dtype.np_dtype))
            return ResourceVariable._assign(variable, op_name, value, read_value)
        if aggregation is VariableAggregation.ONLY_FIRST_REPLICA:
            first = math_ops.equal(collective_ops.replica_id(count), 0)
            value = collective_ops.all_reduce(
                selection_ops.where(first, value, array_ops.zeros_like(value)), "SUM", count)
        else:
            op = reduce_ops.ReduceOp.from_variable_aggregation(aggregation).value
            value = collective_ops.all_reduce(value, op, count)
        return ResourceVariable._assign(variable, op_name, value, read_value)


# ops whose result every replica of the program holds alike: all-reduced values and the
# mirrored variables (replicated over the mesh)
_REPLICATED_SOURCES = frozenset({"CollectiveAllReduce", "ReadVariableOp"})


def replica_invariant(tensor):
    """True when every replica of the mesh program computes the same `tensor`: it is made,
    through ops that keep no state and hold no sub-graphs, only from constants, all-reduced
    values and variables. (The replicas' inputs, their ids and random ops differ.)"""
    node = getattr(tensor, "node", None)
    if node is None:
        return False
    known = {}
    pending = [node]
    while pending:
        node = pending[-1]
        if node.name in known:
            pending.pop()
            continue
        kind = node.op.name
        if kind in _REPLICATED_SOURCES or kind == "Const":
            known[node.name] = True
        elif not node.inputs or node.op.stateful or node.subgraphs():
            known[node.name] = False
        else:
            waiting = [t.node for t in node.inputs if t.node.name not in known]
            if waiting:
                pending.extend(waiting)
                continue
            known[node.name] = all(known[t.node.name] for t in node.inputs)
        pending.pop()
    return known[tensor.node.name]


def mesh_devices(strategy):
    """The JAX devices of the strategy's replicas in replica order, or None when its
    replicas are not JAX devices (no jax, fewer devices than replicas). Over several
    processes (jax.distributed) they are every process's devices, this process's replicas
    at its place (its process index times its replica count)."""
    if jax_backend.unavailable() is not None:
        return None
    jax = jax_backend.jax_modules()[0]
    processes = getattr(strategy, "_processes", 1)
    found = []
    for name in strategy.extended.worker_devices:
        kind, _, index = name.replace("/device:", "").partition(":")
        try:
            platform_devices = (jax.devices(kind.lower()) if processes == 1 else
                                jax.local_devices(backend=kind.lower()))
        except RuntimeError:
            return None
        if int(index) >= len(platform_devices):
            return None
        found.append(platform_devices[int(index)])
    if processes == 1:
        return found
    if jax.process_count() != processes or \
            len({d.platform for d in found}) != 1:
        return None
    everyone = sorted(jax.devices(found[0].platform), key=lambda d: (d.process_index, d.id))
    local = len(found)
    mine = jax.process_index()
    by_process = [[d for d in everyone if d.process_index == p] for p in range(processes)]
    if any(len(devices) < local for devices in by_process) or \
            by_process[mine][:local] != found:
        return None
    return [d for devices in by_process for d in devices[:local]]


def make_mesh(devices):
    """The one-axis ("replica") JAX mesh of `devices`."""
    jax = jax_backend.jax_modules()[0]
    return jax.sharding.Mesh(np.array(devices), (collective_ops.AXIS,))


class MeshStep:
    """One step function compiled for a strategy's mesh, one program per input signature."""

    def __init__(self, strategy, fn, mesh):
        self._strategy = strategy
        self._original = fn  # (what strategy.run is called with, run eagerly)
        converter = context.function_converter()
        # converted as strategy.run converts a step it calls (tensor `if`s become graph ops)
        self._fn = fn if converter is None else converter(fn)
        self._mesh = mesh
        self._programs = {}
        self._structure = {}
        self._templates = {}
        self._function = Function(self._traced, converter=context.function_converter(),
                                           name=getattr(fn, "__name__", "step"))

    def _traced(self, template, *flat):
        args, kwargs = nest.pack_sequence_as(template.value, list(flat))
        with contexts.in_replica(MeshReplicaContext(self._strategy)):
            result = self._fn(*args, **kwargs)
        leaves = nest.flatten(result)
        if not all(isinstance(t, Tensor) for t in leaves):
            raise _NotOnMesh("a result that is not a tensor")
        self._structure[template.key] = result
        return leaves

    def run(self, args, kwargs):
        """The step's results as PerReplica values, or None when it cannot run on the mesh.

        Inputs that are already on the mesh (the rows of one Stacked, as the results of a
        mesh step and the elements of a distributed dataset are) are fed as they are; others
        are stacked and placed once per call. Results stay on the devices (ReplicaParts),
        so consecutive steps dispatch without waiting for each other."""
        if not context.executing_eagerly():
            return None
        count = self._strategy._local_replicas
        leaves = nest.flatten((args, kwargs), expand_composites=False)
        feeds: list[Any] = []
        signature: list[tuple[Any, Any]] | None = []
        for leaf in leaves:
            assert signature is not None
            stack = mesh_values.stacked_of(leaf, count)
            if stack is not None:
                feeds.append(stack)
                signature.append((stack.dtype, stack.array.shape[1:]))
                continue
            distributed = isinstance(leaf, values_lib.DistributedValues)
            parts = leaf.values if distributed else [leaf] * count
            if not all(isinstance(p, Tensor) for p in parts):
                return None
            arrays = [p._value for p in parts]
            if len({(a.shape, a.dtype) for a in arrays}) != 1:
                signature = None  # (replicas of different shapes: a short last batch)
                break
            feeds.append((arrays, parts[0].dtype))
            signature.append((parts[0].dtype, arrays[0].shape))
        if not _agreed(self._strategy, signature) or signature is None:
            return None
        template = _Template(nest.map_structure(lambda _: 0, (args, kwargs),
                                                expand_composites=False)
                             if leaves else (args, kwargs))
        key = (template.key, tuple(signature))
        if key not in self._programs:
            self._programs[key] = self._compile(template, signature)
        found = self._programs[key]
        if found is None:
            return None  # (the step does not compile for the mesh: it runs on threads)
        program, structure = found
        try:
            outputs = program(feeds)
        except _NotOnMesh:
            return None
        if count == 1:  # (the plain results: device tensors a Function takes as they are)
            return nest.pack_sequence_as(structure, [s.parts()[0].device_tensor()
                                                     for s in outputs])
        return nest.pack_sequence_as(
            structure, [mesh_values.StackedPerReplica(s, count) for s in outputs])

    def staged(self, args, kwargs):
        """`strategy.run` inside a Function: the step as one `MeshRun` op of the Function's
        graph (runtime.ops.collective_ops), fed each argument stacked `[replicas, ...]` (a
        stacked argument of the Function as it is) and giving each result stacked, as a
        StackedPerReplica. On the JAX backend it is lowered into the Function's own program;
        on the numpy executor its kernel runs the step's compiled mesh program. None when
        the step cannot run on the mesh (the replicas are then traced into the graph). The
        replicas' values must have one static shape per argument.

        Over several processes the rows are this process's replicas', and the op runs the
        step as an eager `strategy.run` does, at every step: the processes agree on the
        step's signature, then run the mesh program over all their devices, or all run
        their replica threads (see `_agreed`). A step whose replicas' values have no one
        static shape here (a short last batch) is a host call doing the same, so that the
        processes meet in the same collectives whatever each one traced."""
        spans = getattr(self._strategy, "_processes", 1) > 1
        count = self._strategy._local_replicas if spans else \
            self._strategy.num_replicas_in_sync
        leaves = nest.flatten((args, kwargs), expand_composites=False)
        template = _Template(nest.map_structure(lambda _: 0, (args, kwargs),
                                                expand_composites=False)
                             if leaves else (args, kwargs))
        signature = _stacked_signature(leaves, count)
        if signature is None:
            return self._staged_on_host(template, leaves, count) if spans else None
        inputs = [stack for stack, _ in signature]
        signature = [spec for _, spec in signature]
        key = (template.key, tuple(signature))
        if key not in self._programs:
            with context.eager_scope():  # (the step is traced apart from the Function)
                self._programs[key] = self._compile(template, signature)
        found = self._programs[key]
        if found is None:
            return self._staged_on_host(template, leaves, count) if spans else None
        program, structure = found

        def run(*stacked):
            feeds = [(value, dtype) for value, (dtype, _) in zip(stacked, signature)]
            return [stack.host() for stack in program(feeds)]

        def run_in_every_process(*stacked):
            rows = [_per_replica([value[i] for i in range(count)], dtype)
                    for value, (dtype, _) in zip(stacked, signature)]
            return self._run_eagerly(template, rows, count)
        outputs = collective_ops.mesh_run(inputs, program.concrete, count, self._mesh,
                                          run_in_every_process if spans else run,
                                          mesh_values.CpuDispatch.guard(self._mesh))
        return nest.pack_sequence_as(
            structure, [mesh_values.StackedPerReplica(t, count) for t in outputs])

    def _run_eagerly(self, template, leaves, count):
        """The step run on `leaves` (its flat arguments) as an eager `strategy.run` runs it:
        each result as its replicas' numpy values stacked `[count, ...]`."""
        args, kwargs = nest.pack_sequence_as(template.value, list(leaves))
        with context.eager_scope():
            result = self._strategy.run(self._original, args, kwargs)
            return [_stacked_rows(leaf, count)
                    for leaf in nest.flatten(result, expand_composites=False)]

    def _staged_on_host(self, template, leaves, count):
        """`strategy.run` of several processes inside a Function, when its step is not one
        MeshRun op here: a host call (numpy_function) that runs it as an eager
        `strategy.run` at every step (see `staged`), fed each replica's value of every
        argument and giving each replica's value of every result."""
        rows = []
        for leaf in leaves:
            parts = list(leaf.values) if isinstance(leaf, values_lib.DistributedValues) \
                else [leaf] * count
            if len(parts) != count or not all(isinstance(p, Tensor) for p in parts):
                raise NotImplementedError(
                    "strategy.run inside a tf.function of a MultiWorkerMirroredStrategy over "
                    "several processes takes tensors and PerReplica values of tensors; got %r"
                    % (leaf,))
            rows.append(parts)
        specs = [TensorSpec(_common_shape([p.shape for p in parts]), parts[0].dtype)
                 for parts in rows]
        try:
            with context.eager_scope():
                concrete = self._function.get_concrete_function(
                    self._templates.setdefault(template.key, template), *specs)
        except _NotOnMesh as e:
            raise NotImplementedError(
                "strategy.run inside a tf.function of a MultiWorkerMirroredStrategy over "
                "several processes: the step's %s cannot be traced once for every replica; "
                "call strategy.run outside the tf.function" % (e,)) from None
        structure = self._structure[template.key]
        dtypes = [t.dtype for t in concrete.flat_outputs]

        def run(*values):
            fed = [_per_replica(list(values[i * count:(i + 1) * count]), spec.dtype)
                   for i, spec in enumerate(specs)]
            stacks = self._run_eagerly(template, fed, count)
            return [stack[i] for stack in stacks for i in range(count)]
        flat = py_function_ops.numpy_function(
            run, [p for parts in rows for p in parts],
            [d for d in dtypes for _ in range(count)], stateful=True)
        results = [flat[j * count:(j + 1) * count] for j in range(len(dtypes))]
        return nest.pack_sequence_as(
            structure, [parts[0] if count == 1 else values_lib.PerReplica(parts)
                        for parts in results])

    def _compile(self, template, signature):
        """(the mesh program, the results' structure) of the step for arguments shaped as
        `template` with tensors of `signature`; None when it cannot run on the mesh."""
        template = self._templates.setdefault(template.key, template)  # (one object a key)
        specs = [common.convert_to_tensor(np.zeros(shape, dtype.np_dtype))
                 for dtype, shape in signature]
        try:
            concrete = self._function.get_concrete_function(template, *specs)
            return _Program(concrete, self._mesh), self._structure[template.key]
        except (_NotOnMesh, Unsupported):
            return None


def _agreed(strategy, signature):
    """True when the step can run on the mesh with `signature` (None: it cannot here).
    Over several processes every process must take the same way, so they compare their
    signatures first (one small all-gather per step): the mesh program runs when all are
    equal, else every process runs its replicas on threads."""
    if getattr(strategy, "_processes", 1) == 1:
        return signature is not None
    from jax.experimental import multihost_utils
    digest = -1 if signature is None else zlib.crc32(repr(signature).encode()) & 0x7fffffff
    everyone = multihost_utils.process_allgather(np.asarray(digest, np.int64))
    return digest != -1 and bool(np.all(everyone == digest))


def _stacked_signature(leaves, count):
    """[(the tensor `[count, ...]` of the replicas' values of a leaf, (dtype, one replica's
    static shape))] for `leaves` (a step's flat arguments), or None when some leaf's
    replicas' values are not tensors of one static shape."""
    found = []
    for leaf in leaves:
        stacked = mesh_values.stacked_tensor(leaf, count)
        if stacked is not None and stacked.shape.is_fully_defined():
            found.append((stacked, (stacked.dtype, tuple(stacked.shape)[1:])))
            continue
        distributed = isinstance(leaf, values_lib.DistributedValues)
        parts = list(leaf.values) if distributed else [leaf] * count
        if not all(isinstance(p, Tensor) for p in parts):
            return None
        specs = {(p.dtype, tuple(p.shape)) for p in parts}
        if len(specs) != 1:
            return None
        dtype, shape = specs.pop()
        if None in shape:
            return None
        found.append((common.stack(parts), (dtype, shape)))
    return found


def _common_shape(shapes):
    """The shape that every one of `shapes` (static or not) has: None where they differ."""
    ranks = {s.rank for s in shapes}
    if len(ranks) != 1 or None in ranks:
        return None
    dims = [set(d) for d in zip(*[s.as_list() for s in shapes])]
    return [d.pop() if len(d) == 1 else None for d in dims]


def _per_replica(rows, dtype):
    """The replicas' numpy `rows` of one value as eager tensors of `dtype`: a PerReplica
    value (the one tensor with one replica)."""
    tensors = [EagerTensor(np.asarray(row, dtype.np_dtype), dtype) for row in rows]
    return tensors[0] if len(tensors) == 1 else values_lib.PerReplica(tensors)


def _stacked_rows(value, count):
    """The numpy values of `value` (a result of an eager `strategy.run`: PerReplica, or one
    tensor every replica returned) for the `count` replicas, stacked."""
    stack = mesh_values.stacked_of(value, count)
    if stack is not None:
        return stack.host()
    parts = value.values if isinstance(value, values_lib.DistributedValues) else \
        [value] * count
    return np.stack([np.asarray(common.convert_to_tensor(p).numpy()) for p in parts])


class _Template:
    """The structure of a step's arguments, hashable by its shape (a trace cache key)."""

    def __init__(self, value):
        self.value = value
        self.key = repr(nest.structure_signature(value))

    def __hash__(self):
        return hash(self.key)

    def __eq__(self, other):
        return isinstance(other, _Template) and other.key == self.key


class _Program:
    """A traced step lowered by the JAX backend and jitted under shard_map."""

    def __init__(self, concrete, mesh):
        jax = jax_backend.jax_modules()[0]
        spec = jax.sharding.PartitionSpec
        self._jax = jax
        self._mesh = mesh
        self.concrete = concrete
        self._compiled = jax_backend.compile_graph(concrete.graph, concrete.inputs,
                                                   concrete.flat_outputs, concrete.name)
        if self._compiled._resource_feeds:
            raise _NotOnMesh("a variable argument")
        self._variables = self._compiled._variables(None)
        self._keys = list(self._compiled._state_keys)
        self._placed = {}  # variable key -> the replicated array this program stored
        self._dtypes = list(concrete.flat_outputs)
        inputs = len(concrete.inputs)
        self._split = jax.sharding.NamedSharding(mesh, spec(collective_ops.AXIS))
        self._whole = jax.sharding.NamedSharding(mesh, spec())
        self._spans = not self._whole.is_fully_addressable  # (the mesh of several processes)

        def per_replica(tensors, state):
            values, assigned, failed = self._compiled._lowered([t[0] for t in tensors], state)
            if failed is not None:
                raise _NotOnMesh("a checked op")
            return [v[None] for v in values], assigned

        self._jitted = jax.jit(jax.shard_map(
            per_replica, mesh=mesh, in_specs=([spec(collective_ops.AXIS)] * inputs, spec()),
            out_specs=(spec(collective_ops.AXIS), spec()), check_vma=False))

    def output_specs(self):
        """(dtype, shape) of one replica's value of each result."""
        return [(t.dtype, tuple(t.shape)) for t in self._dtypes]

    def __call__(self, feeds):
        """Runs the program on `feeds` (each a Stacked, or a pair of the replicas' numpy
        values and their dtype), stores the variables' new values (on the devices) and
        returns the results as Stacked values, without waiting for the devices."""
        tensors = []
        for feed in feeds:
            if isinstance(feed, mesh_values.Stacked):
                if feed.array.sharding != self._split:
                    feed = mesh_values.stage(feed.host(), feed.dtype, self._split)
            else:
                feed = mesh_values.stage(feed[0], feed[1], self._split)
                if feed is None:
                    raise _NotOnMesh("an input JAX does not hold")
            tensors.append(feed.array)
        state = {}
        for key in self._keys:
            variable = self._variables[key]
            stored = variable._stored()
            if stored is None:
                raise _NotOnMesh("an uninitialised variable")
            if stored is not self._placed.get(key):
                with mesh_values.wide_scope(variable.dtype):
                    stored = mesh_values.place(np.asarray(stored) if self._spans else stored,
                                               self._whole)
            state[key] = stored
        mesh_values.CpuDispatch.before(self._mesh)
        with self._compiled._scope():
            outputs, assigned = self._jitted(tensors, state)
        mesh_values.CpuDispatch.after(self._mesh, (outputs, assigned))
        for key, value in assigned.items():
            self._variables[key]._store_on_device(value)
            self._placed[key] = value
        return [mesh_values.Stacked(o, t.dtype) for o, t in zip(outputs, self._dtypes)]
