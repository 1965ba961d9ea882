"""`Graph.to_dot()`: a traced graph as Graphviz DOT, parsed back here (and rendered by
Graphviz's `dot` where it is installed)."""

import re
import shutil
import subprocess

import pytest
from hypothesis import given
from hypothesis import strategies as st

import autograph.tf as tf
from runtime import graph_dot
from runtime.operators import staging_log

_TOKEN = re.compile(r'\s*(?:(?P<str>"(?:[^"\\]|\\.)*")|(?P<arrow>->)|(?P<punct>[{}\[\];,=])|'
                    r'(?P<id>[A-Za-z0-9_.#-]+))', re.S)


def tokens(text):
    position, out = 0, []
    while position < len(text):
        if text[position:].strip() == "":
            break
        match = _TOKEN.match(text, position)
        assert match is not None, "cannot tokenize DOT at %r" % text[position:position + 40]
        position = match.end()
        kind = match.lastgroup
        value = match.group(kind)
        if kind == "str":
            value = ("str", unquote(value))
        out.append(value)
    return out


def unquote(text):
    """The string a DOT double-quoted string stands for (`\\n` read back as a newline)."""
    body = text[1:-1]
    out, i = [], 0
    while i < len(body):
        if body[i] == "\\":
            following = body[i + 1]
            out.append("\n" if following == "n" else following)
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def parse(text):
    """{node id: (attributes, enclosing cluster names)}, [(tail, head, attributes)] of DOT
    text in the subset to_dot writes; fails on anything else."""
    items = tokens(text)
    assert items[:2] == ["digraph", items[1]] and items[2] == "{" and items[-1] == "}"
    nodes, edges, clusters = {}, [], []
    i = 3

    def attrs(i):
        found = {}
        if items[i] != "[":
            return found, i
        i += 1
        while items[i] != "]":
            key, eq, value = items[i], items[i + 1], items[i + 2]
            assert eq == "=", items[i:i + 3]
            found[key] = value[1] if isinstance(value, tuple) else value
            i += 3
            if items[i] == ",":
                i += 1
        return found, i + 1

    while i < len(items) - 1:
        item = items[i]
        if item == "subgraph":
            clusters.append(items[i + 1])
            assert items[i + 2] == "{"
            i += 3
        elif item == "}":
            clusters.pop()
            i += 1
        elif item in ("graph", "node", "edge"):
            _, i = attrs(i + 1)
            assert items[i] == ";"
            i += 1
        elif items[i + 1] == "=":  # a cluster's attribute
            i += 3
            assert items[i] == ";"
            i += 1
        elif items[i + 1] == "->":
            found, j = attrs(i + 3)
            edges.append((item, items[i + 2], found))
            assert items[j] == ";"
            i = j + 1
        else:
            found, j = attrs(i + 1)
            assert item not in nodes, "node %s written twice" % item
            nodes[item] = (found, tuple(clusters))
            assert items[j] == ";", items[i:j + 1]
            i = j + 1
    assert clusters == []
    return nodes, edges


def fizzbuzz(n):
    for i in tf.range(1, n + 1):
        if i % 15 == 0:
            tf.print("fizzbuzz")
        elif i % 3 == 0:
            tf.print("fizz")
        else:
            tf.print(i)


def test_one_box_per_op_with_if_and_while_bodies_as_nested_clusters():
    graph = tf.function(fizzbuzz).get_concrete_function(tf.TensorSpec([], tf.int32)).graph
    nodes, edges = parse(graph.to_dot())
    ops = [n for n in nodes if re.fullmatch(r"n\d+", n)]
    assert len(ops) == staging_log.count_ops(graph.nodes)
    (loop,) = [n for n, (a, _) in nodes.items() if a["label"].startswith("While")]
    ifs = sorted((len(c), n) for n, (a, c) in nodes.items() if a["label"].startswith("If"))
    assert len(ifs) == 2
    outer_if, inner_if = ifs[0][1], ifs[1][1]
    # The first If is inside the loop's body cluster, the second in the first's else.
    assert nodes[outer_if][1] == ("cluster_%s" % loop, "cluster_%s_body" % loop,
                                  "cluster_%s" % outer_if)
    assert nodes[inner_if][1] == nodes[outer_if][1] + ("cluster_%s_else" % outer_if,
                                                       "cluster_%s" % inner_if)
    prints = [n for n, (a, _) in nodes.items() if a["label"].startswith("PrintV2")]
    assert len(prints) == 3
    assert all(nodes[p][1][-1].endswith(("_then", "_else")) for p in prints)
    assert all(tail in nodes and head in nodes for tail, head, _ in edges)


def test_inputs_outputs_captures_and_variables_are_marked_with_types_and_lines():
    v = tf.Variable([1.0, 2.0], name="weights")
    scale = tf.constant(3.0)

    @tf.function
    def step(x):
        v.assign_add(x * scale)
        return tf.reduce_sum(v), x

    graph = step.get_concrete_function(tf.TensorSpec([2], tf.float32)).graph
    nodes, edges = parse(graph.to_dot())
    labels = {a["label"]: a for a, _ in nodes.values()}
    assert labels["x\nPlaceholder\nfloat32[2]"]["shape"] == "invhouse"
    assert labels["variable weights:0\nfloat32[2]"]["shape"] == "cylinder"
    assert labels["captured constant\nfloat32[]"]["shape"] == "note"
    outputs = {a["label"]: n for n, (a, _) in nodes.items() if a.get("shape") == "house"}
    assert set(outputs) == {"output 0\nfloat32[]", "output 1\nfloat32[2]"}
    mul = next(a for a in labels.values() if a["label"].startswith("Mul"))
    assert mul["label"] == "Mul\nfloat32[2]"
    assert re.search(r"\(test_to_dot\.py:\d+ in step\)", mul["tooltip"])
    assign = next(a for a in labels.values() if a["label"].startswith("AssignAdd"))
    assert "bold" in assign["style"]  # a side effect


def test_labels_are_escaped_whatever_names_and_values_hold():
    name = 'odd "name"\\l\nline'
    v = tf.Variable(1.0, name=name)

    @tf.function
    def show(x):
        return x + v, tf.constant('say "hi"\\n')

    dot = show.get_concrete_function(tf.TensorSpec([], tf.float32)).graph.to_dot('t"itle')
    nodes, _ = parse(dot)
    labels = [a["label"] for a, _ in nodes.values()]
    assert "variable %s:0\nfloat32[]" % name in labels
    assert "Const = 'say \"hi\"\\\\n'\nstring[]" in labels


@pytest.mark.property
@given(st.text())
def test_quote_reads_back_as_the_text(text):
    expected = text.replace("\r\n", "\n").replace("\r", "\n")
    assert tokens(graph_dot.quote(text)) == [("str", expected)]


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_graphviz_renders_the_dot():
    name = 'odd "name"\\l{x}'
    v = tf.Variable(1.0, name=name)

    @tf.function
    def loop(x):
        while x < 10.0:
            if x > v:
                x = x * 2.0
            else:
                x = x + v
        return x

    dot = loop.get_concrete_function(tf.TensorSpec([], tf.float32)).graph.to_dot()
    done = subprocess.run(["dot", "-Tsvg"], input=dot.encode(), capture_output=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr.decode()
    assert b"<svg" in done.stdout and done.stderr == b""
