"""Small tensor helpers that Keras's losses, metrics and layers share."""

from runtime import dtypes as _dtypes
from runtime.ops import math_ops as _math
from runtime.ops import reshape_ops as _reshape
from runtime.ops import selection_ops as _select
from runtime.ops.common import convert_to_tensor


def as_tensor(value, dtype="float32"):
    """`value` as a tensor of `dtype` (cast when it has another; Keras converts its
    inputs this way, so integer labels and float64 arrays both become float32)."""
    tensor = convert_to_tensor(value)
    if dtype is not None and tensor.dtype is not _dtypes.as_dtype(dtype):
        tensor = _math.cast(tensor, dtype)
    return tensor


def as_sparse(value, dtype="float32"):
    """The SparseTensor `value` with its values cast to `dtype` (Keras casts a sparse
    input as it casts a dense one)."""
    if dtype is not None and value.dtype is not _dtypes.as_dtype(dtype):
        return value.with_values(_math.cast(value.values, dtype))
    return value


def rank(tensor):
    """The number of dimensions of `tensor` (known statically in this runtime)."""
    return tensor.shape.rank


def squeeze_or_expand_to_same_rank(x1, x2, expand_rank_1=True):
    """`x1` and `x2` brought to the same rank when they differ by one trailing
    dimension of size 1 (a `(n, 1)` label against `(n,)` predictions, say): the higher one
    is squeezed, except that a rank-1 partner is expanded instead."""
    r1, r2 = rank(x1), rank(x2)
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = _reshape.expand_dims(x2, -1)
        else:
            x1 = _reshape.squeeze(x1, [-1])
    elif r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = _reshape.expand_dims(x1, -1)
        else:
            x2 = _reshape.squeeze(x2, [-1])
    return x1, x2


def divide_no_nan(numerator, denominator):
    """`numerator / denominator`, and 0 where the denominator is 0."""
    zero = _math.equal(denominator, 0.0)
    safe = _select.where(zero, _math.add(_math.multiply(denominator, 0.0), 1.0), denominator)
    return _select.where(zero, _math.multiply(numerator, 0.0), numerator / safe)
