"""Turns a finished graph into a fast Python callable.

The graph is first simplified (constant folding, common-subexpression elimination, dead-node
elimination, all driven by the ops' declared traits, never their names: `stateful` ops are
never folded or merged, `no_fold` ops never folded, `side_effects` ops never removed, and
program order is kept), then written out as the source of one Python function
with one local per value and direct kernel calls, e.g.

    def double(a):
        v1 = a + a
        return (v1,)

Where what is known about an op's inputs allows faster Python with the kernel's results,
the op's own `emit` hook writes it (`x % c`, `np.add.reduce(x, None, np.float32)`, numpy
scalar constants). The hooks live with the kernels in runtime/ops and see each input as an
`Operand` (expression, dtype, static shape, constant value): the executor holds no per-op
rules. The While lowering (runtime/ops/control_flow_ops.py) reads rank-0 loop values as numpy
scalars once before the loop.

An output that may share memory with state outliving the run (a constant, a variable's
value, a view of one: `outputs_holding_state`) is returned as a copy; the others are not.

The source is registered with `linecache`, so tracebacks and debuggers can show it, and each
line maps back to the graph node (and so the user's line) it came from: that is how an error
raised while running names the op and the line of user code that created it.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import keyword
import linecache
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import CodeType, TracebackType
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from runtime import dtypes, errors
from runtime.ops import registry
from runtime.tensor import EagerTensor, SymbolicTensor

if TYPE_CHECKING:
    from runtime.graph import Graph, Node

_FOLD_LIMIT_BYTES = 1 << 20
_counter = itertools.count()
# False while a graph is compiled only to check it (a loaded model, see
# `checking_without_folding`): constant folding would run the model's computation.
_folding = contextvars.ContextVar("autograph_executor_folding", default=True)


def is_plain_name(text: str) -> bool:
    """True when `text` may be written as it is in generated source as a name: an ASCII
    Python identifier that is not a keyword (`lambda`, `None`, `if`...)."""
    return (type(text) is str and text.isascii() and text.isidentifier()
            and not keyword.iskeyword(text))


def python_name(text: str, prefix: str = "f_") -> str:
    """A name for generated source made from `text` (a function's or an op's name, which
    may come from a saved model): characters other than ASCII letters, digits and `_`
    become `_`, and `prefix` is put first when the result would not be a plain name (empty,
    starting with a digit, a keyword such as `lambda` or `None`). Never text that is not a
    name, whatever `text` holds."""
    if is_plain_name(text):
        return text  # (the commonest case, and what the rest would give)
    name = "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in str(text))
    return name if is_plain_name(name) else prefix + name


@contextlib.contextmanager
def checking_without_folding() -> Iterator[None]:
    """Within it, graphs compile without constant folding: used where a graph is compiled
    only to check that it compiles (loading a saved model), which must not run the
    graph's computation; the graphs compiled in it are compiled again for their calls."""
    token = _folding.set(False)
    try:
        yield
    finally:
        _folding.reset(token)


class Emitter:
    """Writes Python source for graph nodes; nested graphs (control flow) share it."""

    def __init__(self, check_numerics: bool = False) -> None:
        self.lines: list[str] = []
        self.namespace: dict[str, Any] = {"np": np}
        self.line_nodes: dict[int, Node] = {}
        self._names = itertools.count()
        self._bound: dict[int, str] = {}
        self._scalars: dict[int, tuple[Any, str]] = {}
        self.check_numerics = check_numerics
        # True while writing code that runs under `np.errstate(over="ignore")` (a loop that
        # computes integers, see control_flow): there integer arithmetic on numpy scalars
        # wraps silently on overflow, as it does on arrays (and in TensorFlow).
        self.overflow_ignored = False

    def fresh(self, prefix: str = "v") -> str:
        """A new local variable name."""
        return "%s%d" % (prefix, next(self._names))

    def bind(self, value: Any, prefix: str = "c") -> str:
        """A global name in the generated module's namespace holding `value` (`prefix`
        starts the name; it is made a plain name if it is not one)."""
        key = id(value)
        found = self._bound.get(key)
        if found is not None and self.namespace[found] is value:
            return found
        name = "%s%d" % (python_name(prefix, "c_"), next(self._names))
        self.namespace[name] = value
        self._bound[key] = name
        return name

    # Emit hooks written as `emit(outs, ins, attrs, bind)` call the emitter to bind a value.
    __call__ = bind

    def bind_scalar(self, value: Any) -> str:
        """A global name holding the rank-0 constant `value` (a 0-d array) as a numpy scalar."""
        if not isinstance(value, np.ndarray):
            return self.bind(value)
        found = self._scalars.get(id(value))
        if found is None or found[0] is not value:
            found = self._scalars[id(value)] = (value, self.bind(value[()]))
        return found[1]

    def line(self, text: str, indent: int, node: Node | None = None) -> None:
        """Appends a line of source; remembers which node it belongs to."""
        self.lines.append("    " * indent + text)
        if node is not None:
            self.line_nodes[len(self.lines) + 1] = node  # +1 for the def line


class Operand(str):
    """One input of a node as the op's `emit` hook sees it: the expression that holds the
    value in generated code (the string itself), and what is known before running it:
    `dtype`, the static `shape` (None when unknown), `value`, the numpy value of a constant
    (None when the value is computed or fed), and whether it is one of the function's
    `argument`s, which arrive as ndarrays even at rank 0 (where op results are numpy
    scalars)."""

    dtype: dtypes.DType
    shape: tuple[int | None, ...] | None
    value: Any
    argument: bool
    _emitter: Emitter

    def __new__(cls, expr: str, dtype: dtypes.DType, shape: tuple[int | None, ...] | None,
                value: Any, emitter: Emitter, argument: bool = False) -> Operand:
        self = super().__new__(cls, expr)
        self.dtype = dtype
        self.shape = shape
        self.value = value
        self.argument = argument
        self._emitter = emitter
        return self

    @property
    def scalar(self) -> str:
        """This operand spelled as a numpy scalar when it is a rank-0 numeric or bool constant
        (else the expression itself). Numpy scalars give the same dtype and values as 0-d
        arrays, at a fraction of the cost per operation; see `common.elementwise_operands`
        for when an op may use them."""
        if self.value is None or self.shape != () or self.dtype.kind not in _SCALAR_KINDS:
            return self
        return self._emitter.bind_scalar(self.value)


_SCALAR_KINDS = ("int", "float", "bool")


def _freeze(value: Any) -> Any:
    """A hashable key for an attribute value, or raise TypeError."""
    if isinstance(value, np.ndarray):
        if value.dtype == object or value.size > 64:
            raise TypeError("not frozen")
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    hash(value)
    return value


class Simplified:
    """The outcome of simplifying a graph: live nodes in order, and constant-valued tensors."""

    def __init__(self, nodes: list[tuple[Node, list[SymbolicTensor]]],
                 constants: dict[int, Any], aliases: dict[int, SymbolicTensor]) -> None:
        self.nodes = nodes
        self.constants = constants  # id(tensor) -> numpy value
        self.aliases = aliases      # id(tensor) -> tensor it equals

    def resolve(self, t: SymbolicTensor) -> SymbolicTensor:
        """The tensor `t` stands for: itself, or the one it equals (following aliases)."""
        while id(t) in self.aliases:
            t = self.aliases[id(t)]
        return t


def simplify(graph: Graph, outputs: Sequence[SymbolicTensor | None]) -> Simplified:
    """Folds constants, merges duplicates and drops dead nodes.

    Placeholders are fed at run time, except captures of eager tensors, which are constant.
    """
    constants: dict[int, Any] = {}
    aliases: dict[int, SymbolicTensor] = {}
    seen: dict[Any, Node] = {}
    kept = []
    folding = _folding.get()
    for capture in graph.captures:
        if isinstance(capture.external, EagerTensor):
            constants[id(capture.placeholder)] = capture.external._value

    def resolve(t: SymbolicTensor) -> SymbolicTensor:
        while id(t) in aliases:
            t = aliases[id(t)]
        return t

    for node in graph.nodes:
        op = node.op
        traits = op.traits
        if "placeholder" in traits:
            continue
        if "constant" in traits:
            constants[id(node.outputs[0])] = node.attrs["value"]
            continue
        inputs = node.inputs
        if aliases:
            resolved = [resolve(t) for t in inputs]
            if any(a is not b for a, b in zip(resolved, inputs)):
                inputs = resolved
        if "forwards" in traits and len(inputs) == 1:
            aliases[id(node.outputs[0])] = inputs[0]
            continue
        if not op.stateful:
            if folding and not op.no_fold and (
                    "shape_only" in traits or _all_constant(inputs, constants)):
                folded = _try_fold(node, inputs, constants)
                if folded is not None:
                    for t, v in zip(node.outputs, folded):
                        constants[id(t)] = v
                    continue
            try:
                key = (op.name, tuple([_input_key(t, constants) for t in inputs]),
                       _freeze(node.attrs) if node.attrs else ())
            except TypeError:
                key = None
            if key is not None:
                previous = seen.get(key)
                if previous is not None:
                    for mine, theirs in zip(node.outputs, previous.outputs):
                        aliases[id(mine)] = theirs
                    continue
                seen[key] = node
        kept.append((node, inputs))

    # Dead-node elimination, walking backwards from outputs and side effects.
    live = set()
    for out in outputs:
        if out is not None:
            live.add(id(resolve(out)))
    result = []
    for node, inputs in reversed(kept):
        if node.op.side_effects or any(id(t) in live for t in node.outputs):
            for t in inputs:
                live.add(id(t))
            result.append((node, inputs))
    result.reverse()
    return Simplified(result, constants, aliases)


def _all_constant(inputs: Sequence[SymbolicTensor], constants: dict[int, Any]) -> bool:
    """True when there are inputs and each has a constant value (a node to try folding)."""
    for t in inputs:
        if id(t) not in constants:
            return False
    return bool(inputs)


def _input_key(t: SymbolicTensor, constants: dict[int, Any]) -> Any:
    """Equal constants compare equal (by value); other tensors by identity."""
    value = constants.get(id(t))
    if value is None:
        return id(t)
    return ("const", t.dtype.name, _freeze(np.asarray(value)))


def _try_fold(node: Node, inputs: list[SymbolicTensor],
              constants: dict[int, Any]) -> list[Any] | None:
    op = node.op
    if not all(_fits_fold_limit(t) for t in node.outputs):
        return None  # (known before computing: a result too large to keep is not computed)
    if "shape_only" in op.traits:
        shape = inputs[0]._shape
        if shape is None or None in shape:
            return None
        dims = cast("tuple[int, ...]", shape)  # every dimension is known here
        dummy = np.broadcast_to(np.zeros((), inputs[0].dtype.np_dtype), dims)
        return [np.asarray(op.kernel(dummy, **node.attrs))]
    if not inputs or any(id(t) not in constants for t in inputs):
        return None
    if any(t.dtype is dtypes.resource for t in inputs):
        return None
    try:
        values = op.kernel(*[constants[id(t)] for t in inputs], **node.attrs)
    except Exception:  # leave the failure to run time, where it is reported with context
        return None
    values = values if len(node.outputs) != 1 else (values,)
    out = []
    for t, v in zip(node.outputs, values):
        v = np.asarray(v, dtype=t.dtype.np_dtype)
        if v.nbytes > _FOLD_LIMIT_BYTES:
            return None
        out.append(v[()] if v.ndim == 0 and t.dtype.kind != "string" else v)
    return out


def _fits_fold_limit(t: SymbolicTensor) -> bool:
    """Whether output `t`'s static shape allows a folded value within the size limit; an
    output of unknown shape may (its value's size is checked once computed)."""
    shape = t._shape
    if shape is None or None in shape:
        return True
    count = 1
    for d in shape:
        count *= cast(int, d)
    return count * max(t.dtype.np_dtype.itemsize, 1) <= _FOLD_LIMIT_BYTES


def source_name(t: SymbolicTensor, names: dict[int, str], simplified: Simplified,
                emitter: Emitter) -> str:
    """The expression that holds tensor `t`'s value in generated code."""
    t = simplified.resolve(t)
    found = names.get(id(t))
    if found is not None:
        return found
    if id(t) in simplified.constants:
        name = emitter.bind(simplified.constants[id(t)])
        names[id(t)] = name
        return name
    raise KeyError("no value for tensor %s" % t.name)


def operand(t: SymbolicTensor, names: dict[int, str], simplified: Simplified,
            emitter: Emitter) -> Operand:
    """Tensor `t` as an `Operand`: its expression in generated code with its dtype, static
    shape and, for a constant, its value. A sub-graph's placeholder fed by an Operand (an If
    branch's capture) keeps what that Operand knows."""
    aliases = simplified.aliases
    while id(t) in aliases:
        t = aliases[id(t)]
    expr = names.get(id(t))  # (source_name's work, done once here for the value too)
    value = simplified.constants.get(id(t))
    if expr is None:
        expr = source_name(t, names, simplified, emitter)
    if isinstance(expr, Operand):
        return Operand(expr, t.dtype, t._shape, expr.value if value is None else value,
                       emitter, expr.argument)
    return Operand(expr, t.dtype, t._shape, value, emitter)


def emit_node(emitter: Emitter, node: Node, inputs: Sequence[SymbolicTensor],
              names: dict[int, str], simplified: Simplified, indent: int) -> None:
    """Writes one node: `outs = kernel(ins, attrs)`, the op's own emitted form, or (for
    control flow) the op's lowering into Python statements around its sub-graphs.

    The op's `emit` hook and `lower` receive the inputs as `Operand`s, so that they can
    choose the fastest Python that gives the kernel's results for what is known about them."""
    ins = [operand(t, names, simplified, emitter) for t in inputs]
    outs = []
    for t in node.outputs:
        name = emitter.fresh()
        names[id(t)] = name
        outs.append(name)
    lower = node.op.lower
    if lower is not None:
        lower(emitter, node, ins, outs, indent)
        return
    text = None
    if node.op.emit is not None:
        text = node.op.emit(outs, ins, node.attrs, emitter)
    if text is None:
        kernel = emitter.bind(node.op.kernel, "k_%s_" % node.op.name)
        call = "%s(%s)" % (kernel, ", ".join(list(ins) + _attribute_arguments(node, emitter)))
        if not outs:
            text = call
        elif len(outs) == 1:
            text = "%s = %s" % (outs[0], call)
        else:
            text = "%s = %s" % (", ".join(outs), call)
    for line in text.split("\n"):
        emitter.line(line, indent, node)
    if emitter.check_numerics:
        for out, t in zip(outs, node.outputs):
            if t.dtype.is_floating:
                checker = emitter.bind(_check_numerics, "check")
                emitter.line("%s(%s, %s)" % (checker, out, emitter.bind(node.name, "name")),
                             indent, node)


def _attribute_arguments(node: Node, emitter: Emitter) -> list[str]:
    """The keyword arguments passing `node`'s attributes to its kernel: `name=constant`
    for an attribute whose name is a plain name; any other (only a tampered saved model
    has one, and the loader refuses it) goes in a dict constant passed as `**dict`, so
    that no attribute name is ever written into the source as it is."""
    plain = [(k, v) for k, v in node.attrs.items() if is_plain_name(k)]
    args = ["%s=%s" % (k, emitter.bind(v, "attr")) for k, v in plain]
    if len(plain) != len(node.attrs):
        others = {k: v for k, v in node.attrs.items() if not is_plain_name(k)}
        args.append("**%s" % emitter.bind(others, "attrs"))
    return args


def _check_numerics(value: Any, node_name: str) -> None:
    kind = registry.nonfinite_kind(value)
    if kind is not None:
        raise errors.InvalidArgumentError("check_numerics: %s produced %s values"
                                          % (node_name, kind), node_name)


def emit_graph(emitter: Emitter, graph: Graph, fed_names: Mapping[int, str],
               outputs: Sequence[SymbolicTensor | None], indent: int,
               simplified: Simplified | None = None) -> list[str]:
    """Writes the nodes of `graph` at `indent` and returns the expressions of `outputs`.

    `fed_names` maps id(placeholder) to the expression feeding it (arguments, or for a
    sub-graph the control-flow op's inputs); other captures are bound as constants.
    `simplified`: `simplify(graph, outputs)`, when the caller has it already."""
    if simplified is None:
        simplified = simplify(graph, outputs)
    names = dict(fed_names)
    for capture in graph.captures:
        key = id(capture.placeholder)
        if key in names or key in simplified.constants:
            continue
        names[key] = "_leaked" if capture.leaked else emitter.bind(capture.external, "r")
    leaked = _used_leaks(graph, simplified, outputs)
    if leaked:
        emitter.line("raise %s" % emitter.bind(_leak_error(leaked), "e"), indent)
    for node, inputs in simplified.nodes:
        emit_node(emitter, node, inputs, names, simplified, indent)
    return [("None" if t is None else source_name(t, names, simplified, emitter))
            for t in outputs]


class CompiledGraph:
    """A graph compiled to Python: call `run(*fed_values)` to get the output values."""

    def __init__(self, run: Callable[..., tuple[Any, ...]], source: str,
                 line_nodes: dict[int, Node], filename: str) -> None:
        self.run = run
        self.source = source
        self.line_nodes = line_nodes
        self.filename = filename

    def node_for_traceback(self, tb: TracebackType | None) -> Node | None:
        """The graph node whose generated line raised, found in traceback `tb`."""
        node = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                node = self.line_nodes.get(tb.tb_lineno, node)
            tb = tb.tb_next
        return node


def compile_graph(graph: Graph, feeds: Sequence[SymbolicTensor],
                  outputs: Sequence[SymbolicTensor | None], name: str = "graph_fn",
                  check_numerics: bool = False, owned: int | None = None) -> CompiledGraph:
    """Compiles `graph`: `feeds` are the placeholder tensors passed at run time, in order;
    `outputs` the tensors returned (as a tuple). Returns a CompiledGraph.

    The first `owned` outputs (all of them by default) come in memory of their own, never
    shared with state that outlives the run (a constant, a captured value, a variable's
    value): where the graph says one may be (`outputs_holding_state`), the run returns a
    copy; the others, freshly computed, are not copied. A fed value returned as it is stays
    the caller's array (as in TensorFlow)."""
    emitter = Emitter(check_numerics)
    params = ["in%d" % i for i in range(len(feeds))]
    fed = {id(t): Operand(p, t.dtype, t._shape, None, emitter, argument=True)
           for t, p in zip(feeds, params)}
    simplified = simplify(graph, outputs)
    results = emit_graph(emitter, graph, fed, outputs, 1, simplified)
    holding = outputs_holding_state(graph, outputs, simplified)
    for i in range(len(outputs) if owned is None else owned):
        if holding[i]:
            results[i] = "%s(%s)" % (emitter.bind(owned_copy, "owned"), results[i])
    emitter.line("return (%s)" % "".join(r + ", " for r in results), 1)
    filename = "<graph %s#%d>" % (name, next(_counter))
    function_name = python_name(name)
    source = "def %s(%s):\n%s\n" % (function_name, ", ".join(params), "\n".join(emitter.lines))
    code = compiled_code(source, filename)
    # The def binds the function's name in a namespace of its own: a graph named like one of
    # the constants (a user function `c8`, or `np`) must not replace it in the globals.
    defined: dict[str, Any] = {}
    exec(code, emitter.namespace, defined)  # noqa: S102 - our own generated source
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return CompiledGraph(defined[function_name], source, emitter.line_nodes, filename)


def compiled_code(source: str, filename: str) -> CodeType:
    """`compile(source, filename, "exec")`, reusing the code object of an identical source
    compiled before: each new Function of the same Python function (a trace on every call of
    `tf.function(f)(x)`, a retrace for a new shape) writes the same source, and compiling it
    was about an eighth of such a trace. The code differs from the remembered one by its file
    name only, which tracebacks and `CompiledGraph.node_for_traceback` read, so the copy
    carries `filename` (in its nested code objects too)."""
    code = _compiled_sources.get(source)
    if code is None:
        code = compile(source, filename, "exec")
        if len(source) <= _REMEMBERED_SOURCE_CHARS:
            if len(_compiled_sources) >= _REMEMBERED_SOURCES:
                _compiled_sources.clear()  # (atomic: no lock for threads compiling at once)
            _compiled_sources[source] = code
        return code
    return _with_filename(code, filename)


def _with_filename(code: CodeType, filename: str) -> CodeType:
    consts = tuple(_with_filename(c, filename) if isinstance(c, CodeType) else c
                   for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


_REMEMBERED_SOURCES = 128
_REMEMBERED_SOURCE_CHARS = 1 << 16  # a larger graph's source is compiled each time
# generated source -> its code object (under the file name of its first compile)
_compiled_sources: dict[str, CodeType] = {}


def owned_copy(value: Any) -> Any:
    """`value` in memory of its own: an array is copied; a numpy scalar (immutable), like
    any other value, is returned as it is."""
    return value.copy() if isinstance(value, np.ndarray) else value


def outputs_holding_state(graph: Graph, outputs: Sequence[SymbolicTensor | None],
                          simplified: Simplified | None = None) -> list[bool]:
    """For each of `outputs` (tensors of `graph`, or None), whether its value may share
    memory with state that outlives a run, read from the graph once: a constant array
    (folded ones too), a captured value, an output of an op with the `shares_state` trait
    (a variable read or assignment), or of one with the `view` trait (a reshape, a slice,
    control flow) whose input may; a nested graph (a branch, a loop body, a called
    function) is read the same way. Fed values are not state: a graph returning its
    argument returns the caller's array. Scalars (numpy scalars are immutable) and other
    freshly computed values are not state either."""
    if simplified is None:
        simplified = simplify(graph, outputs)
    holding = {key for key, value in simplified.constants.items()
               if isinstance(value, np.ndarray)}
    # a capture of an outer graph's tensor is fed by the enclosing op's inputs (see the
    # `view` trait); one of an eager tensor is a constant above
    holding.update(id(c.placeholder) for c in graph.captures
                   if not isinstance(c.external, SymbolicTensor))
    for node, inputs in simplified.nodes:
        traits = node.op.traits
        if "shares_state" in traits or (
                "view" in traits and any(id(t) in holding for t in inputs)) or any(
                any(found) for found in _nested_holding(node)):
            holding.update(id(t) for t in node.outputs)
    return [t is not None and id(simplified.resolve(t)) in holding for t in outputs]


def _nested_holding(node: Node) -> list[list[bool]]:
    """`outputs_holding_state` of each graph nested in `node`: the attributes that have a
    graph and outputs (an If's branches, a While's body, a call's ConcreteFunction)."""
    found = []
    for value in node.attrs.values():
        graph = getattr(value, "graph", None)
        outputs = getattr(value, "outputs", None)
        if graph is not None and outputs is not None and hasattr(graph, "captures"):
            found.append(outputs_holding_state(graph, list(outputs)))
    return found


def _used_leaks(graph: Graph, simplified: Simplified,
                outputs: Sequence[SymbolicTensor | None]) -> list[tuple[Any, Node | None]]:
    """The leaked symbolic tensors that the graph reads, each with the first node reading it
    (None: the graph returns it as it is)."""
    leaked = {id(c.placeholder): c for c in graph.captures if c.leaked}
    if not leaked:
        return []
    used: dict[int, tuple[Any, Node | None]] = {}
    for node, inputs in simplified.nodes:
        for t in inputs:
            if id(t) in leaked and id(t) not in used:
                used[id(t)] = (leaked[id(t)].external, node)
    for out in outputs:
        if out is None:
            continue
        key = id(simplified.resolve(out))
        if key in leaked and key not in used:
            used[key] = (leaked[key].external, None)
    return list(used.values())


def _leak_error(leaks: list[tuple[Any, Node | None]]) -> TypeError:
    parts = []
    for tensor, user in leaks:
        made = tensor.node.location
        parts.append("%s, made at %s, %s" % (
            tensor.name, made.one_line() if made is not None else "an unknown line",
            "used at %s" % user.location.one_line() if user is not None and user.location
            is not None else "returned by the function"))
    return TypeError(
        "the graph reads a symbolic tensor that leaked out of another traced function (for "
        "example through a global or an object attribute): %s. A symbolic tensor has no value "
        "outside its own trace: return it from that function and pass the result in as an "
        "argument instead." % "; ".join(parts))
