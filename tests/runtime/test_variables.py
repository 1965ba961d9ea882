"""Variables: creation, reading and assignment eagerly and in graphs, the first-trace rule, and
variables whose initial value depends on a traced argument."""

import gc

import numpy as np
import pytest

from runtime import dtypes, errors, module, variables
from runtime import shape as shape_lib
from runtime import signature as signature_lib
from runtime.function import function
from runtime.ops import array_ops, math_ops, reduction_ops, reshape_ops
from runtime.tensor import EagerTensor

# -- creation -----------------------------------------------------------------------------------

@pytest.mark.parametrize("initial, dtype, shape", [
    (1.0, dtypes.float32, ()),
    (3, dtypes.int32, ()),
    ([1.0, 2.0], dtypes.float32, (2,)),
    (np.zeros((2, 3), np.float64), dtypes.float64, (2, 3)),
    (True, dtypes.bool_, ()),
    ("text", dtypes.string, ()),
])
def test_dtype_and_shape_come_from_the_initial_value(initial, dtype, shape):
    v = variables.Variable(initial)
    assert v.dtype is dtype
    assert v.shape == shape
    np.testing.assert_array_equal(v.numpy(), initial if dtype is not dtypes.string else b"text")


def test_explicit_dtype_converts_the_initial_value():
    v = variables.Variable(1, dtype=dtypes.float32)
    assert v.dtype is dtypes.float32
    assert v.numpy() == 1.0
    v = variables.Variable(array_ops.constant([1, 2]), dtype=dtypes.int64)
    assert v.dtype is dtypes.int64


def test_initial_value_may_be_a_callable_a_tensor_or_a_variable():
    a = variables.Variable(lambda: array_ops.ones([2]))
    b = variables.Variable(array_ops.constant([3.0, 4.0]))
    c = variables.Variable(b)
    assert a.numpy().tolist() == [1.0, 1.0]
    assert c.numpy().tolist() == [3.0, 4.0]
    b.assign([0.0, 0.0])
    assert c.numpy().tolist() == [3.0, 4.0]


def test_a_variable_needs_an_initial_value():
    with pytest.raises(ValueError):
        variables.Variable(None)


def test_names_and_trainable():
    assert variables.Variable(1.0).name == "Variable:0"
    v = variables.Variable(1.0, name="weights", trainable=False)
    assert v.name == "weights:0"
    assert v.trainable is False
    assert variables.Variable(1.0).trainable is True


def test_repr_shows_name_shape_dtype_and_value():
    assert repr(variables.Variable(1.0)) == (
        "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=1.0>")
    assert repr(variables.Variable([1, 2], name="v")) == (
        "<tf.Variable 'v:0' shape=(2,) dtype=int32, numpy=array([1, 2], dtype=int32)>")


def test_repr_of_a_float32_scalar_variable_shows_the_float_it_holds():
    assert repr(variables.Variable(27.3)) == (
        "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=27.299999237060547>")


def test_variables_are_unhashable_but_have_refs():
    v = variables.Variable(1.0)
    with pytest.raises(TypeError):
        hash(v)
    assert {v.ref(): 1}[v.ref()] == 1
    assert v.ref().deref() is v


def test_shape_with_unknown_dims_allows_assigning_other_sizes():
    v = variables.Variable([1.0], shape=[None])
    assert v.shape == (None,)
    v.assign([1.0, 2.0, 3.0])
    assert v.numpy().tolist() == [1.0, 2.0, 3.0]


# -- reading --------------------------------------------------------------------------------

def test_read_value_and_value_return_eager_tensors():
    v = variables.Variable([1, 2])
    for read in (v.read_value(), v.value()):
        assert isinstance(read, EagerTensor)
        assert read.numpy().tolist() == [1, 2]


def test_a_read_is_a_snapshot():
    v = variables.Variable([1.0, 2.0])
    snapshot = v.read_value()
    v.assign([5.0, 6.0])
    assert snapshot.numpy().tolist() == [1.0, 2.0]


@pytest.mark.parametrize("read", [
    lambda v: v.numpy(),
    lambda v: v.read_value().numpy(),
    lambda v: v.value().numpy(),
    lambda v: array_ops.identity(v).numpy(),
    lambda v: np.asarray(v),
], ids=["numpy", "read_value", "value", "identity", "asarray"])
def test_eager_reads_are_copies_of_the_variables_storage(read):
    v = variables.Variable([1.0, 2.0])
    value = read(v)
    assert not np.shares_memory(value, v._value)
    value[0] = 99.0  # writing into what a read gave changes only that
    assert v.numpy().tolist() == [1.0, 2.0]


@pytest.mark.parametrize("view", [
    lambda v: reshape_ops.reshape(v, [2, 1]),
    lambda v: v[0:1],
    lambda v: reshape_ops.transpose(reshape_ops.reshape(v, [1, 2])),
], ids=["reshape", "slice", "transpose"])
def test_eager_views_of_a_variable_cannot_be_written_through(view):
    v = variables.Variable([1.0, 2.0])
    value = np.asarray(view(v))  # ops read the storage without copying it, read-only
    with pytest.raises(ValueError, match="read-only"):
        value[(0,) * value.ndim] = 99.0
    assert v.numpy().tolist() == [1.0, 2.0]


@pytest.mark.parametrize("assign", ["assign", "assign_add", "assign_sub"])
def test_an_eager_assignment_returns_the_new_value_not_the_storage(assign):
    v = variables.Variable([1.0, 2.0])
    result = getattr(v, assign)([1.0, 1.0])
    assigned = v.numpy().tolist()
    assert result.numpy().tolist() == assigned
    assert not np.shares_memory(result.numpy(), v._value)
    result.numpy()[0] = 99.0
    assert v.numpy().tolist() == assigned


def test_operators_and_ops_read_variables():
    v = variables.Variable([1.0, 2.0])
    assert (v + 1).numpy().tolist() == [2.0, 3.0]
    assert (2 * v).numpy().tolist() == [2.0, 4.0]
    assert (-v).numpy().tolist() == [-1.0, -2.0]
    assert v[1].numpy() == 2.0
    assert (v > 1.5).numpy().tolist() == [False, True]
    assert reduction_ops.reduce_sum(v).numpy() == 3.0
    assert math_ops.add(v, v).numpy().tolist() == [2.0, 4.0]
    assert np.asarray(v).tolist() == [1.0, 2.0]
    assert float(variables.Variable(2.5)) == 2.5
    assert int(variables.Variable(7)) == 7


def test_variable_matmul_operator():
    m = variables.Variable([[1.0, 2.0], [3.0, 4.0]])
    result = m @ array_ops.constant([[1.0], [1.0]])
    assert result.numpy().tolist() == [[3.0], [7.0]]


# -- assignment, eagerly ----------------------------------------------------------------------

def test_assign_assign_add_and_assign_sub_update_and_return_the_new_value():
    v = variables.Variable(10)
    assert v.assign(3).numpy() == 3
    assert v.numpy() == 3
    assert v.assign_add(4).numpy() == 7
    assert v.numpy() == 7
    assert v.assign_sub(10).numpy() == -3
    assert v.numpy() == -3


def test_assign_of_python_numbers_takes_the_variable_dtype():
    v = variables.Variable(1.0)
    v.assign(2)
    assert v.dtype is dtypes.float32
    assert isinstance(v.numpy(), np.float32)
    assert v.numpy() == 2.0


@pytest.mark.parametrize("value",
                         [array_ops.constant(1), array_ops.constant(1.0, dtypes.float64), "text"],
                         ids=["int32", "float64", "string"])
def test_assigning_a_wrong_dtype_eagerly_raises_and_keeps_the_value(value):
    v = variables.Variable(5.0)
    with pytest.raises(errors.InvalidArgumentError) as info:
        v.assign(value)
    assert "float32" in str(info.value)
    assert v.numpy() == 5.0


def test_assign_add_of_a_wrong_dtype_eagerly_raises():
    v = variables.Variable([1, 2])
    with pytest.raises(errors.InvalidArgumentError, match="int32"):
        v.assign_add(array_ops.constant([1.0, 1.0]))
    assert v.numpy().tolist() == [1, 2]


def test_assigning_a_wrong_shape_eagerly_raises_and_keeps_the_value():
    v = variables.Variable([1.0, 2.0])
    with pytest.raises(ValueError) as info:  # TensorFlow's Python-side check and words
        v.assign([1.0, 2.0, 3.0])
    assert str(info.value) == (
        "Cannot assign value to variable ' Variable:0': Shape mismatch.The variable shape "
        "(2,), and the assigned value shape (3,) are incompatible.")
    with pytest.raises(errors.InvalidArgumentError):
        v.assign_add(1.0)
    assert v.numpy().tolist() == [1.0, 2.0]


# -- assignment and reading in graphs ----------------------------------------------------------

def test_assignments_in_a_graph_run_on_every_call():
    v = variables.Variable(0)

    @function
    def step():
        v.assign_add(2)
        v.assign_sub(1)
        return v.read_value()

    assert [step().numpy() for _ in range(3)] == [1, 2, 3]
    assert v.numpy() == 3
    assert step.experimental_get_tracing_count() == 1


def test_assign_in_a_graph_from_an_argument():
    v = variables.Variable([0.0, 0.0])

    @function
    def store(x):
        return v.assign(x * 2.0)

    assert store(array_ops.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]
    assert v.numpy().tolist() == [2.0, 4.0]
    store(array_ops.constant([5.0, 5.0]))
    assert v.numpy().tolist() == [10.0, 10.0]


def test_assign_returns_a_usable_tensor_inside_the_graph():
    v = variables.Variable(1.0)

    @function
    def f():
        new = v.assign_add(1.0)
        return new * 10.0

    assert f().numpy() == 20.0
    assert f().numpy() == 30.0


def test_graph_reads_see_eager_updates_without_retracing():
    v = variables.Variable(1.0)

    @function
    def read(x):
        return x * v

    assert read(array_ops.constant(2.0)).numpy() == 2.0
    v.assign(5.0)
    assert read(array_ops.constant(2.0)).numpy() == 10.0
    v.assign_add(1.0)
    assert read(array_ops.constant(2.0)).numpy() == 12.0
    assert read.experimental_get_tracing_count() == 1


def test_graph_reads_see_updates_made_by_another_graph():
    v = variables.Variable(0)

    @function
    def bump():
        v.assign_add(1)

    @function
    def read():
        return v.read_value()

    bump()
    bump()
    assert read().numpy() == 2
    bump()
    assert read().numpy() == 3


def test_assigning_a_wrong_dtype_while_tracing_raises_type_error():
    v = variables.Variable(1.0)

    @function
    def f(x):
        v.assign(x)
        return x

    with pytest.raises(TypeError) as info:
        f(array_ops.constant(1))
    assert "int32" in str(info.value) and "float32" in str(info.value)
    assert v.numpy() == 1.0


def test_assigning_a_wrong_shape_while_tracing_raises_value_error():
    v = variables.Variable([1.0, 2.0])

    @function
    def f(x):
        return v.assign_add(x)

    with pytest.raises(ValueError):
        f(array_ops.constant([1.0, 2.0, 3.0]))
    assert v.numpy().tolist() == [1.0, 2.0]


def test_variables_passed_as_arguments_are_updated_in_place():
    @function
    def increment(counter, by):
        counter.assign_add(by)
        return counter.read_value()

    a, b = variables.Variable(0), variables.Variable(100)
    assert increment(a, array_ops.constant(1)).numpy() == 1
    assert increment(b, array_ops.constant(1)).numpy() == 101
    assert increment(a, array_ops.constant(5)).numpy() == 6
    assert (a.numpy(), b.numpy()) == (6, 101)
    assert increment.experimental_get_tracing_count() == 1


def test_returning_the_variable_gives_its_value_at_return_time():
    v = variables.Variable(1)

    @function
    def f():
        v.assign(7)
        return v

    assert f().numpy() == 7


def test_variable_numpy_is_unavailable_inside_a_trace():
    v = variables.Variable(1.0)

    @function
    def f():
        return v.numpy()

    with pytest.raises(NotImplementedError):
        f()


# -- creating variables in traced functions ------------------------------------------------------

def test_variables_may_be_created_on_the_first_trace():
    holder = []

    @function
    def f(x):
        if not holder:
            holder.append(variables.Variable(1.0))
        return holder[0].assign_add(x)

    assert f(array_ops.constant(1.0)).numpy() == 2.0
    assert f(array_ops.constant(1.0)).numpy() == 3.0
    assert len(holder) == 1
    assert holder[0].numpy() == 3.0


def test_creating_a_variable_on_every_call_raises_value_error():
    @function
    def f(x):
        v = variables.Variable(1.0)
        return v + x

    with pytest.raises(ValueError, match="variable"):
        f(array_ops.constant(1.0))


@pytest.mark.parametrize("autograph", [False, True], ids=["as written", "converted"])
def test_creating_a_variable_on_a_later_trace_raises_value_error_naming_the_line(autograph):
    created = {}

    def f(x):
        n = x.shape[0]
        if n not in created:
            created[n] = variables.Variable(array_ops.zeros([n]))  # the creating line
        return created[n].assign_add(x)

    f = function(f, autograph=autograph)
    assert f(array_ops.constant([1.0])).numpy().tolist() == [1.0]
    with pytest.raises(ValueError) as info:
        f(array_ops.constant([1.0, 2.0]))
    message = str(info.value)
    assert "test_variables.py" in message
    assert "the creating line" in message
    assert list(created) == [1]


def test_variables_initialised_from_the_argument_on_the_first_trace():
    state = []

    @function
    def fn(x):
        if not state:
            state.append(variables.Variable(2.0 * x))
            state.append(variables.Variable(state[0] * 3.0))
        return state[0] * x * state[1]

    # First call: state[0] = 2 * 2 = 4, state[1] = 4 * 3 = 12, result = 4 * 2 * 12.
    assert fn(array_ops.constant(2.0)).numpy() == 96.0
    # The variables keep their first values: 4 * 3 * 12.
    assert fn(array_ops.constant(3.0)).numpy() == 144.0
    assert [v.numpy() for v in state] == [4.0, 12.0]
    assert len(state) == 2


def test_variable_initialised_from_the_argument_keeps_its_first_value():
    state = {}

    @function
    def f(x):
        if "v" not in state:
            state["v"] = variables.Variable(x * 2.0)
        return state["v"].read_value()

    assert f(array_ops.constant(3.0)).numpy() == 6.0
    assert f(array_ops.constant(5.0)).numpy() == 6.0
    assert state["v"].numpy() == 6.0


def test_variable_created_with_a_constant_value_in_a_trace_is_usable_eagerly():
    holder = []

    @function
    def f():
        if not holder:
            holder.append(variables.Variable([1, 2, 3]))
        return reduction_ops.reduce_sum(holder[0])

    assert f().numpy() == 6
    assert holder[0].numpy().tolist() == [1, 2, 3]
    holder[0].assign([4, 5, 6])
    assert f().numpy() == 15


def test_concrete_function_keeps_its_captured_variables_alive():
    holder = {"v": variables.Variable(3)}

    @function
    def f(x):
        return x * holder["v"]

    cf = f.get_concrete_function(4)
    del holder["v"]
    gc.collect()
    assert cf(4).numpy() == 12
    assert len(cf.variables) == 1


# -- tf.Module -------------------------------------------------------------------------------

def test_module_collects_variables_from_attributes_lists_and_submodules():
    class Dense(module.Module):
        def __init__(self):
            super().__init__()
            self.w = variables.Variable([[1.0]])
            self.extra = [variables.Variable(0.0, trainable=False)]
            self.child = module.Module(name="child")
            self.child.b = variables.Variable([2.0])

    layer = Dense()
    assert layer.name == "dense"  # TensorFlow's default: the class name in snake case
    assert layer.child.name == "child"
    assert len(layer.variables) == 3
    assert len(layer.trainable_variables) == 2
    assert not any(v is layer.extra[0] for v in layer.trainable_variables)
    assert any(v is layer.extra[0] for v in layer.variables)
    assert any(v is layer.child.b for v in layer.trainable_variables)


def test_module_lists_its_own_attributes_by_name_then_the_modules_it_holds():
    class Leaf(module.Module):
        def __init__(self, name):
            super().__init__(name=name)
            self.w = variables.Variable(1.0, name=name + "_w")
            self.b = variables.Variable(2.0, name=name + "_b")

    class Tree(module.Module):
        def __init__(self):
            super().__init__()
            self.z_leaf = Leaf("z")
            self.scale = variables.Variable(3.0, name="scale")
            self.a_leaves = {"second": Leaf("second"), "first": Leaf("first")}
            self.offset = variables.Variable(4.0, name="offset", trainable=False)
            self.again = self.z_leaf  # held twice: listed once

    tree = Tree()
    names = [v.name for v in tree.variables]
    assert names == ["offset:0", "scale:0", "first_b:0", "first_w:0", "second_b:0",
                     "second_w:0", "z_b:0", "z_w:0"]
    assert [v.name for v in tree.trainable_variables] == names[1:]
    assert [v.name for v in tree.non_trainable_variables] == ["offset:0"]
    assert [m.name for m in tree.submodules] == ["first", "second", "z"]


def test_submodules_are_found_through_other_modules_and_cycles_end():
    outer, middle, inner = module.Module("outer"), module.Module("middle"), \
        module.Module("inner")
    outer.child = middle
    middle.child = inner
    inner.parent = outer  # a cycle
    assert [m.name for m in outer.submodules] == ["middle", "inner"]


@pytest.mark.parametrize("name", ["has space", "1st", "a-b", ""])
def test_a_module_name_must_be_an_identifier(name):
    with pytest.raises(ValueError, match="not a valid module name"):
        module.Module(name=name)


def test_module_names_default_to_the_class_name_in_snake_case():
    class MySequentialModule(module.Module):
        pass

    class MLP2(module.Module):
        pass

    assert MySequentialModule().name == "my_sequential_module"
    assert MLP2().name == "mlp2"


def test_with_name_scope_names_the_nodes_a_method_adds():
    class Scaler(module.Module):
        @module.Module.with_name_scope
        def __call__(self, x):
            return math_ops.multiply(x, 2.0)

    scaler = Scaler(name="scaler")
    cf = function(lambda x: scaler(x)).get_concrete_function(array_ops.constant(1.0))
    names = [node.name for node in cf.graph.as_graph_def().node]
    assert any(name.startswith("scaler/") for name in names), names
    assert scaler(array_ops.constant(3.0)).numpy() == 6.0


def test_module_method_with_variables_as_a_function():
    class Counter(module.Module):
        def __init__(self):
            super().__init__()
            self.count = variables.Variable(0)

        @function
        def __call__(self, by):
            self.count.assign_add(by)
            return self.count.read_value()

    counter = Counter()
    assert counter(array_ops.constant(2)).numpy() == 2
    assert counter(array_ops.constant(3)).numpy() == 5
    assert counter.count.numpy() == 5


# -- the caller's arrays are not kept -----------------------------------------------------------

def test_a_variable_does_not_keep_the_array_it_was_created_from():
    initial = np.array([1.0, 2.0], np.float32)
    v = variables.Variable(initial)
    initial[0] = 7.0
    assert v.numpy().tolist() == [1.0, 2.0]


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "in_a_function"])
def test_an_assignment_does_not_keep_the_assigned_array(traced):
    v = variables.Variable([0.0, 0.0])

    def assign(x):
        v.assign(x)
        return v.read_value()

    new = np.array([3.0, 4.0], np.float32)
    (function(assign) if traced else assign)(new)
    new[0] = 9.0
    assert v.numpy().tolist() == [3.0, 4.0]


def test_a_constant_made_from_an_array_in_a_trace_keeps_the_traced_value():
    # (as TensorFlow: the graph holds the value the array had when the function was traced)
    array = np.array([1.0, 2.0], np.float32)
    scaled = function(lambda x: math_ops.multiply(array_ops.constant(array), x))
    two = array_ops.constant(2.0)
    assert scaled(two).numpy().tolist() == [2.0, 4.0]
    array[0] = 5.0
    assert scaled(two).numpy().tolist() == [2.0, 4.0]


@pytest.mark.lowerings
@pytest.mark.parametrize("scalar_shape", [(), [], shape_lib.TensorShape([])], ids=repr)
def test_tensor_spec_and_variable_accept_the_empty_shape(scalar_shape):
    assert variables.Variable(1.0, shape=scalar_shape).shape == ()
    spec = signature_lib.TensorSpec(scalar_shape, dtypes.float32)
    assert spec.shape == () and spec.shape.rank == 0
    f = function(lambda x: x * 2, input_signature=[spec])
    assert f(array_ops.constant(3.0)).numpy() == 6.0
