"""Lists, dicts and sets changed in place by their methods (`pop`, `insert`, `update`, ...)
inside a conditional or loop on a tensor: each staged branch changes a copy of its own, so
that the branch not taken never changes the user's container; the result is written back
into the same object. Where the branches (or iterations) leave it with another length or
other keys, which no graph value can stand for, staging is refused naming the container,
the method and the line."""

import pytest
from source_lines import line_of

import autograph.tf as tf


def value(result):
    return result.numpy().tolist() if hasattr(result, "numpy") else result


# -- methods that keep the length or keys: staged, Python's answer ---------------------------


def list_reverse(x):
    items = [1, 2, 3]
    if x > 0:
        items.reverse()
    return items[0] * 100 + items[1] * 10 + items[2]


def list_sort(x):
    items = [3, 1, 2]
    if x > 0:
        items.sort()
    return items[0] * 100 + items[1] * 10 + items[2]


def list_setitem_method(x):
    items = [1, 2]
    if x > 0:
        items.__setitem__(0, x)
    return items[0] + items[1]


def dict_update_of_an_existing_key(x):
    d = {"a": 1, "b": 2}
    if x > 0:
        d.update({"a": x})
    return d["a"] + d["b"]


def dict_setdefault_of_an_existing_key(x):
    d = {"a": 1}
    if x > 0:
        v = d.setdefault("a", 7)
    else:
        v = 0
    return d["a"] + v


def set_add_of_a_member(x):
    s = {1, 2}
    if x > 0:
        s.add(1)
    return len(s)


def list_reversed_in_a_loop(n):
    items = [1, 2, 3]
    for i in tf.range(n):
        items.reverse()
    return items[0]


def dict_updated_in_a_loop(n):
    d = {"a": 0}
    for i in tf.range(n):
        d.update(a=d["a"] + i)
    return d["a"]


@pytest.mark.parametrize("function", [list_reverse, list_sort, list_setitem_method,
                                      dict_update_of_an_existing_key,
                                      dict_setdefault_of_an_existing_key, set_add_of_a_member])
@pytest.mark.parametrize("x", [1, -1])
def test_method_keeping_the_shape_under_a_tensor_if_gives_pythons_answer(function, x):
    assert value(tf.function(function)(tf.constant(x))) == function(x)


@pytest.mark.parametrize("function", [list_reversed_in_a_loop, dict_updated_in_a_loop])
@pytest.mark.parametrize("n", [0, 1, 4])
def test_method_keeping_the_shape_in_a_staged_loop_gives_pythons_answer(function, n):
    assert value(tf.function(function)(tf.constant(n))) == function(n)


def reverse_seen_through_another_name(x):
    items = [1, 2]
    same = items
    if x > 0:
        items.reverse()
    return same[0] * 10 + same[1]


@pytest.mark.parametrize("x", [1, -1])
def test_the_merged_result_is_written_into_the_same_object(x):
    expected = reverse_seen_through_another_name(x)
    assert value(tf.function(reverse_seen_through_another_name)(tf.constant(x))) == expected


# -- methods that change the length or keys: refused --------------------------------------


def list_pop(x):
    items = [1, 2, 3]
    if x > 0:
        items.pop()
    return items[0] + items[1] + items[-1]


def list_insert(x):
    items = [1, 2]
    if x > 0:
        items.insert(0, x)
    return items[0]


def list_extend(x):
    items = [1]
    if x > 0:
        items.extend([x, x])
    return len(items)


def list_remove(x):
    items = [1, 2]
    if x > 0:
        items.remove(2)
    return len(items)


def list_clear(x):
    items = [1, 2]
    if x > 0:
        items.clear()
    return len(items)


def list_append(x):
    items = [1]
    if x > 0:
        items.append(5)
    return len(items)


def dict_pop(x):
    d = {"a": 1, "b": 2}
    if x > 0:
        d.pop("b")
    return d.get("b", 0) + d["a"]


def dict_popitem(x):
    d = {"a": 1, "b": 2}
    if x > 0:
        d.popitem()
    return len(d)


def dict_update_of_a_new_key(x):
    d = {"a": 1}
    if x > 0:
        d.update(c=x)
    return len(d)


def dict_setdefault_of_a_new_key(x):
    d = {"a": 1}
    if x > 0:
        d.setdefault("c", 3)
    return len(d)


def dict_clear(x):
    d = {"a": 1}
    if x > 0:
        d.clear()
    return len(d)


def dict_delitem_method(x):
    d = {"a": 1, "b": 2}
    if x > 0:
        d.__delitem__("b")
    return len(d)


def set_add_of_a_new_member(x):
    s = {1}
    if x > 0:
        s.add(2)
    return len(s)


def set_discard(x):
    s = {1, 2}
    if x > 0:
        s.discard(2)
    return len(s)


def set_remove(x):
    s = {1, 2}
    if x > 0:
        s.remove(2)
    return len(s)


def list_popped_in_a_loop(n):
    items = [1, 2, 3, 4, 5]
    for i in tf.range(n):
        items.pop()
    return len(items)


def dict_popped_in_a_while_loop(n):
    d = {"a": 1, "b": 2}
    while n > 0:
        d.pop("b", None)
        n -= 1
    return len(d)


@pytest.mark.parametrize("function, call", [
    (list_pop, "items.pop"), (list_insert, "items.insert"), (list_extend, "items.extend"),
    (list_remove, "items.remove"), (list_clear, "items.clear"), (list_append, "items.append"),
    (dict_pop, "d.pop"), (dict_popitem, "d.popitem"), (dict_update_of_a_new_key, "d.update"),
    (dict_setdefault_of_a_new_key, "d.setdefault"), (dict_clear, "d.clear"),
    (dict_delitem_method, "d.__delitem__"),
    (set_add_of_a_new_member, "s.add"), (set_discard, "s.discard"), (set_remove, "s.remove"),
])
def test_method_changing_the_length_under_a_tensor_if_is_refused_naming_it_and_the_line(
        function, call):
    name = call.split(".")[0]
    with pytest.raises(ValueError, match=r"'%s' is changed in place by %s\(\) inside a "
                                         r"conditional on a tensor" % (name, call)) as caught:
        tf.function(function)(tf.constant(1))
    assert "test_staged_containers.py:%d in %s" % (line_of(function, "if x > 0"),
                                                   function.__name__) in str(caught.value)


@pytest.mark.parametrize("function, call, statement", [
    (list_popped_in_a_loop, "items.pop", "for i in"),
    (dict_popped_in_a_while_loop, "d.pop", "while n > 0"),
])
def test_method_changing_the_length_in_a_staged_loop_is_refused_naming_it_and_the_line(
        function, call, statement):
    name = call.split(".")[0]
    with pytest.raises(ValueError, match=r"'%s' is changed in place by %s\(\) inside a "
                                         r"loop on a tensor" % (name, call)) as caught:
        tf.function(function)(tf.constant(2))
    assert "test_staged_containers.py:%d in %s" % (line_of(function, statement),
                                                   function.__name__) in str(caught.value)


class Holder:
    """An object holding a list."""

    def __init__(self):
        self.items = [1, 2, 3]


def pop_an_attribute(x):
    h = Holder()
    if x > 0:
        h.items.pop()
    return len(h.items)


def reverse_an_attribute(x):
    h = Holder()
    if x > 0:
        h.items.reverse()
    return h.items[0]


@pytest.mark.parametrize("x", [1, -1])
def test_method_on_an_attribute_keeping_its_shape_gives_pythons_answer(x):
    assert value(tf.function(reverse_an_attribute)(tf.constant(x))) == reverse_an_attribute(x)


def test_method_on_an_attribute_changing_its_length_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"'h.items' is changed in place by h.items.pop\(\)"):
        tf.function(pop_an_attribute)(tf.constant(1))


module_items = [1, 2, 3]


def pop_a_global(x):
    if x > 0:
        module_items.pop()
    return x


def test_method_on_a_global_container_is_refused_naming_it_and_the_line():
    with pytest.raises(ValueError, match=r"'module_items' is modified inside a conditional or "
                                         r"loop on a tensor, but cannot be carried through it: "
                                         r"module_items.pop\(\) changes it in place") as caught:
        tf.function(pop_a_global)(tf.constant(1))
    assert "test_staged_containers.py:%d" % line_of(pop_a_global, "if x > 0") in str(caught.value)
    assert module_items == [1, 2, 3]


# -- a variable naming another variable's list or dict ----------------------------------------


def alias_made_in_a_branch(n):
    e = {"v": 1}
    d = {"v": 0}
    if n > 0:
        d = e
    d["v"] = 5
    return e["v"]


def alias_made_before_the_branch(n):
    d = {"v": 0}
    e = d
    if n > 0:
        d = {"v": n}
    d["v"] = 5
    return e["v"]


def alias_made_in_a_loop(n):
    e = [1]
    d = [0]
    for i in tf.range(n):
        d = e
    d[0] = 5
    return e[0]


def two_variables_naming_one_list_in_a_branch(n):
    if n > 0:
        a = b = [n]
    else:
        a = [1]
        b = [2]
    a[0] = 7
    return b[0]


def alias_of_an_attribute(n):
    h = Holder()
    d = [0, 0, 0]
    if n > 0:
        d = h.items
    d[0] = 5
    return h.items[0]


@pytest.mark.parametrize("function, names, statement", [
    (alias_made_in_a_branch, ("d", "e"), "if n > 0"),
    (alias_made_before_the_branch, ("d", "e"), "if n > 0"),
    (alias_made_in_a_loop, ("d", "e"), "for i in"),
    (two_variables_naming_one_list_in_a_branch, ("b", "a"), "if n > 0"),
    (alias_of_an_attribute, ("d", "h.items"), "if n > 0"),
])
def test_variable_naming_another_variables_container_is_refused_naming_both(
        function, names, statement):
    with pytest.raises(ValueError, match=r"'%s' and '%s' name the same list or dict"
                                         % names) as caught:
        tf.function(function)(tf.constant(1))
    assert "test_staged_containers.py:%d in %s" % (line_of(function, statement),
                                                   function.__name__) in str(caught.value)


def set_added_to_in_a_loop(n):
    s = {1}
    for i in tf.range(n):
        s.add(2)
    return len(s)


def test_set_changed_in_place_in_a_staged_loop_is_refused_naming_the_call():
    with pytest.raises(ValueError, match=r"'s' is changed in place by s.add\(\) inside a loop "
                                         r"on a tensor, but it is a set") as caught:
        tf.function(set_added_to_in_a_loop)(tf.constant(2))
    assert "test_staged_containers.py:%d" % line_of(set_added_to_in_a_loop, "for i in") in \
        str(caught.value)


# -- containers staged next to other state -------------------------------------------------


def dict_updated_before_a_return_in_a_constant_loop(x):
    d = {"p": 1}
    for k in range(3):
        if x % 2 == 1:
            d.update({"p": x})
        else:
            d.update({"p": 2})
            return 5
        return 6 + d["p"]
    return 7


@pytest.mark.parametrize("x", [2, 3])
def test_update_in_a_loop_iteration_guarded_by_a_tensor_return_gives_pythons_answer(x):
    # The iterations after a tensor `return` run under a staged guard, which must carry the
    # dict's in-place change like the `if` inside it (it used to leak a branch's tensor).
    expected = dict_updated_before_a_return_in_a_constant_loop(x)
    assert value(tf.function(dict_updated_before_a_return_in_a_constant_loop)(
        tf.constant(x))) == expected


def list_appended_next_to_a_variable_bound_on_some_paths(n):
    items = [1, 2]
    for i in tf.range(n):
        if i > 0:
            e = 2  # noqa: F841  (a variable unbound on some paths, never read)
            continue
        items.append(i)
        e = 3  # noqa: F841
    return len(items)


def test_a_variable_unbound_on_some_path_does_not_hide_a_container_refusal():
    # Looking for other names of the loop's containers must skip a variable with no value
    # yet (`e`), not read it and fail with an UnboundLocalError about it.
    with pytest.raises(ValueError, match=r"'items' is changed in place by items.append\(\)"):
        tf.function(list_appended_next_to_a_variable_bound_on_some_paths)(tf.constant(3))



def _reverse_under_key(key):
    def reverse_under_key(x):
        d = {key: [1, 2]}
        if x > 0:
            d[key].reverse()
        return d[key][0]
    return reverse_under_key


@pytest.mark.parametrize("key", ["ab", "a.b"])
@pytest.mark.parametrize("x, expected", [(3, 2), (-3, 1)])
def test_a_list_of_a_local_dict_reversed_under_a_tensor_if_gives_pythons_answer(key, x, expected):
    # Its receiver `d[key]` was taken for an object of another scope (its root read from
    # the text `d[key].reverse`), and refused.
    assert _reverse_under_key(key)(x) == expected
    assert value(tf.function(_reverse_under_key(key))(tf.constant(x))) == expected
