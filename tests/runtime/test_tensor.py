"""Eager and symbolic tensors: dtype inference, operators, indexing, conversions, printing."""

import numpy as np
import pytest

from runtime import dtypes, errors
from runtime import signature as signature_lib
from runtime import tensor as tensor_lib
from runtime.function import function
from runtime.ops import array_ops
from runtime.tensor import EagerTensor, Tensor

# -- dtype inference ------------------------------------------------------------------------

@pytest.mark.parametrize("value, dtype", [
    (1, dtypes.int32),
    (-7, dtypes.int32),
    (2**31 - 1, dtypes.int32),
    (-2**31, dtypes.int32),
    (2**31, dtypes.int64),
    (2**40, dtypes.int64),
    (-2**31 - 1, dtypes.int64),
    ([1, 2**40], dtypes.int64),
    (1.5, dtypes.float32),
    (2.0**40, dtypes.float32),
    ([1, 2.5], dtypes.float32),
    (True, dtypes.bool_),
    ([True, False], dtypes.bool_),
    ("abc", dtypes.string),
    (b"abc", dtypes.string),
    (["a", "bc"], dtypes.string),
    ([[1, 2], [3, 4]], dtypes.int32),
    ([], dtypes.float32),
])
def test_python_values_get_tensorflow_dtypes(value, dtype):
    assert array_ops.constant(value).dtype is dtype


@pytest.mark.parametrize("value, dtype", [
    (np.float64(1.5), dtypes.float64),
    (np.float32(1.5), dtypes.float32),
    (np.int64(3), dtypes.int64),
    (np.int32(3), dtypes.int32),
    (np.bool_(True), dtypes.bool_),
    (np.arange(3), dtypes.int64),
    (np.arange(3, dtype=np.int32), dtypes.int32),
    (np.linspace(0, 1, 3), dtypes.float64),
    (np.array([b"x", b"y"]), dtypes.string),
])
def test_numpy_values_keep_their_dtype(value, dtype):
    t = array_ops.constant(value)
    assert t.dtype is dtype
    np.testing.assert_array_equal(t.numpy(), value)


def test_explicit_dtype_converts_python_numbers():
    t = array_ops.constant(1, dtype=dtypes.float32)
    assert t.dtype is dtypes.float32
    assert t.numpy() == 1.0
    t = array_ops.constant([1, 2], dtype=dtypes.int64)
    assert t.dtype is dtypes.int64
    assert t.numpy().dtype == np.int64


def test_a_list_of_tensors_packed_to_a_dtype_casts_each_tensor():
    from runtime.ops import common
    packed = common.convert_to_tensor([array_ops.constant(3, dtypes.int64), 1], dtypes.int32)
    assert packed.dtype is dtypes.int32 and packed.numpy().tolist() == [3, 1]
    truncated = common.convert_to_tensor([array_ops.constant(2.5)], dtypes.int32)
    assert truncated.numpy().tolist() == [2]  # as TensorFlow's packing casts
    with pytest.raises(TypeError, match="expected a int32 tensor"):
        common.convert_to_tensor(array_ops.constant(3, dtypes.int64), dtypes.int32)


def test_concat_makes_its_non_tensor_values_of_the_first_tensors_dtype():
    from runtime.ops import concat_split_ops, reshape_ops
    v = array_ops.constant([0, 0])
    i = array_ops.constant(3, dtypes.int64)
    joined = concat_split_ops.concat((v, [i]), 0)
    assert joined.dtype is dtypes.int32 and joined.numpy().tolist() == [0, 0, 3]
    floats = concat_split_ops.concat((array_ops.constant([1.5]), [1]), 0)
    assert floats.dtype is dtypes.float32 and floats.numpy().tolist() == [1.5, 1.0]
    with pytest.raises(errors.InvalidArgumentError, match="int64"):
        concat_split_ops.concat((v, reshape_ops.reshape(i, [1])), 0)  # a tensor is not cast


def test_explicit_integer_dtype_rejects_fractional_floats():
    with pytest.raises(TypeError):
        array_ops.constant(1.5, dtype=dtypes.int32)


def test_explicit_dtype_rejects_strings_for_numbers_and_numbers_for_strings():
    with pytest.raises(TypeError):
        array_ops.constant("a", dtype=dtypes.int32)
    with pytest.raises(TypeError):
        array_ops.constant(3, dtype=dtypes.string)


def test_explicit_int32_dtype_rejects_out_of_range_ints_with_type_error():
    with pytest.raises(TypeError, match="int32"):
        array_ops.constant(2**40, dtype=dtypes.int32)


def test_constant_with_shape_broadcasts_a_scalar_and_reshapes_a_list():
    np.testing.assert_array_equal(array_ops.constant(7, shape=[2, 2]).numpy(), np.full((2, 2), 7))
    np.testing.assert_array_equal(array_ops.constant([1, 2, 3, 4], shape=(2, 2)).numpy(),
                                  [[1, 2], [3, 4]])
    with pytest.raises(TypeError):
        array_ops.constant([1, 2, 3], shape=[2])


def test_string_tensors_hold_utf8_bytes():
    t = array_ops.constant(["h\u00e9", "b"])
    assert t.numpy().tolist() == ["h\u00e9".encode("utf-8"), b"b"]
    assert array_ops.constant("x").numpy() == b"x"


# -- numpy, shape, dtype, Python conversions ---------------------------------------------------

def test_numpy_of_a_scalar_is_a_numpy_scalar():
    value = array_ops.constant(3).numpy()
    assert isinstance(value, np.int32)
    assert value == 3
    assert isinstance(array_ops.constant(2.5).numpy(), np.float32)


def test_numpy_of_an_array_is_an_ndarray_of_the_storage_type():
    value = array_ops.constant([[1.0, 2.0]]).numpy()
    assert isinstance(value, np.ndarray)
    assert value.dtype == np.float32
    assert value.shape == (1, 2)


def test_shape_dtype_and_ndim():
    t = array_ops.constant(np.zeros((2, 3, 4), np.float64))
    assert t.shape == (2, 3, 4)
    assert t.shape.as_list() == [2, 3, 4]
    assert t.ndim == 3
    assert t.dtype is dtypes.float64
    assert array_ops.constant(5).shape == ()


def test_python_number_conversions():
    assert int(array_ops.constant(7)) == 7
    assert int(array_ops.constant(7.9)) == 7
    assert float(array_ops.constant(2.5)) == 2.5
    assert float(array_ops.constant(3)) == 3.0
    assert bool(array_ops.constant(0)) is False
    assert bool(array_ops.constant(True)) is True
    assert bool(array_ops.constant([1])) is True


def test_integer_scalar_tensor_can_index_python_sequences():
    assert [10, 20, 30][array_ops.constant(1)] == 20
    with pytest.raises(TypeError):
        [10, 20, 30][array_ops.constant(1.0)]


def test_np_asarray_of_eager_tensor():
    np.testing.assert_array_equal(np.asarray(array_ops.constant([1, 2])), [1, 2])
    assert np.asarray(array_ops.constant([1, 2]), dtype=np.float64).dtype == np.float64


def test_len_and_iteration_of_eager_tensor():
    t = array_ops.constant([[1, 2], [3, 4], [5, 6]])
    assert len(t) == 3
    rows = list(t)
    assert all(isinstance(r, EagerTensor) and r.dtype is dtypes.int32 for r in rows)
    assert [r.numpy().tolist() for r in rows] == [[1, 2], [3, 4], [5, 6]]
    with pytest.raises(TypeError):
        len(array_ops.constant(1))
    with pytest.raises(TypeError):
        iter(array_ops.constant(1)).__next__()


def test_format_spec_applies_to_the_value():
    assert format(array_ops.constant(2.5), ".2f") == "2.50"
    assert f"{array_ops.constant(3):03d}" == "003"


def test_tensors_are_unhashable_but_refs_are():
    t = array_ops.constant([1, 2])
    with pytest.raises(TypeError, match="ref"):
        hash(t)
    d = {t.ref(): "value"}
    assert d[t.ref()] == "value"
    assert t.ref().deref() is t
    assert t.ref() != array_ops.constant([1, 2]).ref()


def test_is_tensor_and_class_hierarchy():
    t = array_ops.constant(1)
    assert isinstance(t, tensor_lib.Tensor)
    assert isinstance(t, Tensor)
    assert tensor_lib.is_tensor(t)
    assert not tensor_lib.is_tensor(1)
    assert not tensor_lib.is_tensor(np.array(1))


# -- printing ---------------------------------------------------------------------------------

def test_str_of_scalar():
    assert str(array_ops.constant(2)) == "tf.Tensor(2, shape=(), dtype=int32)"
    assert str(array_ops.constant(1.5)) == "tf.Tensor(1.5, shape=(), dtype=float32)"
    assert str(array_ops.constant(True)) == "tf.Tensor(True, shape=(), dtype=bool)"
    assert str(array_ops.constant("ab")) == "tf.Tensor(b'ab', shape=(), dtype=string)"


def test_str_of_vector_and_matrix():
    assert str(array_ops.constant([1, 2])) == "tf.Tensor([1 2], shape=(2,), dtype=int32)"
    assert str(array_ops.constant([[1.0, 2.0], [3.0, 4.0]])) == (
        "tf.Tensor(\n[[1. 2.]\n [3. 4.]], shape=(2, 2), dtype=float32)")


def test_repr_of_scalar_and_vector():
    assert repr(array_ops.constant(2)) == "<tf.Tensor: shape=(), dtype=int32, numpy=2>"
    assert repr(array_ops.constant(1.5)) == "<tf.Tensor: shape=(), dtype=float32, numpy=1.5>"
    assert repr(array_ops.constant("ab")) == "<tf.Tensor: shape=(), dtype=string, numpy=b'ab'>"
    assert repr(array_ops.constant([1, 2])) == (
        "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>")


def test_repr_of_a_scalar_shows_the_python_number_it_holds_as_tensorflow_does():
    # The float32 nearest 27.3 is 27.299999237060547: repr shows it, str keeps numpy's 27.3.
    assert repr(array_ops.constant(27.3)) == (
        "<tf.Tensor: shape=(), dtype=float32, numpy=27.299999237060547>")
    assert str(array_ops.constant(27.3)) == "tf.Tensor(27.3, shape=(), dtype=float32)"
    assert repr(array_ops.constant(27.3, dtypes.float64)).endswith("numpy=27.3>")
    assert repr(array_ops.constant(True)).endswith("numpy=True>")
    assert repr(array_ops.constant(1 + 2j)).endswith("numpy=(1+2j)>")


def test_repr_of_matrix_starts_the_array_on_a_new_line():
    assert repr(array_ops.constant([[1, 2], [3, 4]])) == (
        "<tf.Tensor: shape=(2, 2), dtype=int32, numpy=\n"
        "array([[1, 2],\n       [3, 4]], dtype=int32)>")


def test_symbolic_tensor_seen_inside_a_trace():
    texts = []

    @function
    def f(a, b):
        c = a + b
        texts.extend([str(a), str(c), c.name, a.shape, c.dtype])
        return c

    f(array_ops.constant(1), array_ops.constant(2))
    assert texts == ['Tensor("a:0", shape=(), dtype=int32)',
                     'Tensor("add:0", shape=(), dtype=int32)', "add:0", (), dtypes.int32]


# -- symbolic tensors outside their trace -----------------------------------------------------


def test_symbolic_tensor_as_python_bool_raises_operator_not_allowed():
    seen = []

    @function(autograph=False)
    def f(x):
        try:
            bool(x)
        except errors.OperatorNotAllowedInGraphError as e:
            seen.append(e)
        return x

    f(array_ops.constant(1))
    assert len(seen) == 1
    assert isinstance(seen[0], TypeError)
    assert "x:0" in str(seen[0])


def test_iterating_a_symbolic_tensor_of_unknown_length_raises():
    seen = []

    def f(x):
        try:
            list(x)
        except errors.OperatorNotAllowedInGraphError as e:
            seen.append(e)
        return x

    function(f, autograph=False).get_concrete_function(
        signature_lib.TensorSpec([None], dtypes.int32))
    assert len(seen) == 1


def test_iterating_a_symbolic_tensor_of_known_length_unrolls():
    @function(autograph=False)
    def f(x):
        return [e * 2 for e in x]

    result = f(array_ops.constant([1, 2, 3]))
    assert [r.numpy() for r in result] == [2, 4, 6]


# -- operators --------------------------------------------------------------------------------

A = np.array([[1, -2, 3], [4, 5, -6]], np.int32)
B = np.array([[2, 3, -4], [1, -5, 2]], np.int32)
FA = np.array([[1.5, -2.0, 3.25], [4.0, 0.5, -6.0]], np.float32)
FB = np.array([[2.0, 3.0, -4.0], [1.0, -5.0, 0.25]], np.float32)


@pytest.mark.parametrize("op, x, y, expected_dtype", [
    (lambda a, b: a + b, A, B, dtypes.int32),
    (lambda a, b: a - b, A, B, dtypes.int32),
    (lambda a, b: a * b, A, B, dtypes.int32),
    (lambda a, b: a // b, A, B, dtypes.int32),
    (lambda a, b: a % b, A, B, dtypes.int32),
    (lambda a, b: a + b, FA, FB, dtypes.float32),
    (lambda a, b: a - b, FA, FB, dtypes.float32),
    (lambda a, b: a * b, FA, FB, dtypes.float32),
    (lambda a, b: a / b, FA, FB, dtypes.float32),
    (lambda a, b: a // b, FA, FB, dtypes.float32),
    (lambda a, b: a % b, FA, FB, dtypes.float32),
    (lambda a, b: abs(a) ** b, FA, FB, dtypes.float32),
    (lambda a, b: a < b, A, B, dtypes.bool_),
    (lambda a, b: a <= b, A, B, dtypes.bool_),
    (lambda a, b: a > b, FA, FB, dtypes.bool_),
    (lambda a, b: a >= b, FA, FB, dtypes.bool_),
    (lambda a, b: a == b, A, A, dtypes.bool_),
    (lambda a, b: a != b, A, B, dtypes.bool_),
], ids=["add", "sub", "mul", "floordiv", "mod", "fadd", "fsub", "fmul", "fdiv", "ffloordiv",
        "fmod", "fpow", "lt", "le", "gt", "ge", "eq", "ne"])
def test_binary_operators_match_numpy(op, x, y, expected_dtype):
    result = op(array_ops.constant(x), array_ops.constant(y))
    expected = op(x, y)
    assert result.dtype is expected_dtype
    assert result.shape == expected.shape
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-6)


def test_integer_true_division_gives_float64_like_tensorflow():
    result = array_ops.constant([1, 7]) / array_ops.constant([2, 2])
    assert result.dtype is dtypes.float64
    np.testing.assert_array_equal(result.numpy(), [0.5, 3.5])


def test_floordiv_and_mod_follow_python_sign_rules():
    a, b = array_ops.constant([-7, 7, -7]), array_ops.constant([2, -2, -2])
    np.testing.assert_array_equal((a // b).numpy(), [-4, -4, 3])
    np.testing.assert_array_equal((a % b).numpy(), [1, -1, -1])


def test_integer_power():
    result = array_ops.constant([2, 3]) ** array_ops.constant([3, 2])
    assert result.dtype is dtypes.int32
    np.testing.assert_array_equal(result.numpy(), [8, 9])


def test_matmul_operator():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    result = array_ops.constant(a) @ array_ops.constant(b)
    assert result.shape == (2, 4)
    np.testing.assert_array_equal(result.numpy(), a @ b)


def test_unary_operators():
    t = array_ops.constant([1, -2, 3])
    np.testing.assert_array_equal((-t).numpy(), [-1, 2, -3])
    np.testing.assert_array_equal((+t).numpy(), [1, -2, 3])
    np.testing.assert_array_equal(abs(t).numpy(), [1, 2, 3])
    assert (-t).dtype is dtypes.int32


def test_bool_operators():
    a, b = array_ops.constant([True, True, False]), array_ops.constant([True, False, False])
    np.testing.assert_array_equal((a & b).numpy(), [True, False, False])
    np.testing.assert_array_equal((a | b).numpy(), [True, True, False])
    np.testing.assert_array_equal((a ^ b).numpy(), [False, True, False])
    np.testing.assert_array_equal((~a).numpy(), [False, False, True])


def test_bitwise_operators_on_integers_are_bitwise_as_in_tensorflow():
    assert (array_ops.constant(6) & array_ops.constant(3)).numpy() == 2
    assert (~array_ops.constant(1)).numpy() == -2


def test_bitwise_operators_on_floats_are_rejected():
    with pytest.raises(TypeError):
        array_ops.constant(1.0) & array_ops.constant(1.0)
    with pytest.raises(TypeError):
        ~array_ops.constant(1.0)


@pytest.mark.parametrize("op, expected, dtype", [
    (lambda t: t + 1, [2, 3], dtypes.int32),
    (lambda t: 1 + t, [2, 3], dtypes.int32),
    (lambda t: 10 - t, [9, 8], dtypes.int32),
    (lambda t: t * 2, [2, 4], dtypes.int32),
    (lambda t: 2 * t, [2, 4], dtypes.int32),
    (lambda t: 5 // t, [5, 2], dtypes.int32),
    (lambda t: 5 % t, [0, 1], dtypes.int32),
    (lambda t: 2 ** t, [2, 4], dtypes.int32),
    (lambda t: t < 2, [True, False], dtypes.bool_),
    (lambda t: t == 2, [False, True], dtypes.bool_),
])
def test_python_operands_take_the_tensor_dtype(op, expected, dtype):
    result = op(array_ops.constant([1, 2]))
    assert result.dtype is dtype
    np.testing.assert_array_equal(result.numpy(), expected)


def test_python_int_with_float_tensor_gives_float():
    result = array_ops.constant([1.5, 2.5]) * 2
    assert result.dtype is dtypes.float32
    np.testing.assert_array_equal(result.numpy(), [3.0, 5.0])
    result = 1 / array_ops.constant([2.0, 4.0])
    assert result.dtype is dtypes.float32
    np.testing.assert_array_equal(result.numpy(), [0.5, 0.25])


def test_numpy_scalar_on_the_left_defers_to_the_tensor():
    result = np.float32(2) * array_ops.constant([3.0])
    assert isinstance(result, tensor_lib.Tensor)
    np.testing.assert_array_equal(result.numpy(), [6.0])


def test_mixed_dtype_operator_raises_invalid_argument():
    with pytest.raises(errors.InvalidArgumentError, match="int32.*float32"):
        array_ops.constant(1) + array_ops.constant(1.0)


def test_equality_with_none_is_python_equality():
    t = array_ops.constant([1, 2])
    assert (t == None) is False  # noqa: E711
    assert (t != None) is True  # noqa: E711


def test_string_concatenation_with_plus():
    result = array_ops.constant("ab") + array_ops.constant("cd")
    assert result.dtype is dtypes.string
    assert result.numpy() == b"abcd"


# -- indexing and slicing -------------------------------------------------------------------

M = np.arange(24, dtype=np.int32).reshape(2, 3, 4)


@pytest.mark.parametrize("index", [
    0, 1, -1, -2,
    (0, 1), (1, -1, -1), (-1, 2, 3),
    slice(None), slice(1, None), slice(None, 1), slice(-1, None),
    (slice(None), 1), (slice(None), slice(None, None, 2)), (slice(None), slice(None, None, -1)),
    (slice(None), slice(1, None, 2), slice(None, None, -2)),
    (slice(None), slice(-2, -1)), (slice(None), slice(5, 10)), (slice(None), slice(2, 1)),
    None, (None, 0), (slice(None), None, 1), (0, None, None),
    Ellipsis, (Ellipsis, 0), (Ellipsis, -1, None), (0, Ellipsis, 1), (Ellipsis, slice(None, 2)),
], ids=repr)
def test_indexing_matches_numpy(index):
    result = array_ops.constant(M)[index]
    expected = M[index]
    assert result.dtype is dtypes.int32
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result.numpy(), expected)


def test_tf_newaxis_is_none():
    assert None is None
    assert array_ops.constant([1, 2])[None].shape == (1, 2)


def test_indexing_with_integer_scalar_tensors():
    t = array_ops.constant(M)
    np.testing.assert_array_equal(t[array_ops.constant(1)].numpy(), M[1])
    np.testing.assert_array_equal(t[:, array_ops.constant(-1)].numpy(), M[:, -1])
    np.testing.assert_array_equal(t[0, array_ops.constant(1):array_ops.constant(3)].numpy(),
                                  M[0, 1:3])


@pytest.mark.parametrize("index", [2, -3, (0, 3), (0, 0, 4), (0, 0, -5)], ids=repr)
def test_out_of_range_index_raises_invalid_argument(index):
    with pytest.raises(errors.InvalidArgumentError, match="out of"):
        array_ops.constant(M)[index]


def test_too_many_indices_raise_invalid_argument():
    with pytest.raises(errors.InvalidArgumentError, match="too many indices"):
        array_ops.constant(M)[0, 0, 0, 0]
    with pytest.raises(errors.InvalidArgumentError):
        array_ops.constant(5)[0]


@pytest.mark.parametrize("index", [1.0, "a", [0, 1], (Ellipsis, Ellipsis)], ids=repr)
def test_unsupported_indices_are_rejected(index):
    with pytest.raises((TypeError, errors.InvalidArgumentError)):
        array_ops.constant(M)[index]


def test_indexing_with_a_float_tensor_is_a_type_error():
    with pytest.raises(TypeError):
        array_ops.constant([1, 2])[array_ops.constant([0.0])]


def test_indexing_a_symbolic_tensor_infers_the_static_shape():
    shapes = {}

    @function
    def f(x):
        shapes["row"] = x[0].shape
        shapes["rev"] = x[:, ::-1].shape
        shapes["new"] = x[None, ..., None].shape
        shapes["last"] = x[..., -1].shape
        return x[1:, :2]

    result = f(array_ops.constant(M[0]))
    assert shapes == {"row": (4,), "rev": (3, 4), "new": (1, 3, 4, 1), "last": (3,)}
    np.testing.assert_array_equal(result.numpy(), M[0][1:, :2])


def test_indexing_a_symbolic_tensor_with_unknown_dims():
    shapes = {}

    def f(x):
        shapes["a"] = x[0].shape
        shapes["b"] = x[1:].shape
        shapes["c"] = x[:, 1:3].shape
        return x[1:, 1:3]

    g = function(f)
    cf = g.get_concrete_function(signature_lib.TensorSpec([None, 4], dtypes.int32))
    assert shapes == {"a": (4,), "b": (None, 4), "c": (None, 2)}
    np.testing.assert_array_equal(cf(array_ops.constant(M[1])).numpy(), M[1][1:, 1:3])


def test_out_of_range_static_index_while_tracing_raises_value_error():
    @function
    def f(x):
        return x[5]

    with pytest.raises(ValueError, match="out of bounds"):
        f(array_ops.constant([1, 2, 3]))


def test_dynamic_index_out_of_range_in_a_graph_raises_invalid_argument():
    @function
    def f(x, i):
        return x[i]

    assert f(array_ops.constant([1, 2, 3]), array_ops.constant(2)).numpy() == 3
    assert f(array_ops.constant([1, 2, 3]), array_ops.constant(-1)).numpy() == 3
    with pytest.raises(errors.InvalidArgumentError):
        f(array_ops.constant([1, 2, 3]), array_ops.constant(3))


@pytest.mark.parametrize("value, message", [
    ([[1, 2], [3]], "Can't convert non-rectangular Python sequence to Tensor."),
    ([["a", "b"], ["c"]], "Can't convert non-rectangular Python sequence to Tensor."),
    (["one", 3], "Can't convert Python sequence with mixed types to Tensor."),
    ([1, "two"], "Can't convert Python sequence with mixed types to Tensor."),
    ([[1, 2], [3, [4]]], "Can't convert Python sequence with mixed types to Tensor."),
])
def test_a_list_that_is_no_tensor_raises_tensorflows_value_error(value, message):
    with pytest.raises(ValueError) as info:
        array_ops.constant(value)
    assert str(info.value) == message


def test_an_empty_list_makes_an_empty_string_tensor():
    assert array_ops.constant([], dtypes.string).shape == (0,)
    assert array_ops.constant([[]], dtypes.string).shape == (1, 0)
