"""`tf.random`: random numbers."""

from runtime.ops import nn_random_ops as _nnr

uniform = _nnr.uniform
normal = _nnr.normal
set_seed = _nnr.set_seed
