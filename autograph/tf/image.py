"""`tf.image`: brightness and contrast, standardisation, flips and quarter turns, resizing,
pixel dtype conversion and grayscale."""

from runtime.ops import image_ops as _image

ResizeMethod = _image.ResizeMethod
adjust_brightness = _image.adjust_brightness
adjust_contrast = _image.adjust_contrast
convert_image_dtype = _image.convert_image_dtype
flip_left_right = _image.flip_left_right
flip_up_down = _image.flip_up_down
per_image_standardization = _image.per_image_standardization
resize = _image.resize
rgb_to_grayscale = _image.rgb_to_grayscale
rot90 = _image.rot90
