"""Shape-changing ops (reshape, transpose, expand_dims, squeeze, concat, stack,
unstack, tile, broadcast_to), against the runtime alone: values against numpy eagerly and
traced, with exact and with unknown static shapes; a reshape's wildcard resolved
statically, and a size mismatch known only when the graph runs; the empty shape; errors for
mixed dtypes and incompatible shapes; gradient rules against finite differences. Tables and
checks: tests/op_cases.py."""

import numpy as np
import pytest
from op_cases import (
    CUBE,
    F1,
    F2,
    I1,
    I2,
    MAT_A,
    ONES_131,
    ROW,
    RuleOperands,
    case,
    eager_values_test,
    empty_shape_test,
    gradient_rules_test,
    incompatible_shapes_tests,
    mixed_dtypes_tests,
    static_shapes_with_an_unknown_dimension,
    traced_values_test,
    unknown_dims_test,
)

from runtime import dtypes, errors
from runtime.function import function
from runtime.ops import array_ops, manipulation_ops

# with AUTOGRAPH_BACKEND=numba or jax, every op's compiled lowering (.ci/run)
pytestmark = pytest.mark.lowerings


def _cases():
    out = []
    out.append(case("reshape", lambda x: manipulation_ops.reshape(x, [3, 2]), (F1,),
                    lambda x: x.reshape(3, 2), dtypes.float32))
    out.append(case("reshape flatten", lambda x: manipulation_ops.reshape(x, [-1]), (CUBE,),
                    lambda x: x.reshape(-1), dtypes.float32))
    out.append(case("reshape wildcard", lambda x: manipulation_ops.reshape(x, [-1, 4]), (CUBE,),
                    lambda x: x.reshape(-1, 4), dtypes.float32))
    out.append(case("reshape to scalar", lambda x: manipulation_ops.reshape(x, []),
                    (np.array([[5]], np.int32),), lambda x: x.reshape(()), dtypes.int32))
    out.append(case("reshape dims tensor", manipulation_ops.reshape,
                    (CUBE, np.array([4, 6], np.int32)),
                    lambda x, s: x.reshape(tuple(s)), dtypes.float32, value_shaped=True))
    out.append(case("transpose", manipulation_ops.transpose, (F1,), np.transpose, dtypes.float32))
    out.append(case("transpose perm", lambda x: manipulation_ops.transpose(x, perm=[1, 2, 0]),
                    (CUBE,),
                    lambda x: np.transpose(x, (1, 2, 0)), dtypes.float32))
    out.append(case("expand_dims 0", lambda x: manipulation_ops.expand_dims(x, 0), (F1,),
                    lambda x: x[None], dtypes.float32))
    out.append(case("expand_dims -1", lambda x: manipulation_ops.expand_dims(x, -1), (I1,),
                    lambda x: x[..., None], dtypes.int32))
    out.append(case("squeeze", manipulation_ops.squeeze, (ONES_131,), np.squeeze, dtypes.float32,
                    relaxable=False))
    out.append(case("squeeze axis", lambda x: manipulation_ops.squeeze(x, axis=[0]), (ONES_131,),
                    lambda x: np.squeeze(x, axis=0), dtypes.float32))
    out.append(case("concat axis 0", lambda a, b: manipulation_ops.concat([a, b], 0), (F1, F2),
                    lambda a, b: np.concatenate([a, b], 0), dtypes.float32))
    out.append(case("concat axis 1", lambda a, b: manipulation_ops.concat([a, b], axis=1), (I1, I2),
                    lambda a, b: np.concatenate([a, b], 1), dtypes.int32))
    out.append(case("concat axis -1 three", lambda a, b: manipulation_ops.concat([a, b, a], -1),
                    (F1, MAT_A), lambda a, b: np.concatenate([a, b, a], -1), dtypes.float32))
    out.append(case("stack", lambda a, b: manipulation_ops.stack([a, b]), (F1, F2),
                    lambda a, b: np.stack([a, b]), dtypes.float32))
    out.append(case("stack axis 1", lambda a, b: manipulation_ops.stack([a, b], axis=1), (I1, I2),
                    lambda a, b: np.stack([a, b], axis=1), dtypes.int32))
    out.append(case("stack axis -1", lambda a, b: manipulation_ops.stack([a, b], axis=-1), (I1, I2),
                    lambda a, b: np.stack([a, b], axis=-1), dtypes.int32))
    out.append(case("unstack", manipulation_ops.unstack, (CUBE,), lambda x: list(x), dtypes.float32,
                    relaxable=False))
    out.append(case("unstack axis 1", lambda x: manipulation_ops.unstack(x, axis=1), (F1,),
                    lambda x: [x[:, i] for i in range(3)], dtypes.float32, relaxable=False))
    out.append(case("tile", lambda x: manipulation_ops.tile(x, [2, 3]), (I1,),
                    lambda x: np.tile(x, (2, 3)),
                    dtypes.int32))
    out.append(case("broadcast_to", lambda x: manipulation_ops.broadcast_to(x, [4, 3]), (ROW,),
                    lambda x: np.broadcast_to(x, (4, 3)), dtypes.float32))
    return out


CASES = _cases()

test_eager_result_matches_numpy = eager_values_test(CASES)
test_traced_result_equals_eager_and_static_shape_is_exact = traced_values_test(CASES)
test_traced_with_unknown_dims_gives_compatible_static_shape = unknown_dims_test(CASES)


def test_static_shapes_keep_known_dims_when_others_are_unknown():
    shapes = static_shapes_with_an_unknown_dimension(lambda x, y: {
        "concat": manipulation_ops.concat([x, x], axis=1),
        "stack": manipulation_ops.stack([x, x]),
        "transpose": manipulation_ops.transpose(x),
        "reshape": manipulation_ops.reshape(x, [-1]),
        "expand": manipulation_ops.expand_dims(x, 1)})
    assert shapes == {"concat": (None, 6), "stack": (2, None, 3), "transpose": (3, None),
                      "reshape": (None,), "expand": (None, 1, 3)}


def test_reshape_wildcard_is_resolved_statically_when_the_size_is_known():
    shapes = []

    @function
    def f(x):
        y = manipulation_ops.reshape(x, [-1, 2])
        shapes.append(y.shape)
        return y

    f(array_ops.zeros([3, 4]))
    assert shapes == [(6, 2)]


_SCALAR_SHAPE_OPS = [
    ("reshape", lambda s: manipulation_ops.reshape(array_ops.constant([5.0]), s)),
    ("broadcast_to", lambda s: manipulation_ops.broadcast_to(array_ops.constant(2.0), s)),
]

test_shape_taking_ops_accept_the_empty_shape = empty_shape_test(_SCALAR_SHAPE_OPS)


# -- errors: mixed dtypes, unsupported dtypes, incompatible shapes --------------------

DTYPE_MISMATCH = [
    ("concat", lambda a, b: manipulation_ops.concat([a, b], 0), "ConcatV2"),
    ("stack", lambda a, b: manipulation_ops.stack([a, b]), "Pack"),
]

test_mixed_dtypes_raise_invalid_argument_eagerly, \
    test_mixed_dtypes_raise_type_error_while_tracing = mixed_dtypes_tests(DTYPE_MISMATCH)


SHAPE_MISMATCH = [
    ("concat", lambda a, b: manipulation_ops.concat([a, b], 0), [(2, 3), (2, 2)], "ConcatV2"),
    ("concat ranks", lambda a, b: manipulation_ops.concat([a, b], 0), [(2, 3), (3,)], "ConcatV2"),
    ("stack", lambda a, b: manipulation_ops.stack([a, b]), [(2,), (3,)], "Pack"),
    ("reshape", lambda a, b: manipulation_ops.reshape(a, [4]), [(2, 3), (1,)], "Reshape"),
    ("reshape wildcard", lambda a, b: manipulation_ops.reshape(a, [-1, 4]), [(2, 3), (1,)],
     "Reshape"),
    ("transpose perm", lambda a, b: manipulation_ops.transpose(a, [0, 0]), [(2, 3), (1,)],
     "Transpose"),
    ("squeeze non-unit", lambda a, b: manipulation_ops.squeeze(a, axis=[0]), [(2, 3), (1,)],
     "Squeeze"),
    ("broadcast_to", lambda a, b: manipulation_ops.broadcast_to(a, [3, 4]), [(2, 3), (1,)],
     "BroadcastTo"),
    ("tile multiples", lambda a, b: manipulation_ops.tile(a, [2]), [(2, 3), (1,)], "Tile"),
    ("unstack num", lambda a, b: manipulation_ops.unstack(a, num=3), [(2, 3), (1,)], "Unpack"),
]

test_incompatible_shapes_raise_invalid_argument_eagerly, \
    test_incompatible_shapes_raise_value_error_while_tracing = \
    incompatible_shapes_tests(SHAPE_MISMATCH)


def test_reshape_with_a_runtime_size_mismatch_raises_invalid_argument():
    @function
    def f(x, dims):
        return manipulation_ops.reshape(x, dims)

    np.testing.assert_array_equal(f(array_ops.range(6), array_ops.constant([2, 3])).numpy(),
                                  np.arange(6).reshape(2, 3))
    with pytest.raises(errors.InvalidArgumentError, match="Reshape"):
        f(array_ops.range(6), array_ops.constant([4, 2]))


def test_unstack_of_a_single_slice_drops_the_axis_eagerly_and_in_graphs():
    t = array_ops.constant([[1.0, 2.0, 3.0]])
    (part,) = manipulation_ops.unstack(t)
    assert part.shape == (3,)

    @function(autograph=False)
    def first_doubled(x):
        return manipulation_ops.unstack(x)[0] * 2

    np.testing.assert_array_equal(first_doubled(t).numpy(), [2.0, 4.0, 6.0])


# -- gradient rules, against finite differences ------------------------------------

_operands = RuleOperands(42)
_u, _pos = _operands.uniform, _operands.positive

GRADIENT_RULES = {
    "reshape": (lambda x: manipulation_ops.reshape(x, [3, 2]), _u(2, 3)),
    "reshape_wildcard": (lambda x: manipulation_ops.reshape(x, [-1]), _u(2, 3)),
    "transpose": (lambda x: manipulation_ops.transpose(x, [1, 2, 0]), _u(2, 3, 4)),
    "transpose_default": (manipulation_ops.transpose, _u(2, 3)),
    "expand_dims": (lambda x: manipulation_ops.expand_dims(x, 1), _u(2, 3)),
    "squeeze": (lambda x: manipulation_ops.squeeze(x, [1]), _u(2, 1, 3)),
    "concat": (lambda x, y: manipulation_ops.concat([x, y, x], axis=1), _u(2, 2), _u(2, 3)),
    "concat_axis0": (lambda x, y: manipulation_ops.concat([x, y], axis=0), _u(1, 3), _u(2, 3)),
    "stack": (lambda x, y: manipulation_ops.stack([x, y], axis=1), _u(2, 3), _u(2, 3)),
    "stack_one": (lambda x: manipulation_ops.stack([x], axis=1) * 2.0, _u(2, 3)),
    "unstack": (lambda x: manipulation_ops.unstack(x)[0] * 2.0 + manipulation_ops.unstack(x)[2],
                _u(3, 2)),
    "tile": (lambda x: manipulation_ops.tile(x, [2, 3]), _u(2, 2)),
    "broadcast_to": (lambda x: manipulation_ops.broadcast_to(x, [3, 2, 4]), _u(2, 1)),
}

test_rule_matches_finite_differences = gradient_rules_test(GRADIENT_RULES)
