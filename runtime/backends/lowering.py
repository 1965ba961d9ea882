"""The lowering walker: writes a compiled backend's source for a graph, one node at a time.

It walks the graph the executor would run, simplified the same way (`executor.simplify`:
constants folded, duplicates merged, dead nodes dropped), and asks each node's op for its
rule for the backend: `op.lowerings[backend name]`, else `op.lowerings["array"]`, a
backend-neutral rule in numpy-API terms that numba (numpy inside `njit`) and jax.numpy both
read, `xp` standing for the backend's array module (runtime/lowering_api.py holds the
vocabulary rules share with the backends). A rule is declared in the op's own
`register(..., lowerings={...})` call and is one of:

  * a template string, the expression of the op's one output: `{0}`, `{1}`... are the inputs,
    `{name}` an attribute (written as a Python literal: numbers, tuples, None, and dtypes as
    `xp.float32`...), e.g. "{0} + {1}", "xp.tanh({0})", "xp.sum({0}, axis={axis})";
  * a callable `rule(lowerer, node, ins, outs)` writing statements with the `Lowerer` API
    (`line`, `assign`, `check`, `block`, `lower_graph` for sub-graphs, `literal`), where
    `ins` and `outs` are `Value`s (expression strings knowing their dtype, static shape and,
    for a constant, value); it raises `lowering_api.Unsupported(reason)` for a case it cannot
    lower (the walker adds the op and the user's line).

A node whose op has no rule (a `host_only` op, which runs Python, declares none) makes the
walker raise `Unsupported` naming the op and the user's line: the graph then runs on the
numpy executor (see runtime/backends/__init__.py). Control-flow ops lower their sub-graphs
recursively through their rule (`lowerer.lower_graph(sub.graph, fed, sub.outputs)`).

The JAX backend lowers by tracing instead (runtime/backends/jax_lowering.py): it runs the
lines an "array" rule writes for a node at once on traced values, and its own "jax" rules,
which it alone reads, follow `rule(lowerer, node, ins) -> [output values]`; they are functions
beside their ops that take `jnp` and `lax` from the lowerer, so that declaring an op imports no
jax (If's and While's, with the scan lowering of counted loops, are in
runtime/ops/control_flow_jax.py).

A backend subclasses `Lowerer`, giving its `name`, how constants and captured values enter
the code (`constant`, `capture`), how an output takes its dtype (`assign`) and how a check
fails (`check`).
"""

from __future__ import annotations

import contextlib
import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from runtime import dtypes, executor
from runtime.lowering_api import ARRAY, HostCall, Unsupported, Value, rule_for


class Lowerer:
    """Writes the source of one function for a backend; sub-graphs share it."""

    name = ARRAY  # the backend's name, the key of its own rules

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.indent = 1
        self.line_nodes: dict[int, Any] = {}  # line number -> node (for error messages)
        self.node: Any = None                 # the node being lowered
        self._names = itertools.count()

    # -- the API rules use -------------------------------------------------------------------
    def fresh(self, prefix: str = "v") -> str:
        """A new local name."""
        return "%s%d" % (prefix, next(self._names))

    def local(self, dtype: dtypes.DType, shape: Any, prefix: str = "v") -> Value:
        """A new local Value (a loop variable, say) of `dtype` and static `shape`."""
        return Value(self.fresh(prefix), dtype, shape)

    def line(self, text: str) -> None:
        """Appends a line at the current indentation, remembering the node it belongs to."""
        self.lines.append("    " * self.indent + text)
        if self.node is not None:
            self.line_nodes[len(self.lines)] = self.node

    @contextlib.contextmanager
    def block(self) -> Iterator[None]:
        """Lines written inside are indented one level more (the body of an if/while)."""
        self.indent += 1
        try:
            yield
        finally:
            self.indent -= 1

    def assign(self, out: Value, expr: str) -> None:
        """`out = expr`, with `expr` converted to `out`'s dtype where the backend needs it."""
        self.line("%s = %s" % (out, expr))

    def check(self, failed: str, error: type[Exception], message: str) -> None:
        """Writes a check: when the expression `failed` is true, the op fails with
        `error(message)` (an exception class, e.g. ZeroDivisionError), as its kernel does."""
        raise Unsupported("this backend cannot raise %s (%s)" % (error.__name__, message))

    def check_broadcast(self, *operands: Value) -> None:
        """Writes the check that `operands` broadcast together, for a rule that calls numpy's
        broadcasting function itself (not a fused loop, which checks its own): nothing here,
        where a program is traced for its inputs' concrete shapes and a bad broadcast fails
        the trace (JAX)."""

    def cast(self, expr: str, dtype: dtypes.DType) -> str:
        """`expr` converted to `dtype` (numpy's casting: floats to ints truncate)."""
        return "xp.asarray(%s, dtype=%s)" % (expr, self.literal(dtype))

    def literal(self, value: Any) -> str:
        """An attribute value as Python source for the backend (Unsupported if it has none)."""
        if isinstance(value, dtypes.DType):
            if value.kind not in ("int", "float", "complex", "bool"):
                raise Unsupported("dtype %s" % value.name)
            return "xp.%s" % ("bool_" if value is dtypes.bool_ else value.np_dtype.name)
        if value is None or isinstance(value, (bool, int, float, str)):
            return repr(value)
        if isinstance(value, (np.integer, np.floating, np.bool_)):
            return repr(value.item())
        if isinstance(value, (tuple, list)):
            items = [self.literal(v) for v in value]
            return "(%s)" % "".join(item + ", " for item in items)
        raise Unsupported("attribute value %r has no literal" % (value,))

    def constant(self, value: Any, dtype: dtypes.DType, shape: Any) -> str:
        """The expression for a constant (the backend decides: a literal, a parameter)."""
        raise Unsupported("constants")

    def read_variable(self, resource: Value, snapshot: bool = True) -> str:
        """The expression reading the variable `resource` stands for (its current value);
        with `snapshot` false, an expression that may be the variable's storage itself, for
        a read consumed at once (an update's `variable - delta`)."""
        raise Unsupported("variables")

    def kernel_on_host(self, node: Any, ins: list[Value], outs: list[Value]) -> None:
        """Writes a call of `node`'s own kernel on the host, at this point of the lowered
        code, assigning `outs` (none: a call made only to raise the kernel's error)."""
        raise Unsupported("this backend cannot call the host")

    def host_call(self, call: HostCall, node: Any, ins: list[Value],
                  outs: list[Value]) -> None:
        """Writes the host call `call` (an op's declared rule, see lowering_api.HostCall)
        for `node`, assigning `outs`."""
        raise Unsupported("this backend cannot call the host")

    def write_variable(self, resource: Value, value: str) -> None:
        """Writes statements storing `value` into the variable `resource` stands for."""
        raise Unsupported("variables")

    def capture(self, capture: Any) -> Value:
        """The value of a captured outside tensor or variable (Unsupported by default)."""
        raise Unsupported("captured %s" % type(capture.external).__name__)

    # -- the walk ----------------------------------------------------------------------------
    def lower_graph(self, graph: Any, fed: Mapping[int, Value],
                    outputs: Sequence[Any]) -> list[Value]:
        """Writes the nodes of `graph` and returns the Values of `outputs`. `fed` maps
        id(placeholder) to the Value feeding it (arguments, or a sub-graph's op inputs)."""
        simplified = executor.simplify(graph, outputs)
        names: dict[int, Value] = dict(fed)
        for capture in graph.captures:
            key = id(capture.placeholder)
            if key in names or key in simplified.constants:
                continue
            if capture.leaked:
                raise Unsupported("the graph captured a leaked symbolic tensor")
            names[key] = self.capture(capture)
        self.lower_nodes(simplified, names, outputs)
        return [self.value_of(t, names, simplified) for t in outputs]

    def lower_nodes(self, simplified: executor.Simplified, names: dict[int, Value],
                    outputs: Sequence[Any]) -> None:
        """Writes the simplified graph's nodes in order (a backend may group some, e.g.
        fuse elementwise ops into one loop)."""
        for node, inputs in simplified.nodes:
            ins = [self.value_of(t, names, simplified) for t in inputs]
            self.lower_node(node, ins, names)

    def value_of(self, t: Any, names: dict[int, Value], simplified: executor.Simplified) -> Value:
        """The Value holding tensor `t` (a constant's expression is written on first use)."""
        t = simplified.resolve(t)
        found = names.get(id(t))
        if found is not None:
            return found
        if id(t) in simplified.constants:
            value = np.asarray(simplified.constants[id(t)])
            found = names[id(t)] = Value(self.constant(value, t.dtype, value.shape), t.dtype,
                                         value.shape, value)
            return found
        raise Unsupported("no value for tensor %s" % t.name)

    def lower_node(self, node: Any, ins: list[Value], names: dict[int, Value]) -> None:
        """Writes one node with its op's rule; raises Unsupported naming it when it has none
        or its rule refuses."""
        outer = self.node
        self.node = node
        try:
            rule = rule_for(node.op, self.name)
            if rule is None:
                if "host_only" in node.op.traits:
                    raise Unsupported("it runs Python on the host")
                raise Unsupported("it has no lowering for backend %r" % self.name)
            outs = [Value(self.fresh(), t.dtype, t._shape) for t in node.outputs]
            if isinstance(rule, str):
                if len(outs) != 1:
                    raise Unsupported("a template lowers one output, the op has %d" % len(outs))
                attrs = {k: _Lazy(self, v) for k, v in node.attrs.items()}
                self.assign(outs[0], rule.format(*ins, **attrs))
            else:
                rule(self, node, ins, outs)
            for t, out in zip(node.outputs, outs):
                names[id(t)] = out
        except Unsupported as e:
            raise e.at(node) from None
        finally:
            self.node = outer


class Uses:
    """Where each tensor of a simplified graph is used, for the rules and passes that choose
    by it: `users[id(t)]`, the nodes using `t` in order (None standing for the graph's
    outputs), and `last[id(t)]`, the position in `simplified.nodes` of its last use
    (math.inf for an output)."""

    def __init__(self, simplified: executor.Simplified, outputs: Sequence[Any]) -> None:
        self.users: dict[int, list[Any]] = {}
        self.last: dict[int, float] = {}
        for position, (node, inputs) in enumerate(simplified.nodes):
            for t in inputs:
                key = id(simplified.resolve(t))
                self.users.setdefault(key, []).append(node)
                self.last[key] = position
        for t in outputs:
            if t is not None:
                key = id(simplified.resolve(t))
                self.users.setdefault(key, []).append(None)
                self.last[key] = math.inf


class _Lazy:
    """An attribute in a template, written as a literal only when the template uses it."""

    __slots__ = ("lowerer", "value")

    def __init__(self, lowerer: Lowerer, value: Any) -> None:
        self.lowerer = lowerer
        self.value = value

    def __format__(self, spec: str) -> str:
        return self.lowerer.literal(self.value)
