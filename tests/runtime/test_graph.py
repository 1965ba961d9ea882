"""Graphs: node naming, placeholders, captures, outputs and the GraphDef view."""

import numpy as np
import pytest

from runtime import context, dtypes, variables
from runtime.function import function
from runtime.graph import Graph
from runtime.ops import array_ops, concat_split_ops, math_ops, reduction_ops, reshape_ops
from runtime.tensor import SymbolicTensor


def _nodes(concrete):
    return [(n.name, n.op, list(n.input)) for n in concrete.graph.as_graph_def().node]


# -- unique names --------------------------------------------------------------------------

def test_unique_name_appends_counters():
    g = Graph()
    assert [g.unique_name("add") for _ in range(4)] == ["add", "add_1", "add_2", "add_3"]


def test_unique_name_skips_names_taken_explicitly():
    g = Graph()
    assert g.unique_name("add") == "add"
    assert g.unique_name("add_1") == "add_1"
    assert g.unique_name("add") == "add_2"
    assert g.unique_name("add_1") == "add_1_1"


def test_unique_names_are_per_graph():
    g1, g2 = Graph(), Graph()
    assert g1.unique_name("mul") == "mul"
    assert g2.unique_name("mul") == "mul"


# -- building directly ---------------------------------------------------------------------

def test_as_default_pushes_and_pops_the_graph():
    g = Graph()
    assert context.executing_eagerly()
    with g.as_default():
        assert context.current_graph() is g
        assert not context.executing_eagerly()
        x = g.add_placeholder("x", dtypes.float32, (2,))
        y = x * 2.0
    assert context.executing_eagerly()
    assert isinstance(y, SymbolicTensor)
    assert y.graph is g
    assert y.op.type == "Mul"
    assert [n.name for n in g.get_operations()] == ["x", "Const", "mul"]


def test_as_default_pops_the_graph_even_when_the_block_raises():
    g = Graph()
    with pytest.raises(RuntimeError):
        with g.as_default():
            raise RuntimeError("boom")
    assert context.current_graph() is None


def test_nested_graphs_use_the_innermost():
    outer = Graph("outer")
    inner = Graph("inner", outer=outer)
    with outer.as_default():
        with inner.as_default():
            assert context.current_graph() is inner
        assert context.current_graph() is outer


def test_placeholder_has_the_requested_dtype_and_shape():
    g = Graph()
    with g.as_default():
        x = g.add_placeholder("x", dtypes.int64, (None, 3))
    assert x.dtype is dtypes.int64
    assert x.shape == (None, 3)
    assert x.name == "x:0"
    assert x.op.type == "Placeholder"


def test_nodes_record_the_user_line_that_created_them():
    g = Graph()
    with g.as_default():
        x = g.add_placeholder("x", dtypes.float32, ())
        y = math_ops.exp(x)  # creation line
    location = y.op.location
    assert location.filename == __file__
    assert "creation line" in location.source_line()


def test_capturing_an_eager_tensor_makes_one_placeholder_per_value():
    g = Graph()
    c = array_ops.constant([1.0, 2.0])
    with g.as_default():
        first = g.capture(c)
        second = g.capture(c)
    assert first is second
    assert first.op.type == "Placeholder"
    assert first.shape == (2,) and first.dtype is dtypes.float32
    assert g.captured_inputs == [c]


def test_capturing_a_tensor_of_this_graph_returns_it_unchanged():
    g = Graph()
    with g.as_default():
        x = g.add_placeholder("x", dtypes.float32, ())
        assert g.capture(x) is x
    assert g.captures == []


def test_capturing_from_an_enclosing_graph_is_not_a_leak():
    outer = Graph("outer")
    with outer.as_default():
        x = outer.add_placeholder("x", dtypes.float32, ())
    inner = Graph("inner", outer=outer)
    stranger = Graph("stranger")
    inner.capture(x)
    stranger.capture(x)
    assert [c.leaked for c in inner.captures] == [False]
    assert [c.leaked for c in stranger.captures] == [True]


def test_spec_errors_while_building_become_type_and_value_errors():
    g = Graph()
    with g.as_default():
        i = g.add_placeholder("i", dtypes.int32, (2,))
        f = g.add_placeholder("f", dtypes.float32, (3,))
        with pytest.raises(TypeError, match="AddV2"):
            i + f
        with pytest.raises(ValueError, match="AddV2"):
            f + array_ops.ones([2])
    assert "AddV2" not in [n.type for n in g.get_operations()]


# -- graphs of traced functions -----------------------------------------------------------

def test_repeated_ops_are_numbered():
    @function
    def f(x):
        return x + x + x + x

    graph = f.get_concrete_function(array_ops.constant(1)).graph
    names = [n.name for n in graph.as_graph_def().node]
    assert names == ["x", "add", "add_1", "add_2", "Identity"]


def test_placeholders_are_named_after_the_arguments():
    @function
    def f(alpha, beta, gamma=3):
        return alpha * beta * gamma

    cf = f.get_concrete_function(array_ops.constant(1.0), array_ops.constant(2.0))
    placeholders = [n.name for n in cf.graph.as_graph_def().node if n.op == "Placeholder"]
    assert placeholders == ["alpha", "beta"]
    assert [t.name for t in cf.inputs] == ["alpha:0", "beta:0"]


def test_nested_argument_placeholders_share_the_argument_name():
    @function
    def f(pair, scale):
        return pair[0] * scale + pair[1]

    cf = f.get_concrete_function([array_ops.constant(1), array_ops.constant(2)],
                                 array_ops.constant(3))
    placeholders = [n.name for n in cf.graph.as_graph_def().node if n.op == "Placeholder"]
    assert placeholders == ["pair", "pair_1", "scale"]


def test_an_argument_named_like_an_op_keeps_its_name():
    @function
    def f(add):
        return add + add

    assert _nodes(f.get_concrete_function(array_ops.constant(1))) == [
        ("add", "Placeholder", []),
        ("add_1", "AddV2", ["add", "add"]),
        ("Identity", "Identity", ["add_1"]),
    ]


def test_graph_def_lists_names_ops_and_inputs():
    @function
    def f(x, y):
        s = x + y
        p = s * x
        return p - y

    assert _nodes(f.get_concrete_function(array_ops.constant(1.0), array_ops.constant(2.0))) == [
        ("x", "Placeholder", []),
        ("y", "Placeholder", []),
        ("add", "AddV2", ["x", "y"]),
        ("mul", "Mul", ["add", "x"]),
        ("sub", "Sub", ["mul", "y"]),
        ("Identity", "Identity", ["sub"]),
    ]


def test_string_concatenation_is_op_add_and_numeric_addition_op_addv2():
    @function
    def f(s, x):
        return s + "!", math_ops.add(s, s), x + 1

    cf = f.get_concrete_function(array_ops.constant("a"), array_ops.constant(1))
    assert [(op, inputs[0]) for _, op, inputs in _nodes(cf) if op.startswith("Add")] == [
        ("Add", "s"), ("Add", "s"), ("AddV2", "x")]
    outputs = f(array_ops.constant("a"), array_ops.constant(1))
    assert [t.numpy() for t in outputs] == [b"a!", b"aa", 2]


def test_every_output_goes_through_its_own_identity():
    @function
    def f(x):
        return x, {"double": x * 2, "same": x}

    cf = f.get_concrete_function(array_ops.constant(1))
    identities = [n for n in cf.graph.as_graph_def().node if n.op == "Identity"]
    assert [(n.name, list(n.input)) for n in identities] == [
        ("Identity", ["x"]), ("Identity_1", ["mul"]), ("Identity_2", ["x"])]
    assert [t.name for t in cf.outputs] == ["Identity:0", "Identity_1:0", "Identity_2:0"]


def test_graph_def_names_secondary_outputs_with_their_index():
    @function
    def f(x):
        first, second, third = concat_split_ops.unstack(x)
        return second + third

    nodes = _nodes(f.get_concrete_function(array_ops.constant([1, 2, 3])))
    assert ("add", "AddV2", ["unstack:1", "unstack:2"]) in nodes


def test_explicit_names_are_made_unique():
    @function
    def f(x):
        a = math_ops.add(x, 1, name="step")
        b = math_ops.add(a, 1, name="step")
        return array_ops.identity(b, name="result")

    graph = f.get_concrete_function(array_ops.constant(1)).graph
    names = [n.name for n in graph.as_graph_def().node]
    assert "step" in names and "step_1" in names and "result" in names


def test_constants_are_const_nodes():
    @function
    def f(x):
        return x + array_ops.constant(2.0) + 3.0

    nodes = _nodes(f.get_concrete_function(array_ops.constant(1.0)))
    assert [n for n in nodes if n[1] == "Const"] == [("Const", "Const", []),
                                                     ("Const_1", "Const", [])]


def test_op_node_names_follow_tensorflow():
    @function
    def f(x):
        a = x - 1.0
        b = a / 2.0
        c = concat_split_ops.stack([a, b])
        d = concat_split_ops.concat([c, c], 0)
        e = d[0]
        return reduction_ops.reduce_sum(e) + math_ops.maximum(a, b)

    graph = f.get_concrete_function(array_ops.constant([1.0])).graph
    names = {n.name for n in graph.as_graph_def().node}
    assert {"sub", "truediv", "stack", "concat", "strided_slice", "Sum", "Maximum",
            "add"} <= names


def test_captured_eager_tensors_and_variables_become_placeholders():
    v = variables.Variable(3.0, name="weight")
    c = array_ops.constant(5.0)

    @function
    def f(x):
        return x * v + c

    cf = f.get_concrete_function(array_ops.constant(1.0))
    nodes = _nodes(cf)
    assert ("weight", "Placeholder", []) in nodes
    assert ("ReadVariableOp", "ReadVariableOp", ["weight"]) in nodes
    assert ("capture", "Placeholder", []) in nodes
    assert cf.captured_inputs[0] is v
    assert cf.captured_inputs[1] is c
    assert cf.graph.captured_inputs == cf.captured_inputs


def test_graph_def_repr_lists_one_node_per_line():
    @function
    def f(x):
        return -x

    text = repr(f.get_concrete_function(array_ops.constant(1)).graph.as_graph_def())
    assert text.splitlines() == ["x = Placeholder()", "Neg = Neg(x)", "Identity = Identity(Neg)"]


def test_graph_def_attr_holds_node_attributes():
    @function
    def f(x):
        return reduction_ops.reduce_sum(x, axis=0, keepdims=True)

    node = [n for n in f.get_concrete_function(array_ops.ones([2, 2])).graph.as_graph_def().node
            if n.op == "Sum"][0]
    assert node.attr["axis"] == (0,)
    assert node.attr["keepdims"] is True


def test_function_call_inside_a_function_is_one_call_node():
    @function
    def inner(x):
        return x * 2 + 1

    @function
    def outer(x):
        return inner(x) - 1

    nodes = _nodes(outer.get_concrete_function(array_ops.constant(3)))
    assert ("PartitionedCall", "PartitionedCall", ["x"]) in nodes
    assert not any(op == "Mul" for _, op, _ in nodes)
    assert outer(array_ops.constant(3)).numpy() == 6


def test_graph_name_is_the_function_name():
    @function
    def my_function(x):
        return x

    graph = my_function.get_concrete_function(array_ops.constant(1)).graph
    assert graph.name == "my_function"
    assert repr(graph) == "<Graph my_function: 2 nodes>"


def test_graph_tensors_have_static_shapes_and_the_graph():
    @function
    def f(x):
        y = reshape_ops.expand_dims(x, 0)
        assert y.shape == (1, 3)
        assert y.graph is x.graph
        return y

    np.testing.assert_array_equal(f(array_ops.constant([1, 2, 3])).numpy(), [[1, 2, 3]])
