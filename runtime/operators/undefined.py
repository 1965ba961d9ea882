"""Markers for variables that have no value yet, or may have none at run time.

Converted code initialises a variable that is assigned inside a control-flow statement but
not before it with `Undefined('name')`, so that the statement's state functions can read it
(and `del name` becomes `name = ag__.del_(name, 'name')`). Using the marker as a value raises
the error plain Python would raise.

Staged control flow that assigns a variable on some run-time paths only (one branch of an
`if` on a tensor, a loop on a tensor that may run zero times) makes it a `MaybeUndefined`:
its value plus a bool tensor saying whether it is defined. The reads the compiler's analysis
finds may be undefined go through `ld`, which adds the run-time check:

    for i in tf.range(n):            sq = MaybeUndefined('sq', <While output>, <flag output>)
        sq = i * i           ->      return ag__.ld(sq)  # CheckDefined(flag): raises
    return sq                                            # UndefinedValueError when n <= 0
"""

from typing import Any

from runtime import context, errors, reserved_names
from runtime.operators import try_regions
from runtime.operators.deferred_errors import DeferredError
from runtime.ops import common, io_ops


def _check_defined(defined, symbol_name, location):
    try_regions.note_run_time_check(
        "local variable '%s'%s, read in the `try`, may be unassigned when the graph runs"
        % (symbol_name, " (%s:%d)" % (location.filename, location.lineno) if location else ""),
        "Assign '%s' on every path before it is read" % symbol_name, location)
    io_ops.check_defined(defined, symbol_name, location)


class UndefinedRead(DeferredError, UnboundLocalError):
    """Plain Python's error for reading an unassigned variable, raised while tracing a branch
    or loop body of staged control flow: the staging operator that traces it catches it and
    makes that branch or body raise when it runs instead (it may never run; see
    runtime.operators.deferred_errors)."""

    def __init__(self, message: str, symbol_name: str,
                 location: errors.SourceLocation | None) -> None:
        super().__init__(message)
        self.symbol_name = symbol_name
        self.location = location

    def stage(self) -> None:
        """Adds the check that fails whenever the graph being built runs to this point."""
        try_regions.refuse_check_inside_try(self.symbol_name)
        _check_defined(common.convert_to_tensor(False), self.symbol_name, self.location)


class _Unusable:
    """A marker that raises (its `_fail`) when used as a value: any operator, call,
    attribute, truth test or iteration."""

    __slots__ = ()

    def _fail(self, *args, **kwargs):
        raise NotImplementedError

    def _use(self, *args, **kwargs):
        self._fail()  # looked up on the instance: subclasses fail their own way

    __getattr__ = __call__ = __bool__ = __iter__ = __len__ = __getitem__ = _use
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _use
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = _use
    __pow__ = __rpow__ = __matmul__ = __rmatmul__ = __neg__ = __abs__ = _use
    __lt__ = __le__ = __gt__ = __ge__ = _use


class Undefined(_Unusable):
    """Stands for variable `symbol_name` before its first assignment."""

    __slots__ = ("symbol_name",)

    def __init__(self, symbol_name: str) -> None:
        self.symbol_name = symbol_name

    def _fail(self, *args, **kwargs):
        message = ("local variable '%s' is used before it is assigned a value (it is assigned "
                   "only in some branches or loop iterations)" % self.symbol_name)
        graph = context.current_graph()
        if graph is not None and graph.outer is not None:
            raise UndefinedRead(message, self.symbol_name, errors.user_location(2))
        raise UnboundLocalError(message)

    def __repr__(self):
        return "<undefined %s>" % self.symbol_name

    def _read(self):
        """What `ld` returns for this marker (plain Python's error here)."""
        self._fail()


class UndefinedReturnValue(Undefined):
    """The return value of a function before any `return` ran."""

    __slots__ = ()

    def __init__(self, symbol_name: str | None = None) -> None:
        super().__init__(reserved_names.RETURN_VALUE if symbol_name is None else symbol_name)


class DeadValue(Undefined):
    """A variable that a staged `if` carried only so that both branches start from its value
    before the statement; the compiler's analysis found it is not read afterwards."""

    __slots__ = ()


class MaybeUndefined(_Unusable):
    """Variable `symbol_name` after staged control flow that assigns it on some run-time paths
    only: `value` (a tensor or a nest of tensors; made-up zeros where undefined) and `defined`,
    a scalar bool tensor. Staged statements carry both; `ld` checks `defined` before the
    value is used. Used as a value without `ld`, it raises like Undefined."""

    __slots__ = ("symbol_name", "value", "defined")

    def __init__(self, symbol_name: str, value: Any, defined: Any) -> None:
        self.symbol_name = symbol_name
        self.value = value
        self.defined = defined

    def _fail(self, *args, **kwargs):
        raise UnboundLocalError(
            "local variable '%s' may be used before it is assigned a value (it is assigned "
            "only in some branches or loop iterations) and was read without a check"
            % self.symbol_name)

    def __repr__(self):
        return "<maybe undefined %s>" % self.symbol_name

    def _read(self):
        known = self.defined if isinstance(self.defined, bool) else \
            common.constant_value(self.defined)
        if known is not None and not known:
            Undefined(self.symbol_name)._fail()
        if known is None:
            try_regions.refuse_check_inside_try(self.symbol_name)
            _check_defined(self.defined, self.symbol_name, errors.user_location(3))
        return self.value


def is_undefined(value: Any) -> bool:
    """True for Undefined markers."""
    return isinstance(value, Undefined)


def ld(value: Any) -> Any:
    """Loads a variable that may be undefined: raises plain Python's error for an Undefined
    marker; for a MaybeUndefined, adds a run-time check of its flag (none when the flag is
    known to hold) and returns its value."""
    if isinstance(value, (Undefined, MaybeUndefined)):
        return value._read()
    return value


def del_(value: Any, symbol_name: str) -> Undefined:
    """`del name`: checks that `value` is defined, as reading it would, and returns the
    Undefined marker the name holds afterwards."""
    ld(value)
    return Undefined(symbol_name)


def ld_items(container: Any) -> Any:
    """Loads a container read as a whole (`len(d)`, `return d`) whose items or attributes
    (or theirs, in nested lists and dicts) staged control flow may have set on some
    run-time paths only: adds the run-time check of each MaybeUndefined it holds, as `ld`
    does, and returns it. An item whose flag belongs to the graph being built (the read is
    not inside a branch or loop body of its own) is replaced by its value, since the check
    now guards every later use there."""
    if isinstance(container, (Undefined, MaybeUndefined)):
        return ld(container)
    slots = container
    if not isinstance(container, (dict, list)):
        slots = getattr(container, "__dict__", None)
        if not isinstance(slots, dict) or isinstance(container, type):
            return container
    _check_items(slots, context.current_graph(), 0)
    return container


def _check_items(slots, graph, depth):
    keys = range(len(slots)) if isinstance(slots, list) else list(slots)
    for key in keys:
        value = slots[key]
        if isinstance(value, MaybeUndefined):
            checked = value._read()
            if value.defined is True or getattr(value.defined, "graph", None) is graph:
                slots[key] = checked
        elif isinstance(value, (dict, list)) and depth < 4:
            _check_items(value, graph, depth + 1)
