"""Name scopes, control dependencies, init_scope and the ops about order and shape (no_op,
group, identity_n, ensure_shape), on the runtime alone: Functions traced without
conversion."""

import numpy as np
import pytest

from runtime import context, errors
from runtime.function import Function
from runtime.functional.control_flow import while_loop
from runtime.ops import array_ops, math_ops
from runtime.ops.dependency_ops import ensure_shape, group, identity_n, no_op
from runtime.scopes import control_dependencies, init_scope, name_scope
from runtime.signature import TensorSpec
from runtime.tensor import EagerTensor
from runtime.tensor_array import TensorArray
from runtime.variables import Variable


def traced(fn, *args):
    """The GraphDef nodes of `fn` traced (unconverted) for `args`: (name, op, inputs)."""
    concrete = Function(fn, autograph=False).get_concrete_function(*args)
    return [(n.name, n.op, list(n.input)) for n in concrete.graph.as_graph_def().node]


def names(nodes):
    return [name for name, _, _ in nodes]


def test_name_scope_prefixes_node_names_nested_and_reentered_fresh():
    def f(x):
        with name_scope("layer"):
            y = math_ops.multiply(x, 2.0)
            with name_scope("inner") as inner:
                z = math_ops.add(y, 1.0)
        with name_scope("layer") as again:
            w = math_ops.subtract(z, 1.0)
        assert (inner, again) == ("layer/inner/", "layer_1/")
        return w

    nodes = traced(f, array_ops.constant([1.0]))
    assert any(n.startswith("layer/") and o == "Mul" for n, o, _ in nodes)
    assert any(n.startswith("layer/inner/") and o == "AddV2" for n, o, _ in nodes)
    assert any(n.startswith("layer_1/") and o == "Sub" for n, o, _ in nodes)
    assert not any(n.startswith("layer") for n, o, _ in nodes if o == "Identity")


def test_name_scope_with_a_trailing_slash_is_reused_as_it_is():
    def f(x):
        with name_scope("block"):
            math_ops.add(x, 1.0)
        with name_scope("block/") as scope:
            assert scope == "block/"
            return math_ops.add(x, 2.0)

    adds = [n for n, o, _ in traced(f, array_ops.constant(1.0)) if o == "AddV2"]
    assert all(n.startswith("block/") for n in adds) and len(adds) == 2


def test_name_scope_is_inherited_by_a_loop_body_graph():
    def f(n):
        with name_scope("outer"):
            return while_loop(lambda i: i < n, lambda i: math_ops.add(i, 1), [0])

    concrete = Function(f, autograph=False).get_concrete_function(array_ops.constant(3))
    (loop,) = [node for node in concrete.graph.nodes if node.op.name.endswith("While")]
    assert loop.name.startswith("outer/")
    body = [n.name for n in loop.attrs["body"].graph.nodes if n.op.name == "AddV2"]
    assert body and all(name.startswith("outer/") for name in body)


def test_name_scope_eagerly_yields_its_name_and_names_nothing():
    with name_scope("eager") as scope:
        value = math_ops.add(array_ops.constant(1), 1)
    assert scope == "eager/" and value.numpy() == 2
    with pytest.raises(TypeError, match="name must be a string"):
        name_scope(3)


def test_control_dependencies_become_control_inputs_of_the_nodes_in_the_block():
    v = Variable(1.0)

    def f(x):
        bump = v.assign_add(1.0)
        with control_dependencies([bump]):
            y = array_ops.identity(x)
            with control_dependencies(None):
                free = math_ops.add(x, 1.0)
        return y, free

    nodes = {n: inputs for n, _, inputs in traced(f, array_ops.constant(2.0))}
    controls = {n: [i for i in inputs if i.startswith("^")] for n, inputs in nodes.items()}
    (assign,) = [n for n in nodes if n.startswith("AssignAdd")]
    (ident,) = [n for n in nodes if n == "Identity"]
    assert controls[ident] == ["^" + assign]
    (add,) = [n for n in nodes if n.startswith("add") or n.startswith("Add")]
    assert controls[add] == []


def test_a_read_under_control_dependencies_sees_the_assignment():
    v = Variable(1.0)

    def f():
        with control_dependencies([v.assign(5.0)]):
            return v.read_value() * 2.0

    assert Function(f, autograph=False)().numpy() == 10.0
    assert Function(f, autograph=False)().numpy() == 10.0


def test_control_dependencies_rejects_what_is_not_a_tensor_or_op():
    with pytest.raises(TypeError, match="expected tensors or ops"):
        with control_dependencies(["not an op"]):
            pass

    def f(x):
        with control_dependencies([lambda: x]):
            return x

    with pytest.raises(TypeError, match="call it first"):
        Function(f, autograph=False)(array_ops.constant(1.0))


def test_no_op_and_group_give_graph_nodes_in_a_trace_and_none_eagerly():
    assert no_op() is None and group(array_ops.constant(1)) is None
    v = Variable(0.0)

    def f(x):
        done = group(v.assign_add(1.0), [math_ops.add(x, 1.0)])
        assert done.type == "NoOp" and no_op().type == "NoOp"
        with control_dependencies([done]):
            return array_ops.identity(x)

    nodes = traced(f, array_ops.constant(1.0))
    (deps,) = [inputs for n, o, inputs in nodes if n == "group_deps"]
    assert len(deps) == 2 and all(i.startswith("^") for i in deps)
    assert [i for n, _, inputs in nodes if n == "Identity" for i in inputs][-1] == \
        "^group_deps"
    run = Function(f, autograph=False)
    run(array_ops.constant(1.0))
    run(array_ops.constant(1.0))
    assert v.numpy() == 2.0  # two runs, each running the assignment group names


def test_identity_n_gives_one_identity_per_tensor():
    a, b = identity_n([array_ops.constant(1), array_ops.constant([2.0, 3.0])])
    assert a.numpy() == 1
    np.testing.assert_array_equal(b.numpy(), [2.0, 3.0])


def test_ensure_shape_refines_the_static_shape_and_checks_when_run():
    def f(x):
        y = ensure_shape(x, [None, 3])
        assert y.shape.as_list() == [2, 3] if x.shape.as_list()[0] == 2 else [None, 3]
        return y

    fn = Function(f, input_signature=[TensorSpec([None, None])], autograph=False)
    assert fn.get_concrete_function().structured_outputs.shape.as_list() == [None, 3]
    np.testing.assert_array_equal(fn(np.ones((2, 3), np.float32)).numpy(), np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"shape \(2, 4\) is not compatible with the "
                       r"expected shape \(None, 3\)") as info:
        fn(np.ones((2, 4), np.float32))
    assert isinstance(info.value, errors.InvalidArgumentError)


def test_ensure_shape_static_mismatch_is_a_value_error_while_tracing_and_eagerly():
    def f(x):
        return ensure_shape(x, [3])

    with pytest.raises(ValueError, match=r"\(2,\) is not compatible with the expected "
                       r"shape \(3,\)"):
        Function(f, autograph=False)(array_ops.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match=r"\(2,\) is not compatible"):
        ensure_shape(array_ops.constant([1.0, 2.0]), [3])
    assert ensure_shape(array_ops.constant([1.0, 2.0]), [None]).shape.as_list() == [2]


def test_init_scope_runs_its_block_eagerly_inside_a_trace():
    seen = []

    def f(x):
        with init_scope():
            seen.append((context.executing_eagerly(), math_ops.add(array_ops.constant(1), 1)))
        return math_ops.add(x, 1)

    Function(f, autograph=False)(array_ops.constant(1))
    assert seen[0][0] is True and isinstance(seen[0][1], EagerTensor)


def test_control_dependencies_accept_variables_and_tensor_arrays():
    v = Variable(1.0)
    assert group(v, TensorArray("float32", size=1).write(0, 1.0)) is None

    def f():
        ta = TensorArray("float32", size=1).write(0, 2.0)
        with control_dependencies([v, ta]):
            return array_ops.identity(v.read_value())

    nodes = traced(f)
    (inputs,) = [inputs for n, _, inputs in nodes if n == "Identity"]
    assert any(i.startswith("^TensorArrayWrite") for i in inputs)
    assert Function(f, autograph=False)().numpy() == 1.0
