"""Values that may be undefined at run time: a variable assigned on some paths of staged control
flow only carries a definedness flag, checked where it is read; the program gives plain
Python's answer, or raises (when the graph runs) an error that is both TensorFlow's
InvalidArgumentError and Python's UnboundLocalError, naming the variable and the line."""


import numpy as np
import pytest
from source_lines import line_of

import autograph
import autograph.tf as tf
from autograph import conversion


def op_names(function, *args):
    """The op types of a concrete function's graph, including nested sub-graphs."""
    graph = function.get_concrete_function(*args).graph
    found = []

    def walk(g):
        for node in g.nodes:
            found.append(node.op.name)
            for sub in node.attrs.values():
                if hasattr(sub, "graph") and hasattr(sub, "placeholders"):
                    walk(sub.graph)
    walk(graph)
    return found


def python_answer(fn, *args):
    """What plain Python gives: the value, or the exception class."""
    try:
        value = fn(*args)
    except UnboundLocalError:
        return UnboundLocalError
    return value.numpy().tolist() if hasattr(value, "numpy") else value


def traced_answer(fn, *args):
    try:
        value = tf.function(fn)(*[tf.constant(a) for a in args])
    except UnboundLocalError as e:
        assert isinstance(e, tf.errors.InvalidArgumentError)
        return UnboundLocalError
    return value.numpy().tolist()


def assert_like_python(fn, *args):
    assert traced_answer(fn, *args) == python_answer(fn, *args)


def assert_undefined_error(error, name, fn, read):
    assert isinstance(error, tf.errors.InvalidArgumentError)
    assert isinstance(error, UnboundLocalError)
    assert isinstance(error, tf.errors.UndefinedValueError)
    message = str(error)
    assert "'%s'" % name in message
    assert "%s:%d" % (__file__, line_of(fn, read)) in message


# -- loops that may run zero times --------------------------------------------------------------


def square_in_range(n):
    for i in tf.range(n):
        sq = i * i
    return sq


def test_variable_first_assigned_in_a_zero_trip_range_loop_raises_when_read():
    traced = tf.function(square_in_range)
    assert int(traced(tf.constant(4)).numpy()) == 9
    with pytest.raises(UnboundLocalError) as info:
        traced(tf.constant(0))
    assert_undefined_error(info.value, "sq", square_in_range, "return sq")
    assert int(traced(tf.constant(2)).numpy()) == 1  # the same trace, defined again


def halve_in_while(x):
    while x > 1:
        last = x
        x = x // 2
    return last


def test_variable_first_assigned_in_a_zero_trip_while_loop_raises_when_read():
    traced = tf.function(halve_in_while)
    assert int(traced(tf.constant(20)).numpy()) == 2
    with pytest.raises(UnboundLocalError) as info:
        traced(tf.constant(1))
    assert_undefined_error(info.value, "last", halve_in_while, "return last")


def assigned_when(n):
    for i in tf.range(n):
        if i > 2:
            s = i
    return s


@pytest.mark.parametrize("n", [0, 2, 3, 6])
def test_variable_assigned_in_some_iterations_only(n):
    assert traced_answer(assigned_when, n) == python_answer(assigned_when, n)


def last_pair(n):
    for i in tf.range(n):
        inner = i * 10
        for j in tf.range(n - 1 - i):
            last = inner + j
    return last


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4])
def test_nested_loops_keep_a_value_an_earlier_outer_iteration_assigned(n):
    # n=3: the last outer iteration's inner loop runs zero times and keeps 10 from before.
    assert traced_answer(last_pair, n) == python_answer(last_pair, n)


def grown_in_loop(n):
    for i in tf.range(n):
        z = tf.zeros([i + 1])
    return z


def test_variable_first_assigned_in_a_loop_with_a_run_time_shape():
    traced = tf.function(grown_in_loop)
    np.testing.assert_array_equal(traced(tf.constant(3)).numpy(), [0.0, 0.0, 0.0])
    with pytest.raises(UnboundLocalError):
        traced(tf.constant(0))


def dict_in_loop(n):
    for i in tf.range(n):
        d = {"i": i, "pair": (i * 2, i + 1)}
    return d["pair"][0] + d["i"]


def test_variable_first_assigned_a_dict_of_tensors_in_a_loop():
    assert_like_python(dict_in_loop, 4)
    assert traced_answer(dict_in_loop, 0) is UnboundLocalError


def prints_while_tracing(n):
    total = 0
    for i in tf.range(n):
        print("tracing the body")
        y = i * 2
        total += y
    return total + y


def test_loop_body_with_a_variable_first_assigned_inside_is_traced_once(capsys):
    traced = tf.function(prints_while_tracing)
    assert int(traced(tf.constant(3)).numpy()) == 10
    assert int(traced(tf.constant(4)).numpy()) == 18
    assert capsys.readouterr().out.count("tracing the body") == 1


def reads_previous_iteration(n):
    for i in tf.range(n):
        if i > 0:
            prev = last
        last = i
    return prev


@pytest.mark.parametrize("n", [0, 1, 2, 4])
def test_read_of_a_value_an_earlier_iteration_assigned_before_the_assignment(n):
    # The body reads `last` before assigning it (in a branch the first iteration skips):
    # its type comes from a throwaway trace of the body.
    assert traced_answer(reads_previous_iteration, n) == \
        python_answer(reads_previous_iteration, n)


def uses_maybe_value_in_loop(x, n):
    if x > 0:
        y = x
    s = 0
    for i in tf.range(n):
        s += y
    return s


@pytest.mark.parametrize("x, n", [(2, 3), (-2, 0), (-2, 3)])
def test_check_inside_a_loop_body_runs_only_when_the_loop_reads(x, n):
    assert traced_answer(uses_maybe_value_in_loop, x, n) == \
        python_answer(uses_maybe_value_in_loop, x, n)


# -- branches -------------------------------------------------------------------------------------


def reassigned_before_read(a, b):
    if a > 0:
        s = a
    k = 0
    while k < 2:
        k += 1
        if b > 0:
            s = b
        else:
            s = a
    return s


@pytest.mark.parametrize("a, b", [(1, 2), (-1, 2), (1, -2), (-1, -2)])
def test_variable_assigned_in_one_branch_and_reassigned_before_any_read(a, b):
    assert_like_python(reassigned_before_read, a, b)
    assert "CheckDefined" not in op_names(tf.function(reassigned_before_read),
                                          tf.constant(a), tf.constant(b))


def created_in_python_loop(p, q):
    k = 0
    while k < 2:
        k += 1
        if q > 0:
            s = p
        else:
            s = q
        s -= k
    return q


def test_python_loop_around_a_tensor_if_that_creates_a_variable():
    assert_like_python(created_in_python_loop, 1, 2)
    assert_like_python(created_in_python_loop, 1, -2)
    assert "s = ag__.Undefined('s')" in conversion.source_of(created_in_python_loop)


def deleted_in_both_branches(x):
    t = x * 2
    if x > 0:
        del t
    else:
        del t
    return x


def deleted_in_one_branch(x):
    t = x * 2
    if x > 0:
        del t
    return t


def test_name_deleted_in_both_branches_of_a_tensor_if():
    assert_like_python(deleted_in_both_branches, 3)
    assert_like_python(deleted_in_both_branches, -3)


def test_name_deleted_in_one_branch_is_checked_where_it_is_read():
    assert_like_python(deleted_in_one_branch, -3)
    with pytest.raises(UnboundLocalError) as info:
        tf.function(deleted_in_one_branch)(tf.constant(3))
    assert_undefined_error(info.value, "t", deleted_in_one_branch, "return t")


def deleted_in_loop(n):
    t = 7
    for i in tf.range(n):
        if i == 2:
            del t
        else:
            t = i
    return t


@pytest.mark.parametrize("n", [0, 2, 3, 4])
def test_name_deleted_in_a_loop_body(n):
    assert traced_answer(deleted_in_loop, n) == python_answer(deleted_in_loop, n)


def undefined_on_every_path(x):
    if x > 0:
        t = x
        del t
    return t


def test_read_undefined_on_every_path_is_a_trace_time_error():
    with pytest.raises(UnboundLocalError):
        tf.function(undefined_on_every_path).get_concrete_function(tf.constant(1))


def squared_on_one_branch(x):
    if x > 0:
        y = x * x
    return y


def test_gradient_flows_through_a_checked_value():
    x = tf.constant(3.0)
    traced = tf.function(squared_on_one_branch)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = traced(x)
    assert float(tape.gradient(y, x).numpy()) == 6.0


def test_function_without_maybe_undefined_values_gets_no_check():
    @tf.function
    def f(x, n):
        s = x
        for i in tf.range(n):
            if i > 1:
                s = s + i
            else:
                s = s - 1
        return s

    assert "CheckDefined" not in op_names(f, tf.constant(1), tf.constant(3))


# -- a while condition that starts as a Python bool -----------------------------------------------


def python_then_tensor_condition(x):
    cond = True
    n = 0
    while cond:
        n += 1
        x = x + 1
        cond = x < 3
    return x * 10 + n


@pytest.mark.parametrize("x", [-4, 0, 2, 5])
def test_while_condition_that_starts_as_a_python_bool_and_becomes_a_tensor(x):
    assert_like_python(python_then_tensor_condition, x)


def first_assigned_then_differentiated(x, n):
    s = x
    for i in tf.range(n):
        y = s * x
        s = s + 1.0
    return y


def test_gradient_through_a_loop_that_first_assigns_the_value():
    x = tf.constant(3.0)
    traced = tf.function(first_assigned_then_differentiated)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = traced(x, tf.constant(3))
    assert float(y.numpy()) == 15.0
    assert float(tape.gradient(y, x).numpy()) == 8.0  # d/dx (x + 2) * x


def loops_sharing_a_target_in_sibling_branches(x, y):
    b = y
    if x > 0:
        if x > y:
            for j in range(3):
                b = b + j
        else:
            for j in range(3):
                e = b + j
                if e > 100:
                    return e
                b = e
    return b


@pytest.mark.parametrize("x, y", [(0, 1), (5, 1), (1, 5)])
def test_a_name_local_to_one_branch_function_and_shared_in_the_other(x, y):
    assert conversion.convert(loops_sharing_a_target_in_sibling_branches)(x, y) == \
        loops_sharing_a_target_in_sibling_branches(x, y)
    assert_like_python(loops_sharing_a_target_in_sibling_branches, x, y)


def augmented_maybe_undefined(x):
    if x > 0:
        s = x
    s += 1
    return s


def test_augmented_assignment_of_a_maybe_undefined_value_is_checked():
    assert_like_python(augmented_maybe_undefined, 3)
    with pytest.raises(UnboundLocalError) as info:
        tf.function(augmented_maybe_undefined)(tf.constant(-3))
    assert_undefined_error(info.value, "s", augmented_maybe_undefined, "s += 1")


def deleted_then_returned_after_a_staged_return(x):
    b = x
    i = 0
    while i < x % 4:
        i += 1
        return 100
    del b
    return b


@pytest.mark.parametrize("x", [5, 4])
def test_branch_reading_a_deleted_name_raises_only_when_it_runs(x):
    # x=5: the loop returns, the code after it never runs; x=4: it runs and raises.
    assert traced_answer(deleted_then_returned_after_a_staged_return, x) == \
        python_answer(deleted_then_returned_after_a_staged_return, x)



def accumulates_into_an_unassigned_total(n):
    for i in tf.range(n):
        total = total + i
    return n


def test_loop_body_reading_a_name_before_any_assignment_raises_only_when_it_runs():
    assert_like_python(accumulates_into_an_unassigned_total, 0)
    with pytest.raises(UnboundLocalError) as info:
        tf.function(accumulates_into_an_unassigned_total)(tf.constant(2))
    assert_undefined_error(info.value, "total", accumulates_into_an_unassigned_total,
                           "total = total + i")


def maybe_value_passes_a_later_if(x, y):
    if x > 0:
        s = x
    if y > 0:
        t = y
    else:
        t = -y
    return s + t


def test_maybe_undefined_value_is_checked_once_read_after_later_staged_ifs():
    assert_like_python(maybe_value_passes_a_later_if, 2, -3)
    assert traced_answer(maybe_value_passes_a_later_if, -2, 3) is UnboundLocalError
    graph = tf.function(maybe_value_passes_a_later_if).get_concrete_function(
        tf.constant(1), tf.constant(1)).graph
    ifs = [n for n in graph.nodes if n.op.name.endswith("If")]
    assert [len(n.outputs) for n in ifs] == [2, 1]  # s and its flag, then t alone


def _assigned_only_after_a_return(x):
    for _ in range(x % 4):
        return 1
        late = 3  # (unreachable: the compiler drops it, the name stays local)
    return late


@pytest.mark.parametrize("x", [0, 1])
def test_name_assigned_only_in_unreachable_code_stays_local(x):
    """Python reads `late` as an unbound local (UnboundLocalError), never a global (NameError):
    so do the converted and the traced function."""
    if x == 0:
        with pytest.raises(UnboundLocalError):
            _assigned_only_after_a_return(x)
        with pytest.raises(UnboundLocalError, match="late"):
            autograph.to_graph(_assigned_only_after_a_return)(x)
        with pytest.raises(UnboundLocalError, match="late"):
            tf.function(_assigned_only_after_a_return)(tf.constant(x))
    else:
        assert _assigned_only_after_a_return(x) == 1
        assert autograph.to_graph(_assigned_only_after_a_return)(x) == 1
        assert int(tf.function(_assigned_only_after_a_return)(tf.constant(x))) == 1


def _assigned_in_a_handler_read_after_a_staged_return(x):
    try:
        for _ in range(x % 4):
            return 6
    finally:
        try:
            pass
        except ValueError:
            late = 1
    return late


@pytest.mark.parametrize("x", [4, 5])
def test_name_assigned_only_in_a_handler_read_in_a_staged_branch(x):
    """The read of `late` lands in a generated branch function (after a staged `return`), where
    the name is free: unbound, it must be Python's UnboundLocalError, not a NameError about a
    free variable or a global."""
    if x == 4:
        with pytest.raises(UnboundLocalError):
            _assigned_in_a_handler_read_after_a_staged_return(x)
        with pytest.raises(UnboundLocalError, match="late"):
            tf.function(_assigned_in_a_handler_read_after_a_staged_return)(tf.constant(x))
    else:
        assert int(tf.function(_assigned_in_a_handler_read_after_a_staged_return)(
            tf.constant(x))) == 6


def risky(v):
    if v > 2:
        raise ValueError(v)
    return v


def assigned_in_a_handler_read_in_a_staged_branch(x):
    try:
        a = risky(3)
    except ValueError:
        e = 5
        a = 0
    if x > 0:
        a = a + e
    return a


def deleted_in_a_try_then_assigned_in_a_staged_loop(x):
    e = 1
    try:
        del e
    finally:
        pass
    for j in tf.range(x % 3 + 1):
        e = j
    return e


@pytest.mark.parametrize("function", [assigned_in_a_handler_read_in_a_staged_branch,
                                      deleted_in_a_try_then_assigned_in_a_staged_loop])
@pytest.mark.parametrize("x", [0, 2])
def test_definedness_through_try_statements(function, x):
    assert int(tf.function(function)(tf.constant(x))) == function(x)


def only_assigned_in_a_handler(x):
    try:
        risky(0)
    except ValueError:
        e = 5
    if x > 0:
        x = x + e
    return x


def test_a_variable_only_a_handler_that_did_not_run_assigns_is_unbound_in_a_staged_branch():
    with pytest.raises(UnboundLocalError, match="'e'"):
        tf.function(only_assigned_in_a_handler)(tf.constant(1))


def read_before_a_branch_that_only_assigns_it(x):
    c = 1
    try:
        return x
    finally:
        if not c == e:
            c = 2
        if x > 0:
            e = c * c


def test_a_variable_only_a_later_staged_branch_assigns_is_unbound_before_it():
    # The branch's generated function holds its `e`: the read before it was a NameError
    # for a global `e`, where Python raises UnboundLocalError.
    with pytest.raises(UnboundLocalError, match="'e'"):
        tf.function(read_before_a_branch_that_only_assigns_it)(tf.constant(1))
    with pytest.raises(UnboundLocalError, match="'e'"):
        autograph.to_graph(read_before_a_branch_that_only_assigns_it)(1)


def _deleted_inside_a_try_in_a_loop(n):
    e = 1
    i = 0
    while i < n:
        i += 1
        a = e * 2
        try:
            del e
        finally:
            pass
    return a


@pytest.mark.parametrize("n", [0, 1, 2])
def test_name_deleted_inside_a_try_in_a_loop_is_checked_next_iteration(n):
    """`del e` inside a `try` body leaves `e` maybe undefined after the `try`: the read at the
    top of the next iteration is checked (Python raises UnboundLocalError for n >= 2)."""
    traced = tf.function(_deleted_inside_a_try_in_a_loop)
    if n == 0:
        with pytest.raises(UnboundLocalError):
            _deleted_inside_a_try_in_a_loop(n)
        with pytest.raises(UnboundLocalError, match="'a'"):
            traced(tf.constant(n))
    elif n == 1:
        assert _deleted_inside_a_try_in_a_loop(n) == 2
        assert int(traced(tf.constant(n))) == 2
    else:
        with pytest.raises(UnboundLocalError):
            _deleted_inside_a_try_in_a_loop(n)
        with pytest.raises(UnboundLocalError, match="'e'"):
            traced(tf.constant(n))
