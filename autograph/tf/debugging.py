"""`tf.debugging`: run-time checks."""

from runtime import context as _context
from runtime.ops import check_ops as _check
from runtime.ops import io_ops as _io

check_numerics = _io.check_numerics
enable_check_numerics = _context.enable_check_numerics
disable_check_numerics = _context.disable_check_numerics

assert_equal = _check.assert_equal
assert_none_equal = _check.assert_none_equal
assert_less = _check.assert_less
assert_less_equal = _check.assert_less_equal
assert_greater = _check.assert_greater
assert_greater_equal = _check.assert_greater_equal
assert_positive = _check.assert_positive
assert_negative = _check.assert_negative
assert_non_negative = _check.assert_non_negative
assert_non_positive = _check.assert_non_positive
assert_near = _check.assert_near
assert_all_finite = _check.assert_all_finite
assert_rank = _check.assert_rank
assert_rank_at_least = _check.assert_rank_at_least
assert_type = _check.assert_type
assert_shapes = _check.assert_shapes
