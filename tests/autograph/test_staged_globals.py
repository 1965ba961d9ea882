"""A `global` (or `nonlocal`) name rebound under staged control flow is state like a local
that is read afterwards: the module keeps it after the function returns. It is staged, so
the function's results are Python's, and the module's variable holds the merged value (a
tensor of the trace, reported with a SideEffectWarning as any tensor stored into a global);
never one of the compiler's internal markers."""

import pytest

import autograph
import autograph.tf as tf
from runtime.operators.undefined import Undefined

total = 3


@pytest.fixture(autouse=True)
def reset_globals():
    global total
    total = 3
    yield
    total = 3


def add_when_positive(x):
    global total
    if x > 0:
        total = total + x
    return x


def test_global_rebound_under_a_tensor_if_never_holds_an_internal_marker():
    with pytest.warns(autograph.SideEffectWarning, match="tensor of the trace into `total`"):
        got = tf.function(add_when_positive)(tf.constant(1))
    assert got.numpy() == 1
    assert not isinstance(total, Undefined)
    assert isinstance(total, tf.Tensor)  # the merged value of the trace, as TF leaves it


def define_a_new_global(x):
    global never_defined_before
    if x > 0:
        never_defined_before = x
    return x


def test_global_without_a_value_before_a_tensor_if_is_refused_naming_it_and_the_line():
    with pytest.raises(NameError, match=r"'never_defined_before' \(a global.*has no value "
                                        r"before(.|\n)*test_staged_globals.py:\d+ in "
                                        r"define_a_new_global"):
        tf.function(define_a_new_global)(tf.constant(1))
    assert "never_defined_before" not in globals()
