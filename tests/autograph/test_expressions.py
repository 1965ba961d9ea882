"""The expressions pass: lazy and/or/not, conditional expressions, chained comparisons,
assert and calls; output shape on small trees, then behaviour of converted and traced code."""

import inspect
import textwrap

import pytest

import autograph.tf as tf
from autograph import conversion
from autograph.converters import conversion_context, expressions
from autograph.pyct import codegen, parsing


def rewrite(source):
    """The rewritten body of `def f(...)`, as source lines."""
    module, info = parsing.parse_source(textwrap.dedent(source))
    node = module.body[0]
    conversion_context.mark_original(node)
    ctx = conversion_context.Context(node, info)
    ctx.original_name = node.name
    node = expressions.transform(node, ctx)
    return [codegen.to_source(s).strip() for s in node.body]


# -- output shape ------------------------------------------------------------------------------


def test_and_or_become_lazy_operators_with_lambdas():
    assert rewrite("def f(a, b):\n    return a and b\n") == [
        "return ag__.and_(lambda: a, lambda: b)"]
    assert rewrite("def f(a, b):\n    return a or b\n") == [
        "return ag__.or_(lambda: a, lambda: b)"]


def test_three_operand_and_nests_to_the_right():
    assert rewrite("def f(a, b, c):\n    return a and b and c\n") == [
        "return ag__.and_(lambda: a, lambda: ag__.and_(lambda: b, lambda: c))"]


def test_not_becomes_not_operator():
    assert rewrite("def f(a):\n    return not a\n") == ["return ag__.not_(a)"]


def test_conditional_expression_keeps_its_text_for_errors():
    assert rewrite("def f(a, b, c):\n    return a if c else b\n") == [
        "return ag__.if_exp(c, lambda: a, lambda: b, 'a if c else b')"]


def test_single_comparison_is_left_alone():
    assert rewrite("def f(a, b):\n    return a < b\n") == ["return a < b"]


def test_chained_comparison_becomes_a_lazy_compare_chain():
    assert rewrite("def f(a, b, c):\n    return a < b <= c\n") == [
        "return ag__.compare_chain(a, '<', lambda: b, '<=', lambda: c)"]


def test_membership_tests_become_in_and_not_in_operators():
    assert rewrite("def f(c, t):\n    return c in t\n") == ["return ag__.in_(c, t)"]
    assert rewrite("def f(c, t):\n    return c not in t\n") == ["return ag__.not_in(c, t)"]


def test_assert_becomes_assert_stmt_with_a_lazy_message():
    assert rewrite("def f(x):\n    assert x > 0, 'bad ' + str(x)\n") == [
        "ag__.assert_stmt(x > 0, lambda: 'bad ' + str(x))"]


def test_assert_without_message_describes_the_test():
    assert rewrite("def f(x):\n    assert x > 0\n") == [
        "ag__.assert_stmt(x > 0, lambda: 'assertion failed: x > 0')"]


def test_calls_become_converted_calls_with_fscope():
    assert rewrite("def f(x):\n    return g(x, 2, k=1)\n") == [
        "return ag__.converted_call(g, (x, 2), {'k': 1}, fscope)"]
    assert rewrite("def f(x):\n    return obj.method()\n") == [
        "return ag__.converted_call(obj.method, (), None, fscope)"]


def test_double_star_arguments_are_unpacked_into_the_kwargs_dict():
    assert rewrite("def f(kw):\n    return g(1, **kw)\n") == [
        "return ag__.converted_call(g, (1,), {**kw}, fscope)"]


def keyword_target(a, b=0, c=0):
    return a + 10 * b + 100 * c


def forwards_keywords(kw):
    return keyword_target(1, **kw)


def test_double_star_arguments_reach_the_callee():
    assert conversion.convert(forwards_keywords)({"b": 2, "c": 3}) == 321


@pytest.mark.parametrize("call", ["print('text')", "isinstance(x, int)", "len_of = type(x)",
                                  "ag__.ld(x)"])
def test_trace_time_builtins_and_ag_calls_stay_plain(call):
    assert rewrite("def f(x):\n    %s\n" % call) == [call]


def test_nested_function_bodies_are_not_rewritten():
    lines = rewrite("""
        def f(a, b):
            def inner():
                return a and b
            return inner
    """)
    assert "ag__" not in lines[0]


def test_lambda_bodies_are_rewritten():
    assert rewrite("def f(a):\n    return lambda b: a and b\n") == [
        "return lambda b: ag__.and_(lambda: a, lambda: b)"]


def test_nested_expressions_are_rewritten_inside_out():
    assert rewrite("def f(a, b, c):\n    return (not a) if b < c < 3 else g(a or b)\n") == [
        "return ag__.if_exp(ag__.compare_chain(b, '<', lambda: c, '<', lambda: 3), "
        "lambda: ag__.not_(a), "
        "lambda: ag__.converted_call(g, (ag__.or_(lambda: a, lambda: b),), None, fscope), "
        "'not a if b < c < 3 else g(a or b)')"]


# -- behaviour on Python values (the Python fallback) ------------------------------------------


class Recorder:
    def __init__(self):
        self.calls = []

    def __call__(self, value):
        self.calls.append(value)
        return value


def python_boolops(flag, other, record):
    return (flag and record("and")), (flag or record("or")), (not flag)


@pytest.mark.parametrize("flag", [0, 1, "", "text", None, [], [0]])
def test_python_and_or_not_keep_python_semantics_and_short_circuit(flag):
    record = Recorder()
    converted = conversion.convert(python_boolops)
    expected_record = Recorder()
    expected = python_boolops(flag, None, expected_record)
    assert converted(flag, None, record) == expected
    assert record.calls == expected_record.calls


def nested_ternary(n):
    return "big" if n > 5 else ("mid" if n > 2 else "small")


def chained(a, b, c):
    return a < b <= c != a


@pytest.mark.parametrize("n", [0, 3, 9])
def test_python_nested_ternary(n):
    assert conversion.convert(nested_ternary)(n) == nested_ternary(n)


@pytest.mark.parametrize("args", [(1, 2, 3), (1, 2, 2), (2, 1, 3), (1, 1, 1), (3, 4, 3)])
def test_python_chained_comparison(args):
    assert conversion.convert(chained)(*args) is chained(*args)


def middle_evaluated(record):
    return 0 < record(5) < 10


def test_chained_comparison_evaluates_the_middle_operand_once():
    record = Recorder()
    assert conversion.convert(middle_evaluated)(record) is True
    assert record.calls == [5]


def checked(x):
    assert x > 0, "x must be positive, got %s" % x
    return x


def test_python_assert_raises_immediately_with_its_message():
    converted = conversion.convert(checked)
    assert converted(3) == 3
    with pytest.raises(AssertionError, match="x must be positive, got -1"):
        converted(-1)


def test_false_python_assert_fails_while_tracing():
    function = tf.function(checked)
    with pytest.raises(AssertionError, match="got -2"):
        function(-2)


# -- behaviour on tensors ----------------------------------------------------------------------


def tensor_boolops(n):
    return (n > 2 and n < 8) or n == 0


def tensor_not(n):
    return not n > 3


def tensor_ternary(n):
    return 1 if n > 5 else (2 if n > 2 else 3)


def tensor_chain(n):
    return 0 < n < 5


def tensor_chain_three(a, b):
    return a < b <= 2 * b != a


@pytest.mark.parametrize("fn, values", [
    (tensor_boolops, [0, 1, 2, 5, 8, 9]),
    (tensor_not, [1, 3, 5]),
    (tensor_ternary, [1, 3, 7]),
    (tensor_chain, [0, 1, 4, 5, 7]),
], ids=lambda v: getattr(v, "__name__", None))
def test_tensor_expressions_match_python(fn, values):
    function = tf.function(fn)
    for n in values:
        assert function(tf.constant(n)).numpy() == fn(n), (fn.__name__, n)
    assert function.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("a, b", [(1, 2), (2, 1), (0, 0), (-3, -2)])
def test_three_way_chained_comparison_on_tensors(a, b):
    function = tf.function(tensor_chain_three)
    assert function(tf.constant(a), tf.constant(b)).numpy() == tensor_chain_three(a, b)


def test_nested_tensor_ternary_is_one_if_op_holding_the_inner_one():
    graph = tf.function(tensor_ternary).get_concrete_function(tf.constant(1)).graph
    ops = [n.op for n in graph.as_graph_def().node]
    assert ops.count("StatelessIf") + ops.count("If") == 1


def safe_ratio_and(x):
    return x != 0 and 10 // x > 2


def safe_ratio_or(x):
    return x == 0 or 10 // x > 2


def safe_ratio_ternary(x):
    return 10 // x if x != 0 else -1


def safe_ratio_chain(x):
    return 0 != x < 10 // x


@pytest.mark.parametrize("fn", [safe_ratio_and, safe_ratio_or, safe_ratio_ternary,
                                safe_ratio_chain], ids=lambda f: f.__name__)
def test_right_side_does_not_run_when_the_tensor_condition_short_circuits(fn):
    # An integer division by zero fails when it runs: the guard must keep it from running.
    function = tf.function(fn)
    for x in (0, 2, 4):
        assert function(tf.constant(x)).numpy() == fn(x), x
    assert function.experimental_get_tracing_count() == 1
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.function(lambda x: 10 // x)(tf.constant(0))


def test_python_short_circuit_inside_a_trace_skips_the_right_side():
    record = Recorder()

    @tf.function
    def f(x):
        flag = False
        return flag and record(x)

    assert f(tf.constant(1)).numpy() == False  # noqa: E712 - a numpy bool
    assert record.calls == []


def membership(t, c):
    if c in t:
        found = 1
    else:
        found = 0
    return found, c in t, c not in t, 3 in [1, 3], 3 not in (1, 3)


@pytest.mark.parametrize("c", [2, 7])
def test_membership_in_a_tensor_stages_an_if_and_matches_python(c):
    function = tf.function(membership)
    items = [1, 2, 3]
    values = [int(v.numpy()) for v in function(tf.constant(items), tf.constant(c))]
    assert values == [int(v) for v in membership(items, c)]
    graph = function.get_concrete_function(tf.constant(items), tf.constant(c)).graph
    ops = [n.op for n in graph.as_graph_def().node]
    assert "Any" in ops and ops.count("StatelessIf") + ops.count("If") == 1
    assert function.experimental_get_tracing_count() == 1


def test_membership_in_an_eager_tensor_is_a_tensor_usable_as_a_bool():
    t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    found = conversion.convert(lambda c, t: c in t)(3.0, t)
    assert found.dtype is tf.bool and bool(found)
    assert not conversion.convert(lambda c, t: c in t)(5.0, t)
    assert 4.0 in t and 5.0 not in t  # unconverted: Python makes a bool of the tensor
    assert 2.0 in tf.Variable([1.0, 2.0])
    assert tf.function(lambda s: "b" in s)(tf.constant(["a", "b"])).numpy()


def test_not_of_a_tensor_is_a_logical_not_op():
    graph = tf.function(tensor_not).get_concrete_function(tf.constant(1)).graph
    assert "LogicalNot" in [n.op for n in graph.as_graph_def().node]


def test_tensor_assert_checks_at_run_time():
    function = tf.function(checked)
    assert function(tf.constant(3)).numpy() == 3  # traced with a symbolic x: no check yet
    line = inspect.getsourcelines(checked)[1] + 1
    with pytest.raises((AssertionError, tf.errors.InvalidArgumentError)) as info:
        function(tf.constant(-1))
    assert "x must be positive" in str(info.value)
    assert "%s:%d" % (__file__, line) in str(info.value)
    assert function.experimental_get_tracing_count() == 1


def test_failing_tensor_assert_is_both_assertion_error_and_invalid_argument_error():
    function = tf.function(checked)
    with pytest.raises(AssertionError) as info:
        function(tf.constant(-1))
    assert isinstance(info.value, tf.errors.InvalidArgumentError)
    with pytest.raises(tf.errors.InvalidArgumentError, match="x must be positive"):
        function(tf.constant(-2))


def test_tensor_assert_without_message_names_the_test():
    @tf.function
    def f(x):
        assert x > 0
        return x

    with pytest.raises((AssertionError, tf.errors.InvalidArgumentError),
                       match="assertion failed: x > 0"):
        f(tf.constant(-5))


def helper_with_branch(v):
    if v > 0:
        return v * 2
    return -v


def test_called_user_functions_are_converted_too():
    @tf.function
    def f(x):
        return helper_with_branch(x) + helper_with_branch(-x)

    assert f(tf.constant(3)).numpy() == 9
    assert f(tf.constant(-4)).numpy() == 12
