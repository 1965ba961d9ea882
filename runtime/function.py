"""`Function` (a polymorphic traced callable) and `ConcreteFunction` (one trace of it).

A `Function` keeps a cache of ConcreteFunctions keyed by the call's signature (see
`runtime.signature`). On a miss it traces: it builds a `Graph` with a placeholder for every
tensor argument, calls the (optionally converted) Python function on placeholders and
records the outputs. Every later call with a matching key runs the compiled graph only.

    add = Function(lambda a, b: a + b)
    add(t1, t2)          # traces once for (float32, (2, 2)) x 2, then runs
    add(t3, t4)          # same key: runs the cached graph, no Python executed

The runtime knows nothing about the compiler: `converter`, when given, turns the Python
function into its converted form before tracing (autograph.function passes the compiler's).
"""

from __future__ import annotations

import functools
import inspect
import threading
import types
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from runtime import context, errors, executor, nest, tracebacks
from runtime import shape as shape_lib
from runtime import signature as sig
from runtime.graph import Graph
from runtime.ops import array_ops, common
from runtime.ops.call_ops import CALL_OP
from runtime.ops.registry import execute
from runtime.signature import TensorSpec, VariableSpec
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor, make_eager, to_numpy
from runtime.variables import GraphVariable, Variable

# -- ConcreteFunction ------------------------------------------------------------------------------


class ConcreteFunction:
    """One trace of a Function: a graph with fixed input signature, callable with tensors."""

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
        self._compiled: executor.CompiledGraph | None = None
        self._check_numerics = check_numerics
        self._first_call = None            # a trace to run once instead (variable initialisers)
        self._single_output = (len(output_template) == 1 and output_template[0][0] == "t"
                               and not nest.is_nested(structured_outputs))
        self._out_dtypes = [t.dtype for t in flat_outputs]
        self._trace_key: sig.Key | None = None  # set by the Function that traced it

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

    def _signature_text(self):
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

    def pretty_printed_signature(self) -> str:
        """The signature, its argument types and its return type, as TensorFlow prints it."""
        lines = [self._signature_text(), "  Args:"]
        has_args = False
        for (name, _, _, _), value in zip(self._params, self._traced_values):
            if not _is_python_value(value):
                lines.append("    %s: %s" % (name, sig.describe(value)))
                has_args = True
        if not has_args:
            lines.pop()
        lines.append("  Returns:")
        lines.append("    " + sig.describe(_describe_outputs(self.structured_outputs)))
        return "\n".join(lines)

    def __str__(self) -> str:
        return "ConcreteFunction " + self.pretty_printed_signature()

    def __repr__(self) -> str:
        return "<ConcreteFunction %s at 0x%X>" % (self._signature_text(), id(self))

    # -- calling ---------------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            try:
                values = self._bind(args, kwargs)
                feeds: list[Any] = []
                for (name, _, _, _), value, traced in zip(self._params, values,
                                                          self._traced_values):
                    self._match(name, value, traced, feeds)
            except TypeError:
                # TensorFlow also accepts the flat form: only the tensor arguments, in order
                # (Python and object arguments stay fixed to their traced values).
                if kwargs or len(args) != len(self._feeds) or not args:
                    raise
                feeds = self._flat_feeds(args)
            if _tapes:  # a GradientTape is recording: the call becomes one record on it
                return _recorded_call(self, feeds, (args, kwargs))
            return self._call_flat(feeds)
        except Exception as e:  # costs nothing until something is raised
            tracebacks.filter_exception(e)
            raise

    def _flat_feeds(self, args):
        specs = [leaf for leaf in nest.flatten(list(self._traced_values))
                 if isinstance(leaf, (TensorSpec, VariableSpec))]
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
                            % (self._signature_text(), len(positional), len(args)))
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
                                    % (self._signature_text(), key))
                extra[key] = value
            elif values[index] is not _MISSING:
                raise TypeError("%s got multiple values for argument %r"
                                % (self._signature_text(), key))
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
                                    % (self._signature_text(), params[i][0]))
        return values

    def _match(self, path, value, traced, feeds):
        if isinstance(traced, TensorSpec):
            feeds.append(self._check_tensor(path, value, traced))
        elif isinstance(traced, VariableSpec):
            if not isinstance(value, Variable) or value.dtype is not traced.dtype or \
                    not shape_lib.is_compatible(traced._shape, value._static_shape):
                raise errors.InvalidArgumentError(
                    "%s: argument %r was traced with a %s variable of shape %s, got %r"
                    % (self._signature_text(), path, traced.dtype.name,
                       shape_lib.to_string(traced._shape), value))
            feeds.append(value)
        elif isinstance(traced, (list, tuple, dict)):
            if type(value) is not type(traced) or len(value) != len(traced) or (
                    isinstance(traced, dict) and set(value) != set(traced)):
                raise TypeError("%s: argument %r was traced with the structure %r but was "
                                "called with %r" % (self._signature_text(), path, traced, value))
            if isinstance(traced, dict):
                for k in sorted(traced, key=repr):
                    self._match("%s[%r]" % (path, k), value[k], traced[k], feeds)
            else:
                for i, (v, t) in enumerate(zip(value, traced)):
                    self._match("%s[%d]" % (path, i), v, t, feeds)
        elif isinstance(traced, _Identity):
            if value is not traced.obj:
                raise TypeError("%s was traced with the object %r for %r but was called with "
                                "a different object %r" % (self._signature_text(), traced.obj,
                                                             path, value))
        elif type(value) is not type(traced) or value != traced:
            raise TypeError("ConcreteFunction %s was constructed with %s value %r in %s, but "
                            "was called with %s value %r"
                            % (self._signature_text(), type(traced).__name__, traced, path,
                               type(value).__name__, value))

    def _check_tensor(self, path, value, spec):
        if isinstance(value, Variable):
            value = value.read_value()
        if isinstance(value, EagerTensor):
            if value.dtype is not spec.dtype:
                raise errors.InvalidArgumentError(
                    "cannot compute %s as input %r was expected to be a %s tensor but is a %s "
                    "tensor" % (self.name, path, spec.dtype.name, value.dtype.name))
            if not shape_lib.is_compatible(spec._shape, value._value.shape):
                raise errors.InvalidArgumentError(
                    "cannot compute %s as input %r was expected to have shape %s but has shape "
                    "%s" % (self.name, path, shape_lib.to_string(spec._shape),
                            shape_lib.to_string(value._value.shape)))
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
        """The compiled graph's run function; with `residuals` (tensors of the graph), one
        that returns their values after the outputs."""
        if residuals:
            return self._compiled_with(tuple(residuals)).run
        if self._compiled is None:
            self._compiled = executor.compile_graph(self.graph, self._feeds, self.flat_outputs,
                                                    self.name, self._check_numerics)
        return self._compiled.run

    def _compiled_with(self, residuals):
        cache = self.__dict__.setdefault("_compiled_residuals", {})
        key = tuple(id(t) for t in residuals)
        found = cache.get(key)
        if found is None:
            found = cache[key] = executor.compile_graph(
                self.graph, self._feeds, list(self.flat_outputs) + list(residuals),
                self.name, self._check_numerics)
        return found

    @property
    def executor_source(self) -> str:
        """The Python source the executor generated for this graph (for inspection)."""
        self._compiled_run()
        assert self._compiled is not None
        return self._compiled.source

    def _call_flat(self, feeds):
        """Runs the graph on flat fed values (numpy arrays and variables)."""
        if self._first_call is not None:  # (inline: this is the cached call's hot path)
            return self._take_first_call()._call_flat(feeds)
        run = self._compiled.run if self._compiled is not None else self._compiled_run()
        try:
            values = run(*feeds)
        except Exception as e:  # translate to the user's terms, see _translate
            raise self._translate(e) from None
        return self._result(values)

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
            return make_eager(values[0], self._out_dtypes[0])
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
        """The error to raise for `error`, raised by the graph as it ran: named after the
        failing node (inside the trace a call node calls, when that is where it failed) and
        the user's lines that created it. When tracebacks are filtered, its traceback ends
        with frames at those lines (see runtime.tracebacks), followed by the user's own
        frames that ran inside the node (a py_function's)."""
        compiled = compiled or self._compiled
        nodes = _failing_nodes(compiled, error.__traceback__) if compiled else []
        if not nodes:
            return error
        owner = nodes[-2].attrs["f"].name if len(nodes) > 1 else self.name
        locations = [node.location for node in nodes if node.location is not None]
        translated = _in_node_terms(error, nodes[-1], owner, locations)
        if locations and tracebacks.filtering_enabled():
            tb = tracebacks.filter_traceback(error.__traceback__)
            for location in reversed(locations):
                tb = tracebacks.location_traceback(location, tb)
            translated.with_traceback(tb)
        return translated


def _failing_nodes(compiled, tb):
    """The node of graph `compiled` whose line raised in traceback `tb`, then, while that
    node calls another trace (PartitionedCall), the node of that trace that raised."""
    nodes = []
    while compiled is not None:
        node = compiled.node_for_traceback(tb)
        if node is None:
            break
        nodes.append(node)
        compiled = None
        if node.op is CALL_OP:
            callee, residuals = node.attrs["f"], tuple(node.attrs.get("residuals", ()))
            compiled = callee._compiled_with(residuals) if residuals else callee._compiled
    return nodes


def _in_node_terms(error, node, owner, locations):
    """`error` named after `node` of the trace of `owner`, created at `locations`."""
    where = ""
    if locations:
        where = "\n\nin user code:\n  %s" % "\n  ".join(str(loc) for loc in locations)
    prefix = "graph node %r (%s) of %s failed" % (node.name, node.op.name, owner)
    if isinstance(error, errors.OpError):
        return type(error)("%s: %s%s" % (prefix, error.message, where), node.name)
    if isinstance(error, (ValueError, IndexError, ZeroDivisionError, FloatingPointError,
                          OverflowError)) or (isinstance(error, TypeError) and
                                              node.op.name != "EagerPyFunc"):
        return errors.InvalidArgumentError("%s: %s%s" % (prefix, error, where), node.name)
    errors.add_note(error, "(raised inside %s%s)" % (prefix.replace(" failed", ""), where))
    return error


class _Identity:
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


def _is_python_value(value):
    if isinstance(value, (TensorSpec, VariableSpec, _Identity)):
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


# -- Function ---------------------------------------------------------------------------------


def _check_signature_is_a_sequence(input_signature):
    """Raises TypeError unless `input_signature` is a list or tuple (of TensorSpecs, one per
    argument): a bare TensorSpec is the common mistake."""
    if isinstance(input_signature, (TensorSpec, VariableSpec)):
        raise TypeError("input_signature must be a list or tuple of TensorSpecs, one per "
                        "argument; got a single %r: wrap it in a list, "
                        "input_signature=[%r]" % (input_signature, input_signature))
    if not isinstance(input_signature, (list, tuple)):
        raise TypeError("input_signature must be a list or tuple of TensorSpecs, one per "
                        "argument; got %r (%s)" % (input_signature,
                                                   type(input_signature).__name__))



class Function:
    """A Python function traced into graphs, one per input signature, and run from cache."""

    def __init__(self, python_function: Callable[..., Any],
                 input_signature: Sequence[Any] | None = None, autograph: bool = True,
                 reduce_retracing: bool = False,
                 converter: Callable[[Callable[..., Any]], Callable[..., Any]] | None = None,
                 name: str | None = None, jit_compile: bool | None = None) -> None:
        if not callable(python_function):
            raise TypeError("function expects a callable as the function to trace, got %r "
                            "(%s)" % (python_function, type(python_function).__name__))
        self._python_function = python_function
        self._autograph = bool(autograph)
        self._converter = converter if autograph else None
        self._converted: Callable[..., Any] | None = None
        self._reduce_retracing = bool(reduce_retracing)
        self._name: str = name or str(getattr(python_function, "__name__", "function"))
        self._signature = inspect.signature(python_function)
        self._params = [(p.name, p.kind, p.default is not p.empty, p.default)
                        for p in self._signature.parameters.values()]
        self._simple_arity = (len(self._params) if all(
            p[1] == inspect.Parameter.POSITIONAL_OR_KEYWORD for p in self._params) else -1)
        self._cache: dict[sig.Key, ConcreteFunction] = {}
        self._concrete: list[ConcreteFunction] = []
        self._tracing_count = 0
        # Tracing holds it (re-entrant: a trace may call this Function again); a cached call
        # never takes it, it reads the cache dict only.
        self._lock = threading.RLock()
        # id(instance) -> (reference to it, its Function)
        self._bound_instances: dict[int, tuple[Callable[[], Any], Function]] = {}
        # a method's Function: its instance, held weakly
        self._instance_ref: Callable[[], Any] | None = None
        self._jit_compile = jit_compile
        self._input_signature: tuple[Any, ...] | None = None
        if input_signature is not None:
            _check_signature_is_a_sequence(input_signature)
            self._input_signature = tuple(input_signature)
            for leaf in nest.flatten(list(self._input_signature)):
                if not isinstance(leaf, TensorSpec):
                    raise TypeError("input_signature must contain only TensorSpecs, got %r"
                                    % (leaf,))
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
    def input_signature(self) -> tuple[Any, ...] | None:
        """The fixed input signature, or None."""
        return self._input_signature

    @property
    def jit_compile(self) -> bool | None:
        """The `jit_compile` option as given (None, True or False). Recorded for compiled
        backends; none exists yet, so graphs run on the numpy executor either way."""
        return self._jit_compile

    def experimental_get_tracing_count(self) -> int:
        """How many times this Function has traced its Python function."""
        return self._tracing_count

    def pretty_printed_concrete_signatures(self, verbose: bool = True) -> str:
        """Every trace's signature, argument types and return type."""
        return "\n\n".join(cf.pretty_printed_signature() for cf in self._concrete)

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
            bound = Function(method, self._input_signature, self._autograph,
                             self._reduce_retracing, self._converter, self._name,
                             self._jit_compile)
            ref = _reference(instance, self._bound_instances, key)
            if isinstance(method, types.MethodType) and method.__self__ is instance:
                bound._hold_instance(ref)
            entry = self._bound_instances[key] = (ref, bound)
            return entry

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
            if self._input_signature is not None:
                return self._signature_concrete(values)
            key = sig.make_key(values)
            return self._cache.get(key) or self._lookup(key, values, bound)
        except Exception as e:
            tracebacks.filter_exception(e)
            raise

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            if context._settings["run_functions_eagerly"]:
                return self.python_function(*args, **kwargs)
            if kwargs or len(args) != self._simple_arity:
                values, bound = self._canonicalize(args, kwargs)
            else:
                values, bound = args, None
            if self._input_signature is not None:
                return self._call_with_signature(values)
            if context.building and context.current_graph() is not None:
                key = sig.make_key(values)
                return _call_in_graph(self._cache.get(key) or self._lookup(key, values, bound),
                                      values)
            feeds: list[Any] = []
            key = sig.make_key(values, feeds)
            cf = self._cache.get(key)
            if cf is None:
                cf = self._lookup(key, values, bound)
            if _tapes:  # a GradientTape is recording: the call becomes one record on it
                return _recorded_call(cf, feeds, values)
            return cf._call_flat(feeds)
        except Exception as e:  # costs nothing until something is raised (CPython 3.11+)
            tracebacks.filter_exception(e)
            raise

    # -- internals ---------------------------------------------------------------------------
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

    def _lookup(self, key, values, bound):
        """Finds a trace that accepts `key` (or relaxes one, or traces anew) and caches it.
        Under the lock, so that threads making the same first call trace once."""
        with self._lock:
            cf = self._cache.get(key)
            if cf is None:
                cf = self._lookup_locked(key, values, bound)
            return cf

    def _lookup_locked(self, key, values, bound):
        best = None
        for cf_key, cf in self._keyed():
            if sig.key_is_subtype(key, cf_key):
                best = cf
                break
        if best is None:
            trace_key = key
            if self._reduce_retracing:
                for cf_key, _ in self._keyed():
                    relaxed = sig.relax_key(key, cf_key)
                    if relaxed is not None:
                        trace_key = relaxed
                        break
            best = self._trace(values, bound, trace_key)
            self._cache[trace_key] = best
        self._cache[key] = best
        return best

    def _keyed(self):
        seen = set()
        for cf_key, cf in self._cache.items():
            if id(cf) not in seen:
                seen.add(id(cf))
                yield cf._trace_key, cf

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

    def _trace(self, values, bound, key):
        if bound is None:
            bound = self._bind_canonical(values)
        first = self._tracing_count == 0
        cf = self._trace_once(values, bound, key, allow_variables=first)
        if cf.graph.created_variables:
            # TensorFlow's rule: variables only on the first trace. A second trace, forbidding
            # creation, proves the function does not create new variables on every call.
            initializer = cf
            cf = self._trace_once(values, bound, key, allow_variables=False)
            cf._first_call = initializer
        self._tracing_count += 1
        self._concrete.append(cf)
        return cf

    def _trace_once(self, values, bound, key, allow_variables):
        func = self._python_callable()
        graph = Graph(self._name)
        graph.variable_creation_allowed = allow_variables
        feeds: list[SymbolicTensor] = []
        with graph.as_default():
            new_values = [
                _make_inputs(v, k, name, graph, feeds)
                for (name, _, _, _), v, k in zip(self._params, values, key)]
            for (name, _, _, _), value in zip(self._params, new_values):
                bound.arguments[name] = value
            with context.converter_scope(self._converter):
                result = func(*bound.args, **bound.kwargs)
            flat_outputs, template, structured = _record_outputs(result, graph)
        graph.inputs = list(feeds)
        graph.outputs = list(flat_outputs)
        traced_values = [_traced_value(v, k, name)
                         for (name, _, _, _), v, k in zip(self._params, values, key)]
        cf = ConcreteFunction(self._name, graph, feeds, flat_outputs, template, structured,
                              self._params, traced_values,
                              check_numerics=_numerics_checked())
        cf._trace_key = key
        return cf

    # -- input_signature ----------------------------------------------------------------------
    def _signature_concrete(self, values):
        if not self._concrete:
            with self._lock:
                if not self._concrete:
                    assert self._input_signature is not None
                    specs = list(self._input_signature)
                    n = len(specs)
                    values = specs + list(values[n:])
                    key = sig.make_key(values)
                    cf = self._trace(values, self._bind_canonical(values), key)
                    self._cache[key] = cf
        return self._concrete[0]

    def _call_with_signature(self, values):
        specs = self._input_signature
        assert specs is not None
        n = len(specs)
        cf = self._signature_concrete(values)
        feeds: list[Any] = []
        try:
            for spec, value in zip(specs, values[:n]):
                _feed_for_signature(spec, value, feeds)
        except (TypeError, ValueError):
            raise TypeError(
                "Python inputs incompatible with input_signature:\n  inputs: (\n    %s)\n  "
                "input_signature: (\n    %s)" % (",\n    ".join(str(v) for v in values[:n]),
                                                 ",\n    ".join(repr(s) for s in specs))
            ) from None
        for value, traced in zip(values[n:], cf._traced_values[n:]):
            cf._match("argument", value, traced, feeds)
        if context.building and context.current_graph() is not None:
            return _call_in_graph(cf, list(values))
        if _tapes:  # a GradientTape is recording: the call becomes one record on it
            return _recorded_call(cf, feeds, values)
        return cf._call_flat(feeds)


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


def _reference(instance, table, key):
    """A weak reference to `instance` whose death removes entry `key` of `table` (unless the
    entry holds another reference by then); for an instance that cannot be weakly
    referenced, a callable that returns it (held for the table's lifetime)."""
    def forget(ref):
        entry = table.get(key)
        if entry is not None and entry[0] is ref:
            del table[key]
    try:
        return weakref.ref(instance, forget)
    except TypeError:
        return lambda: instance


_tapes = context.tapes  # the GradientTapes recording eager ops


def _recorded_call(cf, feeds, args):
    """Runs `cf` on `feeds` and records the call on the recording tapes, whose gradient
    then runs `cf`'s gradient function. The tapes (runtime.gradients, which builds on this
    module) know how: see GradientTape.record_function_call."""
    return _tapes[-1].record_function_call(cf, feeds, args)


def _numerics_checked():
    return context._settings.get("check_numerics", False)


def _feed_for_signature(spec, value, feeds):
    if isinstance(spec, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(spec):
            raise TypeError("structure mismatch")
        for s, v in zip(spec, value):
            _feed_for_signature(s, v, feeds)
        return
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            raise TypeError("structure mismatch")
        for k in sorted(spec, key=repr):
            _feed_for_signature(spec[k], value[k], feeds)
        return
    if isinstance(value, Variable):
        value = value.read_value()
    if isinstance(value, Tensor):
        if value.dtype is not spec.dtype or not shape_lib.is_compatible(
                spec._shape, value._shape_tuple()):
            raise TypeError("incompatible")
        feeds.append(value._value if isinstance(value, EagerTensor) else value)
        return
    array, _ = to_numpy(value, spec.dtype)
    if not shape_lib.is_compatible(spec._shape, array.shape):
        raise TypeError("incompatible")
    feeds.append(array)


def _make_inputs(value, key, name, graph, feeds):
    """Replaces tensor-like leaves of an argument with placeholders (recorded in `feeds`)."""
    if nest.is_composite(value):
        return value._nest_rebuild([_make_inputs(c, k, name, graph, feeds)
                                    for c, k in zip(value._nest_components(), key[3])])
    if isinstance(value, (list, tuple)) and not isinstance(value, str):
        children = [_make_inputs(v, k, name, graph, feeds) for v, k in zip(value, key[1])]
        if hasattr(type(value), "_fields"):
            return type(value)(*children)
        return type(value)(children)
    if isinstance(value, dict):
        keys = key[1]
        rebuilt = {k: _make_inputs(value[k], kk, name, graph, feeds)
                   for k, kk in zip(keys, key[2])}
        return type(value)((k, rebuilt[k]) for k in value) if type(value) is not dict else {
            k: rebuilt[k] for k in value}
    if isinstance(value, Variable):
        placeholder = graph.add_placeholder(name, sig.dtypes.resource, ())
        feeds.append(placeholder)
        variable = GraphVariable(placeholder, value)
        graph.argument_variables[id(placeholder)] = variable  # for GradientTape
        return variable
    if sig.is_tensor_like(value):
        dtype, shape = key
        placeholder = graph.add_placeholder(name, dtype, shape)
        feeds.append(placeholder)
        return placeholder
    return value


def _traced_value(value, key, name):
    """What a trace remembers of an argument: specs for tensors, the value for Python data."""
    if nest.is_composite(value):
        return value._nest_rebuild([_traced_value(c, k, name)
                                    for c, k in zip(value._nest_components(), key[3])])
    if isinstance(value, (list, tuple)):
        children = [_traced_value(v, k, name) for v, k in zip(value, key[1])]
        if hasattr(type(value), "_fields"):
            return type(value)(*children)
        return type(value)(children)
    if isinstance(value, dict):
        return {k: _traced_value(value[k], kk, name) for k, kk in zip(key[1], key[2])}
    if isinstance(value, Variable):
        return VariableSpec(value._static_shape, value.dtype, name)
    if sig.is_tensor_like(value):
        return TensorSpec(key[1], key[0], name)
    if key[0] == "id":
        return _Identity(value)
    return value


def _collect_graph_feeds(values, feeds):
    for value in nest.flatten(list(values)):
        if isinstance(value, (Tensor, Variable)):
            feeds.append(value._handle() if isinstance(value, Variable) else value)
        elif isinstance(value, np.ndarray):
            feeds.append(common.convert_to_tensor(value))


def _call_in_graph(cf, values):
    """Calls concrete function `cf` from inside another trace: adds a PartitionedCall node."""
    feeds: list[Any] = []
    _collect_graph_feeds(values, feeds)
    outs = execute(CALL_OP, feeds, {"f": cf}, name="PartitionedCall")
    flat = []
    for kind, item in cf._output_template:
        flat.append(outs[item] if kind == "t" else item)
    return nest.pack_sequence_as(cf.structured_outputs, flat)


def _record_outputs(result, graph):
    """Turns the traced function's result into graph outputs through Identity nodes."""
    flat = nest.flatten(result)
    outputs: list[SymbolicTensor] = []
    template: list[tuple[str, Any]] = []
    structured = []
    for leaf in flat:
        tensor = None
        if isinstance(leaf, Variable):
            tensor = leaf.read_value()
        elif isinstance(leaf, Tensor):
            tensor = graph.capture(leaf)
        elif isinstance(leaf, (int, float, bool, np.ndarray, np.generic, str, bytes)):
            tensor = common.convert_to_tensor(leaf)
        if tensor is None:
            template.append(("py", leaf))
            structured.append(leaf)
            continue
        identity = array_ops.identity(tensor, name="Identity")
        template.append(("t", len(outputs)))
        outputs.append(identity)
        structured.append(identity)
    return outputs, template, nest.pack_sequence_as(result, structured)


def function(func: Callable[..., Any] | None = None,
             input_signature: Sequence[Any] | None = None, autograph: bool = True,
             reduce_retracing: bool = False,
             converter: Callable[[Callable[..., Any]], Callable[..., Any]] | None = None,
             jit_compile: bool | None = None, **unused_options: Any) -> Any:
    """Decorator form of `Function` (usable with or without arguments)."""
    def decorate(f: Callable[..., Any]) -> Function:
        return Function(f, input_signature=input_signature, autograph=autograph,
                        reduce_retracing=reduce_retracing, converter=converter,
                        jit_compile=jit_compile)
    if func is None:
        return decorate
    return decorate(func)
