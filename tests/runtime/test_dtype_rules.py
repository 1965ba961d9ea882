"""TensorFlow's element types beyond int32/float32: their properties, how values convert to
them, the no-promotion rule, printing, cast / saturate_cast / bitcast, the ops that accept
each kind, and complex numbers (parts, gradients), eagerly and in traced functions."""

import ml_dtypes
import numpy as np
import pytest
from numeric_gradients import numeric_gradients

from runtime import dtypes, errors
from runtime.function import function
from runtime.gradients import GradientTape
from runtime.ops import array_ops, einsum_ops, linalg_ops, math_ops, reduction_ops
from runtime.ops.reshape_ops import reshape

NEW = [dtypes.float16, dtypes.bfloat16, dtypes.int8, dtypes.int16, dtypes.uint8,
       dtypes.uint16, dtypes.uint32, dtypes.uint64, dtypes.complex64, dtypes.complex128]


def _const(value, dtype=None):
    return array_ops.constant(value, dtype)


def _traced(fn):
    return function(fn)


# -- DType properties -----------------------------------------------------------------------

@pytest.mark.parametrize("dtype, floating, integer, unsigned, complex_", [
    (dtypes.float16, True, False, False, False),
    (dtypes.bfloat16, True, False, False, False),
    (dtypes.int8, False, True, False, False),
    (dtypes.int16, False, True, False, False),
    (dtypes.uint8, False, True, True, False),
    (dtypes.uint64, False, True, True, False),
    (dtypes.complex64, False, False, False, True),
    (dtypes.complex128, False, False, False, True),
    (dtypes.int32, False, True, False, False),
])
def test_new_dtypes_have_tensorflows_categories(dtype, floating, integer, unsigned, complex_):
    assert dtype.is_floating is floating
    assert dtype.is_integer is integer
    assert dtype.is_unsigned is unsigned
    assert dtype.is_complex is complex_
    assert dtype.is_numeric
    assert not dtype.is_quantized
    assert dtype.base_dtype is dtype


@pytest.mark.parametrize("dtype, low, high", [
    (dtypes.uint8, 0, 255),
    (dtypes.int8, -128, 127),
    (dtypes.int16, -32768, 32767),
    (dtypes.uint16, 0, 65535),
    (dtypes.uint32, 0, 2**32 - 1),
    (dtypes.uint64, 0, 2**64 - 1),
    (dtypes.float16, -65504.0, 65504.0),
    (dtypes.bfloat16, -3.3895313892515355e38, 3.3895313892515355e38),
])
def test_min_and_max_are_the_representable_limits(dtype, low, high):
    assert dtype.min == low and dtype.max == high
    assert dtype.limits == (dtype.min, dtype.max)


@pytest.mark.parametrize("dtype", [dtypes.complex64, dtypes.bool_, dtypes.string])
def test_complex_and_non_numeric_types_have_no_min_or_max(dtype):
    with pytest.raises(TypeError, match="no numeric range"):
        dtype.min


@pytest.mark.parametrize("dtype, real", [
    (dtypes.complex64, dtypes.float32), (dtypes.complex128, dtypes.float64),
    (dtypes.uint8, dtypes.uint8), (dtypes.bfloat16, dtypes.bfloat16)])
def test_real_dtype_is_the_type_of_the_parts(dtype, real):
    assert dtype.real_dtype is real


@pytest.mark.parametrize("dtype, np_type, enum, size", [
    (dtypes.bfloat16, ml_dtypes.bfloat16, 14, 2),
    (dtypes.float16, np.float16, 19, 2),
    (dtypes.uint8, np.uint8, 4, 1),
    (dtypes.int16, np.int16, 5, 2),
    (dtypes.uint64, np.uint64, 23, 8),
    (dtypes.complex64, np.complex64, 8, 8),
    (dtypes.complex128, np.complex128, 18, 16),
])
def test_numpy_type_datatype_number_and_size(dtype, np_type, enum, size):
    assert dtype.as_numpy_dtype is np_type
    assert dtype.as_datatype_enum == enum
    assert dtype.size == size
    assert dtypes.as_dtype(enum) is dtype
    assert dtypes.as_dtype(np_type) is dtype
    assert dtypes.as_dtype(dtype.name) is dtype
    assert dtypes.from_enum(enum) is dtype


def test_aliases_and_python_complex_name_their_types():
    assert dtypes.as_dtype("half") is dtypes.float16
    assert dtypes.as_dtype(complex) is dtypes.complex128
    assert dtypes.uint8.is_compatible_with(np.uint8)
    assert not dtypes.uint8.is_compatible_with(dtypes.int8)
    assert repr(dtypes.bfloat16) == "tf.bfloat16" and str(dtypes.uint8) == "<dtype: 'uint8'>"


# -- converting values ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [d for d in NEW])
def test_a_numpy_array_becomes_a_tensor_of_its_own_dtype(dtype):
    value = np.array([1, 2], dtype=dtype.np_dtype)
    t = _const(value)
    assert t.dtype is dtype
    assert t.numpy().dtype == dtype.np_dtype


def test_python_values_get_tensorflows_default_types():
    assert _const(1.5).dtype is dtypes.float32
    assert _const(1).dtype is dtypes.int32
    assert _const(1 + 2j).dtype is dtypes.complex128
    assert _const([1, 2j]).dtype is dtypes.complex128
    assert _const(3, dtypes.complex64).numpy() == np.complex64(3)


@pytest.mark.parametrize("value, dtype", [
    (300, dtypes.uint8), (-1, dtypes.uint8), (128, dtypes.int8), (2**64, dtypes.uint64),
    (1.5, dtypes.uint16)])
def test_a_python_number_that_does_not_fit_the_type_is_an_error(value, dtype):
    with pytest.raises(TypeError, match=dtype.name):
        _const(value, dtype)


@pytest.mark.parametrize("dtype", [dtypes.float16, dtypes.bfloat16])
def test_a_python_float_beyond_a_narrow_floats_range_is_infinite(dtype):
    assert np.isinf(float(_const(1e39, dtype).numpy()))


def test_a_complex_python_value_does_not_convert_to_a_real_type():
    with pytest.raises(TypeError, match="complex value"):
        _const(1 + 2j, dtypes.float32)


# -- TensorFlow's no-promotion rule ---------------------------------------------------------

@pytest.mark.parametrize("traced", [False, True])
def test_mixing_dtypes_is_an_error_worded_as_tensorflows(traced):
    def add(x, y):
        return math_ops.add(x, y)
    fn = _traced(add) if traced else add
    # TensorFlow's errors: InvalidArgumentError eagerly, TypeError while building a graph
    with pytest.raises(TypeError if traced else errors.InvalidArgumentError,
                       match=r"input #1\(zero-based\) was expected to be a uint8 tensor but "
                             r"is a int32 tensor"):
        fn(_const(1, dtypes.uint8), _const(1))


@pytest.mark.parametrize("traced", [False, True])
def test_python_scalars_take_the_tensors_dtype_and_integers_wrap(traced):
    def step(x):
        return math_ops.add(x, 10), math_ops.subtract(x, 251)
    fn = _traced(step) if traced else step
    total, difference = fn(_const([250, 1], dtypes.uint8))
    assert total.dtype is dtypes.uint8
    np.testing.assert_array_equal(total.numpy(), np.array([4, 11], np.uint8))
    np.testing.assert_array_equal(difference.numpy(), np.array([255, 6], np.uint8))


def test_unsigned_and_narrow_integer_division_and_modulo():
    x = _const([7, 200], dtypes.uint8)
    np.testing.assert_array_equal(math_ops.floordiv(x, 3).numpy(), [2, 66])
    np.testing.assert_array_equal(math_ops.floormod(x, 3).numpy(), [1, 2])
    np.testing.assert_array_equal(math_ops.floormod(_const([-7], dtypes.int8), 3).numpy(), [2])


@pytest.mark.parametrize("dtype, result", [
    (dtypes.uint8, dtypes.float32), (dtypes.int16, dtypes.float32),
    (dtypes.int32, dtypes.float64), (dtypes.uint64, dtypes.float64)])
def test_truediv_of_integers_gives_tensorflows_float_type(dtype, result):
    quotient = math_ops.truediv(_const([10], dtype), _const([4], dtype))
    assert quotient.dtype is result
    np.testing.assert_array_equal(quotient.numpy(), [2.5])


# -- printing -------------------------------------------------------------------------------

def test_tensors_print_as_tensorflow_prints_them():
    assert str(_const(np.array([1, 2], np.uint8))) == \
        "tf.Tensor([1 2], shape=(2,), dtype=uint8)"
    assert str(_const(1 + 2j)) == "tf.Tensor((1+2j), shape=(), dtype=complex128)"
    assert str(_const(np.array([1.5, 2], ml_dtypes.bfloat16))) == \
        "tf.Tensor([1.5 2], shape=(2,), dtype=bfloat16)"
    assert "dtype=float16" in repr(_const(np.float16(0.5)))


# -- cast, saturate_cast, bitcast ------------------------------------------------------------

@pytest.mark.parametrize("traced", [False, True])
def test_cast_truncates_floats_drops_imaginary_parts_and_wraps_integers(traced):
    def casts(f, c, i):
        return (math_ops.cast(f, dtypes.int8), math_ops.cast(c, dtypes.float32),
                math_ops.cast(i, dtypes.uint8), math_ops.cast(f, dtypes.bfloat16))
    fn = _traced(casts) if traced else casts
    ints, reals, wrapped, brain = fn(_const([1.7, -1.7]), _const([1 + 2j, -3j]),
                                     _const([300, -1]))
    np.testing.assert_array_equal(ints.numpy(), np.array([1, -1], np.int8))
    np.testing.assert_array_equal(reals.numpy(), np.array([1, 0], np.float32))
    np.testing.assert_array_equal(wrapped.numpy(), np.array([44, 255], np.uint8))
    assert brain.dtype is dtypes.bfloat16
    assert brain.numpy().dtype == np.dtype(ml_dtypes.bfloat16)


def test_saturate_cast_clamps_to_the_target_range():
    clamped = math_ops.saturate_cast(_const([300, -5, 7]), dtypes.uint8)
    np.testing.assert_array_equal(clamped.numpy(), np.array([255, 0, 7], np.uint8))
    big = math_ops.saturate_cast(_const([1e10, -1e10]), dtypes.int32)
    np.testing.assert_array_equal(big.numpy(), [2147483520, -2147483648])  # float32 steps
    parts = math_ops.saturate_cast(_const([300 - 400j]), dtypes.uint8)
    np.testing.assert_array_equal(parts.numpy(), np.array([255], np.uint8))
    assert math_ops.saturate_cast(_const([1.5]), dtypes.float64).dtype is dtypes.float64


def test_bitcast_reinterprets_bits_and_changes_the_last_dimension():
    one = math_ops.bitcast(_const([1.0]), dtypes.int32)
    np.testing.assert_array_equal(one.numpy(), [1065353216])
    split = math_ops.bitcast(_const([1], dtypes.int32), dtypes.uint8)
    assert split.shape == (1, 4)
    joined = math_ops.bitcast(_const([[1, 0, 0, 0]], dtypes.uint8), dtypes.int32)
    np.testing.assert_array_equal(joined.numpy(), [1])
    with pytest.raises(errors.InvalidArgumentError, match="last dimension must be 4"):
        math_ops.bitcast(_const([1, 0], dtypes.uint8), dtypes.int32)


# -- which ops accept which dtypes ----------------------------------------------------------

@pytest.mark.parametrize("op, args, message", [
    (math_ops.less, ([1j], [2j]), "Less: operand of dtype complex128 is not supported"),
    (math_ops.maximum, ([1j], [2j]), "Maximum: operand of dtype complex128"),
    (math_ops.tanh, ([1],), "Tanh: operand of dtype int32 is not supported"),
    (math_ops.floor, ([1j],), "Floor: operand of dtype complex128"),
    (reduction_ops.reduce_max, ([1j],), "complex128 is not supported"),
])
def test_an_op_refuses_a_dtype_naming_the_op_and_the_dtype(op, args, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        op(*[_const(a) for a in args])


@pytest.mark.parametrize("dtype", [dtypes.int8, dtypes.uint8, dtypes.int16, dtypes.uint16,
                                   dtypes.uint32, dtypes.uint64, dtypes.float16,
                                   dtypes.bfloat16])
@pytest.mark.parametrize("traced", [False, True])
def test_arithmetic_comparisons_and_reductions_keep_the_narrow_type(dtype, traced):
    def compute(x, y):
        return (math_ops.add(math_ops.multiply(x, y), x), math_ops.less(x, y),
                reduction_ops.reduce_sum(x), reduction_ops.reduce_max(y),
                linalg_ops.matmul(reshape(x, [1, 3]), reshape(y, [3, 1])))
    fn = _traced(compute) if traced else compute
    x = np.array([1, 2, 3], dtype.np_dtype)
    y = np.array([3, 2, 1], dtype.np_dtype)
    total, less, summed, largest, product = fn(_const(x), _const(y))
    for t in (total, summed, largest, product):
        assert t.dtype is dtype
    np.testing.assert_array_equal(total.numpy().astype(np.float64), [4, 6, 6])
    np.testing.assert_array_equal(less.numpy(), [True, False, False])
    assert float(summed.numpy()) == 6 and float(largest.numpy()) == 3
    assert float(product.numpy()[0, 0]) == 10


@pytest.mark.parametrize("traced", [False, True])
def test_complex_arithmetic_transcendentals_and_matmul(traced):
    def compute(z):
        return (math_ops.exp(z), math_ops.sqrt(z), math_ops.truediv(z, 2.0),
                math_ops.equal(z, z), linalg_ops.matmul(reshape(z, [1, 2]),
                                                        reshape(z, [2, 1])),
                reduction_ops.reduce_sum(z))
    fn = _traced(compute) if traced else compute
    z = np.array([1 + 2j, -3 + 0.5j], np.complex64)
    exp, sqrt, half, same, product, total = fn(_const(z))
    assert exp.dtype is dtypes.complex64
    np.testing.assert_allclose(exp.numpy(), np.exp(z), rtol=1e-6)
    np.testing.assert_allclose(sqrt.numpy(), np.sqrt(z), rtol=1e-6)
    np.testing.assert_allclose(half.numpy(), z / 2)
    assert same.numpy().all()
    np.testing.assert_allclose(product.numpy(), [[z @ z]], rtol=1e-6)
    np.testing.assert_allclose(total.numpy(), z.sum())


# -- complex parts ----------------------------------------------------------------------------

@pytest.mark.parametrize("traced", [False, True])
def test_real_imag_conj_angle_abs_and_complex(traced):
    def parts(z, x, y):
        return (math_ops.real(z), math_ops.imag(z), math_ops.conj(z), math_ops.angle(z),
                math_ops.abs(z), math_ops.complex(x, y))
    fn = _traced(parts) if traced else parts
    z = np.array([3 + 4j, -1 - 1j], np.complex64)
    real, imag, conj, angle, magnitude, built = fn(
        _const(z), _const([1.0, 2.0]), _const([0.5, -1.0]))
    assert real.dtype is dtypes.float32 and magnitude.dtype is dtypes.float32
    np.testing.assert_array_equal(real.numpy(), z.real)
    np.testing.assert_array_equal(imag.numpy(), z.imag)
    np.testing.assert_array_equal(conj.numpy(), np.conj(z))
    np.testing.assert_allclose(angle.numpy(), np.angle(z), rtol=1e-6)
    np.testing.assert_allclose(magnitude.numpy(), [5, np.sqrt(2)], rtol=1e-6)
    assert built.dtype is dtypes.complex64
    np.testing.assert_array_equal(built.numpy(), [1 + 0.5j, 2 - 1j])


def test_parts_of_a_real_tensor_follow_tensorflow():
    x = _const([-2.0, 3.0])
    assert math_ops.real(x) is x and math_ops.conj(x) is x
    np.testing.assert_array_equal(math_ops.imag(x).numpy(), [0, 0])
    np.testing.assert_allclose(math_ops.angle(x).numpy(), [np.pi, 0], rtol=1e-6)


# -- complex gradients: TensorFlow's convention dL/dx + i dL/dy --------------------------------

def _complex_numeric_gradient(scalar, z):
    """dL/d(real part) + i dL/d(imaginary part), by central differences."""
    def of_parts(re, im):
        return scalar(re + 1j * im)
    d_re, d_im = numeric_gradients(of_parts, [z.real.copy(), z.imag.copy()])
    return d_re + 1j * d_im


@pytest.mark.parametrize("name, fn, reference", [
    ("real_of_square", lambda z: math_ops.real(math_ops.multiply(z, z)),
     lambda z: np.real(z * z)),
    ("abs", math_ops.abs, np.abs),
    ("angle", math_ops.angle, np.angle),
    ("imag_of_exp", lambda z: math_ops.imag(math_ops.exp(z)), lambda z: np.imag(np.exp(z))),
    ("abs_of_log", lambda z: math_ops.abs(math_ops.log(z)), lambda z: np.abs(np.log(z))),
    ("real_of_quotient", lambda z: math_ops.real(math_ops.truediv(z, math_ops.sqrt(z))),
     lambda z: np.real(z / np.sqrt(z))),
    ("imag_of_tanh_times_conj", lambda z: math_ops.imag(
        math_ops.multiply(math_ops.tanh(z), math_ops.conj(z))),
     lambda z: np.imag(np.tanh(z) * np.conj(z))),
])
def test_complex_gradients_match_finite_differences(name, fn, reference):
    z = np.array([1 + 2j, -0.5 + 0.3j, 2 - 1j])
    source = _const(z)
    with GradientTape() as tape:
        tape.watch(source)
        loss = reduction_ops.reduce_sum(fn(source))
    gradient = tape.gradient(loss, source)
    expected = _complex_numeric_gradient(lambda v: np.sum(reference(v)), z)
    assert gradient.dtype is dtypes.complex128
    np.testing.assert_allclose(gradient.numpy(), expected, rtol=1e-5, atol=1e-7)


def test_gradient_through_complex_from_real_parts():
    x, y = _const([1.0, 2.0], dtypes.float64), _const([3.0, -1.0], dtypes.float64)
    with GradientTape() as tape:
        tape.watch([x, y])
        loss = reduction_ops.reduce_sum(math_ops.abs(math_ops.complex(x, y)))
    dx, dy = tape.gradient(loss, [x, y])
    magnitude = np.hypot([1.0, 2.0], [3.0, -1.0])
    np.testing.assert_allclose(dx.numpy(), np.array([1.0, 2.0]) / magnitude)
    np.testing.assert_allclose(dy.numpy(), np.array([3.0, -1.0]) / magnitude)


def test_cast_passes_gradients_between_complex_and_float():
    x = _const([1.5, -2.0], dtypes.float64)
    with GradientTape() as tape:
        tape.watch(x)
        z = math_ops.cast(x, dtypes.complex128)
        loss = reduction_ops.reduce_sum(math_ops.real(math_ops.multiply(z, z)))
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), [3.0, -4.0])


# -- Python numbers beside a tensor -----------------------------------------------------------

@pytest.mark.parametrize("op, tensor, number, message", [
    (math_ops.add, _const(1, dtypes.uint8), 300, "300 to a uint8 tensor"),
    (math_ops.subtract, _const(1, dtypes.uint8), -1, "-1 to a uint8 tensor"),
    (math_ops.multiply, _const(1), 1.5, "1.5 to an exact int32 tensor"),
    (math_ops.add, _const(1.0), 1j, "complex value 1j to a float32 tensor"),
])
def test_a_python_number_the_tensors_dtype_cannot_hold_is_a_type_error(op, tensor, number,
                                                                       message):
    with pytest.raises(TypeError, match=message):
        op(tensor, number)
    with pytest.raises(TypeError, match=message):
        op(number, tensor)


# -- bitwise ops: integers only -------------------------------------------------------------------

@pytest.mark.parametrize("traced", [False, True])
def test_bitwise_ops_and_operators_on_integer_tensors(traced):
    def bits(x):
        return (math_ops.bitwise_and(x, 6), math_ops.bitwise_or(x, 1), math_ops.bitwise_xor(x, 3),
                math_ops.invert(x), math_ops.left_shift(x, 2), math_ops.right_shift(x, 1),
                x & 6, x | 1, x ^ 3, ~x, x << 2, x >> 1)
    fn = _traced(bits) if traced else bits
    x = np.array([12, 10], np.uint8)
    expected = [x & 6, x | 1, x ^ 3, ~x, x << 2, x >> 1]
    for got, want in zip(fn(_const(x)), expected * 2):
        assert got.dtype is dtypes.uint8
        np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(math_ops.right_shift(_const([-8], dtypes.int8), 1).numpy(),
                                  [-4])


def test_bitwise_ops_refuse_floats_and_operators_refuse_them_too():
    with pytest.raises(errors.InvalidArgumentError,
                       match="BitwiseAnd: operand of dtype float32 is not supported"):
        math_ops.bitwise_and(_const([1.0]), _const([1.0]))
    with pytest.raises(TypeError, match="only supported on bool and integer tensors"):
        _const([1.0]) & _const([1.0])


_W = np.array([[0.3 - 1j, 1.2 + 0.4j], [-2 + 0.5j, 1j]])


@pytest.mark.parametrize("name, fn, reference", [
    ("matmul", lambda t: math_ops.real(linalg_ops.matmul(t, _const(_W)))
     + math_ops.imag(linalg_ops.matmul(_const(_W), t)), lambda v: np.real(v @ _W)
     + np.imag(_W @ v)),
    ("einsum", lambda t: math_ops.imag(einsum_ops.einsum("ij,jk->ik", t, _const(_W))),
     lambda v: np.imag(v @ _W)),
    ("pow", lambda t: math_ops.abs(math_ops.pow(t, _const(_W))), lambda v: np.abs(v ** _W)),
    ("prod", lambda t: math_ops.real(reduction_ops.reduce_prod(t, axis=1)),
     lambda v: np.real(np.prod(v, axis=1))),
    ("mean", lambda t: math_ops.abs(reduction_ops.reduce_mean(t)), lambda v: np.abs(v.mean())),
    ("sigmoid", lambda t: math_ops.imag(math_ops.sigmoid(t)),
     lambda v: np.imag(1 / (1 + np.exp(-v)))),
    ("rsqrt", lambda t: math_ops.real(math_ops.rsqrt(t)), lambda v: np.real(1 / np.sqrt(v))),
    ("reciprocal_of_difference", lambda t: math_ops.real(math_ops.reciprocal(
        math_ops.subtract(t, _const(_W)))), lambda v: np.real(1 / (v - _W))),
])
def test_complex_gradients_of_matrix_products_powers_and_reductions(name, fn, reference):
    z = np.array([[1 + 2j, -0.5 + 0.3j], [2 - 1j, 0.7 + 0.1j]])
    source = _const(z)
    with GradientTape() as tape:
        tape.watch(source)
        loss = reduction_ops.reduce_sum(fn(source))
    expected = _complex_numeric_gradient(lambda v: np.sum(reference(v)), z)
    np.testing.assert_allclose(tape.gradient(loss, source).numpy(), expected, rtol=1e-5,
                               atol=1e-7)


def test_range_refuses_complex_and_einsum_computes_bfloat16():
    with pytest.raises(TypeError, match="range: dtype complex64 is not supported"):
        array_ops.range(_const(0, dtypes.complex64), _const(4, dtypes.complex64))
    x = _const(np.array([1.5, 2], ml_dtypes.bfloat16))
    dot = einsum_ops.einsum("i,i->", x, x)
    assert dot.dtype is dtypes.bfloat16 and float(dot.numpy()) == 6.25
