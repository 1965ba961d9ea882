"""Python side effects that run only while a Function traces: each one is reported once per
source line, on the Function's first trace, as a `diagnostics.SideEffectWarning`.

Converted code reports them through two entry points:

    ag__.converted_call(f, ...)   -> check_call(f, args, kwargs) before the call: `print` of a
                                     tensor or of text made from one (an f-string),
                                     `next()` on a Python iterator, `random`, `numpy.random`
                                     and `time` calls, and list/dict/set methods
                                     that put a tensor into a module global or closure value
    x = ag__.store_outer(v, 'x')  -> the compiler wraps values stored into state defined
                                     outside the function (a `global`/`nonlocal` name, an
                                     attribute or item of a global or closure value): a tensor
                                     stored there leaks out of the trace

Only what is certainly an effect that later calls skip is reported: a print of Python values
("Tracing!"), appending Variables or Python values (trace counters), and mutations of
objects passed as arguments stay silent.
"""

from __future__ import annotations

import builtins
import random
import re
import sys
import time
from typing import Any

import numpy as np

from runtime import diagnostics, nest, reserved_names
from runtime.data.iterator import Iterator as DatasetIterator
from runtime.function import Function
from runtime.tensor import SymbolicTensor

_CONTAINERS = (list, dict, set)
_MUTATORS = frozenset(["append", "extend", "insert", "__setitem__", "update", "setdefault",
                       "add"])
_RANDOM_STATES = (random.Random, np.random.RandomState, np.random.Generator)
# The text of a symbolic tensor, as str() and repr() write it (runtime.tensor.SymbolicTensor):
# a print of such text shows a value frozen at trace time.
_SYMBOLIC_TEXT = re.compile(r"Tensor\(\"[^\"]+\", shape=|<tf\.Tensor '[^']+' shape=")


def _holds_tensor(value: Any) -> bool:
    return any(isinstance(leaf, SymbolicTensor) for leaf in nest.flatten(value))


def _first_trace() -> bool:
    record = diagnostics.current_trace()
    return record is not None and record.first and diagnostics.setting("side_effect_warnings")


def check_call(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any] | None) -> None:
    """Reports `func(*args, **kwargs)` when it is a side effect that only tracing runs (a
    no-op outside a Function's first trace)."""
    if not _first_trace():
        return
    receiver = getattr(func, "__self__", None)
    if func is builtins.print:
        if _holds_tensor(list(args)):
            diagnostics.warn_side_effect(
                "print", "print() of a tensor runs only while the Function traces: it shows "
                "a symbolic tensor once, never the values of later calls; use tf.print(...) "
                "to print on every call")
        elif any(isinstance(a, str) and _SYMBOLIC_TEXT.search(a) for a in args):
            diagnostics.warn_side_effect(
                "print", "print() of text made from a tensor (an f-string, str() or format() "
                "of it) runs only while the Function traces: it shows the symbolic tensor "
                "once, never the values of later calls; use tf.print(...) to print on every "
                "call (tf.print('x =', x), not tf.print(f'x = {x}'))")
    elif func is builtins.next:
        # (an iterator whose `advances_in_graphs` is true takes its elements with graph ops,
        # as a dataset iterator does: a distributed dataset's iterator)
        if args and not isinstance(args[0], DatasetIterator) and \
                not getattr(args[0], "advances_in_graphs", False):
            diagnostics.warn_side_effect(
                "next", "next() on a Python iterator (%s) runs only while the Function "
                "traces: every later call reuses the element it got then; iterate a "
                "tf.data.Dataset (iterator = iter(dataset)) to get a new element per call"
                % type(args[0]).__name__)
    elif isinstance(receiver, _RANDOM_STATES) or _module_of(func) == "random" or \
            _module_of(func).startswith("numpy.random"):
        diagnostics.warn_side_effect(
            "random", "%s() runs only while the Function traces: its value is frozen into "
            "the graph and every call gets the same number; use tf.random.uniform or "
            "tf.random.normal" % _name_of(func), frozen_value=True)
    elif _module_of(func) == "time" and func is not time.sleep:
        diagnostics.warn_side_effect(
            "time", "%s() runs only while the Function traces: its value is frozen "
            "into the graph; time the calls from outside the Function" % _name_of(func),
            frozen_value=True)
    elif isinstance(receiver, _CONTAINERS) and getattr(func, "__name__", "") in _MUTATORS:
        if _holds_tensor([list(args), kwargs or {}]) and _defined_outside(receiver):
            diagnostics.warn_side_effect(
                "outer", "%s.%s() puts a tensor of the trace into a %s defined outside the "
                "function: it runs only while tracing and the tensor cannot be used after "
                "it; return the value instead, or keep it in a tf.Variable or TensorArray"
                % (type(receiver).__name__, func.__name__, type(receiver).__name__))


_GLOBAL_NAME = object()


def store_outer(value: Any, target: str, root: Any = _GLOBAL_NAME) -> Any:
    """`value`, after reporting a tensor stored into `target`: a `global` name, or an
    attribute or item of object `root`, a global or closure value (reported when the trace
    did not make it; see the module docstring)."""
    if _first_trace() and _holds_tensor(value) and (
            root is _GLOBAL_NAME or _defined_outside(root)):
        diagnostics.warn_side_effect(
            "outer", "storing a tensor of the trace into `%s`, defined outside the function, "
            "happens only while tracing and the tensor cannot be used after it; return the "
            "value instead, or keep it in a tf.Variable" % target)
    return value


def _module_of(func: Any) -> str:
    module = getattr(func, "__module__", None)
    return module if isinstance(module, str) else ""


def _name_of(func: Any) -> str:
    """`func`'s public dotted name: random.random, numpy.random.rand, time.time..."""
    receiver = getattr(func, "__self__", None)
    name = getattr(func, "__name__", "function")
    if isinstance(receiver, random.Random):
        return "random." + name
    if isinstance(receiver, np.random.RandomState):
        return "numpy.random." + name
    if isinstance(receiver, np.random.Generator):
        return "numpy.random.Generator." + name
    public = [part for part in _module_of(func).split(".") if part and part[0] != "_"]
    return ".".join(public + [name])


def _defined_outside(obj: Any) -> bool:
    """Whether `obj` is a global of the converted code that reaches it, or a closure value
    of the function the Function traces (a free variable of the outermost converted frame
    of this trace, `ag__<name>`): state the trace did not make."""
    frame: Any = sys._getframe(2)
    outermost = None
    while frame is not None and frame.f_code is not _TRACE_CODE:
        code = frame.f_code
        if code.co_filename.startswith(reserved_names.FILE_PREFIX):
            if outermost is None and any(v is obj for v in frame.f_globals.values()):
                return True
            if code.co_name.startswith(reserved_names.CONVERTED_PREFIX):
                outermost = frame
        frame = frame.f_back
    if outermost is None:
        return False
    return any(outermost.f_locals.get(name) is obj for name in outermost.f_code.co_freevars)


_TRACE_CODE = Function._trace_once.__code__  # where a Function's trace starts
