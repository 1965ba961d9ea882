"""The transformations of datasets: map, filter, batch, take, skip, zip, shuffle, repeat,
prefetch, concatenate.
"""

import itertools

import numpy as np

from runtime import dtypes, errors, nest
from runtime import shape as shape_lib
from runtime.composite.sparse import SparseTensorSpec
from runtime.data.element_functions import TracedFunction
from runtime.data.pipeline import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Pipeline
from runtime.data.structure import (
    int_param,
    leaf_paths,
    lists_to_tuples,
    map_input,
    path_text,
    relaxed_spec,
    sparse_columns,
    spec_text,
    static_int,
)
from runtime.ops import common, nn_random_ops
from runtime.signature import TensorSpec
from runtime.tensor import Tensor


class Map(Pipeline):
    """`map_func` applied to each element of the input."""

    _name = "_MapDataset"

    def __init__(self, input_dataset, map_func):
        self._fn = TracedFunction(map_func, input_dataset.element_spec, "map")
        super().__init__(self._fn.output_spec, inputs=(input_dataset,),
                         tensors=self._fn.tensors)

    def _cardinality(self):
        return self._inputs[0]._cardinality()

    def _generate(self, feed):
        fn = self._fn
        captured = [feed[id(t)] for t in self._tensors]
        for flat in self._inputs[0]._generate(feed):
            yield fn(flat, captured)


class Filter(Pipeline):
    """The input's elements for which the predicate is True."""

    _name = "_FilterDataset"

    def __init__(self, input_dataset, predicate):
        self._fn = TracedFunction(predicate, input_dataset.element_spec, "filter")
        spec = self._fn.output_spec
        if not isinstance(spec, TensorSpec) or spec.dtype is not dtypes.bool_ or \
                spec._shape not in ((), None):
            raise ValueError(errors.with_user_location(
                "the predicate given to filter must return a scalar bool tensor, got %s"
                % spec_text(spec)))
        super().__init__(input_dataset.element_spec, inputs=(input_dataset,),
                         tensors=self._fn.tensors)

    def _generate(self, feed):
        fn = self._fn
        captured = [feed[id(t)] for t in self._tensors]
        for flat in self._inputs[0]._generate(feed):
            if fn(flat, captured)[0]:
                yield flat


class Batch(Pipeline):
    """Consecutive elements stacked into batches."""

    _name = "_BatchDataset"

    def __init__(self, input_dataset, batch_size, drop_remainder):
        size = int_param(batch_size, "batch_size", "batch")
        static = static_int(size)
        if static is not None and static <= 0:
            raise ValueError("batch: batch_size must be positive, got %d" % static)
        self._size = static
        self._drop = bool(drop_remainder)
        lead = static if self._drop else None

        def batched(spec, path):
            shape = None if spec._shape is None else (lead,) + spec._shape
            kind = SparseTensorSpec if isinstance(spec, SparseTensorSpec) else TensorSpec
            return kind(shape, spec.dtype)
        spec = input_dataset.element_spec
        self._sparse_columns = sparse_columns(spec)
        super().__init__(map_input(spec, batched), inputs=(input_dataset,), tensors=[size])

    def _cardinality(self):
        n = self._inputs[0]._cardinality()
        if n < 0 or self._size is None:
            return n if n < 0 else UNKNOWN_CARDINALITY
        return n // self._size if self._drop else -(-n // self._size)

    def _generate(self, feed):
        size = int(feed[id(self._tensors[0])])
        if size <= 0:
            raise errors.InvalidArgumentError("batch: batch_size must be positive, got %d"
                                              % size, "AnonymousIterator")
        rows = []
        for flat in self._inputs[0]._generate(feed):
            rows.append(flat)
            if len(rows) == size:
                yield _stack(rows, self._sparse_columns)
                rows = []
        if rows and not self._drop:
            yield _stack(rows, self._sparse_columns)


def _stack_sparse(indices, values, dense_shapes):
    """The components of a batch of sparse elements: a leading batch index on the indices,
    the values concatenated, and the largest dense shape (TensorFlow's rule)."""
    ranks = {len(s) for s in dense_shapes}
    if len(ranks) != 1:
        raise errors.InvalidArgumentError(
            "batch: cannot batch SparseTensors of different ranks %s" % sorted(ranks),
            "IteratorGetNext")
    rank = ranks.pop()
    batch = [np.concatenate([np.full((len(ix), 1), k, np.int64),
                             np.reshape(ix, (len(ix), rank))], axis=1)
             for k, ix in enumerate(indices)]
    shape = np.max(np.stack(dense_shapes), axis=0) if rank else np.zeros(0, np.int64)
    return (np.concatenate(batch).astype(np.int64), np.concatenate(values),
            np.concatenate([[len(indices)], shape]).astype(np.int64))


def _stack(rows, sparse_columns=()):
    columns = list(zip(*rows))
    out = []
    for i, column in enumerate(columns):
        if i in sparse_columns:
            out.extend(_stack_sparse(*columns[i:i + 3]))
            continue
        if i - 1 in sparse_columns or i - 2 in sparse_columns:
            continue
        first = np.shape(column[0])
        for j, value in enumerate(column):
            if np.shape(value) != first:
                raise errors.InvalidArgumentError(
                    "batch: cannot batch elements of different shapes in component %d: element "
                    "0 of the batch has shape %s and element %d has shape %s"
                    % (i, shape_lib.to_string(first), j, shape_lib.to_string(np.shape(value))),
                    "IteratorGetNext")
        out.append(np.stack(column))
    return tuple(out)


class Take(Pipeline):
    """The input's first `count` elements."""

    _name = "_TakeDataset"

    def __init__(self, input_dataset, count):
        self._count = int_param(count, "count", "take")
        super().__init__(input_dataset.element_spec, inputs=(input_dataset,),
                         tensors=[self._count])

    def _cardinality(self):
        n, count = self._inputs[0]._cardinality(), static_int(self._count)
        if count is None:
            return UNKNOWN_CARDINALITY
        if count < 0:
            return n
        if n == INFINITE_CARDINALITY:
            return count
        return UNKNOWN_CARDINALITY if n < 0 else min(n, count)

    def _generate(self, feed):
        count = int(feed[id(self._count)])
        source = self._inputs[0]._generate(feed)
        return source if count < 0 else itertools.islice(source, count)


class Skip(Pipeline):
    """The input's elements after the first `count`."""

    _name = "_SkipDataset"

    def __init__(self, input_dataset, count):
        self._count = int_param(count, "count", "skip")
        super().__init__(input_dataset.element_spec, inputs=(input_dataset,),
                         tensors=[self._count])

    def _cardinality(self):
        n, count = self._inputs[0]._cardinality(), static_int(self._count)
        if count is None or n == UNKNOWN_CARDINALITY:
            return UNKNOWN_CARDINALITY
        if count < 0:
            return 0
        return n if n == INFINITE_CARDINALITY else max(0, n - count)

    def _generate(self, feed):
        count = int(feed[id(self._count)])
        if count < 0:
            return iter(())
        return itertools.islice(self._inputs[0]._generate(feed), count, None)


class Zip(Pipeline):
    """Tuples (or the given structure) of the inputs' elements, as long as the shortest."""

    _name = "_ZipDataset"

    def __init__(self, datasets):
        structure = lists_to_tuples(datasets)
        flat = nest.flatten(structure)
        for path, ds in zip(leaf_paths(structure), flat):
            if not isinstance(ds, Pipeline):
                raise TypeError("Dataset.zip takes a (nested) structure of datasets, got %r "
                                "at %s" % (ds, path_text(path)))
        spec = nest.pack_sequence_as(structure, [ds.element_spec for ds in flat]) \
            if nest.is_nested(structure) else flat[0].element_spec
        super().__init__(spec, inputs=flat)

    def _cardinality(self):
        counts = [ds._cardinality() for ds in self._inputs]
        finite = [n for n in counts if n >= 0]
        if finite:
            return min(finite)
        return UNKNOWN_CARDINALITY if UNKNOWN_CARDINALITY in counts else INFINITE_CARDINALITY

    def _generate(self, feed):
        sources = [ds._generate(feed) for ds in self._inputs]
        for parts in zip(*sources):
            yield tuple(v for part in parts for v in part)


class Shuffle(Pipeline):
    """The input's elements shuffled through a buffer."""

    _name = "_ShuffleDataset"

    def __init__(self, input_dataset, buffer_size, seed, reshuffle_each_iteration):
        self._buffer = int_param(buffer_size, "buffer_size", "shuffle")
        static = static_int(self._buffer)
        if static is not None and static <= 0:
            raise ValueError("shuffle: buffer_size must be positive, got %d" % static)
        if isinstance(seed, Tensor):
            seed = common.constant_value(seed)
            if seed is None:
                raise ValueError("shuffle: the seed must be known when the dataset is built")
        global_seed = nn_random_ops._global_seed["seed"]
        if seed is not None:
            self._seed = (0 if global_seed is None else global_seed, int(seed))
        elif global_seed is not None:
            # Like TensorFlow's op seeds: drawn from the global seed's sequence.
            self._seed = (global_seed, int(nn_random_ops.op_generator(None).integers(2**62)))
        else:
            self._seed = None
        self._reshuffle = bool(reshuffle_each_iteration)
        self._epochs = itertools.count()
        super().__init__(input_dataset.element_spec, inputs=(input_dataset,),
                         tensors=[self._buffer])

    def _cardinality(self):
        return self._inputs[0]._cardinality()

    def _generate(self, feed):
        size = int(feed[id(self._buffer)])
        if size <= 0:
            raise errors.InvalidArgumentError("shuffle: buffer_size must be positive, got %d"
                                              % size, "AnonymousIterator")
        epoch = next(self._epochs) if self._reshuffle else 0
        rng = np.random.default_rng(None if self._seed is None else self._seed + (epoch,))
        buffer = []
        for flat in self._inputs[0]._generate(feed):
            if len(buffer) < size:
                buffer.append(flat)
                continue
            i = int(rng.integers(size))
            yield buffer[i]
            buffer[i] = flat
        while buffer:
            i = int(rng.integers(len(buffer)))
            buffer[i], buffer[-1] = buffer[-1], buffer[i]
            yield buffer.pop()


class Repeat(Pipeline):
    """The input's elements `count` times over."""

    _name = "_RepeatDataset"

    def __init__(self, input_dataset, count):
        self._count = int_param(count, "count", "repeat")
        super().__init__(input_dataset.element_spec, inputs=(input_dataset,),
                         tensors=[self._count])

    def _cardinality(self):
        n, count = self._inputs[0]._cardinality(), static_int(self._count)
        if count is None:
            return UNKNOWN_CARDINALITY
        if count == 0 or n == 0:
            return 0
        if count < 0 or n == INFINITE_CARDINALITY:
            return INFINITE_CARDINALITY if n != UNKNOWN_CARDINALITY else UNKNOWN_CARDINALITY
        return UNKNOWN_CARDINALITY if n < 0 else n * count

    def _generate(self, feed):
        count = int(feed[id(self._count)])
        epoch = 0
        while count < 0 or epoch < count:
            produced = False
            for flat in self._inputs[0]._generate(feed):
                produced = True
                yield flat
            if not produced:
                return  # an empty dataset repeated forever is still empty
            epoch += 1


class Prefetch(Pipeline):
    """The input's elements unchanged (there is nothing to overlap)."""

    _name = "_PrefetchDataset"

    def __init__(self, input_dataset):
        super().__init__(input_dataset.element_spec, inputs=(input_dataset,))

    def _cardinality(self):
        return self._inputs[0]._cardinality()

    def _generate(self, feed):
        return self._inputs[0]._generate(feed)


class Concatenate(Pipeline):
    """The first input's elements, then the second's."""

    _name = "_ConcatenateDataset"

    def __init__(self, first, second):
        if not isinstance(second, Pipeline):
            raise TypeError("concatenate takes a Dataset, got %r" % (second,))
        a, b = first.element_spec, second.element_spec
        if nest.structure_signature(a) != nest.structure_signature(b) or any(
                x.dtype is not y.dtype for x, y in zip(nest.flatten(a), nest.flatten(b))):
            raise TypeError("concatenate: the datasets' elements differ: %s and %s"
                            % (spec_text(a), spec_text(b)))
        super().__init__(relaxed_spec(a, b), inputs=(first, second))

    def _cardinality(self):
        a, b = (ds._cardinality() for ds in self._inputs)
        if INFINITE_CARDINALITY in (a, b):
            return INFINITE_CARDINALITY
        return UNKNOWN_CARDINALITY if min(a, b) < 0 else a + b

    def _generate(self, feed):
        for ds in self._inputs:
            yield from ds._generate(feed)
