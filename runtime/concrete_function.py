"""`ConcreteFunction`: one trace of a `Function`, a graph with a fixed input signature.

Calling it binds the arguments to the trace's signature, feeds the tensors to the compiled
graph (`runtime.executor`) and packs the outputs back into the traced structure. Errors
raised while the graph runs are named after the graph node (and the user's line) that
failed.
"""

from __future__ import annotations

import inspect
from typing import Any

from runtime import backends, context, errors, executor, graph_errors, nest, tracebacks
from runtime import shape as shape_lib
from runtime.backends import promotion
from runtime.composite.base import CompositeSpec
from runtime.device_tensor import DeviceTensor
from runtime.fast_call import FastCall
from runtime.function_type import FunctionType
from runtime.graph import Graph
from runtime.signature import FedObjectSpec, TensorSpec, VariableSpec
from runtime.tensor import EagerTensor, SymbolicTensor, make_eager, to_numpy
from runtime.trace_type import TraceType, traced_as
from runtime.variables import Variable


class Identity:
    """A traced argument keyed by object identity (kept alive by the trace that uses it)."""

    __slots__ = ("obj",)

    def __init__(self, obj):
        self.obj = obj

    def __repr__(self):
        return repr(self.obj)


class _Missing:
    def __repr__(self):
        return "<missing>"


_MISSING = _Missing()
_NUMBER_KINDS = ("int", "float", "bool")


def _is_python_value(value):
    if isinstance(value, (TensorSpec, VariableSpec, Identity, TraceType)):
        return False
    if isinstance(value, (list, tuple, dict)):
        return all(_is_python_value(v) for v in nest.flatten(value))
    return True


def _describe_outputs(structured):
    def spec(leaf):
        if isinstance(leaf, SymbolicTensor):
            return TensorSpec(leaf._shape, leaf.dtype)
        return leaf
    if nest.is_nested(structured):
        return nest.map_structure(spec, structured)
    return spec(structured)


tapes = context.tapes  # the GradientTapes recording eager ops
# Called with each ConcreteFunction that runs, while any is installed (tf.summary.trace_on
# collects the graphs of the functions called).
call_observers: list[Any] = []


def recorded_call(cf, feeds, args):
    """Runs `cf` on `feeds` and records the call on the recording tapes, whose gradient
    then runs `cf`'s gradient function. The tapes (runtime.gradients, which builds on this
    module) know how: see GradientTape.record_function_call."""
    return tapes[-1].record_function_call(cf, feeds, args)



class ConcreteFunction:
    """One trace of a Function: a graph with fixed input signature, callable with tensors.

    A call's results never share memory with the graph's constants, captured tensors or
    variables (see `executor.compile_graph`, `owned`); an argument returned unchanged may
    be the caller's array, as in TensorFlow."""

    def __init__(self, name: str, graph: Graph, feeds: list[SymbolicTensor],
                 flat_outputs: list[SymbolicTensor], output_template: list[tuple[str, Any]],
                 structured_outputs: Any, params: list[tuple[str, Any, bool, Any]],
                 traced_values: list[Any], check_numerics: bool = False) -> None:
        self.name = name
        self.graph = graph
        self._feeds = feeds
        self.flat_outputs = flat_outputs
        self._output_template = output_template
        self.structured_outputs = structured_outputs
        self._params = params              # [(name, inspect kind, has_default, default)]
        self._traced_values = traced_values  # canonical values, tensors replaced by specs
        self._compiled: Any = None  # an executor.CompiledGraph, or a backend's compiled graph
        self._check_numerics = check_numerics
        self._first_call = None            # a trace to run once instead (variable initialisers)
        self._single_output = (len(output_template) == 1 and output_template[0][0] == "t"
                               and not nest.is_nested(structured_outputs))
        self._out_dtypes = [t.dtype for t in flat_outputs]
        # the numpy scalar type a rank-0 output comes as (None: not a number), which needs
        # no conversion (see _result)
        self._out_scalar_types = [t.dtype.np_dtype.type if t.dtype.kind in _NUMBER_KINDS
                                  else None for t in flat_outputs]
        self._report = backends.BackendReport("numpy", False)
        self._strict = False
        self.backend_options: dict[str, Any] = {}  # device=, shardings= (JAX)
        self._fast: FastCall | None = None  # see fast_call
        # the "auto" backend's compile of this trace in the background (a threading.Thread),
        # once started (runtime.backends.promotion)
        self.promotion: Any = None

    # -- backend ---------------------------------------------------------------------------
    def _set_backend(self, requested: str, explicit: bool, strict: bool) -> None:
        """Records the backend asked for (by the Function that traced it); a compiled one
        compiles now, synchronously (see runtime.backends)."""
        self._report = backends.BackendReport(requested, explicit)
        self._strict = strict
        if requested in backends.BACKENDS:
            self._compiled_run()

    @property
    def backend(self) -> str:
        """What runs this trace now: "numpy" (the executor), "numba" or "jax" ("numpy" again
        after "auto" demoted a numba kernel that ran slower than the executor)."""
        return self._report.running

    def backend_report(self) -> backends.BackendReport:
        """What was asked, what runs it now, the compile time, what "auto" did (promotion,
        demotion) and why the executor runs it if it does (see BackendReport)."""
        return self._report

    # -- signature -------------------------------------------------------------------------
    @property
    def structured_input_signature(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """(positional argument specs or values, keyword-only argument specs or values)."""
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for (name, kind, _, _), value in zip(self._params, self._traced_values):
            if kind == inspect.Parameter.KEYWORD_ONLY:
                kwargs[name] = value
            elif kind == inspect.Parameter.VAR_POSITIONAL:
                args.extend(value)
            elif kind == inspect.Parameter.VAR_KEYWORD:
                kwargs.update(value)
            else:
                args.append(value)
        return tuple(args), kwargs

    @property
    def captured_inputs(self) -> list[Any]:
        """The outside tensors and variables this trace captured."""
        return self.graph.captured_inputs

    @property
    def inputs(self) -> list[SymbolicTensor]:
        """The placeholder tensors fed by each call (tensor and variable arguments)."""
        return list(self._feeds)

    @property
    def outputs(self) -> list[SymbolicTensor]:
        """The graph tensors returned, flattened."""
        return list(self.flat_outputs)

    @property
    def variables(self) -> list[Variable]:
        """The variables this trace captured."""
        return [c.external for c in self.graph.captures if isinstance(c.external, Variable)]

    @property
    def signature_text(self) -> str:
        """The call this trace stands for, one line: `pow(a, b=2)` (Python values shown)."""
        parts = []
        for (name, kind, _, _), value in zip(self._params, self._traced_values):
            if kind == inspect.Parameter.VAR_POSITIONAL:
                parts.append("*" + name)
            elif kind == inspect.Parameter.VAR_KEYWORD:
                parts.append("**" + name)
            elif _is_python_value(value):
                parts.append("%s=%r" % (name, value))
            else:
                parts.append(name)
        return "%s(%s)" % (self.name, ", ".join(parts))

    @property
    def function_type(self) -> FunctionType:
        """The trace's parameter types, output type and captures (TensorFlow's
        `FunctionType`); `str()` gives `(a: TensorSpec(...)) -> TensorSpec(...)`."""
        return FunctionType.of_trace(self._params, self._traced_values,
                                     _describe_outputs(self.structured_outputs),
                                     self.captured_inputs)

    @property
    def inference_fn(self) -> AtomicFunction:
        """The graph alone, called with the flat tensor inputs (TensorFlow's
        `AtomicFunction`)."""
        return AtomicFunction(self)

    def pretty_printed_signature(self, verbose: bool = True) -> str:
        """The input parameters, output type and captures as TensorFlow prints them
        (`verbose=False`: the one-line `function_type`)."""
        if not verbose:
            return str(self.function_type)
        return self.function_type.pretty_printed()

    def __str__(self) -> str:
        return "ConcreteFunction " + self.pretty_printed_signature()

    def __repr__(self) -> str:
        return "<ConcreteFunction %s at 0x%X>" % (self.function_type, id(self))

    # -- calling ---------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            try:
                feeds = self.match_arguments(args, kwargs)
            except TypeError:
                # TensorFlow also accepts the flat form: only the tensor arguments, in order
                # (Python and object arguments stay fixed to their traced values).
                if kwargs or len(args) != len(self._feeds) or not args:
                    raise
                feeds = self._flat_feeds(args)
            return self.call_with_feeds(feeds, args, kwargs)
        except Exception as e:  # costs nothing until something is raised
            tracebacks.filter_exception(e)
            raise

    def match_arguments(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        """The values a call with `args`/`kwargs` feeds to the graph's inputs, in order;
        TypeError (another structure or Python value) or InvalidArgumentError (a tensor of
        another dtype or shape) when the call does not match this trace's signature."""
        values = self._bind(args, kwargs)
        feeds: list[Any] = []
        for (name, _, _, _), value, traced in zip(self._params, values, self._traced_values):
            self._match(name, value, traced, feeds)
        return feeds

    def call_with_feeds(self, feeds: list[Any], args: tuple[Any, ...],
                        kwargs: dict[str, Any]) -> Any:
        """Runs the graph on `feeds` (from match_arguments) and returns the structured
        outputs; under a recording GradientTape the call is one record on it (`args` and
        `kwargs` are the call's own, kept for its gradient)."""
        if tapes:
            return recorded_call(self, feeds, (args, kwargs))
        return self._call_flat(feeds)

    def _flat_feeds(self, args):
        specs = [leaf for leaf in nest.flatten(list(self._traced_values))
                 if isinstance(leaf, (TensorSpec, VariableSpec, FedObjectSpec))]
        feeds: list[Any] = []
        for arg, placeholder, spec in zip(args, self._feeds, specs):
            self._match(placeholder.node.name, arg, spec, feeds)
        return feeds

    def _bind(self, args, kwargs):
        params = self._params
        values: list[Any] = [_MISSING] * len(params)
        positional = [i for i, p in enumerate(params) if p[1] in (
            inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        var_positional = next((i for i, p in enumerate(params)
                               if p[1] == inspect.Parameter.VAR_POSITIONAL), None)
        var_keyword = next((i for i, p in enumerate(params)
                            if p[1] == inspect.Parameter.VAR_KEYWORD), None)
        if len(args) > len(positional) and var_positional is None:
            raise TypeError("%s takes %d positional arguments but %d were given"
                            % (self.signature_text, len(positional), len(args)))
        for i, arg in zip(positional, args):
            values[i] = arg
        if var_positional is not None:
            values[var_positional] = tuple(args[len(positional):])
        extra = {}
        for key, value in kwargs.items():
            index = next((i for i, p in enumerate(params) if p[0] == key and p[1] not in (
                inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD,
                inspect.Parameter.POSITIONAL_ONLY)), None)
            if index is None:
                if var_keyword is None:
                    raise TypeError("%s got an unexpected keyword argument %r"
                                    % (self.signature_text, key))
                extra[key] = value
            elif values[index] is not _MISSING:
                raise TypeError("%s got multiple values for argument %r"
                                % (self.signature_text, key))
            else:
                values[index] = value
        if var_keyword is not None:
            values[var_keyword] = extra
        for i, value in enumerate(values):
            if value is _MISSING:
                traced = self._traced_values[i]
                if _is_python_value(traced):
                    values[i] = traced
                elif params[i][2]:  # a tensor default: fed like a given argument
                    values[i] = params[i][3]
                else:
                    raise TypeError("%s missing required argument %r"
                                    % (self.signature_text, params[i][0]))
        return values

    def _match(self, path, value, traced, feeds):
        if isinstance(traced, TensorSpec):
            feeds.append(self._check_tensor(path, value, traced))
        elif isinstance(traced, VariableSpec):
            if not isinstance(value, Variable) or value.dtype is not traced.dtype or \
                    not shape_lib.is_compatible(traced._shape, value._static_shape):
                raise errors.InvalidArgumentError(
                    "%s: argument %r was traced with a %s variable of shape %s, got %r"
                    % (self.signature_text, path, traced.dtype.name,
                       shape_lib.to_string(traced._shape), value))
            feeds.append(value)
        elif isinstance(traced, (list, tuple, dict)):
            if not nest.same_container_type(value, traced) or len(value) != len(traced) or (
                    isinstance(traced, dict) and set(value) != set(traced)):
                raise TypeError("%s: argument %r was traced with the structure %r but was "
                                "called with %r" % (self.signature_text, path, traced, value))
            if isinstance(traced, dict):
                for k in sorted(traced, key=repr):
                    self._match("%s[%r]" % (path, k), value[k], traced[k], feeds)
            else:
                for i, (v, t) in enumerate(zip(value, traced)):
                    self._match("%s[%d]" % (path, i), v, t, feeds)
        elif isinstance(traced, CompositeSpec):  # a SparseTensorSpec, RaggedTensorSpec
            if not traced.is_compatible_with(value):
                raise TypeError("%s: argument %r was traced with %r but was called with %r"
                                % (self.signature_text, path, traced, value))
            for i, (v, t) in enumerate(zip(value._nest_components(),
                                           traced._nest_components())):
                self._match("%s<component %d>" % (path, i), v, t, feeds)
        elif isinstance(traced, FedObjectSpec):
            if not traced.is_compatible_with(value):
                raise TypeError("%s: argument %r was traced with %r but was called with %r"
                                % (self.signature_text, path, traced, value))
            feeds.append(value)
        elif isinstance(traced, TraceType):
            if not traced_as(value, traced):
                raise TypeError("%s was traced with an argument %r of trace type %r but was "
                                "called with %r, whose trace type is not a subtype of it"
                                % (self.signature_text, path, traced, value))
        elif isinstance(traced, Identity):
            if value is not traced.obj:
                raise TypeError("%s was traced with the object %r for %r but was called with "
                                "a different object %r" % (self.signature_text, traced.obj,
                                                             path, value))
        elif type(value) is not type(traced) or value != traced:
            raise TypeError("ConcreteFunction %s was constructed with %s value %r in %s, but "
                            "was called with %s value %r"
                            % (self.signature_text, type(traced).__name__, traced, path,
                               type(value).__name__, value))

    def _check_tensor(self, path, value, spec):
        if isinstance(value, Variable):
            value = value.read_value()
        if isinstance(value, EagerTensor):
            if value.dtype is not spec.dtype:
                raise errors.InvalidArgumentError(
                    "cannot compute %s as input %r was expected to be a %s tensor but is a %s "
                    "tensor" % (self.name, path, spec.dtype.name, value.dtype.name))
            if not shape_lib.is_compatible(spec._shape, value._shape_tuple()):
                raise errors.InvalidArgumentError(
                    "cannot compute %s as input %r was expected to have shape %s but has shape "
                    "%s" % (self.name, path, shape_lib.to_string(spec._shape),
                            shape_lib.to_string(value._shape_tuple())))
            if type(value) is DeviceTensor and self.takes_device_arrays():
                return value._array
            return value._value
        if isinstance(value, SymbolicTensor):
            raise TypeError("a symbolic tensor (%s) cannot be passed to a concrete function "
                            "outside a trace" % value.name)
        try:
            array, _ = to_numpy(value, spec.dtype)
        except TypeError as e:
            raise errors.InvalidArgumentError(
                "cannot compute %s: input %r: %s" % (self.name, path, e)) from None
        if not shape_lib.is_compatible(spec._shape, array.shape):
            raise errors.InvalidArgumentError(
                "cannot compute %s as input %r was expected to have shape %s but has shape %s"
                % (self.name, path, shape_lib.to_string(spec._shape),
                   shape_lib.to_string(array.shape)))
        return array

    def _compiled_run(self, residuals=()):
        """The compiled graph's run function, which returns numpy values (a device backend's
        `run` returns device-resident tensors, its `host_run` numpy); with `residuals`
        (tensors of the graph), one that returns their values after the outputs."""
        if residuals:
            return self._compiled_with(tuple(residuals)).run
        if self._compiled is None:
            compiled = None
            requested = self._report.requested
            if requested in backends.BACKENDS and not self._check_numerics:
                compiled = backends.compile_with(requested, self, self._report, self._strict)
            if compiled is None:
                compiled = executor.compile_graph(self.graph, self._feeds, self.flat_outputs,
                                                  self.name, self._check_numerics)
                if requested == "auto" and not self._check_numerics:
                    compiled = promotion.watch(self, compiled)
            self._compiled = compiled
        return getattr(self._compiled, "host_run", self._compiled.run)

    def swap_compiled(self, compiled: Any) -> None:
        """Runs this trace's next calls on `compiled`: the "auto" backend's promotion to a
        numba kernel, its timed trial, or the executor again (runtime.backends.promotion);
        None: compile it again at the next call (a loaded saved model's check compile).
        A call in flight finishes on the graph it started with; the trace's cached call
        (`_run_compiled`) reads the graph at each call."""
        self._compiled = compiled

    def takes_device_arrays(self) -> bool:
        """True when calls may feed device arrays (jax.Array): its backend (JAX) takes them."""
        self._compiled_run()
        return self._first_call is None and getattr(self._compiled, "takes_device_arrays", False)

    def _compiled_with(self, residuals):
        cache = self.__dict__.setdefault("_compiled_residuals", {})
        key = tuple(id(t) for t in residuals)
        found = cache.get(key)
        if found is None:  # (residuals only feed gradients: not copied when they are state)
            found = cache[key] = executor.compile_graph(
                self.graph, self._feeds, list(self.flat_outputs) + list(residuals),
                self.name, self._check_numerics, owned=len(self.flat_outputs))
        return found

    @property
    def executor_source(self) -> str:
        """The Python source the numpy executor generates for this graph (for inspection),
        whichever backend runs it."""
        self._compiled_run()
        compiled = self._compiled
        # a compiled backend runs it (numba's kernel also comes wrapped in a CompiledGraph)
        if self._report.running != "numpy" or not isinstance(compiled, executor.CompiledGraph):
            compiled = executor.compile_graph(self.graph, self._feeds, self.flat_outputs,
                                              self.name, self._check_numerics)
        return compiled.source

    @property
    def backend_source(self) -> str:
        """The source of what runs this graph now: the numba kernel's module, say, or the
        executor's Python."""
        self._compiled_run()
        assert self._compiled is not None
        return self._compiled.source

    def _call_flat(self, feeds):
        """Runs the graph on flat fed values (numpy arrays and variables): the general path
        (the first call's variable initialisation, call observers, the first compile)."""
        if self._first_call is not None:
            return self._call_initialising(feeds)
        if call_observers:
            for observe in call_observers:
                observe(self)
        if self._compiled is None:
            self._compiled_run()
        return self._run_compiled(feeds)

    def _run_compiled(self, feeds: list[Any]) -> Any:
        """The compiled graph's result for `feeds`, packed: `_call_flat` once the first call
        ran and the graph is compiled (what this trace's FastCall runs, unless its backend
        offers a run of its own). The compiled graph is read at each call: "auto" swaps it."""
        try:
            values = self._compiled.run(*feeds)
        except Exception as e:  # translate to the user's terms, see _translate
            raise self._translate(e) from None
        if self._single_output:  # _result's first cases, inline
            value = values[0]
            kind = type(value)
            if kind is self._out_scalar_types[0]:
                return EagerTensor(value, self._out_dtypes[0])
            if kind is DeviceTensor:
                return value
        return self._result(values)

    def fast_call(self) -> FastCall | None:
        """The record of this trace's cached calls (see runtime.fast_call), decided once, at
        the first request after the first call ran; None before that. The compiled graph
        is asked first (`fast_call(general)`, a backend's own run, or None) where the result
        is one tensor (a backend's run returns that tensor: a trace returning `[x]`, say,
        packs its output into a list)."""
        fast = self._fast
        if fast is None and self._first_call is None and self._compiled is not None:
            # (not for "auto": promotion replaces the compiled graph, which _run_compiled reads)
            offer = getattr(self._compiled, "fast_call", None) if self._single_output and \
                self._report.requested in backends.BACKENDS else None
            fast = None if offer is None else offer(self._call_flat)
            if fast is None:
                fast = FastCall(self._run_compiled)
            self._fast = fast
        return fast

    _first_call_lock: Any = None  # held while the first call runs (see _call_initialising)

    def _call_initialising(self, feeds):
        """The first call runs the trace that initialises the variables it created, once;
        threads calling meanwhile wait for it, since this trace reads those variables. (The
        thread running it may call it again, from a host call: that runs the initialising
        trace again, whose initialisations happen once.)"""
        with self._first_call_lock:
            first = self._first_call
            if first is None:  # another thread ran it while this one waited
                return self._call_flat(feeds)
            try:
                return first._call_flat(feeds)
            finally:
                self._first_call = None

    def _take_first_call(self):
        """The trace this call must run instead (the variable-initialising one, once), or
        this function."""
        first = self._first_call
        if first is None:
            return self
        self._first_call = None
        return first

    def _call_flat_with(self, feeds, residuals):
        """`_call_flat` that also returns the values of `residuals` (tensors of its graph);
        see `_take_first_call` for the trace to call it on."""
        compiled = self._compiled_with(tuple(residuals))
        try:
            values = compiled.run(*feeds)
        except Exception as e:
            raise self._translate(e, compiled) from None
        n = len(self.flat_outputs)
        return self._result(values[:n]), values[n:]

    def _result(self, values):
        if self._single_output:
            value = values[0]
            if type(value) is self._out_scalar_types[0]:  # (the cached call's hot path)
                return EagerTensor(value, self._out_dtypes[0])
            return make_eager(value, self._out_dtypes[0])
        return self._pack(values)

    def _pack(self, values):
        flat = []
        for kind, item in self._output_template:
            if kind == "t":
                flat.append(make_eager(values[item], self._out_dtypes[item]))
            else:
                flat.append(item)
        return nest.pack_sequence_as(self.structured_outputs, flat)

    def _translate(self, error, compiled=None):
        """The error to raise for `error`, raised by the graph as it ran (see
        runtime.graph_errors)."""
        return graph_errors.translate(error, compiled or self._compiled, self.name)


class AtomicFunction:
    """A trace's graph called with its flat inputs only (the tensors and variables fed, in
    order), with no Python arguments to bind: `ConcreteFunction.inference_fn`."""

    def __init__(self, concrete: ConcreteFunction) -> None:
        self._concrete = concrete
        self.name = "__inference_%s" % concrete.name

    @property
    def function_type(self) -> FunctionType:
        """The type of the trace this graph comes from."""
        return self._concrete.function_type

    def __call__(self, *flat_inputs: Any) -> Any:
        concrete = self._concrete
        if len(flat_inputs) != len(concrete._feeds):
            raise TypeError("%s takes %d flat inputs (%s), got %d"
                            % (self.name, len(concrete._feeds), concrete.function_type,
                               len(flat_inputs)))
        return concrete.call_with_feeds(concrete._flat_feeds(flat_inputs), flat_inputs, {})

    def __str__(self) -> str:
        return "<AtomicFunction> %s%s" % (self.name, self.function_type)

    def __repr__(self) -> str:
        return "<AtomicFunction %s at 0x%X>" % (self.name, id(self))


def fed_specs(signature: Any) -> list[Any]:
    """The spec of each graph input that a call matching `signature` (a trace's structured
    arguments) feeds, in feed order: a TensorSpec, VariableSpec or FedObjectSpec each, walked
    as `ConcreteFunction._match` walks the call's values (dicts by sorted key, composite
    tensors by component); Python values and identities feed nothing."""
    found: list[Any] = []

    def walk(traced: Any) -> None:
        if isinstance(traced, (TensorSpec, VariableSpec, FedObjectSpec)):
            found.append(traced)
        elif isinstance(traced, dict):
            for k in sorted(traced, key=repr):
                walk(traced[k])
        elif isinstance(traced, (list, tuple)):
            for t in traced:
                walk(t)
        elif isinstance(traced, CompositeSpec):
            for t in traced._nest_components():
                walk(t)

    walk(signature)
    return found
