"""The lint's rules on the cases around their edges: what each reports, what it leaves
alone, and how functions to check are found (any spelling of the decorator)."""

import textwrap

import pytest

from autograph import lint


def codes(source, header="import autograph.tf as tf\n"):
    return sorted(f.code for f in lint.check_source(header + textwrap.dedent(source), "m.py"))


# -- which functions are checked ----------------------------------------------------------------

@pytest.mark.parametrize("header, decorator", [
    ("import autograph.tf as tf", "@tf.function"),
    ("import tensorflow as tf", "@tf.function"),
    ("import tensorflow", "@tensorflow.function"),
    ("import autograph", "@autograph.function"),
    ("import autograph as ag", "@ag.function"),
    ("from autograph import function", "@function"),
    ("from autograph import tf", "@tf.function(reduce_retracing=True)"),
    ("from autograph.tf import function as tf_function", "@tf_function"),
])
def test_any_spelling_of_the_decorator_is_recognised(header, decorator):
    source = "%s\nfoo = 1\n%s\ndef f(x):\n    return x + foo\nfoo = 2\n" % (header, decorator)
    assert codes(source, header="") == ["AG501"]


def test_a_function_passed_to_tf_function_is_checked():
    assert codes('''
        external = []
        def f(x):
            external.append(x)
        g = tf.function(f)
        ''') == ["AG102"]


def test_a_function_that_is_not_converted_is_not_checked():
    assert codes('''
        external = []
        def f(x):
            external.append(x)
            print(x)
            return x.numpy()
        ''') == []


def test_another_decorator_named_function_is_not_a_converter():
    assert codes('''
        import functools
        external = []
        @functools.lru_cache
        def f(x):
            external.append(x)
        ''') == []


def test_variable_imported_by_name_is_recognised():
    assert codes('''
        from autograph.tf import Variable, function
        @function
        def f(x):
            return Variable(1.0)
        ''') == ["AG201"]


def test_findings_name_line_and_one_based_column():
    (finding,) = lint.check_source(
        "import autograph.tf as tf\n@tf.function\ndef f(x):\n    print('v', x)\n", "m.py")
    assert (finding.path, finding.line, finding.column) == ("m.py", 4, 5)
    assert finding.as_text().startswith("m.py:4:5: AG101 print() of `x`")
    assert "tf.print('v', x)" in finding.hint


# -- side effects ---------------------------------------------------------------------------------

def test_print_of_python_values_is_not_reported():
    assert codes('''
        @tf.function
        def f(x):
            print("constant", 3)
            print(x.shape, x.dtype, len(x))
            print(f"shape {x.shape}")
            return x
        ''') == []


def test_print_in_an_f_string_or_nested_function_is_reported():
    assert codes('''
        @tf.function
        def f(x):
            print(f"value {x}")
            def inner(y):
                print(y)
            inner(x)
        ''') == ["AG101", "AG101"]


def test_local_lists_and_dicts_may_change():
    assert codes('''
        @tf.function
        def f(x):
            values = []
            table = {}
            for i in tf.range(3):
                values.append(x)
            table["k"] = x
            return tf.stack(values)
        ''') == []


@pytest.mark.parametrize("statement", [
    "self.total = x", "self.cache['k'] = x", "del registry['k']", "registry.update(k=x)",
    "self.total += x", "registry['k'] += 1",
])
def test_changes_to_outer_objects_are_reported(statement):
    assert codes('''
        registry = {}
        class M(tf.Module):
            @tf.function
            def f(self, x):
                %s
                return x
        ''' % statement) == ["AG102"]


def test_a_rebound_parameter_is_local():
    assert codes('''
        @tf.function
        def f(xs):
            xs = list(xs)
            xs.append(1)
            return xs
        ''') == []


def test_the_create_once_guard_must_test_the_same_state():
    assert codes('''
        class M(tf.Module):
            @tf.function
            def f(self, x):
                if self.other is None:
                    self.v = tf.constant(1.0)
                return x
        ''') == ["AG102"]


def test_next_of_a_generator_is_reported_and_of_a_local_iterator_is_not():
    assert codes('''
        def numbers():
            yield 1
        gen = numbers()
        @tf.function
        def f():
            local = iter([1, 2])
            return next(gen) + next(local)
        ''') == ["AG104"]


def test_next_of_a_parameter_passed_an_inline_python_iterator_is_reported():
    assert codes('''
        @tf.function
        def f(it):
            return next(it)
        f(iter(range(3)))
        ''') == ["AG104"]


# -- variables and loops --------------------------------------------------------------------------

def test_variable_created_under_any_if_is_left_alone():
    assert codes('''
        v = None
        @tf.function
        def f(x, first):
            w = tf.Variable(x) if first else None
            if first:
                u = tf.Variable(x)
            return x
        ''') == []


def test_variable_created_in_a_loop_is_reported():
    assert codes('''
        @tf.function
        def f(x):
            for i in tf.range(3):
                v = tf.Variable(x)
            return x
        ''') == ["AG201"]


def test_range_of_a_constant_or_a_signature_parameter_is_left_alone():
    assert codes('''
        @tf.function(input_signature=[tf.TensorSpec([], tf.int32)])
        def f(n):
            for i in range(n):
                tf.print(i)
            for j in range(3):
                tf.print(j)
        ''') == []


def test_range_of_len_of_a_parameter_and_while_over_len_are_reported():
    assert codes('''
        @tf.function
        def f(xs):
            for i in range(len(xs)):
                tf.print(i)
            i = 0
            while i < len(xs):
                i += 1
        ''') == ["AG301", "AG301"]


def test_lambda_run_at_once_or_bound_by_default_is_left_alone():
    assert codes('''
        @tf.function
        def f(x):
            for i in tf.range(3):
                x = tf.cond(x > 0, lambda: x + i, lambda: x - i)
                g = lambda v, i=i: v * i
            return x
        ''') == []


def test_lambda_stored_in_a_while_loop_is_reported():
    assert codes('''
        @tf.function
        def f(x):
            fns = {}
            k = 0
            while k < 3:
                fns[k] = lambda: k
                k += 1
            return x
        ''') == ["AG302"]


# -- tensors --------------------------------------------------------------------------------------

def test_write_of_something_that_is_not_a_tensor_array_is_left_alone():
    assert codes('''
        @tf.function
        def f(x, log):
            log.write("line")
            return x
        ''') == []


def test_discarded_write_of_an_attribute_array_is_reported():
    assert codes('''
        class M(tf.Module):
            def __init__(self):
                self.out = tf.TensorArray(tf.float32, size=2)
            @tf.function
            def f(self, x):
                self.out.write(0, x)
                return x
        ''') == ["AG401"]


def test_int_of_a_python_parameter_is_left_alone_and_of_a_tensor_reported():
    assert codes('''
        @tf.function
        def f(x, n):
            m = int(n)
            s = tf.shape(x)
            return int(s[0]) + m
        ''') == ["AG403"]


def test_float_of_a_signature_parameter_is_reported():
    assert codes('''
        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def f(x):
            return float(x)
        ''') == ["AG403"]


# -- outer names, recursion, retracing ------------------------------------------------------------

def test_closure_variable_reassigned_in_the_enclosing_function_is_reported():
    assert codes('''
        def make():
            scale = 2
            @tf.function
            def scaled(x):
                return x * scale
            scale = 10
            return scaled
        ''') == ["AG501"]


def test_names_bound_once_are_left_alone():
    assert codes('''
        import numpy as np
        SCALE = 2
        def helper(v):
            return v
        @tf.function
        def f(x):
            if SCALE > 1:
                x = helper(x) * SCALE
            return np.float32(1) + x
        ''') == []


def test_module_assignment_in_a_branch_counts_once():
    assert codes('''
        import sys
        if sys.platform:
            SCALE = 2
        @tf.function
        def f(x):
            return x * SCALE
        ''') == []


def test_mutual_recursion_is_reported():
    assert codes('''
        @tf.function
        def even(n):
            return n == 0 or odd(n - 1)
        def odd(n):
            return n != 0 and even(n - 1)
        ''') == ["AG601"]


def test_method_recursion_through_self_is_reported():
    assert codes('''
        class M(tf.Module):
            @tf.function
            def depth(self, n):
                return 0 if n == 0 else 1 + self.depth(n - 1)
        ''') == ["AG601"]


def test_calling_other_functions_is_not_recursion():
    assert codes('''
        def helper(x):
            return x + 1
        @tf.function
        def f(x):
            return helper(helper(x))
        ''') == []


def test_same_number_or_a_python_only_parameter_does_not_retrace_needlessly():
    assert codes('''
        @tf.function
        def f(x, training):
            if training:
                x = tf.nn.relu(x)
            return tf.range(x)
        f(3, training=1)
        f(3, training=2)
        ''') == []


def test_attribute_change_before_the_first_call_is_left_alone():
    assert codes('''
        class Model:
            pass
        @tf.function
        def evaluate(model, x):
            return model.weight * x
        model = Model()
        model.weight = 2.0
        evaluate(model, 1.0)
        ''') == []


# -- noqa, select, ignore, bad input --------------------------------------------------------------

SOURCE_WITH_TWO = '''
external = []
@tf.function
def f(x):
    external.append(x); print("v", x)%s
'''


@pytest.mark.parametrize("comment, left", [
    ("", ["AG101", "AG102"]),
    ("  # autograph: noqa", []),
    ("  # autograph: noqa[AG101]", ["AG102"]),
    ("  # autograph: noqa[AG101, ag102]", []),
    ("  # noqa", ["AG101", "AG102"]),
])
def test_noqa_comments_silence_their_line(comment, left):
    assert codes(SOURCE_WITH_TWO % comment) == left


def test_noqa_inside_a_string_is_not_a_comment():
    assert codes('''
        external = []
        @tf.function
        def f(x):
            external.append("# autograph: noqa")
        ''') == ["AG102"]


@pytest.mark.parametrize("select, ignore, left", [
    (["AG1"], [], ["AG101", "AG102"]),
    (["AG101"], [], ["AG101"]),
    ([], ["AG101"], ["AG102"]),
    (["ag1"], ["AG102"], ["AG101"]),
])
def test_select_and_ignore_take_codes_and_prefixes(select, ignore, left):
    rules = lint.select_rules(select, ignore)
    source = "import autograph.tf as tf\n" + SOURCE_WITH_TWO % ""
    assert sorted(f.code for f in lint.check_source(source, "m.py", rules)) == left


def test_an_unknown_code_is_refused():
    with pytest.raises(ValueError, match="AG999"):
        lint.select_rules(["AG999"])


def test_a_syntax_error_names_the_file_and_line():
    with pytest.raises(lint.UnreadableInputError, match=r"^m\.py:3:\d+: syntax error"):
        lint.check_source("x = 1\n\ndef f(:\n", "m.py")


def test_every_rule_has_a_code_name_summary_and_documentation():
    rules = lint.all_rules()
    assert len({r.code for r in rules}) == len(rules) >= 14
    for r in rules:
        assert r.code.startswith("AG") and len(r.code) == 5
        assert r.name and r.summary and len(r.doc) > 80


def test_python_callbacks_of_py_function_are_left_alone():
    assert codes('''
        external = []
        @tf.function
        def f(x):
            def side_effect(v):
                print("value", v)
                external.append(v.numpy())
                return v
            y = tf.py_function(side_effect, [x], tf.float32)
            return tf.numpy_function(lambda v: print(v) or v, [y], tf.float32)
        ''') == []


def test_print_of_a_module_constant_is_left_alone():
    assert codes('''
        EPOCHS = 3
        @tf.function
        def f(x):
            print("epochs", EPOCHS)
            return x
        ''') == []


def test_calls_of_a_same_named_function_elsewhere_are_not_its_calls():
    # Two tests that each define their own `f`: the calls of one are not the other's.
    assert codes('''
        def test_one():
            @tf.function
            def f(config, x):
                return x * config.factor
            return f

        def test_two():
            @tf.function
            def f(config, x):
                return x
            config = object()
            f(config, 1)
            config.factor = 10
            f(config, 1)
        ''') == []


def test_a_function_bound_to_a_name_in_a_function_is_found_by_that_name():
    assert codes('''
        def evaluate(model, x):
            return model.weight * x
        def run(model):
            evaluate_fn = tf.function(evaluate)
            evaluate_fn(model, 1.0)
            model.weight = 3.0
            evaluate_fn(model, 1.0)
        ''') == ["AG502"]


def test_alternative_bindings_count_once():
    assert codes('''
        try:
            import numba
            HAVE_NUMBA = True
        except ImportError:
            HAVE_NUMBA = False
        if HAVE_NUMBA:
            MODE = "fast"
        else:
            MODE = "slow"
        @tf.function
        def f(x):
            if HAVE_NUMBA and MODE == "fast":
                return x
            return -x
        ''') == []


def test_a_global_bound_in_a_module_loop_is_reassigned():
    assert codes('''
        @tf.function
        def f(x):
            return x * lr
        for lr in [0.1, 0.01]:
            f(1.0)
        ''') == ["AG501"]


def test_a_loop_over_a_static_shape_of_a_parameter_is_left_alone():
    assert codes('''
        @tf.function
        def f(x):
            for i in range(x.shape[0]):
                tf.print(x[i])
            for axis in range(x.ndim):
                x = tf.reduce_sum(x, axis=0)
            return x
        ''') == []


def test_bindings_before_the_function_exists_are_not_reassignments():
    assert codes('''
        SCALE = 1
        SCALE = 2
        @tf.function
        def f(x):
            return x * SCALE
        ''') == []


def test_a_function_made_anew_in_each_iteration_sees_that_iteration():
    assert codes('''
        for scale in (1, 2):
            def f(x):
                return x * scale
            g = tf.function(f)
            g(1.0)
        ''') == []


def test_a_def_in_a_loop_called_at_once_is_left_alone_and_one_stored_is_reported():
    assert codes('''
        @tf.function
        def f(x):
            steps = []
            for i in tf.range(3):
                def body(v):
                    return v + i
                x = body(x)
                def later(v):
                    return v * i
                steps.append(later)
            return x
        ''') == ["AG302"]


def test_match_statements_are_read():
    assert codes('''
        import sys
        match sys.platform:
            case "linux":
                MODE = 1
            case _:
                MODE = 2
        @tf.function
        def f(x, kind):
            match kind:
                case "a":
                    print("value", x)
            return x * MODE
        ''') == ["AG101"]


def test_tf_function_of_a_name_means_the_def_visible_there():
    # `tf.function(f)` in `second` converts its own `f`, not the one local to `first`.
    assert codes('''
        external = []
        def first():
            def f(x):
                external.append(x)
            return f
        def second():
            def f(x):
                return x
            return tf.function(f)
        ''') == []


def test_functions_called_from_a_function_are_checked_as_converted_too():
    assert codes('''
        import autograph
        log = []
        def report(value):
            print("value", value)
        def collect(into, value):
            into.append(value)
            log.append(value)
        def count(n):
            return 0 if n == 0 else 1 + count(n - 1)
        @autograph.do_not_convert
        def left_alone(value):
            print("value", value)
        @tf.function
        def f(x):
            values = []
            collect(values, x)
            report(x)
            left_alone(x)
            return x + count(3)
        ''') == ["AG101", "AG102"]


def test_a_helper_called_by_no_function_is_not_checked():
    assert codes('''
        log = []
        def report(value):
            print("value", value)
            log.append(value)
        report(1)
        ''') == []


def test_a_helper_called_only_from_a_py_function_callback_is_not_checked():
    assert codes('''
        log = []
        def side_effect(value):
            print("value", value)
            log.append(value)
            return value
        @tf.function
        def f(x):
            return tf.py_function(lambda v: side_effect(v), [x], tf.float32)
        ''') == []
