"""Regressions found by an adversarial review of issue 8 (composite state, run-time
definedness, try/return, training loops): each program gives plain Python's answer."""

import pytest

import autograph
import autograph.tf as tf


def value(result):
    return result.numpy().tolist() if hasattr(result, "numpy") else result


def plain(result):
    """`result` with its tensors as Python values, containers kept."""
    if isinstance(result, dict):
        return {k: plain(v) for k, v in result.items()}
    if isinstance(result, (tuple, list)):
        return type(result)(plain(v) for v in result)
    return value(result)


# -- the executor ----------------------------------------------------------------------------


def c8(n):  # the executor binds its constants as c<N>: a function may be named like one
    items = [1, 2, 3]
    for i in tf.range(n):
        items[1] = items[1] + i
    return items


def np(n):  # (named like the module the executor's code calls)
    return n * 2 + tf.reduce_sum(tf.ones([2], tf.int32))


def test_a_function_named_like_an_executor_constant_keeps_its_constants():
    assert value(tf.function(c8)(tf.constant(3))) == [1, 5, 3]
    assert value(tf.function(np)(tf.constant(3))) == 8


# -- early returns of structures -------------------------------------------------------------


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


@pytest.mark.parametrize("function", [pair_returned_early, nested_returned_in_a_loop,
                                      pair_returned_in_try])
@pytest.mark.parametrize("n", [0, 2, 5])
def test_a_structure_returned_on_one_path_of_a_staged_statement(function, n):
    expected = function(n)
    got = tf.function(function)(tf.constant(n))
    assert plain(got) == plain(expected)


# -- global and nonlocal in nested functions -------------------------------------------------

total = 1000  # a module global named like a local of the functions below


def local_named_like_a_global_of_a_nested_function(n):
    total = 0

    def read_global():
        global total
        return total
    for i in tf.range(n):
        total += i
    return total


def nonlocal_in_a_nested_function(n):
    for i in tf.range(n):
        last = i

    def bump():
        nonlocal last
        last = last + 10
    bump()
    return last


@pytest.mark.parametrize("function", [local_named_like_a_global_of_a_nested_function,
                                      nonlocal_in_a_nested_function])
def test_declarations_of_a_nested_function_leave_the_enclosing_locals_local(function):
    expected = function(3)
    assert value(autograph.to_graph(function)(3)) == expected
    assert value(tf.function(function)(tf.constant(3))) == expected


# -- an item changed in place, then its container rebound, in one branch --------------------


def item_set_then_dict_rebound(n):
    d = {"a": 1}
    if n > 0:
        d["a"] = 2
        d = {"a": d["a"] + 1}
    else:
        d["a"] = d["a"] + 10
    return d["a"]


def item_set_then_list_rebound(n):
    items = [1, 2]
    if n > 0:
        items[0] = 10
        items = [items[0], 3]
    return items


class Box:
    def __init__(self, v):
        self.v = v


def attribute_set_then_object_rebound_and_dropped(n):
    s = Box(1)
    if n > 0:
        s.v = 2
        s = Box(5)
    else:
        n = n + s.v
    return n


@pytest.mark.parametrize("function", [item_set_then_dict_rebound, item_set_then_list_rebound,
                                      attribute_set_then_object_rebound_and_dropped])
@pytest.mark.parametrize("n", [-1, 1])
def test_the_other_branch_sees_the_item_before_the_first_branch_changed_it(function, n):
    expected = function(n)
    assert plain(tf.function(function)(tf.constant(n))) == expected


def item_deleted_in_both_branches(n):
    d = {"a": 0, "b": 1}
    if n > 0:
        del d["a"]
    else:
        del d["a"]
    return d["b"]


def item_deleted_then_set_in_a_loop(n):
    d = {"a": 0}
    for i in tf.range(n):
        del d["a"]
        d["a"] = i * 2
    return d["a"]


@pytest.mark.parametrize("function", [item_deleted_in_both_branches,
                                      item_deleted_then_set_in_a_loop])
@pytest.mark.parametrize("n", [0, 3])
def test_deleting_an_item_needs_it_to_exist(function, n):
    assert plain(tf.function(function)(tf.constant(n))) == function(n)


# -- match: a capture under a pattern is bound only when the pattern matches ------------------


def capture_of_a_failed_case(x):
    match x:
        case 1:
            r = 1
        case (2 | 3) as y:
            r = y
        case _:
            r = 0
    return r + y


def capture_read_by_a_guard(x):
    match x:
        case (2 | 3) as y if y > 2:
            r = y * 10
        case 4 as y:
            r = y
        case _:
            r = 0
    return r


@pytest.mark.parametrize("x", [1, 2, 3, 4, 5])
def test_a_capture_under_a_pattern_is_bound_only_when_it_matches(x):
    try:
        expected = capture_of_a_failed_case(x)
    except UnboundLocalError:
        with pytest.raises(UnboundLocalError):
            autograph.to_graph(capture_of_a_failed_case)(x)
        with pytest.raises(UnboundLocalError):
            tf.function(capture_of_a_failed_case)(tf.constant(x))
    else:
        assert autograph.to_graph(capture_of_a_failed_case)(x) == expected
        assert value(tf.function(capture_of_a_failed_case)(tf.constant(x))) == expected
    expected = capture_read_by_a_guard(x)
    assert value(tf.function(capture_read_by_a_guard)(tf.constant(x))) == expected


# -- definedness around try statements -------------------------------------------------------


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
    assert value(tf.function(function)(tf.constant(x))) == value(function(x))


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


# -- a jump in `finally:` cannot swallow a definedness check that fails in the graph ---------


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
    assert value(traced(tf.constant(3))) == 7
    with pytest.raises(UnboundLocalError):
        traced(tf.constant(0))


def slice_assigned_in_a_branch(n):
    items = [1, 2, 3]
    if n > 0:
        items[0:2] = [7]
    return items


def test_a_slice_assigned_under_a_tensor_condition_is_refused():
    # Restoring `items[0:2]` for the other branch cannot bring back the item the first
    # branch shifted (it gave [1, 2] for n <= 0 before, where Python gives [1, 2, 3]).
    assert autograph.to_graph(slice_assigned_in_a_branch)(-1) == [1, 2, 3]
    with pytest.raises(ValueError, match=r"'items\[0:2\]'.*slice"):
        tf.function(slice_assigned_in_a_branch)(tf.constant(-1))


def list_item_deleted_in_a_branch(n):
    items = [1, 2, 3]
    if n > 0:
        del items[0]
    return items


def test_a_list_item_deleted_under_a_tensor_condition_is_refused():
    # Restoring `items[0]` for the other branch cannot bring back the shifted items (it gave
    # [1, 3] for n <= 0 before, where Python gives [1, 2, 3]).
    assert autograph.to_graph(list_item_deleted_in_a_branch)(-1) == [1, 2, 3]
    with pytest.raises(ValueError, match=r"'items\[0\]' is deleted.*list"):
        tf.function(list_item_deleted_in_a_branch)(tf.constant(-1))
    # A dict's item is no list item: deleting one in both branches works.
    assert value(tf.function(item_deleted_in_both_branches)(tf.constant(1))) == 1


def nested_item_changed_then_read_by_the_other_branch(n):
    d = {"x": [1, 2]}
    if n > 0:
        d["x"][1] = 9
    else:
        d["x"] = [d["x"][1], 0]
    return d["x"]


@pytest.mark.parametrize("n", [-1, 1])
def test_the_other_branch_sees_a_nested_item_before_the_first_branch_changed_it(n):
    function = nested_item_changed_then_read_by_the_other_branch
    assert plain(tf.function(function)(tf.constant(n))) == function(n)


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
