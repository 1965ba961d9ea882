"""`tf.keras.utils`: seeding."""

import random as _pyrandom

import numpy as _np

from autograph.tf.keras import initializers as _initializers
from runtime.ops import random_ops as _random_ops


def set_random_seed(seed):
    """Seed every generator Keras draws from: Python's, numpy's, tf.random's and the one
    unseeded initializers use, so that a program builds the same weights on every run."""
    if not isinstance(seed, int):
        raise ValueError("Expected `seed` argument to be an integer. Received: seed=%r"
                         % (seed,))
    _pyrandom.seed(seed)
    _np.random.seed(seed)
    _random_ops.set_seed(seed)
    _initializers._set_seed(seed)
