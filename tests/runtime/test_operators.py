"""runtime.operators: the ag__ entry points decide at run time between plain Python (Python
values, eager tensors) and graph ops (symbolic tensors inside a trace)."""

import builtins

import numpy as np
import pytest

from runtime import dtypes, variables
from runtime.function import function as runtime_function
from runtime.functional import control_flow as functional
from runtime.graph import Graph
from runtime.operators import (
    and_,
    assert_stmt,
    for_stmt,
    if_exp,
    if_stmt,
    ld,
    not_,
    or_,
    py_builtins,
    while_stmt,
)
from runtime.operators.undefined import (
    MaybeUndefined,
    Undefined,
    UndefinedReturnValue,
    is_undefined,
)
from runtime.ops import array_ops, math_ops
from runtime.tensor import SymbolicTensor


@pytest.fixture
def graph():
    """A graph being traced: ops on its placeholders are symbolic."""
    g = Graph("test")
    with g.as_default():
        yield g


def placeholder(graph, dtype=dtypes.int32, shape=()):
    return graph.add_placeholder("p", dtype, shape)


def ops_of(graph):
    return [n.op.name for n in graph.nodes]


def staged(ops, kind):
    return ops.count(kind) + ops.count("Stateless" + kind)


class State:
    """get_state/set_state over named slots, like the generated closures."""

    def __init__(self, **values):
        self.names = tuple(sorted(values))
        self.values = dict(values)
        self.gets = 0

    def get(self):
        self.gets += 1
        return tuple(self.values[n] for n in self.names)

    def set(self, values):
        self.values.update(zip(self.names, values))

    def __getitem__(self, name):
        return self.values[name]

    def __setitem__(self, name, value):
        self.values[name] = value


def never(*args):
    raise AssertionError("must not be called")


# -- if_stmt / if_exp -------------------------------------------------------------------------


@pytest.mark.parametrize("cond, expected", [(True, "body"), (False, "orelse"), (1, "body"),
                                            ([], "orelse")])
def test_if_stmt_on_python_value_runs_one_branch_as_plain_python(cond, expected):
    ran = []
    if_stmt(cond, lambda: ran.append("body"), lambda: ran.append("orelse"), never, never, ())
    assert ran == [expected]


def test_if_stmt_on_an_eager_tensor_is_plain_python():
    ran = []
    if_stmt(array_ops.constant(3) > 2, lambda: ran.append("body"), lambda: ran.append("orelse"),
            never, never, ())
    assert ran == ["body"]


def test_if_stmt_on_a_variable_reads_it():
    ran = []
    if_stmt(variables.Variable(False), lambda: ran.append("body"), lambda: ran.append("orelse"),
            never, never, ())
    assert ran == ["orelse"]


def test_if_stmt_on_a_symbolic_tensor_adds_one_if_op_and_traces_both_branches(graph):
    x = placeholder(graph)
    state = State(y=x)
    traced = []

    def body():
        traced.append("body")
        state["y"] = state["y"] * 2

    def orelse():
        traced.append("orelse")
        state["y"] = -state["y"]

    if_stmt(x > 0, body, orelse, state.get, state.set, state.names)
    assert traced == ["body", "orelse"]
    assert staged(ops_of(graph), "If") == 1
    result = state["y"]
    assert isinstance(result, SymbolicTensor) and result.graph is graph
    assert result.node.op.name.endswith("If")


def manual_if(x):
    state = State(y=x)

    def body():
        state["y"] = state["y"] * 2

    def orelse():
        state["y"] = -state["y"]

    if_stmt(x > 0, body, orelse, state.get, state.set, state.names)
    return state["y"]


def test_staged_if_stmt_computes_the_right_branch_at_run_time():
    function = runtime_function(manual_if, autograph=False)
    assert [int(function(array_ops.constant(v)).numpy()) for v in (3, -4, 0)] == [6, 4, 0]
    assert function.experimental_get_tracing_count() == 1


def test_staged_if_stmt_turns_python_numbers_into_tensors_of_the_other_side(graph):
    x = placeholder(graph, dtypes.float32)
    state = State(y=0)
    if_stmt(x > 0, lambda: state.__setitem__("y", x), lambda: state.__setitem__("y", 1),
            state.get, state.set, state.names)
    assert state["y"].dtype is dtypes.float32


def test_staged_if_stmt_keeps_equal_python_values_as_python(graph):
    x = placeholder(graph)
    state = State(mode="same")
    if_stmt(x > 0, lambda: None, lambda: None, state.get, state.set, state.names)
    assert state["mode"] == "same"
    assert staged(ops_of(graph), "If") == 1


def test_staged_if_stmt_flags_a_variable_set_in_one_branch_only(graph):
    x = placeholder(graph)
    state = State(y=Undefined("y"))
    if_stmt(x > 0, lambda: state.__setitem__("y", x), lambda: None, state.get, state.set,
            state.names)
    assert isinstance(state["y"], MaybeUndefined)
    assert state["y"].value.dtype is dtypes.int32 and state["y"].defined.dtype is dtypes.bool_
    assert ld(state["y"]) is state["y"].value
    assert "CheckDefined" in ops_of(graph)


def test_staged_if_stmt_gives_compiler_flags_a_neutral_value(graph):
    x = placeholder(graph)
    state = State(do_return=False, retval_=UndefinedReturnValue())

    def body():
        state["do_return"] = True
        state["retval_"] = x

    if_stmt(x > 0, body, lambda: None, state.get, state.set, state.names)
    assert state["do_return"].dtype is dtypes.bool_
    assert state["retval_"].dtype is dtypes.int32


def test_staged_if_stmt_rejects_different_dtypes_naming_the_variable(graph):
    x = placeholder(graph)
    state = State(y=x)
    with pytest.raises(TypeError, match="'y' has dtype int32 in the if branch but float32"):
        if_stmt(x > 0, lambda: None,
                lambda: state.__setitem__("y", math_ops.cast(x, dtypes.float32)),
                state.get, state.set, state.names)


def test_if_exp_on_python_values_calls_one_side():
    assert if_exp(True, lambda: "yes", never) == "yes"
    assert if_exp(0, never, lambda: "no") == "no"


def test_if_exp_on_a_symbolic_tensor_is_an_if_op(graph):
    x = placeholder(graph)
    result = if_exp(x > 0, lambda: x, lambda: -x, "x if x > 0 else -x")
    assert isinstance(result, SymbolicTensor)
    assert staged(ops_of(graph), "If") == 1


def test_if_exp_error_names_the_expression(graph):
    x = placeholder(graph)
    with pytest.raises(TypeError, match="the conditional expression x if c else y"):
        if_exp(x, lambda: x, lambda: x, "x if c else y")  # int32 condition: not a bool


# -- while_stmt -----------------------------------------------------------------------------------


def test_while_stmt_on_python_values_loops_in_python():
    state = State(i=0)
    while_stmt(lambda: state["i"] < 5, lambda: state.__setitem__("i", state["i"] + 1),
               state.get, state.set, state.names)
    assert state["i"] == 5
    assert state.gets == 0  # plain Python: the state functions are not needed


def test_while_stmt_on_eager_tensors_loops_in_python():
    state = State(x=array_ops.constant(100))
    while_stmt(lambda: state["x"] > 10, lambda: state.__setitem__("x", state["x"] // 2),
               state.get, state.set, state.names)
    assert state["x"].numpy() == 6


def test_while_stmt_on_a_symbolic_condition_adds_one_while_op(graph):
    x = placeholder(graph)
    state = State(x=x)
    bodies = []

    def body():
        bodies.append(1)
        state["x"] = state["x"] // 2

    while_stmt(lambda: state["x"] > 10, body, state.get, state.set, state.names)
    assert staged(ops_of(graph), "While") == 1
    assert "FloorDiv" not in ops_of(graph)  # the body lives in the While op's sub-graph
    assert bodies == [1]
    assert state["x"].graph is graph


def manual_countdown(n):
    state = State(i=0, n=n)

    def body():
        state["i"] = state["i"] + 1
        state["n"] = state["n"] - 2

    while_stmt(lambda: state["n"] > 0, body, state.get, state.set, state.names)
    return state["i"], state["n"]


def test_staged_while_stmt_runs_the_right_number_of_iterations():
    function = runtime_function(manual_countdown, autograph=False)
    for n in (0, 1, 6, 7):
        steps, rest = function(array_ops.constant(n))
        assert (int(steps.numpy()), int(rest.numpy())) == manual_countdown(n)
    assert function.experimental_get_tracing_count() == 1


def test_while_stmt_stages_the_rest_once_its_condition_becomes_symbolic(graph):
    x = placeholder(graph)
    state = State(i=0)
    while_stmt(lambda: state["i"] < 3, lambda: state.__setitem__("i", state["i"] + x),
               state.get, state.set, state.names)
    assert staged(ops_of(graph), "While") == 1
    assert ops_of(graph).count("AddV2") == 1  # the first iteration ran in Python


def test_staged_while_stmt_rejects_a_dtype_change_naming_the_variable(graph):
    x = placeholder(graph)
    state = State(v=x)
    with pytest.raises(TypeError, match="loop variable 'v' changed dtype"):
        while_stmt(lambda: state["v"] > 0,
                   lambda: state.__setitem__("v", math_ops.cast(state["v"], dtypes.float32)),
                   state.get, state.set, state.names)
    assert state["v"] is x


# -- for_stmt -------------------------------------------------------------------------------------


def test_for_stmt_over_python_data_runs_the_body_per_item():
    seen = []
    for_stmt([3, 1, 2], None, seen.append, never, never, ())
    assert seen == [3, 1, 2]


def test_for_stmt_extra_test_stops_a_python_loop():
    seen = []
    for_stmt(range(10), lambda: len(seen) < 4, seen.append, never, never, ())
    assert seen == [0, 1, 2, 3]


def test_for_stmt_delegates_to_a_custom_iteration_hook():
    class Custom:
        def __ag_for_stmt__(self, extra_test, body, get_state, set_state, names):
            body("from hook")
            return names

    seen = []
    assert for_stmt(Custom(), None, seen.append, never, never, ("a",)) == ("a",)
    assert seen == ["from hook"]


def test_for_stmt_hands_its_loop_options_to_a_custom_iteration_hook():
    class Custom:
        def __ag_for_stmt__(self, extra_test, body, get_state, set_state, names, options=None):
            return options

    options = for_stmt(Custom(), None, never, never, never, ("a",),
                       opts={"maximum_iterations": 2, "iterate_names": "i"})
    assert options.maximum_iterations == 2


def test_for_stmt_over_a_symbolic_tensor_is_one_while_op(graph):
    x = placeholder(graph, dtypes.float32, (4, 2))
    state = State(s=array_ops.zeros([2]))
    items = []

    def body(row):
        items.append(row)
        state["s"] = state["s"] + row

    for_stmt(x, None, body, state.get, state.set, state.names)
    assert staged(ops_of(graph), "While") == 1
    assert len(items) == 1 and items[0]._shape == (2,)


def test_for_stmt_over_a_range_tensor_counts_without_indexing(graph):
    n = placeholder(graph)
    state = State(s=0)
    items = []

    def body(i):
        items.append(i)
        state["s"] = state["s"] + i

    for_stmt(array_ops.range(n), None, body, state.get, state.set, state.names)
    assert staged(ops_of(graph), "While") == 1
    body_graph = items[0].graph
    assert items[0].node.op.name == "Placeholder"  # the counter itself, not range[i]
    assert not any(node.op.name in ("StridedSlice", "Gather", "GatherV2")
                   for node in body_graph.nodes)


def test_for_stmt_over_a_scalar_tensor_is_an_error(graph):
    x = placeholder(graph)
    with pytest.raises(ValueError, match="cannot iterate over a tensor of shape \\(\\)"):
        for_stmt(x, None, never, lambda: (), lambda v: None, ())


def manual_sum(x):
    state = State(s=array_ops.constant(0))
    for_stmt(x, None, lambda v: state.__setitem__("s", state["s"] + v), state.get, state.set,
             state.names)
    return state["s"]


def test_staged_for_stmt_visits_every_element():
    function = runtime_function(manual_sum, autograph=False)
    assert function(array_ops.constant([1, 2, 3, 4])).numpy() == 10
    assert function(array_ops.constant([5, 6, 7, 8])).numpy() == 26
    assert function.experimental_get_tracing_count() == 1


# -- and_ / or_ / not_ ----------------------------------------------------------------------------


@pytest.mark.parametrize("left, right", [(0, 5), (3, 5), ("", "x"), ("a", ""), (None, [1])])
def test_python_and_or_not_return_what_python_returns(left, right):
    assert and_(lambda: left, lambda: right) == (left and right)
    assert or_(lambda: left, lambda: right) == (left or right)
    assert not_(left) is (not left)


def test_python_and_or_do_not_evaluate_the_right_side_when_decided():
    assert and_(lambda: 0, never) == 0
    assert or_(lambda: 7, never) == 7


def test_and_or_on_symbolic_tensors_stage_the_right_side_in_an_if(graph):
    x = placeholder(graph)
    right_calls = []

    def right():
        right_calls.append(1)
        return x < 10

    result = and_(lambda: x > 0, right)
    assert result.dtype is dtypes.bool_ and isinstance(result, SymbolicTensor)
    assert staged(ops_of(graph), "If") == 1
    assert "Less" not in ops_of(graph)  # the right side is inside the If's branch
    assert right_calls == [1]
    or_(lambda: x > 0, right)
    assert staged(ops_of(graph), "If") == 2


def test_not_of_a_symbolic_tensor_is_logical_not(graph):
    x = placeholder(graph, dtypes.bool_)
    result = not_(x)
    assert result.node.op.name == "LogicalNot"


def test_not_of_an_eager_tensor():
    assert bool(not_(array_ops.constant(False))) is True


# -- assert_stmt ----------------------------------------------------------------------------------


def test_python_assert_passes_without_building_its_message():
    assert assert_stmt(True, never) is None
    assert assert_stmt(1) is None


def test_python_assert_fails_with_the_lazy_message():
    with pytest.raises(AssertionError, match="^value was 3$"):
        assert_stmt(False, lambda: "value was 3")
    with pytest.raises(AssertionError):
        assert_stmt(array_ops.constant(False))


def test_symbolic_assert_adds_a_check_op_instead_of_failing_now(graph):
    x = placeholder(graph)
    assert_stmt(x > 0, lambda: "x must be positive")
    assert "Assert" in ops_of(graph)
    (node,) = [n for n in graph.nodes if n.op.name == "Assert"]
    assert "x must be positive" in node.attrs["message"]


# -- py_builtins ----------------------------------------------------------------------------------


def test_range_with_python_ints_is_python_range():
    result = py_builtins.range_(1, 7, 2)
    assert isinstance(result, builtins.range) and list(result) == [1, 3, 5]


def test_range_with_a_tensor_bound_is_a_range_op(graph):
    n = placeholder(graph)
    result = py_builtins.range_(n)
    assert result.node.op.name == "Range"
    assert result.dtype is dtypes.int32


def test_len_of_symbolic_tensors(graph):
    known = placeholder(graph, dtypes.float32, (3, 2))
    unknown = placeholder(graph, dtypes.float32, (None,))
    assert py_builtins.len_(known) == 3
    dynamic = py_builtins.len_(unknown)
    assert isinstance(dynamic, SymbolicTensor) and dynamic.dtype is dtypes.int32
    with pytest.raises(TypeError, match="scalar"):
        py_builtins.len_(placeholder(graph))
    assert py_builtins.len_([1, 2]) == 2


def test_int_float_bool_cast_symbolic_tensors(graph):
    x = placeholder(graph, dtypes.float32)
    assert py_builtins.int_(x).dtype is dtypes.int32
    assert py_builtins.float_(placeholder(graph)).dtype is dtypes.float32
    flag = placeholder(graph, dtypes.bool_)
    assert py_builtins.bool_(flag) is flag
    assert py_builtins.bool_(placeholder(graph)).node.op.name == "NotEqual"
    assert (py_builtins.int_("12"), py_builtins.float_(2), py_builtins.bool_([])) == (
        12, 2.0, False)
    assert py_builtins.int_("ff", 16) == 255


# -- Undefined ------------------------------------------------------------------------------------


@pytest.mark.parametrize("use", [lambda u: u + 1, lambda u: bool(u), lambda u: u.attr,
                                 lambda u: u[0], lambda u: u(), lambda u: -u,
                                 lambda u: list(u), lambda u: u < 3])
def test_using_an_undefined_value_raises_unbound_local_naming_it(use):
    with pytest.raises(UnboundLocalError, match="'total'"):
        use(Undefined("total"))


def test_ld_passes_values_and_rejects_undefined():
    assert ld(5) == 5
    with pytest.raises(UnboundLocalError, match="'y'"):
        ld(Undefined("y"))
    assert is_undefined(UndefinedReturnValue()) and not is_undefined(None)
    assert repr(Undefined("q")) == "<undefined q>"


# -- tf.cond / tf.while_loop ----------------------------------------------------------------------


def test_cond_on_python_values_and_on_symbolic_tensors(graph):
    assert functional.cond(True, lambda: 1, never) == 1
    x = placeholder(graph)
    result = functional.cond(x > 0, lambda: x + 1, lambda: x - 1)
    assert isinstance(result, SymbolicTensor)
    assert staged(ops_of(graph), "If") == 1
    with pytest.raises(TypeError):
        functional.cond(x > 0, lambda: x)


def test_while_loop_runs_python_loops_and_stages_symbolic_ones(graph):
    assert functional.while_loop(lambda i: i < 4, lambda i: (i + 1,), [0]) == [4]
    assert functional.while_loop(lambda i: i < 4, lambda i: i + 1, 0) == 4
    x = placeholder(graph)
    (result,) = functional.while_loop(lambda i: i < x, lambda i: (i + 1,), (0,))
    assert isinstance(result, SymbolicTensor)
    assert staged(ops_of(graph), "While") == 1
    with pytest.raises(TypeError, match="same structure"):
        functional.while_loop(lambda i: i < x, lambda i: (i, i), [0])


def test_while_loop_accepts_a_bare_value_for_a_single_loop_variable():
    assert functional.while_loop(lambda i: i < 4, lambda i: i + 1, [0]) == [4]


def test_while_loop_maximum_iterations_python_and_staged():
    assert functional.while_loop(lambda i: i < 10, lambda i: i + 1, 0,
                                 maximum_iterations=3) == 3

    @runtime_function(autograph=False)
    def f(n, limit):
        return functional.while_loop(lambda i: i < n, lambda i: i + 2, [array_ops.constant(0)],
                                     maximum_iterations=limit)

    assert [int(f(array_ops.constant(n), array_ops.constant(3))[0].numpy())
            for n in (0, 3, 100)] == [0, 4, 6]


def test_tf_while_loop_result_at_run_time():
    @runtime_function(autograph=False)
    def f(n):
        return functional.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), (0, 0))

    i, s = f(array_ops.constant(5))
    assert (int(i.numpy()), int(s.numpy())) == (5, 10)
    np.testing.assert_array_equal(f(array_ops.constant(0))[1].numpy(), 0)
