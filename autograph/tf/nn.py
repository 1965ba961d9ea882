"""`tf.nn`: neural-network ops."""

from runtime.ops import conv_ops as _conv
from runtime.ops import math_ops as _math
from runtime.ops import nn_ops as _nn
from runtime.ops import norm_ops as _norm
from runtime.ops import selection_ops as _select
from runtime.ops import sort_ops as _sort

relu = _math.relu
softmax = _nn.softmax
log_softmax = _nn.log_softmax
sigmoid = _math.sigmoid
tanh = _math.tanh
softplus = _math.softplus
embedding_lookup = _select.embedding_lookup

# -- ops real code calls (issue 14) --
relu6 = _nn.relu6
leaky_relu = _nn.leaky_relu
elu = _nn.elu
gelu = _nn.gelu
silu = _nn.silu
selu = _nn.selu
softsign = _nn.softsign
bias_add = _nn.bias_add
l2_normalize = _norm.l2_normalize
swish = _nn.silu
l2_loss = _nn.l2_loss
dropout = _nn.dropout
moments = _nn.moments
softmax_cross_entropy_with_logits = _nn.softmax_cross_entropy_with_logits
sparse_softmax_cross_entropy_with_logits = _nn.sparse_softmax_cross_entropy_with_logits
sigmoid_cross_entropy_with_logits = _nn.sigmoid_cross_entropy_with_logits
conv1d = _conv.conv1d
conv2d = _conv.conv2d
max_pool2d = _conv.max_pool2d
avg_pool2d = _conv.avg_pool2d
top_k = _sort.top_k
