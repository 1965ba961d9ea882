"""The control-flow pass: if/while/for to ag__.if_stmt/while_stmt/for_stmt with get_state/
set_state closures over exactly the live modified names; behaviour of the traced result
against plain Python; and the errors that name the variable and the user's line."""

import textwrap

import gast
import numpy as np
import pytest
from source_lines import line_of

import autograph
import autograph.tf as tf
from autograph import conversion
from autograph.pyct import codegen, parsing


def convert_snippet(source):
    module, info = parsing.parse_source(textwrap.dedent(source), "snippet.py")
    node = module.body[0]
    return conversion.convert_node(node, info, node.name)


def scope_body(converted):
    """The statements inside `with ag__.FunctionScope(...) as fscope:`."""
    (with_node,) = converted.body
    assert isinstance(with_node, gast.With)
    return with_node.body


def defs(statements):
    return {s.name: s for s in statements if isinstance(s, gast.FunctionDef)}


def ag_calls(node, name):
    nodes = node if isinstance(node, list) else [node]
    return [n for root in nodes for n in gast.walk(root) if isinstance(n, gast.Call)
            and isinstance(n.func, gast.Attribute) and n.func.attr == name
            and isinstance(n.func.value, gast.Name) and n.func.value.id == "ag__"]


def returned_names(function_def):
    (ret,) = function_def.body
    return [e.id for e in ret.value.elts]


def string_tuple(node):
    return [e.value for e in node.elts]


def op_types(function, *args):
    return [n.op for n in function.get_concrete_function(*args).graph.as_graph_def().node]


def count_staged(ops, kind):
    """How many If (or While) ops, stateful or stateless, are in `ops`."""
    return ops.count(kind) + ops.count("Stateless" + kind)


# -- output shape: if ----------------------------------------------------------------------------


IF_SNIPPET = """
    def f(x):
        w = 1
        if x > 0:
            tmp = x * 2
            zeta = tmp + 1
            alpha = 0
            unused = 5
        else:
            zeta = -x
            alpha = 1
        return zeta + alpha + w
"""


def test_if_becomes_if_stmt_with_branch_functions():
    body = scope_body(convert_snippet(IF_SNIPPET))
    functions = defs(body)
    assert {"get_state", "set_state", "if_body", "else_body"} <= set(functions)
    (call,) = ag_calls(body, "if_stmt")
    test, if_body, else_body, get_state, set_state, names = call.args
    assert codegen.to_source(test).strip() == "x > 0"
    assert [if_body.id, else_body.id, get_state.id, set_state.id] == [
        "if_body", "else_body", "get_state", "set_state"]
    assert not any(isinstance(n, gast.If) for n in gast.walk(convert_snippet(IF_SNIPPET)))


def test_if_state_is_exactly_the_live_modified_names_sorted():
    body = scope_body(convert_snippet(IF_SNIPPET))
    functions = defs(body)
    (call,) = ag_calls(body, "if_stmt")
    # tmp and unused are modified but dead afterwards; w is live but not modified.
    assert returned_names(functions["get_state"]) == ["alpha", "zeta"]
    assert string_tuple(call.args[5]) == ["alpha", "zeta"]
    set_state = functions["set_state"]
    assert isinstance(set_state.body[0], gast.Nonlocal)
    assert set_state.body[0].names == ["alpha", "zeta"]
    assert codegen.to_source(set_state.body[1]).strip() == "alpha, zeta = vars_"


def test_branch_functions_share_only_the_state_and_keep_temporaries_local():
    functions = defs(scope_body(convert_snippet(IF_SNIPPET)))
    assert functions["if_body"].body[0].names == ["alpha", "zeta"]
    assert functions["else_body"].body[0].names == ["alpha", "zeta"]


def test_state_not_defined_before_the_if_starts_undefined():
    body = scope_body(convert_snippet(IF_SNIPPET))
    inits = [codegen.to_source(s).strip() for s in body if isinstance(s, gast.Assign)]
    assert "alpha = ag__.Undefined('alpha')" in inits
    assert "zeta = ag__.Undefined('zeta')" in inits
    assert not any(line.startswith("w = ag__") for line in inits)


@pytest.mark.parametrize("test", ["x is None", "x is not None", "not x is None",
                                  "isinstance(x, int)", "hasattr(x, 'shape')", "True", "0"])
def test_static_python_test_leaves_the_if_plain(test):
    converted = convert_snippet("""
        def f(x, y):
            if %s:
                y = 1
            return y
    """ % test)
    body = scope_body(converted)
    assert ag_calls(converted, "if_stmt") == []
    assert isinstance(body[0], gast.If)


def test_global_state_is_declared_global_not_undefined():
    converted = convert_snippet("""
        def f(x):
            global counter
            if x > 0:
                counter = 1
            return x
    """)
    functions = defs(scope_body(converted))
    assert isinstance(functions["if_body"].body[0], gast.Global)
    assert functions["if_body"].body[0].names == ["counter"]
    assert "Undefined" not in codegen.to_source(converted)


# -- output shape: loops -------------------------------------------------------------------------


def test_while_becomes_while_stmt_with_test_and_body():
    converted = convert_snippet("""
        def f(x, limit):
            count = 0
            while x > limit:
                x = x // 2
                count += 1
                scratch = count
            return x, count
    """)
    functions = defs(scope_body(converted))
    (call,) = ag_calls(converted, "while_stmt")
    assert [a.id for a in call.args[:4]] == ["loop_test", "loop_body", "get_state", "set_state"]
    assert string_tuple(call.args[4]) == ["count", "x"]
    assert returned_names(functions["get_state"]) == ["count", "x"]
    assert codegen.to_source(functions["loop_test"]).splitlines()[-1].strip() == \
        "return x > limit"
    assert functions["loop_body"].body[0].names == ["count", "x"]


def test_for_becomes_for_stmt_binding_the_target_from_the_item():
    converted = convert_snippet("""
        def f(rows):
            s = 0
            for i, row in rows:
                s += row
            return s
    """)
    functions = defs(scope_body(converted))
    (call,) = ag_calls(converted, "for_stmt")
    iterated, extra, body = call.args[:3]
    assert codegen.to_source(iterated).strip() == "rows"
    assert isinstance(extra, gast.Constant) and extra.value is None
    assert body.id == "loop_body"
    loop_body = functions["loop_body"]
    assert [a.id for a in loop_body.args.args] == ["itr"]
    assert codegen.to_source(loop_body.body[1]).strip() == "i, row = itr"
    assert string_tuple(call.args[5]) == ["s"]


def test_loop_carried_name_is_state_even_when_dead_after_the_loop():
    converted = convert_snippet("""
        def f(n):
            prev = 0
            total = 0
            while n > 0:
                total += prev
                prev = n
                n -= 1
            return total
    """)
    (call,) = ag_calls(converted, "while_stmt")
    assert string_tuple(call.args[4]) == ["n", "prev", "total"]


def test_nested_statements_get_their_own_state_functions():
    converted = convert_snippet("""
        def f(n):
            s = 0
            while n > 0:
                if n % 2 == 0:
                    s += n
                n -= 1
            return s
    """)
    (while_call,) = ag_calls(converted, "while_stmt")
    (if_call,) = ag_calls(converted, "if_stmt")
    assert string_tuple(while_call.args[4]) == ["n", "s"]
    assert string_tuple(if_call.args[5]) == ["s"]


def test_to_code_of_the_guide_loop_has_the_documented_shape():
    def f(x):
        while tf.reduce_sum(x) > 1:
            x = tf.tanh(x)
        return x

    code = autograph.to_code(f)
    assert "def get_state():\n            return (x,)" in code
    assert "nonlocal x\n            x, = vars_" in code
    assert "ag__.while_stmt(loop_test, loop_body, get_state, set_state, ('x',))" in code
    assert "ag__.converted_call(tf.reduce_sum, (x,), None, fscope) > 1" in code


# -- behaviour: traced on tensors == plain Python on ints ---------------------------------------


def if_elif_else(n):
    if n > 10:
        r = 1
    elif n > 5:
        r = 2
    else:
        r = 3
    return r


def halve_until_small(n):
    steps = 0
    while n > 10:
        n = n // 2
        steps += 1
    return n * 100 + steps


def sum_range(n):
    s = 0
    for i in range(n):
        s += i
    return s


def sum_range_step(a, b):
    s = 0
    for i in range(a, b, 2):
        s += i
    return s


def nested_loops_with_branches(n):
    s = 0
    i = 0
    while i < n:
        j = 0
        while j < i:
            if (i + j) % 3 == 0:
                s += 1
            elif (i + j) % 3 == 1:
                s += 10
            j += 1
        i += 1
    return s


def fibonacci(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def last_value(n):
    for i in range(n):
        y = i * 2
    return y


def evens_and_odds(n):
    evens = 0
    odds = 0
    for i in range(n):
        if i % 2 == 0:
            evens += 1
        else:
            odds += 1
    return evens * 100 + odds


@pytest.mark.parametrize("fn, values, staged_op", [
    (if_elif_else, [1, 7, 11], "If"),
    (halve_until_small, [3, 10, 11, 100, 1000], "While"),
    (sum_range, [0, 1, 5], "While"),
    (nested_loops_with_branches, [0, 3, 6], "While"),
    (fibonacci, [0, 1, 10], "While"),
    (last_value, [1, 3], "While"),
    (evens_and_odds, [0, 5, 8], "While"),
], ids=lambda v: getattr(v, "__name__", None))
def test_tensor_control_flow_matches_python(fn, values, staged_op):
    function = tf.function(fn)
    for n in values:
        assert function(tf.constant(n)).numpy() == fn(n), (fn.__name__, n)
    assert function.experimental_get_tracing_count() == 1
    assert count_staged(op_types(function, tf.constant(values[0])), staged_op) >= 1


@pytest.mark.parametrize("a, b", [(1, 8), (0, 1), (5, 5), (8, 1), (-3, 4)])
def test_range_with_tensor_bounds_and_a_step(a, b):
    function = tf.function(sum_range_step)
    assert function(tf.constant(a), tf.constant(b)).numpy() == sum_range_step(a, b)
    assert count_staged(op_types(function, tf.constant(a), tf.constant(b)), "While") == 1


@pytest.mark.parametrize("start, limit, delta", [(5, 0, -1), (0, 10, 3), (10, 0, -4), (0, 0, 1)])
def test_tf_range_loop_matches_python_range(start, limit, delta):
    @tf.function
    def f(a, b, d):
        s = 0
        for i in tf.range(a, b, d):
            s = s * 2 + i
        return s

    expected = 0
    for i in range(start, limit, delta):
        expected = expected * 2 + i
    assert f(tf.constant(start), tf.constant(limit), tf.constant(delta)).numpy() == expected


def sum_tf_range(n, step):
    s = 0
    for i in tf.range(0, n, step):
        s = s * 2 + i
    return s


def sum_python_range(n, step):
    s = 0
    for i in range(0, n, step):
        s = s * 2 + i
    return s


@pytest.mark.parametrize("loop", [sum_tf_range, sum_python_range])
def test_staged_range_loop_with_step_zero_raises_at_run_time(loop):
    function = tf.function(loop)
    with pytest.raises(tf.errors.InvalidArgumentError, match="range delta must not be zero"):
        function(tf.constant(5), tf.constant(0))
    with pytest.raises(tf.errors.InvalidArgumentError, match="range delta must not be zero"):
        function(tf.constant(-5), tf.constant(0))  # start > limit: the loop would never end


@pytest.mark.parametrize("loop", [sum_tf_range, sum_python_range])
@pytest.mark.parametrize("backend", ["numba", "jax"])
def test_staged_range_loop_with_step_zero_raises_on_compiled_backends(loop, backend):
    pytest.importorskip(backend)
    function = tf.function(loop, backend=backend)
    assert function(tf.constant(-7), tf.constant(-2)).numpy() == sum_python_range(-7, -2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="range delta must not be zero"):
        function(tf.constant(5), tf.constant(0))


@pytest.mark.parametrize("loop", [sum_tf_range, sum_python_range])
def test_converted_range_loop_with_step_zero_raises_like_python(loop):
    with pytest.raises(ValueError, match="range delta must not be zero"):
        autograph.to_graph(loop)(tf.constant(5), tf.constant(0))
    with pytest.raises(ValueError, match="range delta must not be zero"):
        tf.function(loop)(tf.constant(5), 0)  # a constant step: refused while tracing


def range_step_zero_in_a_branch(x):
    s = 0
    if x > 0:
        for i in range(0, 3, 0):
            s += i
    return s + x


def test_range_with_step_zero_in_a_staged_branch_raises_only_if_the_branch_runs():
    function = tf.function(range_step_zero_in_a_branch)
    assert function(tf.constant(-2)).numpy() == range_step_zero_in_a_branch(-2)
    with pytest.raises(tf.errors.InvalidArgumentError, match="range delta must not be zero"):
        function(tf.constant(2))
    with pytest.raises(ValueError, match="must not be zero"):
        range_step_zero_in_a_branch(2)
    caught = tf.function(range_step_zero_caught_in_a_branch)  # caught while tracing, as Python
    assert [int(caught(tf.constant(v))) for v in (1, -1)] == [7, 0]


@pytest.mark.parametrize("n, step", [(5, -1), (-5, -2), (-6, -3), (3, -1)])
def test_staged_range_loop_with_a_negative_step_iterates_like_python(n, step):
    expected = sum_python_range(n, step)
    for loop in (sum_tf_range, sum_python_range):
        assert tf.function(loop)(tf.constant(n), tf.constant(step)).numpy() == expected
        assert int(autograph.to_graph(loop)(tf.constant(n), tf.constant(step))) == expected


def range_step_zero_caught_in_a_branch(x):
    s = 0
    if x > 0:
        try:
            for i in range(0, 3, 0):
                s += i
        except ValueError:
            s = 7
    return s


def range_step_swallowed_by_finally(n, step):
    s = 0
    try:
        for i in range(0, n, step):
            s += i
    finally:
        return s


def test_range_step_that_a_jump_in_finally_would_swallow_is_refused():
    assert range_step_swallowed_by_finally(5, 0) == 0
    with pytest.raises(NotImplementedError, match=r"`finally:` block.*the range at .*:%d may "
                       "have a step of 0" % line_of(range_step_swallowed_by_finally, "for i")):
        tf.function(range_step_swallowed_by_finally)(tf.constant(5), tf.constant(0))


def test_for_over_a_tensor_iterates_its_first_dimension():
    @tf.function
    def f(x):
        s = tf.constant(0.0)
        count = 0.0
        for row in x:
            s += tf.reduce_sum(row) * (count + 1)
            count += 1
        return s, count

    total, count = f(tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
    assert total.numpy() == pytest.approx(3 * 1 + 7 * 2 + 11 * 3)
    assert count.numpy() == 3


def test_for_over_a_tensor_of_unknown_length():
    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32)])
    def f(x):
        s = 0
        for v in x:
            s = s * 10 + v
        return s

    assert f(tf.constant([1, 2, 3])).numpy() == 123
    assert f(tf.constant([4, 5])).numpy() == 45
    assert f(tf.constant([], dtype=tf.int32)).numpy() == 0


def test_for_over_tensor_rows_unpacks_the_target():
    @tf.function
    def f(pairs):
        s = 0
        for a, b in pairs:
            s += a * b
        return s

    assert f(tf.constant([[1, 2], [3, 4]])).numpy() == 14


def test_python_condition_traces_only_the_taken_branch(capsys):
    @tf.function
    def f(x, flag):
        if flag:
            print("traced true branch")
            y = x + 1
        else:
            print("traced false branch")
            y = x - 1
        return y

    assert f(tf.constant(1), True).numpy() == 2
    assert capsys.readouterr().out == "traced true branch\n"
    assert count_staged(op_types(f, tf.constant(1), True), "If") == 0


def test_tensor_condition_traces_both_branches_once(capsys):
    @tf.function
    def f(x):
        if x > 0:
            print("traced true branch")
            y = x + 1
        else:
            print("traced false branch")
            y = x - 1
        return y

    assert [int(f(tf.constant(v)).numpy()) for v in (3, -3, 0)] == [4, -4, -1]
    assert capsys.readouterr().out == "traced true branch\ntraced false branch\n"


def test_python_loops_unroll_and_tensor_loops_do_not():
    def doubled(x, n):
        for _ in range(n):
            x = x * 2
        return x

    unrolled = tf.function(doubled)
    assert op_types(unrolled, tf.constant(1), 3).count("Mul") == 3
    assert op_types(unrolled, tf.constant(1), 6).count("Mul") == 6
    staged = tf.function(doubled)
    ops = op_types(staged, tf.constant(1), tf.constant(6))
    assert "Mul" not in ops and count_staged(ops, "While") == 1
    assert staged(tf.constant(1), tf.constant(6)).numpy() == 64


def test_python_while_turns_into_a_staged_loop_when_its_condition_becomes_a_tensor():
    @tf.function
    def f(step):
        i = 0
        while i < 10:
            i = i + step
        return i

    assert f(tf.constant(3)).numpy() == 12
    assert f(tf.constant(20)).numpy() == 20


def test_loop_state_can_be_nested_structures():
    @tf.function
    def f(n):
        state = {"total": tf.constant(0), "pair": (tf.constant(1), tf.constant(1))}
        for i in tf.range(n):
            a, b = state["pair"]
            state = {"total": state["total"] + i, "pair": (b, a + b)}
        return state["total"], state["pair"][0]

    total, fib = f(tf.constant(6))
    assert (total.numpy(), fib.numpy()) == (15, 13)


OUTSIDE_START = tf.constant(10)


def test_loop_variable_may_start_as_a_tensor_made_outside_the_function():
    @tf.function
    def f(n):
        total = OUTSIDE_START
        for i in tf.range(n):
            total = total + i
        return total

    assert int(f(tf.constant(4))) == 16


def test_loop_variable_whose_shape_grows_is_relaxed():
    @tf.function
    def f(n):
        x = tf.constant([1])
        for i in tf.range(n):
            x = tf.concat([x, [i]], 0)
        return x

    np.testing.assert_array_equal(f(tf.constant(3)).numpy(), [1, 0, 1, 2])
    np.testing.assert_array_equal(f(tf.constant(0)).numpy(), [1])


def test_variable_modified_in_one_branch_and_dead_afterwards_is_fine():
    @tf.function
    def f(x):
        if x > 0:
            y = x * 2
            x = y + 1
        return x

    assert [int(f(tf.constant(v)).numpy()) for v in (3, -3)] == [7, -3]


# -- errors naming the variable and the user's line ----------------------------------------------


def defined_in_one_branch(x):
    if x > 0:
        y = x
    return y


def test_variable_defined_in_one_branch_of_a_tensor_if_is_checked_where_it_is_read():
    traced = tf.function(defined_in_one_branch)
    assert int(traced(tf.constant(1)).numpy()) == 1
    with pytest.raises(tf.errors.UndefinedValueError) as info:
        traced(tf.constant(-1))
    assert isinstance(info.value, tf.errors.InvalidArgumentError)
    assert isinstance(info.value, UnboundLocalError)
    message = str(info.value)
    assert "'y'" in message
    assert "%s:%d" % (__file__, line_of(defined_in_one_branch, "return y")) in message


def dtype_changes_in_loop(x):
    v = 0
    while x > 0:
        v = 1.5
        x -= 1
    return v


def test_loop_variable_changing_dtype_is_an_error():
    with pytest.raises(TypeError) as info:
        tf.function(dtype_changes_in_loop)(tf.constant(3))
    message = str(info.value)
    assert "'v'" in message and "int32" in message and "float32" in message
    assert "%s:%d" % (__file__, line_of(dtype_changes_in_loop, "while x > 0")) in message


def structure_changes_in_loop(n):
    v = (n, n)
    for i in tf.range(n):
        v = (n, n, i)
    return v


def test_loop_variable_changing_structure_is_an_error():
    with pytest.raises(TypeError) as info:
        tf.function(structure_changes_in_loop)(tf.constant(3))
    message = str(info.value)
    assert "'v'" in message and "structure" in message
    assert "%s:%d" % (__file__, line_of(structure_changes_in_loop, "for i in")) in message


def dtype_differs_between_branches(x):
    if x > 0:
        y = tf.constant(1)
    else:
        y = tf.constant(1.0)
    return y


def test_branches_giving_a_variable_different_dtypes_is_an_error():
    with pytest.raises(TypeError) as info:
        tf.function(dtype_differs_between_branches)(tf.constant(1))
    assert "'y'" in str(info.value) and "int32" in str(info.value)


def sign_word(x):
    if x > 0:
        s = "pos"
    else:
        s = "neg"
    return s


def sign_word_returned(x):
    if x > 0:
        return "positive"
    return "negative"


@pytest.mark.parametrize("fn", [sign_word, sign_word_returned], ids=lambda f: f.__name__)
def test_python_strings_from_both_branches_become_a_string_tensor(fn):
    function = tf.function(fn)
    for x in (3, -3):
        result = function(tf.constant(x))
        assert result.dtype is tf.string and result.shape == ()
        assert result.numpy() == fn(x).encode()
    assert function.experimental_get_tracing_count() == 1


def test_python_string_and_number_from_the_two_branches_is_a_dtype_error():
    def f(x):
        if x > 0:
            s = "pos"
        else:
            s = 0
        return s

    with pytest.raises(TypeError, match="'s' has dtype string in the if branch but int32"):
        tf.function(f)(tf.constant(1))


def structure_differs_between_branches(x):
    if x > 0:
        y = (x, x)
    else:
        y = x
    return y


def test_branches_giving_a_variable_different_structures_is_an_error():
    with pytest.raises(TypeError, match="'y' has a different structure"):
        tf.function(structure_differs_between_branches)(tf.constant(1))


def test_non_bool_and_non_scalar_conditions_are_errors():
    @tf.function
    def float_test(x):
        if x:
            x = x + 1
        return x

    @tf.function
    def vector_test(x):
        if x > 0:
            x = x + 1
        return x

    with pytest.raises(TypeError, match="bool"):
        float_test(tf.constant(1.0))
    with pytest.raises(ValueError, match="scalar"):
        vector_test(tf.constant([1, 2]))


def python_branch_leaves_undefined(n):
    if n > 0:
        y = 1
    return y


def test_python_fallback_raises_unbound_local_like_python():
    with pytest.raises(UnboundLocalError):
        python_branch_leaves_undefined(-1)  # plain Python
    with pytest.raises(UnboundLocalError):
        conversion.convert(python_branch_leaves_undefined)(-1)


def user_name_like_a_flag(x):
    if x > 0:
        break_count = x
    return break_count


def test_user_variable_with_a_flag_like_name_is_checked_like_any_other():
    traced = tf.function(user_name_like_a_flag)
    assert int(traced(tf.constant(1)).numpy()) == 1
    with pytest.raises(UnboundLocalError, match="break_count"):
        traced(tf.constant(-1))


def test_list_built_in_a_tensor_loop():
    @tf.function
    def f(n):
        values = []
        for i in tf.range(n):
            values.append(i * 2)
        return tf.stack(values)

    np.testing.assert_array_equal(f(tf.constant(4)).numpy(), [0, 2, 4, 6])


def put_first(box, value):
    box[0] = value


def test_tensor_leaked_from_a_loop_body_is_a_clear_error():
    @tf.function
    def f(n):
        box = [None]
        for i in tf.range(n):
            put_first(box, i * 2)
        return box[0]

    with pytest.raises(tf.errors.InaccessibleTensorError,
                       match=r"made at .*test_control_flow.py:%d\) was computed inside a "
                             r"loop body" % (f.python_function.__code__.co_firstlineno + 4)):
        f(tf.constant(3))


# -- statements without state, and try bodies -----------------------------------------------------


def test_if_without_else_or_state_is_a_short_call():
    converted = convert_snippet("""
        def f(x):
            if x > 0:
                tf.print(x)
            return x
    """)
    body = scope_body(converted)
    assert set(defs(body)) == {"if_body"}
    (call,) = ag_calls(body, "if_stmt")
    assert len(call.args) == 2  # test and if_body: no else, no state functions
    assert isinstance(call.args[1], gast.Name) and call.args[1].id == "if_body"


def test_stateless_statements_still_stage_their_side_effects():
    @tf.function
    def f(x):
        if x > 0:
            tf.print("positive")
        else:
            tf.print("other")
        i = tf.constant(0)
        while i < x:
            i += 1
        return i

    assert op_types(f, tf.constant(1)).count("StatelessIf") + \
        op_types(f, tf.constant(1)).count("If") == 1
    assert int(f(tf.constant(3)).numpy()) == 3


def test_try_with_except_marks_its_body():
    converted = convert_snippet("""
        def f(x):
            try:
                x = x + 1
            except ValueError:
                x = 0
            try:
                x = x * 2
            finally:
                x = x - 1
            return x
    """)
    first, second = [s for s in scope_body(converted) if isinstance(s, gast.Try)]
    (marker,) = first.body
    assert isinstance(marker, gast.With)
    assert ag_calls(marker.items[0].context_expr, "try_body")
    assert marker.items[0].context_expr.args[0].value == "snippet.py:3"
    assert not isinstance(second.body[0], gast.With)  # no except: nothing to protect


def staged_inside_try(x, table):
    try:
        w = table["w"]
        if x > 0:
            x = x * w
    except KeyError:
        w = 1
    return x + w


def test_tensor_control_flow_inside_try_except_is_refused_naming_both_lines():
    with pytest.raises(NotImplementedError) as info:
        tf.function(staged_inside_try)(tf.constant(3), {"w": 2})
    message = str(info.value)
    assert "inside the `try` at %s:%d" % (__file__, line_of(staged_inside_try, "try:")) in message
    assert "%s:%d" % (__file__, line_of(staged_inside_try, "if x > 0")) in message


def test_python_control_flow_inside_try_except_runs_as_python():
    converted = conversion.convert(staged_inside_try)
    assert converted(3, {"w": 2}) == 8
    assert converted(3, {}) == 4
    assert int(tf.function(staged_inside_try)(3, {}).numpy()) == 4


def test_try_finally_around_staged_code_is_allowed():
    @tf.function
    def f(x):
        try:
            if x > 0:
                x = x - 1
        finally:
            x = x * 2
        return x

    assert [int(f(tf.constant(v)).numpy()) for v in (3, -3)] == [4, -6]


def test_for_over_literal_data_or_constant_range_stays_plain_unless_it_has_jumps():
    converted = convert_snippet("""
        def f(x):
            for i in range(3):
                x = x + i
            for v in [1, 2]:
                x = x * v
            for j in range(3):
                if j > 1:
                    break
            for k in range(x):
                x = x + k
            return x
    """)
    body = scope_body(converted)
    plain = [s for s in body if isinstance(s, gast.For)]
    assert [s.target.id for s in plain] == ["i", "v"]
    assert len(ag_calls(body, "for_stmt")) == 2  # the loop with break, and range(x)
    assert not any(isinstance(n, gast.Call) and getattr(n.func, "attr", None) == "ld"
                   for n in gast.walk(converted))


# -- dead variables, closures, separate Functions inside a try ----------------------------------


def reads_then_reassigns_a_string(x):
    msg = "pos"
    if x > 0:
        tf.print(msg)
    else:
        msg = "neg"
        tf.print(msg)
    return x


def reassigns_with_another_dtype(x):
    y = 1
    if x > 0:
        z = x + y
    else:
        y = 2.5
        z = x
    return z


@pytest.mark.parametrize("function", [reads_then_reassigns_a_string,
                                      reassigns_with_another_dtype])
def test_variables_dead_after_a_staged_if_are_restored_but_not_merged(function):
    traced = tf.function(function)
    assert [int(traced(tf.constant(v)).numpy()) for v in (3, -3)] == [function(3), function(-3)]


def test_restore_only_names_are_passed_to_if_stmt():
    converted = convert_snippet("""
        def f(x):
            y = 1
            if x > 0:
                z = x + y
            else:
                y = 2
                z = x
            return z
    """)
    (call,) = ag_calls(scope_body(converted), "if_stmt")
    (keyword,) = call.keywords
    assert keyword.arg == "restore_only" and string_tuple(keyword.value) == ["y"]


def closure_reads_a_branch_variable(x):
    def show():
        return y
    if x > 0:
        y = 1
    else:
        y = 2
    return show()


def test_variable_read_only_by_a_closure_is_shared_with_the_branches():
    assert conversion.convert(closure_reads_a_branch_variable)(3) == 1
    traced = tf.function(closure_reads_a_branch_variable)
    assert [int(traced(tf.constant(v)).numpy()) for v in (3, -3)] == [1, 2]


def test_reads_that_are_certainly_defined_are_not_guarded():
    source = conversion.source_of(reassigns_with_another_dtype)
    assert "ag__.ld" not in source


@tf.function
def separately_traced(x):
    if x > 0:
        x = x + 1
    return x


def calls_a_function_inside_try(x):
    try:
        y = separately_traced(tf.constant(x))
    except KeyError:
        y = 0
    return y


def test_a_separate_function_traced_inside_a_try_is_allowed():
    assert int(conversion.convert(calls_a_function_inside_try)(3).numpy()) == 4


def assigned_on_some_paths_then_staged(c, d):
    if c > 0:
        y = 1
    if d > 0:
        y = 2
    return y


def test_a_value_assigned_on_some_paths_survives_a_later_staged_if():
    converted = conversion.convert(assigned_on_some_paths_then_staged)
    assert converted(1, -1) == 1
    assert converted(1, 1) == 2
    with pytest.raises(UnboundLocalError):
        converted(-1, -1)
    traced = tf.function(assigned_on_some_paths_then_staged)
    assert int(traced(1, tf.constant(-1)).numpy()) == 1


def test_two_tensor_loops_may_share_their_loop_variable():
    @tf.function
    def twice(n):
        s = 0
        for i in tf.range(n):
            s += i
        for i in tf.range(n):
            s += i
        return s

    assert int(twice(tf.constant(3)).numpy()) == 6


# -- Python errors met while tracing code that a staged statement may not run --------------


def index_error_in_the_branch_not_taken(x):
    items = [1, 2]
    if x > 0:
        y = items[5]
    else:
        y = x
    return y


def key_error_in_a_loop_body(x):
    n = 0
    while x < 3:
        x += 1
        n = n + {}["q"]
    return n


def _notes(error):
    return "\n".join(getattr(error, "__notes__", []))


@pytest.mark.parametrize("function, error, line_text, statement_text, says", [
    (index_error_in_the_branch_not_taken, IndexError, "y = items[5]", "if x > 0:",
     "a branch of an if statement on a tensor at %s:%d in index_error_in_the_branch_not_taken"
     " (`if x > 0:`): both of its branches are traced, whichever one runs"),
    (key_error_in_a_loop_body, KeyError, 'n = n + {}["q"]', "while x < 3:",
     "the body of a loop on a tensor at %s:%d in key_error_in_a_loop_body (`while x < 3:`): "
     "its body is traced once, even where it runs zero times"),
])
def test_python_error_tracing_staged_code_fails_the_trace_naming_the_line_and_statement(
        function, error, line_text, statement_text, says):
    """Python raises these only if the code runs (x = -1: it never does for the branch), but
    tracing runs both branches and every loop body, as TensorFlow does: the trace fails with
    Python's error and a note naming the line that raised and the staged statement."""
    with pytest.raises(error) as info:
        tf.function(function)(tf.constant(-1))
    notes = _notes(info.value)
    assert "%s:%d in %s (`%s`) raised this while tracing " % (
        __file__, line_of(function, line_text), function.__name__, line_text) in notes
    assert says % (__file__, line_of(function, statement_text)) in notes
    assert notes.count("raised this while tracing") == 1

