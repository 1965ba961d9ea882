"""Dataset elements as plain Python values (lists, numbers, dicts, tuples and namedtuples), so
that dataset tests can compare them with `==` (runtime only, for runtime and compiler tests)."""

import numpy as np

from runtime.tensor import EagerTensor


def as_python(value):
    """A numpy array or scalar as a list or Python number; anything else as it is."""
    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist()
    return value


def element_value(element):
    """A dataset element (eager tensors in dicts, tuples and namedtuples) as Python values."""
    if isinstance(element, dict):
        return {k: element_value(v) for k, v in element.items()}
    if isinstance(element, tuple):
        items = [element_value(v) for v in element]
        return type(element)(*items) if hasattr(type(element), "_fields") else tuple(items)
    assert isinstance(element, EagerTensor)
    return as_python(element.numpy())


def eager(ds):
    """The elements of `ds`, iterated eagerly, as Python values."""
    return [element_value(e) for e in ds]
