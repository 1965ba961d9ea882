"""Diagnostics on code that is right (none fires on it) and on the pitfalls
around it: random initial values of variables made once, and methods traced per instance."""

import warnings

import numpy as np
import pytest

import autograph
import autograph.tf as tf


class _Dense(tf.Module):
    """The guide's pattern: variables made on the first call, from random initial values."""

    def __init__(self):
        super().__init__()
        self.w = None

    @tf.function
    def __call__(self, x):
        if self.w is None:
            init = np.random.randn(3, 2).astype(np.float32)
            self.w = tf.Variable(init)
        return tf.matmul(x, self.w)


def test_a_random_initial_value_of_a_variable_made_once_does_not_warn():
    layer = _Dense()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        layer(tf.ones([1, 3]))
        layer(tf.ones([1, 3]))


def test_random_beyond_the_initializers_still_warns_once_at_its_line():
    class Noisy(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = None

        @tf.function
        def __call__(self, x):
            if self.w is None:
                self.w = tf.Variable(np.random.randn(2).astype(np.float32))
            return x * self.w + np.random.rand()  # frozen: the pitfall

    with pytest.warns(autograph.SideEffectWarning, match=r"numpy\.random\.rand\(\)") as seen:
        Noisy()(tf.ones([2]))
    frozen = [w for w in seen if issubclass(w.category, autograph.SideEffectWarning)]
    assert len(frozen) == 1
    assert frozen[0].filename == __file__
    assert "randn" not in str(frozen[0].message)


def _scaler_class():
    """A fresh class (each test its own method, so that no test sees another's traces)."""
    class _Scaler:
        @tf.function
        def scale(self, x):
            return x * 2.0
    return _Scaler


def test_a_method_remade_with_its_object_on_every_step_warns_once():
    scaler = _scaler_class()
    x = tf.ones([2])
    with pytest.warns(autograph.RetracingWarning,
                      match=r"scale \(defined at .*\) traced for 5 new instances of _Scaler "
                            r"in a row") as seen:
        for _ in range(8):
            scaler().scale(x)  # the pitfall: a new object, so a new trace, per step
    retracing = [w for w in seen if issubclass(w.category, autograph.RetracingWarning)]
    assert len(retracing) == 1
    assert retracing[0].filename == __file__
    assert "Fix: make the object once" in str(retracing[0].message)


def test_a_method_traced_for_another_instance_says_self_is_new():
    scaler = _scaler_class()
    first, second = scaler(), scaler()
    first.scale(tf.ones([2]))
    second.scale(tf.ones([2]))
    assert [e.reasons for e in first.scale.tracing_history()] == [("first trace",)]
    assert second.scale.tracing_history()[0].reasons == (
        "`self`: a new instance of _Scaler (each instance traces its own graphs)",)


def test_models_that_stay_alive_do_not_warn():
    scaler = _scaler_class()
    ensemble = [scaler() for _ in range(8)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2):
            for model in ensemble:
                model.scale(tf.ones([2]))


def test_models_that_serve_several_calls_each_do_not_warn():
    scaler = _scaler_class()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(8):  # a sweep: each model trains for a few steps, then goes
            model = scaler()
            for _ in range(3):
                model.scale(tf.ones([2]))
            del model


def test_a_frozen_random_value_of_a_function_without_variables_warns_at_its_line():
    import inspect

    @tf.function
    def noisy(x):
        return x + np.random.rand()

    line = inspect.getsourcelines(noisy.python_function)[1] + 2
    with pytest.warns(autograph.SideEffectWarning, match=r"numpy\.random\.rand\(\)") as seen:
        noisy(tf.ones([2]))
    assert [(w.filename, w.lineno) for w in seen] == [(__file__, line)]
    assert str(seen[0].message).startswith("%s:%d: " % (__file__, line))
