"""The `tf.debugging.assert_*` family: checks built from comparisons and the Assert op, so
that they run eagerly at once and in graphs whenever the graph runs (InvalidArgumentError
when a value check fails). Rank and dtype checks are static where TensorFlow's are: a known
rank or dtype that is wrong raises ValueError / TypeError when the check is written.
"""

import numpy as np

from runtime import dtypes, errors
from runtime import shape as shape_lib
from runtime.ops import array_ops, common, io_ops, math_ops, reduction_ops
from runtime.ops.common import binary_operands, convert_to_tensor


def _check(condition, data, message, default, name):
    io_ops.assert_that(reduction_ops.reduce_all(condition), data,
                       "%s%s" % (message + ": " if message else "", default), name=name)


def _comparison(symbol, compare):
    def check(x, y, message=None, summarize=None, name=None):
        x, y = binary_operands(x, y)
        try:
            condition = compare(x, y)
        except errors.InvalidArgumentError as e:
            raise TypeError("assert x %s y: %s" % (symbol, e)) from None
        _check(condition, [x, y], message, "Condition x %s y did not hold" % symbol, name)
    check.__doc__ = ("Raises InvalidArgumentError (when it runs) unless x %s y elementwise "
                     "(broadcast)." % symbol)
    return check


assert_equal = _comparison("==", math_ops.equal)
assert_none_equal = _comparison("!=", math_ops.not_equal)
assert_less = _comparison("<", math_ops.less)
assert_less_equal = _comparison("<=", math_ops.less_equal)
assert_greater = _comparison(">", math_ops.greater)
assert_greater_equal = _comparison(">=", math_ops.greater_equal)


def _against_zero(symbol, compare, what):
    def check(x, message=None, summarize=None, name=None):
        x = convert_to_tensor(x)
        zero = array_ops.zeros_like(x)
        _check(compare(x, zero), [x], message, "Condition x %s 0 did not hold (x must be %s)"
               % (symbol, what), name)
    check.__doc__ = "Raises InvalidArgumentError (when it runs) unless x %s 0 everywhere." % (
        symbol)
    return check


assert_positive = _against_zero(">", math_ops.greater, "positive")
assert_negative = _against_zero("<", math_ops.less, "negative")
assert_non_negative = _against_zero(">=", math_ops.greater_equal, "non-negative")
assert_non_positive = _against_zero("<=", math_ops.less_equal, "non-positive")


def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError (when it runs) unless |x - y| <= atol + rtol * |y|
    everywhere (float tolerances default to 10 * the dtype's machine epsilon)."""
    x, y = binary_operands(x, y)
    if not x.dtype.is_floating or y.dtype is not x.dtype:
        raise TypeError("assert_near needs float tensors of one dtype, got %s and %s"
                        % (x.dtype.name, y.dtype.name))
    eps = float(np.finfo(x.dtype.np_dtype).eps)
    rtol = convert_to_tensor(10 * eps if rtol is None else rtol, dtype_hint=x.dtype)
    atol = convert_to_tensor(10 * eps if atol is None else atol, dtype_hint=x.dtype)
    gap = math_ops.abs(math_ops.subtract(x, y))
    bound = math_ops.add(atol, math_ops.multiply(rtol, math_ops.abs(y)))
    _check(math_ops.less_equal(gap, bound), [x, y], message,
           "x and y not equal to tolerance rtol = %s, atol = %s"
           % (common.constant_value(rtol), common.constant_value(atol)), name)


def assert_all_finite(t, message, name=None):
    """Raises InvalidArgumentError (when it runs) if float tensor `t` holds NaN or Inf."""
    t = convert_to_tensor(t)
    io_ops.check_numerics(t, message, name=name)


def _rank_check(x, rank, message, name, at_least):
    x = convert_to_tensor(x)
    want = common.static_int_list(rank, "rank")
    if len(want) != 1:
        raise ValueError("rank must be a scalar, got %r" % (rank,))
    shape = x._shape_tuple()
    relation = "at least " if at_least else ""
    text = "%stensor must have rank %s%d" % (message + ": " if message else "", relation,
                                             want[0])
    if shape is not None:
        if len(shape) < want[0] if at_least else len(shape) != want[0]:
            raise ValueError("%s, got shape %s" % (text, shape_lib.to_string(shape)))
        return
    actual = array_ops.rank(x)
    compare = math_ops.greater_equal if at_least else math_ops.equal
    io_ops.assert_that(compare(actual, want[0]), [actual], text, name=name)


def assert_rank(x, rank, message=None, name=None):
    """ValueError if `x`'s known rank is not `rank` (a run-time check when unknown)."""
    _rank_check(x, rank, message, name, at_least=False)


def assert_rank_at_least(x, rank, message=None, name=None):
    """ValueError if `x`'s known rank is below `rank` (a run-time check when unknown)."""
    _rank_check(x, rank, message, name, at_least=True)


def assert_type(tensor, tf_type, message=None, name=None):
    """TypeError unless `tensor` has dtype `tf_type` (a static check)."""
    tensor = convert_to_tensor(tensor)
    want = dtypes.as_dtype(tf_type)
    if tensor.dtype is not want:
        raise TypeError("%s%s must be of type %s, got %s" % (
            message + ": " if message else "", getattr(tensor, "name", "tensor"), want.name,
            tensor.dtype.name))
