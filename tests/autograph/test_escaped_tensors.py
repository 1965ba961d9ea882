"""Symbolic tensors that escape a trace through a Python side effect of converted code (moved
from tests/runtime: they need the compiler)."""

import numpy as np
import pytest

import autograph.tf as tf
from runtime.tensor import SymbolicTensor


def _symbolic(dtype=tf.int32, shape=()):
    """The placeholder for argument `a` of a finished trace (it escaped, so it has no value)."""
    seen = []

    def keep(a):
        seen.append(a)
        return a

    with pytest.warns(tf.autograph.SideEffectWarning, match="tensor of the trace"):
        tf.function(keep).get_concrete_function(tf.TensorSpec(shape, dtype))
    return seen[0]


def test_symbolic_tensor_str_and_repr():
    a = _symbolic(tf.int32, ())
    assert isinstance(a, SymbolicTensor)
    assert str(a) == 'Tensor("a:0", shape=(), dtype=int32)'
    assert repr(a) == "<tf.Tensor 'a:0' shape=() dtype=int32>"
    a = _symbolic(tf.float32, (None, 3))
    assert str(a) == 'Tensor("a:0", shape=(None, 3), dtype=float32)'


def test_escaped_symbolic_tensor_has_no_numpy_as_tensorflow_says_with_the_why_in_a_note():
    a = _symbolic()
    with pytest.raises(AttributeError) as info:
        a.numpy()
    assert str(info.value) == "'SymbolicTensor' object has no attribute 'numpy'"
    assert "'a:0' has no value: it belongs to a traced graph" in info.value.__notes__[0]


def test_escaped_symbolic_tensor_cannot_become_a_numpy_array():
    with pytest.raises(TypeError):
        np.asarray(_symbolic())


def test_escaped_symbolic_tensor_fed_to_an_eager_op_raises_type_error():
    with pytest.raises(TypeError, match="symbolic"):
        tf.add(_symbolic(), 1)
