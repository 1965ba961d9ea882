"""Why a Function traced again, and what to do about it.

Each trace of a `Function` is a `TraceEvent` in its `TracingLog`: the reasons are found by
comparing the call's cache key (`runtime.signature.make_key`) with the keys of earlier traces,
parameter by parameter, so they read as the user wrote the call:

    `step`: Python int 3 -> 4
    `x`: shape (2,) -> (3,)
    `obj`: a new instance of Model (objects are keyed by identity)

A Function that traced on each of its last `RETRACE_WINDOW` calls, or more often than the
`retrace_budget` setting, warns once (`RetracingWarning`) at the call site with a fix to paste.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import weakref
from collections.abc import Iterator
from typing import Any

from runtime import diagnostics, errors, trace_type
from runtime import shape as shape_lib
from runtime import signature as sig
from runtime.dtypes import DType

RETRACE_WINDOW = 5  # traces in as many consecutive calls that warn


@dataclasses.dataclass(frozen=True)
class TraceEvent:
    """One trace of a Function: its number (1 for the first), the call that caused it (its
    number among the Function's calls; None for get_concrete_function), why it traced, the
    traced signature, and how long tracing (and converting) took."""

    number: int
    call: int | None
    reasons: tuple[str, ...]
    signature: str
    seconds: float

    def __str__(self) -> str:
        cause = "call %d" % self.call if self.call is not None else "get_concrete_function"
        return "trace %d (%s, %.1f ms): %s" % (self.number, cause, self.seconds * 1e3,
                                               "; ".join(self.reasons))


def _is_tensor_key(part: Any) -> bool:
    return isinstance(part, tuple) and len(part) == 2 and isinstance(part[0], DType)


def _is_variable_key(part: Any) -> bool:
    return isinstance(part, tuple) and len(part) == 3 and part[0] == "var"


def _is_scalar_key(part: Any) -> bool:
    return isinstance(part, tuple) and len(part) == 2 and part[0] in sig.SCALAR_TYPES


def _is_identity_key(part: Any) -> bool:
    return isinstance(part, tuple) and len(part) == 2 and part[0] == "id"


def _is_sequence_key(part: Any) -> bool:
    return (isinstance(part, tuple) and len(part) == 2 and isinstance(part[0], type)
            and issubclass(part[0], (list, tuple)) and isinstance(part[1], tuple))


def _describe(part: Any, value: Any = None) -> str:
    """A key part in words (`value`: the argument it is the key of, when known)."""
    if _is_tensor_key(part):
        return "%s tensor of shape %s" % (part[0].name, shape_lib.to_string(part[1]))
    if _is_variable_key(part):
        return "%s variable of shape %s" % (part[1].name, shape_lib.to_string(part[2]))
    if _is_scalar_key(part):
        return "Python %s %r" % (part[0].__name__, part[1])
    if trace_type.is_key_part(part):
        return "an object of trace type %r" % (part[1],)
    if sig.is_fed_object_key(part):
        spec_of = getattr(value, "_fed_object_spec", None)
        return repr(spec_of()) if spec_of is not None else "an object keyed by its spec"
    if _is_identity_key(part):
        kind = value.kind if isinstance(value, _Kind) else type(value)
        return "a %s object" % kind.__name__ if value is not None else "an object"
    if _is_sequence_key(part):
        return "a %s of %d" % (part[0].__name__, len(part[1]))
    if isinstance(part, tuple) and part and part[0] is dict:
        return "a dict with keys %s" % (list(part[1]),)
    return "a %s" % (part[1].__name__ if len(part) > 1 and isinstance(part[1], type) else
                     "composite value")


def _changes(path: str, old: Any, new: Any, value: Any, old_value: Any = None) -> list[str]:
    """How key part `new` (of argument `value`) differs from `old` (of `old_value`, when
    known), at `path`."""
    if old == new:
        return []
    if _is_tensor_key(old) and _is_tensor_key(new):
        if old[0] is not new[0]:
            return ["`%s`: dtype %s -> %s" % (path, old[0].name, new[0].name)]
        return ["`%s`: shape %s -> %s" % (path, shape_lib.to_string(old[1]),
                                          shape_lib.to_string(new[1]))]
    if _is_scalar_key(old) and _is_scalar_key(new) and old[0] is new[0]:
        return ["`%s`: Python %s %r -> %r" % (path, new[0].__name__, old[1], new[1])]
    if _is_identity_key(old) and _is_identity_key(new):
        return ["`%s`: a new instance of %s (objects are keyed by identity)"
                % (path, type(value).__name__)]
    if _is_sequence_key(old) and _is_sequence_key(new) and old[0] is new[0] and \
            len(old[1]) == len(new[1]) and isinstance(value, (list, tuple)):
        found = []
        for i, (o, n, v) in enumerate(zip(old[1], new[1], value)):
            found.extend(_changes("%s[%d]" % (path, i), o, n, v))
        return found
    return ["`%s`: %s -> %s" % (path, _describe(old, old_value), _describe(new, value))]


def _tensor_key_text(part: Any, with_dtype: bool) -> str:
    shape = shape_lib.to_string(part[1])
    return "%s %s" % (part[0].name, shape) if with_dtype else shape


def _argument_text(param: Any, blamed: str) -> str:
    """How a call passes parameter `param` (name, kind, ...), as a tensor when `blamed`."""
    name, kind = param[0], param[1]
    value = "tf.constant(%s)" % name if name == blamed else name
    if kind is inspect.Parameter.KEYWORD_ONLY:
        return "%s=%s" % (name, value)
    if kind is inspect.Parameter.VAR_POSITIONAL:
        return "*" + name
    if kind is inspect.Parameter.VAR_KEYWORD:
        return "**" + name
    return value


def definition_of(python_function: Any) -> str:
    """'file:line' of the function's def, or its name when it has no code."""
    code = getattr(getattr(python_function, "__func__", python_function), "__code__", None)
    if code is None:
        return getattr(python_function, "__qualname__", repr(python_function))
    return "%s:%d" % (code.co_filename, code.co_firstlineno)


class _Kind:
    """Stands for an argument of type `kind` in messages (the argument itself is not kept)."""

    __slots__ = ("kind",)

    def __init__(self, kind: type) -> None:
        self.kind = kind


def _general_shape(shapes: list[Any]) -> Any:
    """The most specific shape all of `shapes` fit: differing dims become None."""
    if any(s is None for s in shapes) or len({len(s) for s in shapes}) != 1:
        return None
    return tuple(dims[0] if len(set(dims)) == 1 else None for dims in zip(*shapes))


class MethodInstances:
    """The instances a method traced for (its Function per instance): a method that traced
    for RETRACE_WINDOW instances in a row, each called once and gone before the next came,
    remakes its object on every step (`Model().f(x)` in a loop) and warns once. Objects that
    stay alive (an ensemble) or serve several calls (a sweep of models) never count."""

    def __init__(self) -> None:
        # [reference to the instance, calls it served (None while it lives)], the last
        # RETRACE_WINDOW instances traced for
        self.entries: list[list[Any]] = []
        self.warned = False

    def traced_for(self, reference: Any) -> bool:
        """Notes a first trace for the instance `reference` returns; whether to warn."""
        self.entries = self.entries[1 - RETRACE_WINDOW:] + [[reference, None]]
        if self.warned or len(self.entries) < RETRACE_WINDOW:
            return False
        self.warned = all(calls == 1 for _, calls in self.entries[:-1])
        return self.warned

    def gone(self, reference: Any, calls: int) -> None:
        """Notes that the instance of `reference` died after serving `calls` calls."""
        for entry in self.entries:
            if entry[0] is reference:
                entry[1] = calls


class TracingLog:
    """A Function's traces (`TraceEvent`s), the keys they were made for, the numbers of the
    calls that traced, and what its trace-time checks already reported."""

    def __init__(self, function_name: str, params: list[Any],
                 definition: str) -> None:
        self.function_name = function_name
        self.params = params
        self.definition = definition  # "file:line" of the def
        self.events: list[TraceEvent] = []
        self.keys: list[Any] = []
        self.kinds: list[tuple[Any, ...]] = []  # per trace: an instance of each argument's type
        self.traced_calls: list[int] = []
        self.reported: set[Any] = set()  # see diagnostics.TraceRecord
        self.in_progress: list[Any] = []  # the keys of the traces under way, outermost first
        self.warned = False
        # A method's Function for one instance: the method's instances, this one's
        # reference and class name (see `for_instance`).
        self.instances: MethodInstances | None = None
        self.instance: tuple[Any, str] = (None, "")

    def for_instance(self, instances: MethodInstances, reference: Any,
                     class_name: str) -> None:
        """Makes this the log of a method's Function for the instance `reference` returns
        (of class `class_name`), one of `instances`: its first trace, when the method traced
        for other instances before, is "`self`: a new instance"."""
        self.instances = instances
        self.instance = (reference, class_name)

    def reasons(self, key: Any, values: list[Any]) -> tuple[str, ...]:
        """Why `key` needs a trace: its differences from the nearest earlier key."""
        if not self.keys:
            if self.instances is not None and self.instances.entries:
                return ("`self`: a new instance of %s (each instance traces its own graphs)"
                        % self.instance[1],)
            return ("first trace",)
        best: list[str] | None = None
        for old, kinds in zip(reversed(self.keys), reversed(self.kinds)):
            found: list[str] = []
            for (name, _, _, _), o, n, v, k in zip(self.params, old, key, values, kinds):
                found.extend(_changes(name, o, n, v, k))
            if best is None or len(found) < len(best):
                best = found
        return tuple(best or ["a key no earlier trace accepts"])

    @contextlib.contextmanager
    def tracing(self, key: Any, values: list[Any]) -> Iterator[None]:
        """Marks a trace for `key` (of arguments `values`) as under way. A trace for a key
        already under way (the function calls itself while it is traced, with arguments of
        the same key) raises StagingError at once, naming the call's line: each such call
        would trace the function again, without end."""
        if key in self.in_progress:
            raise errors.StagingError(self._recursion_text(key, values))
        self.in_progress.append(key)
        try:
            yield
        finally:
            self.in_progress.pop()

    def _recursion_text(self, key: Any, values: list[Any]) -> str:
        arguments = ", ".join("`%s`: %s" % (name, _describe(part, value))
                              for (name, _, _, _), part, value in zip(self.params, key, values))
        return errors.with_user_location(
            "%s (defined at %s) calls itself while it is being traced for arguments of the "
            "same signature (%s): each such call would trace it again, without end. A "
            "Function cannot recurse on tensor values: write the recursion as a loop (a "
            "`while` on tensors), or recurse in a plain Python function that it calls"
            % (self.function_name, self.definition, arguments or "no arguments"),
            errors.user_location(4))

    def record(self, key: Any, values: list[Any], reasons: tuple[str, ...], call: int | None,
               signature: str, seconds: float) -> TraceEvent:
        """Adds a trace; logs a retrace at INFO and warns when the Function keeps tracing."""
        event = TraceEvent(len(self.events) + 1, call, reasons, signature, seconds)
        self.events.append(event)
        self.keys.append(key)
        self.kinds.append(tuple(_Kind(type(v)) for v in values))
        if call is not None:
            self.traced_calls.append(call)
        if event.number > 1:
            diagnostics.logger.info("%s (%s) traced again: %s", self.function_name,
                                    self.definition, "; ".join(reasons))
        if not self.warned and event.number > 1 and self._keeps_tracing(call):
            self.warned = True
            errors.warn(self.warning_text(values), diagnostics.RetracingWarning)
        if event.number == 1 and self.instances is not None and \
                self.instances.traced_for(self.instance[0]):
            errors.warn(self._new_instances_text(), diagnostics.RetracingWarning)
        return event

    def _new_instances_text(self) -> str:
        location = errors.user_location(3)
        where = "%s:%d: " % (location.filename, location.lineno) if location else ""
        return ("%s%s (defined at %s) traced for %d new instances of %s in a row, each gone "
                "before the next came: `self`: a new instance on every call, and each "
                "instance traces its own graphs.\nFix: make the object once and call its "
                "method on every step, or pass the tensors that change as arguments"
                % (where, self.function_name, self.definition, RETRACE_WINDOW,
                   self.instance[1]))

    def _keeps_tracing(self, call: int | None) -> bool:
        budget = diagnostics.setting("retrace_budget")
        if budget is not None and len(self.events) > budget:
            return True
        calls = self.traced_calls
        return call is not None and len(calls) >= RETRACE_WINDOW and \
            calls[-RETRACE_WINDOW] == call - RETRACE_WINDOW + 1

    def warning_text(self, values: list[Any]) -> str:
        """The RetracingWarning's message: where, how often, which parameter, the keys seen,
        and the fixes."""
        location = errors.user_location(3)
        where = "%s:%d: " % (location.filename, location.lineno) if location else ""
        budget = diagnostics.setting("retrace_budget")
        last = list(self.events[-RETRACE_WINDOW:])
        if budget is not None and len(self.events) > budget:
            how = "traced %d times, more than retrace_budget=%d" % (len(self.events), budget)
        else:
            how = "traced on each of its last %d calls" % len(last)
        name = self._blamed_parameter()
        lines = ["%s%s (defined at %s) %s; the last retrace: %s." % (
            where, self.function_name, self.definition, how,
            "; ".join(self.events[-1].reasons))]
        if name is not None:
            lines.append("Keys seen for `%s`: %s." % (name, ", ".join(self._keys_seen(name))))
            lines.extend(self._fixes(name))
        else:
            lines.append("Fix: pass arguments that change between calls as tensors, or use "
                         "reduce_retracing=True.")
        return "\n".join(lines)

    def _blamed_parameter(self) -> str | None:
        for event in reversed(self.events[1:]):
            for reason in event.reasons:
                if reason.startswith("`"):
                    return reason[1:].split("`", 1)[0].split("[", 1)[0]
        return None

    def _index(self, name: str) -> int:
        return [p[0] for p in self.params].index(name)

    def _keys_seen(self, name: str) -> list[str]:
        index = self._index(name)
        dtypes = len({key[index][0] for key in self.keys if _is_tensor_key(key[index])}) > 1
        seen: list[str] = []
        for key in self.keys:
            part = key[index]
            text = (repr(part[1]) if _is_scalar_key(part) else _tensor_key_text(part, dtypes)
                    if _is_tensor_key(part) else _describe(part))
            if text not in seen:
                seen.append(text)
        return seen

    def _fixes(self, name: str) -> list[str]:
        index = self._index(name)
        parts = [key[index] for key in self.keys]
        if all(_is_scalar_key(p) and p[0] in (int, float, bool) for p in parts):
            call = ", ".join(_argument_text(param, name) for param in self.params)
            return ["Fix: pass it as a tensor, so that one trace serves every value: "
                    "%s(%s)" % (self.function_name, call)]
        fixes = []
        if all(_is_tensor_key(p) for p in parts) and len({p[0] for p in parts}) > 1:
            fixes.append("Fix: cast `%s` to one dtype before the call, e.g. "
                         "tf.cast(%s, tf.%s): every dtype is a trace of its own"
                         % (name, name, parts[0][0].name))
        specs = self._signature_from_keys()
        if specs is not None:
            fixes.append("Fix: give the Function an input_signature with None for the "
                          "dimensions that change: input_signature=[%s]" % ", ".join(specs))
        if all(_is_tensor_key(p) for p in parts) and len({p[0] for p in parts}) == 1:
            fixes.append("Fix: %sdecorate it with reduce_retracing=True (shapes that differ "
                         "are relaxed to None dimensions)" % ("or " if specs else ""))
        if all(_is_identity_key(p) for p in parts):
            fixes.append("Fix: pass the same object on every call, or pass the tensors it "
                         "holds as arguments")
        return fixes or ["Fix: pass `%s` as a tensor, or keep it the same between calls"
                         % name]

    def _signature_from_keys(self) -> list[str] | None:
        """`tf.TensorSpec(...)` texts, one per parameter, covering every key seen; None when
        a parameter is not a tensor of one dtype."""
        specs = []
        for index in range(len(self.params)):
            parts = [key[index] for key in self.keys]
            if not all(_is_tensor_key(p) for p in parts) or len({p[0] for p in parts}) != 1:
                return None
            shape = _general_shape([p[1] for p in parts])
            dims = "None" if shape is None else "[%s]" % ", ".join(str(d) for d in shape)
            specs.append("tf.TensorSpec(%s, tf.%s)" % (dims, parts[0][0].name))
        return specs


def instance_reference(instance: Any, table: dict[Any, Any], key: Any) -> Any:
    """A weak reference to `instance` (bound to a Function's method) whose death removes
    entry `key`, a (reference, Function) pair, of `table` and tells that Function
    (`_instance_gone()`), unless the entry holds another reference by then; for an instance
    that cannot be weakly referenced, a callable that returns it (held for the table's
    lifetime)."""
    def forget(ref):
        entry = table.get(key)
        if entry is not None and entry[0] is ref:
            del table[key]
            entry[1]._instance_gone()
    try:
        return weakref.ref(instance, forget)
    except TypeError:
        return lambda: instance
