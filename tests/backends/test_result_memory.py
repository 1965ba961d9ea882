"""A Function's results are memory of their own on every backend: none shares a graph
constant, a captured tensor or a variable's storage (writing into `result.numpy()` changes
nothing else), while freshly computed results are not copied again and an argument
returned unchanged stays the caller's array."""

import importlib.util
import inspect

import numpy as np
import pytest

import autograph
import autograph.tf as tf


def _backend(name):
    missing = importlib.util.find_spec(name) is None
    return pytest.param(name, marks=pytest.mark.skipif(missing, reason=name + " missing"))


BACKENDS = ["numpy", _backend("numba"), _backend("jax")]


def _branch(c, v):
    def choose(x):
        if x > 0:
            y = tf.constant(c)
        else:
            y = v.read_value()
        return y
    return choose, (tf.constant(1.0),)


def _loop_without_iterations(c, v):
    def loop(n):
        y = tf.constant(c)
        for _ in tf.range(n):
            y = y + 1.0
        return y
    return loop, (tf.constant(0),)


def _tensor_array(c, v):
    def through_array():
        array = tf.TensorArray(tf.float32, size=1).write(0, v.read_value())
        return array.read(0)
    return through_array, ()


def _captured(c, v):
    captured = tf.constant(c)  # an eager tensor holding the array c
    return (lambda: captured), ()


# name -> make(c, v, backend) -> (python function, arguments)
ROUTES = {
    "constant": lambda c, v, b: ((lambda: tf.constant(c)), ()),
    "captured tensor": lambda c, v, b: _captured(c, v),
    "folded constant": lambda c, v, b: ((lambda: tf.constant(c) * 2.0), ()),
    "variable read": lambda c, v, b: ((lambda: v.read_value()), ()),
    "identity": lambda c, v, b: ((lambda: tf.identity(v)), ()),
    "reshape": lambda c, v, b: ((lambda: tf.reshape(v, [2, 1])), ()),
    "slice": lambda c, v, b: ((lambda: v[0:1]), ()),
    "transpose": lambda c, v, b: ((lambda: tf.transpose(tf.reshape(v, [1, 2]))), ()),
    "expand and squeeze": lambda c, v, b: ((lambda: tf.squeeze(tf.expand_dims(v, 0))), ()),
    "reverse": lambda c, v, b: ((lambda: tf.reverse(v, [0])), ()),
    "assign": lambda c, v, b: ((lambda: v.assign(tf.constant(c))), ()),
    "assign_add": lambda c, v, b: ((lambda: v.assign_add(tf.zeros([2]))), ()),
    "nested outputs": lambda c, v, b: ((lambda: {
        "a": [tf.constant(c), v.read_value()], "b": (tf.reshape(v, [2, 1]), v * 2.0)}), ()),
    "branch": lambda c, v, b: _branch(c, v),
    "loop without iterations": lambda c, v, b: _loop_without_iterations(c, v),
    "called function": lambda c, v, b: (
        (lambda inner: lambda: inner())(autograph.function(lambda: v.read_value(),
                                                           backend=b, strict=True)), ()),
    "tensor array": lambda c, v, b: _tensor_array(c, v),
}


def _arrays(result):
    return [np.asarray(t) for t in tf.nest.flatten(result)]


@pytest.mark.parametrize("route", sorted(ROUTES))
@pytest.mark.parametrize("backend", BACKENDS)
def test_results_share_no_memory_with_constants_captures_or_variables(backend, route):
    c = np.array([1.0, 2.0], np.float32)
    v = tf.Variable([1.0, 2.0])
    python_function, args = ROUTES[route](c, v, backend)
    function = autograph.function(python_function, backend=backend, strict=True)
    first = _arrays(function(*args))
    assert function.get_concrete_function(*args).backend == backend
    expected = [a.copy() for a in first]  # (every route gives the same values on each call)
    for array in first:
        if array.flags.writeable:  # (JAX's results are read-only copies of device memory)
            for state in (c, v._value):
                assert not np.shares_memory(array, state)
            array[(0,) * array.ndim] = 99
    for array, value in zip(_arrays(function(*args)), expected):
        np.testing.assert_array_equal(array, value)
    assert c.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("backend", ["numpy", _backend("numba")])
def test_fresh_results_are_not_copied_and_state_is_copied_once(backend):
    v = tf.Variable([1.0, 2.0])
    x = tf.constant([3.0, 4.0])

    def source(python_function):
        cf = autograph.function(python_function, backend=backend,
                                strict=True).get_concrete_function(x)
        if backend == "numpy":
            return cf.executor_source
        return inspect.getsource(cf._compiled.run)  # the call that wraps the kernel

    copy = "owned" if backend == "numpy" else ".copy()"
    assert copy not in source(lambda x: x * 2.0 + v)
    assert source(lambda x: (x * 2.0, v.read_value())).count(copy) == 1


@pytest.mark.parametrize("backend", ["numpy", _backend("numba")])
def test_an_argument_returned_unchanged_stays_the_callers_array(backend):
    x = tf.constant([3.0, 4.0])
    function = autograph.function(lambda x: x, backend=backend, strict=True)
    assert np.shares_memory(np.asarray(function(x)), np.asarray(x))  # as in TensorFlow
