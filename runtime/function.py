"""`Function`: a polymorphic traced callable, run from a cache of its traces.

A `Function` keeps a cache of ConcreteFunctions keyed by the call's signature (see
`runtime.signature`). On a miss it traces: it builds a `Graph` with a placeholder for every
tensor argument, calls the (optionally converted) Python function on placeholders and
records the outputs. Every later call with a matching key runs the compiled graph only.

    add = Function(lambda a, b: a + b)
    add(t1, t2)          # traces once for (float32, (2, 2)) x 2, then runs
    add(t3, t4)          # same key: runs the cached graph, no Python executed

The runtime knows nothing about the compiler: `converter`, when given, turns the Python
function into its converted form before tracing (autograph.function passes the compiler's).

One trace is a `ConcreteFunction` (runtime.concrete_function); placeholders, the traced
outputs and nested calls are made by runtime.tracing.
"""

from __future__ import annotations

import functools
import inspect
import threading
import time
import types
from collections.abc import Callable
from typing import Any

from runtime import backends, context, diagnostics, errors, tracebacks
from runtime import function_stats as stats_lib
from runtime import signature as sig
from runtime.concrete_function import ConcreteFunction, call_observers, recorded_call
from runtime.device_tensor import DeviceTensor, host_feeds
from runtime.fast_call import FastCall
from runtime.function_options import FunctionOptions
from runtime.graph import Graph
from runtime.operators import try_regions
from runtime.ops.call_ops import CALL_OP
from runtime.retracing import (
    MethodInstances,
    TraceEvent,
    TracingLog,
    definition_of,
    instance_reference,
)
from runtime.signature import TensorSpec, VariableSpec
from runtime.tensor import EagerTensor, SymbolicTensor
from runtime.tracing import (
    call_in_graph,
    check_fits_signature,
    feed_for_signature,
    incompatible_with_signature,
    make_inputs,
    record_outputs,
    traced_value,
)

__all__ = ["CALL_OP", "ConcreteFunction", "Function", "FunctionOptions", "TensorSpec",
           "VariableSpec", "function"]

_tapes = context.tapes  # the GradientTapes recording eager ops
# The cached call's hot path reads these module-level names (one lookup less than through
# their modules): the settings dict, the list of graphs being built and the call observers
# (mutated in place, never rebound) and the key function.
_settings = context._settings
_building = context.building
_make_key = sig.make_key
# (part, FastCall, its DeviceProgram): no device tensor's key part
_NO_DEVICE_CALL: tuple[Any, Any, Any] = (object(), None, None)
_new = object.__new__


class Function:
    """A Python function traced into graphs, one per input signature, and run from cache.

    Each call's results are tensors of their own: none shares memory with a constant of
    the graph, a captured tensor or a variable (writing into `result.numpy()` changes only
    that result). An argument returned unchanged (`def f(x): return x`) may still be the
    caller's array, as in TensorFlow."""

    __name__: str  # the Python function's, as functools.update_wrapper copies it

    def __init__(self, python_function: Callable[..., Any], *args: Any,
                 options: FunctionOptions | None = None, **kwargs: Any) -> None:
        """`Function(python_function, **options)`: the options are FunctionOptions' fields
        (input_signature, autograph, reduce_retracing, converter, name, jit_compile,
        backend, strict, device, shardings), or one FunctionOptions as `options=`."""
        if not callable(python_function):
            raise TypeError("function expects a callable as the function to trace, got %r "
                            "(%s)" % (python_function, type(python_function).__name__))
        if options is None:
            options = FunctionOptions(*args, **kwargs)
        elif args or kwargs:
            raise TypeError("Function takes its options either as one FunctionOptions "
                            "(options=) or as keywords, not both")
        self._options = options
        self._python_function = python_function
        self._converter = options.active_converter
        self._converted: Callable[..., Any] | None = None
        self._name: str = options.name or str(getattr(python_function, "__name__", "function"))
        self._signature = inspect.signature(python_function)
        self._params = [(p.name, p.kind, p.default is not p.empty, p.default)
                        for p in self._signature.parameters.values()]
        self._simple_arity = (len(self._params) if all(
            p[1] == inspect.Parameter.POSITIONAL_OR_KEYWORD for p in self._params) else -1)
        self._input_signature = options.input_signature
        # one spec (or tuple of specs) per parameter, as the canonical values come
        self._parameter_specs = _specs_per_parameter(self._input_signature, self._params)
        # the number of positional arguments a call takes the fast path with (-1: never)
        self._fast_arity = self._simple_arity if self._input_signature is None else -1
        self._cache: dict[sig.Key, ConcreteFunction] = {}
        # cache key -> the FastCall of the trace that key last ran (see runtime.fast_call):
        # what a call that needs nothing else runs
        self._fast_calls: dict[sig.Key, FastCall] = {}
        # (the key part of the last one-device-tensor call found there, its FastCall and the
        # FastCall's DeviceProgram), one attribute so that a thread never pairs one call's
        # part with another's record;
        # reset whenever `_fast_calls` changes
        self._last_device_call: tuple[Any, Any, Any] = _NO_DEVICE_CALL
        self._concrete: list[ConcreteFunction] = []
        # (the key a trace was made for, the trace), for the traces `_lookup` made, in order
        self._traced_keys: list[tuple[sig.Key, ConcreteFunction]] = []
        self._tracing_count = 0
        self._clock = stats_lib.CallClock()
        # Calls left until the next timed one: the call clock's one counter, kept here for
        # the cached call (the call count is derived from it, see function_stats.CallClock).
        self._until_sample = self._clock.period
        self._log = TracingLog(self._name, self._params, definition_of(python_function))
        self._method_instances = MethodInstances()  # a method's: see _bind_instance
        # Tracing holds it (re-entrant: a trace may call this Function again); a cached call
        # never takes it, it reads the cache dicts only.
        self._lock = threading.RLock()
        # id(instance) -> (reference to it, its Function)
        self._bound_instances: dict[int, tuple[Callable[[], Any], Function]] = {}
        # a method's Function: its instance, held weakly
        self._instance_ref: Callable[[], Any] | None = None
        functools.update_wrapper(self, python_function, updated=())

    # -- public API -------------------------------------------------------------------------
    @property
    def python_function(self) -> Callable[..., Any]:
        """The Python function traced; for a method reached through an instance, the method
        bound to that instance."""
        if self._instance_ref is None:
            return self._python_function
        return types.MethodType(self._python_function, self._instance())

    @property
    def options(self) -> FunctionOptions:
        """The options this Function was made with (validated, see FunctionOptions)."""
        return self._options

    @property
    def input_signature(self) -> tuple[Any, ...] | None:
        """The fixed input signature, or None."""
        return self._input_signature

    @property
    def jit_compile(self) -> bool | None:
        """The `jit_compile` option as given (None, True or False): True compiles each trace
        at once with the best compiled backend here (numba on CPU)."""
        return self._options.jit_compile

    @property
    def backend(self) -> str | None:
        """The backend asked for ("numpy", "numba", "jax", "auto"; None: the process default,
        see runtime.backends)."""
        return self._options.backend

    def _backend_request(self) -> tuple[str, bool]:
        """(the backend for a new trace, whether the user named it explicitly)."""
        backend = self._options.backend
        if self._options.jit_compile and backend in (None, "auto"):
            return backends.best_compiled(), True
        if backend is not None:
            return backend, True
        return backends.default(), False

    def experimental_get_tracing_count(self) -> int:
        """How many times this Function has traced its Python function."""
        return self._tracing_count

    def tracing_history(self) -> list[TraceEvent]:
        """Every trace so far, first to last, with the call that caused it and why."""
        return list(self._log.events)

    def stats(self, compare_eager: bool = False) -> stats_lib.FunctionStats:
        """Traces, trace+convert time, calls, mean call time (sampled). With
        `compare_eager=True` it also runs the Python function once eagerly on the first
        call's arguments (repeating its side effects) to say after how many calls the
        tracing has paid for itself."""
        return stats_lib.function_stats(self._name, self._tracing_count, self._log.events,
                                        self._clock, self._until_sample,
                                        self.python_function, compare_eager)

    def pretty_printed_concrete_signatures(self, verbose: bool = True) -> str:
        """Every trace's input parameters, output type and captures, as TensorFlow prints
        them (`verbose=False`: each trace's one-line function type); a Function with an
        input_signature lists that trace even before its first call."""
        if not self._concrete and self._input_signature is not None:
            self.get_concrete_function()
        return ("\n\n" if verbose else "\n").join(
            cf.pretty_printed_signature(verbose) for cf in self._concrete)

    def __repr__(self) -> str:
        return "<autograph Function %s>" % self._name

    def __get__(self, instance: Any, owner: type | None) -> Any:
        if instance is None:
            return self
        entry = self._bound_instances.get(id(instance))
        if entry is None or entry[0]() is not instance:
            entry = self._bind_instance(instance)
        return _BoundMethod(entry[1], instance)

    def _bind_instance(self, instance):
        """The (reference, Function) entry holding `instance`'s traces of this method: one
        Function per instance, found by the instance's identity (so unhashable instances,
        such as dataclasses with eq=True, trace once too). The entry holds the instance
        weakly where it can, and leaves the table when the instance dies."""
        with self._lock:
            key = id(instance)
            entry = self._bound_instances.get(key)
            if entry is not None and entry[0]() is instance:
                return entry
            method = self._python_function.__get__(instance, type(instance))
            bound = Function(method, options=self._options)
            ref = instance_reference(instance, self._bound_instances, key)
            if isinstance(method, types.MethodType) and method.__self__ is instance:
                bound._hold_instance(ref)
                bound._log.for_instance(self._method_instances, ref, type(instance).__name__)
            entry = self._bound_instances[key] = (ref, bound)
            return entry

    def _instance_gone(self) -> None:
        """This method's instance died: tells the method how many calls it served."""
        instances = self._log.instances
        if instances is not None:
            instances.gone(self._log.instance[0], self._clock.calls_made(self._until_sample))

    def _hold_instance(self, ref: Callable[[], Any]) -> None:
        """Makes this Function of a bound method keep its instance through `ref` only."""
        method = self._python_function
        assert isinstance(method, types.MethodType)
        self._python_function = method.__func__
        self._instance_ref = ref
        self.__wrapped__ = self._python_function
        self.__signature__ = self._signature  # inspect.signature: without `self`

    def _instance(self) -> Any:
        assert self._instance_ref is not None
        instance = self._instance_ref()
        if instance is None:
            raise ReferenceError("the instance that %s was bound to no longer exists"
                                 % self._name)
        return instance

    def get_concrete_function(self, *args: Any, **kwargs: Any) -> ConcreteFunction:
        """The trace for these arguments (values or TensorSpecs), tracing if needed."""
        try:
            if self._input_signature is not None and not args and not kwargs:
                args = self._input_signature
            values, bound = self._canonicalize(args, kwargs)
            if self._parameter_specs is not None:
                check_fits_signature(self._parameter_specs, values)
                return self._signature_concrete(values)
            key = sig.make_key(values)
            return self._cache.get(key) or self._lookup(key, values, bound)
        except Exception as e:
            tracebacks.filter_exception(e)
            raise

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # The one dispatcher (see runtime.fast_call): the fast path when the call needs
        # nothing but its trace's compiled program (this test is the only one that decides),
        # else the general path.
        try:
            until_sample = self._until_sample - 1
            if kwargs or len(args) != self._fast_arity or until_sample <= 0 or _building \
                    or _tapes or call_observers or _settings["run_functions_eagerly"]:
                return self._general_call(args, kwargs)
            kind = type(args[0]) if self._fast_arity == 1 else None
            if kind is DeviceTensor:  # (the commonest cached call on JAX, f(x), inline)
                arg = args[0]
                part = arg._key  # (one object per device tensor: the key's identity)
                last = self._last_device_call
                if part is last[0]:
                    fast, device = last[1], last[2]
                else:
                    fast = self._fast_calls.get((part,))
                    if fast is None:
                        return self._general_call(args, kwargs, (part,), [arg._array])
                    device = fast.device
                    self._last_device_call = (part, fast, device)
                self._until_sample = until_sample
                # (read once: a thread giving the program up sets it to None meanwhile)
                program = None if device is None else device.program
                if program is not None:
                    # (the program itself, no frame between: see fast_call.DeviceProgram;
                    # what it cannot serve alone, the record's run does, running it again)
                    try:
                        array = program(arg._array)
                    except Exception:  # noqa: BLE001 - the record's run gives up or raises
                        return fast.run([arg._array])
                    if type(array) is not tuple:
                        tensor = _new(DeviceTensor)  # (DeviceTensor(...) without its frame)
                        tensor._array = array
                        tensor.dtype = device.dtype
                        tensor._key = device.key
                        return tensor
                return fast.run([arg._array])
            if kind is EagerTensor:  # (make_key's first case, inline)
                value = args[0]._value
                feeds = [value]
                key = ((args[0].dtype, value.shape),)
            else:
                feeds = []
                key = _make_key(args, feeds)
            fast = self._fast_calls.get(key)
            if fast is None:
                return self._general_call(args, kwargs, key, feeds)
            self._until_sample = until_sample
            return fast.run(feeds)
        except Exception as e:  # costs nothing until something is raised (CPython 3.11+)
            tracebacks.filter_exception(e)
            raise

    # -- internals ---------------------------------------------------------------------------
    def _general_call(self, args: tuple[Any, ...], kwargs: dict[str, Any],
                      key: sig.Key | None = None, feeds: list[Any] | None = None) -> Any:
        """A call the fast path does not take: `key` and `feeds` are the call's when the
        dispatcher made them already. Keeps the trace's FastCall for the key after running
        it (see runtime.fast_call)."""
        if _settings["run_functions_eagerly"]:
            return self.python_function(*args, **kwargs)
        if kwargs or len(args) != self._simple_arity:
            values, bound = self._canonicalize(args, kwargs)
        else:
            values, bound = args, None
        until_sample = self._until_sample = self._until_sample - 1
        if self._input_signature is not None:
            return self._call_with_signature(values)
        if _building and context.current_graph() is not None:
            key = sig.make_key(values)
            return call_in_graph(self._cache.get(key) or self._lookup(
                key, values, bound, self._clock.calls_made(until_sample)), values)
        if key is None or feeds is None:
            feeds = []
            key = _make_key(values, feeds)
        cf = self._cache.get(key)
        if cf is None:
            cf = self._lookup(key, values, bound, self._clock.calls_made(until_sample), feeds)
        if _tapes:  # a GradientTape is recording: the call becomes one record on it
            return recorded_call(cf, feeds, values)
        # (a sampled call runs what the fast path runs; a call with observers runs
        # `_call_flat`, which tells them)
        fast = None if call_observers else self._fast_calls.get(key)
        if fast is None:
            result = self._run_or_time(cf._call_flat, feeds, until_sample)
            self._keep_fast_call(key, cf)
            return result
        return self._run_or_time(fast.run, feeds, until_sample)

    def _keep_fast_call(self, key: sig.Key, cf: ConcreteFunction) -> None:
        """Keeps the FastCall of `cf`, which ran a call with cache key `key`, for the next
        call with that key, when the key is cached for `cf` (a device array's key for a
        trace that takes host values is not) and `cf` has its record (after its first call)."""
        if self._cache.get(key) is cf:
            fast = cf.fast_call()
            if fast is not None:
                self._fast_calls[key] = fast
                self._last_device_call = _NO_DEVICE_CALL

    def _run_or_time(self, run: Callable[[list[Any]], Any], feeds: list[Any],
                     until_sample: int) -> Any:
        """`run(feeds)`, timed when the call is a sampled one (`until_sample`, the countdown
        after this call, reached 0), which starts the next sampling period."""
        if until_sample > 0:  # (not 0: a call on a tape or in a trace may skip 0)
            return run(feeds)
        self._until_sample = self._clock.next_period(self._until_sample)
        return self._clock.timed_call(run, feeds)

    def _canonicalize(self, args, kwargs):
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError("%s(): %s" % (self._name, e)) from None
        bound.apply_defaults()
        return list(bound.arguments.values()), bound

    def _python_callable(self):
        if self._converter is None:
            return self.python_function
        if self._converted is None:
            self._converted = self._converter(self._python_function)
        if self._instance_ref is None:
            return self._converted
        return self._converted.__get__(self._instance(), None)

    def _lookup(self, key, values, bound, call=None, feeds=None):
        """Finds a trace that accepts `key` (or relaxes one, or traces anew) and caches it.
        Under the lock, so that threads making the same first call trace once. `call`: the
        number of the call that asks (None: get_concrete_function). `feeds`: the call's."""
        if sig.holds_device(key):
            return self._lookup_device(key, values, bound, call, feeds)
        with self._lock:
            cf = self._cache.get(key)
            if cf is None:
                cf = self._lookup_locked(key, values, bound, call)
            return cf

    def _lookup_device(self, key, values, bound, call, feeds):
        """`_lookup` for a key holding device arrays (see runtime.signature, ON_DEVICE): the
        trace of the host call's key, which `key` is cached for only when it takes device
        arrays; when it does not, `feeds` (the call's, when given) get the arrays' numpy
        values instead."""
        cf = self._lookup(sig.host_key(key), values, bound, call)
        if cf.takes_device_arrays():
            self._cache[key] = cf
        elif feeds is not None:
            feeds[:] = host_feeds(feeds)
        return cf

    def _lookup_locked(self, key, values, bound, call):
        best = None
        for cf_key, cf in self._keyed():
            if sig.key_is_subtype(key, cf_key):
                best = cf
                break
        if best is None:
            trace_key = key
            if self._options.reduce_retracing:
                for cf_key, _ in self._keyed():
                    relaxed = sig.relax_key(key, cf_key)
                    if relaxed is not None:
                        trace_key = relaxed
                        break
            best = self._trace(values, bound, trace_key, call)
            self._cache[trace_key] = best
            self._traced_keys.append((trace_key, best))
        self._cache[key] = best
        return best

    def _keyed(self):
        """(the key it was traced for, trace), for each trace of the cache, first first."""
        return iter(self._traced_keys)

    def _bind_canonical(self, values):
        """Binds canonical `values` (one per parameter, as `_canonicalize` gives them) to
        the signature: keyword-only ones by name, `*args` and `**kwargs` spread out."""
        args, kwargs = [], {}
        for (name, kind, _, _), value in zip(self._params, values):
            if kind == inspect.Parameter.VAR_POSITIONAL:
                args.extend(value)
            elif kind == inspect.Parameter.VAR_KEYWORD:
                kwargs.update(value)
            elif kind == inspect.Parameter.KEYWORD_ONLY:
                kwargs[name] = value
            else:
                args.append(value)
        return self._signature.bind(*args, **kwargs)

    def _trace(self, values, bound, key, call=None):
        if bound is None:
            bound = self._bind_canonical(values)
        first = self._tracing_count == 0
        log = self._log
        reasons = log.reasons(key, values)
        if call is not None:
            self._clock.keep_inputs(bound.args, bound.kwargs)
        start = time.perf_counter()
        record = diagnostics.TraceRecord(self._name, first, log.reported)
        with log.tracing(key, values), diagnostics.tracing(record):
            if first:
                record.hold_frozen_values()
            cf = self._trace_once(values, bound, key, allow_variables=first)
            record.release_held(report=not cf.graph.created_variables)
            if cf.graph.created_variables:
                # TensorFlow's rule: variables only on the first trace. A second trace,
                # forbidding creation, proves the function does not create new variables on
                # every call.
                initializer = cf
                cf = self._trace_once(values, bound, key, allow_variables=False)
                cf._first_call = initializer
                cf._first_call_lock = threading.RLock()
        self._tracing_count += 1
        self._concrete.append(cf)
        log.record(key, values, reasons, call, cf.signature_text,
                   time.perf_counter() - start)
        return cf

    def _trace_once(self, values, bound, key, allow_variables):
        func = self._python_callable()
        graph = Graph(self._name)
        graph.variable_creation_allowed = allow_variables
        feeds: list[SymbolicTensor] = []
        with graph.as_default():
            new_values = [
                make_inputs(v, k, name, graph, feeds)
                for (name, _, _, _), v, k in zip(self._params, values, key)]
            for (name, _, _, _), value in zip(self._params, new_values):
                bound.arguments[name] = value
            with context.converter_scope(self._converter):
                try:
                    result = func(*bound.args, **bound.kwargs)
                except Exception as e:
                    cause = try_regions.staging_error_behind(e)
                    if cause is None:
                        raise
                    errors.add_note(cause, "(then, while it propagated: %s: %s)"
                                    % (type(e).__name__, str(e).splitlines()[0]))
                    raise cause from None
            flat_outputs, template, structured = record_outputs(result, graph)
        graph.inputs = list(feeds)
        graph.outputs = list(flat_outputs)
        traced_values = [traced_value(v, k, None if kind == inspect.Parameter.VAR_KEYWORD
                                      else name)
                         for (name, kind, _, _), v, k in zip(self._params, values, key)]
        cf = ConcreteFunction(self._name, graph, feeds, flat_outputs, template, structured,
                              self._params, traced_values,
                              check_numerics=context.numerics_checked())
        requested, explicit = self._backend_request()
        cf.backend_options = self._options.placement
        cf._set_backend(requested, explicit, self._options.strict)
        return cf

    # -- input_signature ----------------------------------------------------------------------
    def _signature_concrete(self, values):
        if not self._concrete:
            with self._lock:
                if not self._concrete:
                    assert self._parameter_specs is not None
                    specs = list(self._parameter_specs)
                    n = len(specs)
                    values = specs + list(values[n:])
                    key = sig.make_key(values)
                    cf = self._trace(values, self._bind_canonical(values), key)
                    self._cache[key] = cf
        return self._concrete[0]

    def _call_with_signature(self, values):
        specs = self._parameter_specs
        assert specs is not None
        n = len(specs)
        cf = self._signature_concrete(values)
        feeds: list[Any] = []
        try:
            for spec, value in zip(specs, values[:n]):
                feed_for_signature(spec, value, feeds)
        except (TypeError, ValueError):
            raise incompatible_with_signature(specs, values) from None
        for value, traced in zip(values[n:], cf._traced_values[n:]):
            cf._match("argument", value, traced, feeds)
        if context.building and context.current_graph() is not None:
            return call_in_graph(cf, list(values))
        if _tapes:  # a GradientTape is recording: the call becomes one record on it
            return recorded_call(cf, feeds, values)
        return self._run_or_time(cf._call_flat, feeds, self._until_sample)


def _specs_per_parameter(specs: Any, params: list[Any]) -> tuple[Any, ...] | None:
    """An input signature as one entry per parameter: a function with `*args` takes the
    specs after its positional parameters as one tuple, the value of its `*args` (as
    TensorFlow's input_signature covers the positional arguments, then `*args`)."""
    if specs is None:
        return None
    kinds = [kind for _, kind, _, _ in params]
    if inspect.Parameter.VAR_POSITIONAL not in kinds:
        return tuple(specs)
    count = kinds.index(inspect.Parameter.VAR_POSITIONAL)
    if len(specs) < count:
        return tuple(specs)  # (the call's check names what is missing)
    return tuple(specs[:count]) + (tuple(specs[count:]),)


class _BoundMethod(Function):
    """`instance.method` for a Function defined in a class. Like a Python bound method it is
    made on each access and holds the instance, so that `Model().f(x)` works; it hands calls
    to the instance's own Function (its traces), which holds the instance weakly so that the
    class's table of per-instance Functions keeps no instance alive. Everything else (tracing
    count, signatures, python_function, ...) reads that Function's state."""

    __slots__ = ("_function", "__self__")

    def __init__(self, function, instance):  # no Function.__init__: all state is `function`'s
        self._function = function
        self.__self__ = instance

    def __getattr__(self, name):
        return getattr(self._function, name)

    def __call__(self, *args, **kwargs):
        try:
            return self._function(*args, **kwargs)
        except Exception as e:
            tracebacks.filter_exception(e)
            raise

    def get_concrete_function(self, *args, **kwargs):
        """The trace for these arguments, tracing if needed (see Function)."""
        try:
            return self._function.get_concrete_function(*args, **kwargs)
        except Exception as e:
            tracebacks.filter_exception(e)
            raise

    def __get__(self, instance, owner):
        return self


def function(func: Callable[..., Any] | None = None, **options: Any) -> Any:
    """Decorator form of `Function`, with its options (FunctionOptions' fields, checked
    here): `@function` or `@function(...)`.

    Without a `converter` the function is traced as written (no conversion): this is the
    runtime's own decorator, for users of the runtime alone; `autograph.function` is the one
    that converts Python control flow on tensors first."""
    checked = FunctionOptions(**options)

    def decorate(f: Callable[..., Any]) -> Function:
        return Function(f, options=checked)
    if func is None:
        return decorate
    return decorate(func)
