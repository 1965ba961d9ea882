"""`autograph check` AG302 judges a lambda bound to a name by the uses of that name, as it
judges a nested def: called in the same iteration it sees the current value."""

import textwrap

from autograph import lint


def codes(source):
    source = "import autograph.tf as tf\n" + textwrap.dedent(source)
    return sorted(f.code for f in lint.check_source(source, "m.py"))


def test_a_named_lambda_called_in_its_iteration_is_left_alone():
    assert codes('''
        @tf.function
        def f(x):
            ys = []
            for i in range(3):
                scale = lambda t: t * i
                ys.append(scale(x))
            return ys
        ''') == []


def test_a_named_lambda_stored_for_later_is_reported():
    assert codes('''
        @tf.function
        def f(x):
            kept = []
            for i in range(3):
                scale = lambda t: t * i
                kept.append(scale)
            return [g(x) for g in kept]
        ''') == ["AG302"]
