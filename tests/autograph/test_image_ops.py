"""tf.image: the values and gradients TensorFlow 2.21 computes (a fixture made once with
real TensorFlow: data/image_ops_tf.npz, cases in image_op_cases.py), eagerly and traced;
static shapes; TensorFlow's errors, and adjust_contrast's missing gradient."""

import os

import image_op_cases as cases
import numpy as np
import pytest

import autograph.tf as tf

_FIXTURE = np.load(os.path.join(os.path.dirname(__file__), "data", "image_ops_tf.npz"))


def _value_and_gradients(func, tensors, wrt):
    with tf.GradientTape(persistent=True) as tape:
        for t in tensors:
            tape.watch(t)
        value = func(tf, *tensors)
    weights = tf.constant(cases.upstream(np.zeros(value.shape, value.dtype.as_numpy_dtype)))
    return value, [tape.gradient(value, tensors[i], output_gradients=weights) for i in wrt]


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("name", sorted(cases.CASES))
def test_values_are_tensorflows_bit_for_bit_and_gradients_to_rounding(name, traced):
    func, inputs, wrt = cases.CASES[name]
    run = _value_and_gradients
    if traced:
        # TensorFlow's bits are the numpy executor's promise; a compiled backend, chosen by
        # AUTOGRAPH_BACKEND, rounds its own way (its lowerings are tested in tests/backends)
        run = tf.function(_value_and_gradients, autograph=False, backend="numpy")
    value, grads = run(func, [tf.constant(x) for x in inputs], wrt)
    expected = _FIXTURE[name + ":value"]
    assert value.dtype.as_numpy_dtype == expected.dtype
    np.testing.assert_array_equal(value.numpy(), expected)
    for i, grad in zip(wrt, grads):
        np.testing.assert_allclose(grad.numpy(), _FIXTURE["%s:grad%d" % (name, i)],
                                   rtol=1e-6, atol=1e-6)


def test_adjust_contrast_has_no_gradient_as_in_tensorflow():
    image = tf.Variable([[[0.5, 0.0, 0.0]]])
    delta = tf.Variable(0.1)

    def gradient():
        with tf.GradientTape() as tape:
            new_image = tf.image.adjust_contrast(image, delta)
        return tape.gradient(new_image, [image, delta])

    for run in (gradient, tf.function(gradient)):
        with pytest.raises(LookupError) as info:
            run()
        assert str(info.value).split("\n\nin user code:")[0] == (
            "gradient registry has no entry for: AdjustContrastv2")


def test_resize_bilinear_gives_float32_and_nearest_keeps_the_dtype():
    image = tf.constant(cases._U8)
    assert tf.image.resize(image, [4, 4]).dtype == tf.float32
    assert tf.image.resize(image, [4, 4], method="nearest").dtype == tf.uint8
    assert tf.image.resize(image, [4, 4],
                           method=tf.image.ResizeMethod.NEAREST_NEIGHBOR).dtype == tf.uint8


def test_static_shapes_of_a_trace():
    @tf.function(input_signature=[tf.TensorSpec([None, None, None, 3])])
    def resized(images):
        return tf.image.resize(images, [5, 6])

    @tf.function(input_signature=[tf.TensorSpec([2, 3, 4, 3])])
    def turned(images):
        return tf.image.rot90(images), tf.image.flip_left_right(images)

    assert resized.get_concrete_function().structured_outputs.shape.as_list() == [
        None, 5, 6, 3]
    quarter, flipped = turned.get_concrete_function().structured_outputs
    assert quarter.shape.as_list() == [2, 4, 3, 3]
    assert flipped.shape.as_list() == [2, 3, 4, 3]


_KERNEL = ("{{function_node __wrapped__%s_device_/job:localhost/replica:0/task:0/device:CPU:0}}"
           " %s [Op:%s]")


@pytest.mark.parametrize("call, op, text", [
    (lambda: tf.image.adjust_contrast(np.ones((4, 3), np.float32), 1.7), "AdjustContrastv2",
     "input must be at least 3-D, got shape[4,3]"),
    (lambda: tf.image.adjust_contrast(np.ones((2, 4, 3), np.float32), [1.0, 2.0]),
     "AdjustContrastv2", "contrast_factor must be scalar: [2]"),
    (lambda: tf.image.resize(np.ones((2, 3, 3), np.float32), [0, 3]), "ResizeBilinear",
     "output dimensions must be positive"),
    (lambda: tf.image.resize(np.ones((0, 3, 3), np.float32), [2, 3], method="nearest"),
     "ResizeNearestNeighbor", "input image must be of non-zero size"),
])
def test_kernel_errors_are_tensorflows_words(call, op, text):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        call()
    assert str(info.value).split("\n\nin user code:")[0] == _KERNEL % (op, text, op)


@pytest.mark.parametrize("call, error, text", [
    (lambda: tf.image.flip_up_down(np.ones((4, 3))), ValueError,
     "'image' (shape (4, 3)) must be at least three-dimensional."),
    (lambda: tf.image.flip_left_right(np.ones((1, 2, 3, 4, 5))), ValueError,
     "'image' (shape (1, 2, 3, 4, 5))must have either 3 or 4 dimensions."),
    (lambda: tf.image.rot90(np.ones((1, 2, 3, 4, 5))), ValueError,
     "'image' (shape (1, 2, 3, 4, 5)) must have either 3 or 4 dimensions."),
    (lambda: tf.image.per_image_standardization(np.ones((0, 2, 3))), ValueError,
     "inner 3 dims of 'image.shape' must be > 0: (0, 2, 3)"),
    (lambda: tf.image.resize(np.ones((3, 3)), [2, 2]), ValueError,
     "'images' must have either 3 or 4 dimensions."),
    (lambda: tf.image.resize(np.ones((3, 3, 1)), [1, 2, 3]), ValueError,
     "'size' must be a 1-D Tensor of 2 elements: new_height, new_width"),
    (lambda: tf.image.resize(np.ones((3, 3, 1)), [2, 2], method="foo"), ValueError,
     "Resize method is not implemented: foo"),
    (lambda: tf.image.convert_image_dtype(np.ones(3), tf.string), AttributeError,
     "dtype must be either floating point or integer"),
    (lambda: tf.image.convert_image_dtype(np.ones(3) > 0, tf.float32), AttributeError,
     "image dtype must be either floating point or integer"),
])
def test_argument_errors_are_tensorflows(call, error, text):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == text


def test_what_is_not_implemented_says_so():
    with pytest.raises(NotImplementedError, match="'area'"):
        tf.image.resize(np.ones((3, 3, 1)), [2, 2], method=tf.image.ResizeMethod.AREA)
    with pytest.raises(NotImplementedError, match="antialias"):
        tf.image.resize(np.ones((3, 3, 1)), [2, 2], antialias=True)

    @tf.function
    def turned(image, k):
        return tf.image.rot90(image, k)
    with pytest.raises(NotImplementedError, match="known when the function is traced"):
        turned(tf.ones([2, 3, 1]), tf.constant(1))
