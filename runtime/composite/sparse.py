"""SparseTensor: a tensor stored as the coordinates and values of its non-default elements.

    st = SparseTensor(indices=[[0, 1], [2, 0]], values=[1.0, 2.0], dense_shape=[3, 4])
    to_dense(st)   # [[0, 1, 0, 0], [0, 0, 0, 0], [2, 0, 0, 0]]

Its components are `indices` (int64, (nnz, rank)), `values` ((nnz,)) and `dense_shape`
(int64, (rank,)); staged control flow and Functions carry it as those three tensors (see
runtime.composite.base). A call's cache key holds the dtype and the rank, not the number of
stored values nor the dense shape, as a SparseTensorSpec describes them. It prints as
TensorFlow prints it (components as `print` shows tensors; `tf.print` shows their values).
This module holds the class, its spec and the functions that make or densify one;
sparse_layout and sparse_math hold the rest of `tf.sparse`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime import dtypes
from runtime import shape as shape_lib
from runtime.composite.base import (
    CompositeSpec,
    CompositeTensor,
    refuse,
    register,
    relax_leading_dim,
)
from runtime.ops import (
    array_ops,
    composite_dispatch,
    concat_split_ops,
    math_ops,
    reshape_ops,
    selection_ops,
    sparse_ops,
)
from runtime.ops.common import convert_to_tensor, partial_shape_value
from runtime.signature import TensorSpec
from runtime.tensor import EagerTensor, Tensor


def _int64(value: Any, what: str) -> Tensor:
    tensor = convert_to_tensor(value, dtype_hint=dtypes.int64)
    if not tensor.dtype.is_integer:
        refuse(TypeError, "SparseTensor: %s must be integers, got %s" % (what, tensor.dtype.name))
    return math_ops.cast(tensor, dtypes.int64)


def _require_rank(tensor: Tensor, rank: int, what: str, form: str) -> None:
    shape = tensor._shape_tuple()
    if shape is not None and len(shape) != rank:
        refuse(ValueError, "SparseTensor: %s must be %s, got shape %s"
                           % (what, form, shape_lib.to_string(shape)))


class SparseTensor(CompositeTensor):
    """`SparseTensor(indices, values, dense_shape)`: the tensor of shape `dense_shape` that
    holds `values[i]` at `indices[i]` and zero elsewhere. Indices should be in row-major
    order without repeats (`to_dense` checks it)."""

    __slots__ = ("_indices", "_values", "_dense_shape", "_static_shape")

    def __init__(self, indices: Any, values: Any, dense_shape: Any) -> None:
        indices = _int64(indices, "indices")
        values = convert_to_tensor(values)
        dense_shape = _int64(dense_shape, "dense_shape")
        _require_rank(indices, 2, "indices", "a matrix (nnz, rank)")
        _require_rank(values, 1, "values", "a vector (nnz,)")
        _require_rank(dense_shape, 1, "dense_shape", "a vector (rank,)")
        counts = [t._shape_tuple()[0] for t in (indices, values)]
        if None not in counts and counts[0] != counts[1]:
            refuse(ValueError, "SparseTensor: %d index rows but %d values" % tuple(counts))
        ranks = [indices._shape_tuple()[1], dense_shape._shape_tuple()[0]]
        if None not in ranks and ranks[0] != ranks[1]:
            refuse(ValueError, "SparseTensor: indices have %d columns but dense_shape has %d "
                               "entries" % tuple(ranks))
        self._set(indices, values, dense_shape)

    def _set(self, indices: Tensor, values: Tensor, dense_shape: Tensor) -> None:
        self._indices = indices
        self._values = values
        self._dense_shape = dense_shape
        self._static_shape = partial_shape_value(dense_shape)

    @classmethod
    def _make(cls, indices: Tensor, values: Tensor, dense_shape: Tensor) -> SparseTensor:
        sparse = cls.__new__(cls)
        sparse._set(indices, values, dense_shape)
        return sparse

    @property
    def indices(self) -> Tensor:
        """The coordinates of the stored values: int64, (nnz, rank)."""
        return self._indices

    @property
    def values(self) -> Tensor:
        """The stored values: (nnz,)."""
        return self._values

    @property
    def dense_shape(self) -> Tensor:
        """The shape of the dense tensor: int64, (rank,)."""
        return self._dense_shape

    @property
    def shape(self) -> shape_lib.TensorShape:
        """The static dense shape (None for what is known only at run time)."""
        return shape_lib.TensorShape(self._static_shape)

    def get_shape(self) -> shape_lib.TensorShape:
        """Same as `.shape`."""
        return self.shape

    @property
    def dtype(self) -> dtypes.DType:
        """The values' dtype."""
        return self._values.dtype

    @property
    def rank(self) -> int | None:
        """The number of dimensions, or None when unknown."""
        return None if self._static_shape is None else len(self._static_shape)

    def with_values(self, new_values: Any) -> SparseTensor:
        """The same coordinates holding `new_values`."""
        values = convert_to_tensor(new_values)
        _require_rank(values, 1, "values", "a vector (nnz,)")
        return SparseTensor._make(self._indices, values, self._dense_shape)

    def _scaled(self, other: Any, combine: Any, op: str) -> SparseTensor:
        """The same indices holding each value combined with the element of the dense
        `other` (broadcast to the dense shape) at its index."""
        if isinstance(other, SparseTensor):
            refuse(TypeError, "a SparseTensor %s a SparseTensor is not supported; use "
                              "tf.sparse.map_values on tensors of the same indices" % op)
        dense = convert_to_tensor(other, dtype_hint=self.dtype)
        dims, rank = dense._shape_tuple(), self.rank
        if dims is None or None in dims or rank is None or len(dims) > rank:
            refuse(ValueError, "a SparseTensor %s a dense tensor needs a dense operand of known "
                               "shape broadcasting to the sparse shape, got %s and %s"
                               % (op, shape_lib.to_string(dims), self.shape))
        lead = rank - len(dims)
        for k, d in enumerate(dims):
            size = self._static_shape[lead + k] if self._static_shape else None
            if d != 1 and size is not None and d != size:
                refuse(ValueError, "a SparseTensor %s a dense tensor: the dense shape %s does "
                                   "not broadcast to the sparse shape %s"
                                   % (op, shape_lib.to_string(dims), self.shape))
        # Each stored value's element of `dense`: its trailing coordinates, 0 where `dense`
        # has size 1. Sizes checked above when the sparse shape is static; otherwise only a
        # dense dimension too small is caught (by SparseGather's bounds check).
        columns = selection_ops.gather(self._indices, np.arange(lead, rank), axis=1)
        keep = np.asarray([0 if d == 1 else 1 for d in dims], np.int64)
        picked = sparse_ops.sparse_gather(dense, math_ops.multiply(columns, keep))
        return SparseTensor._make(self._indices, combine(self._values, picked),
                                  self._dense_shape)

    def __mul__(self, other: Any) -> SparseTensor:
        """`sp * dense`: a SparseTensor of the same indices, each value multiplied by the
        dense element (broadcast) at its index."""
        return self._scaled(other, math_ops.multiply, "*")

    def __truediv__(self, other: Any) -> SparseTensor:
        """`sp / dense`: a SparseTensor of the same indices, each value divided by the
        dense element (broadcast) at its index."""
        return self._scaled(other, math_ops.truediv, "/")

    # -- elementwise ops (runtime.ops.composite_dispatch) ----------------------------------
    def _elementwise_unary(self, api: Any, *args: Any, **kwargs: Any) -> SparseTensor:
        """`api` on the stored values, for the ops TensorFlow applies to a SparseTensor (those
        mapping zero to zero: tf.math.abs, negative, sign, square, sqrt, tanh, cast)."""
        if api not in _ZERO_PRESERVING:
            refuse(TypeError, "%s of a SparseTensor is not supported (it would change the "
                              "implicit zeros); apply it to the values with "
                              "tf.sparse.map_values, or to tf.sparse.to_dense(...)"
                              % _api_name(api))
        return SparseTensor._make(self._indices, api(self._values, *args, **kwargs),
                                  self._dense_shape)

    def _elementwise_binary(self, api: Any, x: Any, y: Any, **kwargs: Any) -> Any:
        refuse(TypeError, "%s of a SparseTensor is not supported: use tf.sparse.add, "
                          "tf.sparse.maximum, tf.sparse.minimum, tf.sparse.map_values, or a "
                          "SparseTensor * or / a dense tensor" % _api_name(api))

    def _print_parts(self) -> tuple[Any, ...]:
        """How tf.print shows it: text around the component tensors (TensorFlow's
        `SparseTensor(indices=[[0 0]...], values=[...], shape=[...])`)."""
        return ("SparseTensor(indices=", self._indices, ", values=", self._values,
                ", shape=", self._dense_shape, ")")

    def __repr__(self) -> str:
        # TensorFlow shows each component as print shows a tensor.
        return "SparseTensor(indices=%s, values=%s, dense_shape=%s)" % (
            self._indices, self._values, self._dense_shape)

    # -- composite protocol -----------------------------------------------------------------
    _kind = "SparseTensor"

    def _to_components(self) -> tuple[Any, ...]:
        return (self._indices, self._values, self._dense_shape)

    def _from_components(self, components: list[Any]) -> SparseTensor:
        return SparseTensor._make(*components)

    def _spec_from_components(self, specs: list[Any]) -> SparseTensorSpec:
        rank = specs[2]._shape[0] if specs[2]._shape else None
        return SparseTensorSpec(None if rank is None else [None] * rank, specs[1].dtype)

    def invariant_leaf_shapes(self, shape: Any) -> list[Any]:
        dims = shape_lib.normalize(shape)
        rank = None if dims is None else len(dims)
        if None not in (rank, self.rank) and rank != self.rank:
            refuse(ValueError, "the shape invariant %s of a SparseTensor of shape %s has "
                               "another rank" % (shape_lib.to_string(dims), self.shape))
        return [(None, rank), (None,), (rank,)]

    def _relax_component_keys(self, keys: tuple[Any, ...]) -> tuple[Any, ...]:
        indices, values, dense_shape = keys
        return (relax_leading_dim(indices), relax_leading_dim(values), dense_shape)


class SparseTensorSpec(CompositeSpec):
    """Describes a SparseTensor argument: `SparseTensorSpec(shape=None, dtype=tf.float32)`
    (a None dimension, or `shape=None` for any rank, matches any size)."""

    __slots__ = ("_shape", "dtype")
    _key_type = SparseTensor
    _kind = "SparseTensor"

    def __init__(self, shape: Any = None, dtype: Any = dtypes.float32) -> None:
        self._shape = shape_lib.normalize(shape)
        self.dtype = dtypes.as_dtype(dtype)

    @property
    def shape(self) -> shape_lib.TensorShape:
        """The dense shape described."""
        return shape_lib.TensorShape(self._shape)

    def is_compatible_with(self, value: Any) -> bool:
        """True for a SparseTensor of this dtype whose dense shape fits."""
        if not isinstance(value, SparseTensor) or value.dtype is not self.dtype:
            return False
        if isinstance(value.dense_shape, EagerTensor):
            return shape_lib.is_compatible(self._shape, tuple(value.dense_shape.numpy()))
        return value.rank is None or self._shape is None or value.rank == len(self._shape)

    def _to_components(self) -> tuple[Any, ...]:
        rank = None if self._shape is None else len(self._shape)
        return (TensorSpec([None, rank], dtypes.int64), TensorSpec([None], self.dtype),
                TensorSpec([rank], dtypes.int64))

    def _from_components(self, components: list[Any]) -> SparseTensor:
        """A SparseTensor of these components whose static shape also holds what this spec
        knows (an argument of a Function with an input_signature: `to_dense` of a
        `SparseTensorSpec([3, 4])` argument has shape (3, 4), as in TensorFlow)."""
        sparse = SparseTensor._make(*components)
        known, spec = sparse._static_shape, self._shape
        if spec is not None and (known is None or len(known) == len(spec)):
            sparse._static_shape = tuple(
                s if k is None else k for s, k in zip(spec, known or (None,) * len(spec)))
        return sparse

    def _relax_component_keys(self, keys: tuple[Any, ...]) -> tuple[Any, ...]:
        return keys

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SparseTensorSpec) and other._shape == self._shape \
            and other.dtype is self.dtype

    def __hash__(self) -> int:
        return hash((self._shape, self.dtype))

    def __repr__(self) -> str:
        return "SparseTensorSpec(%r, %r)" % (self.shape, self.dtype)  # as TensorFlow shows it


register(SparseTensor)
register(SparseTensorSpec)
composite_dispatch.register_elementwise(SparseTensor)

_ZERO_PRESERVING = frozenset([math_ops.abs, math_ops.negative, math_ops.sign, math_ops.square,
                              math_ops.sqrt, math_ops.tanh, math_ops.cast])


def _api_name(api: Any) -> str:
    name = getattr(api, "__name__", "<lambda>")
    return "tf.%s" % name if name != "<lambda>" else "an elementwise op"


def require_sparse(value: Any, op: str, what: str = "sp_input") -> SparseTensor:
    """`value`, refused with a TypeError naming `op` unless it is a SparseTensor."""
    if not isinstance(value, SparseTensor):
        refuse(TypeError, "%s: %s must be a SparseTensor, got %s" % (op, what,
                                                                 type(value).__name__))
    return value


def _zero(dtype: dtypes.DType) -> Any:
    if dtype is dtypes.string:
        return b""
    return False if dtype is dtypes.bool_ else 0


def to_dense(sp_input: SparseTensor, default_value: Any = None, validate_indices: bool = True,
             name: str | None = None) -> Tensor:
    """The dense tensor: `default_value` (zero) where nothing is stored. With
    `validate_indices`, indices out of row-major order or repeated raise
    InvalidArgumentError; out-of-range indices always do."""
    sp = require_sparse(sp_input, "tf.sparse.to_dense")
    default = _zero(sp.dtype) if default_value is None else default_value
    return sparse_ops.sparse_to_dense(sp.indices, sp.values, sp.dense_shape, default,
                                      sp._static_shape, validate=validate_indices)


def from_dense(tensor: Any, name: str | None = None) -> SparseTensor:
    """The SparseTensor of `tensor`'s non-zero elements, in row-major order."""
    tensor = convert_to_tensor(tensor)
    zero = convert_to_tensor(_zero(tensor.dtype), dtype=tensor.dtype)
    indices = selection_ops.where(math_ops.not_equal(tensor, zero))
    values = sparse_ops.sparse_gather(tensor, indices)
    return SparseTensor._make(indices, values, array_ops.shape(tensor, out_type=dtypes.int64))


def eye(num_rows: Any, num_columns: Any = None, dtype: Any = dtypes.float32,
        name: str | None = None) -> SparseTensor:
    """The sparse [num_rows, num_columns] matrix (square when `num_columns` is None) with
    ones on its diagonal."""
    rows = _int64(num_rows, "num_rows")
    columns = rows if num_columns is None else _int64(num_columns, "num_columns")
    diagonal = array_ops.range(math_ops.minimum(rows, columns), dtype=dtypes.int64)
    indices = concat_split_ops.stack([diagonal, diagonal], axis=1)
    values = array_ops.ones(reshape_ops.reshape(
        array_ops.shape(diagonal, out_type=dtypes.int64), [1]), dtype=dtypes.as_dtype(dtype))
    shape = concat_split_ops.stack([rows, columns])
    return SparseTensor._make(indices, values, shape)


def add(a: Any, b: Any, threshold: Any = 0, name: str | None = None) -> Any:
    """`a + b`. Two SparseTensors give a SparseTensor storing the union of their indices (a
    sum whose magnitude is below `threshold` is dropped); a SparseTensor and a dense tensor
    give a dense tensor."""
    a_sparse, b_sparse = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if a_sparse and b_sparse:
        if a.dtype is not b.dtype:
            refuse(TypeError, "tf.sparse.add: the operands' values are %s and %s"
                              % (a.dtype.name, b.dtype.name))
        if isinstance(threshold, EagerTensor):
            threshold = threshold.numpy()
        if isinstance(threshold, Tensor):
            refuse(TypeError, "tf.sparse.add: threshold must be a number known while "
                              "tracing, got a symbolic tensor")
        indices, values = sparse_ops.sparse_add(a._to_components(), b._to_components(),
                                                float(threshold))
        return SparseTensor._make(indices, values, a.dense_shape)
    if a_sparse:
        return math_ops.add(to_dense(a), b)
    if b_sparse:
        return math_ops.add(a, to_dense(b))
    refuse(TypeError, "At least one input should be SparseTensor; do you mean to use "
                      "tf.add()?")


def sparse_dense_matmul(sp_a: Any, b: Any, adjoint_a: bool = False, adjoint_b: bool = False,
                        name: str | None = None) -> Tensor:
    """The matrix product of a sparse and a dense matrix (either side sparse), each
    optionally transposed (`adjoint_a`, `adjoint_b`), as a dense matrix."""
    if isinstance(b, SparseTensor) and not isinstance(sp_a, SparseTensor):
        # a @ b == (b^T @ a^T)^T, with the adjoints moving to the other operand.
        from_right = sparse_dense_matmul(b, sp_a, adjoint_a=not adjoint_b,
                                         adjoint_b=not adjoint_a)
        return reshape_ops.transpose(from_right)
    sp = require_sparse(sp_a, "tf.sparse.sparse_dense_matmul", "sp_a")
    b = convert_to_tensor(b, dtype_hint=sp.dtype)
    static = sp._static_shape
    rows = None if static is None else static[1 if adjoint_a else 0]
    return sparse_ops.sparse_dense_matmul(sp.indices, sp.values, sp.dense_shape, b, rows,
                                          adjoint_a=adjoint_a, adjoint_b=adjoint_b)
