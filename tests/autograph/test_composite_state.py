"""Composite names (`d['v']`, `s.total`, `l[0]`, `s.a.b`, `s.m[k]`) that staged control flow
modifies are state like plain names: each branch starts from the value before the statement,
the branches' values are merged, loops carry them. Those that cannot be carried (missing on
one path, a key that changes inside the statement) are refused naming them and the line."""

import collections
import textwrap

import pytest
from source_lines import line_of

import autograph
import autograph.tf as tf
from autograph import conversion
from autograph.pyct import codegen, parsing


class Box:
    """A plain object to hang attributes on."""

    def __init__(self, **values):
        self.__dict__.update(values)


def value(result):
    return result.numpy().tolist() if hasattr(result, "numpy") else result


def as_python(result):
    """`result` with its tensors as Python values, containers kept."""
    if isinstance(result, dict):
        return {k: as_python(v) for k, v in result.items()}
    if isinstance(result, (tuple, list)):
        return type(result)(as_python(v) for v in result)
    return value(result)


def assert_matches_python(function, *cases):
    """`function` traced gives what plain Python gives, for each tuple of int arguments."""
    traced = tf.function(function)
    for args in cases:
        expected = function(*args)
        got = traced(*[tf.constant(a) for a in args])
        assert value(got) == expected, (args, value(got), expected)


def convert_snippet(source):
    module, info = parsing.parse_source(textwrap.dedent(source), "snippet.py")
    node = module.body[0]
    return codegen.to_source(conversion.convert_node(node, info, node.name))


# -- staged if -----------------------------------------------------------------------------------


def dict_item_in_if(x, y):
    d = {"v": y}
    if x > 0:
        d["v"] = x
    return d["v"]


def attribute_in_if(x, y):
    s = Box(v=y)
    if x > 0:
        s.v = x
    return s.v


def list_item_in_if(x, y):
    items = [y, 0]
    if x > 0:
        items[0] = x
    return items[0]


def nested_attribute_in_if(x, y):
    s = Box(a=Box(b=y))
    if x > 0:
        s.a.b = x
    else:
        s.a.b = s.a.b * 2
    return s.a.b


def attribute_item_with_a_variable_key_in_if(x, y):
    s = Box(m={"lo": y, "hi": y})
    key = "hi"
    if x > 0:
        s.m[key] = x
    return s.m[key] + s.m["lo"]


def augmented_item_in_if(x, y):
    d = {"v": y}
    if x > 0:
        d["v"] += x
    else:
        d["v"] -= 1
    return d["v"]


def value_computed_in_the_branch(x, y):
    s = Box(total=y)
    if x > 0:
        s.total = s.total * x + 1
    return s.total


def key_created_in_both_branches(x, y):
    d = {}
    if x > 0:
        d["v"] = x
    else:
        d["v"] = y
    return d["v"]


def whole_object_read_after_the_if(x, y):
    d = {"v": y, "w": 1}
    if x > 0:
        d["v"] = x
    return sum(d.values())


def item_read_by_the_other_branch_only(x, y):
    d = {"v": y}
    if x > 0:
        d["v"] = x
        r = x
    else:
        r = d["v"] + 10
    d["v"] = 0
    return r + d["v"]


@pytest.mark.parametrize("function", [
    dict_item_in_if, attribute_in_if, list_item_in_if, nested_attribute_in_if,
    attribute_item_with_a_variable_key_in_if, augmented_item_in_if,
    value_computed_in_the_branch, key_created_in_both_branches,
    whole_object_read_after_the_if, item_read_by_the_other_branch_only])
def test_composite_assigned_under_a_tensor_if_matches_python(function):
    assert_matches_python(function, (-3, 7), (3, 7))


def test_a_dict_item_set_under_a_false_tensor_condition_keeps_its_value():
    assert int(tf.function(dict_item_in_if)(tf.constant(-3), tf.constant(7))) == 7


def test_method_reading_an_attribute_after_the_if_sees_the_merged_value():
    class Counter:
        def __init__(self):
            self.best = tf.constant(0)

        def current(self):
            return self.best

        @tf.function
        def offer(self, x):
            if x > self.best:
                self.best = x
            return self.current()

    assert int(Counter().offer(tf.constant(5))) == 5
    assert int(Counter().offer(tf.constant(-5))) == 0


def test_key_created_after_an_early_return_on_a_tensor_condition():
    def f(x):
        out = {"v": x}
        if x > 0:
            return out["v"]
        out["w"] = x * 2
        return out["v"] + out["w"]

    assert_matches_python(f, (3,), (-3,))


# -- staged loops --------------------------------------------------------------------------------


def attribute_accumulated_in_a_range_loop(n):
    s = Box(total=0)
    for i in tf.range(n):
        s.total = s.total + i
    return s.total


def list_item_counted_in_a_while_loop(n):
    x = [0]
    while x[0] < n:
        x[0] += 1
    return x[0]


def attribute_set_under_an_if_in_a_loop(x, y):
    s = Box(best=x)
    for i in tf.range(5):
        if i > 100:
            s.best = y
    return s.best


def dict_item_updated_under_an_if_in_a_loop(n):
    d = {"evens": 0, "odds": 0}
    i = 0
    while i < n:
        if i % 2 == 0:
            d["evens"] += i
        else:
            d["odds"] += i
        i += 1
    return d["evens"] * 100 + d["odds"]


def test_attribute_accumulated_in_a_range_loop():
    traced = tf.function(attribute_accumulated_in_a_range_loop)
    assert [int(traced(tf.constant(n))) for n in (0, 5)] == [0, 10]


def test_list_item_counted_in_a_while_loop():
    assert_matches_python(list_item_counted_in_a_while_loop, (0,), (4,))


def test_attribute_set_under_an_if_that_never_holds_in_a_loop_keeps_its_value():
    traced = tf.function(attribute_set_under_an_if_in_a_loop)
    assert int(traced(tf.constant(7), tf.constant(-1))) == 7


def test_dict_items_updated_under_an_if_in_a_loop():
    assert_matches_python(dict_item_updated_under_an_if_in_a_loop, (0,), (5,))


def test_self_attribute_accumulated_in_a_loop_of_a_method():
    class Model:
        def __init__(self):
            self.total = tf.constant(0)

        @tf.function
        def run(self, n):
            for i in tf.range(n):
                self.total = self.total + i
            return self.total

    assert int(Model().run(tf.constant(4))) == 6


def test_attribute_accumulated_over_a_dataset():
    dataset = tf.data.Dataset.range(4)

    @tf.function
    def f():
        s = Box(total=tf.constant(0, tf.int64))
        for x in dataset:
            s.total += x
        return s.total

    assert int(f()) == 6


def test_staged_loop_restores_the_objects_values_when_staging_fails():
    d = {"v": 1}

    @tf.function
    def f(n):
        for i in tf.range(n):
            d["v"] = 1.5  # a float where an int was: refused
        return n

    with pytest.raises(TypeError, match=r"'d\['v'\]'"):
        f(tf.constant(2))
    assert d == {"v": 1}


# -- the Python paths keep Python's semantics ----------------------------------------------------


def test_python_condition_may_create_a_key_or_attribute():
    @tf.function
    def f(x, flag):
        d, s = {}, Box()
        if flag:
            d["new"] = x
            s.new = x
        return d["new"] + s.new

    assert int(f(tf.constant(2), True)) == 4


def test_python_loop_may_use_a_changing_key():
    @tf.function
    def f(x):
        d = {}
        for k in ["a", "b"]:
            d[k] = x
        i = 0
        while i < 2:
            d[i] = x * i
            i += 1
        return d["a"] + d["b"] + d[1]

    assert int(f(tf.constant(3))) == 9


def test_unconverted_python_values_run_as_plain_python():
    converted = autograph.to_graph(dict_item_in_if)
    assert converted(-3, 7) == 7 and converted(3, 7) == 3


# -- refusals ------------------------------------------------------------------------------------


# A key or attribute that exists on some run-time paths only is carried with a definedness
# flag when its object is one the function made (tests/autograph/test_composite_definedness);
# the object of a parameter, a global or a closure value outlives the call: refused.


def key_created_in_one_branch(x, d=Box(a=1)):
    if x > 0:
        d.b = x
    return x


def attribute_created_in_one_loop(n, s=Box()):
    for i in tf.range(n):
        s.best = i
    return n


def key_deleted_in_one_branch(x, d=Box(a=1)):
    if x > 0:
        del d.a
    return x


def key_changing_in_the_loop(n):
    d = {0: n}
    for i in tf.range(n):
        d[i] = i
    return d[0]


def first_key(x):
    return "a"


def key_computed_by_a_call(x):
    d = {"a": x}
    if x > 0:
        d[first_key(x)] = x + 1
    return d["a"]


@pytest.mark.parametrize("function, pattern, statement", [
    (key_created_in_one_branch, r"'d.b' exists after the if branch .* but not after "
                                r"the else branch", "if x > 0"),
    (key_deleted_in_one_branch, r"'d.a' exists after the else branch .* but not "
                                r"after the if branch", "if x > 0"),
    (attribute_created_in_one_loop, r"'s.best' does not exist before a loop on a tensor",
     "for i in"),
    (key_changing_in_the_loop, r"'d\[i\]' is modified inside .* its key changes inside the "
                               r"statement \(i is assigned in it\)", "for i in"),
    (key_computed_by_a_call, r"'d\[first_key\(x\)\]' is modified inside .* its key is not "
                             r"made of constants and variables only", "if x > 0"),
])
def test_composite_that_cannot_be_carried_is_refused_naming_it_and_the_line(
        function, pattern, statement):
    with pytest.raises(ValueError, match=pattern) as caught:
        tf.function(function)(tf.constant(3))
    assert "test_composite_state.py:%d in %s" % (line_of(function, statement),
                                                 function.__name__) in str(caught.value)


def test_a_refused_key_is_left_as_python_would_have_left_it_before():
    d = {"a": 1}

    @tf.function
    def f(x):
        if x > 0:
            d["b"] = x
        return x

    with pytest.warns(tf.autograph.SideEffectWarning, match="tensor of the trace"), \
            pytest.raises(ValueError, match=r"'d\['b'\]'"):
        f(tf.constant(1))
    assert d == {"a": 1}


def test_reading_the_state_does_not_create_a_defaultdict_key():
    counts = collections.defaultdict(int)

    @tf.function
    def f(x):
        if x > 0:
            counts["v"] += 1
        return x

    with pytest.raises(ValueError, match=r"'counts\['v'\]' exists after the if branch"):
        f(tf.constant(1))
    assert dict(counts) == {}


def test_key_missing_on_both_paths_stays_missing():
    @tf.function
    def f(x):
        d = {"a": x}
        if x > 0:
            if len(d) > 5:  # a Python condition, false while tracing
                d["b"] = x
        return len(d)

    assert int(f(tf.constant(1))) == 1


# -- what the converted code says ----------------------------------------------------------------


def test_to_code_shows_composite_state_as_written():
    def f(x, s):
        d = {"v": x}
        if x > 0:
            d["v"] = x
            s.total = s.total + x
        return d["v"] + s.total

    code = autograph.to_code(f)
    assert "return (ag__.maybe(d)['v'], ag__.maybe(s).total)" in code
    assert "ag__.maybe(d)['v'], ag__.maybe(s).total = vars_" in code
    assert "(\"d['v']\", 's.total')" in code


def test_composite_never_read_again_is_state_since_its_object_outlives_the_call():
    code = convert_snippet("""
        def f(self, x):
            if x > 0:
                self.v = x
    """)
    assert "ag__.maybe(self).v" in code


def test_composite_overwritten_before_any_read_is_not_state():
    code = convert_snippet("""
        def f(x):
            d = {'v': 0}
            if x > 0:
                d['v'] = x
            d['v'] = 1
            return d['v']
    """)
    assert "maybe" not in code and "get_state" not in code


def test_composite_read_only_by_the_other_branch_is_restored_not_merged():
    code = convert_snippet(textwrap.dedent("""
        def f(x):
            d = {'v': 0}
            if x > 0:
                d['v'] = x
            else:
                y = d['v']
            d['v'] = 1
            return y, d['v']
    """))
    assert "restore_only=(\"d['v']\",)" in code


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


def attribute_set_then_object_rebound_and_dropped(n):
    s = Box(v=1)
    if n > 0:
        s.v = 2
        s = Box(v=5)
    else:
        n = n + s.v
    return n


@pytest.mark.parametrize("function", [item_set_then_dict_rebound, item_set_then_list_rebound,
                                      attribute_set_then_object_rebound_and_dropped])
@pytest.mark.parametrize("n", [-1, 1])
def test_the_other_branch_sees_the_item_before_the_first_branch_changed_it(function, n):
    expected = function(n)
    assert as_python(tf.function(function)(tf.constant(n))) == expected


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
    assert as_python(tf.function(function)(tf.constant(n))) == function(n)


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
    assert as_python(tf.function(function)(tf.constant(n))) == function(n)


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


def test_rebinding_the_base_makes_the_base_the_state_not_the_composite():
    code = convert_snippet("""
        def f(x):
            for i in range(x):
                s = make()
                s.v = i
            return s
    """)
    assert "maybe" not in code and "('s',)" in code


def test_refused_composites_are_checked_by_get_state_only():
    code = convert_snippet("""
        def f(d, n):
            for i in range(n):
                d[i] = i
    """)
    get_state = code[code.index("def get_state"):code.index("def set_state")]
    assert "ag__.refuse_composite('d[i]', 'its key changes inside the statement" in get_state
    assert "refuse_composite" not in code.replace(get_state, "")
