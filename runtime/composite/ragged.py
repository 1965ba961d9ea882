"""RaggedTensor: a tensor whose rows have different lengths.

    rt = constant([[1, 2, 3], [], [4]])        # shape (3, None)
    rt.values      # [1, 2, 3, 4]: the rows, concatenated
    rt.row_splits  # [0, 3, 3, 4]: row i is values[row_splits[i]:row_splits[i + 1]]

Its components are `values` (a tensor, or a RaggedTensor for more ragged dimensions) and
`row_splits` (int64); staged control flow and Functions carry it as those tensors (see
runtime.composite.base). A call's cache key holds the number of rows and the dtype, not the
number of values, as a RaggedTensorSpec describes them.

Elementwise ops (`+ - * /`, comparisons, `tf.math` unary functions, `tf.cast`) apply to the
values and keep the partitioning (runtime.ops.composite_dispatch): two RaggedTensors must be
partitioned alike (checked when the op runs), and a dense operand broadcasts against the
values' uniform inner dimensions (a scalar always). `for row in rt` in converted code is a
Python loop over eager rows, and one While op over the rows of a symbolic one.
"""

from __future__ import annotations

from typing import Any, NoReturn

import numpy as np

from runtime import dtypes, errors, nest
from runtime import shape as shape_lib
from runtime.composite.base import (
    CompositeSpec,
    CompositeTensor,
    refuse,
    register,
    relax_leading_dim,
)
from runtime.composite.sparse import SparseTensor
from runtime.operators import loops
from runtime.ops import (
    array_ops,
    composite_dispatch,
    concat_split_ops,
    layout_ops,
    math_ops,
    ragged_ops,
    reshape_ops,
    selection_ops,
)
from runtime.ops.common import convert_to_tensor
from runtime.signature import TensorSpec
from runtime.tensor import EagerTensor, Tensor, to_numpy


class RaggedTensor(CompositeTensor):
    """A tensor with ragged rows; made by `tf.ragged.constant`, `from_row_splits` or
    `from_row_lengths` (see the module docstring)."""

    __slots__ = ("_values", "_row_splits", "_uniform_row_length")
    # Makes numpy defer to our reflected operators (`np.float32(2) * rt` gives a RaggedTensor).
    __array_priority__ = 100

    def __init__(self, values: Any, row_splits: Any) -> None:
        """The rows of `values` split at `row_splits` (checked, as `from_row_splits`)."""
        made = RaggedTensor.from_row_splits(values, row_splits)
        self._values: Any = made._values
        self._row_splits: Tensor = made._row_splits
        self._uniform_row_length: Any = None

    @classmethod
    def _make(cls, values: Any, row_splits: Tensor) -> RaggedTensor:
        ragged = cls.__new__(cls)
        ragged._values = values
        ragged._row_splits = row_splits
        ragged._uniform_row_length = None
        return ragged

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values: Any, row_splits: Any, name: str | None = None,
                        validate: bool = True) -> RaggedTensor:
        """Row i is `values[row_splits[i]:row_splits[i + 1]]`. With `validate`, splits that
        do not start at 0, decrease, or do not end at the number of values raise
        InvalidArgumentError."""
        values = _values_operand(values, "from_row_splits")
        splits = convert_to_tensor(row_splits, dtype_hint=dtypes.int64)
        if validate:
            splits = ragged_ops.checked_splits(splits, _leading(values))
        return cls._make(values, math_ops.cast(splits, dtypes.int64))

    @classmethod
    def from_row_lengths(cls, values: Any, row_lengths: Any, name: str | None = None,
                         validate: bool = True) -> RaggedTensor:
        """Rows of `row_lengths[i]` consecutive values each; negative lengths, or lengths
        not summing to the number of values, raise InvalidArgumentError."""
        values = _values_operand(values, "from_row_lengths")
        lengths = convert_to_tensor(row_lengths, dtype_hint=dtypes.int64)
        return cls._make(values, ragged_ops.splits_from_lengths(lengths, _leading(values)))

    @classmethod
    def from_value_rowids(cls, values: Any, value_rowids: Any, nrows: Any = None,
                          name: str | None = None, validate: bool = True) -> RaggedTensor:
        """Value i goes to row `value_rowids[i]` (sorted ascending); `nrows` (default: one
        past the last row id) may add empty rows at the end."""
        values = _values_operand(values, "from_value_rowids")
        splits = ragged_ops.splits_from_rowids(value_rowids, -1 if nrows is None else nrows)
        return cls.from_row_splits(values, splits, validate=validate)

    @classmethod
    def from_row_starts(cls, values: Any, row_starts: Any, name: str | None = None,
                        validate: bool = True) -> RaggedTensor:
        """Row i is `values[row_starts[i]:row_starts[i + 1]]`, the last row running to the
        end of `values`."""
        values = _values_operand(values, "from_row_starts")
        starts = math_ops.cast(convert_to_tensor(row_starts, dtype_hint=dtypes.int64),
                               dtypes.int64)
        count = array_ops.shape(_leading(values), out_type=dtypes.int64)[:1]
        return cls.from_row_splits(values, concat_split_ops.concat([starts, count], 0),
                                   validate=validate)

    @classmethod
    def from_row_limits(cls, values: Any, row_limits: Any, name: str | None = None,
                        validate: bool = True) -> RaggedTensor:
        """Row i is `values[row_limits[i - 1]:row_limits[i]]`, the first row starting at 0."""
        values = _values_operand(values, "from_row_limits")
        limits = math_ops.cast(convert_to_tensor(row_limits, dtype_hint=dtypes.int64),
                               dtypes.int64)
        zero = convert_to_tensor(np.zeros(1, np.int64))
        return cls.from_row_splits(values, concat_split_ops.concat([zero, limits], 0),
                                   validate=validate)

    @classmethod
    def from_uniform_row_length(cls, values: Any, uniform_row_length: Any, nrows: Any = None,
                                validate: bool = True, name: str | None = None) -> RaggedTensor:
        """Rows of `uniform_row_length` values each (`nrows` is needed when it is 0): the
        dimension is uniform, and the shape says its size when it is a Python int."""
        values = _values_operand(values, "from_uniform_row_length")
        count = _static_rows(values)
        if isinstance(uniform_row_length, int) and count is not None:
            if uniform_row_length < 0:
                refuse(ValueError, "uniform_row_length must be non-negative, got %d"
                                   % uniform_row_length)
            if uniform_row_length == 0:
                rows = 0 if nrows is None else int(nrows)
            else:
                if count % uniform_row_length:
                    refuse(ValueError, "the number of values (%d) is not a multiple of "
                                       "uniform_row_length (%d)" % (count, uniform_row_length))
                rows = count // uniform_row_length
                if nrows is not None and int(nrows) != rows:
                    refuse(ValueError, "nrows is %d, but %d values make %d rows of %d" % (
                        int(nrows), count, rows, uniform_row_length))
            splits = convert_to_tensor(np.arange(rows + 1, dtype=np.int64) * uniform_row_length)
            made = cls.from_row_splits(values, splits, validate=validate)
        else:
            length = math_ops.cast(convert_to_tensor(uniform_row_length,
                                                     dtype_hint=dtypes.int64), dtypes.int64)
            total = array_ops.shape(_leading(values), out_type=dtypes.int64)[0]
            rows_t = math_ops.floordiv(total, math_ops.maximum(length, 1)) if nrows is None \
                else math_ops.cast(convert_to_tensor(nrows), dtypes.int64)
            splits = math_ops.multiply(
                array_ops.range(math_ops.add(rows_t, 1), dtype=dtypes.int64), length)
            made = cls.from_row_splits(values, splits, validate=validate)
        made._uniform_row_length = uniform_row_length
        return made

    @classmethod
    def from_nested_row_splits(cls, flat_values: Any, nested_row_splits: Any,
                               name: str | None = None, validate: bool = True) -> RaggedTensor:
        """Nested ragged dimensions, outermost first: `nested_row_splits[0]` partitions
        the rows made by the later ones."""
        return _nested(cls.from_row_splits, flat_values, nested_row_splits, validate)

    @classmethod
    def from_nested_row_lengths(cls, flat_values: Any, nested_row_lengths: Any,
                                name: str | None = None, validate: bool = True) -> RaggedTensor:
        """Nested ragged dimensions given by their row lengths, outermost first."""
        return _nested(cls.from_row_lengths, flat_values, nested_row_lengths, validate)

    @classmethod
    def from_nested_value_rowids(cls, flat_values: Any, nested_value_rowids: Any,
                                 nested_nrows: Any = None, name: str | None = None,
                                 validate: bool = True) -> RaggedTensor:
        """Nested ragged dimensions given by value_rowids (and optional nrows), outermost
        first."""
        rowids = list(nested_value_rowids)
        nrows = [None] * len(rowids) if nested_nrows is None else list(nested_nrows)
        if len(nrows) != len(rowids):
            refuse(ValueError, "nested_nrows must have as many entries as "
                               "nested_value_rowids (%d), got %d" % (len(rowids), len(nrows)))
        if not rowids:
            refuse(ValueError, "nested_value_rowids must not be empty")
        result: Any = flat_values
        for ids, count in reversed(list(zip(rowids, nrows))):
            result = cls.from_value_rowids(result, ids, count, validate=validate)
        return result

    @classmethod
    def from_tensor(cls, tensor: Any, lengths: Any = None, padding: Any = None,
                    ragged_rank: int = 1, name: str | None = None,
                    row_splits_dtype: Any = dtypes.int64) -> RaggedTensor:
        """The dense `tensor` as a RaggedTensor: every row whole, or cut to `lengths`, or
        with its trailing `padding` cells dropped (not both); with `ragged_rank` k, the
        first k dimensions after the rows become ragged (the last of them cut)."""
        tensor = convert_to_tensor(tensor)
        if lengths is not None and padding is not None:
            refuse(ValueError, "Specify lengths or padding, but not both")
        dims = tensor._shape_tuple()
        if dims is not None and not 1 <= ragged_rank < len(dims):
            refuse(ValueError, "ragged_rank must be greater than 0 and less than the rank "
                               "of the tensor (%d), got %d" % (len(dims), ragged_rank))
        if ragged_rank > 1:
            if dims is None or None in dims[:ragged_rank + 1]:
                refuse(ValueError, "from_tensor with ragged_rank > 1 needs the outer "
                                   "dimensions of the tensor known while tracing")
            outer = int(np.prod(dims[:ragged_rank]))
            flat = reshape_ops.reshape(tensor, [outer] + [
                -1 if d is None else d for d in dims[ragged_rank:]])
            result: Any = cls.from_tensor(flat, lengths, padding)
            for axis in range(ragged_rank - 1, 0, -1):
                result = cls.from_uniform_row_length(result, dims[axis])
            return result
        if padding is not None:
            lengths = ragged_ops.lengths_from_padding(tensor, padding)
        if lengths is None:
            dense_shape = array_ops.shape(tensor, out_type=dtypes.int64)
            lengths = math_ops.multiply(array_ops.ones(dense_shape[:1], dtypes.int64),
                                        dense_shape[1])
        lengths = math_ops.cast(convert_to_tensor(lengths, dtype_hint=dtypes.int64),
                                dtypes.int64)
        splits = ragged_ops.splits_from_lengths_unchecked(lengths)
        return cls._make(ragged_ops.ragged_gather(tensor, splits), splits)

    @classmethod
    def from_sparse(cls, st_input: Any, name: str | None = None,
                    row_splits_dtype: Any = dtypes.int64) -> RaggedTensor:
        """A rank-2 SparseTensor whose rows are left-aligned (indices in row-major order,
        each row's columns 0, 1, ...) as a RaggedTensor of its stored values."""
        if not isinstance(st_input, SparseTensor):
            refuse(TypeError, "st_input must be a SparseTensor, got %s"
                              % type(st_input).__name__)
        dims = st_input.indices._shape_tuple()
        if dims is not None and dims[1] is not None and dims[1] != 2:
            refuse(ValueError, "rank(st_input) must be 2, got %d" % dims[1])
        rowids = st_input.indices[:, 0]
        nrows = st_input.dense_shape[0]
        return cls.from_value_rowids(st_input.values, rowids, nrows)

    # -- structure ---------------------------------------------------------------------------
    @property
    def values(self) -> Any:
        """The rows concatenated: a tensor, or a RaggedTensor (more ragged dimensions)."""
        return self._values

    @property
    def row_splits(self) -> Tensor:
        """int64 (nrows + 1,): where each row starts in `values`, then its end."""
        return self._row_splits

    @property
    def flat_values(self) -> Tensor:
        """The innermost values, a tensor."""
        values = self._values
        return values.flat_values if isinstance(values, RaggedTensor) else values

    @property
    def nested_row_splits(self) -> tuple[Tensor, ...]:
        """The row_splits of each ragged dimension, outermost first."""
        inner = self._values.nested_row_splits if isinstance(self._values, RaggedTensor) else ()
        return (self._row_splits,) + inner

    @property
    def ragged_rank(self) -> int:
        """The number of ragged dimensions."""
        return len(self.nested_row_splits)

    @property
    def dtype(self) -> dtypes.DType:
        """The values' dtype."""
        return self.flat_values.dtype

    @property
    def shape(self) -> shape_lib.TensorShape:
        """(nrows, None, ...): a ragged dimension is None; uniform inner ones are known."""
        return shape_lib.TensorShape(self._shape_tuple())

    def _shape_tuple(self) -> tuple[Any, ...]:
        splits = self._row_splits._shape_tuple()
        rows = None if not splits or splits[0] is None else splits[0] - 1
        if isinstance(self._values, RaggedTensor):
            inner = self._values._shape_tuple()[1:]
        else:
            dims = self._values._shape_tuple()
            inner = (None,) if dims is None else tuple(dims[1:])
        uniform = self._uniform_row_length
        return (rows, uniform if isinstance(uniform, int) else None) + tuple(inner)

    def get_shape(self) -> shape_lib.TensorShape:
        """Same as `.shape`."""
        return self.shape

    def nrows(self, out_type: Any = dtypes.int64, name: str | None = None) -> Tensor:
        """The number of rows, as a scalar tensor."""
        rows = self._shape_tuple()[0]
        if rows is not None:
            return convert_to_tensor(rows, dtype=dtypes.as_dtype(out_type))
        count = array_ops.shape(self._row_splits, out_type=dtypes.as_dtype(out_type))[0]
        return math_ops.subtract(count, 1)

    def row_lengths(self, axis: int = 1, name: str | None = None) -> Any:
        """int64 (nrows,): the length of each row (`axis=2`: of each row of the values, as
        a RaggedTensor; `axis=0`: the number of rows)."""
        rank = len(self._shape_tuple())
        if axis < 0:
            axis += rank
        if axis == 0:
            return self.nrows()
        if axis == 1:
            return math_ops.subtract(self._row_splits[1:], self._row_splits[:-1])
        if 1 < axis < rank and isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.row_lengths(axis - 1))
        if 1 < axis < rank:
            dims = array_ops.shape(self._values, out_type=dtypes.int64)
            return self.with_values(math_ops.multiply(
                array_ops.ones(dims[:axis - 1], dtypes.int64), dims[axis - 1]))
        refuse(ValueError, "axis=%d out of bounds: expected %d <= axis < %d" % (
            axis, -rank, rank))

    def row_starts(self, name: str | None = None) -> Tensor:
        """int64 (nrows,): where each row starts in `values`."""
        return self._row_splits[:-1]

    def row_limits(self, name: str | None = None) -> Tensor:
        """int64 (nrows,): where each row ends in `values`."""
        return self._row_splits[1:]

    def value_rowids(self, name: str | None = None) -> Tensor:
        """int64 (nvals,): the row of each of `values`."""
        return ragged_ops.rowids_from_splits(self._row_splits)

    def nested_row_lengths(self, name: str | None = None) -> tuple[Tensor, ...]:
        """The row lengths of each ragged dimension, outermost first."""
        return tuple(math_ops.subtract(s[1:], s[:-1]) for s in self.nested_row_splits)

    def nested_value_rowids(self, name: str | None = None) -> tuple[Tensor, ...]:
        """The value_rowids of each ragged dimension, outermost first."""
        return tuple(ragged_ops.rowids_from_splits(s) for s in self.nested_row_splits)

    @property
    def uniform_row_length(self) -> Any:
        """The length of every row when the dimension is uniform (made by
        `from_uniform_row_length`), else None."""
        length = self._uniform_row_length
        if length is None or isinstance(length, Tensor):
            return length
        return convert_to_tensor(length, dtype=dtypes.int64)

    def bounding_shape(self, axis: Any = None, name: str | None = None,
                       out_type: Any = dtypes.int64) -> Tensor:
        """int64: the number of rows, the longest row of each ragged dimension, then the
        uniform inner dimensions (`axis`: only those)."""
        shape = ragged_ops.bounding_shape(self.flat_values, self.nested_row_splits)
        shape = math_ops.cast(shape, dtypes.as_dtype(out_type))
        if axis is None:
            return shape
        if isinstance(axis, int):
            return shape[axis]
        return selection_ops.gather(shape, axis)

    def with_values(self, new_values: Any) -> RaggedTensor:
        """The same row partition over `new_values` (as many rows as `values` has)."""
        made = RaggedTensor._make(new_values, self._row_splits)
        made._uniform_row_length = self._uniform_row_length
        return made

    def with_flat_values(self, new_values: Any) -> RaggedTensor:
        """The same (nested) row partitions over new innermost values."""
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    # -- conversion ---------------------------------------------------------------------------
    def to_tensor(self, default_value: Any = None, name: str | None = None,
                  shape: Any = None) -> Tensor:
        """The rows padded with `default_value` (zero) to the longest one, as a dense tensor
        (nrows, longest row, ...); `shape` (None entries: the bounding size) pads or cuts
        each dimension to the size given. Gradients flow back to the values."""
        default = _zero(self.dtype) if default_value is None else default_value
        target = None if shape is None else shape_lib.normalize(shape)
        if target is not None and len(target) != len(self._shape_tuple()):
            refuse(ValueError, "RaggedTensor.to_tensor: shape %s must have the tensor's rank, "
                               "%d" % (shape_lib.to_string(target), len(self._shape_tuple())))
        rt = self if target is None or target[0] is None else self._with_nrows(target[0])
        values = rt._values
        if isinstance(values, RaggedTensor):
            values = values.to_tensor(default_value, shape=None if target is None else
                                      (None,) + tuple(target[2:]))
        width = -1 if target is None or target[1] is None else target[1]
        dense = ragged_ops.ragged_to_dense(values, rt._row_splits, default,
                                           width, None if width < 0 else width)
        if target is None or isinstance(self._values, RaggedTensor):
            return dense
        return _fit_to_shape(dense, (None, None) + tuple(target[2:]), default)

    def _with_nrows(self, nrows: int) -> RaggedTensor:
        """The first `nrows` rows, then empty rows up to `nrows`."""
        cut = _slice_outer(self, slice(0, nrows))
        missing = math_ops.maximum(math_ops.subtract(nrows, cut.nrows()), 0)
        last = cut.row_splits[-1]
        extra = array_ops.fill(reshape_ops.reshape(missing, [1]), last)
        return RaggedTensor._make(cut.values, concat_split_ops.concat([cut.row_splits, extra], 0))

    def to_sparse(self, name: str | None = None) -> Any:
        """A SparseTensor of the stored values, at their (row, column, ...) positions, with
        the bounding shape."""
        flat = self.flat_values
        indices = ragged_ops.sparse_indices(flat, self.nested_row_splits)
        return SparseTensor(indices, reshape_ops.reshape(flat, [-1]),
                            self.bounding_shape())

    def to_list(self) -> list[Any]:
        """The rows as nested Python lists (eager tensors only)."""
        splits = _numpy(self._row_splits, "to_list")
        inner = self._values.to_list() if isinstance(self._values, RaggedTensor) else \
            _numpy(self._values, "to_list").tolist()
        return [inner[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]

    def numpy(self) -> np.ndarray:
        """The rows as numpy: one array when they all have the same length, else an object
        array of row arrays (eager tensors only)."""
        values = self._values.numpy() if isinstance(self._values, RaggedTensor) else \
            _numpy(self._values, "numpy")
        splits = _numpy(self._row_splits, "numpy")
        rows = [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]
        if not rows:
            return np.zeros((0, 0) + values.shape[1:], dtype=values.dtype)
        uniform = all(len(row) == len(rows[0]) for row in rows)
        try:  # as TensorFlow builds it, numpy choosing the nesting
            return np.array(rows, dtype=None if uniform else np.object_)
        except ValueError:  # rows numpy cannot nest: one object per row
            pass
        out = np.empty(len(rows), dtype=np.object_)
        for i, row in enumerate(rows):
            out[i] = row
        return out

    # -- rows ---------------------------------------------------------------------------------
    def _slice_rows(self, start: Any, stop: Any) -> RaggedTensor:
        """Rows start..stop-1 (scalar ints or tensors), as a RaggedTensor."""
        splits = self._row_splits[start:stop + 1]
        first, last = splits[0], splits[-1]
        made = RaggedTensor._make(_slice(self._values, first, last),
                                  math_ops.subtract(splits, first))
        made._uniform_row_length = self._uniform_row_length
        return made

    def _row(self, i: Any) -> Any:
        return _slice(self._values, self._row_splits[i], self._row_splits[i + 1])

    def _gather_rows(self, rows: Any) -> RaggedTensor:
        """The rows at `rows` (an int vector), as a RaggedTensor."""
        rows = math_ops.cast(convert_to_tensor(rows, dtype_hint=dtypes.int64), dtypes.int64)
        starts = selection_ops.gather(self._row_splits[:-1], rows)
        limits = selection_ops.gather(self._row_splits[1:], rows)
        splits, indices = ragged_ops.ragged_range(starts, limits,
                                                  convert_to_tensor(1, dtype=dtypes.int64))
        return RaggedTensor._make(_take(self._values, indices), splits)

    def __getitem__(self, key: Any) -> Any:
        """NumPy-style indexing over the rows and then the inner (ragged or uniform)
        dimensions: ints (negative from the end), slices, `...` and `tf.newaxis` as the
        first index."""
        return _getitem(self, key if isinstance(key, tuple) else (key,))

    def __iter__(self) -> Any:
        rows = self._shape_tuple()[0]
        if rows is None:
            refuse(TypeError, "cannot iterate a RaggedTensor with a number of rows known only "
                              "at run time outside a converted for loop")
        return (self._row(i) for i in range(rows))

    def __ag_for_stmt__(self, extra_test, body, get_state, set_state, symbol_names,
                        options=None):
        """`for row in rt` in converted code: a Python loop over the rows of an eager
        RaggedTensor, one While op over the row indices of a symbolic one (`options`: the
        loop's LoopOptions, or None)."""
        if _all_eager(self):
            return loops.for_loop_of(list(self), extra_test, body, get_state, set_state,
                                     symbol_names)
        indices = array_ops.range(math_ops.cast(self.nrows(), dtypes.int32))
        return loops.for_loop_of(indices, extra_test, lambda i: body(self._row(i)), get_state,
                                 set_state, symbol_names, options)

    def __bool__(self) -> bool:
        raise TypeError("the truth value of a RaggedTensor is ambiguous")

    def __repr__(self) -> str:
        if _all_eager(self):
            with np.printoptions(formatter={"all": _format_element}):
                text = _format_element(self.numpy())
            return "<tf.RaggedTensor %s>" % text
        return "tf.RaggedTensor(values=%s, row_splits=%s)" % (self._values, self._row_splits)

    __str__ = __repr__

    # -- elementwise ops (runtime.ops.composite_dispatch) ----------------------------------
    def _elementwise_unary(self, api, *args, **kwargs):
        return self.with_flat_values(api(self.flat_values, *args, **kwargs))

    def _elementwise_binary(self, api, x, y, **kwargs):
        if isinstance(x, RaggedTensor) and isinstance(y, RaggedTensor):
            if x.ragged_rank != y.ragged_rank:
                refuse(ValueError, "an elementwise op on RaggedTensors of shapes %s and %s: "
                                   "their ragged ranks (%d, %d) differ" % (
                                       x.shape, y.shape, x.ragged_rank, y.ragged_rank))
            splits = [ragged_ops.same_splits(a, b)
                      for a, b in zip(x.nested_row_splits, y.nested_row_splits)]
            return _partitioned(api(x.flat_values, y.flat_values, **kwargs), splits)
        ragged, dense = (x, y) if isinstance(x, RaggedTensor) else (y, x)
        inner = ragged.flat_values._shape_tuple()
        if not isinstance(dense, Tensor):  # a Python value, numpy array or Variable
            dense = convert_to_tensor(dense, dtype_hint=ragged.dtype)
        dense_shape = dense._shape_tuple()
        if dense_shape is None or inner is None:
            refuse(ValueError, "an elementwise op between a RaggedTensor and a dense operand "
                               "needs the rank of both known while tracing")
        if len(dense_shape) > len(inner) - 1:
            dense = _dense_per_value(dense, ragged)
        if ragged is x:
            return ragged.with_flat_values(api(ragged.flat_values, dense, **kwargs))
        return ragged.with_flat_values(api(dense, ragged.flat_values, **kwargs))

    # -- composite protocol -----------------------------------------------------------------
    _kind = "RaggedTensor"

    def _to_components(self) -> tuple[Any, ...]:
        return (self._values, self._row_splits)

    def _from_components(self, components: list[Any]) -> RaggedTensor:
        return RaggedTensor._make(*components)

    def _spec_from_components(self, specs: list[Any]) -> RaggedTensorSpec:
        values, splits = specs
        rows = splits._shape[0] if splits._shape else None
        inner = values._shape[1:] if values._shape is not None else (None,)
        if isinstance(values, RaggedTensorSpec):
            return RaggedTensorSpec([None if rows is None else rows - 1, None] + list(inner),
                                    values.dtype, values.ragged_rank + 1)
        return RaggedTensorSpec([None if rows is None else rows - 1, None] + list(inner),
                                values.dtype, 1)

    def invariant_leaf_shapes(self, shape: Any) -> list[Any]:
        dims = shape_lib.normalize(shape)
        if dims is None or len(dims) != len(self._shape_tuple()):
            refuse(ValueError, "the shape invariant %s of a RaggedTensor of shape %s must "
                               "have its rank, %d" % (shape_lib.to_string(dims), self.shape,
                                                       len(self._shape_tuple())))
        rows = dims[0]
        inner = (None,) + tuple(dims[2:])
        values = self._values.invariant_leaf_shapes(inner) \
            if isinstance(self._values, RaggedTensor) else [inner]
        return values + [(None if rows is None else rows + 1,)]

    def _relax_component_keys(self, keys: tuple[Any, ...]) -> tuple[Any, ...]:
        values, splits = keys
        return (relax_leading_dim(values), splits)


def _format_element(x: Any) -> str:
    """One element as TensorFlow prints a RaggedTensor's rows: arrays with commas."""
    if isinstance(x, np.ndarray):
        return np.array2string(x, separator=", ") if x.size else repr(x.tolist())
    return str(x)


def _fit_to_shape(dense: Tensor, target: tuple[Any, ...], default: Any) -> Tensor:
    """`dense` cut or padded with `default` to each size of `target` that is not None."""
    rank = len(target)
    for axis, size in enumerate(target):
        if size is None:
            continue
        dense = dense[(slice(None),) * axis + (slice(0, size),)]
        known = dense._shape_tuple()
        have = None if known is None else known[axis]
        if have == size:
            continue
        if have is not None:  # a static amount: padding that works in a traced graph too
            amounts = [[0, 0]] * rank
            amounts[axis] = [0, size - have]
            dense = layout_ops.pad(dense, amounts, constant_values=default)
            continue
        short = math_ops.subtract(size, array_ops.shape(dense, out_type=dtypes.int64)[axis])
        where = np.zeros((rank, 2), np.int64)
        where[axis, 1] = 1
        dense = layout_ops.pad(dense, math_ops.multiply(convert_to_tensor(where), short),
                               constant_values=default)
    return dense


def _take(values: Any, indices: Any) -> Any:
    """The rows of `values` (a tensor or RaggedTensor) at `indices`."""
    if isinstance(values, RaggedTensor):
        return values._gather_rows(indices)
    return selection_ops.gather(values, indices)


def _static_rows(values: Any) -> int | None:
    if isinstance(values, RaggedTensor):
        return values._shape_tuple()[0]
    dims = values._shape_tuple()
    return None if dims is None else dims[0]


def _nested(factory: Any, flat_values: Any, partitions: Any, validate: bool) -> Any:
    partitions = list(partitions)
    if not partitions:
        refuse(ValueError, "a nested RaggedTensor needs at least one row partition")
    result = flat_values
    for partition in reversed(partitions):
        result = factory(result, partition, validate=validate)
    return result


def _is_index(key: Any) -> bool:
    if isinstance(key, (bool, np.bool_)):
        return False
    if isinstance(key, (int, np.integer)):
        return True
    return isinstance(key, Tensor) and key.dtype.is_integer and key._shape_tuple() == ()


def _expand_ellipsis(key: tuple[Any, ...], rank: int) -> tuple[Any, ...]:
    if sum(k is Ellipsis for k in key) > 1:
        refuse(ValueError, "RaggedTensor indexing: an index can only have a single "
                           "ellipsis ('...')")
    if Ellipsis not in key:
        return key
    at = key.index(Ellipsis)
    fill = rank - (len(key) - 1)
    return key[:at] + (slice(None),) * max(fill, 0) + key[at + 1:]


def _getitem(rt: RaggedTensor, key: tuple[Any, ...]) -> Any:
    rank = len(rt._shape_tuple())
    key = _expand_ellipsis(key, rank)
    if len(key) > rank:
        refuse(ValueError, "Too many indices for RaggedTensor: %d indices for a tensor of "
                           "rank %d" % (len(key), rank))
    if not key:
        return rt
    first, rest = key[0], key[1:]
    if _is_index(first):
        rows = rt._shape_tuple()[0]
        if isinstance(first, (int, np.integer)):
            first = int(first)
            if rows is not None and not -rows <= first < rows:
                refuse(IndexError, "RaggedTensor index %d is out of bounds for %d rows"
                                   % (first, rows))
            if first < 0:
                first = math_ops.add(rt.nrows(), first) if rows is None else first + rows
        row = rt._row(first)
        return row[rest] if rest else row
    if isinstance(first, slice):
        rows_taken = _slice_outer(rt, first)
        return _index_inner(rows_taken, rest) if rest else rows_taken
    refuse(TypeError, "RaggedTensor indices must be ints, scalar int tensors, slices or "
                      "'...', got %r" % (first,))


def _slice_outer(rt: RaggedTensor, key: slice) -> RaggedTensor:
    rows = rt._shape_tuple()[0]
    bounds = (key.start, key.stop, key.step)
    if not all(b is None or isinstance(b, (int, np.integer)) for b in bounds):
        refuse(TypeError, "RaggedTensor: slice bounds must be Python ints or None, got %r"
                          % (key,))
    if key.step in (None, 1):
        if rows is not None:
            start, stop, _ = key.indices(rows)
            return rt._slice_rows(start, max(start, stop))
        if (key.start or 0) >= 0 and (key.stop is None or key.stop >= (key.start or 0)):
            end = rt.nrows() if key.stop is None else math_ops.minimum(rt.nrows(), key.stop)
            return rt._slice_rows(key.start or 0, end)
    if rows is None:
        refuse(TypeError, "RaggedTensor: a slice of rows with negative bounds or a step "
                          "needs a number of rows known while tracing")
    picked = np.arange(rows, dtype=np.int64)[key]
    made = rt._gather_rows(picked)
    made._uniform_row_length = rt._uniform_row_length
    return made


def _index_inner(rt: RaggedTensor, key: tuple[Any, ...]) -> Any:
    """`rt[:, *key]`: `key` applied to every row."""
    k, more = key[0], key[1:]
    if isinstance(k, slice):
        if k == slice(None):
            taken = rt
        else:
            bounds = (k.start, k.stop, k.step)
            if not all(b is None or isinstance(b, (int, np.integer)) for b in bounds):
                refuse(TypeError, "RaggedTensor: slice bounds must be Python ints or None, "
                                  "got %r" % (k,))
            if k.step == 0:
                refuse(ValueError, "slice step cannot be zero")
            splits, indices = ragged_ops.slice_rows(
                rt.row_splits, *(None if b is None else int(b) for b in bounds))
            taken = RaggedTensor._make(_take(rt.values, indices), splits)
        if not more:
            return taken
        inner = taken.values
        if isinstance(inner, RaggedTensor):
            return taken.with_values(_index_inner(inner, more))
        return taken.with_values(inner[(slice(None),) + more])
    if isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
        picked = _take(rt.values, ragged_ops.index_rows(rt.row_splits, int(k)))
        if not more:
            return picked
        if isinstance(picked, RaggedTensor):
            return _index_inner(picked, more)
        return picked[(slice(None),) + more]
    refuse(TypeError, "RaggedTensor: an index into a ragged dimension must be a Python int "
                      "or a slice with int bounds, got %r" % (k,))


def _dense_per_value(dense: Tensor, rt: RaggedTensor) -> Tensor:
    """`dense`, which spans ragged dimensions of `rt`, broadcast to one row per flat value
    (sizes of 1 repeat, as in TensorFlow's ragged broadcasting)."""
    rank = len(rt._shape_tuple())
    dims: tuple[Any, ...] = dense._shape_tuple() or ()  # known: the caller checked
    if len(dims) > rank:
        refuse(ValueError, "Unable to broadcast: a dense operand of shape %s has more "
                           "dimensions than the RaggedTensor of shape %s" % (
                               shape_lib.to_string(dims), rt.shape))
    if len(dims) < rank:
        dense = reshape_ops.reshape(dense, [1] * (rank - len(dims)) + [
            -1 if d is None else d for d in dims])
    level: Any = rt
    while isinstance(level, RaggedTensor):
        dims = dense._shape_tuple() or (None, None)
        if dims[1] not in (1, None):
            _refuse_broadcast(dims[1], rt.shape, level.row_splits)
        rowids = level.value_rowids()
        if dims[0] == 1:
            rowids = math_ops.multiply(rowids, 0)
        dense = selection_ops.gather(dense[:, 0], rowids)
        level = level.values
    return dense


def _refuse_broadcast(size: int, shape: Any, splits: Tensor) -> NoReturn:
    """TensorFlow's InvalidArgumentError for a dense size that meets a ragged dimension: its
    failed check that the dense operand's uniform row splits equal the ragged ones."""
    if isinstance(splits, EagerTensor):  # TensorFlow's failed assertion, word for word
        ragged_splits = splits.numpy()
        uniform = np.arange(ragged_splits.size, dtype=ragged_splits.dtype) * size
        message = ragged_ops.assert_equal_message(uniform, ragged_splits)
    else:
        message = ("Unable to broadcast: dimension size mismatch in dimension 1: a dense "
                   "operand of size %d meets a ragged dimension (RaggedTensor of shape %s)"
                   % (size, shape))
    raise errors.InvalidArgumentError(errors.with_user_location(message))


def _partitioned(flat_values: Tensor, nested_splits: list[Tensor]) -> Any:
    value: Any = flat_values
    for splits in reversed(nested_splits):
        value = RaggedTensor._make(value, splits)
    return value


def _slice(values: Any, start: Any, stop: Any) -> Any:
    if isinstance(values, RaggedTensor):
        return values._slice_rows(start, stop)
    return values[start:stop]


def _leading(values: Any) -> Tensor:
    """A tensor with as many rows as `values` (the tensor itself, or its row splits)."""
    return values._row_splits[1:] if isinstance(values, RaggedTensor) else values


def _values_operand(values: Any, op: str) -> Any:
    if isinstance(values, RaggedTensor):
        return values
    values = convert_to_tensor(values)
    shape = values._shape_tuple()
    if shape is not None and len(shape) == 0:
        refuse(ValueError, "RaggedTensor.%s: values must have at least one dimension, got a "
                           "scalar" % op)
    return values


def _numpy(tensor: Any, method: str) -> np.ndarray:
    if not isinstance(tensor, EagerTensor):
        refuse(ValueError, "RaggedTensor.%s() needs a RaggedTensor with a value, not one being "
                           "traced in a tf.function" % method)
    return tensor.numpy()


def _all_eager(value: RaggedTensor) -> bool:
    return all(isinstance(leaf, EagerTensor) for leaf in nest.flatten(value))


def _zero(dtype: dtypes.DType) -> Any:
    if dtype is dtypes.string:
        return b""
    return False if dtype is dtypes.bool_ else 0


class RaggedTensorSpec(CompositeSpec):
    """Describes a RaggedTensor argument: `RaggedTensorSpec(shape=None, dtype=tf.float32,
    ragged_rank=None, row_splits_dtype=tf.int64)`; the rank must be known, and
    `ragged_rank` defaults to rank - 1."""

    __slots__ = ("_shape", "dtype", "ragged_rank", "row_splits_dtype")
    _key_type = RaggedTensor
    _kind = "RaggedTensor"

    def __init__(self, shape: Any = None, dtype: Any = dtypes.float32,
                 ragged_rank: int | None = None, row_splits_dtype: Any = dtypes.int64) -> None:
        self._shape = shape_lib.normalize(shape)
        if ragged_rank == 0 and self._shape is not None and len(self._shape) >= 1:
            # TensorFlow's spec of a ragged tensor's row: a dense tensor that batches
            # (tf.data) into a RaggedTensor
            self.ragged_rank = 0
        else:
            if self._shape is None or len(self._shape) < 2:
                refuse(ValueError, "RaggedTensorSpec needs a known shape of rank 2 or more, "
                                   "got %s" % shape_lib.to_string(self._shape))
            rank = len(self._shape)
            self.ragged_rank = rank - 1 if ragged_rank is None else ragged_rank
            if not 1 <= self.ragged_rank < rank:
                refuse(ValueError, "RaggedTensorSpec: ragged_rank must be in [1, %d), got %d"
                                 % (rank, self.ragged_rank))
        self.dtype = dtypes.as_dtype(dtype)
        self.row_splits_dtype = dtypes.as_dtype(row_splits_dtype)

    @property
    def shape(self) -> shape_lib.TensorShape:
        """The shape described (None for ragged dimensions)."""
        return shape_lib.TensorShape(self._shape)

    def is_compatible_with(self, value: Any) -> bool:
        """True for a RaggedTensor of this dtype, ragged rank and a fitting shape (for
        ragged_rank 0, a dense tensor of this dtype and a fitting shape)."""
        if self.ragged_rank == 0:
            return (isinstance(value, Tensor) and value.dtype is self.dtype
                    and shape_lib.is_compatible(self._shape, value._shape_tuple()))
        return (isinstance(value, RaggedTensor) and value.dtype is self.dtype
                and value.ragged_rank == self.ragged_rank
                and shape_lib.is_compatible(self._shape, value._shape_tuple()))

    def _to_components(self) -> tuple[Any, ...]:
        shape: tuple[Any, ...] = self._shape or ()
        if self.ragged_rank == 0:
            return (TensorSpec(shape, self.dtype),)
        rows = shape[0]
        inner = [None] + list(shape[2:])
        if self.ragged_rank == 1:
            values: Any = TensorSpec(inner, self.dtype)
        else:
            values = RaggedTensorSpec(inner, self.dtype, self.ragged_rank - 1)
        return (values, TensorSpec([None if rows is None else rows + 1], dtypes.int64))

    def _from_components(self, components: list[Any]) -> Any:
        if self.ragged_rank == 0:
            return components[0]
        return RaggedTensor._make(*components)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RaggedTensorSpec) and (
            other._shape, other.dtype, other.ragged_rank) == (
                self._shape, self.dtype, self.ragged_rank)

    def __hash__(self) -> int:
        return hash((self._shape, self.dtype, self.ragged_rank))

    def __repr__(self) -> str:
        return "RaggedTensorSpec(TensorShape(%s), %r, %d, tf.int64)" % (
            list(self._shape or ()), self.dtype, self.ragged_rank)


register(RaggedTensor)
register(RaggedTensorSpec)
composite_dispatch.register_elementwise(RaggedTensor)

_OPERATORS = {
    "add": math_ops.add, "sub": math_ops.subtract, "mul": math_ops.multiply,
    "truediv": math_ops.truediv, "floordiv": math_ops.floordiv, "mod": math_ops.floormod,
    "pow": math_ops.pow,
}
for _name, _func in _OPERATORS.items():
    setattr(RaggedTensor, "__%s__" % _name, lambda x, y, f=_func: f(x, y))
    setattr(RaggedTensor, "__r%s__" % _name, lambda x, y, f=_func: f(y, x))
for _name, _func in {"lt": math_ops.less, "le": math_ops.less_equal, "gt": math_ops.greater,
                     "ge": math_ops.greater_equal}.items():
    setattr(RaggedTensor, "__%s__" % _name, lambda x, y, f=_func: f(x, y))


def _elementwise_equality(func: Any, otherwise: bool) -> Any:
    """== or != of a RaggedTensor: elementwise, as TensorFlow's; against None or a value
    that is no tensor, Python's answer."""
    def operator(x: RaggedTensor, y: Any) -> Any:
        if y is None:
            return otherwise
        try:
            return func(x, y)
        except (TypeError, ValueError):
            return otherwise
    return operator


RaggedTensor.__eq__ = _elementwise_equality(math_ops.equal, False)  # type: ignore[method-assign]
RaggedTensor.__ne__ = _elementwise_equality(math_ops.not_equal, True)  # type: ignore[method-assign]
# == compares elementwise, yet a RaggedTensor stays usable as a key by identity
RaggedTensor.__hash__ = object.__hash__  # type: ignore[method-assign]
for _name, _func in {"and": math_ops.logical_and, "or": math_ops.logical_or,
                     "xor": math_ops.logical_xor}.items():
    setattr(RaggedTensor, "__%s__" % _name, lambda x, y, f=_func: f(x, y))
    setattr(RaggedTensor, "__r%s__" % _name, lambda x, y, f=_func: f(y, x))
setattr(RaggedTensor, "__invert__", lambda x: math_ops.logical_not(x))
setattr(RaggedTensor, "__neg__", lambda x: math_ops.negative(x))
setattr(RaggedTensor, "__abs__", lambda x: math_ops.abs(x))


# -- tf.ragged.constant ----------------------------------------------------------------------


def _depth(value: Any) -> int:
    """The nesting depth of lists in `value` (0 for a scalar), the deepest branch."""
    if isinstance(value, (list, tuple)):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def _mixes_strings(items: list[Any]) -> bool:
    """Whether the scalars of `items` (nested lists) mix strings or bytes with others."""
    kinds: set[bool] = set()
    stack = list(items)
    while stack and len(kinds) < 2:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        else:
            kinds.add(isinstance(item, (str, bytes)))
    return len(kinds) > 1


def constant(pylist: Any, dtype: Any = None, ragged_rank: int | None = None,
             inner_shape: Any = None, name: str | None = None,
             row_splits_dtype: Any = dtypes.int64) -> Any:
    """A RaggedTensor from nested Python lists: each of the outer `ragged_rank` levels
    (default: all but the scalars, or but `inner_shape`'s dimensions) may hold lists of
    different lengths; the levels inside them must be uniform. A `ragged_rank` of 0 gives
    a dense tensor."""
    if isinstance(pylist, (Tensor, RaggedTensor)):
        refuse(TypeError, "tf.ragged.constant needs nested Python lists, got %s"
                          % type(pylist).__name__)
    depth = _depth(pylist)
    inner_rank = 0 if inner_shape is None else len(shape_lib.normalize(inner_shape) or ())
    if ragged_rank is None:
        ragged_rank = max(depth - 1 - inner_rank, 0)
    if not 0 <= ragged_rank < max(depth, 1):
        refuse(ValueError, "tf.ragged.constant: ragged_rank must be in [0, %d) for a value "
                         "nested %d deep, got %d" % (max(depth, 1), depth, ragged_rank))
    levels = []
    items = pylist
    for level in range(ragged_rank):
        splits, flat = [0], []  # type: list[int], list[Any]
        for row in items:
            if not isinstance(row, (list, tuple)):
                refuse(ValueError, "all scalar values must have the same nesting depth")
            flat.extend(row)
            splits.append(len(flat))
        levels.append(splits)
        items = flat
    if dtype is None and _mixes_strings(items):
        refuse(ValueError, "Can't convert Python sequence with mixed types to Tensor.")
    try:
        array, dt = to_numpy(items, dtype) if items or dtype is not None else \
            to_numpy(np.zeros((0,) + tuple(shape_lib.normalize(inner_shape) or ()),
                              np.float32))
    except (TypeError, ValueError) as e:
        refuse(ValueError, "tf.ragged.constant: the values inside the ragged dimensions must "
                           "be uniform scalars or lists: %s" % e)
    if array.dtype == object and dt is not dtypes.string:
        refuse(ValueError, "tf.ragged.constant: the values inside the ragged dimensions are "
                           "ragged or nested unevenly")
    if ragged_rank and array.ndim == 0:
        array = array.reshape(0)
    inner = shape_lib.normalize(inner_shape)
    if inner is not None and array.size and tuple(array.shape[1:]) != tuple(inner):
        refuse(ValueError, "tf.ragged.constant: the values inside the ragged dimensions have "
                           "shape %s, not inner_shape %s" % (
                               list(array.shape[1:]), list(inner)))
    value: Any = convert_to_tensor(array, dtype=dt)
    for splits in reversed(levels):
        value = RaggedTensor._make(value, convert_to_tensor(np.asarray(splits, np.int64)))
    return value
