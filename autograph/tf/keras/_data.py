"""The batches `fit`, `evaluate` and `predict` iterate: from arrays (numpy arrays, tensors,
or lists and dicts of them, one per model input) cut into `batch_size` rows, or from a
`tf.data.Dataset` whose elements are already batches.

Each batch is what a train step receives: `x`, `(x, y)` or `(x, y, sample_weight)`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from runtime import nest
from runtime.composite import sparse_layout as _sparse_layout
from runtime.composite.sparse import SparseTensor
from runtime.data.dataset import Dataset as Pipeline
from runtime.ops.common import convert_to_tensor


def unpack(data: Any) -> tuple[Any, Any, Any]:
    """`(x, y, sample_weight)` of one batch (Keras's `unpack_x_y_sample_weight`): a tuple
    of one, two or three parts, or anything else as `x` alone."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data[0], data[1], data[2]
    raise ValueError("Data is expected to be in format `x`, `(x,)`, `(x, y)`, or "
                     "`(x, y, sample_weight)`, found: %r" % (data,))


def _pack(x: Any, y: Any, sample_weight: Any) -> tuple[Any, ...]:
    if y is None:
        return (x,)
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def _as_array(value: Any) -> Any:
    """A numpy array of `value` (a SparseTensor stays one: its rows are sliced as sparse)."""
    if isinstance(value, SparseTensor):
        return value
    if hasattr(value, "numpy"):
        return np.asarray(value.numpy())
    return np.asarray(value)


def _samples(value: Any) -> int | None:
    if isinstance(value, SparseTensor):
        return value.shape[0] if value.shape.rank else None
    return len(value) if value.ndim else None


def _rows(value: Any, rows: Any) -> Any:
    """The batch of `value` at `rows` (a slice), as a tensor (or SparseTensor)."""
    if isinstance(value, SparseTensor):
        rest = value.shape.as_list()[1:]
        return _sparse_layout.slice(value, [rows.start] + [0] * len(rest),
                                    [rows.stop - rows.start] + rest)
    return convert_to_tensor(value[rows])


class DataBatches:
    """The batches of one pass over the data (`epoch()`), and how many there are
    (`steps`, None when a Dataset's length is unknown)."""

    steps: int | None

    def epoch(self) -> Iterator[tuple[Any, ...]]:
        """The batches of one pass (each `(x,)`, `(x, y)` or `(x, y, sample_weight)`)."""
        raise NotImplementedError


class ArrayBatches(DataBatches):
    """Consecutive `batch_size`-row slices of arrays (the last one may be shorter),
    shuffled at each epoch when `shuffle` is set."""

    def __init__(self, x: Any, y: Any = None, sample_weight: Any = None,
                 batch_size: int | None = None, shuffle: bool = False,
                 steps: int | None = None) -> None:
        self._data = nest.map_structure(_as_array, _pack(x, y, sample_weight),
                                        expand_composites=False)
        leaves = nest.flatten(self._data, expand_composites=False)
        if shuffle and any(isinstance(a, SparseTensor) for a in leaves):
            raise ValueError("Shuffling the rows of a SparseTensor is not supported: pass "
                             "shuffle=False (or a tf.data.Dataset, shuffled as you wish)")
        sizes = {_samples(a) for a in leaves}
        if None in sizes or len(sizes) != 1:
            raise ValueError(
                "Data cardinality is ambiguous: every array (x, y and sample_weight) must "
                "have the same number of samples along the first axis; got sizes %s"
                % sorted(str(s) for s in sizes))
        size = sizes.pop()
        assert size is not None
        self.size: int = size
        if batch_size is None:
            batch_size = 32
        if not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError("`batch_size` must be a positive integer. Received: "
                             "batch_size=%r" % (batch_size,))
        self.batch_size = batch_size
        self.shuffle = shuffle
        count = max(1, math.ceil(self.size / batch_size)) if steps is None else steps
        self.steps = self._count = count

    def epoch(self) -> Iterator[tuple[Any, ...]]:
        """The slices, in order (or in a new random order when shuffling)."""
        order = np.random.permutation(self.size) if self.shuffle else None
        for step in range(self._count):
            start = (step * self.batch_size) % max(self.size, 1)
            stop = min(start + self.batch_size, self.size)
            if order is None:
                rows: Any = slice(start, stop)
            else:
                rows = order[start:stop]
            yield nest.map_structure(lambda a, rows=rows: _rows(a, rows), self._data,
                                     expand_composites=False)


class DatasetBatches(DataBatches):
    """The elements of a Dataset, each one batch (`steps` of them when given)."""

    def __init__(self, dataset: Pipeline, steps: int | None = None) -> None:
        self.dataset = dataset
        if steps is None:
            cardinality = int(dataset.cardinality())
            if cardinality == -1:
                raise ValueError("The dataset is infinite: pass `steps_per_epoch` (or "
                                 "`steps` / `validation_steps`) to say how many batches "
                                 "make an epoch")
            steps = cardinality if cardinality >= 0 else None
        self.steps = steps
        self._iterator: Iterator[Any] | None = None

    def epoch(self) -> Iterator[tuple[Any, ...]]:
        """The Dataset's elements (with `steps` given, the next `steps` of them, starting
        the Dataset again when it runs out, as Keras does)."""
        if self.steps is None:
            for element in self.dataset:
                yield _as_batch(element)
            return
        for _ in range(self.steps):
            if self._iterator is None:
                self._iterator = iter(self.dataset)
            try:
                element = next(self._iterator)
            except StopIteration:
                self._iterator = iter(self.dataset)
                try:
                    element = next(self._iterator)
                except StopIteration:
                    return
            yield _as_batch(element)


def _as_batch(element: Any) -> tuple[Any, ...]:
    return tuple(element) if isinstance(element, tuple) else (element,)


def batches(x: Any, y: Any = None, sample_weight: Any = None, batch_size: int | None = None,
            steps: int | None = None, shuffle: bool = False) -> DataBatches:
    """The batches of `x` (arrays or a Dataset) and its labels and weights."""
    if isinstance(x, Pipeline):
        if y is not None:
            raise ValueError("When providing `x` as a tf.data.Dataset, `y` should not be "
                             "passed. Instead, the targets should be included as part of "
                             "the Dataset.")
        if sample_weight is not None:
            raise ValueError("When providing `x` as a tf.data.Dataset, `sample_weight` "
                             "should not be passed. Instead, the sample weights should be "
                             "included as part of the Dataset.")
        return DatasetBatches(x, steps)
    if x is None:
        raise ValueError("Unrecognized data type: x=None")
    return ArrayBatches(x, y, sample_weight, batch_size, shuffle, steps)


def split_validation(x: Any, y: Any, sample_weight: Any,
                     validation_split: float) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """`(training part, validation part)` of arrays: the last `validation_split` of the
    samples are for validation (taken before any shuffling), as Keras splits."""
    if isinstance(x, Pipeline):
        raise ValueError("`validation_split` is only supported for Tensors or NumPy arrays, "
                         "found a tf.data.Dataset")
    if not 0 < validation_split < 1:
        raise ValueError("`validation_split` must be a float between 0 and 1. Received: "
                         "validation_split=%r" % (validation_split,))
    data = nest.map_structure(_as_array, _pack(x, y, sample_weight))
    size = len(nest.flatten(data)[0])
    cut = int(math.floor(size * (1.0 - validation_split)))
    if cut == 0 or cut == size:
        raise ValueError("Training data contains %d samples, which is not sufficient to "
                         "split it into a validation and training set as specified by "
                         "`validation_split=%r`. Either provide more data, or a different "
                         "value for the `validation_split` argument." % (size,
                                                                         validation_split))
    train = nest.map_structure(lambda a: a[:cut], data)
    held_out = nest.map_structure(lambda a: a[cut:], data)
    return train, held_out
