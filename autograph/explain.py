"""`autograph.explain(f, *args, **kwargs)`: a staging report of one trace.

    report = autograph.explain(f, tf.TensorSpec([None, 3], tf.float32), 3)
    print(report)              # a table, one row per statement that ran while tracing
    report.to_json()           # the same data as JSON
    report.concrete_function   # the trace itself (its .graph, .graph.to_dot())

`f` (a Function or a Python function) is traced afresh for the arguments (values or
TensorSpecs) by a new Function with the same input_signature, converted by autograph, and
the graph is never run. While it traces, the operators of converted code record what each
`if`/`elif`, `while`, `for`, conditional expression, `and`/`or` did (see
runtime.operators.staging_log) and `converted_call` what it did with each call. Rows are
grouped by source line and outcome: a statement inside an unrolled Python loop (or a loop
body traced twice) is one row with its runs counted.
"""

from __future__ import annotations

import ast
import inspect
import json
import linecache
import os
import warnings
from collections.abc import Callable
from typing import Any

from runtime import context, diagnostics, reserved_names
from runtime.function import ConcreteFunction, Function
from runtime.graph import Graph
from runtime.operators import staging_log
from runtime.ops.call_ops import CALL_OP

FORMAT_VERSION = 1  # of to_json's document


def explain(func: Callable[..., Any], *args: Any, **kwargs: Any) -> StagingReport:
    """Traces `func` for `args`/`kwargs` (values or TensorSpecs) without running the graph;
    returns the StagingReport of that trace. Errors of the trace propagate as they would
    from `get_concrete_function`; autograph's diagnostics (side effects, unrolling) that the
    trace raises become the report's `warnings` instead of being issued."""
    if isinstance(func, ConcreteFunction):
        raise TypeError("explain traces a function afresh, so it takes the Function (or the "
                        "Python function) and its arguments, not one of its traces: %s (its "
                        "graph is .graph; .graph.to_dot() draws it)" % func)
    if not isinstance(func, Function) and not inspect.isroutine(func) \
            and not isinstance(func, type) and callable(func):
        # an object (a tf.Module): what calling it runs (mypy takes a Callable's __call__
        # for a non-callable attribute)
        func = func.__call__  # type: ignore[operator]
    python_function = func.python_function if isinstance(func, Function) else func
    signature = func.input_signature if isinstance(func, Function) else None
    # Outside a trace, the runtime's converter for functions is autograph's compiler.
    fresh = Function(python_function, input_signature=signature,
                     converter=context.function_converter())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with staging_log.recording() as recorder:
            concrete = fresh.get_concrete_function(*args, **kwargs)
    report = StagingReport(fresh.__name__, concrete, recorder)
    for warning in caught:
        if issubclass(warning.category, _DIAGNOSTICS):
            report.warnings.append(_diagnostic_text(warning))
        else:
            warnings.warn_explicit(warning.message, warning.category, warning.filename,
                                   warning.lineno, source=warning.source)
    return report


_DIAGNOSTICS = (diagnostics.RetracingWarning, diagnostics.SideEffectWarning,
                diagnostics.UnrollingWarning)


def _diagnostic_text(warning: warnings.WarningMessage) -> str:
    """'UnrollingWarning: unrolling.py:17: ...': the warning's first paragraph, its user
    location written as the report's rows write theirs."""
    text = str(warning.message).split("\nin user code:")[0]
    file, sep, rest = text.partition(":")
    line, sep2, message = rest.partition(": ")
    if sep and sep2 and line.isdigit():
        text = "%s: %s" % (_where(file, int(line)), message)
    return "%s: %s" % (warning.category.__name__, text)


class StatementRow:
    """One line of the report: a statement at one source line, with one outcome."""

    def __init__(self, record: staging_log.StatementRecord) -> None:
        location = record.location
        self.file: str = location.filename if location else "?"
        self.line: int = location.lineno if location else 0
        self.function: str = location.function if location else "?"
        self.source: str = location.source_line() if location else ""
        construct = record.construct
        if construct == "if" and self.source.startswith("elif"):
            construct = "elif"
        elif construct == "if" and not self.source.startswith("if"):
            # The compiler guards statements after a lowered break/continue/return.
            construct = "guard (after a jump)"
        self.construct: str = construct
        self.staged_as: str = record.staged_as
        self.decided_by: str = record.subject or "?"
        self.runs = 0
        self.iterations = 0
        self.body_traces = 0
        self.ops_added: int | None = 0
        self.ops_by_line = False  # ops_added counted from the ops' lines (_ops_at_lines)
        self.carried: list[str] = []
        self.tensor_array_lists: list[str] = []

    def key(self) -> tuple[Any, ...]:
        """What rows are grouped by."""
        return (self.file, self.line, self.construct, self.staged_as, self.decided_by)

    def add(self, record: staging_log.StatementRecord) -> None:
        """Counts one more run of the statement."""
        self.runs += 1
        self.iterations += record.iterations
        self.body_traces += record.body_traces
        if record.ops_added is None or self.ops_added is None:
            self.ops_added = None  # not counted (see _plain_range_loops)
        else:
            self.ops_added += record.ops_added
        self.ops_by_line = record.ops_added is None
        for name in record.symbol_names:
            shown = _symbol(name)
            if shown not in self.carried:
                self.carried.append(shown)
        for name in record.staged_lists:
            if name not in self.tensor_array_lists:
                self.tensor_array_lists.append(name)

    def why(self) -> str:
        """The reason for the outcome, in words."""
        role = {"for": "iterates", "and": "left operand is", "or": "left operand is",
                "comparison chain": "first comparison is"}.get(self.construct,
                                                                "condition is")
        return "%s %s" % (role, self.decided_by)

    def to_dict(self) -> dict[str, Any]:
        """The row as JSON data."""
        return {"file": self.file, "line": self.line, "function": self.function,
                "source": self.source, "construct": self.construct,
                "staged_as": self.staged_as, "why": self.why(), "runs": self.runs,
                "python_iterations": self.iterations, "body_traces": self.body_traces,
                "ops_added": self.ops_added, "ops_counted_by_line": self.ops_by_line,
                "carried": list(self.carried),
                "lists_as_tensor_arrays": list(self.tensor_array_lists)}


class CallRow:
    """One called function at one source line: converted or left alone, and why."""

    def __init__(self, record: staging_log.CallRecord) -> None:
        location = record.location
        self.file: str = location.filename if location else "?"
        self.line: int = location.lineno if location else 0
        self.function: str = _function_name(record.function)
        self.converted: bool = record.converted
        self.reason: str = record.reason
        self.calls = 0

    def key(self) -> tuple[Any, ...]:
        """What rows are grouped by."""
        return (self.file, self.line, self.function, self.converted, self.reason)

    def to_dict(self) -> dict[str, Any]:
        """The row as JSON data."""
        return {"file": self.file, "line": self.line, "function": self.function,
                "converted": self.converted, "why": self.reason, "calls": self.calls}


class StagingReport:
    """What one trace of a function did with each converted statement and call.

    `statements` and `calls` hold the rows (StatementRow, CallRow) in source order;
    `warnings` the diagnostics the trace raised (one line each); `concrete_function` is the
    trace; `str()` is a table, `to_json()` the same data."""

    def __init__(self, name: str, concrete: ConcreteFunction,
                 recorder: staging_log.Recorder) -> None:
        self.function_name = name
        self.concrete_function = concrete
        graphs = _graphs_of(concrete.graph)
        self.statements: list[StatementRow] = _group(
            [r for r in recorder.statements if r.root_graph in graphs] +
            _plain_range_loops(recorder, graphs), StatementRow)
        self.calls: list[CallRow] = _group(
            (r for r in recorder.calls if r.root_graph in graphs), CallRow)
        self.graph_ops = staging_log.count_ops(concrete.graph.nodes)
        self.warnings: list[str] = []
        for row in self.statements:
            if row.ops_added is None:
                row.ops_added = _ops_at_lines(graphs, row.file, row.line)

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON data (see to_json)."""
        return {"format_version": FORMAT_VERSION, "function": self.function_name,
                "signature": self.concrete_function.pretty_printed_signature(),
                "graph_ops": self.graph_ops,
                "statements": [row.to_dict() for row in self.statements],
                "calls": [row.to_dict() for row in self.calls],
                "warnings": list(self.warnings)}

    def to_json(self, indent: int | None = 2) -> str:
        """The report as a JSON document: the function, its signature, the graph's op count
        (sub-graphs included), one object per statement row and per call row."""
        return json.dumps(self.to_dict(), indent=indent)

    def __str__(self) -> str:
        lines = ["Staging report for %s (%d ops in the graph, sub-graphs included)"
                 % (self.concrete_function.signature_text,
                    self.graph_ops), ""]
        if self.statements:
            lines += _table(["line", "statement", "ran as", "why", "runs", "unrolled",
                             "ops", "carries"],
                            [_statement_cells(row) for row in self.statements])
            notes = ["  line %d: %s carried as a TensorArray" % (row.line, ", ".join(
                "'%s'" % n for n in row.tensor_array_lists))
                for row in self.statements if row.tensor_array_lists]
            if notes:
                lines += ["", "Lists staged as TensorArrays:"] + notes
            if any(row.ops_by_line for row in self.statements):
                lines += ["", "* ops made on the loop's own lines (a loop the compiler keeps "
                              "as plain Python; ops of the functions it calls not counted)"]
        else:
            lines.append("No if/while/for/conditional expression/and/or ran while tracing.")
        if self.calls:
            lines += ["", "Calls:"]
            lines += _table(["line", "function", "converted", "why", "calls"],
                            [_call_cells(row) for row in self.calls])
        if self.warnings:
            lines += ["", "Warnings:"] + ["  " + text for text in self.warnings]
        return "\n".join(lines)

    def __repr__(self) -> str:
        return "<StagingReport %s: %d statements, %d calls>" % (
            self.function_name, len(self.statements), len(self.calls))


def _group(records, row_class):
    rows: dict[tuple[Any, ...], Any] = {}
    for record in records:
        row = row_class(record)
        row = rows.setdefault(row.key(), row)
        if isinstance(row, StatementRow):
            row.add(record)
        else:
            row.calls += 1
    return sorted(rows.values(), key=lambda r: (r.file, r.line))


def _plain_range_loops(recorder: staging_log.Recorder,
                       graphs: set[Graph]) -> list[staging_log.StatementRecord]:
    """Records for the `for` loops over `range` of constants, which the compiler keeps as
    plain Python loops (they always unroll) and so never reach `for_stmt`: found from the
    `range` calls made on a `for` line that has no record of its own. Their ops are counted
    afterwards from the ops' lines (`ops_added` None here; see _ops_at_lines)."""
    recorded = {(r.location.filename, r.location.lineno) for r in recorder.statements
                if r.location is not None}
    found = []
    for call in recorder.calls:
        location = call.location
        if call.result is None or call.root_graph not in graphs or location is None or \
                (location.filename, location.lineno) in recorded or \
                not location.source_line().startswith("for "):
            continue
        record = staging_log.StatementRecord("for", location, (), None)
        record.decide(call.result)
        record.subject = "%s, a loop the compiler keeps as plain Python" % record.subject
        record.iterations = len(call.result)
        record.ops_added = None
        found.append(record)
    return found


def _ops_at_lines(graphs: set[Graph], filename: str, line: int) -> int | None:
    """How many ops of `graphs` the user's code made on the lines of the `for` statement
    at `filename:line` (ops made in functions it calls have their own lines and are not
    counted); None when the source cannot be parsed."""
    try:
        tree = ast.parse("".join(linecache.getlines(filename)))
    except (SyntaxError, ValueError):
        return None
    loops = [n for n in ast.walk(tree) if isinstance(n, ast.For) and n.lineno == line]
    if not loops:
        return None
    last = loops[0].end_lineno or line
    return sum(1 for graph in graphs for node in graph.nodes
               if node.location is not None and node.location.filename == filename and
               line <= node.location.lineno <= last)


def _graphs_of(graph: Graph) -> set[Graph]:
    """`graph` and the graphs of the functions it calls (recursively, through sub-graphs):
    the traces a report covers. (A Function that creates variables is traced twice; the
    first trace's records are left out.)"""
    found: set[Graph] = set()
    pending = [graph]
    while pending:
        current = pending.pop()
        if current in found:
            continue
        found.add(current)
        for node in current.nodes:
            for _, sub in node.subgraphs():
                pending.append(sub.graph)
            if node.op is CALL_OP:
                pending.append(node.attrs["f"].graph)
    return found


def _symbol(name: str) -> str:
    """A state variable's name as the report shows it: the compiler's own in words."""
    base = name.rstrip("0123456789").rstrip("_") if name[-1:].isdigit() else name
    for reserved, words in [(reserved_names.RETURN_FLAG, "(return flag)"),
                            (reserved_names.RETURN_VALUE, "(return value)"),
                            (reserved_names.BREAK_FLAG, "(break flag)"),
                            (reserved_names.CONTINUE_FLAG, "(continue flag)")]:
        if base in (reserved, reserved.rstrip("_")):  # `retval_`, or `retval_1` made unique
            return words
    return name


def _function_name(func: Any) -> str:
    """`Class.method` or `function`; a function made by a factory (a `<locals>` qualname,
    such as most `tf.` math functions) by its own name."""
    name = getattr(func, "__qualname__", None)
    if not isinstance(name, str) or "<locals>" in name:
        name = getattr(func, "__name__", None)
    if not isinstance(name, str):
        return type(func).__name__ + " instance"
    return name


def _statement_cells(row: StatementRow) -> list[str]:
    return [_where(row.file, row.line), row.construct, row.staged_as, row.why(),
            str(row.runs), str(row.iterations) if row.construct in ("for", "while") and
            row.staged_as == staging_log.PYTHON else "-",
            "?" if row.ops_added is None else str(row.ops_added) + "*" * row.ops_by_line,
            ", ".join(row.carried) or "-"]


def _call_cells(row: CallRow) -> list[str]:
    return [_where(row.file, row.line), row.function, "yes" if row.converted else "no",
            row.reason, str(row.calls)]


def _where(file: str, line: int) -> str:
    return "%s:%d" % (os.path.basename(file), line)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(cells[i]) for cells in [header] + rows) for i in range(len(header))]

    def render(cells):
        return "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()
    return [render(header), render(["-" * w for w in widths])] + [render(r) for r in rows]
