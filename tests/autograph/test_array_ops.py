"""Array ops (constant, identity, stop_gradient, zeros, ones, fill, *_like, range,
shape, size, rank), against the runtime alone: values against numpy eagerly and traced,
with exact and with unknown static shapes; the empty shape given as (), [] or a TensorShape;
Python values as operands; gradient rules against finite differences. Tables and checks:
tests/op_cases.py."""

import numpy as np
import pytest
from op_cases import (
    B1,
    CUBE,
    F1,
    I1,
    RuleOperands,
    case,
    eager_values_test,
    empty_shape_test,
    gradient_rules_test,
    static_shapes_with_an_unknown_dimension,
    traced_values_test,
    unknown_dims_test,
)

from runtime import dtypes, errors
from runtime.ops import array_ops

# with AUTOGRAPH_BACKEND=numba or jax, every op's compiled lowering (.ci/run)
pytestmark = pytest.mark.lowerings


def _cases():
    out = []
    out.append(case("identity", array_ops.identity, (F1,), lambda x: x, dtypes.float32))
    out.append(case("stop_gradient", array_ops.stop_gradient, (I1,), lambda x: x, dtypes.int32))
    out.append(case("constant added", lambda x: x + array_ops.constant([1.0, 2.0, 3.0]), (F1,),
                    lambda x: x + np.array([1, 2, 3], np.float32), dtypes.float32))
    out.append(case("ones_like", array_ops.ones_like, (F1,), np.ones_like, dtypes.float32))
    out.append(case("zeros_like", array_ops.zeros_like, (I1,), np.zeros_like, dtypes.int32))
    out.append(case("zeros_like dtype", lambda x: array_ops.zeros_like(x, dtype=dtypes.float32),
                    (I1,),
                    lambda x: np.zeros(x.shape, np.float32), dtypes.float32))
    out.append(case("ones_like dtype", lambda x: array_ops.ones_like(x, dtype=dtypes.int64), (B1,),
                    lambda x: np.ones(x.shape, np.int64), dtypes.int64))
    out.append(case("ones static shape", lambda x: x + array_ops.ones([2, 3]), (F1,),
                    lambda x: x + 1, dtypes.float32))
    out.append(case("zeros int32", lambda x: x + array_ops.zeros([3], dtypes.int32), (I1,),
                    lambda x: x, dtypes.int32))
    out.append(case("ones from tf.shape", lambda x: array_ops.ones(array_ops.shape(x)), (F1,),
                    np.ones_like, dtypes.float32))
    out.append(case("zeros from tf.shape int64",
                    lambda x: array_ops.zeros(array_ops.shape(x), dtypes.int64),
                    (CUBE,), lambda x: np.zeros(x.shape, np.int64), dtypes.int64))
    out.append(case("fill", lambda v: array_ops.fill([2, 3], v), (np.float32(1.5),),
                    lambda v: np.full((2, 3), v, np.float32), dtypes.float32))
    out.append(case("fill dims tensor", array_ops.fill, (np.array([3, 2], np.int32), np.int32(7)),
                    lambda d, v: np.full(tuple(d), v, np.int32), dtypes.int32, value_shaped=True))
    out.append(case("range", lambda n: array_ops.range(n), (np.int32(5),), np.arange, dtypes.int32,
                    value_shaped=True))
    out.append(case("range start limit delta", lambda a, b, c: array_ops.range(a, b, c),
                    (np.int32(1), np.int32(10), np.int32(3)),
                    lambda a, b, c: np.arange(a, b, c, dtype=np.int32), dtypes.int32,
                    value_shaped=True))
    out.append(case("range negative delta", lambda a: array_ops.range(a, 0, -2), (np.int32(7),),
                    lambda a: np.arange(a, 0, -2, dtype=np.int32), dtypes.int32, value_shaped=True))
    out.append(case("range float", lambda x: x + array_ops.range(3.0), (F1,),
                    lambda x: x + np.arange(3, dtype=np.float32), dtypes.float32))
    out.append(case("range dtype int64", lambda x: array_ops.range(x, dtype=dtypes.int64),
                    (np.int64(4),), lambda x: np.arange(x, dtype=np.int64), dtypes.int64,
                    value_shaped=True))
    out.append(case("range static", lambda x: array_ops.range(2, 8, 2) + x, (np.int32(1),),
                    lambda x: np.arange(2, 8, 2, dtype=np.int32) + x, dtypes.int32))
    out.append(case("shape", array_ops.shape, (CUBE,), lambda x: np.array(x.shape, np.int32),
                    dtypes.int32))
    out.append(case("shape int64", lambda x: array_ops.shape(x, out_type=dtypes.int64), (F1,),
                    lambda x: np.array(x.shape, np.int64), dtypes.int64))
    out.append(case("size", array_ops.size, (CUBE,), lambda x: np.int32(x.size), dtypes.int32))
    out.append(case("rank", array_ops.rank, (CUBE,), lambda x: np.int32(x.ndim), dtypes.int32))
    return out


CASES = _cases()

test_eager_result_matches_numpy = eager_values_test(CASES)
test_traced_result_equals_eager_and_static_shape_is_exact = traced_values_test(CASES)
test_traced_with_unknown_dims_gives_compatible_static_shape = unknown_dims_test(CASES)


def test_static_shapes_keep_known_dims_when_others_are_unknown():
    shapes = static_shapes_with_an_unknown_dimension(lambda x, y: {
        "shape": array_ops.shape(x)})
    assert shapes == {"shape": (2,)}


def test_zeros_ones_and_fill_eagerly():
    z = array_ops.zeros([2, 3], dtype=dtypes.int32)
    assert z.dtype is dtypes.int32 and z.shape == (2, 3)
    assert not np.any(z.numpy())
    o = array_ops.ones((4,))
    assert o.dtype is dtypes.float32
    np.testing.assert_array_equal(o.numpy(), np.ones(4, np.float32))
    f = array_ops.fill([2], "ab")
    assert f.dtype is dtypes.string
    assert f.numpy().tolist() == [b"ab", b"ab"]
    assert array_ops.zeros([]).shape == ()


_SCALAR_SHAPE_OPS = [
    ("zeros", lambda s: array_ops.zeros(s)),
    ("ones", lambda s: array_ops.ones(s, dtypes.int32)),
    ("fill", lambda s: array_ops.fill(s, 3.0)),
    ("constant", lambda s: array_ops.constant(2.0, shape=s)),
]

test_shape_taking_ops_accept_the_empty_shape = empty_shape_test(_SCALAR_SHAPE_OPS)


def test_ones_with_tensor_shape_argument():
    t = array_ops.ones(array_ops.constant(F1).shape, dtypes.int64)
    assert t.dtype is dtypes.int64 and t.shape == (2, 3)


def test_range_with_only_floats_is_float32():
    r = array_ops.range(0.0, 1.0, 0.25)
    assert r.dtype is dtypes.float32
    np.testing.assert_allclose(r.numpy(), [0, 0.25, 0.5, 0.75])


def test_range_with_zero_delta_raises():
    with pytest.raises((ValueError, errors.InvalidArgumentError)):
        array_ops.range(0, 5, 0)


def test_identity_of_python_value():
    t = array_ops.identity([1, 2])
    assert t.dtype is dtypes.int32
    np.testing.assert_array_equal(t.numpy(), [1, 2])


# -- gradient rules, against finite differences ------------------------------------

_operands = RuleOperands(42)
_u, _pos = _operands.uniform, _operands.positive

GRADIENT_RULES = {
    "identity": (array_ops.identity, _u(3)),
    "fill": (lambda v: array_ops.fill([2, 3], v), np.array(1.5)),
    "ones_like_times": (lambda x: array_ops.ones_like(x) * x, _u(3)),
}

test_rule_matches_finite_differences = gradient_rules_test(GRADIENT_RULES)
