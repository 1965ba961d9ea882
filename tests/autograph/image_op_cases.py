"""The tf.image cases compared with TensorFlow 2.21's results (tests/autograph/data/
image_ops_tf.npz, written by data/make_image_fixture.py with real TensorFlow): each case is
a function of the `tf` module and its input tensors, its numpy inputs, and the inputs whose
gradient is recorded (under the output gradient `upstream(value)`). Only numpy here: the same
cases run under TensorFlow and under `autograph.tf`."""

import numpy as np


def _images(seed, shape, dtype=np.float32):
    rng = np.random.RandomState(seed)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return rng.randint(max(info.min, -1000), min(info.max, 1000) + 1, shape).astype(dtype)
    return rng.rand(*shape).astype(dtype)


def upstream(value):
    """The output gradient a case's gradients are taken under: fixed, not all ones, so that
    a gradient that mixes up positions shows."""
    value = np.asarray(value)
    return (np.arange(value.size, dtype=np.float64).reshape(value.shape) % 7 - 3).astype(
        value.dtype)


_U8 = _images(1, (6, 5, 3), np.uint8)
_F = _images(2, (2, 5, 7, 3))
_F3 = _images(3, (5, 7, 3))
_BIG = _images(4, (3, 33, 17, 2))

CASES = {
    # name: (function of tf and the input tensors, inputs, inputs whose gradient is recorded)
    "adjust_contrast_float32": (lambda tf, x: tf.image.adjust_contrast(x, 1.7), [_F], []),
    "adjust_contrast_large": (lambda tf, x: tf.image.adjust_contrast(x, -0.4), [_BIG], []),
    "adjust_contrast_uint8": (lambda tf, x: tf.image.adjust_contrast(x, 0.6), [_U8], []),
    "adjust_contrast_float64": (lambda tf, x: tf.image.adjust_contrast(x, 2.5),
                                [_F3.astype(np.float64)], []),
    "adjust_brightness_float32": (lambda tf, x: tf.image.adjust_brightness(x, 0.3), [_F], [0]),
    "adjust_brightness_uint8": (lambda tf, x: tf.image.adjust_brightness(x, 0.3), [_U8], []),
    "adjust_brightness_float64": (lambda tf, x: tf.image.adjust_brightness(x, -0.2),
                                  [_F3.astype(np.float64)], [0]),
    "per_image_standardization_float32": (lambda tf, x: tf.image.per_image_standardization(x),
                                          [_F], [0]),
    "per_image_standardization_uint8": (lambda tf, x: tf.image.per_image_standardization(x),
                                        [_U8], []),
    "per_image_standardization_uniform": (
        lambda tf, x: tf.image.per_image_standardization(x), [np.ones((3, 3, 1), np.float32)],
        []),
    "flip_left_right_uint8": (lambda tf, x: tf.image.flip_left_right(x), [_U8], []),
    "flip_up_down_batch": (lambda tf, x: tf.image.flip_up_down(x), [_F], [0]),
    "rot90_once": (lambda tf, x: tf.image.rot90(x), [_F3], [0]),
    "rot90_twice_batch": (lambda tf, x: tf.image.rot90(x, k=2), [_F], []),
    "rot90_three_times_batch": (lambda tf, x: tf.image.rot90(x, k=3), [_F], [0]),
    "rot90_back": (lambda tf, x: tf.image.rot90(x, k=-1), [_U8], []),
    "resize_bilinear_up": (lambda tf, x: tf.image.resize(x, [9, 11]), [_F], [0]),
    "resize_bilinear_down": (lambda tf, x: tf.image.resize(x, [12, 5]), [_BIG], [0]),
    "resize_bilinear_uint8": (lambda tf, x: tf.image.resize(x, [4, 8]), [_U8], []),
    "resize_bilinear_float64": (lambda tf, x: tf.image.resize(x, [3, 10]),
                                [_F3.astype(np.float64)], []),
    "resize_nearest_up": (lambda tf, x: tf.image.resize(x, [11, 9], method="nearest"), [_F],
                          [0]),
    "resize_nearest_down": (lambda tf, x: tf.image.resize(x, [7, 4], method="nearest"),
                            [_BIG], [0]),
    "resize_nearest_uint8": (lambda tf, x: tf.image.resize(x, [13, 2], method="nearest"),
                             [_U8], []),
    "resize_preserving_aspect_ratio": (
        lambda tf, x: tf.image.resize(x, [20, 9], preserve_aspect_ratio=True), [_F3], []),
    "convert_uint8_to_float32": (lambda tf, x: tf.image.convert_image_dtype(x, tf.float32),
                                 [_U8], []),
    "convert_float32_to_uint8": (lambda tf, x: tf.image.convert_image_dtype(x, tf.uint8),
                                 [_F], []),
    "convert_float32_to_uint8_saturating": (
        lambda tf, x: tf.image.convert_image_dtype(x * 1.5 - 0.2, tf.uint8, saturate=True),
        [_F], []),
    "convert_uint8_to_int32": (lambda tf, x: tf.image.convert_image_dtype(x, tf.int32),
                               [_U8], []),
    "convert_int32_to_uint8": (lambda tf, x: tf.image.convert_image_dtype(x * 2000000,
                                                                          tf.uint8),
                               [_images(5, (4, 4, 3), np.int32)], []),
    "convert_uint8_to_uint16": (lambda tf, x: tf.image.convert_image_dtype(x, tf.uint16),
                                [_U8], []),
    "convert_int8_to_float32": (lambda tf, x: tf.image.convert_image_dtype(x, tf.float32),
                                [np.array([-128, -1, 0, 1, 127], np.int8)], []),
    "convert_float64_to_int16": (lambda tf, x: tf.image.convert_image_dtype(x, tf.int16),
                                 [_F3.astype(np.float64)], []),
    "convert_float32_to_float64": (lambda tf, x: tf.image.convert_image_dtype(x, tf.float64),
                                   [_F3], [0]),
    "rgb_to_grayscale_float32": (lambda tf, x: tf.image.rgb_to_grayscale(x), [_F], [0]),
    "rgb_to_grayscale_uint8": (lambda tf, x: tf.image.rgb_to_grayscale(x), [_U8], []),
}
