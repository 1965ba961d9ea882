"""Reductions (reduce_sum, reduce_mean, reduce_max, reduce_min, reduce_prod,
reduce_any, reduce_all) and argmax/argmin, against the runtime alone: values against numpy
eagerly and traced, with exact and with unknown static shapes (an unknown rank too), of
empty tensors and of Python lists; errors for unsupported dtypes and bad axes; how the
executor writes them (their emit rules); gradient rules against finite differences. Tables
and checks: tests/op_cases.py."""

import functools

import numpy as np
import pytest
from op_cases import (
    B1,
    CUBE,
    F1,
    I1,
    SCALAR,
    SMALL,
    UNKNOWN,
    RuleOperands,
    case,
    eager_values_test,
    emit,
    gradient_rules_test,
    incompatible_shapes_tests,
    static_shapes_with_an_unknown_dimension,
    traced_values_test,
    unknown_dims_test,
    unsupported_dtype_tests,
)

import autograph.tf as tf
from runtime import dtypes, errors
from runtime import signature as signature_lib
from runtime.function import function
from runtime.ops import array_ops, reduction_ops

# with AUTOGRAPH_BACKEND=numba or jax, every op's compiled lowering (.ci/run)
pytestmark = pytest.mark.lowerings

REDUCTIONS = [
    ("reduce_sum", reduction_ops.reduce_sum, np.sum),
    ("reduce_mean", reduction_ops.reduce_mean, np.mean),
    ("reduce_max", reduction_ops.reduce_max, np.max),
    ("reduce_min", reduction_ops.reduce_min, np.min),
    ("reduce_prod", reduction_ops.reduce_prod, np.prod),
    ("math.reduce_sum", reduction_ops.reduce_sum, np.sum),
    ("math.reduce_mean", reduction_ops.reduce_mean, np.mean),
    ("math.reduce_max", reduction_ops.reduce_max, np.max),
    ("math.reduce_min", reduction_ops.reduce_min, np.min),
    ("math.reduce_prod", reduction_ops.reduce_prod, np.prod),
]

REDUCTION_AXES = [(None, False), (0, False), (1, False), (-1, False), ([0, 1], False),
                  (None, True), (0, True), (-1, True)]


def _cases():
    out = []
    for name, op, ref in REDUCTIONS:
        for axis, keepdims in REDUCTION_AXES:
            out.append(case("%s axis=%s keepdims=%s" % (name, axis, keepdims),
                            functools.partial(op, axis=axis, keepdims=keepdims), (CUBE,),
                            functools.partial(ref, axis=None if axis is None else tuple(
                                axis) if isinstance(axis, list) else axis, keepdims=keepdims),
                            dtypes.float32))
    out.append(case("reduce_sum int32", reduction_ops.reduce_sum, (I1,), np.sum, dtypes.int32))
    out.append(case("reduce_sum int32 axis 1", functools.partial(reduction_ops.reduce_sum, axis=1),
                    (I1,),
                    functools.partial(np.sum, axis=1), dtypes.int32))
    out.append(case("reduce_mean int32 truncates toward zero",
                    functools.partial(reduction_ops.reduce_mean, axis=1),
                    (np.array([[1, 2, 4], [-1, -2, -4]], np.int32),),
                    lambda x: np.trunc(x.sum(axis=1) / 3).astype(np.int32), dtypes.int32))
    out.append(case("reduce_prod int32", reduction_ops.reduce_prod, (SMALL + 1,), np.prod,
                    dtypes.int32))
    for name, op, ref in [("reduce_any", reduction_ops.reduce_any, np.any),
                          ("reduce_all", reduction_ops.reduce_all, np.all),
                          ("math.reduce_any", reduction_ops.reduce_any, np.any),
                          ("math.reduce_all", reduction_ops.reduce_all, np.all)]:
        out.append(case(name, op, (B1,), ref, dtypes.bool_))
        out.append(case(name + " axis 0", functools.partial(op, axis=0), (B1,),
                        functools.partial(ref, axis=0), dtypes.bool_))
        out.append(case(name + " axis 1 keepdims",
                        functools.partial(op, axis=1, keepdims=True), (B1,),
                        functools.partial(ref, axis=1, keepdims=True), dtypes.bool_))

    for name, op, ref in [("argmax", reduction_ops.argmax, np.argmax),
                          ("argmin", reduction_ops.argmin, np.argmin),
                          ("math.argmax", reduction_ops.argmax, np.argmax),
                          ("math.argmin", reduction_ops.argmin, np.argmin)]:
        out.append(case(name, op, (F1,), functools.partial(ref, axis=0), dtypes.int64))
        out.append(case(name + " axis 1", functools.partial(op, axis=1), (F1,),
                        functools.partial(ref, axis=1), dtypes.int64))
        out.append(case(name + " int32 output", functools.partial(
            op, axis=-1, output_type=dtypes.int32), (CUBE,), functools.partial(ref, axis=-1),
            dtypes.int32))
    return out


CASES = _cases()

test_eager_result_matches_numpy = eager_values_test(CASES)
test_traced_result_equals_eager_and_static_shape_is_exact = traced_values_test(CASES)
test_traced_with_unknown_dims_gives_compatible_static_shape = unknown_dims_test(CASES)


def test_static_shapes_keep_known_dims_when_others_are_unknown():
    shapes = static_shapes_with_an_unknown_dimension(lambda x, y: {
        "sum0": reduction_ops.reduce_sum(x, axis=0),
        "sum1": reduction_ops.reduce_sum(x, axis=1)})
    assert shapes == {"sum0": (3,), "sum1": (None,)}


def test_ops_accept_nested_lists_of_numbers():
    result = reduction_ops.reduce_sum([[1, 2], [3, 4]], axis=1)
    np.testing.assert_array_equal(result.numpy(), [3, 7])


def test_ops_accept_lists_mixing_tensors_and_numbers():
    result = reduction_ops.reduce_sum([array_ops.constant(1.0), 2.0, array_ops.constant(3.0)])
    assert result.dtype is dtypes.float32
    assert result.numpy() == 6.0


UNSUPPORTED_DTYPE = [
    ("reduce_any int", reduction_ops.reduce_any, [1, 0], "Any"),
    ("reduce_sum bool", reduction_ops.reduce_sum, [True], "Sum"),
    ("reduce_mean string", reduction_ops.reduce_mean, ["a"], "Mean"),
]

test_unsupported_dtype_raises_invalid_argument_eagerly, \
    test_unsupported_dtype_raises_type_error_while_tracing = \
    unsupported_dtype_tests(UNSUPPORTED_DTYPE)


SHAPE_MISMATCH = [
    ("reduce axis", lambda a, b: reduction_ops.reduce_sum(a, axis=2), [(2, 3), (1,)], "Sum"),
]

test_incompatible_shapes_raise_invalid_argument_eagerly, \
    test_incompatible_shapes_raise_value_error_while_tracing = \
    incompatible_shapes_tests(SHAPE_MISMATCH)


def test_reductions_of_empty_tensors():
    assert reduction_ops.reduce_sum(array_ops.zeros([0])).numpy() == 0
    assert reduction_ops.reduce_prod(array_ops.zeros([0])).numpy() == 1
    with pytest.raises(errors.InvalidArgumentError):
        reduction_ops.reduce_max(array_ops.zeros([0], dtypes.int32))


@pytest.mark.parametrize("reduce",
                         [reduction_ops.reduce_sum, reduction_ops.reduce_mean,
                          reduction_ops.reduce_max,
                          reduction_ops.reduce_min, reduction_ops.reduce_prod])
def test_full_reduction_of_an_unknown_rank_input_has_a_scalar_static_shape(reduce):
    shapes = []

    def f(x):
        shapes.extend([reduce(x).shape, reduce(x, axis=0).shape,
                       reduce(x, keepdims=True).shape])
        return reduce(x)

    concrete = function(f).get_concrete_function(signature_lib.TensorSpec(None, dtypes.float32))
    assert shapes[0] == () and shapes[0].rank == 0
    assert shapes[1].rank is None and shapes[2].rank is None
    x = array_ops.constant([[1.0, 2.0], [3.0, 4.0]])
    assert concrete(x).numpy() == reduce(x).numpy()


def test_full_logical_reduction_of_an_unknown_rank_input_has_a_scalar_static_shape():
    traced = function(lambda x: (reduction_ops.reduce_any(x), reduction_ops.reduce_all(x)))
    concrete = traced.get_concrete_function(
        signature_lib.TensorSpec(None, dtypes.bool_))
    assert [o.shape for o in concrete.structured_outputs] == [(), ()]


# -- how the executor writes them: the emit rules (see tests/op_cases.py) ---------------

@pytest.mark.parametrize("op_name, ufunc", [("Sum", "add"), ("Prod", "multiply")])
def test_emit_sum_and_prod_are_ufunc_reductions_with_the_input_dtype(op_name, ufunc):
    attrs = {"axis": None, "keepdims": False}
    text, _ = emit(op_name, ("x", dtypes.float32, UNKNOWN, None), attrs=attrs)
    assert text == "out = np.%s.reduce(x, None, np.float32)" % ufunc
    attrs = {"axis": (0, 1), "keepdims": True}
    text, _ = emit(op_name, ("x", dtypes.int64, (2, 3), None), attrs=attrs)
    assert text == "out = np.%s.reduce(x, (0, 1), np.int64, keepdims=True)" % ufunc


@pytest.mark.parametrize("op_name, ufunc", [("Max", "maximum"), ("Min", "minimum")])
def test_emit_max_and_min_are_ufunc_reductions_when_the_input_cannot_be_empty(op_name, ufunc):
    attrs = {"axis": (1,), "keepdims": False}
    text, _ = emit(op_name, ("x", dtypes.int32, (2, 3), None), attrs=attrs)
    assert text == "out = np.%s.reduce(x, (1,))" % ufunc
    assert emit(op_name, ("x", dtypes.int32, SCALAR, None), attrs=attrs)[0] is not None
    for shape in [(2, None), (0, 3), UNKNOWN]:  # the kernel raises on an empty input
        assert emit(op_name, ("x", dtypes.int32, shape, None), attrs=attrs)[0] is None


# -- gradient rules, against finite differences ------------------------------------

_operands = RuleOperands(42)
_u, _pos = _operands.uniform, _operands.positive

GRADIENT_RULES = {
    "sum_all": (reduction_ops.reduce_sum, _u(2, 3)),
    "sum_axis": (lambda x: reduction_ops.reduce_sum(x, axis=1), _u(2, 3)),
    "sum_keepdims": (lambda x: reduction_ops.reduce_sum(x, axis=[0, 2], keepdims=True),
                     _u(2, 3, 2)),
    "mean_all": (reduction_ops.reduce_mean, _u(2, 3)),
    "mean_axis": (lambda x: reduction_ops.reduce_mean(x, axis=-1), _u(2, 3)),
    "max_axis": (lambda x: reduction_ops.reduce_max(x, axis=0), _u(3, 4)),
    "min_all": (reduction_ops.reduce_min, _u(3, 4)),
    "prod_axis": (lambda x: reduction_ops.reduce_prod(x, axis=1), _u(2, 3)),
    "prod_with_zero": (reduction_ops.reduce_prod, np.array([0.0, 2.0, 3.0])),
}

test_rule_matches_finite_differences = gradient_rules_test(GRADIENT_RULES)


def test_count_nonzero_counts_numbers_bools_and_strings_as_tensorflow():
    x = np.array([[1.5, -2.0, 0.0], [3.25, 0.5, -0.0]], np.float32)
    total = tf.math.count_nonzero(x)
    assert total.dtype == dtypes.int64 and total.numpy() == 4
    per_row = tf.math.count_nonzero(x, 1, keepdims=True, dtype=dtypes.int32)
    assert per_row.dtype == dtypes.int32
    np.testing.assert_array_equal(per_row.numpy(), [[2], [2]])
    assert tf.math.count_nonzero(array_ops.constant(["a", "", "b"])).numpy() == 2
    assert tf.math.count_nonzero(array_ops.constant([True, False])).numpy() == 1
    traced = function(lambda v: tf.math.count_nonzero(v, axis=0))
    np.testing.assert_array_equal(traced(x).numpy(), [2, 2, 0])

