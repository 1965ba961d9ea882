"""`tf.linalg`: linear algebra."""

from runtime.ops import linalg_ops as _linalg

matmul = _linalg.matmul
