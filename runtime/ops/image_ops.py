"""Image ops (`tf.image`): brightness and contrast, standardisation, flips and quarter turns,
resizing by nearest neighbour or bilinear interpolation, conversion between pixel dtypes and
to grayscale.

Images are tensors of shape `[height, width, channels]`, or `[batch, height, width,
channels]`. As in TensorFlow, a function an image op of TensorFlow's C++ kernels computes
(AdjustContrastv2, ResizeBilinear, ResizeNearestNeighbor and the two resize gradients) is an
op declared here; the others are written with the ops of other families, so that their
gradients are those ops' gradients. AdjustContrastv2 has no gradient in TensorFlow: asking
for one raises its LookupError. Integer images hold pixels scaled to their dtype's maximum,
float images pixels in [0, 1]: `convert_image_dtype` maps one onto the other, and the
adjustments compute on float32 pixels and convert back, saturating.

Resizing follows TensorFlow 2's `tf.image.resize`: pixel centres at half-integers
(`half_pixel_centers`), source positions computed in float32 as TensorFlow's kernels
compute them, so that the values agree with TensorFlow's.
"""

from typing import Any

import numpy as np

from runtime import dtypes, errors, lowering_api
from runtime import shape as shape_lib
from runtime.ops import (
    array_ops,
    common,
    layout_ops,
    math_ops,
    reduction_ops,
    reshape_ops,
)
from runtime.ops.common import SpecError, convert_to_tensor
from runtime.ops.registry import KERNEL_CALL, NO_GRADIENT, execute1, register

OPS = {}

_NOT_LOWERED = {"array": lowering_api.unsupported(
    "image ops are not lowered: they run on the numpy executor")}


# -- AdjustContrastv2 -----------------------------------------------------------------------


def _adjust_contrast_infer(specs, attrs):
    (dtype, shape), (factor_dtype, factor_shape) = specs
    common.require_kind(dtype, {"float"}, "images")
    common.require_kind(factor_dtype, {"float"}, "contrast_factor")
    if shape is not None and len(shape) < 3:
        raise SpecError("shape", "Shape must be at least rank 3 but is rank %d" % len(shape),
                        "input must be at least 3-D, got shape%s" % shape_lib.kernel_string(shape))
    if factor_shape is not None and len(factor_shape) != 0:
        raise SpecError("shape", "Shape must be rank 0 but is rank %d" % len(factor_shape),
                        "contrast_factor must be scalar: %s"
                        % shape_lib.kernel_string(factor_shape))
    return [(dtype, shape)]


def _adjust_contrast_kernel(images, contrast_factor):
    images = np.asarray(images)
    if images.ndim < 3:
        raise errors.kernel_check_failed("input must be at least 3-D, got shape%s"
                                         % shape_lib.kernel_string(images.shape))
    if np.ndim(contrast_factor) != 0:
        raise errors.kernel_check_failed("contrast_factor must be scalar: %s"
                                         % shape_lib.kernel_string(np.shape(contrast_factor)))
    if images.size == 0:
        return images.copy()
    pixels = images.astype(np.float32)
    height, width, channels = images.shape[-3:]
    flat = pixels.reshape(-1, height * width, channels)
    mean = _folded_sum(flat) * (np.float32(1) / np.float32(height * width))
    return (mean + np.float32(contrast_factor) * (flat - mean)).reshape(
        images.shape).astype(images.dtype)


def _folded_sum(planes):
    """The sums over axis 1 of `planes` (batch, pixels, channels), keeping that axis, added
    in TensorFlow's order: the second half of the pixels is added onto the first half until
    one pixel is left (the odd one out is carried), so that float32 sums are TensorFlow's."""
    remaining = planes.shape[1]
    if remaining == 0:
        return np.zeros(planes.shape[:1] + (1,) + planes.shape[2:], np.float32)
    sums = planes.copy()
    while remaining > 1:
        right = remaining // 2
        left = remaining - right
        sums[:, :right] += sums[:, left:left + right]
        remaining = left
    return sums[:, :1]


OPS["AdjustContrastv2"] = register(
    "AdjustContrastv2", _adjust_contrast_kernel, _adjust_contrast_infer,
    grad=NO_GRADIENT, emit=KERNEL_CALL, lowerings=_NOT_LOWERED)


# -- resizing -------------------------------------------------------------------------------


def _resize_infer(output_dtype):
    def infer(specs, attrs):
        (dtype, shape), (size_dtype, size_shape) = specs
        common.require_kind(dtype, {"int", "uint", "float"}, "images")
        common.require_kind(size_dtype, {"int"}, "size")
        if shape is not None and len(shape) != 4:
            raise SpecError("shape", "Shape must be rank 4 but is rank %d" % len(shape),
                            "input must be 4-dimensional%s" % shape_lib.kernel_string(shape))
        if size_shape is not None and tuple(size_shape) not in ((2,), (None,)):
            raise SpecError("shape", "size must be a 1-D tensor of 2 elements, got shape %s"
                            % shape_lib.kernel_string(size_shape),
                            "shape_t must have two elements%s"
                            % shape_lib.kernel_string(size_shape))
        new_height, new_width = attrs["static_shape"]
        out = None if shape is None else (shape[0], new_height, new_width, shape[3])
        return [(output_dtype or dtype, out)]
    return infer


def _checked_resize(images, size):
    """(images as an array, new height, new width), refusing what TensorFlow's resize
    kernels refuse in their words."""
    images = np.asarray(images)
    if images.ndim != 4:
        raise errors.kernel_check_failed("input must be 4-dimensional%s"
                                         % shape_lib.kernel_string(images.shape))
    new_height, new_width = (int(s) for s in np.reshape(size, [-1]))
    if new_height <= 0 or new_width <= 0:
        raise errors.kernel_check_failed("output dimensions must be positive")
    if images.shape[1] == 0 or images.shape[2] == 0:
        raise errors.kernel_check_failed("input image must be of non-zero size")
    return images, new_height, new_width


def _half_pixel_positions(in_size, out_size):
    """Where each of `out_size` output pixels samples an axis of `in_size` pixels: (lower
    index, upper index, weight of the upper) for bilinear interpolation, the positions
    computed in float32 as TensorFlow's kernel computes them."""
    scale = np.float32(in_size) / np.float32(out_size)
    at = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale - np.float32(0.5)
    below = np.floor(at)
    lower = np.maximum(below.astype(np.int64), 0)
    upper = np.minimum(np.ceil(at).astype(np.int64), in_size - 1)
    return lower, upper, (at - below).astype(np.float32)


def _nearest_positions(in_size, out_size):
    """The input pixel each of `out_size` output pixels copies along an axis of `in_size`."""
    scale = np.float32(in_size) / np.float32(out_size)
    at = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale
    return np.clip(np.floor(at).astype(np.int64), 0, in_size - 1)


def _resize_bilinear_kernel(images, size, static_shape):
    images, new_height, new_width = _checked_resize(images, size)
    top, bottom, y_weight = _half_pixel_positions(images.shape[1], new_height)
    left, right, x_weight = _half_pixel_positions(images.shape[2], new_width)
    pixels = images.astype(np.float32)
    x_weight = x_weight[None, None, :, None]
    upper_rows, lower_rows = pixels[:, top], pixels[:, bottom]
    upper = upper_rows[:, :, left] + (upper_rows[:, :, right] - upper_rows[:, :, left]) * x_weight
    lower = lower_rows[:, :, left] + (lower_rows[:, :, right] - lower_rows[:, :, left]) * x_weight
    return upper + (lower - upper) * y_weight[None, :, None, None]


def _pixels_at(rows: np.ndarray, cols: np.ndarray) -> Any:
    """The index of the pixels at `rows` x `cols` of every image of a batch (for np.add.at,
    which adds each repeated pixel's share)."""
    return (slice(None), rows[:, None], cols[None, :])


def _resize_bilinear_grad_kernel(grads, original):
    grads = np.asarray(grads, np.float32)
    original = np.asarray(original)
    top, bottom, y_weight = _half_pixel_positions(original.shape[1], grads.shape[1])
    left, right, x_weight = _half_pixel_positions(original.shape[2], grads.shape[2])
    result = np.zeros(original.shape, np.float32)
    y_weight = y_weight[None, :, None, None]
    x_weight = x_weight[None, None, :, None]
    for rows, row_weight in ((top, 1 - y_weight), (bottom, y_weight)):
        for cols, col_weight in ((left, 1 - x_weight), (right, x_weight)):
            np.add.at(result, _pixels_at(rows, cols), grads * row_weight * col_weight)
    return result.astype(original.dtype)


def _resize_bilinear_grad(ctx, grads):
    if not ctx.input_dtype(0).is_floating:
        return [None, None]
    return [execute1(OPS["ResizeBilinearGrad"], [grads[0], ctx.input(0)]), None]


def _like_original_infer(specs, attrs):
    return [specs[1]]


OPS["ResizeBilinear"] = register(
    "ResizeBilinear", _resize_bilinear_kernel, _resize_infer(dtypes.float32),
    grad=_resize_bilinear_grad, emit=KERNEL_CALL, lowerings=_NOT_LOWERED)
OPS["ResizeBilinearGrad"] = register(
    "ResizeBilinearGrad", _resize_bilinear_grad_kernel, _like_original_infer,
    grad=NO_GRADIENT, emit=KERNEL_CALL, lowerings=_NOT_LOWERED)


def _resize_nearest_kernel(images, size, static_shape):
    images, new_height, new_width = _checked_resize(images, size)
    rows = _nearest_positions(images.shape[1], new_height)
    cols = _nearest_positions(images.shape[2], new_width)
    return images[:, rows][:, :, cols]


def _resize_nearest_grad_kernel(grads, original):
    grads = np.asarray(grads)
    original = np.asarray(original)
    rows = _nearest_positions(original.shape[1], grads.shape[1])
    cols = _nearest_positions(original.shape[2], grads.shape[2])
    result = np.zeros(original.shape, grads.dtype)
    np.add.at(result, _pixels_at(rows, cols), grads)
    return result


def _resize_nearest_grad(ctx, grads):
    if not ctx.input_dtype(0).is_floating:
        return [None, None]
    return [execute1(OPS["ResizeNearestNeighborGrad"], [grads[0], ctx.input(0)]), None]


OPS["ResizeNearestNeighbor"] = register(
    "ResizeNearestNeighbor", _resize_nearest_kernel, _resize_infer(None),
    grad=_resize_nearest_grad, emit=KERNEL_CALL, lowerings=_NOT_LOWERED)
OPS["ResizeNearestNeighborGrad"] = register(
    "ResizeNearestNeighborGrad", _resize_nearest_grad_kernel, _like_original_infer,
    grad=NO_GRADIENT, emit=KERNEL_CALL, lowerings=_NOT_LOWERED)


# -- the public API -------------------------------------------------------------------------


class ResizeMethod:
    """The names of `resize`'s methods (TensorFlow's `tf.image.ResizeMethod`); only
    BILINEAR and NEAREST_NEIGHBOR are implemented."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


_RESIZE_OPS = {ResizeMethod.BILINEAR: "ResizeBilinear",
               ResizeMethod.NEAREST_NEIGHBOR: "ResizeNearestNeighbor"}
_KNOWN_METHODS = frozenset(v for k, v in vars(ResizeMethod).items() if k.isupper())


def _rank(image):
    shape = image._shape_tuple()
    return None if shape is None else len(shape)


def _require_at_least_3d(image):
    """TensorFlow's check of an image argument: at least 3-D, the inner 3 dims not 0."""
    shape = image._shape_tuple()
    if shape is not None and len(shape) < 3:
        raise ValueError("'image' (shape %s) must be at least three-dimensional."
                         % shape_lib.to_string(shape))
    if shape is not None and any(d == 0 for d in shape[-3:]):
        raise ValueError("inner 3 dims of 'image.shape' must be > 0: %s"
                         % shape_lib.to_string(shape))


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """`image` converted to `dtype`, its pixels rescaled: integer pixels span 0 to the
    dtype's maximum, float pixels 0 to 1. Integer to integer scales by a power of two;
    float to integer multiplies by (maximum + 0.5) then casts (`saturate`: clamping to the
    target's range first)."""
    image = convert_to_tensor(image)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_integer):
        raise AttributeError("dtype must be either floating point or integer")
    source = image.dtype
    if not (source.is_floating or source.is_integer):
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype is source:
        return array_ops.identity(image, name=name)
    cast = math_ops.saturate_cast if saturate else math_ops.cast
    if source.is_integer and dtype.is_integer:
        if source.max > dtype.max:  # scale down, then cast
            scale = (int(source.max) + 1) // (int(dtype.max) + 1)
            return cast(math_ops.floordiv(image, array_ops.constant(scale, source)), dtype,
                        name=name)
        scale = (int(dtype.max) + 1) // (int(source.max) + 1)
        return math_ops.multiply(cast(image, dtype), array_ops.constant(scale, dtype), name=name)
    if source.is_floating and dtype.is_floating:
        return math_ops.cast(image, dtype, name=name)
    if source.is_integer:  # to float: cast, then scale
        return math_ops.multiply(math_ops.cast(image, dtype),
                                 array_ops.constant(1.0 / float(source.max), dtype), name=name)
    scaled = math_ops.multiply(image, array_ops.constant(float(dtype.max) + 0.5, source))
    return cast(scaled, dtype, name=name)


def _as_float_pixels(image):
    """`image` as float16 or float32 pixels (other dtypes are converted to float32)."""
    if image.dtype in (dtypes.float16, dtypes.float32):
        return image
    return convert_image_dtype(image, dtypes.float32)


def adjust_brightness(image, delta):
    """`image` with `delta` added to every pixel (as float pixels in [0, 1]: an integer
    image is converted, adjusted and converted back, saturating)."""
    image = convert_to_tensor(image)
    pixels = _as_float_pixels(image)
    adjusted = math_ops.add(pixels, math_ops.cast(delta, pixels.dtype))
    return convert_image_dtype(adjusted, image.dtype, saturate=True)


def adjust_contrast(images, contrast_factor):
    """Each channel of each image moved away from its mean over the image's pixels by
    `contrast_factor`: (x - mean) * contrast_factor + mean (the AdjustContrastv2 op, which
    has no gradient in TensorFlow)."""
    images = convert_to_tensor(images)
    pixels = _as_float_pixels(images)
    factor = convert_to_tensor(contrast_factor, dtype_hint=dtypes.float32)
    if factor.dtype is not dtypes.float32:
        factor = math_ops.cast(factor, dtypes.float32)
    adjusted = execute1(OPS["AdjustContrastv2"], [pixels, factor])
    return convert_image_dtype(adjusted, images.dtype, saturate=True)


def per_image_standardization(image):
    """Each image (the last 3 dimensions) scaled to mean 0 and variance 1, as float32:
    (x - mean) / max(stddev, 1 / sqrt(number of elements)), which protects uniform
    images."""
    image = convert_to_tensor(image)
    _require_at_least_3d(image)
    image = math_ops.cast(image, dtypes.float32)
    inner = [-1, -2, -3]
    inner_shape = image._shape_tuple()[-3:] if _rank(image) is not None else None
    if inner_shape is not None and None not in inner_shape:
        pixels = array_ops.constant(int(np.prod(inner_shape)), dtypes.int32)
    else:
        pixels = reduction_ops.reduce_prod(array_ops.shape(image)[-3:])
    mean = reduction_ops.reduce_mean(image, axis=inner, keepdims=True)
    variance = reduction_ops.reduce_mean(math_ops.squared_difference(image, mean), axis=inner,
                                         keepdims=True)
    stddev = math_ops.sqrt(variance)
    floor = math_ops.rsqrt(math_ops.cast(pixels, dtypes.float32))
    return math_ops.truediv(math_ops.subtract(image, mean), math_ops.maximum(stddev, floor))


def _flip(image, axis):
    image = convert_to_tensor(image)
    _require_at_least_3d(image)
    rank = _rank(image)
    if rank is None:
        raise ValueError("'image' must have a known rank (3 or 4) to be flipped")
    if rank not in (3, 4):
        # (TensorFlow's words, without the space before "must")
        raise ValueError("'image' (shape %s)must have either 3 or 4 dimensions."
                         % shape_lib.to_string(image._shape_tuple()))
    return layout_ops.reverse(image, [axis + rank - 3])


def flip_left_right(image):
    """`image` (3-D, or a 4-D batch) mirrored horizontally: its width reversed."""
    return _flip(image, 1)


def flip_up_down(image):
    """`image` (3-D, or a 4-D batch) mirrored vertically: its height reversed."""
    return _flip(image, 0)


def rot90(image, k=1, name=None):
    """`image` (3-D, or a 4-D batch) rotated counter-clockwise by `k` quarter turns (`k`
    must be known when the function is traced)."""
    image = convert_to_tensor(image)
    _require_at_least_3d(image)
    rank = _rank(image)
    if rank not in (3, 4):
        raise ValueError("'image' (shape %s) must have either 3 or 4 dimensions."
                         % shape_lib.to_string(image._shape_tuple()))
    k_value = common.constant_value(convert_to_tensor(k, dtype=dtypes.int32))
    if k_value is None:
        raise NotImplementedError("rot90: the number of quarter turns k must be known when "
                                  "the function is traced (a Python int or a constant)")
    if np.ndim(k_value) != 0:
        raise ValueError("rot90: k must be a scalar, got shape %s" % (np.shape(k_value),))
    turns = int(k_value) % 4
    height = rank - 3
    swapped = list(range(rank))
    swapped[height], swapped[height + 1] = height + 1, height
    if turns == 0:
        return array_ops.identity(image, name=name)
    if turns == 1:
        return reshape_ops.transpose(layout_ops.reverse(image, [height + 1]), swapped,
                                          name=name)
    if turns == 2:
        return layout_ops.reverse(image, [height, height + 1], name=name)
    return layout_ops.reverse(reshape_ops.transpose(image, swapped), [height + 1],
                              name=name)


def _static_size(size):
    """(new_height, new_width), each an int or None when known only at run time."""
    static = common.partial_shape_value(size)
    return static if static is not None and len(static) == 2 else (None, None)


def _aspect_preserving_size(images, size):
    """The largest size within `size` with the images' aspect ratio (TensorFlow's float32
    arithmetic, rounding half to even); both must be known when the function is traced."""
    height, width = images._shape_tuple()[1:3]
    wanted = common.constant_value(size)
    if height is None or width is None or wanted is None:
        raise NotImplementedError("resize with preserve_aspect_ratio=True needs the images' "
                                  "height and width and the size known when traced")
    factor = min(np.float32(wanted[0]) / np.float32(height),
                 np.float32(wanted[1]) / np.float32(width))
    return array_ops.constant([int(np.round(factor * np.float32(height))),
                               int(np.round(factor * np.float32(width)))], dtypes.int32)


def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False,
           antialias=False, name=None):
    """`images` (3-D, or a 4-D batch) resized to `size` = [new_height, new_width] by
    `method`: 'bilinear' (float32 pixels) or 'nearest' (the images' dtype), sampling at
    pixel centres as TensorFlow 2 does."""
    images = convert_to_tensor(images)
    rank = _rank(images)
    if rank is None:
        raise ValueError("'images' contains no shape.")
    if rank not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    try:
        size = convert_to_tensor(size, dtype=dtypes.int32)
    except (TypeError, ValueError):
        raise ValueError("'size' must be a 1-D int32 Tensor") from None
    size_shape = size._shape_tuple()
    if size_shape is not None and (len(size_shape) != 1 or size_shape[0] not in (2, None)):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    method = str(method)
    if method not in _KNOWN_METHODS:
        raise ValueError("Resize method is not implemented: {}".format(method))
    if method not in _RESIZE_OPS or antialias:
        raise NotImplementedError("resize: method %r%s is not supported (only 'bilinear' and "
                                  "'nearest', without antialias)"
                                  % (method, " with antialias" if antialias else ""))
    batch = images if rank == 4 else reshape_ops.expand_dims(images, 0)
    if preserve_aspect_ratio:
        size = _aspect_preserving_size(batch, size)
    resized = execute1(OPS[_RESIZE_OPS[method]], [batch, size],
                       {"static_shape": _static_size(size)}, name=None if rank == 3 else name)
    return resized if rank == 4 else reshape_ops.squeeze(resized, [0], name=name)


_GRAY_WEIGHTS = (0.2989, 0.5870, 0.1140)  # TensorFlow's (ITU-R 601) red, green, blue weights


def rgb_to_grayscale(images, name=None):
    """`images` with their last dimension (red, green, blue) replaced by one channel, the
    weighted sum 0.2989 R + 0.5870 G + 0.1140 B, in the images' dtype."""
    images = convert_to_tensor(images)
    shape = images._shape_tuple()
    if shape is not None and shape and shape[-1] not in (3, None):
        raise ValueError("rgb_to_grayscale: the last dimension of images must be 3 (red, "
                         "green, blue), got shape %s" % shape_lib.to_string(shape))
    pixels = convert_image_dtype(images, dtypes.float32)
    weights = array_ops.constant(_GRAY_WEIGHTS, dtypes.float32)
    gray = reduction_ops.reduce_sum(math_ops.multiply(pixels, weights), axis=-1,
                                    keepdims=True)
    return convert_image_dtype(gray, images.dtype, name=name)
