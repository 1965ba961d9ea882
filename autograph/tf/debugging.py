"""`tf.debugging`: run-time checks."""

from runtime import context as _context
from runtime.ops import array_ops as _array
from runtime.ops import io_ops as _io
from runtime.ops import math_ops as _math
from runtime.ops import reduction_ops as _reduce

check_numerics = _io.check_numerics


def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """Makes ops created from now on raise InvalidArgumentError when they produce NaN or Inf."""
    _context._settings["check_numerics"] = True


def disable_check_numerics():
    """Stops checking new ops for NaN and Inf."""
    _context._settings["check_numerics"] = False


def assert_equal(x, y, message=None, summarize=None, name=None):
    """Raises InvalidArgumentError (when it runs) unless x == y everywhere."""
    x, y = _array.convert_to_tensor(x), _array.convert_to_tensor(y, dtype_hint=None)
    text = message or "Condition x == y did not hold"
    _io.assert_that(_reduce.reduce_all(_math.equal(x, y)), [x, y], text, name=name)
