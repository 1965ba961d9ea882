"""The jump-lowering passes (return_statements, break_statements, continue_statements):
their output shape on small trees, and the behaviour of traced functions that jump out of
tensor loops, compared with plain Python."""

import textwrap

import gast
import numpy as np
import pytest

import autograph
import autograph.tf as tf
from autograph import conversion
from autograph.converters import (
    break_statements,
    continue_statements,
    conversion_context,
    return_statements,
)
from autograph.pyct import codegen, parsing


def lower(source, *passes):
    module, info = parsing.parse_source(textwrap.dedent(source))
    node = module.body[0]
    conversion_context.mark_original(node)
    ctx = conversion_context.Context(node, info)
    ctx.original_name = node.name
    for pass_ in passes:
        node = pass_.transform(node, ctx)
    return node, ctx


def source_lines(node):
    return [line.strip() for line in codegen.to_source(node).splitlines() if line.strip()]


def loops(node):
    return [n for n in gast.walk(node) if isinstance(n, (gast.While, gast.For))]


def op_types(function, *args):
    graph = function.get_concrete_function(*args).graph
    return [n.op for n in graph.as_graph_def().node]


# -- break: output shape -----------------------------------------------------------------------


def test_break_becomes_a_flag_set_instead_of_jumping():
    node, ctx = lower("""
        def f(x):
            while x > 0:
                if x > 5:
                    break
                x -= 1
            return x
    """, break_statements)
    assert not any(isinstance(n, gast.Break) for n in gast.walk(node))
    assert source_lines(node) == [
        "def f(x):",
        "break_ = False",
        "while x > 0:",
        "if x > 5:",
        "break_ = True",
        "if not break_:",
        "x -= 1",
        "return x",
    ]
    assert ctx.loop_flags == {id(loops(node)[0]): ["break_"]}


def test_break_flag_joins_the_converted_loop_test():
    def f(x):
        while x > 0:
            if x > 5:
                break
            x -= 1
        return x

    code = autograph.to_code(f)
    assert "return ag__.and_(lambda: ag__.not_(break_), lambda: x > 0)" in code
    assert "('break_', 'x')" in code


def test_break_flag_is_the_extra_test_of_a_for_loop():
    def f(xs):
        s = 0
        for x in xs:
            if x > 5:
                break
            s += x
        return s

    code = autograph.to_code(f)
    assert "def extra_test():\n            return ag__.not_(break_)" in code
    assert "ag__.for_stmt(xs, extra_test, loop_body, get_state, set_state, ('break_', 's'), " \
        "opts={'iterate_names': 'x'})" in code


def test_statements_after_break_in_the_same_block_are_dropped():
    node, _ = lower("""
        def f(x):
            while x:
                break
                x = 100
            return x
    """, break_statements)
    assert "x = 100" not in source_lines(node)


def test_loop_else_runs_only_without_break():
    node, _ = lower("""
        def f(xs):
            for x in xs:
                if x:
                    break
            else:
                x = -1
            return x
    """, break_statements)
    loop = loops(node)[0]
    assert loop.orelse == []
    lines = source_lines(node)
    assert lines[lines.index("x = -1") - 1] == "if not break_:"


def test_loop_else_without_break_simply_follows_the_loop():
    node, ctx = lower("""
        def f(xs):
            for x in xs:
                pass
            else:
                x = -1
            return x
    """, break_statements)
    assert loops(node)[0].orelse == []
    assert source_lines(node)[-2:] == ["x = -1", "return x"]
    assert ctx.loop_flags == {}


def test_inner_break_flags_only_the_inner_loop():
    node, ctx = lower("""
        def f(xs):
            for x in xs:
                for y in xs:
                    if y:
                        break
            return x
    """, break_statements)
    outer, inner = loops(node)
    assert id(outer) not in ctx.loop_flags
    assert ctx.loop_flags[id(inner)] == ["break_"]


def test_break_flag_does_not_collide_with_a_user_name():
    node, ctx = lower("""
        def f(x, break_):
            while x:
                break
            return break_
    """, break_statements)
    flag = ctx.loop_flags[id(loops(node)[0])][0]
    assert flag != "break_" and flag.startswith("break_")
    assert "return break_" in source_lines(node)


# -- continue: output shape --------------------------------------------------------------------


def test_continue_becomes_a_flag_reset_every_iteration():
    node, ctx = lower("""
        def f(xs):
            y = 0
            for x in xs:
                if x < 0:
                    continue
                y += x
            return y
    """, continue_statements)
    assert not any(isinstance(n, gast.Continue) for n in gast.walk(node))
    loop = loops(node)[0]
    assert codegen.to_source(loop.body[0]).strip() == "continue_ = False"
    assert source_lines(node)[3:] == [
        "continue_ = False",
        "if x < 0:",
        "continue_ = True",
        "if not continue_:",
        "y += x",
        "return y",
    ]
    assert ctx.loop_flags == {}  # continue never ends the loop


# -- return: output shape ----------------------------------------------------------------------


def test_function_with_only_a_final_return_is_left_alone():
    node, ctx = lower("""
        def f(x):
            if x:
                x = 1
            return x
    """, return_statements)
    assert source_lines(node) == ["def f(x):", "if x:", "x = 1", "return x"]
    assert not hasattr(ctx, "return_names")


def test_return_in_a_branch_becomes_do_return_and_retval():
    node, ctx = lower("""
        def f(x):
            if x > 3:
                return x * 2
            x = x + 1
            return x
    """, return_statements)
    assert ctx.return_names == ("do_return", "retval_")
    assert source_lines(node) == [
        "def f(x):",
        "do_return = False",
        "retval_ = ag__.UndefinedReturnValue()",
        "if x > 3:",
        "retval_ = x * 2",
        "do_return = True",
        "if not do_return:",
        "x = x + 1",
        "retval_ = x",
        "do_return = True",
        "return retval_",
    ]


def test_function_that_may_end_without_return_keeps_the_flag_for_fscope_ret():
    node, _ = lower("""
        def f(x):
            if x > 3:
                return x * 2
            x = x + 1
    """, return_statements)
    assert source_lines(node)[-1] == "return fscope.ret(retval_, do_return)"


def test_value_on_some_paths_and_none_on_others_is_a_trace_error_naming_the_function():
    @tf.function
    def sometimes_returns(x):
        if x > 0:
            return x

    with pytest.raises(ValueError, match="'sometimes_returns' returns a value on some paths "
                                         "and reaches its end without a return"):
        sometimes_returns(tf.constant(1))
    assert conversion.convert(sometimes_returns.python_function)(-1) is None
    assert conversion.convert(sometimes_returns.python_function)(2) == 2


def test_return_inside_a_loop_flags_that_loop():
    node, ctx = lower("""
        def f(xs):
            for x in xs:
                while x:
                    if x > 3:
                        return
                    x -= 1
            return 0
    """, return_statements)
    outer, inner = loops(node)
    assert ctx.loop_flags[id(outer)] == ["do_return"]
    assert ctx.loop_flags[id(inner)] == ["do_return"]
    assert "retval_ = None" in source_lines(node)


# -- behaviour: traced on tensors == plain Python on ints --------------------------------------


def first_square_above_ten(n):
    i = 0
    while i < n:
        if i * i > 10:
            return i
        i += 1
    return -1


def sum_until_five(n):
    s = 0
    i = 0
    while i < n:
        i += 1
        if i > 5:
            break
        s += i
    return s


def sum_of_odds(n):
    s = 0
    for i in range(n):
        if i % 2 == 0:
            continue
        s += i
    return s


def skip_multiples_of_three(n):
    i = 0
    s = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        s += i
    return s


def nested_break_inner_only(n):
    s = 0
    for i in range(n):
        for j in range(i):
            if j > 2:
                break
            s += i * j
    return s


def nested_return_from_inner(n):
    s = 0
    for i in range(n):
        for j in range(n):
            if i * j > 6:
                return s
            s += 1
    return s


def break_with_else(n):
    i = 0
    while i < n:
        if i == 3:
            break
        i += 1
    else:
        i = -1
    return i


def while_true_with_break(n):
    i = 0
    while True:
        i += 1
        if i >= n:
            break
    return i


def break_and_continue(n):
    s = 0
    for i in range(n):
        if i == 7:
            break
        if i % 2 == 1:
            continue
        s += 10 * i
    return s


def early_return(n):
    if n > 3:
        return n * 2
    return n


@pytest.mark.parametrize("fn, values, staged_op", [
    (first_square_above_ten, [0, 3, 4, 10], "While"),
    (sum_until_five, [0, 3, 5, 10], "While"),
    (sum_of_odds, [0, 1, 5, 9], "While"),
    (skip_multiples_of_three, [0, 2, 7], "While"),
    (nested_break_inner_only, [0, 3, 6], "While"),
    (nested_return_from_inner, [0, 2, 5], "While"),
    (break_with_else, [0, 2, 3, 5], "While"),
    (while_true_with_break, [1, 5], "While"),
    (break_and_continue, [0, 5, 12], "While"),
    (early_return, [1, 3, 4, 9], "If"),
], ids=lambda v: getattr(v, "__name__", None))
def test_jumps_in_tensor_control_flow_match_python(fn, values, staged_op):
    function = tf.function(fn)
    for n in values:
        result = function(tf.constant(n))
        assert result.numpy() == fn(n), (fn.__name__, n)
    # One trace serves every value: the jumps are decided in the graph, not while tracing.
    assert function.experimental_get_tracing_count() == 1
    assert any(op.endswith(staged_op) for op in op_types(function, tf.constant(values[0])))


def test_return_from_a_tf_range_loop():
    @tf.function
    def f(n):
        for i in tf.range(n):
            if i * i > 10:
                return i
        return -1

    assert f(tf.constant(10)).numpy() == 4
    assert f(tf.constant(2)).numpy() == -1
    assert f.experimental_get_tracing_count() == 1


def test_break_out_of_a_loop_over_a_tensor():
    @tf.function
    def f(xs):
        s = 0
        for x in xs:
            if x < 0:
                break
            s += x
        else:
            s = -100
        return s

    assert f(tf.constant([1, 2, -1, 5])).numpy() == 3
    assert f(tf.constant([1, 2, 3, 5])).numpy() == -100


def test_tensor_break_inside_a_python_list_loop():
    @tf.function
    def f(limit):
        s = tf.constant(0)
        for v in [1, 2, 3, 4]:
            if s > limit:
                break
            s += v
        return s

    def plain(limit):
        s = 0
        for v in [1, 2, 3, 4]:
            if s > limit:
                break
            s += v
        return s

    for limit in (0, 2, 4, 20):
        assert f(tf.constant(limit)).numpy() == plain(limit)
    assert f.experimental_get_tracing_count() == 1


def test_tensor_return_inside_a_python_list_loop():
    @tf.function
    def f(x):
        for v in [1, 2, 3, 4]:
            if v > x:
                return v
        return 0

    assert [int(f(tf.constant(x)).numpy()) for x in (0, 2, 9)] == [1, 3, 0]


def test_tensor_continue_inside_a_python_list_loop():
    @tf.function
    def f(skip):
        s = tf.constant(0)
        for v in [1, 2, 3, 4]:
            if v == skip:
                continue
            s += v
        return s

    assert [int(f(tf.constant(k)).numpy()) for k in (0, 2, 4)] == [10, 8, 6]


def test_bare_return_under_a_tensor_condition():
    @tf.function
    def f(x):
        if x > 0:
            tf.print("positive")
            return
        tf.print("not positive")

    assert f(tf.constant(1)) is None


def test_traced_results_are_tensors_of_the_python_type():
    result = tf.function(first_square_above_ten)(tf.constant(10))
    assert result.dtype == tf.int32
    np.testing.assert_array_equal(result.numpy(), np.int32(4))


def pair_returned_early(n):
    if n > 3:
        return n, n * 2
    return n, -1


def nested_returned_in_a_loop(n):
    for i in tf.range(n):
        if i > 2:
            return {"i": i, "pair": (i, i * i)}
    return {"i": n, "pair": (n, n)}


def pair_returned_in_try(n):
    a = 0
    for i in tf.range(n):
        try:
            a = a + i
            if a > 3:
                return a, i
        finally:
            a = a + 1
    return a, -1


def _as_python(result):
    """`result` with its tensors as Python values, containers kept."""
    if isinstance(result, dict):
        return {k: _as_python(v) for k, v in result.items()}
    if isinstance(result, (tuple, list)):
        return type(result)(_as_python(v) for v in result)
    return result.numpy().tolist() if hasattr(result, "numpy") else result


@pytest.mark.parametrize("function", [pair_returned_early, nested_returned_in_a_loop,
                                      pair_returned_in_try])
@pytest.mark.parametrize("n", [0, 2, 5])
def test_a_structure_returned_on_one_path_of_a_staged_statement(function, n):
    expected = function(n)
    got = tf.function(function)(tf.constant(n))
    assert _as_python(got) == _as_python(expected)


def returns_on_every_nested_path(x):
    if x > 0:
        y = x * 2
        if y > 10:
            return y
        return -y
    else:
        return x


def returns_from_an_endless_loop(x):
    i = 0
    while True:
        i += 1
        if i > x:
            return i


def returns_inside_try_finally(x):
    try:
        if x > 0:
            return 1
        return 2
    finally:
        pass


@pytest.mark.parametrize("function", [returns_on_every_nested_path, returns_from_an_endless_loop,
                                      returns_inside_try_finally])
def test_functions_returning_on_every_path_stage_without_fscope_ret(function):
    assert conversion.source_of(function).rstrip().endswith("return retval_")
    traced = tf.function(function)
    for v in (3, 7):
        assert int(traced(tf.constant(v)).numpy()) == function(v)


def test_walrus_in_a_lazy_operand_is_rejected_naming_the_line():
    def f(x):
        if 0 < (n := x + 1) < 10:
            return n
        return 0

    with pytest.raises(autograph.ConversionError, match=r"test_jumps.py:\d+: an assignment "
                                                        r"expression \(:=\)"):
        conversion.convert(f)
