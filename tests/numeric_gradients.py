"""Central finite differences, the reference the gradient tests compare the tape with (numpy
only, so that runtime and compiler tests alike can use it)."""

import numpy as np


def numeric_gradients(scalar, arrays, eps=1e-6):
    """d scalar(*arrays) / d array, for each array, by central differences."""
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus = [b.copy() for b in arrays]
            minus = [b.copy() for b in arrays]
            plus[k][idx] += eps
            minus[k][idx] -= eps
            g[idx] = (scalar(*plus) - scalar(*minus)) / (2 * eps)
        grads.append(g)
    return grads
