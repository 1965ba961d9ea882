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

from typing import Any

import numpy as np

from runtime import dtypes, nest
from runtime import shape as shape_lib
from runtime.composite.base import (
    CompositeSpec,
    CompositeTensor,
    refuse,
    register,
    relax_leading_dim,
)
from runtime.operators import loops
from runtime.ops import array_ops, composite_dispatch, math_ops, ragged_ops
from runtime.ops.common import convert_to_tensor
from runtime.signature import TensorSpec
from runtime.tensor import EagerTensor, Tensor, to_numpy


class RaggedTensor(CompositeTensor):
    """A tensor with ragged rows; made by `tf.ragged.constant`, `from_row_splits` or
    `from_row_lengths` (see the module docstring)."""

    __slots__ = ("_values", "_row_splits")
    # Makes numpy defer to our reflected operators (`np.float32(2) * rt` gives a RaggedTensor).
    __array_priority__ = 100

    def __init__(self, values: Any, row_splits: Any) -> None:
        """The rows of `values` split at `row_splits` (checked, as `from_row_splits`)."""
        made = RaggedTensor.from_row_splits(values, row_splits)
        self._values: Any = made._values
        self._row_splits: Tensor = made._row_splits

    @classmethod
    def _make(cls, values: Any, row_splits: Tensor) -> RaggedTensor:
        ragged = cls.__new__(cls)
        ragged._values = values
        ragged._row_splits = row_splits
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
        return (rows, None) + tuple(inner)

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
        """int64 (nrows,): the length of each row (`axis=2`: of each row of the values)."""
        if axis == 1:
            return math_ops.subtract(self._row_splits[1:], self._row_splits[:-1])
        if axis > 1 and isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.row_lengths(axis - 1))
        refuse(ValueError, "RaggedTensor.row_lengths: axis %r is not a ragged dimension of a "
                           "tensor of shape %s" % (axis, shape_lib.to_string(self._shape_tuple())))

    def with_values(self, new_values: Any) -> RaggedTensor:
        """The same row partition over `new_values` (as many rows as `values` has)."""
        return RaggedTensor._make(new_values, self._row_splits)

    def with_flat_values(self, new_values: Any) -> RaggedTensor:
        """The same (nested) row partitions over new innermost values."""
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        return self.with_values(new_values)

    # -- conversion ---------------------------------------------------------------------------
    def to_tensor(self, default_value: Any = None, name: str | None = None,
                  shape: Any = None) -> Tensor:
        """The rows padded with `default_value` (zero) to the longest one, as a dense tensor
        (nrows, longest row, ...); gradients flow back to the values."""
        if shape is not None:
            refuse(NotImplementedError, "RaggedTensor.to_tensor(shape=...) is not supported: "
                                        "pad to the longest row, then slice or tf.pad")
        values = self._values
        if isinstance(values, RaggedTensor):
            values = values.to_tensor(default_value)
        default = _zero(self.dtype) if default_value is None else default_value
        return ragged_ops.ragged_to_dense(values, self._row_splits, default)

    def to_list(self) -> list[Any]:
        """The rows as nested Python lists (eager tensors only)."""
        splits = _numpy(self._row_splits, "to_list")
        inner = self._values.to_list() if isinstance(self._values, RaggedTensor) else \
            _numpy(self._values, "to_list").tolist()
        return [inner[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]

    def numpy(self) -> np.ndarray:
        """The rows as a numpy object array of arrays (eager tensors only)."""
        rows = np.empty(len(_numpy(self._row_splits, "numpy")) - 1, dtype=np.object_)
        for i, row in enumerate(self):
            rows[i] = row.numpy()
        return rows

    # -- rows ---------------------------------------------------------------------------------
    def _slice_rows(self, start: Any, stop: Any) -> RaggedTensor:
        """Rows start..stop-1 (scalar ints or tensors), as a RaggedTensor."""
        splits = self._row_splits[start:stop + 1]
        first, last = splits[0], splits[-1]
        return RaggedTensor._make(_slice(self._values, first, last),
                                  math_ops.subtract(splits, first))

    def _row(self, i: Any) -> Any:
        return _slice(self._values, self._row_splits[i], self._row_splits[i + 1])

    def __getitem__(self, key: Any) -> Any:
        """Row `key` (an int or scalar int tensor); a slice of rows (step 1, int bounds) as
        a RaggedTensor."""
        rows = self._shape_tuple()[0]
        if isinstance(key, slice) and key.step in (None, 1) and \
                all(b is None or isinstance(b, int) for b in (key.start, key.stop)):
            if rows is not None:
                start, stop, _ = key.indices(rows)
                return self._slice_rows(start, max(start, stop))
            if (key.start or 0) >= 0 and (key.stop is None or key.stop >= (key.start or 0)):
                end = self.nrows() if key.stop is None else math_ops.minimum(
                    self.nrows(), key.stop)
                return self._slice_rows(key.start or 0, end)
            refuse(TypeError, "RaggedTensor: a slice of rows with negative or decreasing "
                              "bounds needs a number of rows known while tracing")
        if isinstance(key, int) and key < 0:
            key = math_ops.add(self.nrows(), key) if rows is None else key + rows
        if isinstance(key, (int, Tensor)):
            return self._row(key)
        refuse(TypeError, "RaggedTensor indices must be an int, a scalar int tensor or a slice "
                          "of rows, got %r" % (key,))

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
            return "<tf.RaggedTensor %s>" % (self.to_list(),)
        return "tf.RaggedTensor(values=%r, row_splits=%r)" % (self._values, self._row_splits)

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
        if dense_shape is None or inner is None or len(dense_shape) > len(inner) - 1:
            refuse(ValueError,
                "an elementwise op between a RaggedTensor of shape %s and a dense operand of "
                "shape %s: the dense operand may only broadcast against the uniform inner "
                "dimensions %s" % (ragged.shape, shape_lib.to_string(dense_shape),
                                   shape_lib.to_string(None if inner is None else inner[1:])))
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
        if self._shape is None or len(self._shape) < 2:
            refuse(ValueError, "RaggedTensorSpec needs a known shape of rank 2 or more, got %s"
                               % shape_lib.to_string(self._shape))
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
        """True for a RaggedTensor of this dtype, ragged rank and a fitting shape."""
        return (isinstance(value, RaggedTensor) and value.dtype is self.dtype
                and value.ragged_rank == self.ragged_rank
                and shape_lib.is_compatible(self._shape, value._shape_tuple()))

    def _to_components(self) -> tuple[Any, ...]:
        shape: tuple[Any, ...] = self._shape or ()
        rows = shape[0]
        inner = [None] + list(shape[2:])
        if self.ragged_rank == 1:
            values: Any = TensorSpec(inner, self.dtype)
        else:
            values = RaggedTensorSpec(inner, self.dtype, self.ragged_rank - 1)
        return (values, TensorSpec([None if rows is None else rows + 1], dtypes.int64))

    def _from_components(self, components: list[Any]) -> RaggedTensor:
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
setattr(RaggedTensor, "__neg__", lambda x: math_ops.negative(x))
setattr(RaggedTensor, "__abs__", lambda x: math_ops.abs(x))


# -- tf.ragged.constant ----------------------------------------------------------------------


def _depth(value: Any) -> int:
    """The nesting depth of lists in `value` (0 for a scalar), the deepest branch."""
    if isinstance(value, (list, tuple)):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


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
                refuse(ValueError, "tf.ragged.constant: all scalars must be nested equally "
                                   "deep; found %r at depth %d" % (row, level + 1))
            flat.extend(row)
            splits.append(len(flat))
        levels.append(splits)
        items = flat
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
