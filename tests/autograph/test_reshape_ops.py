"""Shape ops (reshape, transpose, expand_dims, squeeze, broadcast_to). tf.reshape's sizes
resolved by TensorFlow's rules (one -1, sizes of 0) and refused in TensorFlow's words: its
kernel's text eagerly and when a graph runs, its shape function's text (a ValueError) when a
graph is built with the input's shape known. Against the runtime alone (tests/op_cases.py):
values eagerly and traced with exact and unknown static shapes, the empty shape,
incompatible shapes, a size mismatch known only when the graph runs, gradient rules."""

import numpy as np
import pytest
from op_cases import (
    CUBE,
    F1,
    I1,
    ONES_131,
    ROW,
    RuleOperands,
    case,
    eager_values_test,
    empty_shape_test,
    gradient_rules_test,
    incompatible_shapes_tests,
    static_shapes_with_an_unknown_dimension,
    traced_values_test,
    unknown_dims_test,
)

import autograph.tf as tf
from runtime import dtypes, errors
from runtime.function import function
from runtime.ops import array_ops, reshape_ops

_EAGER = ("{{function_node __wrapped__Reshape_device_/job:localhost/replica:0/task:0/"
          "device:CPU:0}} %s [Op:Reshape]")
_X = np.arange(30, dtype=np.int32).reshape(2, 3, 5)


def _message(error):
    """The error's message without the user's line this project appends."""
    return str(error).split("\n\nin user code:")[0]


def _eager_and_traced(x, sizes):
    traced = tf.function(lambda a: tf.reshape(a, sizes), autograph=False)
    return [tf.reshape(x, sizes), traced(x)]


@pytest.mark.parametrize("sizes, expected", [
    ([0, -1], (0, 3)),
    ([-1, 0], (3, 0)),
    ([3, -1, 0], (3, 1, 0)),
    ([5, 0, -1], (5, 0, 0)),
    ([7, -1], (7, 0)),
])
def test_a_tensor_of_zero_elements_takes_sizes_as_tensorflow_resolves_them(sizes, expected):
    for result in _eager_and_traced(tf.zeros([0, 3]), sizes):
        assert result.shape == expected


@pytest.mark.parametrize("sizes, text", [
    ([7, -1], "Input to reshape is a tensor with 30 values, but the requested shape "
              "requires a multiple of 7"),
    ([4, -1, 2], "Input to reshape is a tensor with 30 values, but the requested shape "
                 "requires a multiple of 8"),
    ([7, 5], "Input to reshape is a tensor with 30 values, but the requested shape has 35"),
    ([0, -1], "Input to reshape is a tensor with 30 values, but the requested shape has 0"),
    ([-1, -1, 3], "Only one input size may be -1, not both 0 and 1"),
    ([-3], "Size 0 must be non-negative, not -3"),
    ([2, -5, -1], "Size 1 must be non-negative, not -5"),
    ([[2, 15]], "sizes input must be 1-D, not [1,2]"),
])
def test_an_eager_refusal_is_tensorflows_kernel_text(sizes, text):
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        tf.reshape(tf.constant(_X), sizes)
    assert _message(info.value) == _EAGER % text
    assert __file__ in str(info.value)  # the user's line


@pytest.mark.parametrize("sizes, text", [
    ([7, -1], "Input to reshape is a tensor with 30 values, but the requested shape "
              "requires a multiple of 7"),
    ([7, 5], "Input to reshape is a tensor with 30 values, but the requested shape has 35"),
    ([-1, -1, 3], "Only one input size may be -1, not both 0 and 1"),
    ([-3], "Size 0 must be non-negative, not -3"),
])
def test_a_refusal_when_a_graph_runs_names_the_node_then_the_kernel_text(sizes, text):
    @tf.function(input_signature=[tf.TensorSpec(None, tf.int32)], autograph=False)
    def f(x):
        return tf.reshape(x, sizes)

    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        f(tf.constant(_X))
    assert _message(info.value) == "graph node 'Reshape' (Reshape) of f failed: " + text


@pytest.mark.parametrize("sizes, text", [
    ([7, -1], "Dimension size must be evenly divisible by 7 but is 30"),
    ([7, 5], "Cannot reshape a tensor with 30 elements to shape [7,5] (35 elements)"),
    ([0, -1], "Cannot reshape a tensor with 30 elements to shape [0,?] (0 elements)"),
])
def test_a_refusal_while_tracing_a_known_shape_is_a_value_error_in_the_shape_functions_words(
        sizes, text):
    with pytest.raises(ValueError) as info:
        tf.function(lambda x: tf.reshape(x, sizes), autograph=False)(tf.constant(_X))
    assert _message(info.value).startswith("Reshape: %s (operands: " % text)


def test_a_negative_size_is_refused_never_read_as_minus_one():
    for sizes in ([-3], [-2, 15]):
        with pytest.raises(tf.errors.InvalidArgumentError, match="must be non-negative"):
            tf.reshape(tf.constant(_X), sizes)
        with pytest.raises(tf.errors.InvalidArgumentError, match="must be non-negative"):
            tf.function(lambda x: tf.reshape(x, sizes), autograph=False)(tf.constant(_X))


# -- against the runtime alone (tests/op_cases.py): values eagerly and traced, with exact
# and with unknown static shapes; the empty shape; incompatible shapes; gradient rules -------


def _runtime_cases():
    out = []
    out.append(case("reshape", lambda x: reshape_ops.reshape(x, [3, 2]), (F1,),
                    lambda x: x.reshape(3, 2), dtypes.float32))
    out.append(case("reshape flatten", lambda x: reshape_ops.reshape(x, [-1]), (CUBE,),
                    lambda x: x.reshape(-1), dtypes.float32))
    out.append(case("reshape wildcard", lambda x: reshape_ops.reshape(x, [-1, 4]), (CUBE,),
                    lambda x: x.reshape(-1, 4), dtypes.float32))
    out.append(case("reshape to scalar", lambda x: reshape_ops.reshape(x, []),
                    (np.array([[5]], np.int32),), lambda x: x.reshape(()), dtypes.int32))
    out.append(case("reshape dims tensor", reshape_ops.reshape,
                    (CUBE, np.array([4, 6], np.int32)),
                    lambda x, s: x.reshape(tuple(s)), dtypes.float32, value_shaped=True))
    out.append(case("transpose", reshape_ops.transpose, (F1,), np.transpose, dtypes.float32))
    out.append(case("transpose perm", lambda x: reshape_ops.transpose(x, perm=[1, 2, 0]),
                    (CUBE,),
                    lambda x: np.transpose(x, (1, 2, 0)), dtypes.float32))
    out.append(case("expand_dims 0", lambda x: reshape_ops.expand_dims(x, 0), (F1,),
                    lambda x: x[None], dtypes.float32))
    out.append(case("expand_dims -1", lambda x: reshape_ops.expand_dims(x, -1), (I1,),
                    lambda x: x[..., None], dtypes.int32))
    out.append(case("squeeze", reshape_ops.squeeze, (ONES_131,), np.squeeze, dtypes.float32,
                    relaxable=False))
    out.append(case("squeeze axis", lambda x: reshape_ops.squeeze(x, axis=[0]), (ONES_131,),
                    lambda x: np.squeeze(x, axis=0), dtypes.float32))
    out.append(case("broadcast_to", lambda x: reshape_ops.broadcast_to(x, [4, 3]), (ROW,),
                    lambda x: np.broadcast_to(x, (4, 3)), dtypes.float32))
    return out


RUNTIME_CASES = _runtime_cases()

test_eager_result_matches_numpy = eager_values_test(RUNTIME_CASES)
test_traced_result_equals_eager_and_static_shape_is_exact = traced_values_test(RUNTIME_CASES)
test_traced_with_unknown_dims_gives_compatible_static_shape = unknown_dims_test(RUNTIME_CASES)


@pytest.mark.lowerings
def test_static_shapes_keep_known_dims_when_others_are_unknown():
    shapes = static_shapes_with_an_unknown_dimension(lambda x, y: {
        "transpose": reshape_ops.transpose(x),
        "reshape": reshape_ops.reshape(x, [-1]),
        "expand": reshape_ops.expand_dims(x, 1)})
    assert shapes == {"transpose": (3, None), "reshape": (None,), "expand": (None, 1, 3)}


@pytest.mark.lowerings
def test_reshape_wildcard_is_resolved_statically_when_the_size_is_known():
    shapes = []

    @function
    def f(x):
        y = reshape_ops.reshape(x, [-1, 2])
        shapes.append(y.shape)
        return y

    f(array_ops.zeros([3, 4]))
    assert shapes == [(6, 2)]


_SCALAR_SHAPE_OPS = [
    ("reshape", lambda s: reshape_ops.reshape(array_ops.constant([5.0]), s)),
    ("broadcast_to", lambda s: reshape_ops.broadcast_to(array_ops.constant(2.0), s)),
]

test_shape_taking_ops_accept_the_empty_shape = empty_shape_test(_SCALAR_SHAPE_OPS)

SHAPE_MISMATCH = [
    ("reshape", lambda a, b: reshape_ops.reshape(a, [4]), [(2, 3), (1,)], "Reshape"),
    ("reshape wildcard", lambda a, b: reshape_ops.reshape(a, [-1, 4]), [(2, 3), (1,)],
     "Reshape"),
    ("transpose perm", lambda a, b: reshape_ops.transpose(a, [0, 0]), [(2, 3), (1,)],
     "Transpose"),
    ("squeeze non-unit", lambda a, b: reshape_ops.squeeze(a, axis=[0]), [(2, 3), (1,)],
     "Squeeze"),
    ("broadcast_to", lambda a, b: reshape_ops.broadcast_to(a, [3, 4]), [(2, 3), (1,)],
     "BroadcastTo"),
]

test_incompatible_shapes_raise_invalid_argument_eagerly, \
    test_incompatible_shapes_raise_value_error_while_tracing = \
    incompatible_shapes_tests(SHAPE_MISMATCH)


@pytest.mark.lowerings
def test_reshape_with_a_runtime_size_mismatch_raises_invalid_argument():
    @function
    def f(x, dims):
        return reshape_ops.reshape(x, dims)

    np.testing.assert_array_equal(f(array_ops.range(6), array_ops.constant([2, 3])).numpy(),
                                  np.arange(6).reshape(2, 3))
    with pytest.raises(errors.InvalidArgumentError, match="Reshape"):
        f(array_ops.range(6), array_ops.constant([4, 2]))


_rule_u = RuleOperands(42).uniform

GRADIENT_RULES = {
    "reshape": (lambda x: reshape_ops.reshape(x, [3, 2]), _rule_u(2, 3)),
    "reshape_wildcard": (lambda x: reshape_ops.reshape(x, [-1]), _rule_u(2, 3)),
    "transpose": (lambda x: reshape_ops.transpose(x, [1, 2, 0]), _rule_u(2, 3, 4)),
    "transpose_default": (reshape_ops.transpose, _rule_u(2, 3)),
    "expand_dims": (lambda x: reshape_ops.expand_dims(x, 1), _rule_u(2, 3)),
    "squeeze": (lambda x: reshape_ops.squeeze(x, [1]), _rule_u(2, 1, 3)),
    "broadcast_to": (lambda x: reshape_ops.broadcast_to(x, [3, 2, 4]), _rule_u(2, 1)),
}

test_rule_matches_finite_differences = gradient_rules_test(GRADIENT_RULES)
