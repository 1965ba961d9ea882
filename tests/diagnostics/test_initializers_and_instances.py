"""Diagnostics on code that is right (issue 12's rule: none fires on it) and on the pitfalls
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
