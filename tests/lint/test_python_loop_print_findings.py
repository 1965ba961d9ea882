"""`autograph check` AG101 leaves alone prints of the variables of loops over Python data
(constant ranges, literal lists and dicts): the compiler keeps those loops as Python, so
the values printed are Python values. Loops over parameters or tensors still count."""

import textwrap

import pytest

from autograph import lint


def codes(source):
    source = "import autograph.tf as tf\nSIZE = 2\n" + textwrap.dedent(source)
    return sorted(f.code for f in lint.check_source(source, "m.py"))


@pytest.mark.parametrize("loop", ["for step in range(3):", "for step in [1, 2]:",
                                  "for step, size in enumerate([4, 5]):",
                                  "for step, size in {'a': 1}.items():",
                                  "for step in range(len(x.shape)):",
                                  "for step in range(SIZE):"])
def test_print_of_a_python_loop_variable_is_left_alone(loop):
    assert codes('''
        @tf.function
        def f(x):
            %s
                print("unrolled step", step)
                x = x + 1
            return x
        ''' % loop) == []


@pytest.mark.parametrize("loop", ["for step in range(n):", "for step in x:",
                                  "for step in range(len(x)):",
                                  "for step in [x, n]:", "for step in tf.range(3):"])
def test_print_of_a_loop_variable_that_may_be_a_tensor_is_reported(loop):
    assert codes('''
        @tf.function
        def f(x, n):
            %s
                print("step", step)
            return x
        ''' % loop).count("AG101") == 1


def test_a_name_also_bound_otherwise_may_still_be_a_tensor():
    assert codes('''
        @tf.function
        def f(x):
            for step in range(3):
                pass
            step = x * 2
            print("step", step)
            return x
        ''') == ["AG101"]
