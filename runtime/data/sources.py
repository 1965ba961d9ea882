"""The sources of datasets: slices of tensors, tensors, a range, a Python generator.
"""


import numpy as np

from runtime import dtypes, errors, nest
from runtime.composite.sparse import SparseTensor, SparseTensorSpec
from runtime.data.generator_checks import check_spec, convert_element, python_arg, specs_from_types
from runtime.data.pipeline import UNKNOWN_CARDINALITY, Pipeline, to_tensor
from runtime.data.structure import (
    int_param,
    leaf_paths,
    leaves_of,
    map_input,
    path_text,
    row,
    spec_of,
    static_int,
)
from runtime.signature import TensorSpec


class TensorSlices(Pipeline):
    """The slices of tensors along their first dimension (`from_tensor_slices`)."""

    _name = "_TensorSliceDataset"

    def __init__(self, tensors):
        structure = map_input(tensors, lambda v, p: to_tensor(v, p, "from_tensor_slices"))
        leaves = leaves_of(structure)
        if not leaves:
            raise ValueError("from_tensor_slices needs at least one tensor")
        paths = leaf_paths(tensors)
        length = None
        for t, path in zip(leaves, paths):
            dims = t._static_shape if isinstance(t, SparseTensor) else t._shape_tuple()
            if dims == ():
                raise ValueError("from_tensor_slices: %s is a scalar; every component must "
                                 "have a first dimension to slice" % path_text(path))
            first = None if dims is None else dims[0]
            if first is not None:
                if length is not None and first != length[0]:
                    raise ValueError(
                        "from_tensor_slices: all components must have the same size in their "
                        "first dimension, but %s has %d and %s has %d"
                        % (path_text(length[1]), length[0], path_text(path), first))
                if length is None:
                    length = (first, path)
        self._length = None if length is None else length[0]
        self._sparse = [isinstance(t, SparseTensor) for t in leaves]
        spec = map_input(structure, lambda t, p: _row_spec(t))
        super().__init__(spec, tensors=nest.flatten(structure))

    def _cardinality(self):
        return UNKNOWN_CARDINALITY if self._length is None else self._length

    def _generate(self, feed):
        arrays = iter([np.asarray(feed[id(t)]) for t in self._tensors])
        slicers = [_sparse_rows(*(next(arrays) for _ in range(3))) if sparse
                   else _dense_rows(next(arrays)) for sparse in self._sparse]
        n = slicers[0][0]
        for count, _ in slicers[1:]:
            if count != n:
                raise errors.InvalidArgumentError(
                    "from_tensor_slices: all components must have the same size in their "
                    "first dimension, got %d and %d" % (n, count), "AnonymousIterator")
        for i in range(n):
            yield tuple(part for _, rows in slicers for part in rows(i))


def _row_spec(leaf):
    """The spec of one slice of `leaf` along its first dimension."""
    if isinstance(leaf, SparseTensor):
        shape = leaf._static_shape
        return SparseTensorSpec(None if shape is None else shape[1:], leaf.dtype)
    shape = leaf._shape_tuple()
    return TensorSpec(None if shape is None else shape[1:], leaf.dtype)


def _dense_rows(array):
    """(count, rows): the number of slices of `array`, and slice i as a 1-tuple."""
    return array.shape[0], lambda i: (row(array, i),)


def _sparse_rows(indices, values, dense_shape):
    """(count, rows): the number of slices of a sparse tensor along its first dimension, and
    slice i as its components (indices in the input's order)."""
    rows = indices[:, 0]
    inner = np.asarray(dense_shape[1:], np.int64)

    def take(i):
        mine = rows == i
        return indices[mine][:, 1:].astype(np.int64), values[mine], inner

    return int(dense_shape[0]), take


class Tensors(Pipeline):
    """One element: the given tensors (`from_tensors`)."""

    _name = "_TensorDataset"

    def __init__(self, tensors):
        structure = map_input(tensors, lambda v, p: to_tensor(v, p, "from_tensors"))
        flat = nest.flatten(structure)
        spec = map_input(structure, lambda t, p: spec_of(t)) if flat else structure
        super().__init__(spec, tensors=flat)

    def _cardinality(self):
        return 1

    def _generate(self, feed):
        yield tuple(feed[id(t)] for t in self._tensors)


class Range(Pipeline):
    """`range(start, stop, step)` as scalars (`Dataset.range`)."""

    _name = "_RangeDataset"

    def __init__(self, args, output_type):
        if not 1 <= len(args) <= 3:
            raise TypeError("Dataset.range takes 1 to 3 arguments (stop, or start, stop[, "
                            "step]), got %d" % len(args))
        if len(args) == 1:
            args = (0, args[0], 1)
        elif len(args) == 2:
            args = (args[0], args[1], 1)
        names = ("start", "stop", "step")
        tensors = [int_param(a, n, "Dataset.range") for a, n in zip(args, names)]
        if static_int(tensors[2]) == 0:
            raise ValueError("Dataset.range: step must not be 0")
        self._dtype = dtypes.as_dtype(output_type)
        super().__init__(TensorSpec((), self._dtype), tensors=tensors)

    def _cardinality(self):
        start, stop, step = (static_int(t) for t in self._tensors)
        if None in (start, stop, step):
            return UNKNOWN_CARDINALITY
        return max(0, -((start - stop) // step))  # len(range(...)) without building it

    def _generate(self, feed):
        start, stop, step = (int(feed[id(t)]) for t in self._tensors)
        if step == 0:
            raise errors.InvalidArgumentError("Dataset.range: step must not be 0",
                                              "AnonymousIterator")
        make = self._dtype.np_dtype.type
        for i in range(start, stop, step):
            yield (make(i),)


class Generator(Pipeline):
    """The elements a Python generator yields, checked and converted (`from_generator`)."""

    _name = "_FlatMapDataset"  # TensorFlow's name for from_generator datasets

    def __init__(self, generator, output_types, output_shapes, args, output_signature):
        if not callable(generator):
            raise TypeError("from_generator: `generator` must be a callable that returns an "
                            "iterable, got %r" % (generator,))
        if output_signature is not None:
            if output_types is not None or output_shapes is not None:
                raise TypeError("from_generator takes either output_signature or "
                                "output_types/output_shapes, not both")
            spec = map_input(output_signature, check_spec)
        elif output_types is not None:
            spec = specs_from_types(output_types, output_shapes)
        else:
            raise TypeError("from_generator needs output_signature (a structure of "
                            "tf.TensorSpec) or output_types")
        self._generator = generator
        arg_tensors = [to_tensor(a, (i,), "from_generator args")
                       for i, a in enumerate(args or ())]
        super().__init__(spec, tensors=arg_tensors)

    def _generate(self, feed):
        args = [python_arg(feed[id(t)]) for t in self._tensors]
        source = self._generator(*args)
        try:
            iterator = iter(source)
        except TypeError:
            raise errors.InvalidArgumentError(
                "from_generator: `generator` returned %r, which is not iterable"
                % (source,), "AnonymousIterator") from None
        spec = self._element_spec
        for index, value in enumerate(iterator):
            flat = []
            convert_element(value, spec, (), index, value, flat)
            yield tuple(flat)
