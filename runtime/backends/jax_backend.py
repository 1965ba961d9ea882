"""The JAX backend: a traced graph compiled by XLA through `jax.jit` (CPU, GPU, TPU, and
several devices through shardings).

`compile_graph(graph, feeds, outputs, ...)` gives a `JaxCompiledGraph`: `host_run(*feeds)` has
the numpy executor's contract (fed numpy arrays and variables in, a tuple of numpy values
out); `run(*feeds)`, what a ConcreteFunction call uses, returns device-resident tensors
(runtime.device_tensor.DeviceTensor: no copy to the host until a value is read), and both
take device arrays (jax.Array) in place of numpy values (no copy to the device). The error
flag is still read before `run` returns, so errors are raised at the user's call. The graph
is lowered by runtime/backends/jax_lowering.py while `jax.jit`
traces; the compiled function takes the tensor arguments and the variables' values, and
returns the outputs, the values of the variables it assigns (written back after the call)
and an error flag. When the flag is set, the graph runs again on the numpy executor, from the
same variable values, which raises the error naming the op and the user's line.

Graphs with 64-bit values are traced and run with `jax_enable_x64` on, scoped to the call,
so the process-wide JAX setting is left alone. Compiled programs are kept in JAX's
persistent compilation cache under the user cache folder (`cache_folder()`), unless the
process already configured one.

jax is an optional dependency: it is imported only when this backend is used.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime import dtypes, errors, executor
from runtime.backends import BackendFallbackWarning, jax_host
from runtime.backends.jax_lowering import Lowerer, jax_modules
from runtime.device_tensor import ON_DEVICE, DeviceTensor, host_feeds, register_array_type
from runtime.fast_call import DeviceProgram, FastCall
from runtime.graph import SubGraph
from runtime.lowering_api import Unsupported, VariableSlot
from runtime.tensor import EagerTensor, to_numpy
from runtime.variables import Variable, updating

NAME = "jax"
_WIDE = ("int64", "uint64", "float64", "complex128")
_ARRAY_KINDS = ("int", "float", "bool", "complex")  # the dtypes a JAX array holds
DTYPE_DECLINES: dict[str, str] = {}  # JAX holds every numeric type (bfloat16 natively)
_cache_configured = False


def unavailable() -> str | None:
    """None when jax can be imported here, else why not."""
    try:
        import jax  # noqa: F401
    except ImportError as e:
        return "jax is not installed (pip install \"autograph[jax]\"): %s" % e
    return None


def cache_folder() -> str:
    """The folder of JAX's persistent compilation cache: $AUTOGRAPH_CACHE_DIR/jax, else
    $XDG_CACHE_HOME/autograph/jax, else ~/.cache/autograph/jax."""
    base = os.environ.get("AUTOGRAPH_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"),
                                                               ".cache")
        base = os.path.join(xdg, "autograph")
    return os.path.join(base, "jax")


def _configure_cache(jax: Any) -> None:
    global _cache_configured
    if _cache_configured:
        return
    _cache_configured = True
    if jax.config.jax_compilation_cache_dir:  # the process chose its own
        return
    jax.config.update("jax_compilation_cache_dir", cache_folder())
    # Our programs compile in tens of milliseconds: keep them too (JAX's default keeps only
    # those that took a second).
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)


def _subgraphs(graph: Any) -> list[Any]:
    """`graph` and every graph nested in it (branches, loop bodies, called functions)."""
    found = [graph]
    for node in graph.nodes:
        for attr in node.attrs.values():
            if isinstance(attr, SubGraph):
                found.extend(_subgraphs(attr.graph))
        callee = node.attrs.get("f")
        if callee is not None and hasattr(callee, "graph"):
            found.extend(_subgraphs(callee.graph))
    return found


def dispatch_guard(graph: Any) -> Any:
    """The `dispatch_guard` attribute of a node of `graph` (or of a nested graph), or None:
    an object whose `before()` is called before the program is dispatched and `after(results)`
    after (a distribution strategy's step over CPU devices waits there for the previous
    program: see runtime.distribute.mesh_values.CpuDispatch)."""
    for g in _subgraphs(graph):
        for node in g.nodes:
            guard = node.attrs.get("dispatch_guard")
            if guard is not None:
                return guard
    return None


def uses_64_bits(graph: Any) -> bool:
    """True when a tensor of `graph` (or of a nested graph) has a 64-bit dtype."""
    for g in _subgraphs(graph):
        for node in g.nodes:
            if any(t.dtype.name in _WIDE for t in node.outputs):
                return True
    return False


def captured_variables(graph: Any) -> list[Variable]:
    """The variables captured by `graph` or a nested graph, each once."""
    found: dict[int, Variable] = {}
    for g in _subgraphs(graph):
        for capture in g.captures:
            if isinstance(capture.external, Variable):
                found.setdefault(id(capture.external), capture.external)
    return list(found.values())


def resolve_device(device: Any) -> Any:
    """A jax Device for `device`: a Device, or a string 'PLATFORM' or 'PLATFORM:INDEX'
    ('cpu', 'gpu:1'; TensorFlow's '/GPU:0' spelling too)."""
    if device is None or not isinstance(device, str):
        return device
    jax = jax_modules()[0]
    text = device.strip("/").lower().replace("device:", "")
    platform, _, index = text.partition(":")
    try:
        found = jax.devices(platform)
    except RuntimeError as e:
        raise ValueError("no JAX device %r: %s" % (device, e)) from None
    position = int(index) if index else 0
    if not 0 <= position < len(found):
        raise ValueError("no JAX device %r: %d %s device(s)" % (device, len(found), platform))
    return found[position]


def scoped_device(graph: Any) -> Any:
    """The jax Device that the `tf.device` scopes of `graph`'s nodes name, when every scoped
    node names the same one and JAX has it; None otherwise (placement is soft, as in
    TensorFlow: a device the machine lacks leaves the choice to JAX)."""
    names = {n.device for g in _subgraphs(graph) for n in g.nodes if n.device}
    if len(names) != 1:
        return None
    kind, _, index = names.pop().rsplit("/", 1)[-1].replace("device:", "").partition(":")
    try:
        found = jax_modules()[0].devices(kind.lower())
    except RuntimeError:  # no such platform here
        return None
    position = int(index) if index.isdigit() else 0
    return found[position] if position < len(found) else None


class JaxCompiledGraph:
    """A graph compiled with jax.jit: `run(*feeds)` returns the outputs as device-resident
    tensors, `host_run(*feeds)` as numpy values (see the module docstring). `report` (a
    BackendReport, optional) is updated when a later call finds the graph cannot be lowered
    after all (a new input shape); `device` and `shardings` place the computation (see
    `compile`)."""

    def __init__(self, graph: Any, feeds: Sequence[Any], outputs: Sequence[Any],
                 name: str = "graph_fn", check_numerics: bool = False, device: Any = None,
                 shardings: Any = None, report: Any = None, strict: bool = False) -> None:
        jax = jax_modules()[0]
        _configure_cache(jax)
        register_array_type(jax.Array)
        self.graph = graph
        self.feeds = list(feeds)
        self.outputs = list(outputs)
        self.name = name
        self.check_numerics = check_numerics
        self.device = resolve_device(device) if device is not None else scoped_device(graph)
        self.shardings = shardings
        self.report = report
        self.strict = strict
        self.unsupported: str | None = None
        self.lowered_nodes = 0
        self.input_shardings: list[Any] = []
        self.lowered_text: str | None = None
        self._numpy: executor.CompiledGraph | None = None
        self.host = jax_host.HostCalls()  # its host calls' cursors and raised error
        self._resource_feeds = [i for i, t in enumerate(self.feeds)
                                if t.dtype is dtypes.resource]
        self._tensor_feeds = [i for i, t in enumerate(self.feeds)
                              if t.dtype is not dtypes.resource]
        self._captured = captured_variables(graph)
        self._x64 = uses_64_bits(graph)
        self._state_keys = (["f%d" % i for i in self._resource_feeds] +
                            ["v%d" % k for k in range(len(self._captured))])
        # flat arguments: the tensors, then the variables' values (a pytree costs per call)
        self._jitted = jax.jit(self._flat)
        self._guard = dispatch_guard(graph)
        # tensors only, in feed order, on the default device, without 64-bit values
        self._plain = not (self._resource_feeds or self._captured or self._x64 or
                           self.device is not None or self.shardings is not None or
                           self._guard is not None)
        self._out_dtypes: list[Any] = [None if t is None else t.dtype for t in self.outputs]
        # each output's cache-key part where the graph knows its shape (else None: the
        # device tensor asks its array)
        self._out_keys: list[Any] = [_device_key(t) for t in self.outputs]
        # the dtype of the one output, when there is one (the common case, kept short)
        self._single: Any = self._out_dtypes[0] if len(self._out_dtypes) == 1 else None
        self._single_key: Any = self._out_keys[0] if self._single is not None else None
        self._device_program: DeviceProgram | None = None  # see fast_call
        self._assigned: tuple[str, ...] | None = None  # (known once traced)
        self._flagged = True  # the last trace has checks or host calls (unknown until traced)
        self._call = self._program_call()  # the general run's call of the program
        for t in self.outputs:
            if t is not None and t.dtype.kind not in _ARRAY_KINDS:
                raise Unsupported("the graph returns a %s value" % t.dtype.name)
        # a variable argument is fed as its value (see _variables); any other feed is an
        # array argument of the jitted function, which takes only numbers
        for t in self.feeds:
            if t.dtype is not dtypes.resource and t.dtype.kind not in _ARRAY_KINDS:
                raise Unsupported("the graph takes a %s argument (%s)"
                                  % (t.dtype.name, t.name))

    @property
    def source(self) -> str:
        """The StableHLO text of the compiled program (once compiled ahead of a call)."""
        return self.lowered_text or "(lowered by jax.jit at the first call)"

    # -- the traced function --------------------------------------------------------------
    def _flat(self, *values: Any) -> tuple[Any, ...]:
        # one flat tuple (a nested result costs on every call): the outputs, the assigned
        # variables' values (in `_assigned` order), then the failed-check flag (None when the
        # graph has no check); only the array for one output with nothing else
        count = len(self._tensor_feeds)
        outputs, assigned, failed = self._lowered(
            list(values[:count]), dict(zip(self._state_keys, values[count:])))
        if len(outputs) == 1 and outputs[0] is not None and not assigned and failed is None:
            return outputs[0]  # (the common case: one array, no tuple to build and read)
        return (*outputs, *[assigned[k] for k in self._assigned or ()], failed)

    def _lowered(self, tensors: list[Any], state: dict[str, Any]) -> Any:
        lowerer = Lowerer(state, self.check_numerics)
        lowerer.host = self.host
        lowerer.variable_slots = {id(v): VariableSlot("v%d" % k, v.dtype, v._static_shape)
                                  for k, v in enumerate(self._captured)}
        fed: dict[int, Any] = {}
        for position, value in zip(self._tensor_feeds, tensors):
            fed[id(self.feeds[position])] = value
        for position in self._resource_feeds:
            key = "f%d" % position
            value = state[key]
            fed[id(self.feeds[position])] = VariableSlot(
                key, dtypes.as_dtype(value.dtype), tuple(value.shape))
        values = lowerer.lower_graph(self.graph, fed, self.outputs)
        for value in values:
            if value is not None and not hasattr(value, "dtype"):
                raise Unsupported("the graph returns a %s" % type(value).__name__)
        # a result is a device tensor of its graph dtype: cast in the program, where it is free
        values = [v if v is None or t is None or v.dtype == t.dtype.np_dtype
                  else v.astype(t.dtype.np_dtype) for v, t in zip(values, self.outputs)]
        self._assigned = tuple(sorted(lowerer.assigned))
        self._flagged = lowerer.failed is not None
        self.lowered_nodes = lowerer.lowered_nodes
        return values, {k: lowerer.state[k] for k in self._assigned}, lowerer.failed

    def compile_now(self) -> None:
        """Lowers and compiles for the fed tensors' static shapes, raising Unsupported when
        the graph cannot be lowered; does nothing when a shape is known only at run time (the
        first call compiles then)."""
        jax = jax_modules()[0]
        tensors = []
        for position in self._tensor_feeds:
            t = self.feeds[position]
            if t._shape is None or None in t._shape:
                return
            tensors.append(jax.ShapeDtypeStruct(t._shape, t.dtype.np_dtype))
        state = {}
        for key, variable in self._variables(None).items():
            stored = variable._stored()
            if stored is None:
                return
            state[key] = jax.ShapeDtypeStruct(np.shape(stored),
                                              variable.dtype.np_dtype)
        try:
            with self._scope():
                lowered = self._jitted.lower(*tensors, *[state[k] for k in self._state_keys])
                lowered.compile()
        except Unsupported:
            raise
        except Exception as e:  # noqa: BLE001 - JAX refused what a rule built
            raise Unsupported("JAX could not compile the graph: %s: %s"
                              % (type(e).__name__, _first_line(e))) from None
        self.lowered_text = lowered.as_text()

    # -- running --------------------------------------------------------------------------
    def _variables(self, feeds: Sequence[Any] | None) -> dict[str, Variable]:
        found = {}
        for position in self._resource_feeds:
            placeholder = self.feeds[position]
            found["f%d" % position] = (feeds[position] if feeds is not None else
                                       self.graph.argument_variables[id(placeholder)])
        for k, v in enumerate(self._captured):
            found["v%d" % k] = v
        return found

    def numpy_run(self, *feeds: Any) -> tuple[Any, ...]:
        """Runs the graph on the numpy executor (the fallback, and how errors are raised)."""
        if self._numpy is None:
            self._numpy = executor.compile_graph(self.graph, self.feeds, self.outputs,
                                                 self.name, self.check_numerics)
        return self._numpy.run(*host_feeds(list(feeds)))

    def node_for_traceback(self, tb: Any) -> Any:
        """The graph node whose numpy-executor line (or host call) raised in traceback `tb`."""
        node = jax_host.node_in_traceback(tb)
        if node is not None:
            return node
        return self._numpy.node_for_traceback(tb) if self._numpy is not None else None

    # a ConcreteFunction may feed this graph device arrays (see runtime.device_tensor)
    takes_device_arrays = True

    def host_run(self, *feeds: Any) -> tuple[Any, ...]:
        """The output values (numpy) for the fed values (numpy or device arrays, variables)."""
        return tuple([v._value if type(v) is DeviceTensor else v for v in self.run(*feeds)])

    def run(self, *feeds: Any) -> tuple[Any, ...]:
        """The outputs for the fed values (numpy or device arrays, variables): device tensors
        (numpy values where the graph ran on the numpy executor)."""
        if self.unsupported is not None:
            return self.numpy_run(*feeds)
        if not (self._resource_feeds or self._captured):
            return self._run_fed(feeds, None)
        variables = self._variables(feeds)
        # the variables this call assigns (all, before the first trace says which) are locked
        # from their read to their write: see runtime.variables.updating
        with updating(variables.values() if self._assigned is None
                      else [variables[k] for k in self._assigned]):
            return self._run_fed(feeds, variables)

    def _run_fed(self, feeds: Sequence[Any],
                 variables: dict[str, Variable] | None) -> tuple[Any, ...]:
        """`run` once the variables are held: `variables` are the graph's (None: it has
        none)."""
        tensors = list(feeds) if not self._resource_feeds else [
            feeds[i] for i in self._tensor_feeds]
        state = {}
        if variables is not None:
            for key, variable in variables.items():
                stored = variable._stored()  # (on the device after an earlier call)
                if stored is None:  # the numpy executor raises the right error
                    return self.numpy_run(*feeds)
                state[key] = stored
        if self.device is not None or self.shardings is not None:
            tensors, state = self._place(tensors, state)
        results = self._call(tensors + [state[k] for k in self._state_keys])
        if results is None:  # lowering or compiling failed: the numpy executor runs it
            return self.numpy_run(*feeds)
        if type(results) is DeviceTensor:  # the one output and nothing else (see _flat)
            return (results,)
        # (waits for the flag: errors are synchronous; np.asarray reads it fastest)
        failed = results[-1]
        if failed is not None and np.asarray(failed):
            self.host.finish()  # raises a host call's error
            return self.numpy_run(*feeds)
        if variables is not None:
            count = len(self._out_dtypes)
            for key, value in zip(self._assigned or (), results[count:-1]):
                variables[key]._store_on_device(value)
        if self._single is not None:
            return (DeviceTensor(results[0], self._single, self._single_key),)
        return self._device_tensors(results)

    def _program_call(self) -> Callable[[Sequence[Any]], Any]:
        """The general run's call of the compiled program: `call(arguments)`, `arguments`
        the tensors then the variables' values. It returns the one output as a device
        tensor where the program returns nothing else (see `_flat`), else the program's
        tuple of results (the failed-check flag last), or None when JAX could not lower or
        compile it (`_give_up` records why; the numpy executor runs the graph from then on).
        The cached call has its own, leaner copy (`_cached_call`)."""
        jitted, give_up, guard = self._jitted, self._give_up, self._guard
        dtype, key = self._single, self._single_key
        enable_x64 = jax_modules()[0].enable_x64 if self._x64 else None
        new = object.__new__

        def call(arguments: Sequence[Any]) -> Any:
            try:
                if guard is not None:
                    guard.before()
                if enable_x64 is None:
                    result = jitted(*arguments)
                else:  # 64-bit values: traced and run with x64 on, scoped to the call
                    with enable_x64(True):
                        result = jitted(*arguments)
            except Exception as e:  # noqa: BLE001 - lowering or compiling failed
                give_up(e)
                return None
            if guard is not None:
                guard.after(result)
            if type(result) is tuple:  # checks, assigned variables or several outputs
                return result
            tensor = new(DeviceTensor)  # (DeviceTensor(...) without its Python frame)
            tensor._array = result
            tensor.dtype = dtype
            tensor._key = (dtype, tuple(result.shape), ON_DEVICE) if key is None else key
            return tensor
        return call

    def _cached_call(self, general: Any) -> Callable[[Sequence[Any]], Any]:
        """The cached call's run of a plain graph (see `fast_call`): the program on the
        arguments, its one output as a device tensor. A call it cannot serve so goes to
        `general(arguments)`, the concrete function's general run: after JAX gave up, or
        when the result is not that one tensor (a new trace brought checks). `_program_call`
        less what a plain graph never has (a guard, 64-bit values, an output of unknown
        shape): each test and each Python frame between the Function and the program is a
        measurable part of a cached call."""
        jitted, give_up, dtype, key = self._jitted, self._give_up, self._single, \
            self._single_key
        new = object.__new__

        def call(arguments: Sequence[Any]) -> Any:
            if not self._plain:  # (given up: the general run)
                return general(arguments)
            try:
                result = jitted(*arguments)
            except Exception as e:  # noqa: BLE001 - lowering or compiling failed
                give_up(e)
                return general(arguments)
            if type(result) is tuple:
                return general(arguments)
            tensor = new(DeviceTensor)
            tensor._array = result
            tensor.dtype = dtype
            tensor._key = key
            return tensor
        return call

    def fast_call(self, general: Any) -> FastCall | None:
        """The cached call of a plain one-output graph (tensors only, in feed order, on the
        default device, without 64-bit values, checks or host calls, its output's shape
        known), or None for other graphs: a FastCall whose DeviceProgram (one per graph,
        dropped when JAX gives up) the dispatcher calls itself, and whose run,
        `_cached_call(general)`, takes a call the program cannot serve alone: it hands it to
        the concrete function's general run (after a failed compile, or when a new trace
        brought checks: running the program twice is harmless then, since a graph with host
        calls never has this record)."""
        if not self._plain or self._single is None or self._flagged or \
                self._single_key is None:
            return None
        if self._device_program is None:
            self._device_program = DeviceProgram(self._jitted, self._single, self._single_key)
        return FastCall(self._cached_call(general), direct=True, device=self._device_program)

    def _device_tensors(self, outputs: Sequence[Any]) -> tuple[Any, ...]:
        # (zip stops at the outputs: `outputs` may go on with assigned values and the flag)
        return tuple([None if v is None else DeviceTensor(v, dtype, key)
                      for v, dtype, key in zip(outputs, self._out_dtypes, self._out_keys)])

    def _give_up(self, error: Exception) -> None:
        """Records that the graph runs on the numpy executor from now on, and why."""
        if isinstance(error, Unsupported):
            reason = error.reason
        else:
            reason = "JAX could not compile the graph: %s: %s" % (type(error).__name__,
                                                                 _first_line(error))
        self.unsupported = reason
        self._plain = False
        if self._device_program is not None:  # the dispatcher calls it no more
            self._device_program.program = None
        if self.report is not None:
            self.report.running = "numpy"
            self.report.reason = "jax could not run %s: %s" % (self.name, reason)
            if self.strict:
                raise Unsupported(reason) from None
            if self.report.explicit:
                errors.warn("backend 'jax': %s runs on the numpy executor instead, because %s"
                     % (self.name, reason), BackendFallbackWarning)

    def _scope(self) -> Any:
        if self._x64:
            return jax_modules()[0].enable_x64(True)
        return contextlib.nullcontext()

    # -- placement ------------------------------------------------------------------------
    def _place(self, tensors: list[Any], state: dict[str, Any]) -> tuple[list[Any], Any]:
        jax = jax_modules()[0]
        if self.shardings is None:
            device = self.device
            if all(_on_device(x, device) for x in tensors) and \
                    all(_on_device(x, device) for x in state.values()):
                return tensors, state  # (a training loop's values: placed already)
            return jax.device_put(tensors, device), jax.device_put(state, device)
        placed = [jax.device_put(x, s) for x, s in zip(tensors, self._input_shardings(tensors))]
        self.input_shardings = [x.sharding for x in placed]
        return placed, jax.device_put(state, self._replicated())

    def _mesh(self) -> Any:
        jax = jax_modules()[0]
        return jax.sharding.Mesh(np.array(jax.devices()), ("batch",))

    def _replicated(self) -> Any:
        jax = jax_modules()[0]
        return jax.sharding.NamedSharding(self._mesh(), jax.sharding.PartitionSpec())

    def _input_shardings(self, tensors: list[Any]) -> list[Any]:
        """One sharding per tensor argument: "batch" splits its first dimension over every
        device (replicated when that dimension does not divide evenly), None replicates it,
        a jax Sharding is used as given; one entry stands for every argument."""
        jax = jax_modules()[0]
        given = (list(self.shardings) if isinstance(self.shardings, (list, tuple))
                 else [self.shardings] * len(tensors))
        if len(given) != len(tensors):
            raise ValueError("shardings: %d given for %d tensor arguments"
                             % (len(given), len(tensors)))
        mesh = self._mesh()
        count = mesh.devices.size
        split = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("batch"))
        whole = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec())
        found = []
        for x, sharding in zip(tensors, given):
            if sharding == "batch":
                divides = np.ndim(x) >= 1 and np.shape(x)[0] and np.shape(x)[0] % count == 0
                sharding = split if divides else whole
            elif sharding is None:
                sharding = whole
            found.append(sharding)
        return found


def _on_device(value: Any, device: Any) -> bool:
    """True when `value` is a JAX array on `device` alone (a device_put would not move it)."""
    devices = getattr(value, "devices", None)
    return devices is not None and getattr(value, "committed", False) and \
        devices() == {device}


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else ""


def check_placement(device: Any = None, shardings: Any = None) -> None:
    """Raises ValueError for a `device` JAX does not have, or a `shardings` entry that is not
    "batch", None or a jax Sharding (checked when the Function is made)."""
    resolve_device(device)
    entries = shardings if isinstance(shardings, (list, tuple)) else [shardings]
    for entry in entries:
        if isinstance(entry, str) and entry != "batch":
            raise ValueError("shardings: %r is not 'batch', None or a jax Sharding" % (entry,))


def _device_key(tensor: Any) -> tuple[Any, ...] | None:
    """The cache-key part of device tensors holding values of graph tensor `tensor`, when its
    shape is fully known, else None."""
    if tensor is None:
        return None
    shape = tensor._shape
    if shape is None or None in shape:
        return None
    return (tensor.dtype, tuple(shape), ON_DEVICE)


def to_device(value: Any, device: Any = None) -> DeviceTensor:
    """`value` (a tensor, numpy array or Python value) copied to a JAX device (`device`: a
    jax Device or a name as `resolve_device` takes, else JAX's default) as a device-resident
    tensor, which a JAX-backed Function then takes without another copy."""
    if isinstance(value, EagerTensor):
        array, dtype = value._value, value.dtype
    else:
        array, dtype = to_numpy(value)
    if dtype.kind not in _ARRAY_KINDS:
        raise TypeError("cannot place a %s tensor on a JAX device" % dtype.name)
    jax = jax_modules()[0]
    register_array_type(jax.Array)
    scope = jax.enable_x64(True) if dtype.name in _WIDE else contextlib.nullcontext()
    with scope:
        return DeviceTensor(jax.device_put(array, resolve_device(device)), dtype)


def compile(cf: Any) -> JaxCompiledGraph:  # noqa: A001 - the backend protocol's name
    """ConcreteFunction `cf` compiled with JAX now (see runtime.backends), with the
    Function's `device=` and `shardings=` options; raises Unsupported naming the op and the
    user's line when it cannot be lowered."""
    options = getattr(cf, "backend_options", None) or {}
    compiled = JaxCompiledGraph(cf.graph, cf.inputs, cf.outputs, cf.name,
                                device=options.get("device"),
                                shardings=options.get("shardings"),
                                report=cf.backend_report(), strict=cf._strict)
    compiled.compile_now()
    return compiled


def compile_graph(graph: Any, feeds: Sequence[Any], outputs: Sequence[Any],
                  name: str = "graph_fn", check_numerics: bool = False, device: Any = None,
                  shardings: Any = None) -> JaxCompiledGraph:
    """Compiles `graph` with JAX (lowered at its first call): see `JaxCompiledGraph`."""
    return JaxCompiledGraph(graph, feeds, outputs, name, check_numerics, device, shardings)


def export_stablehlo(concrete_function: Any) -> bytes:
    """The graph of `concrete_function` serialized through `jax.export` (StableHLO and its
    calling convention), for any XLA runtime; `jax.export.deserialize(data).call(*args)` runs
    it. Arguments: the tensor arguments in order (dimensions unknown in the trace are
    symbolic). Results: the outputs, then a bool scalar that is true where the numpy
    executor would have raised (a failed check: the results are then meaningless). Captured
    variables are exported with their current values as constants; a graph that takes a
    variable argument or assigns a variable, or that JAX cannot lower, raises ValueError
    naming the reason (the op and the user's line)."""
    jax = jax_modules()[0]
    cf = concrete_function
    try:
        compiled = JaxCompiledGraph(cf.graph, cf.inputs, cf.outputs, cf.name)
        if compiled._resource_feeds:
            raise Unsupported("it takes a variable argument (capture the variable instead)")
        if any(t is None for t in compiled.outputs):
            raise Unsupported("an output is None")
        state = {}
        for key, variable in compiled._variables(None).items():
            if variable._value is None:
                raise Unsupported("variable %s is not initialised" % variable.name)
            state[key] = np.asarray(variable._value)
        scope = jax.export.SymbolicScope()
        specs = []
        for position in compiled._tensor_feeds:
            t = compiled.feeds[position]
            if t._shape is None:
                raise Unsupported("argument %s has an unknown rank" % t.name)
            dims = ", ".join("d%d_%d" % (position, i) if d is None else str(d)
                             for i, d in enumerate(t._shape))
            shape = jax.export.symbolic_shape(dims, scope=scope) if dims else ()
            specs.append(jax.ShapeDtypeStruct(shape, t.dtype.np_dtype))

        def exported(*tensors: Any) -> tuple[Any, ...]:
            values, assigned, failed = compiled._lowered(list(tensors), state)
            if assigned:
                raise Unsupported("it assigns variables (a served model has no state)")
            return (*values, jax.numpy.zeros((), bool) if failed is None else failed)

        with compiled._scope():
            result = jax.export.export(jax.jit(exported))(*specs)
    except Unsupported as e:
        raise ValueError("cannot export %s to StableHLO: %s" % (cf.name, e.reason)) from e
    except Exception as e:  # noqa: BLE001 - what JAX refused, said in its words
        raise ValueError("cannot export %s to StableHLO: JAX: %s: %s"
                         % (cf.name, type(e).__name__, _first_line(e))) from e
    return bytes(result.serialize())
