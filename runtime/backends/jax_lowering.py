"""The JAX lowering: a graph becomes a JAX function by being interpreted while `jax.jit`
traces it.

Where the numba backend writes source, this backend walks the executor's simplified graph
(`runtime.executor.simplify`) inside the function that `jax.jit` traces, so every node's rule
runs once, at compile time, on JAX tracers, and XLA compiles what they build. Each node is
lowered by its op's own "jax" rule, else by its backend-neutral "array" rule (see
runtime/lowering_api.py): the lines that rule writes for the node, with `xp` bound to
`jax.numpy`, are executed at once on the node's input values. A "jax" rule, which only this
backend reads, follows the tracing protocol `rule(lowerer, node, ins) -> [output values]`:
`ins` are the input values, JAX arrays (numpy values for constants, so that a rule can tell
what is known at compile time), `VariableSlot`s for variables, `TensorArrayBuffer`s and
`PendingTensorArray`s for TensorArray handles; a rule with sub-graphs lowers them with
`lowerer.lower_graph`, and a case it cannot lower raises `lowering_api.Unsupported`. The rules
live with their ops (runtime/ops), take `jnp`, `lax` and `jax` from the lowerer, and import no
jax.

What JAX cannot do the way the numpy executor does is carried explicitly:
  * State: variables are inputs of the compiled function and their final values outputs
    (`lowerer.state`, a dict slot key -> value, threaded through every `lax.cond` and
    `lax.while_loop` as part of the carry); the caller writes them back.
  * Errors: XLA cannot raise. A rule whose op would raise records the condition with
    `lowerer.fail_if(condition)`; the flags are or-ed into one boolean output (threaded like
    the state), and when it is set the caller runs the graph again on the numpy executor,
    which raises the error naming the op and the user's line. A wrong value is never returned.
  * Types: every output is cast to the dtype the graph declares, and a rule giving another
    static shape than the graph's makes the graph unsupported.
  * Host calls: ops that run Python call their kernels through ordered `io_callback`s
    (runtime/backends/jax_host.py); iterators are numbers (`HostHandle`) in a host table.
  * Subnormals: XLA on CPU flushes float32 subnormals to zero (as TensorFlow's CPU kernels
    do); no rule can tell at compile time whether a value will be subnormal, so a result
    depending on one may differ from the numpy executor's (documented, not declined).
  * Products: matrix products ask for full float32 precision (`FullPrecisionNumpy`); on a
    GPU XLA would otherwise use TF32 (results about 1e-3 off).
"""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from runtime import dtypes, executor
from runtime.backends import jax_host, lowering
from runtime.lowering_api import (
    ARRAY,
    HostCall,
    HostHandle,
    PendingTensorArray,
    TensorArrayBuffer,
    Unsupported,
    Value,
    VariableSlot,
    is_concrete,
)
from runtime.tensor_array.value import TensorArrayValue
from runtime.variables import Variable

_code: dict[str, Any] = {}  # the lines an "array" rule wrote -> their compiled code
_pytrees_registered = False


def jax_modules() -> tuple[Any, Any, Any]:
    """(jax, jax.numpy, jax.lax), imported on first use (jax is an optional dependency)."""
    import jax
    import jax.numpy as jnp
    from jax import lax
    _register_pytrees(jax)
    return jax, jnp, lax


class FullPrecisionNumpy:
    """`jax.numpy` whose products (matmul, dot, einsum, tensordot, inner, vdot) ask XLA for
    full float32 precision. By default XLA may multiply float32 matrices in TF32 or bf16
    passes on a GPU or TPU: a result about 1e-3 off the numpy executor's, where a backend
    must agree with it. The lowering rules use it as `lw.jnp`."""

    _PRODUCTS = ("matmul", "dot", "einsum", "tensordot", "inner", "vdot")

    def __init__(self, jnp: Any, lax: Any) -> None:
        self._jnp = jnp
        self._precise = {name: functools.partial(getattr(jnp, name),
                                                 precision=lax.Precision.HIGHEST)
                         for name in self._PRODUCTS}

    def __getattr__(self, name: str) -> Any:
        precise = self._precise.get(name)
        return precise if precise is not None else getattr(self._jnp, name)


@functools.cache
def _full_precision(jnp: Any, lax: Any) -> FullPrecisionNumpy:
    return FullPrecisionNumpy(jnp, lax)


def _register_pytrees(jax: Any) -> None:
    global _pytrees_registered
    if _pytrees_registered:
        return
    _pytrees_registered = True
    jax.tree_util.register_pytree_node(
        TensorArrayBuffer, lambda b: ((b.data, b.written), b.size),
        lambda size, children: TensorArrayBuffer(children[0], children[1], size))
    jax.tree_util.register_pytree_node(
        PendingTensorArray, lambda p: ((), (p.size, np.dtype(p.np_dtype).str)),
        lambda aux, children: PendingTensorArray(aux[0], np.dtype(aux[1])))
    jax.tree_util.register_pytree_node(
        HostHandle, lambda h: ((h.number,), None), lambda aux, children: HostHandle(children[0]))


class Lowerer:
    """Interprets graphs on JAX values while `jax.jit` traces (see the module docstring).

    `state` maps each variable slot's key to its current value; `failed` is the traced
    boolean of the error checks so far (None while there is none: a graph without checks
    carries no flag, and its compiled function returns none); `assigned` collects the keys
    of the variables that an op assigns (their values are written back after a call)."""

    def __init__(self, state: dict[str, Any], check_numerics: bool = False) -> None:
        self.jax, jnp, self.lax = jax_modules()
        self.jnp = _full_precision(jnp, self.lax)  # (one, made at the first lowering)
        self.state = dict(state)
        self.failed: Any = None
        self.assigned: set[str] = set()
        self.check_numerics = check_numerics
        self.variable_slots: dict[int, VariableSlot] = {}
        self.lowered_nodes = 0
        self.host: Any = None  # the compiled graph's jax_host.HostCalls (host calls)
        self.opened_handles: list[HostHandle] = []
        self._effects = False  # a host call with effects was lowered
        self._checks = False   # a check other than a host call's was lowered
        self._raising_host = False  # a host call running Python that may raise was lowered
        # id(traced value) -> (the value, lowest, highest element): see `bound`
        self._bounds: dict[int, tuple[Any, int, int]] = {}

    # -- walking graphs -------------------------------------------------------------------
    def lower_graph(self, graph: Any, fed: dict[int, Any],
                    outputs: Sequence[Any]) -> list[Any]:
        """Lowers `graph` with `fed` (id(placeholder) -> value); returns the `outputs`'
        values. Captured variables become their slots; other captures must be constants."""
        simplified = executor.simplify(graph, outputs)
        env = dict(fed)
        opened = len(self.opened_handles)
        for capture in graph.captures:
            key = id(capture.placeholder)
            if key in env or key in simplified.constants:
                continue
            if capture.leaked:
                raise Unsupported("the graph uses a symbolic tensor leaked from another trace")
            external = capture.external
            if isinstance(external, Variable):
                env[key] = self.slot_of(external)
            elif hasattr(external, "_next_flat") and self.host is not None:
                env[key] = self.host.captured_iterator(self, external)
            else:
                raise Unsupported("the graph captures a %s" % type(external).__name__)
        for node, inputs in simplified.nodes:
            ins = [self._value(t, env, simplified) for t in inputs]
            for t, value in zip(node.outputs, self.lower_node(node, ins)):
                env[id(t)] = value
        values = [None if t is None else self._value(t, env, simplified) for t in outputs]
        self._close_handles(opened, values)
        return values

    def _close_handles(self, opened: int, values: list[Any]) -> None:
        """Drops the host cursors opened in a graph after its last node (unless it returns
        one, which then stays open until the run ends)."""
        for handle in self.opened_handles[opened:]:
            if not any(v is handle for v in values):
                self.host.close_iterator(self, handle)
        del self.opened_handles[opened:]

    def slot_of(self, variable: Variable) -> VariableSlot:
        """The state slot of a captured variable (keyed by the variable's identity)."""
        slot = self.variable_slots.get(id(variable))
        if slot is None:
            raise Unsupported("variable %s is not an input of the compiled function"
                              % variable.name)
        return slot

    def _value(self, t: Any, env: dict[int, Any], simplified: executor.Simplified) -> Any:
        t = simplified.resolve(t)
        if id(t) in env:
            return env[id(t)]
        if id(t) in simplified.constants:
            value = simplified.constants[id(t)]
            if isinstance(value, TensorArrayValue):
                return self.constant_tensor_array(value)
            if t.dtype.kind not in ("int", "float", "bool", "complex"):
                raise Unsupported("a constant of dtype %s" % t.dtype.name)
            return np.asarray(value, t.dtype.np_dtype)
        raise Unsupported("no value for tensor %s" % t.name)

    def constant_tensor_array(self, value: TensorArrayValue) -> Any:
        """A folded TensorArray handle as a pending array or a buffer."""
        if value.dynamic_size:
            raise Unsupported("a TensorArray of dynamic size")
        items = value.items()
        np_dtype = value.np_dtype
        if np_dtype is None:
            raise Unsupported("a TensorArray of unknown dtype")
        written = [item is not None for item in items[:value.size]]
        if not any(written):
            shape = value.element_shape
            if shape is None or None in shape:
                return PendingTensorArray(value.size, np_dtype)
            return TensorArrayBuffer(self.jnp.zeros((value.size,) + tuple(shape), np_dtype),
                                     self.jnp.zeros(value.size, bool), value.size)
        example = next(item for item in items if item is not None)
        data = np.stack([np.asarray(item if item is not None else np.zeros_like(example),
                                    np_dtype) for item in items[:value.size]])
        return TensorArrayBuffer(self.jnp.asarray(data), self.jnp.asarray(written), value.size)

    def lower_node(self, node: Any, ins: list[Any]) -> list[Any]:
        """The output values of `node` for input values `ins`, by the op's rule."""
        try:
            rule = node.op.lowerings.get("jax")
            if rule is not None:
                outs = list(rule(self, node, ins))
            else:
                outs = self.array_rule(node, ins)
            if len(outs) != len(node.outputs):
                raise Unsupported("lowered to %d values, expected %d"
                                  % (len(outs), len(node.outputs)))
            typed = [self.typed(value, t) for value, t in zip(outs, node.outputs)]
        except Unsupported as e:
            raise e.at(node) from None
        self.lowered_nodes += 1
        return typed

    def array_rule(self, node: Any, ins: list[Any]) -> list[Any]:
        """Runs the op's "array" rule: the lines it writes are executed on `ins` (a "jax"
        rule hands it the cases it leaves to the array rule)."""
        writer = _LineWriter()
        names: dict[int, Any] = {}
        values = []
        for i, (t, value) in enumerate(zip(node.inputs, ins)):
            if not hasattr(value, "dtype"):
                raise Unsupported("an input is a %s" % type(value).__name__)
            values.append(Value("_in%d" % i, t.dtype, t._shape,
                                         np.asarray(value) if is_concrete(value) else None))
        writer.lower_node(node, values, names)
        source = "\n".join(writer.lines)
        code = _code.get(source)
        if code is None:
            code = _code[source] = compile(source, "<jax lowering of %s>" % node.op.name,
                                           "exec")
        failed = False if self.failed is None else self.failed
        namespace = {"xp": self.jnp, "np": np, "_failed": failed}
        namespace.update(("_in%d" % i, value) for i, value in enumerate(ins))
        exec(code, namespace)  # noqa: S102 - the lines our own rules wrote
        if namespace["_failed"] is not failed:  # the rule wrote a check
            self.failed = namespace["_failed"]
        return [namespace[names[id(t)]] for t in node.outputs]

    def typed(self, value: Any, t: Any) -> Any:
        """`value` as the dtype the graph declares for tensor `t`, its static shape checked."""
        if isinstance(value, (VariableSlot, TensorArrayBuffer, PendingTensorArray, HostHandle)):
            return value
        if t.dtype.kind not in ("int", "float", "bool", "complex"):
            raise Unsupported("gives a %s value" % t.dtype.name)
        want = t.dtype.np_dtype
        if is_concrete(value):
            value = np.asarray(value, want)
        elif value.dtype != want or getattr(value, "weak_type", False):
            value = self.lax.convert_element_type(value, want)
        shape = t._shape
        if shape is not None and tuple(np.shape(value)) != tuple(shape) and None not in shape:
            raise Unsupported("lowered to shape %s, the graph says %s"
                              % (np.shape(value), shape))
        if shape is not None and len(np.shape(value)) != len(shape):
            raise Unsupported("lowered to rank %d, the graph says %d"
                              % (len(np.shape(value)), len(shape)))
        if self.check_numerics and t.dtype.is_floating and not is_concrete(value):
            self.fail_if(self.jnp.logical_not(self.jnp.all(self.jnp.isfinite(value))))
        return value

    # -- what is known of traced values -------------------------------------------------
    def bound(self, value: Any, low: int, high: int) -> None:
        """Records that every element of traced integer or bool `value` lies in [low, high]
        (a counted loop's counter, an array known to be all true), so that a check this makes
        impossible is not compiled: see `bounds`. Kept until `unbound(value)`."""
        self._bounds[id(value)] = (value, low, high)

    def unbound(self, value: Any) -> None:
        """Forgets what `bound` recorded of `value` (a loop body's value, once lowered)."""
        self._bounds.pop(id(value), None)

    def bounds(self, value: Any) -> tuple[int, int] | None:
        """(lowest, highest) element of integer or bool `value` where it is known at compile
        time (a constant's, or what `bound` recorded); None otherwise."""
        if is_concrete(value):
            array = np.asarray(value)
            if array.size and array.dtype.kind in "iub":
                return int(array.min()), int(array.max())
            return None
        found = self._bounds.get(id(value))
        if found is None or found[0] is not value:
            return None
        return found[1], found[2]

    # -- errors and state ----------------------------------------------------------------
    def fail_if(self, condition: Any, host: bool = False) -> None:
        """Records that the graph fails (raises, on the numpy executor) where `condition`
        holds anywhere. A condition known at compile time to hold makes the graph
        unsupported, so the numpy executor raises at once. `host`: the condition is a host
        call's (its kernel raised; the caller raises that error, without a second run)."""
        if is_concrete(condition):
            if np.any(condition):
                raise Unsupported("an op fails on every run")
            return
        if not host:
            self._checks = True
            self._effects_with_checks()
        condition = self.jnp.any(condition)
        self.failed = (condition if self.failed is None
                       else self.jnp.logical_or(self.failed, condition))

    @staticmethod
    def is_host_call(op: Any) -> bool:
        """True for an op whose "jax" rule calls back to the host (runtime/backends/jax_host.py:
        its effects must not run in a branch that is not taken)."""
        return isinstance(op.lowerings.get("jax"), HostCall)

    def host_call(self, call: HostCall, node: Any, ins: list[Any]) -> list[Any]:
        """The outputs of the host call `call` (an op's declared rule), as jax_host runs it."""
        rule = jax_host.HOST_CALLS.get(call)
        if rule is None:
            raise Unsupported("JAX has no %s host call" % call.name)
        return rule(self, node, ins)

    def host_effect(self) -> None:
        """Records a host call with effects (printing, drawing, reading an iterator)."""
        self._effects = True
        self._effects_with_checks()

    def host_call_may_raise(self) -> None:
        """Records a host call running Python that may raise (a py_function, an iterator)."""
        self._raising_host = True
        self.check_assignments()

    def check_assignments(self) -> None:
        """Unsupported when the graph assigns variables and a host call may raise: the numpy
        executor keeps the assignments made before the error, the compiled call none."""
        if self._raising_host and self.assigned:
            raise Unsupported("it assigns variables and runs Python that may raise: after the "
                              "error the variables would keep their values from before the "
                              "call, not the assignments made before the error")

    def _effects_with_checks(self) -> None:
        if self._effects and self._checks:
            raise Unsupported("it has host effects and a check: after a failed check the "
                              "numpy executor runs the graph again, repeating the effects")

    @contextlib.contextmanager
    def scope(self, state: dict[str, Any], failed: Any) -> Iterator[None]:
        """Runs a block (a branch, a loop body) with `state` and `failed` as the current
        ones, then restores those of the caller: the block returns its own."""
        saved = self.state, self.failed
        self.state, self.failed = dict(state), failed
        try:
            yield
        finally:
            self.state, self.failed = saved

    def carried(self, value: Any) -> Any:
        """`value` as a JAX value fit for a `lax` carry (constants become arrays)."""
        if isinstance(value, TensorArrayBuffer):
            return TensorArrayBuffer(self.jnp.asarray(value.data),
                                     self.jnp.asarray(value.written), value.size)
        if isinstance(value, (PendingTensorArray, VariableSlot, HostHandle)) or value is None:
            return value
        return self.jnp.asarray(value)


class _LineWriter(lowering.Lowerer):
    """Writes one node's "array" rule as lines that `Lowerer.array_rule` executes at once:
    a check becomes `_failed = _failed | condition`."""

    name = ARRAY

    def __init__(self) -> None:
        super().__init__()
        self.indent = 0

    def check(self, failed: str, error: type[Exception], message: str) -> None:
        """Or-s the condition into the lowered function's error flag."""
        self.line("_failed = xp.logical_or(_failed, xp.any(%s))" % failed)

    def cast(self, expr: str, dtype: dtypes.DType) -> str:
        """numpy's cast; a float outside the integer type's range (or NaN) gets numpy's
        integer here, where XLA's conversion would saturate (NaN to 0)."""
        source = getattr(expr, "dtype", None)
        if source is None or not source.is_floating or not dtype.is_integer:
            return super().cast(expr, dtype)
        nan, high, low = _out_of_range_casts(source.np_dtype, dtype.np_dtype)
        limit = float(2 ** (8 * dtype.np_dtype.itemsize - 1))
        target = self.literal(dtype)
        return ("xp.where(xp.isnan({0}), {4}, xp.where({0} >= {1!r}, {5}, xp.where("
                "{0} < {2!r}, {6}, xp.asarray({0}, dtype={3}))))").format(
                    expr, limit, -limit, target, *("%s(%d)" % (target, v)
                                                   for v in (nan, high, low)))


@functools.lru_cache(maxsize=None)
def _out_of_range_casts(source: np.dtype, target: np.dtype) -> tuple[int, int, int]:
    """What numpy's cast from float dtype `source` to integer dtype `target` gives NaN, a
    value too high and one too low on this machine (INT_MIN on x86; saturating elsewhere)."""
    probe = np.array([np.nan, np.inf, -np.inf], source)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        nan, high, low = probe.astype(target).tolist()
    return nan, high, low
