"""Checking numerics: the check_numerics op passes finite values through and raises
InvalidArgumentError on NaN or Inf, naming its message; the switch is public in
runtime.context (set_check_numerics / numerics_checked, enable_check_numerics /
disable_check_numerics): eager ops and Functions traced while it is on raise on NaN or Inf."""

import numpy as np
import pytest

from runtime import context, dtypes, errors
from runtime.function import Function, function
from runtime.ops import array_ops, io_ops, math_ops
from runtime.signature import TensorSpec


@pytest.fixture
def checking():
    context.set_check_numerics(True)
    try:
        yield
    finally:
        context.set_check_numerics(False)


def test_the_switch_is_off_by_default_and_reads_back():
    assert context.numerics_checked() is False
    context.set_check_numerics(1)
    try:
        assert context.numerics_checked() is True
    finally:
        context.set_check_numerics(False)


def test_eager_ops_raise_on_nan_while_checking(checking):
    with pytest.raises(errors.InvalidArgumentError, match="Log produced NaN"):
        math_ops.log(np.float32(-1.0))


def test_functions_traced_while_checking_raise_on_nan(checking):
    f = Function(lambda x: math_ops.log(x), input_signature=[TensorSpec([], dtypes.float32)],
                 autograph=False)
    with pytest.raises(errors.InvalidArgumentError):
        f(np.float32(-1.0))


def test_check_numerics():
    t = array_ops.constant([1.0, 2.0])
    np.testing.assert_array_equal(io_ops.check_numerics(t, "fine").numpy(), [1.0, 2.0])
    with pytest.raises(errors.InvalidArgumentError, match="bad values.*NaN"):
        io_ops.check_numerics(array_ops.constant([np.nan]), "bad values")
    with pytest.raises(errors.InvalidArgumentError, match="Inf"):
        io_ops.check_numerics(array_ops.constant([np.inf]), "bad values")


def test_enable_check_numerics_catches_nan_in_traced_functions():
    @function
    def f(x):
        return math_ops.log(x)

    context.enable_check_numerics()
    try:
        with pytest.raises(errors.InvalidArgumentError, match="NaN"):
            f(array_ops.constant(-1.0))
    finally:
        context.disable_check_numerics()
    unchecked = function(lambda x: math_ops.log(x), autograph=False)
    assert np.isnan(unchecked(array_ops.constant(-1.0)).numpy())


def test_enable_check_numerics_catches_nan_in_eager_ops():
    context.enable_check_numerics()
    try:
        with pytest.raises(errors.InvalidArgumentError):
            math_ops.log(array_ops.constant(-1.0))
    finally:
        context.disable_check_numerics()
