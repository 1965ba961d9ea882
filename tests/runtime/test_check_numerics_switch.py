"""The check-numerics switch is public in runtime.context (set_check_numerics /
numerics_checked): eager ops and Functions traced while it is on raise on NaN or Inf."""

import numpy as np
import pytest

from runtime import context, dtypes, errors
from runtime.function import Function
from runtime.ops import math_ops
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
