"""The recorder behind `autograph.explain`: what each converted statement did while a function
was traced (ran as Python, or staged as which op, and why).

The operators of converted code check one module-level name, `active`, which is None except
while an explain runs; then they describe each statement to the Recorder:

    if staging_log.active is not None:
        with staging_log.active.statement("if", cond, symbol_names):
            return run_if(cond, ...)
    return run_if(cond, ...)

A statement's record names the user's line (found from the calling frame, as errors are),
the value that decided it (condition, iterable or left operand), the variables it carries,
the Python iterations it unrolled, the ops it added to the graph (those of its sub-graphs
included) and the lists a staged loop carries as TensorArrays. `converted_call` records
each call: converted, or left alone and why. The recorder only collects; the report is
autograph.explain's.
"""

import contextlib
import threading
from typing import Any, Callable, Iterable, Iterator

from runtime import context, errors
from runtime.graph_dot import spec_text
from runtime.operators.staged_lists import StagedList
from runtime.tensor import EagerTensor, SymbolicTensor
from runtime.variables import Variable

# the Recorder of the explain in progress, or None (the operators' only check)
active: "Recorder | None" = None

PYTHON = "Python"  # what `StatementRecord.staged_as` holds for a statement run as plain Python


def count_ops(nodes: Iterable[Any]) -> int:
    """How many ops `nodes` hold, those of their sub-graphs (recursively) included."""
    total = 0
    pending = list(nodes)
    while pending:
        node = pending.pop()
        total += 1
        for _, sub in node.subgraphs():
            pending.extend(sub.graph.nodes)
    return total


def describe_value(value: Any) -> str:
    """What kind of value decided a statement, in words: 'a tensor bool[]', 'a Python bool
    (True)', 'a Python range(0, 3)', 'a Python list of 4 items', 'a Dataset'..."""
    if isinstance(value, SymbolicTensor):
        made_by = " (from tf.range)" if value.node.op.name == "Range" else ""
        return "a tensor %s%s" % (spec_text(value.dtype, value._shape), made_by)
    if isinstance(value, StagedList):
        return "a list staged as a TensorArray"
    if isinstance(value, EagerTensor):
        return "an eager tensor %s (a constant while tracing)" % spec_text(
            value.dtype, value._value.shape)
    if isinstance(value, Variable):
        return "a tf.Variable " + spec_text(value.dtype, value._static_shape)
    if isinstance(value, (bool, int, float)) or value is None:
        return "a Python %s (%r)" % (type(value).__name__, value)
    if isinstance(value, range):
        return "a Python %r" % (value,)
    if isinstance(value, (list, tuple, dict, set, str)):
        count = len(value)
        return "a Python %s of %d item%s" % (type(value).__name__, count,
                                             "" if count == 1 else "s")
    name = type(value).__name__
    if hasattr(value, "__ag_for_stmt__"):
        return "a %s" % name
    return "a Python %s" % name


class StatementRecord:
    """One run of a converted statement while tracing (see the module docstring)."""

    __slots__ = ("construct", "location", "subject", "symbolic", "symbol_names", "staged_as",
                 "iterations", "body_traces", "ops_added", "staged_lists", "_graph",
                 "_start")

    def __init__(self, construct: str, location: errors.SourceLocation | None,
                 symbol_names: Iterable[str] | None, graph: Any) -> None:
        self.construct = construct
        self.location = location
        self.subject: str | None = None  # describe_value of the deciding value
        self.symbolic = False
        self.symbol_names = tuple(symbol_names or ())
        self.staged_as = PYTHON
        self.iterations = 0  # loop bodies run as Python
        self.body_traces = 0  # loop bodies traced into a While op's body
        self.ops_added: int | None = 0  # None: counted afterwards (autograph.explain)
        self.staged_lists: list[str] = []
        self._graph = graph
        self._start = len(graph.nodes) if graph is not None else 0

    @property
    def root_graph(self) -> Any:
        """The graph of the trace this statement ran in (its function's outermost graph)."""
        return self._graph.root if self._graph is not None else None

    def decide(self, value: Any) -> None:
        """Records `value` as what decided the statement (its condition, iterable or left
        operand): staged when it is a symbolic tensor or a dataset inside a graph."""
        self.subject = describe_value(value)
        if isinstance(value, StagedList):
            value = value.loop_items()
        self.symbolic = self._graph is not None and (
            isinstance(value, (SymbolicTensor, Variable)) or hasattr(value, "__ag_for_stmt__"))

    def test(self, loop_test: Callable[[], Any]) -> Callable[[], Any]:
        """`loop_test` recording each condition it computes (the last decides the loop)."""
        def observed():
            value = loop_test()
            self.decide(value.read_value() if isinstance(value, Variable) else value)
            return value
        return observed

    def body(self, loop_body: Callable[..., Any]) -> Callable[..., Any]:
        """`loop_body` counting its runs: Python iterations, or traces of a staged body."""
        def counted(*args):
            if self.symbolic:
                self.body_traces += 1
            else:
                self.iterations += 1
            return loop_body(*args)
        return counted

    def _finish(self):
        if self._graph is None:
            return
        added = self._graph.nodes[self._start:]
        self.ops_added = count_ops(added)
        if self.symbolic:
            staged = [node for node in added if node.subgraphs()]
            if staged:
                self.staged_as = staged[-1].type


class CallRecord:
    """One call through `converted_call`: the function, whether it was converted, and why."""

    __slots__ = ("location", "function", "converted", "reason", "root_graph", "result")

    def __init__(self, location: errors.SourceLocation | None, function: Any, converted: bool,
                 reason: str, root_graph: Any, result: range | None = None) -> None:
        self.location = location
        self.function = function
        self.converted = converted
        self.reason = reason
        self.root_graph = root_graph
        self.result = result  # kept for a `range` only: the loops it drives are reported


class Recorder:
    """Collects the records of one explain; only the thread that started it records."""

    def __init__(self) -> None:
        self.statements: list[StatementRecord] = []
        self.calls: list[CallRecord] = []
        self._thread = threading.get_ident()
        self._open: list[StatementRecord] = []

    @contextlib.contextmanager
    def statement(self, construct: str, subject: Any = None,
                  symbol_names: Iterable[str] | None = ()) -> Iterator[StatementRecord]:
        """Records the statement run inside the block (a `construct` such as 'if' or 'for';
        `subject`, when known on entry, is the value deciding it); yields its record."""
        if threading.get_ident() != self._thread:
            yield StatementRecord(construct, None, symbol_names, None)
            return
        record = StatementRecord(construct, errors.user_location(3), symbol_names,
                                 context.current_graph())
        if subject is not None:
            record.decide(subject)
        self.statements.append(record)
        self._open.append(record)
        try:
            yield record
        finally:
            self._open.pop()
            record._finish()

    def staged_lists(self, names: Iterable[str]) -> None:
        """Notes the lists that the innermost open (loop) statement carries as TensorArrays."""
        if self._open and threading.get_ident() == self._thread:
            self._open[-1].staged_lists.extend(n for n in names
                                               if n not in self._open[-1].staged_lists)

    def call(self, function: Any, converted: bool, reason: str, result: Any = None) -> None:
        """Records a call of `function` from converted code: `converted` or left alone, and
        `reason` (why); `result`, a Python range, is what the call returned."""
        if threading.get_ident() != self._thread:
            return
        graph = context.current_graph()
        self.calls.append(CallRecord(errors.user_location(2), function, converted, reason,
                                     graph.root if graph is not None else None,
                                     result if isinstance(result, range) else None))


@contextlib.contextmanager
def recording() -> Iterator[Recorder]:
    """Makes a new Recorder `active` for the duration of the block; yields it."""
    global active
    if active is not None:
        raise RuntimeError("autograph.explain cannot run inside another explain")
    recorder = active = Recorder()
    try:
        yield recorder
    finally:
        active = None
