"""Elementwise math ops (arithmetic, comparisons, logical ops, unary functions, casts,
add_n, clip_by_value), against the runtime alone: values against numpy eagerly and traced,
with exact and with unknown static shapes; Python numbers as operands; errors for mixed or
unsupported dtypes, incompatible shapes and integer division by zero, naming the op, its
operands and the user's line; how the executor writes them (their emit rules); gradient rules
against finite differences. Tables and checks: tests/op_cases.py."""

import numpy as np
import pytest
from op_cases import (
    B1,
    B2,
    F1,
    F2,
    HALVES,
    I1,
    I2,
    POS,
    ROW,
    SCALAR,
    SMALL,
    SPECIAL,
    UNKNOWN,
    VECTOR,
    RuleOperands,
    case,
    const,
    eager_values_test,
    emit,
    gradient_rules_test,
    incompatible_shapes_tests,
    mixed_dtypes_tests,
    static_shapes_with_an_unknown_dimension,
    traced_values_test,
    unknown_dims_test,
    unsupported_dtype_tests,
)

from runtime import dtypes, errors
from runtime.ops import array_ops, math_ops

# with AUTOGRAPH_BACKEND=numba or jax, every op's compiled lowering (.ci/run)
pytestmark = pytest.mark.lowerings


def _np_sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _np_floor_int(x, y):
    return np.floor_divide(x, y)


def _np_floor_of_quotient(x, y):
    """TensorFlow's float floordiv: the floor of the rounded quotient."""
    return np.floor(x / y)


def _np_mod_of_tensorflow(x, y):
    """TensorFlow's float floormod: fmod's remainder moved into the divisor's sign."""
    remainder = np.fmod(x, y)
    return np.where((remainder != 0) & ((y < 0) != (remainder < 0)), remainder + y, remainder)


BINARY_FLOAT = [
    ("add", math_ops.add, np.add),
    ("subtract", math_ops.subtract, np.subtract),
    ("multiply", math_ops.multiply, np.multiply),
    ("divide", math_ops.divide, np.true_divide),
    ("truediv", math_ops.truediv, np.true_divide),
    ("floordiv", math_ops.floordiv, _np_floor_of_quotient),
    ("maximum", math_ops.maximum, np.maximum),
    ("minimum", math_ops.minimum, np.minimum),
    ("math.add", math_ops.add, np.add),
    ("math.subtract", math_ops.subtract, np.subtract),
    ("math.multiply", math_ops.multiply, np.multiply),
    ("math.divide", math_ops.divide, np.true_divide),
    ("math.truediv", math_ops.truediv, np.true_divide),
    ("math.floordiv", math_ops.floordiv, _np_floor_of_quotient),
    ("math.floormod", math_ops.floormod, _np_mod_of_tensorflow),
    ("math.mod", math_ops.mod, _np_mod_of_tensorflow),
    ("math.maximum", math_ops.maximum, np.maximum),
    ("math.minimum", math_ops.minimum, np.minimum),
    ("math.squared_difference", math_ops.squared_difference, lambda x, y: np.square(x - y)),
]

COMPARISONS = [
    ("equal", math_ops.equal, np.equal),
    ("not_equal", math_ops.not_equal, np.not_equal),
    ("less", math_ops.less, np.less),
    ("less_equal", math_ops.less_equal, np.less_equal),
    ("greater", math_ops.greater, np.greater),
    ("greater_equal", math_ops.greater_equal, np.greater_equal),
    ("math.equal", math_ops.equal, np.equal),
    ("math.not_equal", math_ops.not_equal, np.not_equal),
    ("math.less", math_ops.less, np.less),
    ("math.less_equal", math_ops.less_equal, np.less_equal),
    ("math.greater", math_ops.greater, np.greater),
    ("math.greater_equal", math_ops.greater_equal, np.greater_equal),
]

UNARY_FLOAT = [
    ("negative", math_ops.negative, np.negative, F1),
    ("abs", math_ops.abs, np.abs, F1),
    ("square", math_ops.square, np.square, F1),
    ("sqrt", math_ops.sqrt, np.sqrt, POS),
    ("exp", math_ops.exp, np.exp, F1),
    ("tanh", math_ops.tanh, np.tanh, F1),
    ("sigmoid", math_ops.sigmoid, _np_sigmoid, F1),
    ("math.negative", math_ops.negative, np.negative, F1),
    ("math.abs", math_ops.abs, np.abs, F1),
    ("math.sign", math_ops.sign, np.sign, F1),
    ("math.square", math_ops.square, np.square, F1),
    ("math.sqrt", math_ops.sqrt, np.sqrt, POS),
    ("math.rsqrt", math_ops.rsqrt, lambda x: 1 / np.sqrt(x), POS),
    ("math.exp", math_ops.exp, np.exp, F1),
    ("math.expm1", math_ops.expm1, np.expm1, F1),
    ("math.log", math_ops.log, np.log, POS),
    ("math.log1p", math_ops.log1p, np.log1p, POS),
    ("math.tanh", math_ops.tanh, np.tanh, F1),
    ("math.sigmoid", math_ops.sigmoid, _np_sigmoid, F1),
    ("math.softplus", math_ops.softplus, lambda x: np.log1p(np.exp(x)), F1),
    ("math.sin", math_ops.sin, np.sin, F1),
    ("math.cos", math_ops.cos, np.cos, F1),
    ("math.tan", math_ops.tan, np.tan, F1),
    ("math.sinh", math_ops.sinh, np.sinh, F1),
    ("math.cosh", math_ops.cosh, np.cosh, F1),
    ("math.floor", math_ops.floor, np.floor, HALVES),
    ("math.ceil", math_ops.ceil, np.ceil, HALVES),
    ("math.round", math_ops.round, np.round, HALVES),
    ("math.reciprocal", math_ops.reciprocal, np.reciprocal, POS),
    ("nn.relu", math_ops.relu, lambda x: np.maximum(x, 0), F1),
    ("nn.sigmoid", math_ops.sigmoid, _np_sigmoid, F1),
    ("nn.tanh", math_ops.tanh, np.tanh, F1),
    ("nn.softplus", math_ops.softplus, lambda x: np.log1p(np.exp(x)), F1),
]


def _cases():
    out = []
    for name, op, ref in BINARY_FLOAT:
        out.append(case(name, op, (F1, F2), ref, dtypes.float32))
    out.append(case("add broadcast row", math_ops.add, (F1, ROW), np.add, dtypes.float32))
    out.append(case("maximum broadcast scalar", math_ops.maximum, (F1, np.float32(0.0)), np.maximum,
                    dtypes.float32))
    out.append(case("pow", math_ops.pow, (POS, F2), np.power, dtypes.float32))
    out.append(case("math.pow", math_ops.pow, (POS, F2), np.power, dtypes.float32))
    for name, op, ref in COMPARISONS:
        out.append(case(name, op, (F1, F2), ref, dtypes.bool_))
    out.append(case("equal int", math_ops.equal, (I1, SMALL), np.equal, dtypes.bool_))
    out.append(case("less broadcast", math_ops.less, (F1, ROW), np.less, dtypes.bool_))

    for name, op, ref in [("add", math_ops.add, np.add),
                          ("subtract", math_ops.subtract, np.subtract),
                          ("multiply", math_ops.multiply, np.multiply),
                          ("floordiv", math_ops.floordiv, _np_floor_int),
                          ("math.floormod", math_ops.floormod, np.mod),
                          ("maximum", math_ops.maximum, np.maximum),
                          ("minimum", math_ops.minimum, np.minimum)]:
        out.append(case(name + " int32", op, (I1, I2), ref, dtypes.int32))
    out.append(case("pow int32", math_ops.pow, (I1, SMALL), np.power, dtypes.int32))
    out.append(case("add int64", math_ops.add, (I1.astype(np.int64), I2.astype(np.int64)), np.add,
                    dtypes.int64))
    out.append(case("add float64", math_ops.add, (F1.astype(np.float64), F2.astype(np.float64)),
                    np.add, dtypes.float64))
    out.append(case("divide int32 gives float64", math_ops.divide, (I1, I2),
                    lambda x, y: x.astype(np.float64) / y.astype(np.float64), dtypes.float64))
    out.append(case("add string", math_ops.add, (np.array([b"a", b"b"], object),
                                                 np.array([b"c", b"d"], object)),
                    lambda x, y: x + y, dtypes.string))
    out.append(case("equal string", math_ops.equal, (np.array([b"a", b"b"], object),
                                                     np.array([b"a", b"d"], object)),
                    np.equal, dtypes.bool_))

    out.append(case("logical_and", math_ops.logical_and, (B1, B2), np.logical_and, dtypes.bool_))
    out.append(case("logical_or", math_ops.logical_or, (B1, B2), np.logical_or, dtypes.bool_))
    out.append(case("logical_not", math_ops.logical_not, (B1,), np.logical_not, dtypes.bool_))
    out.append(case("math.logical_and", math_ops.logical_and, (B1, B2), np.logical_and,
                    dtypes.bool_))
    out.append(case("math.logical_or", math_ops.logical_or, (B1, B2), np.logical_or, dtypes.bool_))
    out.append(case("math.logical_not", math_ops.logical_not, (B1,), np.logical_not, dtypes.bool_))
    out.append(case("math.logical_xor", math_ops.logical_xor, (B1, B2), np.logical_xor,
                    dtypes.bool_))

    for name, op, ref, x in UNARY_FLOAT:
        out.append(case(name, op, (x,), ref, dtypes.float32))
    for name, op, ref in [("negative", math_ops.negative, np.negative),
                          ("abs", math_ops.abs, np.abs),
                          ("square", math_ops.square, np.square),
                          ("math.sign", math_ops.sign, np.sign),
                          ("nn.relu", math_ops.relu, lambda x: np.maximum(x, 0))]:
        out.append(case(name + " int32", op, (I1,), ref, dtypes.int32))
    for name, op, ref in [("math.is_nan", math_ops.is_nan, np.isnan),
                          ("math.is_inf", math_ops.is_inf, np.isinf),
                          ("math.is_finite", math_ops.is_finite, np.isfinite)]:
        out.append(case(name, op, (SPECIAL,), ref, dtypes.bool_))
    out.append(case("add_n", lambda a, b, c: math_ops.add_n([a, b, c]), (F1, F2, POS),
                    lambda a, b, c: a + b + c, dtypes.float32))
    out.append(case("math.add_n", lambda a, b: math_ops.add_n([a, b]), (I1, I2), np.add,
                    dtypes.int32))
    out.append(case("clip_by_value", lambda x: math_ops.clip_by_value(x, -0.5, 0.5), (F1,),
                    lambda x: np.clip(x, -0.5, 0.5), dtypes.float32))
    out.append(case("clip_by_value tensors", math_ops.clip_by_value,
                    (I1, np.int32(-2), np.int32(6)), np.clip, dtypes.int32))

    out.append(case("cast float to int truncates", lambda x: math_ops.cast(x, dtypes.int32),
                    (HALVES,),
                    lambda x: np.trunc(x).astype(np.int32), dtypes.int32))
    out.append(case("cast int to float", lambda x: math_ops.cast(x, dtypes.float32), (I1,),
                    lambda x: x.astype(np.float32), dtypes.float32))
    out.append(case("cast int to int64", lambda x: math_ops.cast(x, dtypes.int64), (I1,),
                    lambda x: x.astype(np.int64), dtypes.int64))
    out.append(case("cast bool to float", lambda x: math_ops.cast(x, dtypes.float32), (B1,),
                    lambda x: x.astype(np.float32), dtypes.float32))
    out.append(case("cast float to bool", lambda x: math_ops.cast(x, dtypes.bool_), (SMALL.astype(
        np.float32),), lambda x: x != 0, dtypes.bool_))
    out.append(case("cast float32 to float64", lambda x: math_ops.cast(x, "float64"), (F1,),
                    lambda x: x.astype(np.float64), dtypes.float64))
    return out


CASES = _cases()

test_eager_result_matches_numpy = eager_values_test(CASES)
test_traced_result_equals_eager_and_static_shape_is_exact = traced_values_test(CASES)
test_traced_with_unknown_dims_gives_compatible_static_shape = unknown_dims_test(CASES)


def test_static_shapes_keep_known_dims_when_others_are_unknown():
    shapes = static_shapes_with_an_unknown_dimension(lambda x, y: {
        "add": x + y})
    assert shapes == {"add": (None, 3)}


# -- Python numbers mixed with tensors -------------------------------------------------

@pytest.mark.parametrize("op, ref", [(math_ops.add, np.add), (math_ops.multiply, np.multiply),
                                     (math_ops.maximum, np.maximum),
                                     (math_ops.subtract, np.subtract)])
def test_python_scalars_adopt_the_tensor_dtype(op, ref):
    result = op(array_ops.constant(F1), 2)
    assert result.dtype is dtypes.float32
    np.testing.assert_allclose(result.numpy(), ref(F1, np.float32(2)))
    result = op(3, array_ops.constant(I1))
    assert result.dtype is dtypes.int32
    np.testing.assert_array_equal(result.numpy(), ref(np.int32(3), I1))


def test_two_python_scalars_make_tensors():
    result = math_ops.add(1, 2)
    assert result.dtype is dtypes.int32
    assert result.numpy() == 3
    result = math_ops.multiply(1.5, 2)
    assert result.dtype is dtypes.float32
    assert result.numpy() == 3.0


# -- errors: mixed dtypes, unsupported dtypes, incompatible shapes --------------------

DTYPE_MISMATCH = [
    ("add", math_ops.add, "AddV2"),
    ("subtract", math_ops.subtract, "Sub"),
    ("multiply", math_ops.multiply, "Mul"),
    ("divide", math_ops.divide, "RealDiv"),
    ("floordiv", math_ops.floordiv, "FloorDiv"),
    ("math.floormod", math_ops.floormod, "FloorMod"),
    ("pow", math_ops.pow, "Pow"),
    ("maximum", math_ops.maximum, "Maximum"),
    ("minimum", math_ops.minimum, "Minimum"),
    ("squared_difference", math_ops.squared_difference, "SquaredDifference"),
    ("equal", math_ops.equal, "Equal"),
    ("not_equal", math_ops.not_equal, "NotEqual"),
    ("less", math_ops.less, "Less"),
    ("less_equal", math_ops.less_equal, "LessEqual"),
    ("greater", math_ops.greater, "Greater"),
    ("greater_equal", math_ops.greater_equal, "GreaterEqual"),
    ("add_n", lambda a, b: math_ops.add_n([a, b]), "AddN"),
    ("operator +", lambda a, b: a + b, "AddV2"),
    ("operator *", lambda a, b: a * b, "Mul"),
    ("operator <", lambda a, b: a < b, "Less"),
]

test_mixed_dtypes_raise_invalid_argument_eagerly, \
    test_mixed_dtypes_raise_type_error_while_tracing = mixed_dtypes_tests(DTYPE_MISMATCH)


UNSUPPORTED_DTYPE = [
    ("sqrt int", math_ops.sqrt, [1, 4], "Sqrt"),
    ("exp int", math_ops.exp, [1, 2], "Exp"),
    ("tanh int", math_ops.tanh, [1, 2], "Tanh"),
    ("math.log int", math_ops.log, [1, 2], "Log"),
    ("sigmoid bool", math_ops.sigmoid, [True], "Sigmoid"),
    ("negative bool", math_ops.negative, [True], "Neg"),
    ("abs string", math_ops.abs, ["a"], "Abs"),
    ("logical_not int", math_ops.logical_not, [1, 0], "LogicalNot"),
    ("logical_and float", lambda x: math_ops.logical_and(x, x), [1.0], "LogicalAnd"),
    ("subtract string", lambda x: x - x, ["a"], "Sub"),
    ("cast string to int", lambda x: math_ops.cast(x, dtypes.int32), ["1"], "Cast"),
]

test_unsupported_dtype_raises_invalid_argument_eagerly, \
    test_unsupported_dtype_raises_type_error_while_tracing = \
    unsupported_dtype_tests(UNSUPPORTED_DTYPE)


SHAPE_MISMATCH = [
    ("add", math_ops.add, [(2,), (3,)], "AddV2"),
    ("subtract", math_ops.subtract, [(2, 3), (3, 2)], "Sub"),
    ("maximum", math_ops.maximum, [(4,), (2,)], "Maximum"),
    ("less", math_ops.less, [(2,), (3,)], "Less"),
    ("add_n", lambda a, b: math_ops.add_n([a, b]), [(2,), (3,)], "AddN"),
]

test_incompatible_shapes_raise_invalid_argument_eagerly, \
    test_incompatible_shapes_raise_value_error_while_tracing = \
    incompatible_shapes_tests(SHAPE_MISMATCH)


def test_shape_error_message_names_both_operand_shapes():
    with pytest.raises(errors.InvalidArgumentError) as info:
        math_ops.add(array_ops.ones([2]), array_ops.ones([3]))
    assert "(2,)" in str(info.value) and "(3,)" in str(info.value)


def test_eager_op_error_names_the_calling_line():
    with pytest.raises(errors.InvalidArgumentError) as info:
        math_ops.add(array_ops.ones([2]), array_ops.ones([3]))  # the line the error must name
    assert "test_math_ops.py" in str(info.value)
    assert "the line the error must name" in str(info.value)


def test_op_error_carries_the_op_name():
    with pytest.raises(errors.InvalidArgumentError) as info:
        math_ops.add(array_ops.ones([2]), array_ops.ones([3]))
    assert info.value.op_name == "AddV2"
    assert isinstance(info.value, errors.OpError)


def test_integer_division_by_zero_raises_invalid_argument():
    with pytest.raises(errors.InvalidArgumentError):
        math_ops.floordiv(array_ops.constant([1]), array_ops.constant([0]))
    with pytest.raises(errors.InvalidArgumentError):
        math_ops.floormod(array_ops.constant([1]), array_ops.constant([0]))


def test_float_division_by_zero_gives_inf():
    result = math_ops.divide(array_ops.constant([1.0, -1.0]), array_ops.constant([0.0, 0.0]))
    np.testing.assert_array_equal(result.numpy(), [np.inf, -np.inf])


# -- how the executor writes them: the emit rules (see tests/op_cases.py) ---------------

def test_emit_rank0_constants_are_numpy_scalars_when_every_operand_is_rank0():
    text, namespace = emit("Greater", ("x", dtypes.float32, SCALAR, None),
                            const(1.0, dtypes.float32))
    x, symbol, constant = text.split(" = ")[1].split()
    assert (x, symbol) == ("x", ">")
    assert type(namespace[constant]) is np.float32


@pytest.mark.parametrize("shape", [VECTOR, UNKNOWN], ids=["vector", "unknown"])
def test_emit_keeps_0d_array_constants_next_to_arrays(shape):
    text, namespace = emit("Mul", ("x", dtypes.float32, shape, None), const(2.0, dtypes.float32))
    assert text == "out = x * k"  # the constant's own expression: the bound 0-d array


def test_emit_keeps_0d_array_constants_next_to_rank0_function_arguments():
    # Arguments arrive as 0-d arrays: 0-d array + 0-d array is faster than + numpy scalar.
    text, _ = emit("AddV2", ("in0", dtypes.float32, SCALAR, None, True),
                    const(1.0, dtypes.float32))
    assert text == "out = in0 + k"


def test_emit_integer_arithmetic_on_rank0_values_uses_operators_only_in_loops():
    operands = (("x", dtypes.int32, SCALAR, None), const(3, dtypes.int32))
    for op_name in ("AddV2", "Sub", "Mul"):
        assert emit(op_name, *operands)[0] is None  # the ufunc kernel: never warns
        text, namespace = emit(op_name, *operands, overflow_ignored=True)
        assert type(namespace[text.split()[-1]]) is np.int32
    assert emit("Neg", ("x", dtypes.int32, SCALAR, None))[0] is None
    assert emit("Neg", ("x", dtypes.int32, SCALAR, None), overflow_ignored=True)[0] == "out = -x"
    assert emit("Neg", ("x", dtypes.int32, VECTOR, None))[0] == "out = -x"
    assert emit("AddV2", ("x", dtypes.int32, VECTOR, None), const(3, dtypes.int32))[0] \
        == "out = x + k"
    assert emit("AddV2", ("x", dtypes.float32, SCALAR, None),
                 ("y", dtypes.float32, SCALAR, None))[0] \
        == "out = x + y"


def test_emit_integer_comparisons_use_scalars_anywhere():
    text, namespace = emit("Less", ("x", dtypes.int32, SCALAR, None), const(3, dtypes.int32))
    assert text.startswith("out = x < ") and type(namespace[text.split()[-1]]) is np.int32


@pytest.mark.parametrize("op_name, symbol", [("FloorMod", "%"), ("FloorDiv", "//")])
def test_emit_integer_division_by_a_nonzero_constant_is_an_operator(op_name, symbol):
    x = ("x", dtypes.int64, VECTOR, None)
    assert emit(op_name, x, const(15, dtypes.int64))[0] == "out = x %s k" % symbol
    assert emit(op_name, x, const([3, -4, 5], dtypes.int64))[0] == "out = x %s k" % symbol
    text, namespace = emit(op_name, ("x", dtypes.int64, SCALAR, None), const(15, dtypes.int64))
    assert type(namespace[text.split()[-1]]) is np.int64
    # The kernel, which checks the divisor (or silences warnings), everywhere else:
    assert emit(op_name, x, const(0, dtypes.int64))[0] is None
    assert emit(op_name, x, const([3, 0, 5], dtypes.int64))[0] is None
    assert emit(op_name, x, ("y", dtypes.int64, VECTOR, None))[0] is None
    assert emit(op_name, ("x", dtypes.float32, VECTOR, None),
                 const(2.0, dtypes.float32))[0] is None


def test_emit_floordiv_by_minus_one_keeps_the_kernel_but_mod_does_not():
    x = ("x", dtypes.int32, SCALAR, None)
    assert emit("FloorDiv", x, const(-1, dtypes.int32))[0] is None  # int min // -1 overflows
    assert emit("FloorMod", x, const(-1, dtypes.int32))[0] is not None


def test_emit_equality_is_an_operator_for_numbers_and_bools_only():
    assert emit("Equal", ("x", dtypes.int32, VECTOR, None), ("y", dtypes.int32, VECTOR, None))[0] \
        == "out = x == y"
    assert emit("NotEqual", ("x", dtypes.bool_, SCALAR, None),
                 ("y", dtypes.bool_, SCALAR, None))[0] \
        == "out = x != y"
    assert emit("Equal", ("x", dtypes.string, VECTOR, None),
                 ("y", dtypes.string, VECTOR, None))[0] \
        is None


@pytest.mark.parametrize("dtype", [dtypes.float32, dtypes.float64])
def test_float_floordiv_is_tensorflows_floor_of_the_rounded_quotient(dtype):
    # numpy (and Python) floor the exact quotient: 1.0 // 0.1 is 9.0 there, -inf // 1 nan
    x = array_ops.constant([1.0, -1.0, 7.0, -np.inf, 3e38, 1.0, 0.0, 5.0], dtype)
    y = array_ops.constant([0.1, 0.1, 0.7, 1.0, -np.inf, 0.0, 0.0, -0.0], dtype)
    result = (x // y).numpy()
    np.testing.assert_array_equal(result, [10.0, -10.0, 10.0, -np.inf, -0.0, np.inf, np.nan,
                                           -np.inf])
    assert np.signbit(result[4])  # floor(-0.0)
    # float64 rounds 0.3 / 0.1 below 3, float32 to 3
    expected = 2.0 if dtype == dtypes.float64 else 3.0
    assert math_ops.floordiv(array_ops.constant(0.3, dtype),
                             array_ops.constant(0.1, dtype)).numpy() == expected


@pytest.mark.parametrize("dtype", [dtypes.float32, dtypes.float64])
def test_float_mod_is_tensorflows_a_zero_keeping_the_dividends_sign(dtype):
    # numpy's mod gives a zero the divisor's sign: -4.0 % 2.0 is 0.0 there, -0.0 here
    x = array_ops.constant([-4.0, 4.0, -4.0, -0.0, -1.0, 5.5, -5.5, 1.0], dtype)
    y = array_ops.constant([2.0, -2.0, -2.0, 3.0, np.inf, 2.0, 2.0, 0.0], dtype)
    result = (x % y).numpy()
    np.testing.assert_array_equal(result, [0.0, 0.0, 0.0, 0.0, np.inf, 1.5, 0.5, np.nan])
    assert np.signbit(result[:4]).tolist() == [True, False, True, True]
    assert np.signbit(math_ops.floormod(array_ops.constant(-4.0, dtype), 2.0).numpy())


def test_integer_mod_and_floordiv_kernels_check_scalar_and_array_divisors():
    for divisor in (np.int32(0), np.array(0, np.int32), np.array([2, 0], np.int32)):
        with pytest.raises(ZeroDivisionError, match="integer modulo by zero"):
            math_ops.OPS["FloorMod"].kernel(np.array([5, 6], np.int32), divisor)
        with pytest.raises(ZeroDivisionError, match="integer division by zero"):
            math_ops.OPS["FloorDiv"].kernel(np.int32(5), divisor)
    assert math_ops.OPS["FloorMod"].kernel(np.int32(-7), np.int32(3)) == 2
    assert math_ops.OPS["FloorDiv"].kernel(np.int32(-7), np.array(3, np.int32)) == -3


# -- gradient rules, against finite differences ------------------------------------

_operands = RuleOperands(42)
_u, _pos = _operands.uniform, _operands.positive

GRADIENT_RULES = {
    # binary, with broadcasting
    "add": (lambda x, y: x + y, _u(3, 1), _u(4)),
    "sub": (lambda x, y: x - y, _u(2, 3), _u(3)),
    "mul": (lambda x, y: x * y, _u(3, 4), _u(1, 4)),
    "div": (lambda x, y: x / y, _u(2, 3), _pos(2, 1)),
    "pow": (lambda x, y: math_ops.pow(x, y), _pos(3), _u(3)),
    "maximum": (math_ops.maximum, np.array([0.1, 0.9, -0.5]), np.array([0.5, 0.2, -0.1])),
    "minimum": (math_ops.minimum, np.array([0.1, 0.9, -0.5]), np.array([0.5, 0.2, -0.1])),
    "squared_difference": (math_ops.squared_difference, _u(2, 2), _u(2)),
    "floormod": (math_ops.floormod, np.array([2.3, -1.7, 5.2]), np.array([1.1, 0.9, 2.0])),
    "scalar_times": (lambda x: 3.0 * x - x / 2.0, _u(4)),
    # unary
    "neg": (lambda x: -x, _u(3)),
    "abs": (math_ops.abs, np.array([0.5, -0.3, 1.2])),
    "square": (math_ops.square, _u(3)),
    "sqrt": (math_ops.sqrt, _pos(3)),
    "rsqrt": (math_ops.rsqrt, _pos(3)),
    "reciprocal": (math_ops.reciprocal, _pos(3)),
    "exp": (math_ops.exp, _u(3)),
    "expm1": (math_ops.expm1, _u(3)),
    "log": (math_ops.log, _pos(3)),
    "log1p": (math_ops.log1p, _pos(3)),
    "tanh": (math_ops.tanh, _u(3)),
    "sigmoid": (math_ops.sigmoid, _u(3)),
    "softplus": (math_ops.softplus, _u(3)),
    "relu": (math_ops.relu, np.array([0.5, -0.3, 1.2, -2.0])),
    "sin": (math_ops.sin, _u(3)),
    "cos": (math_ops.cos, _u(3)),
    "tan": (math_ops.tan, _u(3)),
    "sinh": (math_ops.sinh, _u(3)),
    "cosh": (math_ops.cosh, _u(3)),
    "add_n": (lambda x, y: math_ops.add_n([x, y, x]), _u(2, 2), _u(2, 2)),
    "clip_by_value": (lambda x, lo, hi: math_ops.clip_by_value(x, lo, hi),
                      np.array([-2.0, 0.3, 2.0, 0.7]), np.array(-1.0), np.array(1.0)),
}

test_rule_matches_finite_differences = gradient_rules_test(GRADIENT_RULES)
