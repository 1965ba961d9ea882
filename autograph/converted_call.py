"""What converted code calls at run time from the compiler (the rest of `ag__`, see
autograph.namespace, is the runtime's operators):

    ag__.converted_call(f, args, kwargs, fscope)   converts `f` when it is the user's
    ag__.FunctionScope(name)                        one converted function's scope
"""

import inspect
import logging
import threading
import types

from autograph.errors import ConversionError, rewrite_in_user_terms
from autograph.user_code import is_library, is_marked_do_not_convert
from runtime import diagnostics, errors, side_effects
from runtime.function import Function
from runtime.operators import py_builtins, staging
from runtime.operators.undefined import Undefined

_active = threading.local()


class FunctionScope:
    """The scope of one converted function: its name, the return-value helper, and the
    translation of errors into the user's terms.

    An exception leaving the outermost converted function names the user's frames ("in user
    code: file:line") and leaves with a filtered traceback (see runtime.tracebacks): the
    frames of generated code, which the user never wrote, become the user's lines."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        _active.depth = getattr(_active, "depth", 0) + 1
        return self

    def __exit__(self, exc_type, exc, tb):
        _active.depth -= 1
        if exc is None or _active.depth or not isinstance(exc, Exception) or \
                isinstance(exc, StopIteration):
            return False
        rewrite_in_user_terms(exc, tb)
        return False  # re-raised as it is, with the traceback it has now

    def ret(self, value, did_return):
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


_converter = []  # the compiler's `convert`, which sits above this module; see set_converter


def set_converter(convert):
    """Makes `converted_call` convert user functions with `convert` (the compiler's pipeline,
    which binds converted code to `ag__` and so imports this module)."""
    _converter[:] = [convert]


def converted_call(func, args, kwargs, fscope=None):
    """Calls `func(*args, **kwargs)`, converting user functions first.

    Builtins with tensor-aware versions (range, len, int, float, bool) are replaced by them;
    runtime, numpy, stdlib functions, Functions and `do_not_convert` functions run as they
    are; other Python functions and methods are converted (once, cached) and called."""
    kwargs = kwargs or {}
    if diagnostics.current_trace() is not None:
        side_effects.check_call(func, args, kwargs)
    try:
        overload = py_builtins.OVERLOADS.get(func)
    except TypeError:
        overload = None
    if overload is not None:
        return overload(*args, **kwargs)
    target = _conversion_target(func)
    if target is None:
        if diagnostics.logger.isEnabledFor(logging.DEBUG):
            _log_decision(func, "left alone")
        return func(*args, **kwargs)
    try:
        converted = _converter[0](target)
        if diagnostics.logger.isEnabledFor(logging.DEBUG):
            _log_decision(target, "converted")
    except ConversionError as e:
        errors.warn("autograph could not convert %s, so it runs unconverted: %s"
                    % (getattr(target, "__qualname__", target), e))
        return func(*args, **kwargs)
    return converted(*args, **kwargs)


def _log_decision(func, decision):
    """Logs (DEBUG) what converted_call did with `func`, at the user's line."""
    location = errors.user_location(3)
    diagnostics.logger.debug("%s%s %s (%s)", "%s:%d: " % (location.filename, location.lineno)
                             if location else "", decision, _name(func), _reason(func))


def _name(func):
    """`func`'s qualified name, or its plain name when that is made in a factory."""
    qualname = getattr(func, "__qualname__", None)
    if not isinstance(qualname, str):
        return repr(func)
    return getattr(func, "__name__", qualname) if "<locals>" in qualname else qualname


def _reason(func):
    inner = getattr(func, "__func__", func)
    if isinstance(func, Function):
        return "a Function: called as one"
    if isinstance(func, type):
        return "a class"
    if isinstance(func, (types.BuiltinFunctionType, types.BuiltinMethodType)):
        return "a builtin"
    if is_marked_do_not_convert(inner):
        return "marked do_not_convert"
    if isinstance(inner, types.FunctionType) and is_library(inner):
        return "library code (%s)" % getattr(inner, "__module__", "?")
    if not isinstance(inner, types.FunctionType):
        return "not a Python function"
    if inspect.isgeneratorfunction(inner) or inspect.iscoroutinefunction(inner):
        return "a generator or coroutine function"
    return "user code"


def _conversion_target(func):
    """The Python function or bound method to convert, or None to call `func` as it is."""
    if isinstance(func, Function) or isinstance(func, type):
        return None
    if isinstance(func, (types.BuiltinFunctionType, types.BuiltinMethodType)):
        return None
    if isinstance(func, types.MethodType):
        inner = func.__func__
        if not isinstance(inner, types.FunctionType) or is_library(inner):
            return None
        if is_marked_do_not_convert(inner):
            return None
        return func
    if not isinstance(func, types.FunctionType) or is_library(func):
        return None
    if is_marked_do_not_convert(func):
        return None
    if inspect.isgeneratorfunction(func) or inspect.iscoroutinefunction(func):
        return None
    return func
