"""What converted code calls at run time from the compiler (the rest of `ag__`, see
autograph.namespace, is the runtime's operators):

    ag__.converted_call(f, args, kwargs, fscope)   converts `f` when it is the user's
    ag__.FunctionScope(name)                        one converted function's scope
"""

import inspect
import logging
import threading
import types
from typing import Any, Callable

from autograph.errors import ConversionError, rewrite_in_user_terms
from autograph.user_code import is_library, is_marked_do_not_convert
from runtime import context, diagnostics, errors, scopes, side_effects
from runtime.function import Function
from runtime.operators import py_builtins, staged_builtins, staging, staging_log
from runtime.operators.undefined import Undefined

_active = threading.local()


class FunctionScope:
    """The scope of one converted function: its name, the return-value helper, and the
    translation of errors into the user's terms.

    An exception leaving the outermost converted function names the user's frames ("in user
    code: file:line") and leaves with a filtered traceback (see runtime.tracebacks): the
    frames of generated code, which the user never wrote, become the user's lines.

    `features` names the optional features the function was converted with (see
    autograph.features): the functions it calls are converted with them too, and with
    NAME_SCOPES the ops it adds to a graph are named under its name ('f/add')."""

    __slots__ = ("name", "features", "_name_scope")

    def __init__(self, name: str, features: tuple[str, ...] = ()) -> None:
        self.name = name
        self.features = features
        self._name_scope: scopes.name_scope | None = None

    def __enter__(self):
        _active.depth = getattr(_active, "depth", 0) + 1
        if "NAME_SCOPES" in self.features and context.current_graph() is not None:
            self._name_scope = scopes.name_scope(self.name)
            self._name_scope.__enter__()
        return self

    def __exit__(self, exc_type, exc, tb):
        if self._name_scope is not None:
            self._name_scope.__exit__(exc_type, exc, tb)
            self._name_scope = None
        _active.depth -= 1
        if exc is None or _active.depth or not isinstance(exc, Exception) or \
                isinstance(exc, StopIteration):
            return False
        rewrite_in_user_terms(exc, tb)
        return False  # re-raised as it is, with the traceback it has now

    def ret(self, value: Any, did_return: Any) -> Any:
        """The function's return value: None when no `return` ran.

        `did_return` is a tensor when whether a `return` ran depends on a tensor; that can
        be staged only if no path returns a value other than None."""
        if isinstance(value, Undefined) or value is None:
            return None
        if staging.is_symbolic(did_return):
            raise ValueError(errors.with_user_location(
                "'%s' returns a value on some paths and reaches its end without a return "
                "(returning None) on others, depending on a tensor; a staged function must "
                "return a value on every path: add a return at the end" % self.name,
                errors.user_location(2)))
        return value if did_return else None


# the compiler's `convert`, which sits above this module; see set_converter
_converter: list[Callable[..., Any]] = []


def set_converter(convert: Callable[..., Any]) -> None:
    """Makes `converted_call` convert user functions with `convert` (the compiler's pipeline,
    which binds converted code to `ag__` and so imports this module)."""
    _converter[:] = [convert]


def converted_call(func: Any, args: tuple, kwargs: dict[str, Any] | None,
                   fscope: FunctionScope | None = None) -> Any:
    """Calls `func(*args, **kwargs)`, converting user functions first.

    Builtins with tensor-aware versions (range, len, int, float, bool; with the
    BUILTIN_FUNCTIONS feature also print, enumerate, zip, abs, max, min, sum, any, all) are
    replaced by them; runtime, numpy, stdlib functions, Functions and `do_not_convert`
    functions run as they are; other Python functions and methods are converted (once,
    cached, with the optional features of `fscope`'s function) and called."""
    kwargs = kwargs or {}
    features = getattr(fscope, "features", ())
    if "BUILTIN_FUNCTIONS" in features:
        try:
            staged = staged_builtins.OVERLOADS.get(func)
        except TypeError:
            staged = None
        if staged is not None:  # staged: no trace-time-only effect to warn of
            return staged(*args, **kwargs)
    if diagnostics.current_trace() is not None:
        side_effects.check_call(func, args, kwargs)
    try:
        overload = py_builtins.OVERLOADS.get(func)
    except TypeError:
        overload = None
    if overload is not None:
        if staging_log.active is not None:
            result = overload(*args, **kwargs)
            staging_log.active.call(func, False, "a builtin: autograph's tensor-aware version "
                                    "runs instead", result)
            return result
        return overload(*args, **kwargs)
    target, reason = _conversion_target(func)
    if target is None:
        if staging_log.active is not None:
            staging_log.active.call(func, False, reason)
        if diagnostics.logger.isEnabledFor(logging.DEBUG):
            _log_decision(func, "left alone", reason)
        return func(*args, **kwargs)
    try:
        converted = _converter[0](target, features) if features else _converter[0](target)
        if diagnostics.logger.isEnabledFor(logging.DEBUG):
            _log_decision(target, "converted", reason)
    except ConversionError as e:
        if staging_log.active is not None:
            staging_log.active.call(func, False, "conversion failed, so it runs unconverted: "
                                    "%s" % e)
        errors.warn("autograph could not convert %s, so it runs unconverted: %s"
                    % (getattr(target, "__qualname__", target), e))
        return func(*args, **kwargs)
    if staging_log.active is not None:
        staging_log.active.call(func, True, reason)
    return converted(*args, **kwargs)


def _log_decision(func, decision, reason):
    """Logs (DEBUG) what converted_call did with `func` and why, at the user's line."""
    location = errors.user_location(3)
    diagnostics.logger.debug("%s%s %s (%s)", "%s:%d: " % (location.filename, location.lineno)
                             if location else "", decision, _name(func), reason)


def _name(func):
    """`func`'s qualified name, or its plain name when that is made in a factory."""
    qualname = getattr(func, "__qualname__", None)
    if not isinstance(qualname, str):
        return repr(func)
    return getattr(func, "__name__", qualname) if "<locals>" in qualname else qualname


def _conversion_target(func):
    """(the Python function or bound method to convert, or None to call `func` as it is;
    why, in words)."""
    if isinstance(func, Function):
        return None, "a tf.function: traced as its own graph, which this one calls"
    if isinstance(func, type):
        return None, "a class: called as it is"
    if isinstance(func, (types.BuiltinFunctionType, types.BuiltinMethodType)):
        return None, "a builtin function or method"
    inner = func.__func__ if isinstance(func, types.MethodType) else func
    if not isinstance(inner, types.FunctionType):
        if isinstance(getattr(type(func), "__call__", None), (types.FunctionType, Function)):
            # An object whose class defines __call__ in Python (a tf.Module, a layer):
            # calling it runs that method, which is converted (or traced) like any other.
            return _conversion_target(func.__call__)
        return None, "not a Python function (%s)" % type(inner).__name__
    if is_library(inner):
        return None, "library code (%s), which autograph never converts" % (
            getattr(inner, "__module__", None) or "?")
    if is_marked_do_not_convert(inner):
        return None, "marked do_not_convert"
    if inner is func and (inspect.isgeneratorfunction(func) or
                          inspect.iscoroutinefunction(func)):
        return None, "a generator or coroutine function: it runs as it is"
    return func, "the user's code"
