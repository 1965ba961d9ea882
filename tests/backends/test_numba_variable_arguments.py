"""Variables passed as arguments to a function compiled by numba: each is read and assigned
through its own buffer, passed at each call (variables of the same dtype and shape share a
trace), and the values, the variables' values after the call and the errors are the numpy
executor's."""

import numpy as np
import pytest

import autograph.tf as tf

numba = pytest.importorskip("numba")


def _function(f, backend):
    options = {"strict": True} if backend == "numba" else {}
    return tf.function(f, backend=backend, **options)


def _scale_in_a_loop(v, count, c):
    before = v.read_value()
    v.assign_add(before * c)
    count.assign(count + 1)
    i = tf.constant(0)
    while i < 3:
        v.assign(v * 0.5)
        i += 1
    return before + v


def _calls(backend):
    """Two variables of one trace called in turn; the results and the variables' values."""
    f = _function(_scale_in_a_loop, backend)
    first, second = tf.Variable([1.0, 2.0, 3.0]), tf.Variable([-4.0, 0.5, 7.25])
    count = tf.Variable(5)
    results = [f(v, count, tf.constant(2.0)).numpy() for v in (first, second, first)]
    if backend == "numba":
        assert f.get_concrete_function(first, count, tf.constant(2.0)).backend == "numba"
    return results + [first.numpy(), second.numpy(), count.numpy()]


def test_variables_passed_in_turn_are_read_and_assigned_as_on_the_executor():
    for expected, got in zip(_calls("numpy"), _calls("numba")):
        assert np.asarray(expected).dtype == np.asarray(got).dtype
        np.testing.assert_array_equal(expected, got)


def _both_names(v, w, c):
    v.assign_add(c * w)  # v and w may be one variable: w then reads the assignment
    return w.read_value()


def test_one_variable_passed_twice_or_also_captured_is_one_buffer():
    captured = tf.Variable([10.0, 20.0])

    def with_capture(v, c):
        v.assign(v * c)
        return captured + v

    for f, make in ((_both_names, lambda x: (x, x, tf.constant(3.0))),
                    (with_capture, lambda x: (x, tf.constant(3.0)))):
        results = []
        for backend in ("numpy", "numba"):
            x = captured if f is with_capture else tf.Variable([1.0, 2.0])
            if f is with_capture:
                x.assign([10.0, 20.0])
            results.append((_function(f, backend)(*make(x)).numpy(), x.numpy()))
        for expected, got in zip(*results):
            np.testing.assert_array_equal(expected, got)


def test_an_assignment_before_a_failed_check_stays_as_on_the_executor():
    def f(v, i):
        v.assign_add(tf.ones([3]))
        return tf.gather(v.read_value(), i)

    for backend in ("numpy", "numba"):
        v = tf.Variable([1.0, 2.0, 3.0])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"indices\[1\] = 5 is not in \[0, 3\)"):
            _function(f, backend)(v, tf.constant([0, 5]))
        np.testing.assert_array_equal(v.numpy(), [2.0, 3.0, 4.0])
