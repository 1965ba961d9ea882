"""Python side effects that run only while a Function traces warn on its
first trace, once per source line, naming the line; effects that are right stay silent."""

import random
import time

import numpy as np
import pytest

import autograph
import autograph.tf as tf
from tests.autograph.source_lines import line_of

HERE = __file__
SideEffectWarning = autograph.SideEffectWarning

outer_list = []
outer_dict = {}
leaked = None


class Box:
    field = None


outer_box = Box()
generator = np.random.default_rng(0)


def _only(caught):
    warnings = [w for w in caught if issubclass(w.category, SideEffectWarning)]
    assert len(warnings) == 1, [str(w.message) for w in warnings]
    return warnings[0]


def _assert_at(warning, function, text):
    line = line_of(function, text)
    assert (warning.filename, warning.lineno) == (HERE, line)
    assert str(warning.message).startswith("%s:%d: " % (HERE, line))


def print_tensor(x):
    print("value:", x)
    return x


def test_print_of_a_tensor_warns_once_at_its_line_and_suggests_tf_print(capsys):
    f = tf.function(print_tensor)
    with pytest.warns(SideEffectWarning, match=r"tf\.print") as caught:
        f(tf.constant(1.0))
    _assert_at(_only(caught), print_tensor, 'print("value:"')
    f(tf.constant(2.0))         # cached: nothing runs, nothing warns
    f(tf.constant([1.0, 2.0]))  # a second trace prints again, but does not warn
    assert capsys.readouterr().out.count("value:") == 2


def print_formatted_tensor(x):
    print(f"value: {x}")
    return x


def print_tensor_formatted_other_ways(x):
    print("value: {}".format(x))
    print("value: %s" % x)
    print("value: " + repr(x + 1))
    return x


def test_print_of_an_f_string_holding_a_tensor_warns_at_its_line_and_suggests_tf_print(capsys):
    with pytest.warns(SideEffectWarning, match=r"f-string.*tf\.print") as caught:
        tf.function(print_formatted_tensor)(tf.constant(1.0))
    _assert_at(_only(caught), print_formatted_tensor, 'print(f"value:')
    assert capsys.readouterr().out == 'value: Tensor("x:0", shape=(), dtype=float32)\n'


def test_print_of_a_tensor_formatted_with_format_percent_or_repr_warns_on_each_line():
    with pytest.warns(SideEffectWarning) as caught:
        tf.function(print_tensor_formatted_other_ways)(tf.constant(1.0))
    lines = sorted(w.lineno for w in caught if issubclass(w.category, SideEffectWarning))
    first = line_of(print_tensor_formatted_other_ways, 'print("value: {}"')
    assert lines == [first, first + 1, first + 2]


def print_in_a_loop(x):
    for i in range(3):
        print("step", i, x)
    return x


def test_a_line_warns_once_however_often_it_runs():
    with pytest.warns(SideEffectWarning) as caught:
        tf.function(print_in_a_loop)(tf.constant(1.0))
    _only(caught)


def prints_python_values(x):
    print("Tracing!")
    print(f"tracing with shape {x.shape} and dtype {x.dtype}")
    print("tracing with a Python number", 3, [1, 2])
    tf.print("executing", x)
    return x


def test_printing_python_values_and_tf_print_do_not_warn():
    assert tf.function(prints_python_values)(tf.constant(1.0)).numpy() == 1.0


def test_the_warnings_can_be_switched_off():
    autograph.config(side_effect_warnings=False)
    tf.function(print_tensor)(tf.constant(1.0))  # filterwarnings=error: no warning


def test_a_bad_side_effect_warnings_setting_is_refused():
    with pytest.raises(TypeError, match="side_effect_warnings"):
        autograph.config(side_effect_warnings="no")


def test_a_converted_function_called_eagerly_does_not_warn():
    assert autograph.to_graph(print_tensor)(tf.constant(1.0)).numpy() == 1.0


def appends_to_outer_list(x):
    outer_list.append(x * 2)
    return x


def test_appending_a_tensor_to_a_global_list_warns():
    with pytest.warns(SideEffectWarning, match="list defined outside the function") as caught:
        tf.function(appends_to_outer_list)(tf.constant(1.0))
    _assert_at(_only(caught), appends_to_outer_list, "outer_list.append")
    del outer_list[:]


def test_appending_a_tensor_to_a_closure_list_warns():
    seen = []

    @tf.function
    def f(x):
        seen.append(x)
        return x

    with pytest.warns(SideEffectWarning, match="return the value instead"):
        f(tf.constant(1.0))


def _helper_appends(items, x):
    items.append(x)


def test_local_lists_and_lists_passed_to_helpers_do_not_warn():
    @tf.function
    def f(x):
        items = []
        items.append(x)
        _helper_appends(items, x + 1)
        table = {}
        table["a"] = x
        table.update(b=x)
        return items[0] + items[1] + table["a"]

    assert f(tf.constant(1.0)).numpy() == 4.0


def test_appending_variables_and_python_values_to_outer_lists_does_not_warn():
    # The guide's pattern: variables created on the first trace, kept in an outer list.
    state = []
    traces = []

    @tf.function
    def f(x):
        traces.append("traced")
        if not state:
            state.append(tf.Variable(2.0 * x))
        return state[0] * x

    assert f(tf.constant(1.0)).numpy() == 2.0
    assert f(tf.constant(3.0)).numpy() == 6.0


def stores_into_outer_state(x):
    global leaked
    leaked = x + 1
    outer_dict["k"] = x
    outer_box.field = x
    return x


def test_stores_of_tensors_into_globals_and_their_items_and_attributes_warn():
    with pytest.warns(SideEffectWarning) as caught:
        tf.function(stores_into_outer_state)(tf.constant(1.0))
    lines = sorted(w.lineno for w in caught)
    assert lines == [line_of(stores_into_outer_state, text)
                     for text in ("leaked = x", "outer_dict[", "outer_box.field")]
    assert "`leaked`" in str(caught[0].message) or any(
        "`leaked`" in str(w.message) for w in caught)
    assert any("`outer_dict['k']`" in str(w.message) for w in caught)
    assert any("`outer_box.field`" in str(w.message) for w in caught)


def test_an_augmented_store_into_a_closure_object_warns():
    box = Box()
    box.field = 0.0

    @tf.function
    def f(x):
        box.field += x
        return x

    with pytest.warns(SideEffectWarning, match="box.field"):
        f(tf.constant(1.0))


def test_stores_into_objects_made_in_the_trace_or_of_python_values_do_not_warn():
    counter = Box()
    counter.field = 0

    @tf.function
    def f(x):
        local = Box()
        local.field = x
        counter.field += 1  # a Python trace counter: deliberate, not a tensor
        return local.field

    assert f(tf.constant(1.0)).numpy() == 1.0
    assert counter.field == 1


def test_the_converted_code_shows_the_store_check():
    code = autograph.to_code(stores_into_outer_state)
    assert "leaked = ag__.store_outer(x + 1, 'leaked')" in code
    assert "outer_box.field = ag__.store_outer(x, 'outer_box.field', outer_box)" in code
    assert "ag__.converted_call(print, ('value:', x), None, fscope)" in autograph.to_code(
        print_tensor)


def next_on_iterator(x, iterator):
    return x + next(iterator)


def test_next_on_a_python_iterator_warns_and_suggests_a_dataset():
    with pytest.warns(SideEffectWarning, match=r"iter\(dataset\)") as caught:
        tf.function(next_on_iterator)(tf.constant(1), iter([1, 2]))
    _assert_at(_only(caught), next_on_iterator, "next(iterator)")


def test_next_on_a_dataset_iterator_does_not_warn():
    iterator = iter(tf.data.Dataset.from_tensor_slices([1, 2, 3]))
    f = tf.function(next_on_iterator)
    assert f(tf.constant(1), iterator).numpy() == 2
    assert f(tf.constant(1), iterator).numpy() == 3


@pytest.mark.parametrize("call, name", [
    (lambda: random.random(), "random.random"),
    (lambda: np.random.rand(), "numpy.random.rand"),
    (lambda: generator.normal(), "numpy.random.Generator.normal"),
    (lambda: np.random.default_rng(0).random(), "numpy.random.default_rng"),
    (lambda: time.time(), "time.time"),
])
def test_random_and_time_calls_warn_that_their_value_is_frozen(call, name):
    @tf.function
    def f(x):
        return x + call()

    with pytest.warns(SideEffectWarning, match="frozen into the graph") as caught:
        f(tf.constant(1.0))
    assert name + "()" in str(_only(caught).message)
