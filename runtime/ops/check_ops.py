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
from runtime.tensor import Tensor


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


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Checks that tensors have the shapes described, with named dimensions shared.

    `shapes` is a list of (tensor, shape) pairs or a dict; each shape a list of dimensions:
    an int (that size), a str (a name: every dimension so named has one size), or None
    (any size); a leading '...' stands for any number of leading dimensions. What is known
    when the check is written is checked at once (ValueError); dimensions known only at run
    time are checked when the graph runs (InvalidArgumentError)."""
    pairs = list(shapes.items()) if isinstance(shapes, dict) else list(shapes)
    prefix = message + ": " if message else ""
    sizes = {}  # name -> (int or run-time scalar tensor, where it was bound)
    for position, (value, spec) in enumerate(pairs):
        tensor = convert_to_tensor(value)
        what = "tensor %d (%s)" % (position, getattr(tensor, "name", "eager tensor"))
        dims = _shape_entries(spec, what)
        open_ended = bool(dims) and dims[0] == "..."
        dims = dims[1:] if open_ended else dims
        shape = tensor._shape_tuple()
        if shape is None:
            _runtime_rank_check(tensor, len(dims), open_ended, prefix + what, name)
            actual = array_ops.shape(tensor)
            offset = None
        else:
            if len(shape) < len(dims) if open_ended else len(shape) != len(dims):
                raise ValueError("%s%s has shape %s, which does not have %s%d dimensions "
                                 "(%s)" % (prefix, what, shape_lib.to_string(shape),
                                           "at least " if open_ended else "", len(dims),
                                           _describe(spec)))
            actual, offset = None, len(shape) - len(dims)
        for index, dim in enumerate(dims):
            if dim is None:
                continue
            size = None if offset is None else shape[offset + index]
            if size is None:  # known only at run time
                size = (actual if actual is not None else array_ops.shape(tensor))[
                    index - len(dims)]
            label = "%s dimension %d" % (what, index - len(dims))
            if isinstance(dim, str):
                if dim not in sizes:
                    sizes[dim] = (size, label)
                    continue
                want, bound_at = sizes[dim]
                reason = "must equal %s ('%s')" % (bound_at, dim)
            else:
                want, reason = dim, "must be %d" % dim
            _require_size(size, want, "%s%s %s" % (prefix, label, reason), name)


def _shape_entries(spec, what):
    if isinstance(spec, shape_lib.TensorShape):
        spec = spec.as_list()
    if not isinstance(spec, (list, tuple)):
        raise TypeError("assert_shapes: the shape of %s must be a list or tuple of ints, "
                        "names and None, got %r" % (what, spec))
    for k, dim in enumerate(spec):
        if dim == "..." and k != 0:
            raise ValueError("assert_shapes: '...' may only lead a shape, got %r for %s"
                             % (spec, what))
        if not (dim is None or isinstance(dim, (str, int, np.integer))) or isinstance(dim, bool):
            raise TypeError("assert_shapes: dimension %r of %s is not an int, a name or None"
                            % (dim, what))
    return [int(d) if isinstance(d, (int, np.integer)) else d for d in spec]


def _describe(spec):
    return "(%s)" % ", ".join("?" if d is None else str(d) for d in spec) if isinstance(
        spec, (list, tuple)) else str(spec)


def _runtime_rank_check(tensor, count, open_ended, what, name):
    rank = array_ops.rank(tensor)
    compare = math_ops.greater_equal if open_ended else math_ops.equal
    io_ops.assert_that(compare(rank, count), [rank], "%s must have rank %s%d" % (
        what, "at least " if open_ended else "", count), name=name)


def _require_size(size, want, text, name):
    """ValueError now when both sizes are known; else a run-time check."""
    if not isinstance(size, Tensor) and not isinstance(want, Tensor):
        if int(size) != int(want):
            raise ValueError("%s, got %d (expected %d)" % (text, int(size), int(want)))
        return
    io_ops.assert_that(math_ops.equal(size, want), [size], text, name=name)
