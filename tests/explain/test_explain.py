"""`autograph.explain(f, *args)`: the staging report of one trace, recorded by the operators
of converted code (runtime.operators.staging_log)."""

import inspect
import json

import pytest

import autograph
import autograph.tf as tf
from runtime.operators import staging_log


def line_of(fn, text):
    """The line in this file of the first line of `fn`'s source containing `text`."""
    lines, first = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if text in line:
            return first + i
    raise AssertionError("%r not in %s" % (text, fn.__name__))


def row_at(report, fn, text, construct=None):
    """The one statement row of `report` at the line of `fn` holding `text`."""
    line = line_of(fn, text)
    rows = [r for r in report.statements if r.line == line and
            (construct is None or r.construct == construct)]
    assert len(rows) == 1, (text, [r.to_dict() for r in report.statements])
    return rows[0]


def helper(v):
    return v * 2


@autograph.do_not_convert
def left_alone(v):
    return v + 1


def branches(x, n):
    total = 0
    for i in range(n):
        total += i
    if x > 0:
        y = x
    elif x < -1:
        y = -x
    else:
        y = x * 0
    if n > 2:
        y = y + 1.0
    while tf.reduce_sum(y) > 1:
        y = y / 2
    z = helper(y) if n > 1 else left_alone(y)
    w = (x > 0) and (y > 0)
    v = (n > 5) or (x > 0)
    return total + y, z, w, v


def test_each_statement_gets_a_row_saying_how_it_ran_and_why():
    report = autograph.explain(branches, tf.TensorSpec([], tf.float32), 3)
    loop = row_at(report, branches, "for i in range(n)")
    assert (loop.construct, loop.staged_as, loop.iterations) == ("for", "Python", 3)
    assert loop.why() == "iterates a Python range(0, 3)" and loop.carried == ["total"]
    first = row_at(report, branches, "if x > 0:")
    assert (first.construct, first.staged_as) == ("if", "StatelessIf")
    assert first.why() == "condition is a tensor bool[]" and first.carried == ["y"]
    assert row_at(report, branches, "elif x < -1").construct == "elif"
    python_if = row_at(report, branches, "if n > 2")
    assert (python_if.staged_as, python_if.why()) == ("Python", "condition is a Python bool "
                                                                "(True)")
    loop = row_at(report, branches, "while tf.reduce_sum")
    assert (loop.staged_as, loop.body_traces, loop.iterations) == ("StatelessWhile", 1, 0)
    assert row_at(report, branches, "z = helper").construct == "conditional expression"
    both = row_at(report, branches, "w = (x > 0)")
    assert (both.construct, both.staged_as) == ("and", "StatelessIf")
    either = row_at(report, branches, "v = (n > 5)")
    assert (either.construct, either.staged_as, either.why()) == (
        "or", "Python", "left operand is a Python bool (False)")


def test_ops_added_count_the_ops_of_sub_graphs_and_unrolled_iterations():
    def unrolled(x, n):
        for _ in range(n):
            x = x * 2.0 + 1.0
        while x > 100.0:
            x = x - 1.0
        return x

    report = autograph.explain(unrolled, tf.TensorSpec([], tf.float32), 4)
    loop = row_at(report, unrolled, "for _ in range(n)")
    assert loop.iterations == 4 and loop.ops_added == 4 * 4  # 2 constants, mul, add each
    staged = row_at(report, unrolled, "while x > 100.0")
    graph = report.concrete_function.graph
    (node,) = [n for n in graph.nodes if n.type == "StatelessWhile"]
    inner = sum(len(sub.graph.nodes) for sub in (node.attrs["cond"], node.attrs["body"]))
    # The While op, its sub-graphs, and the first test (Const, Greater), computed outside
    # to find out whether the loop is staged.
    assert staged.ops_added == 1 + inner + 2
    assert report.graph_ops == staging_log.count_ops(graph.nodes) > len(graph.nodes)


def test_statements_run_several_times_are_one_row_with_their_runs_counted():
    def repeated(x, n):
        for _ in range(n):
            if x > 0:
                x = x - 1.0
        return x

    report = autograph.explain(repeated, tf.TensorSpec([], tf.float32), 3)
    row = row_at(report, repeated, "if x > 0")
    assert (row.runs, row.staged_as) == (3, "StatelessIf")


def test_a_list_appended_to_in_a_tensor_loop_is_reported_as_a_tensor_array():
    def collect(n):
        out = []
        for i in tf.range(n):
            out.append(i * i)
        return tf.stack(out)

    report = autograph.explain(collect, tf.TensorSpec([], tf.int32))
    row = row_at(report, collect, "for i in tf.range(n)")
    assert row.staged_as == "StatelessWhile" and row.tensor_array_lists == ["out"]
    assert row.why() == "iterates a tensor int32[None] (from tf.range)"
    assert "'out' carried as a TensorArray" in str(report)


def test_a_while_loop_on_python_values_reports_its_unrolled_iterations():
    def halve(x, n):
        while n > 1:
            n = n // 2
            x = x + 1.0
        return x

    report = autograph.explain(halve, tf.TensorSpec([], tf.float32), 8)
    row = row_at(report, halve, "while n > 1")
    assert (row.staged_as, row.iterations, row.why()) == (
        "Python", 3, "condition is a Python bool (False)")


def test_calls_say_whether_they_were_converted_and_why():
    inner = tf.function(lambda v: v - 1.0)

    def caller(x):
        a = helper(x)
        b = left_alone(a)
        c = tf.reduce_sum(b)
        return inner(c + len([1, 2]))

    report = autograph.explain(caller, tf.TensorSpec([2], tf.float32))
    calls = {row.function: row for row in report.calls}
    assert calls["helper"].converted and calls["helper"].reason == "the user's code"
    assert not calls["left_alone"].converted
    assert calls["left_alone"].reason == "marked do_not_convert"
    assert "library code (runtime.ops.reduction_ops)" in calls["reduce_sum"].reason
    assert calls["len"].reason.startswith("a builtin")
    assert calls["<lambda>"].reason.startswith("a tf.function")
    assert calls["helper"].line == line_of(caller, "a = helper(x)")


def test_a_function_that_creates_variables_is_reported_for_one_trace_only():
    state = {}

    @tf.function
    def make(x):
        if "v" not in state:
            state["v"] = tf.Variable(1.0)
        if x > 0:
            x = x + state["v"]
        return x

    report = autograph.explain(make, tf.TensorSpec([], tf.float32))
    assert row_at(report, make.python_function, "if x > 0").runs == 1


def test_explain_traces_afresh_and_never_runs_the_graph(capsys):
    @tf.function
    def noisy(x):
        tf.print("ran")
        return x + 1

    noisy(tf.constant(1))
    capsys.readouterr()
    report = autograph.explain(noisy, tf.TensorSpec([], tf.int32))
    assert capsys.readouterr().out == ""
    assert noisy.experimental_get_tracing_count() == 1
    assert report.concrete_function.graph is not noisy.get_concrete_function(
        tf.TensorSpec([], tf.int32)).graph


def test_a_function_with_an_input_signature_needs_no_arguments():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def total(x):
        return tf.reduce_sum(x) if tf.size(x) > 0 else 0.0

    report = autograph.explain(total)
    assert report.statements[0].construct == "conditional expression"
    assert report.statements[0].staged_as == "StatelessIf"


def test_to_json_holds_the_same_rows_as_the_table():
    report = autograph.explain(branches, tf.TensorSpec([], tf.float32), 3)
    data = json.loads(report.to_json())
    assert data == report.to_dict()
    assert data["function"] == "branches" and data["format_version"] == 1
    assert [s["line"] for s in data["statements"]] == [r.line for r in report.statements]
    text = str(report)
    for row in data["statements"]:
        assert ":%d " % row["line"] in text
    assert "StatelessWhile" in text and "Calls:" in text


def test_the_recorder_is_off_after_explain_even_when_tracing_fails():
    def broken(x):
        if x > 0:
            y = 1
        else:
            y = "text"
        return y

    assert staging_log.active is None
    with pytest.raises(TypeError):
        autograph.explain(broken, tf.TensorSpec([], tf.float32))
    assert staging_log.active is None
    autograph.explain(branches, tf.TensorSpec([], tf.float32), 3)
    assert staging_log.active is None


def test_explain_cannot_nest():
    def nested(x):
        autograph.explain(helper, x)
        return x

    with pytest.raises(RuntimeError, match="inside another explain"):
        autograph.explain(nested, tf.TensorSpec([], tf.float32))


def test_a_function_without_control_flow_says_so():
    report = autograph.explain(helper, tf.TensorSpec([], tf.float32))
    assert "No if/while/for" in str(report)


def test_a_loop_over_a_constant_range_kept_as_python_is_reported_from_its_range_call():
    def constant_range(x):
        for i in range(1000):
            x = x + i
        return x

    report = autograph.explain(constant_range, tf.TensorSpec([], tf.float32))
    row = row_at(report, constant_range, "for i in range(1000)")
    # Each iteration: the constant i and an AddV2, counted from the ops' lines.
    assert (row.staged_as, row.iterations, row.ops_added) == ("Python", 1000, 2000)
    assert row.why() == ("iterates a Python range(0, 1000), a loop the compiler keeps as "
                         "plain Python")
    assert json.loads(report.to_json())["statements"][0]["ops_counted_by_line"] is True
    assert "2000*" in str(report)


def test_the_facade_has_explain():
    assert tf.autograph.explain is autograph.explain


def test_diagnostics_of_the_trace_become_the_report_s_warnings():
    def unrolls(x):
        for _ in range(600):
            x = x * 2.0 + 1.0
        print("x is", x)
        return x

    report = autograph.explain(unrolls, tf.TensorSpec([], tf.float32))
    kinds = [text.split(":")[0] for text in report.warnings]
    assert kinds == ["UnrollingWarning", "SideEffectWarning"], report.warnings
    assert all("test_explain.py:" in text for text in report.warnings)
    assert "Warnings:" in str(report)
    assert report.to_dict()["warnings"] == report.warnings
