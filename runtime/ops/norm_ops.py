"""Norms, norm-based clipping and spreads: norm, reduce_euclidean_norm, l2_normalize,
clip_by_norm, clip_by_global_norm, reduce_logsumexp, reduce_variance and reduce_std,
composites of existing ops as in TensorFlow (their
gradients come with those ops, and they compute the same values: e.g. clip_by_norm leaves a
zero tensor zero).
"""

from typing import Any

import numpy as np

from runtime import dtypes
from runtime.ops import array_ops, common, math_ops, reduction_ops, selection_ops
from runtime.ops.common import convert_to_tensor
from runtime.tensor import Tensor


def _axes(axis):
    if axis is None:
        return None
    return common.static_int_list(axis, "axis")


def _require_float(tensor, what):
    if not tensor.dtype.is_floating:
        raise TypeError("%s: expected a float tensor, got %s" % (what, tensor.dtype.name))


def _require_inexact(tensor, what):
    if not (tensor.dtype.is_floating or tensor.dtype.is_complex):
        raise TypeError("%s: expected a float or complex tensor, got %s"
                        % (what, tensor.dtype.name))


def _sum_of_squares(x, axes, keepdims):
    """sum(x * conj(x)) over `axes`: of x's own dtype, complex for a complex x (with a zero
    imaginary part), as TensorFlow computes the euclidean norm."""
    squares = math_ops.multiply(x, math_ops.conj(x)) if x.dtype.is_complex else \
        math_ops.square(x)
    return reduction_ops.reduce_sum(squares, axes, keepdims)


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(|x| ** 2)) over `axis` (all elements when None), of x's dtype: complex for a
    complex x, and for an integer x the root rounded down, as TensorFlow's EuclideanNorm."""
    x = convert_to_tensor(input_tensor)
    axes = _axes(axis)
    if x.dtype.is_integer:
        wide = math_ops.cast(x, dtypes.float64)
        root = math_ops.sqrt(_sum_of_squares(wide, axes, keepdims))
        return math_ops.cast(math_ops.floor(root), x.dtype, name=name)
    _require_inexact(x, "reduce_euclidean_norm")
    if not x.dtype.is_complex:
        return math_ops.sqrt(_sum_of_squares(x, axes, keepdims), name=name)
    # TensorFlow's EuclideanNorm gradient is g * x / norm, where the composite's (tf.norm's)
    # is x * conj(g / norm). sum(x * conj(x)) written as 2 sum(x * c) - sum(x * c), c = conj(x)
    # held constant, has the same value (exactly: doubling and halving are exact) and
    # gradient 2 g x, which sqrt turns into TensorFlow's g * x / norm.
    held = array_ops.stop_gradient(math_ops.conj(x))
    linear = reduction_ops.reduce_sum(math_ops.multiply(x, held), axes, keepdims)
    squares = math_ops.subtract(math_ops.multiply(linear, 2.0),
                                array_ops.stop_gradient(linear))
    return math_ops.sqrt(squares, name=name)


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """log(sum(exp(x))) over `axis`, computed stably (the maximum is taken out first)."""
    x = convert_to_tensor(input_tensor)
    _require_float(x, "reduce_logsumexp")
    axes = _axes(axis)
    peak = array_ops.stop_gradient(reduction_ops.reduce_max(x, axes, keepdims=True))
    peak = selection_ops.where(math_ops.is_finite(peak), peak, array_ops.zeros_like(peak))
    total = reduction_ops.reduce_sum(math_ops.exp(math_ops.subtract(x, peak)), axes,
                                     keepdims=keepdims)
    if not keepdims:
        peak = reduction_ops.reduce_sum(peak, axes, keepdims=False)  # drops the kept axes
    return math_ops.add(math_ops.log(total), peak, name=name)


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The variance over `axis` (all elements when None), mean(|x - mean(x)| ** 2), as
    TensorFlow composes it: real for a complex x."""
    x = convert_to_tensor(input_tensor)
    _require_inexact(x, "reduce_variance")
    axes = _axes(axis)
    deviations = math_ops.subtract(x, reduction_ops.reduce_mean(x, axes, keepdims=True))
    if x.dtype.is_complex:
        deviations = math_ops.abs(deviations)
    return reduction_ops.reduce_mean(math_ops.square(deviations), axes, keepdims, name=name)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """The standard deviation over `axis`: the square root of `reduce_variance`."""
    x = convert_to_tensor(input_tensor)
    _require_inexact(x, "reduce_std")
    return math_ops.sqrt(reduce_variance(x, axis, keepdims), name=name)


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(|x| ** 2, axis), epsilon)) (all elements when `axis` is None; `dim`
    is its old name), as TensorFlow computes it: a zero vector stays zero."""
    if dim is not None:
        if axis is not None:
            raise ValueError("l2_normalize: give axis or dim, not both")
        axis = dim
    x = convert_to_tensor(x)
    _require_inexact(x, "l2_normalize")
    axes = _axes(axis)
    if not x.dtype.is_complex:
        squares = reduction_ops.reduce_sum(math_ops.square(x), axes, keepdims=True)
        return math_ops.multiply(x, math_ops.rsqrt(math_ops.maximum(squares, epsilon)),
                                 name=name)
    real, imag = math_ops.real(x), math_ops.imag(x)
    squares = reduction_ops.reduce_sum(math_ops.add(math_ops.square(real), math_ops.square(imag)),
                                       axes, keepdims=True)
    inverse = math_ops.rsqrt(math_ops.maximum(squares, epsilon))
    return math_ops.complex(math_ops.multiply(real, inverse), math_ops.multiply(imag, inverse),
                            name=name)


def norm(tensor, ord="euclidean", axis=None, keepdims=False, name=None):  # noqa: A002
    """The vector norm of `tensor` over `axis` (all elements when None): `ord` 'euclidean' (or
    2), 1, a positive p, or np.inf; over two axes, 'fro'/'euclidean' (Frobenius), 1 or np.inf
    (matrix norms: largest column / row sum)."""
    x = convert_to_tensor(tensor)
    _require_inexact(x, "norm")
    axes = _axes(axis)
    if axes is not None and len(axes) == 2:
        return _matrix_norm(x, ord, axes, keepdims, name)
    if axes is not None and len(axes) != 1:
        raise ValueError("norm: axis must be None, an int or a pair of ints, got %r" % (axis,))
    if ord in ("euclidean", "fro", 2, 2.0):
        if ord == "fro" and axes is not None:
            raise ValueError("norm: ord 'fro' needs two axes")
        return math_ops.sqrt(_sum_of_squares(x, axes, keepdims), name=name)
    magnitude = math_ops.abs(x)
    if ord == np.inf:
        return reduction_ops.reduce_max(magnitude, axes, keepdims, name=name)
    if ord == 1:
        return reduction_ops.reduce_sum(magnitude, axes, keepdims, name=name)
    if isinstance(ord, (int, float)) and not isinstance(ord, bool) and ord > 0:
        total = reduction_ops.reduce_sum(math_ops.pow(magnitude, float(ord)), axes, keepdims)
        return math_ops.pow(total, 1.0 / ord, name=name)
    raise ValueError("norm: ord must be 'euclidean', 'fro', a positive number or np.inf, got "
                     "%r" % (ord,))


def _matrix_norm(x, ord, axes, keepdims, name):  # noqa: A002
    if ord in ("euclidean", "fro"):
        return math_ops.sqrt(_sum_of_squares(x, axes, keepdims), name=name)
    if ord not in (1, np.inf):
        raise ValueError("norm: over two axes ord must be 'fro', 'euclidean', 1 or np.inf, "
                         "got %r" % (ord,))
    # 1: the largest sum over rows (axes[0]) of a column; inf: over columns of a row
    inner, outer = (axes[0], axes[1]) if ord == 1 else (axes[1], axes[0])
    sums = reduction_ops.reduce_sum(math_ops.abs(x), inner, keepdims=True)
    result = reduction_ops.reduce_max(sums, outer, keepdims=True)
    if keepdims:
        return array_ops.identity(result, name=name)
    return reduction_ops.reduce_sum(result, list(axes), keepdims=False, name=name)


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """`t` scaled so that its L2 norm over `axes` is at most `clip_norm`
    (t * clip_norm / max(norm, clip_norm))."""
    t = convert_to_tensor(t)
    _require_float(t, "clip_by_norm")
    clip_norm = convert_to_tensor(clip_norm, dtype_hint=t.dtype)
    squares = reduction_ops.reduce_sum(math_ops.square(t), _axes(axes), keepdims=True)
    positive = math_ops.greater(squares, 0)
    safe = selection_ops.where(positive, squares, array_ops.ones_like(squares))
    l2 = selection_ops.where(positive, math_ops.sqrt(safe), squares)
    scaled = math_ops.multiply(t, clip_norm)
    return math_ops.truediv(scaled, math_ops.maximum(l2, clip_norm), name=name)


def global_norm(t_list, name=None):
    """sqrt(sum of the squared L2 norms of the tensors in `t_list`; None entries skipped)."""
    tensors = [convert_to_tensor(t) for t in t_list if t is not None]
    if not tensors:
        raise ValueError("global_norm needs at least one tensor")
    squares = [reduction_ops.reduce_sum(math_ops.square(t)) for t in tensors]
    return math_ops.sqrt(math_ops.add_n(squares), name=name)


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """(the tensors of `t_list` scaled by clip_norm / max(global_norm, clip_norm), the global
    norm); None entries stay None. A NaN or infinite global norm makes every value NaN."""
    if isinstance(t_list, Tensor) or not isinstance(t_list, (list, tuple)):
        raise TypeError("clip_by_global_norm: t_list must be a sequence of tensors")
    norm_value = global_norm(t_list) if use_norm is None else convert_to_tensor(use_norm)
    clip_norm = convert_to_tensor(clip_norm, dtype_hint=norm_value.dtype)
    one = convert_to_tensor(1.0, dtype_hint=norm_value.dtype)
    scale = math_ops.multiply(clip_norm, math_ops.minimum(math_ops.truediv(one, norm_value),
                                                          math_ops.truediv(one, clip_norm)))
    # norm - norm is 0, or NaN for an infinite or NaN norm: then every value is NaN
    scale = math_ops.add(scale, math_ops.subtract(norm_value, norm_value))
    clipped: list[Any] = []
    for t in t_list:
        if t is None:
            clipped.append(None)
            continue
        t = convert_to_tensor(t)
        clipped.append(math_ops.multiply(t, math_ops.cast(scale, t.dtype)))
    return clipped, norm_value
