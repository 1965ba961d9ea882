"""Host calls from numba kernels: ops that run Python (print, py_function, random draws from
the host's generator, an assertion's message) called back from inside the compiled kernel.

An op declares the host call `KERNEL_ON_HOST` (or `ASSERT_ON_HOST`, ..., see
runtime/lowering_api.py; `HOST_CALLS` below maps each to its numba rule): the kernel then calls
the op's own kernel, `kernel(*inputs, **attrs)` as the executor's generated code does,
through `numba.objmode`, at the same point of the computation (inside loops and branches
too), so its outputs and side effects, and their order, are the executor's:

    with numba.objmode(v3="float32[:, ::1]"):
        v3 = host_call(host0[0], 2, v1, v2)
    len((v3, ))

Every input and output must be a number or bool array (or scalar) of a known rank: objmode
needs each output's type when the kernel is compiled. Inputs reach the host kernel as the
executor passes them (numpy scalars at rank 0, arrays copied: the kernel may keep them);
outputs return C-contiguous in their graph dtype.

numba 0.68 fails to compile some kernels holding several such blocks with outputs inside
loops (an LLVM "does not dominate all uses" error): those graphs fall back to the executor
like any graph numba cannot compile.

Which function to call is found at run time: the kernel gets its `HostTable`'s token as an
argument (the generated source does not depend on it, so numba's cache still serves), and
`host_call(token, code, *values)` runs function `code` of that table. When the function
raises, its error is raised again from a line mapped to the op's node (the numba backend's
raisers, as for its checks), so the error names the op and the user's line as the
executor's does.
"""

from __future__ import annotations

import collections
import itertools
import threading
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from runtime import dtypes, errors, lowering_api
from runtime.lowering_api import Unsupported

_TABLES: weakref.WeakValueDictionary[int, HostTable] = weakref.WeakValueDictionary()
_tokens = itertools.count(1)
_handles = itertools.count(1)
_KINDS = ("int", "float", "bool")
_KEPT = 16  # the host objects (iterators) an op's node keeps open, per thread


class HostTable:
    """The host functions one kernel calls, by code, and for each the index of its check
    (whose raiser raises its errors from the op's line)."""

    def __init__(self) -> None:
        self.token = next(_tokens)
        self.functions: list[Callable[..., Any]] = []
        self.checks: list[int] = []
        self.raisers: list[Callable[[Exception], None]] = []
        self.objects: dict[int, Any] = {}  # handle -> host object (an iterator)
        self.opened = _Opened()
        _TABLES[self.token] = self

    def keep(self, code: int, value: Any) -> np.int64:
        """A new handle for host object `value`, opened by host function `code`; that
        function's oldest handle beyond the last _KEPT (in this thread) is closed."""
        handle = next(_handles)
        self.objects[handle] = value
        recent = self.opened.by_code.setdefault(code, collections.deque())
        recent.append(handle)
        if len(recent) > _KEPT:
            self.objects.pop(recent.popleft(), None)
        return np.int64(handle)

    def find(self, handle: Any) -> Any:
        """The host object of `handle`; FailedPreconditionError once it was closed."""
        found = self.objects.get(int(handle))
        if found is None:
            raise errors.FailedPreconditionError(
                "this iterator was closed: the compiled function keeps the last %d iterators "
                "each of its ops opened (run it with backend='numpy' to keep them all)" % _KEPT)
        return found


class _Opened(threading.local):
    """The handles each host function opened in this thread, oldest first."""

    def __init__(self) -> None:
        self.by_code: dict[int, collections.deque[int]] = {}


def host_call(token: int, code: int, *values: Any) -> Any:
    """Runs host function `code` of the table `token` (called from a kernel's objmode block)."""
    table = _TABLES[token]
    try:
        return table.functions[code](*values)
    except Exception as error:
        if table.raisers:
            table.raisers[table.checks[code]](error)
        raise


def bind(lowerer: Any, raisers: list[Callable[[Exception], None]], holder: Any) -> None:
    """After compiling: gives the lowerer's HostTable (if any) the raisers of its checks and
    keeps it alive as long as `holder`, the compiled graph."""
    table = getattr(lowerer, "host_table", None)
    if table is not None:
        table.raisers = raisers
        holder.host_table = table


def compile_kernel(kernel: Any, signature: Any) -> None:
    """Compiles numba dispatcher `kernel` for `signature`, and its objmode blocks now
    (numba would compile them at their first run, also after loading the kernel from its
    cache), without numba's warning that they hold the GIL in a nogil kernel: it says
    nothing the user can act on."""
    from numba.core import types
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", ".*Code running in object mode won't allow parallel")
        kernel.compile(signature)
        for lifted in kernel.overloads[tuple(signature)].lifted:
            lifted.compile((types.ffi_forced_object,) * lifted.func_ir.arg_count)


def _table(lowerer: Any) -> tuple[HostTable, str]:
    """The lowerer's HostTable, made (with its token parameter) on first use."""
    table = getattr(lowerer, "host_table", None)
    if table is None:
        table = lowerer.host_table = HostTable()
        lowerer.host_token = lowerer.fresh("host")
        lowerer.extra_params.append(lowerer.host_token)
        lowerer.extra_values.append(np.array([table.token], np.int64))
    return table, lowerer.host_token


def numba_type(value: Any) -> str:
    """objmode's type of a Value: `float32[:, ::1]` (C-contiguous array), `int64` (scalar);
    a host object's handle (a resource) is an int64."""
    dtype = value.dtype
    if dtype is dtypes.resource and value.rank0:
        return "int64"
    if dtype.kind not in _KINDS:
        raise Unsupported("a %s value passed to the host" % dtype.name)
    if value.shape is None:
        raise Unsupported("a host value of unknown rank")
    name = "boolean" if dtype is dtypes.bool_ else dtype.np_dtype.name
    if value.rank0:
        return name
    return "%s[%s]" % (name, ", ".join([":"] * (len(value.shape) - 1) + ["::1"]))


def write_call(lowerer: Any, function: Callable[..., Any], ins: list[Any],
               outs: list[Any]) -> None:
    """Writes the objmode block calling `function(*ins)` on the host, assigning `outs`."""
    for value in ins:
        numba_type(value)
    types = [numba_type(out) for out in outs]
    table, token = _table(lowerer)
    code = len(table.functions)
    table.functions.append(function)
    _handles_of(lowerer).update(str(out) for out in outs if out.dtype is dtypes.resource)
    table.checks.append(len(lowerer.checks))
    lowerer.checks.append((lowerer.node, None, None))  # its raiser names the node
    lowerer.line("with numba.objmode(%s):" % ", ".join(
        '%s="%s"' % (out, kind) for out, kind in zip(outs, types)))
    with lowerer.block():
        call = "host_call(%s[0], %d%s)" % (token, code, "".join(", " + v for v in ins))
        if outs:
            lowerer.line("%s = %s" % ("".join(out + ", " for out in outs), call))
        else:
            lowerer.line(call)
    if outs:  # objmode wants each output used after its block
        lowerer.line("len((%s))" % "".join(out + ", " for out in outs))


def _to_host(value: Any, np_dtype: np.dtype) -> Any:
    if isinstance(value, np.ndarray):
        return value.copy()
    return np_dtype.type(value)


def _from_host(value: Any, np_dtype: np.dtype, rank0: bool) -> Any:
    if rank0:
        return np_dtype.type(np.asarray(value).reshape(()))
    return np.ascontiguousarray(value, np_dtype)


def kernel_function(node: Any, ins: list[Any], outs: list[Any]) -> Callable[..., Any]:
    """The host function running `node`'s kernel on the values of `ins` and giving `outs`
    (none: its result is dropped, e.g. for a call made only to raise the kernel's error)."""
    kernel, attrs = node.op.kernel, dict(node.attrs)
    in_dtypes = [v.dtype.np_dtype for v in ins]
    out_specs = [(v.dtype.np_dtype, v.rank0) for v in outs]

    def run(*values: Any) -> Any:
        result = kernel(*[_to_host(v, d) for v, d in zip(values, in_dtypes)], **attrs)
        if not out_specs:
            return None
        results = (result,) if len(out_specs) == 1 else tuple(result)
        return tuple(_from_host(r, d, rank0) for r, (d, rank0) in zip(results, out_specs))
    return run


def kernel_on_host(lowerer: Any, node: Any, ins: list[Any], outs: list[Any]) -> None:
    """numba rule: the op's kernel called on the host (see the module docstring)."""
    write_call(lowerer, kernel_function(node, ins, outs), ins, outs)


def assert_on_host(lowerer: Any, node: Any, ins: list[Any], outs: list[Any]) -> None:
    """numba rule of Assert: the condition checked in the kernel; only when it fails is the
    op's kernel called on the host, to format the message and raise."""
    condition = ins[0]
    failed = "not %s" % condition if condition.rank0 else "not np.all(%s)" % condition
    lowerer.line("if %s:" % failed)
    with lowerer.block():
        write_call(lowerer, kernel_function(node, ins, outs), ins, outs)


def py_function_on_host(lowerer: Any, node: Any, ins: list[Any], outs: list[Any]) -> None:
    """numba rule of EagerPyFunc: `kernel_on_host`, unless the call records its function for
    a gradient (which keeps its outputs' identity: the executor runs those)."""
    if node.attrs.get("record"):
        raise Unsupported("a py_function recorded for its gradient")
    kernel_on_host(lowerer, node, ins, outs)


def assign_handle(lowerer: Any, out: Any, expr: str) -> None:
    """`out = expr` for a host object's handle (a loop variable holding an iterator);
    Unsupported for another resource (a variable's)."""
    handles = _handles_of(lowerer)
    if str(expr) not in handles:
        raise Unsupported("a resource value that is not an iterator opened in the graph")
    lowerer.line("%s = %s" % (out, expr))
    handles.add(str(out))


def _handles_of(lowerer: Any) -> set[str]:
    """The names of the lowerer's values that are host objects' handles."""
    handles = getattr(lowerer, "host_handles", None)
    if handles is None:
        handles = lowerer.host_handles = set()
    return handles


def _table_function(lowerer: Any, make: Callable[[HostTable, int], Callable[..., Any]]) -> Any:
    table, _ = _table(lowerer)
    return make(table, len(table.functions))


def open_iterator_on_host(lowerer: Any, node: Any, ins: list[Any], outs: list[Any]) -> None:
    """numba rule of AnonymousIterator: the op's kernel opens a pass over the dataset on the
    host; the kernel holds its handle (see HostTable.keep)."""
    kernel, attrs = node.op.kernel, dict(node.attrs)
    in_dtypes = [v.dtype.np_dtype for v in ins]

    def make(table: HostTable, code: int) -> Callable[..., Any]:
        def run(*values: Any) -> Any:
            cursor = kernel(*[_to_host(v, d) for v, d in zip(values, in_dtypes)], **attrs)
            return (table.keep(code, cursor),)
        return run
    write_call(lowerer, _table_function(lowerer, make), ins, outs)


def iterator_step_on_host(lowerer: Any, node: Any, ins: list[Any], outs: list[Any]) -> None:
    """numba rule of IteratorGetNext and IteratorHasNext: the op's kernel on the iterator
    its handle names."""
    handle = ins[0]
    if str(handle) not in _handles_of(lowerer):
        raise Unsupported("an iterator not opened in the compiled graph")
    rest = ins[1:]
    kernel, attrs = node.op.kernel, dict(node.attrs)
    in_dtypes = [v.dtype.np_dtype for v in rest]
    out_specs = [(v.dtype.np_dtype, v.rank0) for v in outs]

    def make(table: HostTable, code: int) -> Callable[..., Any]:
        def run(ident: Any, *values: Any) -> Any:
            result = kernel(table.find(ident),
                            *[_to_host(v, d) for v, d in zip(values, in_dtypes)], **attrs)
            results = (result,) if len(out_specs) == 1 else tuple(result)
            return tuple(_from_host(r, d, rank0) for r, (d, rank0) in zip(results, out_specs))
        return run
    write_call(lowerer, _table_function(lowerer, make), ins, outs)


# How numba implements each host call an op may declare (see lowering_api.HostCall).
HOST_CALLS: dict[lowering_api.HostCall, Callable[..., None]] = {
    lowering_api.KERNEL_ON_HOST: kernel_on_host,
    lowering_api.PY_FUNCTION_ON_HOST: py_function_on_host,
    lowering_api.ASSERT_ON_HOST: assert_on_host,
    lowering_api.OPEN_ITERATOR_ON_HOST: open_iterator_on_host,
    lowering_api.ITERATOR_GET_NEXT_ON_HOST: iterator_step_on_host,
    lowering_api.ITERATOR_HAS_NEXT_ON_HOST: iterator_step_on_host,
}
