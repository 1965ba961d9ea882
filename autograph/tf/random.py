"""`tf.random`: random numbers."""

from runtime.ops import random_ops as _random

uniform = _random.uniform
normal = _random.normal
truncated_normal = _random.truncated_normal
set_seed = _random.set_seed

# -- ops real code calls (issue 14) --
categorical = _random.categorical
shuffle = _random.shuffle
stateless_uniform = _random.stateless_uniform
stateless_normal = _random.stateless_normal
