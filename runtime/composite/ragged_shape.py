"""The shape of a RaggedTensor as a value: `tf.experimental.RowPartition` (how one
dimension's rows partition the values below it) and `tf.experimental.DynamicRaggedShape`
(the row partitions of the ragged dimensions, outermost first, then the `inner_shape`: the
shape of the flat values).

`tf.shape(rt)` gives one; `tf.reshape(x, shape)`, `tf.zeros(shape)`, `tf.ones(shape)` and
`tf.fill(shape, value)` take one and give a RaggedTensor of that shape. Its text is
TensorFlow's:

    <DynamicRaggedShape lengths=[4, (1, 3, 0, 2)] num_row_partitions=1>

(the number of rows, the row lengths of each ragged dimension, or its length when uniform,
then the inner sizes).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime import dtypes
from runtime.composite.base import refuse
from runtime.composite.ragged import RaggedTensor
from runtime.ops import (
    array_ops,
    composite_dispatch,
    math_ops,
    ragged_ops,
    reshape_ops,
)
from runtime.ops.common import convert_to_tensor
from runtime.tensor import EagerTensor, Tensor


class RowPartition:
    """How the rows of one dimension partition the values below it: row i holds values
    row_splits[i]:row_splits[i + 1]; a uniform partition also knows its row length."""

    def __init__(self, row_splits: Any, uniform_row_length: Any = None) -> None:
        self._row_splits = convert_to_tensor(row_splits, dtype_hint=dtypes.int64)
        self._uniform_row_length = uniform_row_length

    @classmethod
    def from_row_splits(cls, row_splits: Any, validate: bool = True, dtype: Any = None,
                        dtype_hint: Any = None) -> RowPartition:
        """The partition with these row splits (checked to start at 0 and not decrease)."""
        splits = convert_to_tensor(row_splits, dtype_hint=dtypes.int64)
        if validate:
            RaggedTensor.from_row_splits(array_ops.zeros(splits[-1:]), splits)
        return cls(splits)

    @classmethod
    def from_row_lengths(cls, row_lengths: Any, validate: bool = True, dtype: Any = None,
                         dtype_hint: Any = None) -> RowPartition:
        """The partition whose rows have these lengths."""
        lengths = convert_to_tensor(row_lengths, dtype_hint=dtypes.int64)
        return cls(ragged_ops.splits_from_lengths_unchecked(lengths))

    @classmethod
    def from_uniform_row_length(cls, uniform_row_length: int, nvals: Any = None,
                                nrows: Any = None, validate: bool = True, dtype: Any = None,
                                dtype_hint: Any = None) -> RowPartition:
        """`nrows` rows (or nvals / uniform_row_length) of `uniform_row_length` values."""
        length = int(uniform_row_length)
        if nrows is None:
            if nvals is None:
                refuse(ValueError, "RowPartition.from_uniform_row_length needs nvals or nrows")
            nrows = int(nvals) // max(length, 1)
        splits = np.arange(int(nrows) + 1, dtype=np.int64) * length
        return cls(splits, uniform_row_length=length)

    def row_splits(self) -> Tensor:
        """int64 (nrows + 1,): where each row starts, and the end of the last."""
        return self._row_splits

    def row_lengths(self) -> Tensor:
        """int64 (nrows,): the length of each row."""
        splits = self._row_splits
        return math_ops.subtract(splits[1:], splits[:-1])

    def nrows(self) -> Tensor:
        """The number of rows."""
        return array_ops.shape(self._row_splits, out_type=dtypes.int64)[0] - 1

    def nvals(self) -> Tensor:
        """The number of values the rows partition."""
        return self._row_splits[-1]

    def static_uniform_row_length(self) -> int | None:
        """The length of every row if the partition is uniform, else None."""
        return self._uniform_row_length

    def __repr__(self) -> str:
        return "tf.RowPartition(row_splits=%s)" % (self._row_splits,)


def _int(value: Any) -> int | None:
    """A Python int for a size known now, else None."""
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, EagerTensor):
        return int(value.numpy())
    return None


class DynamicRaggedShape:
    """The shape of a RaggedTensor (or a dense tensor, with no row partitions):
    `DynamicRaggedShape(row_partitions, inner_shape)`. `shape[0]` is the number of rows;
    `shape[i]` a size for a uniform dimension (ValueError for a ragged one); `shape[:k]`
    the shape of the first k dimensions."""

    def __init__(self, row_partitions: Any, inner_shape: Any, dtype: Any = None,
                 validate: bool = True, static_inner_shape: Any = None) -> None:
        self._partitions = tuple(row_partitions)
        self._dtype = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
        self._inner_shape = math_ops.cast(
            convert_to_tensor(inner_shape, dtype_hint=dtypes.int64), self._dtype)
        if self._inner_shape._shape_tuple() in ((), None) or \
                self._inner_shape._shape_tuple()[0] is None:
            refuse(ValueError, "DynamicRaggedShape: inner_shape must be a vector of known "
                               "length")

    @classmethod
    def from_lengths(cls, lengths: Any, num_row_partitions: Any = None,
                     dtype: Any = dtypes.int64) -> DynamicRaggedShape:
        """The shape of these dimension lengths: an int per uniform dimension, a tuple of
        row lengths per ragged one; the first is the number of rows."""
        lengths = list(lengths)
        if not lengths or not isinstance(lengths[0], (int, np.integer)):
            refuse(ValueError, "DynamicRaggedShape.from_lengths: the first length must be an "
                               "int (the number of rows), got %r" % (lengths[:1],))
        last_ragged = max((i for i, n in enumerate(lengths) if not isinstance(n, int)),
                          default=0)
        count, partitions = int(lengths[0]), []
        for length in lengths[1:last_ragged + 1]:
            if isinstance(length, (int, np.integer)):
                partitions.append(RowPartition.from_uniform_row_length(int(length),
                                                                       nrows=count))
                count *= int(length)
                continue
            row_lengths = [int(n) for n in length]
            if len(row_lengths) != count:
                refuse(ValueError, "DynamicRaggedShape.from_lengths: %d row lengths for %d "
                                   "rows" % (len(row_lengths), count))
            partitions.append(RowPartition.from_row_lengths(row_lengths))
            count = sum(row_lengths)
        inner = [count] + [int(n) for n in lengths[last_ragged + 1:]]
        return cls(partitions, inner, dtype=dtype)

    @classmethod
    def from_tensor(cls, tensor: Any, dtype: Any = None) -> DynamicRaggedShape:
        """The shape of `tensor`, a RaggedTensor or a dense tensor."""
        if isinstance(tensor, RaggedTensor):
            partitions = []
            level: Any = tensor
            while isinstance(level, RaggedTensor):
                uniform = level._uniform_row_length
                partitions.append(RowPartition(level.row_splits, _int(uniform)
                                               if uniform is not None else None))
                level = level.values
            inner = array_ops.shape(level, out_type=dtypes.int64)
            return cls(partitions, inner, dtype=dtype)
        return cls((), array_ops.shape(convert_to_tensor(tensor), out_type=dtypes.int64),
                   dtype=dtype)

    @property
    def row_partitions(self) -> tuple[RowPartition, ...]:
        """The partitions of the ragged (or partitioned uniform) dimensions, outermost
        first."""
        return self._partitions

    @property
    def inner_shape(self) -> Tensor:
        """The shape of the flat values."""
        return self._inner_shape

    @property
    def num_row_partitions(self) -> int:
        """The number of row partitions."""
        return len(self._partitions)

    @property
    def rank(self) -> int:
        """The number of dimensions."""
        return self.num_row_partitions + int(self._inner_shape._shape_tuple()[0])

    @property
    def dtype(self) -> dtypes.DType:
        """The dtype of the sizes."""
        return self._dtype

    def _nrows(self) -> Tensor:
        if self._partitions:
            return math_ops.cast(self._partitions[0].nrows(), self._dtype)
        return self._inner_shape[0]

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return self._sliced(index)
        if not isinstance(index, (int, np.integer)):
            refuse(TypeError, "DynamicRaggedShape indices must be ints or slices, got %r"
                              % (index,))
        rank = self.rank
        if not -rank <= index < rank:
            refuse(IndexError, "Index %d is out of range for a shape of rank %d"
                               % (index, rank))
        index = int(index) % rank
        if index == 0:
            return self._nrows()
        if index <= self.num_row_partitions:
            uniform = self._partitions[index - 1].static_uniform_row_length()
            if uniform is None:
                refuse(ValueError, "Index %d is not uniform" % index)
            return convert_to_tensor(uniform, dtype=self._dtype)
        return self._inner_shape[index - self.num_row_partitions]

    def _sliced(self, index: slice) -> DynamicRaggedShape:
        start, stop, step = index.indices(self.rank)
        if start != 0 or step != 1:
            refuse(NotImplementedError, "DynamicRaggedShape slices must start at 0, with "
                                        "step 1, got %r" % (index,))
        if stop >= self.rank:
            return self
        if stop <= self.num_row_partitions:
            kept = self._partitions[:max(stop - 1, 0)]
            outer = kept[-1].nvals() if kept else self._nrows()
            size = math_ops.cast(outer, self._dtype)
            inner = reshape_ops.reshape(size, [1]) if stop else array_ops.zeros(
                [0], self._dtype)
            return DynamicRaggedShape(kept, inner, dtype=self._dtype)
        return DynamicRaggedShape(self._partitions,
                                  self._inner_shape[:stop - self.num_row_partitions],
                                  dtype=self._dtype)

    def _with_flat_values(self, flat_values: Any) -> Any:
        """`flat_values` (of shape inner_shape) partitioned into this shape's rows."""
        result = flat_values
        for partition in reversed(self._partitions):
            result = RaggedTensor._make(result, partition.row_splits())
            result._uniform_row_length = partition.static_uniform_row_length()
        return result

    def __repr__(self) -> str:
        leaves = [self._inner_shape] + [p.row_splits() for p in self._partitions]
        short = "<DynamicRaggedShape num_row_partitions=%d>" % self.num_row_partitions
        if not all(isinstance(t, EagerTensor) for t in leaves):
            return short
        nrows = self._nrows()
        if not isinstance(nrows, EagerTensor):  # made inside a trace from eager leaves
            return short
        parts = [str(int(nrows.numpy()))]
        for partition in self._partitions:
            uniform = partition.static_uniform_row_length()
            if uniform is not None:
                parts.append(str(uniform))
            else:
                parts.append(repr(tuple(partition.row_lengths().numpy().tolist())))
        parts.extend(str(n) for n in self._inner_shape.numpy().tolist()[1:])
        return "<DynamicRaggedShape lengths=[%s] num_row_partitions=%d>" % (
            ", ".join(parts), self.num_row_partitions)


def shape(input: Any, out_type: Any = dtypes.int32, name: str | None = None) -> Any:  # noqa: A002
    """tf.shape of a RaggedTensor: its DynamicRaggedShape (sizes of `out_type`)."""
    return DynamicRaggedShape.from_tensor(input, out_type)


def _reshape(tensor: Any, shape: Any, name: str | None = None) -> Any:
    if not isinstance(shape, DynamicRaggedShape):
        refuse(TypeError, "tf.reshape of a RaggedTensor is not supported; reshape its "
                          "flat_values")
    return shape._with_flat_values(reshape_ops.reshape(tensor, shape.inner_shape))


def _zeros(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Any:
    return shape._with_flat_values(array_ops.zeros(shape.inner_shape, dtype))


def _ones(shape: Any, dtype: Any = dtypes.float32, name: str | None = None) -> Any:
    return shape._with_flat_values(array_ops.ones(shape.inner_shape, dtype))


def _fill(dims: Any, value: Any, name: str | None = None) -> Any:
    return dims._with_flat_values(array_ops.fill(dims.inner_shape, value))


composite_dispatch.register_api(reshape_ops.reshape, DynamicRaggedShape, _reshape)
composite_dispatch.register_api(array_ops.zeros, DynamicRaggedShape, _zeros)
composite_dispatch.register_api(array_ops.ones, DynamicRaggedShape, _ones)
composite_dispatch.register_api(array_ops.fill, DynamicRaggedShape, _fill)
