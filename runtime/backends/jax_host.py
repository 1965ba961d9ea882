"""Host calls in JAX-lowered graphs: ops that run Python (print, random draws from the host's
generators, `tf.data` iterators) call their own kernel, the numpy executor's, from inside
the compiled program through `jax.experimental.io_callback(..., ordered=True)`, so their
effects (printed text, generator states, consumed elements) happen in the executor's order,
inside loops and branches too.

Rules (the implementations of the host calls an op declares, `HOST_CALLS` below; see
runtime/lowering_api.py's `HostCall`):
  * `call_kernel`: the op's kernel on the node's input values; every input must be a number
    array (constants, strings included, are passed by the closure), every output of a static
    shape.
  * `open_iterator`, `iterator_get_next`, `iterator_has_next`: an iterator is a cursor kept on
    the host in the compiled graph's `HostCalls` table; the program carries its number (a
    `HostHandle`). A cursor is dropped after the last node of the graph that opened it.

Errors: a kernel that raises does not raise through XLA (which would log it and lose its
traceback). The exception is kept in the graph's `HostCalls`, the host calls after it do
nothing (no further effects), the error flag stops the loops, and the caller raises it
(`HostCalls.finish`) with the failing node found in its traceback (`node_in_traceback`), as
the numpy executor does. A graph with host effects and another check (a bounds check, say)
is not lowered: after a failed check the caller runs the graph again on the numpy executor,
which would repeat the effects (see `Lowerer.fail_if`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from runtime import lowering_api
from runtime.lowering_api import HostHandle, Unsupported, is_concrete

# runtime.backends.jax_lowering.Lowerer, which calls these rules (and so imports this module)
Lowerer = Any


class HostCalls:
    """The host side of one compiled graph's host calls: the iterator cursors (number ->
    cursor: those the runs open, and those passed into the function, kept while the graph
    lives) and the exception a kernel raised in the current run."""

    def __init__(self) -> None:
        self.cursors: dict[int, Any] = {}
        self.error: BaseException | None = None
        self._kept: set[int] = set()
        self._numbers = itertools.count(1)

    def register(self, cursor: Any) -> int:
        """A new number for `cursor`."""
        number = next(self._numbers) % (2 ** 31)
        self.cursors[number] = cursor
        return number

    def finish(self) -> None:
        """After a run: raises the exception a kernel raised in it, if one did."""
        error, self.error = self.error, None
        if error is not None:  # the closing calls after the error may not have run
            self.cursors = {k: v for k, v in self.cursors.items() if k in self._kept}
            raise error

    def close_iterator(self, lw: Lowerer, handle: HostHandle) -> None:
        """Drops the cursor of `handle` on the host, after its last use (the calls run in
        order)."""
        def close(number: Any) -> Any:
            self.cursors.pop(int(number), None)
            return np.False_

        from jax.experimental import io_callback
        io_callback(close, lw.jax.ShapeDtypeStruct((), np.bool_), handle.number, ordered=True)

    def captured_iterator(self, lw: Lowerer, iterator: Any) -> HostHandle:
        """A `runtime.data.Iterator` passed into the function: kept in the table while the
        compiled graph lives, and read where the executor reads it."""
        for number in self._kept:
            if self.cursors[number] is iterator:
                return HostHandle(np.int32(number))
        number = self.register(iterator)
        self._kept.add(number)
        return HostHandle(np.int32(number))


def _run_kernel(host: HostCalls, node: Any, values: list[Any], cursor: Any = None) -> Any:
    """The kernel's result, or None once a kernel raised in this run (the exception is kept;
    `node_in_traceback` finds `node` in its traceback through this frame)."""
    if host.error is not None:
        return None
    try:
        if cursor is not None:
            values = [host.cursors[int(cursor)]] + values
        return node.op.kernel(*values, **node.attrs)
    except Exception as e:  # noqa: BLE001 - raised by the caller, as the executor would
        host.error = e
        return None


def node_in_traceback(tb: Any) -> Any:
    """The node whose kernel raised in traceback `tb` inside a host call, or None."""
    while tb is not None:
        if tb.tb_frame.f_code is _run_kernel.__code__:
            return tb.tb_frame.f_locals.get("node")
        tb = tb.tb_next
    return None


def _host(lw: Lowerer) -> HostCalls:
    host = getattr(lw, "host", None)
    if host is None:
        raise Unsupported("host calls run only in a compiled graph's calls")
    return host


def _output_specs(lw: Lowerer, node: Any) -> list[Any]:
    specs = []
    for t in node.outputs:
        if t.dtype.kind not in ("int", "float", "bool", "complex"):
            raise Unsupported("it gives a %s value on the host" % t.dtype.name)
        if t._shape is None or None in t._shape:
            raise Unsupported("it gives a value of a shape known only at run time")
        specs.append(lw.jax.ShapeDtypeStruct(tuple(t._shape), t.dtype.np_dtype))
    return specs


def _call(lw: Lowerer, node: Any, ins: list[Any], specs: list[Any],
          kernel: Any) -> list[Any]:
    """Calls `kernel(values of the traced inputs)` on the host, in order; returns the traced
    outputs of `specs`. Constants reach the kernel by the closure."""
    traced = [i for i, v in enumerate(ins) if not is_concrete(v)]
    fixed = list(ins)
    for i in traced:
        if isinstance(ins[i], HostHandle) or not hasattr(ins[i], "dtype"):
            raise Unsupported("an input of a host call is a %s" % type(ins[i]).__name__)
    host = _host(lw)

    def on_host(*values: Any) -> Any:
        args = list(fixed)
        for i, value in zip(traced, values):
            args[i] = value
        result = kernel(args)
        if result is None:
            zeros = [np.zeros(s.shape, s.dtype) for s in specs]
            return zeros, np.True_
        if len(specs) == 1:
            result = (result,)
        out = []
        for value, spec in zip(result, specs):
            value = np.asarray(value, spec.dtype)
            if value.shape != tuple(spec.shape):
                host.error = RuntimeError("op %s gave shape %s on the host, its graph says %s"
                                          % (node.op.name, value.shape, spec.shape))
                return [np.zeros(s.shape, s.dtype) for s in specs], np.True_
            out.append(value)
        return out, np.False_

    lw.host_effect()
    if {"host_only", "unrepeatable"} <= node.op.traits:  # user Python, or a dataset's
        lw.host_call_may_raise()
    from jax.experimental import io_callback
    shapes = (specs, lw.jax.ShapeDtypeStruct((), np.bool_))
    outputs, raised = io_callback(on_host, shapes, *[ins[i] for i in traced], ordered=True)
    lw.fail_if(raised, host=True)
    return list(outputs)


def call_kernel(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """The op's kernel, called on the host (see the module docstring)."""
    if node.attrs.get("record"):
        raise Unsupported("a gradient of its Python function needs the run's own tape")
    host = _host(lw)
    return _call(lw, node, ins, _output_specs(lw, node),
                 lambda values: _run_kernel(host, node, values))


def open_iterator(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """AnonymousIterator: a new pass over the dataset on the host, kept in the table; its
    number is the handle. The cursor is dropped after the graph's last node."""
    host = _host(lw)
    spec = lw.jax.ShapeDtypeStruct((), np.int32)

    def opened(values: list[Any]) -> Any:
        cursor = _run_kernel(host, node, values)
        return None if cursor is None else np.int32(host.register(cursor))

    number = _call(lw, node, ins, [spec], opened)[0]
    handle = HostHandle(number)
    lw.opened_handles.append(handle)
    return [handle]


def _cursor_call(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    handle = ins[0]
    if not isinstance(handle, HostHandle):
        raise Unsupported("reads an iterator that is not a host cursor")
    host = _host(lw)
    rest = ins[1:]

    def run(values: list[Any]) -> Any:
        return _run_kernel(host, node, values[1:], cursor=values[0])

    return _call(lw, node, [handle.number] + rest, _output_specs(lw, node), run)


def iterator_get_next(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """IteratorGetNext: the cursor's next element, read on the host."""
    return _cursor_call(lw, node, ins)


def iterator_has_next(lw: Lowerer, node: Any, ins: list[Any]) -> list[Any]:
    """IteratorHasNext: looks one element ahead on the host."""
    return _cursor_call(lw, node, ins)


# How JAX implements each host call an op may declare (see lowering_api.HostCall); an
# assertion's JAX rule checks its condition in the program (runtime/ops/io_ops.py).
HOST_CALLS: dict[lowering_api.HostCall, Callable[..., list[Any]]] = {
    lowering_api.KERNEL_ON_HOST: call_kernel,
    lowering_api.PY_FUNCTION_ON_HOST: call_kernel,
    lowering_api.OPEN_ITERATOR_ON_HOST: open_iterator,
    lowering_api.ITERATOR_GET_NEXT_ON_HOST: iterator_get_next,
    lowering_api.ITERATOR_HAS_NEXT_ON_HOST: iterator_has_next,
}
