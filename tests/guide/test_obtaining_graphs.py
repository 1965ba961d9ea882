"""Guide section "Obtaining graphs": every concrete function wraps a graph."""

import autograph.tf as tf


def make_double_strings():
    @tf.function
    def double(a):
        print("Tracing with", a)
        return a + a

    double(tf.constant(1))
    double(tf.constant(1.1))
    double(tf.constant("a"))
    return double.get_concrete_function(tf.constant("a"))


def test_graph_nodes_and_their_inputs(capsys, warns_print_of_tensor):
    graph = make_double_strings().graph
    capsys.readouterr()
    for node in graph.as_graph_def().node:
        print(f'{node.input} -> {node.name}')
    assert capsys.readouterr().out == (
        "[] -> a\n"
        "['a', 'a'] -> add\n"
        "['add'] -> Identity\n")


def test_graph_node_op_types(warns_print_of_tensor):
    nodes = make_double_strings().graph.as_graph_def().node
    assert [node.name for node in nodes] == ["a", "add", "Identity"]
    assert nodes[0].op == "Placeholder"
    assert nodes[-1].op == "Identity"


def test_each_concrete_function_has_its_own_graph():
    @tf.function
    def double(a):
        return a + a

    int_graph = double.get_concrete_function(tf.constant(1)).graph
    string_graph = double.get_concrete_function(tf.constant("a")).graph
    assert int_graph is not string_graph
    assert [n.name for n in int_graph.as_graph_def().node] == ["a", "add", "Identity"]
    assert [n.name for n in string_graph.as_graph_def().node] == ["a", "add", "Identity"]
