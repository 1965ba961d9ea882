"""`tf.math`: elementwise and reduction math."""

from runtime.ops import cumulative_ops as _cumulative
from runtime.ops import math_ops as _math
from runtime.ops import nn_ops as _nn
from runtime.ops import norm_ops as _norm
from runtime.ops import reduction_ops as _reduce
from runtime.ops import segment_ops as _segment
from runtime.ops import sort_ops as _sort

add = _math.add
subtract = _math.subtract
multiply = _math.multiply
divide = _math.divide
truediv = _math.truediv
floordiv = _math.floordiv
floormod = _math.floormod
mod = _math.mod
pow = _math.pow  # noqa: A001 - TensorFlow's name
negative = _math.negative
abs = _math.abs  # noqa: A001
real = _math.real
imag = _math.imag
conj = _math.conj
angle = _math.angle
sign = _math.sign
square = _math.square
sqrt = _math.sqrt
rsqrt = _math.rsqrt
exp = _math.exp
expm1 = _math.expm1
log = _math.log
log1p = _math.log1p
tanh = _math.tanh
sigmoid = _math.sigmoid
softplus = _math.softplus
sin = _math.sin
cos = _math.cos
tan = _math.tan
sinh = _math.sinh
cosh = _math.cosh
floor = _math.floor
ceil = _math.ceil
round = _math.round  # noqa: A001
reciprocal = _math.reciprocal
maximum = _math.maximum
minimum = _math.minimum
squared_difference = _math.squared_difference
is_nan = _math.is_nan
is_inf = _math.is_inf
is_finite = _math.is_finite
reduce_sum = _reduce.reduce_sum
reduce_mean = _reduce.reduce_mean
reduce_max = _reduce.reduce_max
reduce_min = _reduce.reduce_min
reduce_prod = _reduce.reduce_prod
reduce_any = _reduce.reduce_any
reduce_all = _reduce.reduce_all
equal = _math.equal
not_equal = _math.not_equal
less = _math.less
less_equal = _math.less_equal
greater = _math.greater
greater_equal = _math.greater_equal
logical_and = _math.logical_and
logical_or = _math.logical_or
logical_not = _math.logical_not
logical_xor = _math.logical_xor
argmax = _reduce.argmax
argmin = _reduce.argmin
add_n = _math.add_n
cumsum = _cumulative.cumsum
softmax = _nn.softmax
log_softmax = _nn.log_softmax

# -- ops real code calls (issue 14) --
cumprod = _cumulative.cumprod
segment_sum = _segment.segment_sum
unsorted_segment_sum = _segment.unsorted_segment_sum
segment_prod = _segment.segment_prod
segment_min = _segment.segment_min
segment_max = _segment.segment_max
segment_mean = _segment.segment_mean
unsorted_segment_prod = _segment.unsorted_segment_prod
unsorted_segment_min = _segment.unsorted_segment_min
unsorted_segment_max = _segment.unsorted_segment_max
unsorted_segment_mean = _segment.unsorted_segment_mean
unsorted_segment_sqrt_n = _segment.unsorted_segment_sqrt_n
reduce_euclidean_norm = _norm.reduce_euclidean_norm
reduce_logsumexp = _norm.reduce_logsumexp
reduce_variance = _norm.reduce_variance
reduce_std = _norm.reduce_std
l2_normalize = _norm.l2_normalize
count_nonzero = _reduce.count_nonzero
softsign = _nn.softsign
top_k = _sort.top_k
erf = _nn.erf
erfc = _nn.erfc
