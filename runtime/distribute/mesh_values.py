"""Per-replica values kept on the mesh: one device array `[replicas, ...]` split over the
strategy's devices, handed out as one device tensor per replica.

A mesh step (runtime.distribute.mesh_run) returns its per-replica results this way, and a
distributed dataset stages its elements this way, so that a training loop neither copies a
value to the host nor splits and stacks it again between steps:

    Stacked          the device array, split over the mesh (one replica's row per device),
                     and its host copy, made once when a replica's value is first read
    ReplicaPart      replica i's row as an eager device tensor (runtime.device_tensor):
                     its numpy value is row i of the host copy; its device array (what a
                     JAX Function is fed) is sliced on the device when first asked for
    StackedPerReplica  a PerReplica value whose parts are the rows of one stacked tensor:
                     a Stacked, or in a Function's graph a tensor `[replicas, ...]`; a
                     Function takes and returns it as that one tensor (not one per
                     replica), so a step inside a Function gets the mesh's array as it is
    stacked_of       the Stacked behind a PerReplica value made of one Stacked's rows in
                     replica order (a mesh step feeds it to its program as it is)

Nothing here waits for the device: JAX computes asynchronously, and a value is waited for
only when its numpy value is read (or `block_until_ready()` is called).
"""

import contextlib
from typing import Any, Callable

import numpy as np

from runtime import nest
from runtime.backends import jax_backend
from runtime.device_tensor import ON_DEVICE, DeviceTensor, register_array_type
from runtime.distribute import values as values_lib
from runtime.ops import collective_ops, concat_split_ops
from runtime.signature import TensorSpec
from runtime.tensor import EagerTensor, SymbolicTensor

_WIDE = ("int64", "uint64", "float64", "complex128")
_KINDS = ("int", "float", "bool", "complex")  # the dtypes a JAX array holds


def wide_scope(dtype):
    """JAX's 64-bit mode for the duration of a `with` block when `dtype` needs it."""
    if dtype.name in _WIDE:
        return jax_backend.jax_modules()[0].enable_x64(True)
    return contextlib.nullcontext()


def replica_sharding(mesh):
    """The sharding that gives each device of `mesh` its replica's row of a stacked array."""
    jax = jax_backend.jax_modules()[0]
    return jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(collective_ops.AXIS))


class Stacked:
    """The replicas' values of one tensor as one device array `[replicas, ...]` split over
    a mesh (`array`), with its host copy made at the first read (`host()`)."""

    __slots__ = ("array", "dtype", "_host", "_whole")

    def __init__(self, array, dtype):
        self.array = array
        self.dtype = dtype
        self._host = None
        self._whole = None

    def device_tensor(self):
        """The whole stack as one device tensor (what a Function is fed), made once."""
        if self._whole is None:
            self._whole = DeviceTensor(self.array, self.dtype)
        return self._whole

    @property
    def rows(self):
        """How many rows this process holds (all of them, unless the mesh spans several
        processes: then this process's replicas' rows)."""
        if self.array.is_fully_addressable:
            return self.array.shape[0]
        return len(self.array.addressable_shards)

    def _local_shards(self):
        """This process's shards of a stack spanning several processes, in row order."""
        return sorted(self.array.addressable_shards, key=lambda s: s.index[0].start)

    def host(self):
        """The numpy value of the stack (read-only), copied from the devices once: all its
        rows, or where the mesh spans several processes this process's rows."""
        if self._host is None:
            if self.array.is_fully_addressable:
                value = np.asarray(self.array)
            else:
                value = np.concatenate([np.asarray(s.data) for s in self._local_shards()])
            if value.dtype != self.dtype.np_dtype:
                value = value.astype(self.dtype.np_dtype)
            value.flags.writeable = False
            self._host = value
        return self._host

    def parts(self):
        """One ReplicaPart per replica of this process, in replica order."""
        return [ReplicaPart(self, i) for i in range(self.rows)]


class ReplicaPart(DeviceTensor):
    """Replica `index`'s value of a Stacked: a device tensor whose numpy value is row
    `index` of the stack's host copy, and whose device array is sliced when asked for."""

    __slots__ = ("_stack", "_index")

    def __init__(self, stack, index):
        self._stack = stack
        self._index = index
        self.dtype = stack.dtype
        self._key = (stack.dtype, tuple(stack.array.shape[1:]), ON_DEVICE)

    @property
    def _value(self):
        """Row `index` of the stack's host copy (one copy from the devices for all rows)."""
        return self._stack.host()[self._index]

    def __getattr__(self, name):
        # the device array slot, filled at its first use (feeding one replica's value to a
        # JAX Function, which is rare: a mesh step takes the whole stack instead)
        if name != "_array":
            raise AttributeError(name)
        stack = self._stack
        with wide_scope(self.dtype):
            if stack.array.is_fully_addressable:
                array = stack.array[self._index]
            else:  # (this process's row: its shard, on its device)
                array = stack._local_shards()[self._index].data[0]
        self._array = array
        return array

    def device_tensor(self):
        """This value as a plain DeviceTensor (its row sliced on the device), which a
        Function takes as an argument (its cache keys know DeviceTensor itself)."""
        return DeviceTensor(self._array, self.dtype, self._key)

    def block_until_ready(self):
        """Waits until the devices have computed the stack; returns this tensor."""
        self._stack.array.block_until_ready()
        return self

    def __reduce__(self):
        return ReplicaPart, (self._stack, self._index)


class StackedPerReplica(values_lib.PerReplica):
    """A PerReplica value whose parts are the rows of one stacked tensor `[replicas, ...]`
    (`stacked`): a Stacked on the mesh (its parts are ReplicaParts), an eager host tensor,
    a graph tensor (its parts are row slices, made when first asked for), or a TensorSpec
    (a Function's record of such an argument). A Function takes it as the one stacked
    tensor: its component, as the composite protocol of runtime.nest says."""

    def __init__(self, stacked, count):
        self._stacked = stacked
        self._count = count
        self._parts = None

    @property
    def stacked(self):
        """The stacked value (a Stacked, a tensor or a TensorSpec)."""
        return self._stacked

    # (the base stores its parts; these rows are made on first read)
    @property
    def _values(self):  # type: ignore[override]
        if self._parts is None:
            self._parts = tuple(self._rows())
        return self._parts

    def _rows(self):
        stacked, count = self._stacked, self._count
        if isinstance(stacked, Stacked):
            return stacked.parts()
        if isinstance(stacked, TensorSpec):
            shape = None if stacked.shape.rank is None else stacked.shape.as_list()[1:]
            return [TensorSpec(shape, stacked.dtype)] * count
        return concat_split_ops.unstack(stacked, num=count)

    def __len__(self):
        return self._count

    def _nest_components(self):
        stacked = self._stacked
        if not isinstance(stacked, Stacked):
            return [stacked]
        if stacked.array.is_fully_addressable:
            return [stacked.device_tensor()]
        # (a stack over several processes: a Function takes this process's rows)
        return [EagerTensor(stacked.host(), stacked.dtype)]

    def _nest_rebuild(self, components):
        (stacked,) = components
        array = getattr(stacked, "_array", None) if type(stacked) is DeviceTensor else None
        if array is not None and getattr(array, "sharding", None) is not None and \
                len(array.sharding.device_set) == self._count:
            stacked = Stacked(array, stacked.dtype)  # (a Function's result, on the mesh)
        return StackedPerReplica(stacked, self._count)

    def _nest_signature(self):
        return ("PerReplica", self._count, "stacked")


def stacked_tensor(value, count):
    """The graph tensor `[count, ...]` whose rows a PerReplica `value` is, when it is a
    StackedPerReplica of a graph tensor; else None."""
    if isinstance(value, StackedPerReplica) and value._count == count and \
            isinstance(value._stacked, SymbolicTensor):
        return value._stacked
    return None


def stacked_of(value, count):
    """The Stacked whose rows `value` (a PerReplica of `count` parts, or with one replica
    the one part) is, in replica order; else None."""
    if isinstance(value, StackedPerReplica):
        stacked = value._stacked
        return stacked if isinstance(stacked, Stacked) and stacked.rows == count else None
    if count == 1 and type(value) is ReplicaPart:
        parts = (value,)
    elif isinstance(value, values_lib.DistributedValues) and len(value.values) == count:
        parts = value.values
    else:
        return None
    stack = getattr(parts[0], "_stack", None)
    if stack is None or stack.rows != count:
        return None
    for i, part in enumerate(parts):
        if type(part) is not ReplicaPart or part._stack is not stack or part._index != i:
            return None
    return stack


def stage(arrays, dtype, sharding):
    """`arrays` (the replicas' numpy values of one tensor, same shape), or one numpy array
    already stacked `[replicas, ...]`, placed on the mesh as a Stacked; None when JAX does
    not hold `dtype`."""
    if dtype.kind not in _KINDS:
        return None
    jax = jax_backend.jax_modules()[0]
    register_array_type(jax.Array)
    stacked = arrays if isinstance(arrays, np.ndarray) else np.stack(arrays)
    with wide_scope(dtype):
        return Stacked(place(stacked, sharding, len(sharding.mesh.devices.flat)), dtype)


def place(value, sharding, rows=None):
    """`value` (numpy) placed as `sharding` says: over a mesh spanning several processes,
    `value` is this process's part (its replicas' rows, `rows` in all, or with `rows` None
    the whole replicated value), as every process gives its own (see jax.distributed)."""
    jax = jax_backend.jax_modules()[0]
    if sharding.is_fully_addressable:
        return jax.device_put(value, sharding)
    shape = np.shape(value) if rows is None else (rows,) + np.shape(value)[1:]
    return jax.make_array_from_process_local_data(sharding, np.asarray(value), shape)


def stage_per_replica(element, mesh, count):
    """`element` (a nest whose leaves are PerReplica values of `count` parts, as a
    distributed dataset yields) with each leaf whose replicas' values are eager tensors of
    one shape staged on `mesh` as one Stacked; other leaves are kept as they are."""
    sharding = replica_sharding(mesh)

    def staged(leaf):
        if not isinstance(leaf, values_lib.PerReplica):
            return leaf  # (one replica's element: placed by the program that takes it)
        parts = leaf.values
        if len(parts) != count or not all(type(p) is EagerTensor for p in parts):
            return leaf
        arrays = [p._value for p in parts]
        if len({(a.shape, a.dtype) for a in arrays}) != 1:
            return leaf
        stack = stage(arrays, parts[0].dtype, sharding)
        if stack is None:
            return leaf
        return StackedPerReplica(stack, count)
    flat = nest.flatten(element, expand_composites=False)
    return nest.pack_sequence_as(element, [staged(leaf) for leaf in flat],
                                 expand_composites=False)


def stage_on_device(element, mesh):
    """`element` (a nest, one replica's) with each eager tensor leaf JAX holds copied to the
    one device of `mesh` as a device tensor; other leaves are kept as they are."""
    jax = jax_backend.jax_modules()[0]
    register_array_type(jax.Array)
    device = mesh.devices.flat[0]

    def staged(leaf):
        if type(leaf) is not EagerTensor or leaf.dtype.kind not in _KINDS:
            return leaf
        with wide_scope(leaf.dtype):
            return DeviceTensor(jax.device_put(leaf._value, device), leaf.dtype)
    flat = nest.flatten(element, expand_composites=False)
    return nest.pack_sequence_as(element, [staged(leaf) for leaf in flat],
                                 expand_composites=False)


class CpuDispatch:
    """At most one collective program in flight on XLA's CPU devices.

    XLA runs a CPU device's program on a thread pool as large as the machine's cores, and a
    device waiting in an all-reduce holds its thread. When programs are dispatched ahead
    (JAX does not wait for a program before dispatching the next), the pool's threads can
    all wait in the all-reduces of different programs while the devices they wait for have
    no thread left: XLA then aborts the process ("Expected 4 threads to join the rendezvous,
    but only 2 arrived"). So before a program over several CPU devices is dispatched, the
    previous one is waited for (the Python work of a step still overlaps the devices'
    work on the previous step). Accelerators' collectives do not hold host threads, and
    their programs are dispatched ahead freely."""

    _pending = None  # a result of the last program dispatched over several CPU devices

    @classmethod
    def applies(cls, mesh):
        """True when `mesh` is several CPU devices."""
        devices = mesh.devices.flat
        return mesh.devices.size > 1 and all(d.platform == "cpu" for d in devices)

    @classmethod
    def before(cls, mesh):
        """Waits for the last program over several CPU devices, when `mesh` is such."""
        pending = cls._pending
        if pending is not None and cls.applies(mesh):
            cls._pending = None
            jax_backend.jax_modules()[0].block_until_ready(pending)

    @classmethod
    def after(cls, mesh, results):
        """Records `results` (a pytree of arrays) of a program just dispatched on `mesh`."""
        if cls.applies(mesh):
            cls._pending = results

    @classmethod
    def guard(cls, mesh):
        """The dispatch guard of a JAX program holding a step over `mesh` (see
        runtime.backends.jax_backend.dispatch_guard), or None when `mesh` needs none."""
        return _MeshGuard(mesh) if cls.applies(mesh) else None


class _MeshGuard:
    """CpuDispatch's wait, around the dispatch of a Function's program over one mesh."""

    def __init__(self, mesh):
        self._mesh = mesh

    def before(self):
        """Waits for the last program over several CPU devices."""
        CpuDispatch.before(self._mesh)

    def after(self, results):
        """Records the program's `results`, to wait for before the next program."""
        CpuDispatch.after(self._mesh, results)


# (reduce op, integer dtype?) -> the jitted reduction
_reducers: dict[tuple[str, bool], Callable[..., Any]] = {}


def reduce_stacked(reduce_op, stack):
    """The replicas' values of `stack` combined by `reduce_op` ("SUM" or "MEAN") on the
    devices, as a device tensor (no wait)."""
    jax = jax_backend.jax_modules()[0]
    key = (reduce_op, stack.dtype.is_integer)
    reducer = _reducers.get(key)
    if reducer is None:
        import jax.numpy as jnp
        if reduce_op == "SUM":
            def combine(a):
                return jnp.sum(a, axis=0, dtype=a.dtype)
        elif stack.dtype.is_integer:
            def combine(a):
                return jnp.sum(a, axis=0, dtype=a.dtype) // a.shape[0]
        else:
            def combine(a):
                return jnp.sum(a, axis=0, dtype=a.dtype) / jnp.asarray(a.shape[0], a.dtype)
        reducer = _reducers[key] = jax.jit(combine)
    mesh = stack.array.sharding.mesh
    CpuDispatch.before(mesh)
    with wide_scope(stack.dtype):
        result = reducer(stack.array)
    CpuDispatch.after(mesh, result)
    return DeviceTensor(result, stack.dtype)
