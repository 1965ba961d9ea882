"""autograph: Python functions with control flow over tensors, compiled to dataflow graphs.

    import autograph
    @autograph.function
    def f(x):
        while autograph.tf.reduce_sum(x) > 1:
            x = autograph.tf.tanh(x)
        return x

`function` traces (and converts) a Python function into cached graphs; `to_code` shows the
converted source; `autograph.tf` is a TensorFlow-compatible facade over the runtime.
"""

from __future__ import annotations

import functools as _functools
import types as _types
from importlib import metadata as _metadata
from typing import TYPE_CHECKING as _TYPE_CHECKING
from typing import overload as _overload

from autograph import features as _features
from autograph.conversion import convert, source_of
from autograph.errors import ConversionError, SourceUnavailableError, UnsupportedConstructError
from autograph.explain import StagingReport, explain
from autograph.user_code import do_not_convert
from runtime import backends as _backends
from runtime import context as _context
from runtime import diagnostics as _diagnostics
from runtime import errors as _runtime_errors
from runtime import tracebacks as _tracebacks
from runtime.diagnostics import RetracingWarning, SideEffectWarning, UnrollingWarning
from runtime.function import ConcreteFunction, Function, FunctionOptions
from runtime.ops import float32_kernels as _float32_kernels
from runtime.saved_model import NotSaveableError, SavedModelError, load, save

if _TYPE_CHECKING:  # names for the annotations only, kept out of the package's namespace
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any, TypedDict

    from typing_extensions import Unpack

    from autograph.features import Feature

    class _FunctionKeywords(TypedDict, total=False):
        """`function`'s keyword options, for its two overloads (mypy checks that the
        definition takes exactly these)."""

        input_signature: Sequence[Any] | None
        autograph: bool
        reduce_retracing: bool
        jit_compile: bool | None
        experimental_relax_shapes: bool | None
        experimental_compile: bool | None
        name: str | None
        experimental_autograph_options: Feature | Iterable[Feature] | None
        backend: str | None
        strict: bool
        device: Any
        shardings: Any


def _installed_version() -> str:
    """The installed distribution's version; a placeholder when run from a source tree that
    is not installed."""
    try:
        return _metadata.version("autograph")
    except _metadata.PackageNotFoundError:
        return "0+unknown"


__version__ = _installed_version()


# `@function` gives a Function; `@function(...)` first gives the decorator that makes one.
@_overload
def function(func: Callable[..., Any], **options: Unpack[_FunctionKeywords]) -> Function:
    ...


@_overload
def function(func: None = None, **options: Unpack[_FunctionKeywords]
             ) -> Callable[[Callable[..., Any]], Function]:
    ...


def function(func: Callable[..., Any] | None = None, *,
             input_signature: Sequence[Any] | None = None, autograph: bool = True,
             reduce_retracing: bool = False, jit_compile: bool | None = None,
             experimental_relax_shapes: bool | None = None,
             experimental_compile: bool | None = None, name: str | None = None,
             experimental_autograph_options: Feature | Iterable[Feature] | None = None,
             backend: str | None = None, strict: bool = False, device: Any = None,
             shardings: Any = None) -> Function | Callable[[Callable[..., Any]], Function]:
    """Turns `func` into a `Function`: converted by autograph, traced once per input signature.

    Usable as `@function` or `@function(input_signature=...)`. `reduce_retracing=True` relaxes
    differing shapes to None dimensions instead of tracing once per shape.

    `backend` picks what runs the traces: "numpy" (the executor), "numba" or "jax" (compiled
    at the first trace), "auto" (the executor, promoting busy graphs to numba); None: the
    process default (`config(backend=...)`, else AUTOGRAPH_BACKEND, else "auto").
    `jit_compile=True` (or its older name `experimental_compile`) compiles each trace at once
    with the best compiled backend here. A graph a backend cannot run falls back to the
    executor with a warning naming the op and line (`ConcreteFunction.backend_report()`);
    `strict=True` raises `runtime.backends.Unsupported` instead.

    With backend="jax", `device` places the computation on one JAX device (a jax Device, or
    "gpu", "gpu:1", "cpu"...) and `shardings` splits tensor arguments over all devices (data
    parallelism): one entry per tensor argument ("batch": split its first dimension; None:
    replicate it; or a jax Sharding), or one entry for all of them.
    `experimental_autograph_options`: a `Feature` or a tuple of them, the optional
    conversion features to enable (see autograph.features; TypeError for anything else).
    """
    features = _features.optional_features(experimental_autograph_options)
    converter = _convert_or_warn if not features else _functools.partial(
        _convert_or_warn, features=features)
    relax = reduce_retracing or bool(experimental_relax_shapes)
    if experimental_compile is not None:
        if jit_compile is not None:
            raise ValueError("jit_compile and experimental_compile cannot both be set; "
                             "use jit_compile (experimental_compile is its older name)")
        jit_compile = experimental_compile

    # (FunctionOptions checks the signature and keeps it as a tuple)
    options = FunctionOptions(input_signature=input_signature,  # type: ignore[arg-type]
                              autograph=autograph,
                              reduce_retracing=relax, converter=converter, name=name,
                              jit_compile=jit_compile, backend=backend, strict=strict,
                              device=device, shardings=shardings)

    def decorate(f: Callable[..., Any]) -> Function:
        return Function(f, options=options)
    if func is None:
        return decorate
    return decorate(func)


def _convert_or_warn(func: Callable[..., Any],
                     features: tuple[str, ...] = ()) -> Callable[..., Any]:
    """The compiler for Functions: a function whose source cannot be read is traced as
    written, with a warning; any other conversion failure is an error. `features` names
    the optional features to convert with (see autograph.features)."""
    try:
        return convert(func, features)
    except SourceUnavailableError as e:
        _runtime_errors.warn("%s; it is traced without conversion, so Python control flow "
                             "on tensors in it will fail" % e)
        return func


# Functions handed to the runtime outside any traced Function (an eager `Dataset.map`) are
# converted like a Function's; inside one, that Function's converter applies.
_context.set_default_converter(_convert_or_warn)


def run_functions_eagerly(run_eagerly: bool) -> None:
    """When True, every Function calls its Python function directly (no conversion, no trace)."""
    _context.run_functions_eagerly(run_eagerly)


def functions_run_eagerly() -> bool:
    """Whether `run_functions_eagerly(True)` is in force."""
    return _context.functions_run_eagerly()


_SETTINGS = ("traceback_filtering", "retrace_budget", "side_effect_warnings", "backend",
             "float32_digits")


def config(**settings: Any) -> None:
    """Changes autograph's settings; each keyword is one setting:

        traceback_filtering  True: tracebacks of errors leaving a Function, a ConcreteFunction
                             or a converted function keep only the user's frames, with
                             generated code shown as the user's lines (the default; the
                             environment variable AUTOGRAPH_TRACEBACK_FILTERING=off turns it
                             off). False: every frame, for debugging autograph itself.
                             None: back to the environment's choice.
        retrace_budget       None (the default) or an int N >= 1: a Function that traces
                             more than N times warns (RetracingWarning), besides the warning
                             for one that traced on each of its last 5 calls.
        side_effect_warnings False silences SideEffectWarning (Python side effects that run
                             only while a Function traces); True (the default) reports them.
        backend              the backend of Functions that name none: "numpy", "numba",
                             "jax" or "auto"; None: back to AUTOGRAPH_BACKEND, else "auto".
        float32_digits       whose float32 exp and softmax the numpy executor computes:
                             "numpy" (the default: numpy's, correctly rounded or nearly) or
                             "tensorflow" (TensorFlow's x86 CPU kernels bit for bit, so that
                             printed values end in TensorFlow's last digit; several times
                             slower); None: back to AUTOGRAPH_FLOAT32_DIGITS, else "numpy".
                             numba and JAX keep their own exp either way.

    Raises TypeError for a keyword that names no setting."""
    unknown = sorted(set(settings) - set(_SETTINGS))
    if unknown:
        raise TypeError("config got unknown setting%s %s; the settings are: %s" % (
            "s" if len(unknown) > 1 else "", ", ".join(map(repr, unknown)),
            ", ".join(_SETTINGS)))
    if "traceback_filtering" in settings:
        value = settings["traceback_filtering"]
        if value not in (True, False, None):
            raise TypeError("config: traceback_filtering must be True, False or None, got %r"
                            % (value,))
        _tracebacks.set_filtering(value)
    _diagnostics.configure(**{name: settings[name] for name in
                              ("retrace_budget", "side_effect_warnings") if name in settings})
    if "backend" in settings:
        _backends.set_default(settings["backend"])
    if "float32_digits" in settings:
        _float32_kernels.set_digits(settings["float32_digits"])


def set_verbosity(level: int, alsologtostdout: bool = False) -> None:
    """How much the standard `logging` logger "autograph" says: 0 warnings only (the
    default), 1 also every retrace and why (INFO), 2 or more also every conversion decision
    (DEBUG). The environment variable AUTOGRAPH_VERBOSITY sets it at import.
    `alsologtostdout=True` also prints the records to stdout."""
    _diagnostics.set_verbosity(level, alsologtostdout)


def to_graph(func: Callable[..., Any], recursive: bool = True,
             experimental_optional_features: Feature | Iterable[Feature] | None = None
             ) -> Callable[..., Any]:
    """The converted Python function for `func` (what a Function traces), converted with
    the optional features `experimental_optional_features` (Features, see
    autograph.features). The functions it calls are converted when called either way."""
    if isinstance(func, Function):
        func = func.python_function
    return convert(func, _features.optional_features(experimental_optional_features))


def to_code(func: Callable[..., Any], recursive: bool = True,
            experimental_optional_features: Feature | Iterable[Feature] | None = None
            ) -> str:
    """The converted source of `func` (a Python function, method, lambda, partial or
    Function), as readable Python, converted with the optional features
    `experimental_optional_features` (Features, see autograph.features). `recursive` is
    TensorFlow's: the functions it calls are converted when called either way."""
    if isinstance(func, Function):
        func = func.python_function
    _check_python_function("to_code", func)
    return source_of(func, _features.optional_features(experimental_optional_features))


def _check_python_function(api: str, func: Any) -> None:
    """Raises TypeError naming `api`'s argument unless `func` is a Python function or
    method (or a functools.partial of one): what has source to convert."""
    inner = func
    while isinstance(inner, _functools.partial):
        inner = inner.func
    inner = getattr(inner, "__func__", inner)  # a bound method
    if isinstance(inner, _types.FunctionType):
        return
    if isinstance(inner, type):
        what = "the class %s; pass one of its methods" % inner.__qualname__
    elif isinstance(inner, (_types.BuiltinFunctionType, _types.BuiltinMethodType)):
        what = "the builtin %s, which has no Python source" % inner.__qualname__
    elif callable(inner):
        what = ("an instance of %s; pass one of its methods, such as its __call__"
                % type(inner).__qualname__)
    else:
        what = "%r (%s)" % (inner, type(inner).__qualname__)
    raise TypeError("%s expects a Python function or method as `func`, got %s"
                    % (api, what))


__all__ = ["ConversionError", "UnsupportedConstructError", "config", "function", "to_code",
           "to_graph", "do_not_convert", "run_functions_eagerly", "functions_run_eagerly",
           "Function", "ConcreteFunction", "explain", "StagingReport", "save", "load",
           "SavedModelError", "NotSaveableError", "RetracingWarning", "SideEffectWarning",
           "UnrollingWarning", "set_verbosity"]
