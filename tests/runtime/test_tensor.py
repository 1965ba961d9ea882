"""Eager and symbolic tensors: dtype inference, operators, indexing, conversions, printing."""

import numpy as np
import pytest

import autograph.tf as tf
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor


def _symbolic(dtype=tf.int32, shape=()):
    """The placeholder for argument `a` of a finished trace (it escaped, so it has no value)."""
    seen = []

    def keep(a):
        seen.append(a)
        return a

    with pytest.warns(tf.autograph.SideEffectWarning, match="tensor of the trace"):
        tf.function(keep).get_concrete_function(tf.TensorSpec(shape, dtype))
    return seen[0]


# -- dtype inference ------------------------------------------------------------------------

@pytest.mark.parametrize("value, dtype", [
    (1, tf.int32),
    (-7, tf.int32),
    (2**31 - 1, tf.int32),
    (-2**31, tf.int32),
    (2**31, tf.int64),
    (2**40, tf.int64),
    (-2**31 - 1, tf.int64),
    ([1, 2**40], tf.int64),
    (1.5, tf.float32),
    (2.0**40, tf.float32),
    ([1, 2.5], tf.float32),
    (True, tf.bool),
    ([True, False], tf.bool),
    ("abc", tf.string),
    (b"abc", tf.string),
    (["a", "bc"], tf.string),
    ([[1, 2], [3, 4]], tf.int32),
    ([], tf.float32),
])
def test_python_values_get_tensorflow_dtypes(value, dtype):
    assert tf.constant(value).dtype is dtype


@pytest.mark.parametrize("value, dtype", [
    (np.float64(1.5), tf.float64),
    (np.float32(1.5), tf.float32),
    (np.int64(3), tf.int64),
    (np.int32(3), tf.int32),
    (np.bool_(True), tf.bool),
    (np.arange(3), tf.int64),
    (np.arange(3, dtype=np.int32), tf.int32),
    (np.linspace(0, 1, 3), tf.float64),
    (np.array([b"x", b"y"]), tf.string),
])
def test_numpy_values_keep_their_dtype(value, dtype):
    t = tf.constant(value)
    assert t.dtype is dtype
    np.testing.assert_array_equal(t.numpy(), value)


def test_explicit_dtype_converts_python_numbers():
    t = tf.constant(1, dtype=tf.float32)
    assert t.dtype is tf.float32
    assert t.numpy() == 1.0
    t = tf.constant([1, 2], dtype=tf.int64)
    assert t.dtype is tf.int64
    assert t.numpy().dtype == np.int64


def test_explicit_integer_dtype_rejects_fractional_floats():
    with pytest.raises(TypeError):
        tf.constant(1.5, dtype=tf.int32)


def test_explicit_dtype_rejects_strings_for_numbers_and_numbers_for_strings():
    with pytest.raises(TypeError):
        tf.constant("a", dtype=tf.int32)
    with pytest.raises(TypeError):
        tf.constant(3, dtype=tf.string)


def test_explicit_int32_dtype_rejects_out_of_range_ints_with_type_error():
    with pytest.raises(TypeError, match="int32"):
        tf.constant(2**40, dtype=tf.int32)


def test_constant_with_shape_broadcasts_a_scalar_and_reshapes_a_list():
    np.testing.assert_array_equal(tf.constant(7, shape=[2, 2]).numpy(), np.full((2, 2), 7))
    np.testing.assert_array_equal(tf.constant([1, 2, 3, 4], shape=(2, 2)).numpy(),
                                  [[1, 2], [3, 4]])
    with pytest.raises(TypeError):
        tf.constant([1, 2, 3], shape=[2])


def test_string_tensors_hold_utf8_bytes():
    t = tf.constant(["h\u00e9", "b"])
    assert t.numpy().tolist() == ["h\u00e9".encode("utf-8"), b"b"]
    assert tf.constant("x").numpy() == b"x"


# -- numpy, shape, dtype, Python conversions ---------------------------------------------------

def test_numpy_of_a_scalar_is_a_numpy_scalar():
    value = tf.constant(3).numpy()
    assert isinstance(value, np.int32)
    assert value == 3
    assert isinstance(tf.constant(2.5).numpy(), np.float32)


def test_numpy_of_an_array_is_an_ndarray_of_the_storage_type():
    value = tf.constant([[1.0, 2.0]]).numpy()
    assert isinstance(value, np.ndarray)
    assert value.dtype == np.float32
    assert value.shape == (1, 2)


def test_shape_dtype_and_ndim():
    t = tf.constant(np.zeros((2, 3, 4), np.float64))
    assert t.shape == (2, 3, 4)
    assert t.shape.as_list() == [2, 3, 4]
    assert t.ndim == 3
    assert t.dtype is tf.float64
    assert tf.constant(5).shape == ()


def test_python_number_conversions():
    assert int(tf.constant(7)) == 7
    assert int(tf.constant(7.9)) == 7
    assert float(tf.constant(2.5)) == 2.5
    assert float(tf.constant(3)) == 3.0
    assert bool(tf.constant(0)) is False
    assert bool(tf.constant(True)) is True
    assert bool(tf.constant([1])) is True


def test_integer_scalar_tensor_can_index_python_sequences():
    assert [10, 20, 30][tf.constant(1)] == 20
    with pytest.raises(TypeError):
        [10, 20, 30][tf.constant(1.0)]


def test_np_asarray_of_eager_tensor():
    np.testing.assert_array_equal(np.asarray(tf.constant([1, 2])), [1, 2])
    assert np.asarray(tf.constant([1, 2]), dtype=np.float64).dtype == np.float64


def test_len_and_iteration_of_eager_tensor():
    t = tf.constant([[1, 2], [3, 4], [5, 6]])
    assert len(t) == 3
    rows = list(t)
    assert all(isinstance(r, EagerTensor) and r.dtype is tf.int32 for r in rows)
    assert [r.numpy().tolist() for r in rows] == [[1, 2], [3, 4], [5, 6]]
    with pytest.raises(TypeError):
        len(tf.constant(1))
    with pytest.raises(TypeError):
        iter(tf.constant(1)).__next__()


def test_format_spec_applies_to_the_value():
    assert format(tf.constant(2.5), ".2f") == "2.50"
    assert f"{tf.constant(3):03d}" == "003"


def test_tensors_are_unhashable_but_refs_are():
    t = tf.constant([1, 2])
    with pytest.raises(TypeError, match="ref"):
        hash(t)
    d = {t.ref(): "value"}
    assert d[t.ref()] == "value"
    assert t.ref().deref() is t
    assert t.ref() != tf.constant([1, 2]).ref()


def test_is_tensor_and_class_hierarchy():
    t = tf.constant(1)
    assert isinstance(t, tf.Tensor)
    assert isinstance(t, Tensor)
    assert tf.is_tensor(t)
    assert not tf.is_tensor(1)
    assert not tf.is_tensor(np.array(1))


# -- printing ---------------------------------------------------------------------------------

def test_str_of_scalar():
    assert str(tf.constant(2)) == "tf.Tensor(2, shape=(), dtype=int32)"
    assert str(tf.constant(1.5)) == "tf.Tensor(1.5, shape=(), dtype=float32)"
    assert str(tf.constant(True)) == "tf.Tensor(True, shape=(), dtype=bool)"
    assert str(tf.constant("ab")) == "tf.Tensor(b'ab', shape=(), dtype=string)"


def test_str_of_vector_and_matrix():
    assert str(tf.constant([1, 2])) == "tf.Tensor([1 2], shape=(2,), dtype=int32)"
    assert str(tf.constant([[1.0, 2.0], [3.0, 4.0]])) == (
        "tf.Tensor(\n[[1. 2.]\n [3. 4.]], shape=(2, 2), dtype=float32)")


def test_repr_of_scalar_and_vector():
    assert repr(tf.constant(2)) == "<tf.Tensor: shape=(), dtype=int32, numpy=2>"
    assert repr(tf.constant(1.5)) == "<tf.Tensor: shape=(), dtype=float32, numpy=1.5>"
    assert repr(tf.constant("ab")) == "<tf.Tensor: shape=(), dtype=string, numpy=b'ab'>"
    assert repr(tf.constant([1, 2])) == (
        "<tf.Tensor: shape=(2,), dtype=int32, numpy=array([1, 2], dtype=int32)>")


def test_repr_of_matrix_starts_the_array_on_a_new_line():
    assert repr(tf.constant([[1, 2], [3, 4]])) == (
        "<tf.Tensor: shape=(2, 2), dtype=int32, numpy=\n"
        "array([[1, 2],\n       [3, 4]], dtype=int32)>")


def test_symbolic_tensor_str_and_repr():
    a = _symbolic(tf.int32, ())
    assert isinstance(a, SymbolicTensor)
    assert str(a) == 'Tensor("a:0", shape=(), dtype=int32)'
    assert repr(a) == "<tf.Tensor 'a:0' shape=() dtype=int32>"
    a = _symbolic(tf.float32, (None, 3))
    assert str(a) == 'Tensor("a:0", shape=(None, 3), dtype=float32)'


def test_symbolic_tensor_seen_inside_a_trace():
    texts = []

    @tf.function
    def f(a, b):
        c = a + b
        texts.extend([str(a), str(c), c.name, a.shape, c.dtype])
        return c

    f(tf.constant(1), tf.constant(2))
    assert texts == ['Tensor("a:0", shape=(), dtype=int32)',
                     'Tensor("add:0", shape=(), dtype=int32)', "add:0", (), tf.int32]


# -- symbolic tensors outside their trace -----------------------------------------------------

def test_escaped_symbolic_tensor_has_no_numpy():
    a = _symbolic()
    with pytest.raises(AttributeError):
        a.numpy()


def test_escaped_symbolic_tensor_cannot_become_a_numpy_array():
    with pytest.raises(TypeError):
        np.asarray(_symbolic())


def test_escaped_symbolic_tensor_fed_to_an_eager_op_raises_type_error():
    with pytest.raises(TypeError, match="symbolic"):
        tf.add(_symbolic(), 1)


def test_symbolic_tensor_as_python_bool_raises_operator_not_allowed():
    seen = []

    @tf.function(autograph=False)
    def f(x):
        try:
            bool(x)
        except tf.errors.OperatorNotAllowedInGraphError as e:
            seen.append(e)
        return x

    f(tf.constant(1))
    assert len(seen) == 1
    assert isinstance(seen[0], TypeError)
    assert "x:0" in str(seen[0])


def test_iterating_a_symbolic_tensor_of_unknown_length_raises():
    seen = []

    def f(x):
        try:
            list(x)
        except tf.errors.OperatorNotAllowedInGraphError as e:
            seen.append(e)
        return x

    tf.function(f, autograph=False).get_concrete_function(tf.TensorSpec([None], tf.int32))
    assert len(seen) == 1


def test_iterating_a_symbolic_tensor_of_known_length_unrolls():
    @tf.function(autograph=False)
    def f(x):
        return [e * 2 for e in x]

    result = f(tf.constant([1, 2, 3]))
    assert [r.numpy() for r in result] == [2, 4, 6]


# -- operators --------------------------------------------------------------------------------

A = np.array([[1, -2, 3], [4, 5, -6]], np.int32)
B = np.array([[2, 3, -4], [1, -5, 2]], np.int32)
FA = np.array([[1.5, -2.0, 3.25], [4.0, 0.5, -6.0]], np.float32)
FB = np.array([[2.0, 3.0, -4.0], [1.0, -5.0, 0.25]], np.float32)


@pytest.mark.parametrize("op, x, y, expected_dtype", [
    (lambda a, b: a + b, A, B, tf.int32),
    (lambda a, b: a - b, A, B, tf.int32),
    (lambda a, b: a * b, A, B, tf.int32),
    (lambda a, b: a // b, A, B, tf.int32),
    (lambda a, b: a % b, A, B, tf.int32),
    (lambda a, b: a + b, FA, FB, tf.float32),
    (lambda a, b: a - b, FA, FB, tf.float32),
    (lambda a, b: a * b, FA, FB, tf.float32),
    (lambda a, b: a / b, FA, FB, tf.float32),
    (lambda a, b: a // b, FA, FB, tf.float32),
    (lambda a, b: a % b, FA, FB, tf.float32),
    (lambda a, b: abs(a) ** b, FA, FB, tf.float32),
    (lambda a, b: a < b, A, B, tf.bool),
    (lambda a, b: a <= b, A, B, tf.bool),
    (lambda a, b: a > b, FA, FB, tf.bool),
    (lambda a, b: a >= b, FA, FB, tf.bool),
    (lambda a, b: a == b, A, A, tf.bool),
    (lambda a, b: a != b, A, B, tf.bool),
], ids=["add", "sub", "mul", "floordiv", "mod", "fadd", "fsub", "fmul", "fdiv", "ffloordiv",
        "fmod", "fpow", "lt", "le", "gt", "ge", "eq", "ne"])
def test_binary_operators_match_numpy(op, x, y, expected_dtype):
    result = op(tf.constant(x), tf.constant(y))
    expected = op(x, y)
    assert result.dtype is expected_dtype
    assert result.shape == expected.shape
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-6)


def test_integer_true_division_gives_float64_like_tensorflow():
    result = tf.constant([1, 7]) / tf.constant([2, 2])
    assert result.dtype is tf.float64
    np.testing.assert_array_equal(result.numpy(), [0.5, 3.5])


def test_floordiv_and_mod_follow_python_sign_rules():
    a, b = tf.constant([-7, 7, -7]), tf.constant([2, -2, -2])
    np.testing.assert_array_equal((a // b).numpy(), [-4, -4, 3])
    np.testing.assert_array_equal((a % b).numpy(), [1, -1, -1])


def test_integer_power():
    result = tf.constant([2, 3]) ** tf.constant([3, 2])
    assert result.dtype is tf.int32
    np.testing.assert_array_equal(result.numpy(), [8, 9])


def test_matmul_operator():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.arange(12, dtype=np.float32).reshape(3, 4)
    result = tf.constant(a) @ tf.constant(b)
    assert result.shape == (2, 4)
    np.testing.assert_array_equal(result.numpy(), a @ b)


def test_unary_operators():
    t = tf.constant([1, -2, 3])
    np.testing.assert_array_equal((-t).numpy(), [-1, 2, -3])
    np.testing.assert_array_equal((+t).numpy(), [1, -2, 3])
    np.testing.assert_array_equal(abs(t).numpy(), [1, 2, 3])
    assert (-t).dtype is tf.int32


def test_bool_operators():
    a, b = tf.constant([True, True, False]), tf.constant([True, False, False])
    np.testing.assert_array_equal((a & b).numpy(), [True, False, False])
    np.testing.assert_array_equal((a | b).numpy(), [True, True, False])
    np.testing.assert_array_equal((a ^ b).numpy(), [False, True, False])
    np.testing.assert_array_equal((~a).numpy(), [False, False, True])


def test_bitwise_operators_on_integers_are_rejected():
    with pytest.raises(TypeError):
        tf.constant(1) & tf.constant(1)
    with pytest.raises(TypeError):
        ~tf.constant(1)


@pytest.mark.parametrize("op, expected, dtype", [
    (lambda t: t + 1, [2, 3], tf.int32),
    (lambda t: 1 + t, [2, 3], tf.int32),
    (lambda t: 10 - t, [9, 8], tf.int32),
    (lambda t: t * 2, [2, 4], tf.int32),
    (lambda t: 2 * t, [2, 4], tf.int32),
    (lambda t: 5 // t, [5, 2], tf.int32),
    (lambda t: 5 % t, [0, 1], tf.int32),
    (lambda t: 2 ** t, [2, 4], tf.int32),
    (lambda t: t < 2, [True, False], tf.bool),
    (lambda t: t == 2, [False, True], tf.bool),
])
def test_python_operands_take_the_tensor_dtype(op, expected, dtype):
    result = op(tf.constant([1, 2]))
    assert result.dtype is dtype
    np.testing.assert_array_equal(result.numpy(), expected)


def test_python_int_with_float_tensor_gives_float():
    result = tf.constant([1.5, 2.5]) * 2
    assert result.dtype is tf.float32
    np.testing.assert_array_equal(result.numpy(), [3.0, 5.0])
    result = 1 / tf.constant([2.0, 4.0])
    assert result.dtype is tf.float32
    np.testing.assert_array_equal(result.numpy(), [0.5, 0.25])


def test_numpy_scalar_on_the_left_defers_to_the_tensor():
    result = np.float32(2) * tf.constant([3.0])
    assert isinstance(result, tf.Tensor)
    np.testing.assert_array_equal(result.numpy(), [6.0])


def test_mixed_dtype_operator_raises_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="int32.*float32"):
        tf.constant(1) + tf.constant(1.0)


def test_equality_with_none_is_python_equality():
    t = tf.constant([1, 2])
    assert (t == None) is False  # noqa: E711
    assert (t != None) is True  # noqa: E711


def test_string_concatenation_with_plus():
    result = tf.constant("ab") + tf.constant("cd")
    assert result.dtype is tf.string
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
    result = tf.constant(M)[index]
    expected = M[index]
    assert result.dtype is tf.int32
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result.numpy(), expected)


def test_tf_newaxis_is_none():
    assert tf.newaxis is None
    assert tf.constant([1, 2])[tf.newaxis].shape == (1, 2)


def test_indexing_with_integer_scalar_tensors():
    t = tf.constant(M)
    np.testing.assert_array_equal(t[tf.constant(1)].numpy(), M[1])
    np.testing.assert_array_equal(t[:, tf.constant(-1)].numpy(), M[:, -1])
    np.testing.assert_array_equal(t[0, tf.constant(1):tf.constant(3)].numpy(), M[0, 1:3])


@pytest.mark.parametrize("index", [2, -3, (0, 3), (0, 0, 4), (0, 0, -5)], ids=repr)
def test_out_of_range_index_raises_invalid_argument(index):
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of"):
        tf.constant(M)[index]


def test_too_many_indices_raise_invalid_argument():
    with pytest.raises(tf.errors.InvalidArgumentError, match="too many indices"):
        tf.constant(M)[0, 0, 0, 0]
    with pytest.raises(tf.errors.InvalidArgumentError):
        tf.constant(5)[0]


@pytest.mark.parametrize("index", [1.0, "a", [0, 1], (Ellipsis, Ellipsis)], ids=repr)
def test_unsupported_indices_are_rejected(index):
    with pytest.raises((TypeError, tf.errors.InvalidArgumentError)):
        tf.constant(M)[index]


def test_indexing_with_a_float_tensor_is_a_type_error():
    with pytest.raises(TypeError):
        tf.constant([1, 2])[tf.constant([0.0])]


def test_indexing_a_symbolic_tensor_infers_the_static_shape():
    shapes = {}

    @tf.function
    def f(x):
        shapes["row"] = x[0].shape
        shapes["rev"] = x[:, ::-1].shape
        shapes["new"] = x[None, ..., None].shape
        shapes["last"] = x[..., -1].shape
        return x[1:, :2]

    result = f(tf.constant(M[0]))
    assert shapes == {"row": (4,), "rev": (3, 4), "new": (1, 3, 4, 1), "last": (3,)}
    np.testing.assert_array_equal(result.numpy(), M[0][1:, :2])


def test_indexing_a_symbolic_tensor_with_unknown_dims():
    shapes = {}

    def f(x):
        shapes["a"] = x[0].shape
        shapes["b"] = x[1:].shape
        shapes["c"] = x[:, 1:3].shape
        return x[1:, 1:3]

    g = tf.function(f)
    cf = g.get_concrete_function(tf.TensorSpec([None, 4], tf.int32))
    assert shapes == {"a": (4,), "b": (None, 4), "c": (None, 2)}
    np.testing.assert_array_equal(cf(tf.constant(M[1])).numpy(), M[1][1:, 1:3])


def test_out_of_range_static_index_while_tracing_raises_value_error():
    @tf.function
    def f(x):
        return x[5]

    with pytest.raises(ValueError, match="out of bounds"):
        f(tf.constant([1, 2, 3]))


def test_dynamic_index_out_of_range_in_a_graph_raises_invalid_argument():
    @tf.function
    def f(x, i):
        return x[i]

    assert f(tf.constant([1, 2, 3]), tf.constant(2)).numpy() == 3
    assert f(tf.constant([1, 2, 3]), tf.constant(-1)).numpy() == 3
    with pytest.raises(tf.errors.InvalidArgumentError):
        f(tf.constant([1, 2, 3]), tf.constant(3))
