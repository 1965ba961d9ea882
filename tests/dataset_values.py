"""Dataset elements as plain Python values (lists, numbers, dicts, tuples and namedtuples), so
that dataset tests can compare them with `==` (runtime only, for runtime and compiler tests)."""

import numpy as np

from runtime import nest
from runtime.function import function
from runtime.operators import loops
from runtime.ops import py_function_ops
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


def in_graph(ds):
    """The elements of `ds` from a staged `for x in ds` loop (what converted code runs: one
    While op) in a traced Function, as Python values."""
    flat_seen = []

    def record(*values):
        flat_seen.append([as_python(v.numpy()) for v in values])

    @function
    def run(dataset):
        # What converted code runs for `for element in dataset: <record it>`: one While op.
        loops.for_stmt(dataset, None,
                       lambda element: py_function_ops.py_function(record, nest.flatten(element),
                                                          Tout=None))

    run(ds)
    spec = ds.element_spec
    if not nest.is_nested(spec):
        return [values[0] for values in flat_seen]
    return [nest.pack_sequence_as(spec, values) for values in flat_seen]


def both(ds):
    """The elements, checked to be the same eagerly and in a graph."""
    values = eager(ds)
    assert in_graph(ds) == values
    return values
