"""`tf.random`: random numbers."""

from runtime.ops import nn_random_ops as _nnr
from runtime.ops import random_ops as _random

uniform = _nnr.uniform
normal = _nnr.normal
truncated_normal = _nnr.truncated_normal
set_seed = _nnr.set_seed

# -- ops real code calls (issue 14) --
categorical = _random.categorical
shuffle = _random.shuffle
stateless_uniform = _random.stateless_uniform
stateless_normal = _random.stateless_normal
