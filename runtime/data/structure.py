"""Element structures of datasets, and helpers shared by the dataset classes.

An element is a nested structure of tensors: tuples (and namedtuples) and dicts nest; a
Python list is a tensor, as in TensorFlow (`from_tensor_slices([1, 2, 3])` has three scalar
elements), and a list returned by a mapped function becomes a tuple. At run time an element
travels flat: a tuple of numpy values, one per leaf of `element_spec` in `runtime.nest`
order (dict keys sorted).
"""

import numpy as np

from runtime import dtypes, nest
from runtime import shape as shape_lib
from runtime.composite.base import CompositeTensor
from runtime.composite.ragged import RaggedTensorSpec
from runtime.composite.sparse import SparseTensor, SparseTensorSpec
from runtime.ops import common
from runtime.signature import TensorSpec
from runtime.tensor import Tensor


def path_text(path):
    """How error messages name a leaf: "[0]['a']", or "the value" for the whole."""
    return "".join("[%r]" % p for p in path) or "the value"


def map_input(value, leaf, path=()):
    """Rebuilds a user-given structure (tuples, namedtuples, dicts; lists are leaves) with
    `leaf(value, path)` applied to each leaf."""
    if isinstance(value, dict):
        rebuilt = {k: map_input(value[k], leaf, path + (k,)) for k in value}
        return rebuilt if type(value) is dict else type(value)(rebuilt)
    if isinstance(value, tuple):
        items = [map_input(v, leaf, path + (i,)) for i, v in enumerate(value)]
        return type(value)(*items) if hasattr(type(value), "_fields") else tuple(items)
    return leaf(value, path)


def leaf_paths(value, path=()):
    """The path of every leaf of a user-given structure, in `runtime.nest` order."""
    if isinstance(value, dict):
        keys = sorted(value) if is_sortable(value) else sorted(value, key=repr)
        return [p for k in keys for p in leaf_paths(value[k], path + (k,))]
    if isinstance(value, tuple):
        return [p for i, v in enumerate(value) for p in leaf_paths(v, path + (i,))]
    return [path]


def is_sortable(d):
    """True when the dict's keys sort (else `runtime.nest` orders them by repr)."""
    try:
        sorted(d)
        return True
    except TypeError:
        return False


def lists_to_tuples(value):
    """A mapped function's result with its lists turned into tuples, as TensorFlow does."""
    if isinstance(value, list):
        return tuple(lists_to_tuples(v) for v in value)
    if isinstance(value, tuple) and not hasattr(type(value), "_fields"):
        return tuple(lists_to_tuples(v) for v in value)
    if isinstance(value, dict) and type(value) is dict:
        return {k: lists_to_tuples(v) for k, v in value.items()}
    return value


def spec_of(tensor):
    """The spec of an element's leaf: the TensorSpec (shape, dtype) of a tensor, the
    SparseTensorSpec of a SparseTensor (its static dense shape), the spec of another
    composite (a RaggedTensor) built from its components' specs."""
    if isinstance(tensor, SparseTensor):
        return SparseTensorSpec(tensor._static_shape, tensor.dtype)
    if isinstance(tensor, CompositeTensor):
        return tensor._spec_from_components([spec_of(c) for c in tensor._to_components()])
    return TensorSpec(tensor._shape_tuple(), tensor.dtype)


def relaxed_spec(a, b):
    """The element spec of the same structure as `a` and `b` whose leaves (TensorSpecs,
    SparseTensorSpecs) hold the shapes of both: dimensions that differ become None."""
    relaxed = {}
    for path, x, y in zip(leaf_paths(a), leaves_of(a), leaves_of(b)):
        kind = SparseTensorSpec if isinstance(x, SparseTensorSpec) else TensorSpec
        relaxed[path] = kind(shape_lib.relax(x._shape, y._shape), x.dtype)
    return map_input(a, lambda v, p: relaxed[p])


def sparse_columns(element_spec):
    """The flat positions at which a SparseTensor's three components start."""
    starts, position = set(), 0
    for leaf in leaves_of(element_spec):
        if isinstance(leaf, SparseTensorSpec):
            starts.add(position)
        position += len(nest.flatten(leaf))
    return frozenset(starts)


def ragged_columns(element_spec):
    """{flat position where a RaggedTensor leaf's arrays start: its ragged rank}."""
    starts, position = {}, 0
    for leaf in leaves_of(element_spec):
        if isinstance(leaf, RaggedTensorSpec):
            starts[position] = leaf.ragged_rank
        position += len(nest.flatten(leaf))
    return starts


def leaves_of(structure):
    """The leaves of a structure rebuilt by `map_input` (tensors, SparseTensors), in
    `runtime.nest` order."""
    found = []
    map_input(structure, lambda v, p: found.append(v))
    order = {path: k for k, path in enumerate(_map_order(structure))}
    return [found[order[path]] for path in leaf_paths(structure)]


def _map_order(value, path=()):
    """The leaf paths in the order `map_input` visits them."""
    if isinstance(value, dict):
        return [p for k in value for p in _map_order(value[k], path + (k,))]
    if isinstance(value, tuple):
        return [p for i, v in enumerate(value) for p in _map_order(v, path + (i,))]
    return [path]


def flat_specs(element_spec):
    """The (dtype, shape) of each leaf of an element spec, flat."""
    return [(s.dtype, s._shape) for s in nest.flatten(element_spec)]


def pack(element_spec, flat):
    """The flat components rebuilt into the element's structure."""
    if not nest.is_nested(element_spec):
        return flat[0]
    return nest.pack_sequence_as(element_spec, flat)


def spec_text(element_spec):
    """An element spec as messages and reprs show it."""
    return repr(element_spec)


def object_scalar(item):
    """A 0-d object array holding `item` (how string scalars are stored)."""
    array = np.empty((), dtype=object)
    array[()] = item
    return array


def row(array, i):
    """Row `i` of `array` as a tensor value (string scalars stay 0-d object arrays)."""
    item = array[i]
    if array.dtype == object and array.ndim == 1:
        return object_scalar(item)
    return item


def static_int(tensor):
    """The value of a scalar integer tensor known before running, else None."""
    value = common.constant_value(tensor)
    return None if value is None else int(value)


def int_param(value, name, what):
    """A scalar integer argument (Python int or tensor) as an int64 tensor."""
    if isinstance(value, Tensor):
        if not value.dtype.is_integer or value._shape_tuple() not in ((), None):
            raise TypeError("%s: %s must be a scalar integer, got a %s tensor of shape %s"
                            % (what, name, value.dtype.name,
                               shape_lib.to_string(value._shape_tuple())))
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError("%s: %s must be an integer, got %r" % (what, name, value))
    return common.convert_to_tensor(int(value), dtype=dtypes.int64)


class DatasetSpec:
    """The spec of an element component that is itself a dataset (`Dataset.window`): the
    structure of TensorSpecs of its elements. Such a component travels as the Dataset
    object itself."""

    dtype = None
    _shape = ()

    def __init__(self, element_spec):
        self.element_spec = element_spec

    def __eq__(self, other):
        return isinstance(other, DatasetSpec) and other.element_spec == self.element_spec

    def __hash__(self):
        return hash(("DatasetSpec", repr(self.element_spec)))

    def __repr__(self):
        return "DatasetSpec(%s, TensorShape([]))" % spec_text(self.element_spec)


def has_dataset_specs(element_spec):
    """Whether some component of `element_spec` is a dataset (a window)."""
    return any(isinstance(s, DatasetSpec) for s in nest.flatten(element_spec))
