"""`tf.nn`: neural-network ops."""

from runtime.ops import math_ops as _math
from runtime.ops import nn_random_ops as _nnr

relu = _math.relu
softmax = _nnr.softmax
log_softmax = _nnr.log_softmax
sigmoid = _math.sigmoid
tanh = _math.tanh
softplus = _math.softplus
