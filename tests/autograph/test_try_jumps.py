"""`return`, `break` and `continue` meeting `try` statements give plain Python's answer.

Each function runs three ways: plain Python, `autograph.to_graph` on Python values, and
`tf.function` on tensors. Conditions that decide whether an `except` clause runs are Python
values in the traced runs: tensor control flow inside a `try` with `except` clauses is refused
(see test_control_flow), as its errors would be raised when the graph runs.
"""

import re

import pytest

import autograph
import autograph.tf as tf
from autograph import conversion


def three_ways(fn, *args, static=()):
    """fn(*args) in plain Python, converted, and traced (arguments at the indexes in `static`
    stay Python values; the others become tensors); returns the three results as Python
    values, or the exception types where they raise."""
    results = []
    for way in ("python", "converted", "traced"):
        try:
            if way == "python":
                value = fn(*args)
            elif way == "converted":
                value = autograph.to_graph(fn)(*args)
            else:
                tensors = [a if i in static else tf.constant(a) for i, a in enumerate(args)]
                value = tf.function(fn)(*tensors)
                value = value.numpy().item() if value is not None else None
        except Exception as e:  # noqa: BLE001 - compared across the three ways
            value = type(e)
        results.append(value)
    return results


def assert_agree(fn, *args, static=()):
    python, converted, traced = three_ways(fn, *args, static=static)
    assert converted == python, ("converted", fn.__name__, args)
    assert traced == python, ("traced", fn.__name__, args)


def fails_on_two(v):
    if v == 2:
        raise ValueError("two")
    return v * 10


def always_fails():
    raise ValueError("x")


# -- return of a value whose computation raises ------------------------------------------------


def return_of_a_raising_call(x):
    try:
        return always_fails()
    except ValueError:
        pass
    return x + 1


def test_return_of_a_raising_call_caught_by_except_goes_on():
    assert_agree(return_of_a_raising_call, 4)
    assert return_of_a_raising_call(4) == 5


def test_return_computes_the_value_before_setting_the_flag():
    code = autograph.to_code(return_of_a_raising_call)
    value = code.index("retval_ = ag__.converted_call(always_fails")
    assert code.index("do_return = True", value) > value
    assert "do_return = True\n" not in code[:value]


def returns_what_a_nested_helper_returns(x, n):
    def helper(v):
        try:
            return fails_on_two(v)
        except ValueError:
            pass
        return -v

    return helper(n) + x


@pytest.mark.parametrize("n", [1, 2])
def test_nested_function_returning_a_raising_call(n):
    assert_agree(returns_what_a_nested_helper_returns, 5, n, static=(1,))


def return_from_a_loop_of_raising_calls(x):
    total = x
    for k in range(4):
        try:
            return fails_on_two(k + 2) + total
        except ValueError:
            total += 1
    return total


def test_return_of_a_raising_call_inside_a_loop_retries():
    assert_agree(return_from_a_loop_of_raising_calls, 3)
    assert return_from_a_loop_of_raising_calls(3) == 34


# -- return inside finally, except and else ----------------------------------------------------


def finally_returns_under_conditions(x, y):
    try:
        if x > 1:
            return x
        return 7
    finally:
        if y > 1:
            return y * 100


@pytest.mark.parametrize("x, y", [(0, 0), (3, 0), (0, 3), (3, 3)])
def test_return_in_finally_overrides_the_bodys_return(x, y):
    assert_agree(finally_returns_under_conditions, x, y)


def finally_cancels_its_own_return_with_continue(x, n):
    try:
        fails_on_two(n)
    except ValueError:
        return x + 100  # pending while the finally block runs
    finally:
        for j in range(3):
            x = x + j
            try:
                return x  # assigns the return value ...
            finally:
                continue  # ... and is cancelled: the pending return keeps its value
    return -1


@pytest.mark.parametrize("n", [1, 2])
def test_a_return_cancelled_in_finally_leaves_the_pending_return_value(n):
    assert_agree(finally_cancels_its_own_return_with_continue, 5, n, static=(1,))
    assert finally_cancels_its_own_return_with_continue(5, 2) == 105


def finally_returns_while_the_body_raises(x, n):
    try:
        fails_on_two(n)
        x = x + 1
    finally:
        return x * 2


@pytest.mark.parametrize("n", [1, 2])
def test_return_in_finally_swallows_an_exception_in_flight(n):
    assert_agree(finally_returns_while_the_body_raises, 5, n, static=(1,))
    assert finally_returns_while_the_body_raises(5, 2) == 10


def finally_returns_on_a_tensor_while_the_body_raises(x, n):
    try:
        fails_on_two(n)
    finally:
        if x > 0:
            return x
    return -1


def test_tensor_dependent_return_in_finally_with_an_exception_in_flight_is_refused():
    assert three_ways(finally_returns_on_a_tensor_while_the_body_raises, 5, 2, static=(1,))[:2] \
        == [5, 5]
    traced = tf.function(finally_returns_on_a_tensor_while_the_body_raises)
    with pytest.raises(NotImplementedError) as info:
        traced(tf.constant(5), 2)
    line = finally_returns_on_a_tensor_while_the_body_raises.__code__.co_firstlineno + 1
    assert "the `try` at %s:%d" % (__file__, line) in str(info.value)
    assert isinstance(info.value.__cause__, ValueError)
    assert "(ValueError: two)" in str(info.value)
    assert int(traced(tf.constant(5), 1).numpy()) == 5  # nothing in flight: staged


def returns_from_except_or_else(x, n):
    try:
        z = fails_on_two(n)
    except ValueError:
        return x + 100
    else:
        if x > 0:
            return z + x
    return z - x


@pytest.mark.parametrize("x, n", [(1, 2), (-1, 2), (1, 3), (-1, 3)])
def test_return_inside_except_and_else(x, n):
    assert_agree(returns_from_except_or_else, x, n, static=(1,))


def body_returns_before_else(x, n, log):
    try:
        if n > 1:
            return x
        fails_on_two(n)
    except ValueError:
        log.append("except")
    else:
        log.append("else")
    return len(log) * 10 + x


@pytest.mark.parametrize("n", [0, 2])
def test_else_of_a_try_does_not_run_after_the_body_returned(n):
    expected_log = []
    expected = body_returns_before_else(1, n, expected_log)
    log = []
    assert autograph.to_graph(body_returns_before_else)(1, n, log) == expected
    assert log == expected_log
    traced = tf.function(body_returns_before_else)(tf.constant(1), n, [])
    assert int(traced.numpy()) == expected


def break_before_else(x):
    total = 0
    for k in range(3):
        try:
            if k == x:
                break
            fails_on_two(k + 10)
        except ValueError:
            total -= 1
        else:
            total += 3
    return total


@pytest.mark.parametrize("x", [0, 1, 5])
def test_else_of_a_try_does_not_run_after_break(x):
    assert_agree(break_before_else, x, static=(0,))


def loop_else_after_return(x):
    total = 0
    for k in range(3):
        if k == x:
            return k * 10 + total
    else:
        total = 5
    return total


@pytest.mark.parametrize("x", [1, 7])
def test_else_of_a_loop_does_not_run_after_return(x):
    assert_agree(loop_else_after_return, x)
    log = []

    def logs_in_else(x):
        for k in range(3):
            if k == x:
                return k
        else:
            log.append("else")
        return -1

    autograph.to_graph(logs_in_else)(1)
    assert log == []


# -- finally runs exactly once -----------------------------------------------------------------


def test_finally_runs_once_around_returns_in_tensor_control_flow():
    trace_log = []
    counter = tf.Variable(0)

    def f(x):
        try:
            if x > 0:
                return x
            for i in tf.range(x, 0):
                if i * i > 4:
                    return i
            return 100
        finally:
            trace_log.append("finally")
            counter.assign_add(1)

    traced = tf.function(f)
    results = [int(traced(tf.constant(v)).numpy()) for v in (3, -1, -5)]
    assert results == [3, 100, -5]
    assert trace_log == ["finally"]  # one trace, one finally
    assert int(counter.numpy()) == 3  # once per call

    trace_log.clear()
    assert [autograph.to_graph(f)(v) for v in (3, -1)] == [3, 100]
    assert trace_log == ["finally", "finally"]


def test_finally_with_tf_print_prints_once_per_call(capfd):
    @tf.function
    def f(x):
        try:
            if x > 0:
                return x * 2
            return -x
        finally:
            tf.print("finally ran")

    assert int(f(tf.constant(2)).numpy()) == 4
    assert int(f(tf.constant(-2)).numpy()) == 2
    assert capfd.readouterr().err.count("finally ran") == 2


def finally_after_a_nested_return(x, y):
    log = [0]
    try:
        return x
    finally:
        if y > 3:
            return -1
        log[0] = 7
        x = log[0] + y


@pytest.mark.parametrize("y", [0, 5])
def test_finally_statements_after_a_conditional_return_run_when_the_body_returned(y):
    assert_agree(finally_after_a_nested_return, 2, y)
    log = []

    def f(y):
        try:
            return 1
        finally:
            if y > 3:
                return 2
            log.append(y)

    assert autograph.to_graph(f)(0) == 1
    assert log == [0]


def nested_finally_blocks(x, y):
    try:
        try:
            return x
        finally:
            if y > 1:
                return y + 50
    finally:
        x = x + 1000


@pytest.mark.parametrize("y", [0, 2])
def test_nested_try_finally_with_returns(y):
    assert_agree(nested_finally_blocks, 1, y)


def exception_after_return_caught_outside(x):
    try:
        try:
            return x
        finally:
            always_fails()
    except ValueError:
        pass
    return x + 1


def test_exception_raised_after_a_return_cancels_it():
    assert_agree(exception_after_return_caught_outside, 1)
    assert exception_after_return_caught_outside(1) == 2


# -- break and continue ------------------------------------------------------------------------


def loop_with_break_and_continue_in_try_finally(x, y):
    total = 0
    for k in range(5):
        try:
            if k == x:
                break
            if k == y:
                continue
            total += 1
        finally:
            total += 10
    return total


@pytest.mark.parametrize("x, y", [(9, 9), (2, 0), (3, 1), (0, 0)])
def test_finally_runs_on_break_and_continue(x, y):
    assert_agree(loop_with_break_and_continue_in_try_finally, x, y)


def test_finally_in_a_staged_loop_runs_once_per_iteration():
    counter = tf.Variable(0)

    @tf.function
    def f(n, stop):
        total = 0
        for k in tf.range(n):
            try:
                if k == stop:
                    break
                if k % 2 == 0:
                    continue
                total += 1
            finally:
                counter.assign_add(1)
        return total

    assert int(f(tf.constant(6), tf.constant(4)).numpy()) == 2
    assert int(counter.numpy()) == 5
    assert f.experimental_get_tracing_count() == 1


def return_in_a_loop_inside_try(x, y):
    z = 0
    try:
        for k in range(x):
            if k == y:
                return k * 100 + z
            z += 1
    finally:
        z += 1000
    return z


@pytest.mark.parametrize("x, y", [(3, 1), (3, 7), (0, 0)])
def test_return_from_a_loop_inside_try_finally(x, y):
    assert_agree(return_in_a_loop_inside_try, x, y)


def break_in_finally_cancels_return(x):
    for k in range(3):
        try:
            return k
        finally:
            if x > 1:
                break
    return 55


def continue_in_finally_cancels_break(x):
    total = 0
    for k in range(4):
        try:
            total += 1
            if k > 0:
                break
        finally:
            if x > 1:
                continue
        total += 10
    return total


@pytest.mark.parametrize("x", [0, 2])
@pytest.mark.parametrize("fn", [break_in_finally_cancels_return,
                                continue_in_finally_cancels_break])
def test_jump_in_finally_replaces_the_pending_one(fn, x):
    assert_agree(fn, x)


def test_finally_that_jumps_is_wrapped_once_for_all_kinds_of_jump():
    converted = conversion.convert(break_in_finally_cancels_return)
    code = autograph.to_code(break_in_finally_cancels_return)
    assert code.count("ag__.FinallyJumps(") == 1
    assert "pending_return, do_return = (do_return, False)" in code
    assert "break_ = finally_.resume(break_, pending_break)" in code
    assert converted(5) == 55


def continue_or_break_in_finally_on_tensors(x):
    total = 0
    for k in range(4):
        try:
            total += 1
        finally:
            if x > k:
                continue
            if x < 0:
                break
        total += 10
    return total


@pytest.mark.parametrize("x", [-1, 0, 2, 9])
def test_finally_with_several_kinds_of_jump_on_tensor_conditions(x):
    assert_agree(continue_or_break_in_finally_on_tensors, x)


def read_maybe_unbound_in_try_whose_finally_returns(x):
    if x > 0:
        late = x
    try:
        total = late + 1
    finally:
        return -1  # noqa: B012  (swallows the UnboundLocalError for late when x <= 0)
    return total


def read_maybe_unbound_in_finally_that_returns(x):
    if x > 0:
        late = x
    try:
        pass
    finally:
        return late + 1  # noqa: B012


def read_maybe_unbound_in_try_with_except(x):
    if x > 0:
        late = x
    try:
        total = late + 1
    except NameError:
        total = 0
    return total


@pytest.mark.parametrize("f", [read_maybe_unbound_in_try_whose_finally_returns,
                               read_maybe_unbound_in_try_with_except])
def test_run_time_check_inside_a_try_that_would_catch_it_is_refused(f):
    """Python catches (or swallows) the UnboundLocalError of reading `late` unassigned; a
    check staged into the graph raises when the graph runs, outside the try: refused."""
    assert f(0) in (-1, 0) and f(2) in (-1, 3)
    with pytest.raises(NotImplementedError, match="may be unassigned") as info:
        tf.function(f)(tf.constant(0))
    assert "'late'" in str(info.value)
    assert re.search(r"the `try` at .*test_try_jumps\.py:\d+", str(info.value))


@pytest.mark.parametrize("x", [0, 2])
def test_run_time_check_in_a_finally_block_that_jumps_is_staged(x):
    """An error raised in the `finally:` block itself propagates in Python too."""
    traced = tf.function(read_maybe_unbound_in_finally_that_returns)
    if x > 0:
        assert int(traced(tf.constant(x))) == 3
    else:
        with pytest.raises(UnboundLocalError, match="late"):
            traced(tf.constant(x))


def staged_if_in_try_with_broad_except(x):
    try:
        if x > 0:
            y = x
        else:
            y = -x
    except Exception:
        y = 100
    return y


def finally_returns_after_a_maybe_unassigned_read(n):
    for i in tf.range(n):
        e = i
    try:
        n = e + 1
    finally:
        return 7


def finally_reads_a_maybe_unassigned_variable_then_returns(n):
    for i in tf.range(n):
        e = i
    try:
        n = n + 1
    finally:
        if e > 0:
            return 7
    return 0


def test_a_jump_in_finally_after_a_run_time_definedness_check_is_refused():
    # Python returns 7 for n = 0 (the return swallows the UnboundLocalError); the graph's
    # check cannot be swallowed, so the trace refuses rather than raise at run time.
    with pytest.raises(NotImplementedError, match=r"`finally:` block.*'e'"):
        tf.function(finally_returns_after_a_maybe_unassigned_read)(tf.constant(0))
    traced = tf.function(finally_reads_a_maybe_unassigned_variable_then_returns)
    assert int(traced(tf.constant(3))) == 7
    with pytest.raises(UnboundLocalError):
        traced(tf.constant(0))


def test_refusal_inside_a_try_is_not_caught_by_its_handlers():
    """`except Exception:` must not catch the refusal and run instead of the staged `if`
    (that would trace `y = 100` into the graph: a made-up value)."""
    assert staged_if_in_try_with_broad_except(2) == 2
    with pytest.raises(NotImplementedError, match="cannot be staged inside the `try`"):
        tf.function(staged_if_in_try_with_broad_except)(tf.constant(2))
    assert "ag__.reraise_refusal()" in autograph.to_code(staged_if_in_try_with_broad_except)


def loop_refused_inside_try_whose_finally_returns(x):
    a = 0
    try:
        i = 0
        while i < x:
            i += 1
            a = tf.cast(a, tf.float32) + 0.5
    finally:
        return a


def raise_in_staged_branch_inside_try_whose_finally_returns(x):
    y = 1
    try:
        if x > 0:
            raise ValueError("positive")
        y = 2
    finally:
        return y


def test_a_refusal_while_staging_is_not_swallowed_by_a_return_in_finally():
    """Swallowing it would return `a` as it was before the loop (0), never staged."""
    assert loop_refused_inside_try_whose_finally_returns(2) == 1.0
    with pytest.raises(TypeError, match="'a' changed dtype"):
        tf.function(loop_refused_inside_try_whose_finally_returns)(tf.constant(2))


def test_an_error_met_in_a_staged_branch_is_not_swallowed_by_a_return_in_finally():
    """Python swallows it only when the branch runs: swallowing it while tracing would
    return 1 where the branch does not run, and Python returns 2."""
    function = raise_in_staged_branch_inside_try_whose_finally_returns
    assert [function(v) for v in (1, -1)] == [1, 2]
    with pytest.raises(ValueError, match="positive"):
        tf.function(function)(tf.constant(-1))


def refused_loop_then_finally_reads_what_it_sets(x):
    a = 0
    try:
        i = 0
        while i < x:
            i += 1
            e = i
            a = tf.cast(a, tf.float32) + 0.5
    finally:
        a = a + e
    return a


def test_a_refusal_is_reported_even_when_a_finally_block_then_fails_on_its_state():
    """The finally: block runs while the refusal propagates, and reads `e`, which the
    refused loop never set: the refusal, not that UnboundLocalError, says what is wrong."""
    assert refused_loop_then_finally_reads_what_it_sets(2) == 3.0
    with pytest.raises(TypeError, match="'a' changed dtype") as info:
        tf.function(refused_loop_then_finally_reads_what_it_sets)(tf.constant(2))
    assert "UnboundLocalError" in "".join(getattr(info.value, "__notes__", []))


def finally_in_a_staged_loop_returns_or_breaks(n):
    b = 0
    for j in tf.range(n):
        try:
            b = b + 1
        finally:
            if b % 3 == 1:
                return b * 10
            break
    return b


@pytest.mark.parametrize("n", [0, 1, 2])
def test_return_in_finally_inside_a_staged_loop_gives_pythons_answer(n):
    # The return value chosen after the `finally:` block is the compiler's own (no
    # definedness flag), even while the loop has not assigned it yet.
    traced = tf.function(finally_in_a_staged_loop_returns_or_breaks)(tf.constant(n))
    assert traced.numpy().item() == finally_in_a_staged_loop_returns_or_breaks(n)
