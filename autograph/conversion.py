"""Converting functions: parse, run the passes of `autograph.pipeline` (lower jumps, rewrite
expressions, analyse once, convert control flow, wrap in a function scope), generate code.

    convert(f) -> the converted function (cached per code object and optional features;
                  closures rebound)

The cache is keyed by the identity of the code object, never by its value: code objects
compare equal across files (the filename is not part of code equality), and two identical
functions in two files must not share one converted version (its line map names one file).

Functions marked with `do_not_convert` are returned unchanged.
"""

import functools
import inspect
import textwrap
import types
import weakref
from typing import Any, Callable, Hashable

import gast

from autograph import converted_call, namespace, pipeline
from autograph.converters import conversion_context
from autograph.errors import UnsupportedConstructError
from autograph.pyct import codegen, parsing, traversal
from autograph.user_code import is_library, is_marked_do_not_convert
from runtime import errors as runtime_errors

ARTIFACT = "__autograph_artifact__"  # holds the __code__ of already-converted functions
# id(code) -> (weak reference to code, codegen.Loaded); see _remember
_code_cache: dict[Hashable, tuple[Any, codegen.Loaded]] = {}
# function -> {features: its conversion}
_function_cache: weakref.WeakKeyDictionary[Callable[..., Any], dict[Any, Callable[..., Any]]] = \
    weakref.WeakKeyDictionary()


_UNSUPPORTED = {
    gast.Yield: "yield (generators)",
    gast.YieldFrom: "yield from (generators)",
    gast.Await: "await",
    gast.AsyncFor: "async for",
    gast.AsyncWith: "async with",
}


def _walrus_in_deferred_code(sub):
    """The `:=` that conversion would move into a generated function (where it binds a name
    the rest of the user's function cannot see), or None."""
    if isinstance(sub, gast.BoolOp) or isinstance(sub, gast.IfExp) or (
            isinstance(sub, gast.Compare) and len(sub.ops) > 1):
        scope = sub
    elif isinstance(sub, gast.While):
        scope = sub.test
    else:
        return None
    for inner in traversal.walk(scope):
        if isinstance(inner, gast.NamedExpr):
            return inner
    return None


def check_supported(node: gast.AST, source_info: parsing.SourceInfo) -> None:
    """Raises UnsupportedConstructError (a ConversionError and a NotImplementedError) naming
    the first unsupported construct and its line."""
    for sub in traversal.walk(node):
        if isinstance(sub, (gast.FunctionDef, gast.Lambda)) and sub is not node:
            continue
        walrus = _walrus_in_deferred_code(sub)
        if walrus is not None and _in_own_scope(node, sub):
            line = getattr(walrus, "lineno", 0) + source_info.line_offset
            raise UnsupportedConstructError(
                "%s:%d: an assignment expression (:=) inside and/or, a conditional expression, "
                "a chained comparison or a while condition is not supported in converted "
                "functions (they are evaluated in generated functions); assign the value in a "
                "statement before it" % (source_info.filename, line))
        description = _UNSUPPORTED.get(type(sub))
        if description is not None and _in_own_scope(node, sub):
            line = getattr(sub, "lineno", 0) + source_info.line_offset
            raise UnsupportedConstructError(
                "%s:%d: %s is not supported in converted functions; mark the function with "
                "autograph.do_not_convert to run it as plain Python"
                % (source_info.filename, line, description))


def _in_own_scope(root, target):
    stack = [root]
    while stack:
        node = stack.pop()
        if node is target:
            return True
        for child in traversal.children(node):
            if isinstance(child, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda,
                                  gast.ClassDef)) and child is not target:
                continue
            stack.append(child)
    return False


def convert_node(node: gast.FunctionDef, source_info: parsing.SourceInfo,
                 name: str) -> gast.FunctionDef:
    """Runs the passes over a parsed function; returns the converted gast FunctionDef.
    What `conversion_context.attach_environment` attached to `node` (the function's
    namespace, the conversion options) goes to the passes' context."""
    check_supported(node, source_info)
    conversion_context.mark_original(node)
    ctx = conversion_context.Context(node, source_info, original_name=name)
    for pass_ in pipeline.PASSES:
        node = pass_.transform(node, ctx)
    return node


def _cached(code, features=()):
    """The Loaded conversion of code object `code` with `features`, or None."""
    entry = _code_cache.get(_cache_key(code, features))
    if entry is None:
        return None
    ref, loaded = entry
    return loaded if ref is None or ref() is code else None


def _remember(code, loaded, features=()):
    """Caches `loaded` for `code` (this very code object) with `features` until `code` is
    collected."""
    cache, key = _code_cache, _cache_key(code, features)

    def forget(ref):
        if cache.get(key, (None,))[0] is ref:
            del cache[key]
    try:
        ref = weakref.ref(code, forget)
    except TypeError:  # an interpreter without weak references to code objects
        ref = None
    cache[key] = (ref, loaded)


def _cache_key(code, features=()):
    if _WEAK_CODE:
        # with a weak reference: the entry leaves when the code dies
        return (id(code), features) if features else id(code)
    # Strong keys: value equality plus where the code was written, which it leaves out.
    return code, code.co_filename, code.co_firstlineno, features


def _weak_references_to_code():
    try:
        weakref.ref(_weak_references_to_code.__code__)
        return True
    except TypeError:
        return False


_WEAK_CODE = _weak_references_to_code()


def _load(func, features=()):
    code = func.__code__
    loaded = _cached(code, features)
    if loaded is None:
        node, source_info = parsing.parse_function(func)
        name = code.co_name if code.co_name != "<lambda>" else "lambda__"
        node.name = name
        conversion_context.attach_environment(node, _namespace(func), features)
        converted = convert_node(node, source_info, name)
        loaded = codegen.load(converted, source_info, code.co_freevars)
        _remember(code, loaded, features)
    return loaded


def _namespace(func):
    """The globals and closure values `func` reads (its code object's, shared by every
    function made from it)."""
    namespace = dict(getattr(func, "__globals__", {}))
    for name, cell in zip(func.__code__.co_freevars, func.__closure__ or ()):
        try:
            namespace[name] = cell.cell_contents
        except ValueError:  # an empty cell
            pass
    return namespace


def is_artifact(func: Any) -> bool:
    """True for a function that `autograph convert` wrote (its source is converted code).

    The mark holds the function's own code object, so a wrapper that copied the mark with
    `functools.wraps` does not count."""
    code = getattr(func, "__code__", None)
    return code is not None and getattr(func, ARTIFACT, None) is code


def convert(func: Any, features: tuple[str, ...] = ()) -> Any:
    """The converted form of `func` (control flow rewritten into ag__ calls), with the
    optional features named by `features` (a sorted tuple, see autograph.features)."""
    if is_marked_do_not_convert(func):
        return func
    if is_artifact(func):
        return func  # already converted (written by `autograph convert`)
    if isinstance(func, functools.partial):
        return functools.partial(convert(func.func, features), *func.args, **func.keywords)
    if not isinstance(func, (types.FunctionType, types.MethodType)):
        return func  # callable objects, builtins: traced as they are
    if is_library(getattr(func, "__func__", func)):
        return func
    original = func
    if isinstance(func, types.MethodType):  # bound method: convert the function, rebind self
        converted = convert(func.__func__, features)
        return converted.__get__(func.__self__, type(func.__self__))
    try:
        found = _function_cache.get(original, {}).get(features)
    except TypeError:
        found = None
    if found is not None:
        return found
    loaded = _load(func, features)
    converted = loaded.bind(func, namespace.ag__)
    setattr(converted, ARTIFACT, converted.__code__)  # converting it again is a no-op
    try:
        _function_cache.setdefault(original, {})[features] = converted
    except TypeError:
        pass
    return converted


def source_of(func: Any, features: tuple[str, ...] = ()) -> str:
    """The converted source of `func` (what `to_code` shows), with the optional features
    named by `features`. Functions that are not to be
    converted (`do_not_convert`) or are converted already (written by `autograph convert`)
    show their source as written."""
    if isinstance(func, functools.partial):
        func = func.func
    if hasattr(func, "__func__"):
        func = func.__func__
    if is_artifact(func) and hasattr(func, "__autograph_source__"):
        return func.__autograph_source__  # the result of `convert`
    if is_marked_do_not_convert(func) or is_artifact(func):
        # From the function's own code: a `functools.wraps` wrapper is not its wrapped.
        return textwrap.dedent(inspect.getsource(getattr(func, "__code__", func)))
    return _load(func, features).source


converted_call.set_converter(convert)
runtime_errors.register_location_translator(codegen.translate_location)
