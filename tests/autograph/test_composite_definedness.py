"""Keys and attributes that staged control flow creates on some run-time paths only (in a loop
on a tensor that may run zero times, in one branch of a conditional on a tensor) carry a
definedness flag, as plain variables do: reading one where it was never set raises when the
graph runs an error that is both InvalidArgumentError and UnboundLocalError, naming it and
the line; on the paths where it is set, the result is Python's."""

import pytest
from source_lines import line_of

import autograph.tf as tf


class Box:
    """A plain object to hang attributes on."""


def value(result):
    return result.numpy().tolist() if hasattr(result, "numpy") else result


def key_created_in_a_loop(n, x):
    y = {}
    for i in tf.range(n):
        y["a"] = x + i
    return y["a"]


def attribute_created_in_a_loop(n, x):
    s = Box()
    for i in tf.range(n):
        s.best = x * i
    return s.best


def attribute_created_in_one_branch(n, x):
    s = Box()
    if n > 0:
        s.a = x
    return s.a


def key_created_in_one_branch_then_updated(n, x):
    y = {"b": 1}
    if n > 0:
        y["a"] = x
    y["a"] += 1
    return y["a"] + y["b"]


def key_deleted_in_one_branch(n, x):
    y = {"a": x}
    if n > 0:
        del y["a"]
    return y["a"]


CASES = [
    (key_created_in_a_loop, "y['a']", "return y"),
    (attribute_created_in_a_loop, "s.best", "return s.best"),
    (attribute_created_in_one_branch, "s.a", "return s.a"),
    (key_created_in_one_branch_then_updated, "y['a']", "y[\"a\"] += 1"),
]


@pytest.mark.parametrize("function", [case[0] for case in CASES])
@pytest.mark.parametrize("n", [1, 3])
def test_composite_set_on_the_path_taken_gives_pythons_value(function, n):
    assert value(tf.function(function)(tf.constant(n), tf.constant(10))) == function(n, 10)


@pytest.mark.parametrize("function, text, read", CASES)
def test_composite_read_where_never_set_raises_at_run_time_naming_it_and_the_line(
        function, text, read):
    with pytest.raises((KeyError, AttributeError)):
        function(0, 10)  # plain Python
    traced = tf.function(function)
    assert value(traced(tf.constant(2), tf.constant(10))) == function(2, 10)  # traced once
    with pytest.raises(tf.errors.InvalidArgumentError) as caught:
        traced(tf.constant(0), tf.constant(10))
    assert isinstance(caught.value, UnboundLocalError)
    message = str(caught.value)
    assert "'%s'" % text in message
    assert "test_composite_definedness.py:%d" % line_of(function, read) in message


def test_composite_deleted_in_one_branch_raises_at_run_time_where_deleted():
    traced = tf.function(key_deleted_in_one_branch)
    assert value(traced(tf.constant(0), tf.constant(10))) == 10
    with pytest.raises(tf.errors.UndefinedValueError, match=r"'y\['a'\]'"):
        traced(tf.constant(1), tf.constant(10))


def container_returned_whole(n, x):
    y = {}
    for i in tf.range(n):
        y["a"] = x + i
    return y


def test_container_read_whole_after_the_loop_holds_the_value():
    got = tf.function(container_returned_whole)(tf.constant(3), tf.constant(10))
    assert {k: value(v) for k, v in got.items()} == {"a": 12}


def key_created_in_one_branch_then_counted(n, x):
    d = {"a": x}
    if n > 0:
        d["b"] = x
    return len(d)


def test_container_read_whole_checks_its_items_at_run_time():
    traced = tf.function(key_created_in_one_branch_then_counted)
    assert value(traced(tf.constant(1), tf.constant(10))) == 2
    with pytest.raises(tf.errors.UndefinedValueError, match=r"'d\['b'\]' is read before"):
        traced(tf.constant(0), tf.constant(10))  # Python: 1; never a made-up value


def nested_key_created_in_one_branch(n):
    x = {"a": {"a": n}}
    if n > 0:
        x["a"]["b"] = n + 1
    return x


def key_created_in_a_while_loop(b):
    y = {"b": b}
    while y["b"] <= 10:
        y["a"] = y["b"] + 1
        y["b"] *= 2
    return y


def plain(result):
    if isinstance(result, dict):
        return {k: plain(v) for k, v in result.items()}
    return value(result)


@pytest.mark.parametrize("function, arg", [(nested_key_created_in_one_branch, 2),
                                           (key_created_in_a_while_loop, 5)])
def test_container_returned_whole_where_set_gives_pythons_value(function, arg):
    traced = tf.function(function)
    assert plain(traced(tf.constant(arg))) == function(arg)


@pytest.mark.parametrize("function, arg", [(nested_key_created_in_one_branch, 0),
                                           (key_created_in_a_while_loop, 11)])
def test_container_returned_whole_where_never_set_raises_at_run_time(function, arg):
    with pytest.raises(tf.errors.UndefinedValueError, match="a loop must iterate at least once"):
        tf.function(function)(tf.constant(arg))


class Holder:
    """An object that outlives the function, reached through a local name."""

    def __init__(self):
        self.cache = {}
        self.box = Box()

    def get_cache(self):
        return self.cache


HELD = Holder()
OUTSIDE = {}


def key_created_in_one_branch_of_an_attribute_s_dict(n):
    y = HELD.cache
    if n > 0:
        y["a"] = n
    return n + 1


def key_created_in_a_loop_of_a_global_s_dict(n):
    y = OUTSIDE
    for i in tf.range(n):
        y["b"] = i
    return n


def attribute_created_in_one_branch_of_a_method_s_result(n):
    box = HELD.get_cache()
    if n > 0:
        box["c"] = n
    return n


def attribute_created_in_a_loop_of_an_unpacked_object(n):
    box, _ = HELD.box, 0
    for i in tf.range(n):
        box.best = i
    return n


@pytest.mark.parametrize("function", [
    key_created_in_one_branch_of_an_attribute_s_dict,
    key_created_in_a_loop_of_a_global_s_dict,
    attribute_created_in_one_branch_of_a_method_s_result,
    attribute_created_in_a_loop_of_an_unpacked_object,
])
def test_a_local_name_for_an_object_made_outside_gets_no_flag_inside_it(function):
    """A flag left in an object that outlives the call would corrupt it: such a composite
    is refused, naming it, and the object is left as it was."""
    with pytest.raises(ValueError, match="its object is not one the function made"):
        tf.function(function)(tf.constant(1))
    assert HELD.cache == {} and OUTSIDE == {} and not hasattr(HELD.box, "best")
