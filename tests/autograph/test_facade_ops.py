"""The facade provides the documented names; op errors raised while tracing converted code
name the user's line."""

import functools

import pytest

import autograph.tf as tf

DOCUMENTED = ("function constant ones zeros ones_like zeros_like fill range cast shape size rank "
              "reshape transpose concat stack gather where matmul tanh exp sqrt abs square "
              "maximum minimum reduce_sum reduce_mean reduce_max reduce_min reduce_prod "
              "reduce_any reduce_all equal less greater logical_and logical_or logical_not "
              "argmax random.uniform random.normal nn.relu nn.softmax print py_function cond "
              "while_loop Variable Module TensorSpec dtypes.int32 "
              "dtypes.int64 dtypes.float32 dtypes.float64 dtypes.bool dtypes.string "
              "config.run_functions_eagerly errors.InvalidArgumentError "
              "errors.FailedPreconditionError errors.OperatorNotAllowedInGraphError "
              "errors.InaccessibleTensorError autograph.to_code "
              "autograph.experimental.do_not_convert debugging.enable_check_numerics "
              "debugging.assert_equal TensorArray GradientTape data.Dataset "
              "errors.UndefinedValueError math.sinh math.cosh").split()


@pytest.mark.parametrize("autograph", [False, True], ids=["as written", "converted"])
def test_trace_time_error_names_the_user_line(autograph):
    def bad(a, b):
        return tf.matmul(a, b)  # the traced line

    with pytest.raises(ValueError) as info:
        tf.function(bad, autograph=autograph)(tf.ones([2, 3]), tf.ones([2, 3]))
    assert "test_facade_ops.py" in str(info.value)
    assert "the traced line" in str(info.value)


@pytest.mark.parametrize("name", DOCUMENTED)
def test_facade_provides_documented_name(name):
    functools.reduce(getattr, name.split("."), tf)
