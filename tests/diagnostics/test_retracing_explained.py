"""Every retrace records why; a Function that keeps retracing warns at the
call site with the parameter, the keys seen and a fix to paste."""

import pytest

import autograph
import autograph.tf as tf
from tests.autograph.source_lines import line_of
from tests.diagnostics.conftest import INFO, records

HERE = __file__


def _python_int_calls(n):
    @tf.function
    def train(x, step):
        return x * step

    for step in range(n):
        train(tf.constant([1.0, 2.0]), step)
    return train


def test_five_traces_in_five_calls_warn_at_the_call_site_with_the_fix():
    with pytest.warns(autograph.RetracingWarning) as caught:
        train = _python_int_calls(5)
    assert len(caught) == 1
    warning = caught[0]
    call_line = line_of(_python_int_calls, "train(tf.constant")
    assert (warning.filename, warning.lineno) == (HERE, call_line)
    text = str(warning.message)
    assert text.startswith("%s:%d: " % (HERE, call_line))
    assert "train (defined at %s:%d)" % (HERE, line_of(_python_int_calls, "@tf.function")) \
        in text
    assert "traced on each of its last 5 calls" in text
    assert "`step`: Python int 3 -> 4" in text
    assert "Keys seen for `step`: 0, 1, 2, 3, 4." in text
    assert "train(x, tf.constant(step))" in text
    assert train.experimental_get_tracing_count() == 5


def test_four_retracing_calls_do_not_warn():
    train = _python_int_calls(4)  # filterwarnings=error: a warning would fail the test
    assert train.experimental_get_tracing_count() == 4


def test_traces_separated_by_cached_calls_do_not_warn():
    @tf.function
    def f(step):
        return tf.constant(1) * step

    for step in range(8):
        f(step)
        f(step)  # a cached call between the traces
    assert f.experimental_get_tracing_count() == 8


def test_the_warning_comes_once_per_function():
    with pytest.warns(autograph.RetracingWarning) as caught:
        _python_int_calls(12)
    assert len(caught) == 1


def _shape_calls():
    @tf.function
    def g(x):
        return x + 1

    for n in range(2, 7):
        g(tf.ones([n, 3]))
    return g


def test_changing_shapes_suggest_an_input_signature_with_none_dims_and_reduce_retracing():
    with pytest.warns(autograph.RetracingWarning) as caught:
        _shape_calls()
    text = str(caught[0].message)
    assert "`x`: shape (5, 3) -> (6, 3)" in text
    assert "input_signature=[tf.TensorSpec([None, 3], tf.float32)]" in text
    assert "reduce_retracing=True" in text


def test_the_suggested_signature_stops_the_retracing():
    g = tf.function(lambda x: x + 1,
                    input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    for n in range(2, 9):
        g(tf.ones([n, 3]))
    assert g.experimental_get_tracing_count() == 1


def test_retrace_budget_warns_past_the_budget():
    autograph.config(retrace_budget=2)

    @tf.function
    def f(x):
        return x * 2

    f(tf.ones([1]))
    f(tf.ones([1]))
    f(tf.ones([2]))
    with pytest.warns(autograph.RetracingWarning, match="traced 3 times, more than "
                                                        "retrace_budget=2"):
        f(tf.ones([3]))


@pytest.mark.parametrize("budget", [0, -1, 1.5, True, "3"])
def test_a_bad_retrace_budget_is_refused(budget):
    with pytest.raises(TypeError, match="retrace_budget"):
        autograph.config(retrace_budget=budget)


class Model:
    pass


def test_tracing_history_lists_every_trace_with_its_reason():
    @tf.function
    def f(x, obj, flag=False):
        return x

    f(tf.ones([2]), Model())
    f(tf.ones([3]), None)
    model = Model()
    f(tf.ones([3]), model)
    f(tf.ones([3]), model)  # cached
    f(tf.ones([3], dtype=tf.int32), model)
    f(tf.ones([3], dtype=tf.int32), model, True)
    f.get_concrete_function(tf.TensorSpec([None], tf.float32), model)
    history = f.tracing_history()
    assert [e.number for e in history] == [1, 2, 3, 4, 5, 6]
    assert [e.call for e in history] == [1, 2, 3, 5, 6, None]
    assert history[0].reasons == ("first trace",)
    assert "`x`: shape (2,) -> (3,)" in history[1].reasons
    assert "`obj`: a Model object -> Python NoneType None" in history[1].reasons
    assert history[2].reasons == ("`obj`: Python NoneType None -> a Model object",)
    assert history[3].reasons == ("`x`: dtype float32 -> int32",)
    assert history[4].reasons == ("`flag`: Python bool False -> True",)
    # the nearest earlier key wins; between equally near ones, the latest
    assert history[5].reasons == ("`x`: dtype int32 -> float32",)
    assert "trace 2 (call 2, " in str(history[1])
    assert "get_concrete_function" in str(history[5])
    assert all(e.seconds > 0 for e in history)


def test_a_new_object_is_named_as_a_new_instance():
    @tf.function
    def f(obj):
        return tf.constant(1)

    first, second = Model(), Model()  # both alive: distinct identities
    f(first)
    f(second)
    assert f.tracing_history()[1].reasons == (
        "`obj`: a new instance of Model (objects are keyed by identity)",)


def test_a_change_inside_a_list_names_the_item():
    @tf.function
    def f(xs):
        return xs[0]

    f([tf.ones([2]), tf.ones([2])])
    f([tf.ones([2]), tf.ones([4])])
    assert f.tracing_history()[1].reasons == ("`xs[1]`: shape (2,) -> (4,)",)


def test_each_retrace_is_logged_at_info(caplog):
    caplog.set_level(INFO, logger="autograph")

    @tf.function
    def f(x):
        return x

    f(tf.ones([1]))
    f(tf.ones([2]))
    infos = records(caplog, INFO)
    assert len(infos) == 1
    assert "f (%s:" % HERE in infos[0] and "`x`: shape (1,) -> (2,)" in infos[0]


def test_a_bound_method_has_its_history():
    class Counter:
        @tf.function
        def add(self, x):
            return x + 1

    counter = Counter()
    counter.add(1)
    counter.add(2)
    assert [e.reasons for e in counter.add.tracing_history()] == [
        ("first trace",), ("`x`: Python int 1 -> 2",)]
