"""The vocabulary of lowering rules: what an op's rule for a compiled backend receives, raises
and calls, shared by the op declarations (runtime/ops) and the backends (runtime/backends).

An op declares its rules in its own `register(..., lowerings={...})` call, keyed by backend
name, "array" (`ARRAY`) standing for every array backend:

  * a template string in numpy-API terms, the expression of the op's one output (`{0}` the
    inputs, `{axis}` an attribute, `xp` the backend's array module): "xp.tanh({0})";
  * a statement rule `rule(lowerer, node, ins, outs)` (under "array" or "numba") writing
    lines with the `Lowerer` API, `ins` and `outs` being `Value`s
    (runtime/backends/lowering.py walks the graph);
  * a JAX rule `rule(lowerer, node, ins) -> [output values]` computing on traced values with
    `lowerer.jnp` and `lowerer.lax` (runtime/backends/jax_lowering.py): a rule never imports
    jax itself, so that importing an op module imports neither jax nor numba;
  * `unsupported(reason)`: a decision that the backend does not lower the op yet;
  * `loop_alone(rule)`: a template or function rule that numba writes as a loop over the
    elements even with no elementwise neighbour to fuse it with (its array form makes
    temporary arrays);
  * `removed_before_lowering(how)`: a decision that no backend sees the op, because graph
    simplification always takes its nodes out (an Identity is aliased to its input);
  * a `HostCall` (`KERNEL_ON_HOST`, `ASSERT_ON_HOST`, ...): the op runs back on the host
    from the compiled code, in the way the host call names, which every compiled backend
    implements (host-only ops and random draws; a numba rule may also write one itself with
    `lowerer.kernel_on_host`).

A rule raises `Unsupported(reason)` for a case it cannot lower; the graph then runs on the
numpy executor. A JAX rule's inputs are arrays, or the values below that stand for
variables, TensorArrays and host cursors. This module imports neither numba nor jax nor any
op module: it sits below both the ops and the backends.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime import dtypes

ARRAY = "array"  # the key of the backend-neutral rules


class Unsupported(Exception):
    """A graph (or one op of it) that a backend cannot lower or compile: `reason` says why,
    naming the op and the user's line where one is to blame."""

    def __init__(self, reason: str, node: Any = None) -> None:
        self.reason = reason
        self.node = node
        super().__init__(reason)

    def at(self, node: Any) -> Unsupported:
        """This error, naming `node` (its op and the user's line) unless it names one."""
        if self.node is not None or node is None:
            return self
        where = ""
        location = getattr(node, "location", None)
        if location is not None:
            where = " at %s:%s" % (location.filename, location.lineno)
        return Unsupported("op %s (node %r)%s: %s" % (node.op.name, node.name, where,
                                                     self.reason), node)


def shape_text(parts: Any, separator: str = ",") -> str:
    """A shape as numpy's messages print it, from the texts of its dimensions (a number, or
    `%d` where a check fills it in at run time): `(2,3)`, `(3,)`, `()`; with separator
    ", ", as a Python tuple prints."""
    parts = list(parts)
    return "(%s%s)" % (separator.join(parts), "," if len(parts) == 1 else "")


def unsupported(reason: str) -> Any:
    """A lowering rule that declines, saying why: for an op no backend lowers yet (declared so
    that the coverage table shows the decision, and the graph falls back with `reason`)."""
    def rule(lowerer: Any, node: Any, ins: Any, outs: Any = None) -> None:
        raise Unsupported(reason)  # (no `outs` from JAX, whose rules return the outputs)
    rule.unsupported_reason = reason  # type: ignore[attr-defined]
    return rule


class _LoopTemplate(str):
    """A template rule that a numba kernel writes as a loop of its own (see `loop_alone`)."""

    fused_alone = True


def loop_alone(rule: Any) -> Any:
    """Rule `rule` of an elementwise op (a template, or a function), which numba writes as a
    loop over the elements even where no elementwise op next to it joins it in a fused loop
    (runtime/backends/numba_fusion.py): its array form would build temporary arrays first
    (a comparison's booleans), which the loop does not."""
    if isinstance(rule, str):
        return _LoopTemplate(rule)
    rule.fused_alone = True
    return rule


def checked_before_broadcast(rule: Any) -> Any:
    """Marks elementwise `rule` as checking an operand whole before the op broadcasts (an
    integer divisor of zero, as the division kernels check it first): numba's loop over
    shapes known only at run time (runtime/backends/numba_fusion.py), which checks its
    broadcast first and a value element by element, leaves such an op to this rule, so
    that the errors come in the kernel's order."""
    rule.checks_before_broadcast = True
    return rule


def removed_before_lowering(how: str) -> Any:
    """The decision for an op that graph simplification (runtime.executor.simplify, which the
    backends' walkers run first) always takes out, saying `how`: no backend ever lowers a
    node of it, and the coverage table says so. Should a node reach a backend all the same,
    the rule declines it (the graph runs on the numpy executor)."""
    def rule(lowerer: Any, node: Any, ins: Any, outs: Any = None) -> None:
        raise Unsupported("it should have been removed before lowering (%s)" % how)
    rule.removed_reason = how  # type: ignore[attr-defined]
    return rule


# The lowerings of the ops that only gradients emit (PadGrad, TensorArrayGrad, ...): none,
# for every backend; a graph holding one runs on the numpy executor.
GRADIENTS_ON_HOST = {ARRAY: unsupported("gradient ops run on the numpy executor")}


class Value(str):
    """A value in lowered code: its expression (the string itself), `dtype`, static `shape`
    (None when unknown) and `value`, the numpy value of a constant (else None)."""

    dtype: dtypes.DType
    shape: tuple[int | None, ...] | None
    value: Any

    def __new__(cls, expr: str, dtype: dtypes.DType, shape: Any, value: Any = None) -> Value:
        self = super().__new__(cls, expr)
        self.dtype = dtype
        self.shape = None if shape is None else tuple(shape)
        self.value = value
        return self

    @property
    def rank0(self) -> bool:
        """True for a rank-0 value (a typed scalar in the lowered code)."""
        return self.shape == ()


def rule_for(op: Any, backend: str) -> Any:
    """The op's lowering rule for `backend` (its own, else the "array" one), or None."""
    rule = op.lowerings.get(backend)
    if rule is None:
        rule = op.lowerings.get(ARRAY)
    return rule


def is_concrete(value: Any) -> bool:
    """True for a JAX rule's input known at compile time (a numpy constant of the graph),
    False for a traced value."""
    return isinstance(value, (np.ndarray, np.generic, bool, int, float))


def static_shape(shape: Any, what: str) -> tuple[int, ...]:
    """`shape` as a tuple of ints for a JAX rule, which needs shapes known at compile time;
    Unsupported (naming `what`) when a dimension is known only at run time."""
    if shape is None or None in shape:
        raise Unsupported("%s is known only at run time" % what)
    return tuple(int(d) for d in shape)


# -- what a JAX rule carries besides arrays (the JAX backend registers them as pytrees) -----


class VariableSlot:
    """A variable's place in the lowered function's state (`Lowerer.state[key]`)."""

    __slots__ = ("key", "dtype", "shape")

    def __init__(self, key: str, dtype: Any, shape: Any) -> None:
        self.key = key
        self.dtype = dtype
        self.shape = shape


class TensorArrayBuffer:
    """A TensorArray of static `size` as a buffer `data` (size, *element_shape) and a bool
    vector `written`: reads of unwritten elements are errors, as on the numpy executor."""

    __slots__ = ("data", "written", "size")

    def __init__(self, data: Any, written: Any, size: int) -> None:
        self.data = data
        self.written = written
        self.size = size


class PendingTensorArray:
    """A TensorArray nothing was written to yet, whose element shape is not known: it has no
    buffer until its first write tells the shape (a static value, not a traced one)."""

    __slots__ = ("size", "np_dtype")

    def __init__(self, size: int, np_dtype: Any) -> None:
        self.size = size
        self.np_dtype = np_dtype


class HostHandle:
    """A cursor kept on the host (an iterator, see runtime/backends/jax_host.py): the program
    carries its `number` in the host's table."""

    __slots__ = ("number",)

    def __init__(self, number: Any) -> None:
        self.number = number


class HostCall:
    """A lowering rule that calls back to the host from compiled code: the op runs there, at
    the same point of the computation and in order, as on the numpy executor. An op declares
    one of the host calls below by reference; each compiled backend implements them (its
    lowerer's `host_call(call, node, ins, ...)`, see runtime/backends/numba_host.py and
    jax_host.py), so that an op module imports no backend."""

    __slots__ = ("name", "doc")

    def __init__(self, name: str, doc: str) -> None:
        self.name = name
        self.doc = doc

    def __call__(self, lowerer: Any, node: Any, ins: Any, *outs: Any) -> Any:
        return lowerer.host_call(self, node, ins, *outs)

    def __repr__(self) -> str:
        return "<host call %s>" % self.name


KERNEL_ON_HOST = HostCall("kernel", "the op's kernel, called on the host with the input "
                          "values and the node's attributes")
PY_FUNCTION_ON_HOST = HostCall("py_function", "a py_function's kernel, called on the host; "
                               "declined where a gradient records the call (the executor "
                               "keeps the identity of its outputs)")
ASSERT_ON_HOST = HostCall("assert", "the condition checked in compiled code; only when it "
                          "fails is the op's kernel called on the host, to raise its message")
OPEN_ITERATOR_ON_HOST = HostCall("open_iterator", "the op's kernel opens a pass over a "
                                 "dataset on the host; compiled code holds its handle")
ITERATOR_GET_NEXT_ON_HOST = HostCall("iterator_get_next", "the op's kernel reads the next "
                                     "element of the iterator its handle names, on the host")
ITERATOR_HAS_NEXT_ON_HOST = HostCall("iterator_has_next", "the op's kernel looks one element "
                                     "ahead in the iterator its handle names, on the host")
HOST_CALLS = (KERNEL_ON_HOST, PY_FUNCTION_ON_HOST, ASSERT_ON_HOST, OPEN_ITERATOR_ON_HOST,
              ITERATOR_GET_NEXT_ON_HOST, ITERATOR_HAS_NEXT_ON_HOST)
