"""The case tables of the core op families, written against the runtime alone (no compiler,
no facade): the op-family modules (tests/autograph/test_<family>_ops.py) list their ops'
cases and make their tests with the factories below, as they make their facade checks with
tests/op_checks.py.

Each value case (`case(...)`) is checked three ways: eagerly against numpy (value, dtype and
shape); traced in a Function, equal to the eager result with an inferred static shape equal
to the actual one; and, when `relaxable`, traced with every dimension unknown, with a static
shape compatible with the result's. A gradient case is a rule checked against central finite
differences (float64) in each of `MODES`. The error tables give an op operands of mixed
dtypes, of a dtype it does not take, or of incompatible shapes: InvalidArgumentError eagerly,
TypeError or ValueError while tracing, each naming the op and its operands.

Every test made here carries the `lowerings` mark: with AUTOGRAPH_BACKEND=numba or jax, that
subset runs every op's compiled lowering (.ci/run, CONTRIBUTING.md).
"""

import collections

import numpy as np
import pytest
from numeric_gradients import numeric_gradients

from runtime import dtypes, errors, executor, nest
from runtime import shape as shape_lib
from runtime import signature as signature_lib
from runtime import tensor as tensor_lib
from runtime.function import function
from runtime.gradients import GradientTape
from runtime.ops import array_ops, reduction_ops, registry

# -- sample operands of the value cases (drawn once, so every family sees the same ones) ----

_rng = np.random.default_rng(1234)
F1 = _rng.standard_normal((2, 3)).astype(np.float32)
F2 = _rng.standard_normal((2, 3)).astype(np.float32)
ROW = np.array([0.5, -1.5, 2.0], np.float32)
POS = (np.abs(F1) + 0.25).astype(np.float32)
I1 = np.array([[7, -3, 0], [5, 12, -8]], np.int32)
I2 = np.array([[2, 5, -3], [-4, 3, 3]], np.int32)
SMALL = np.array([[0, 1, 2], [3, 2, 1]], np.int32)
B1 = np.array([[True, False, True], [False, False, True]])
B2 = np.array([[True, True, False], [False, True, True]])
HALVES = np.array([[0.5, 1.5, 2.5], [-0.5, -1.5, 3.7]], np.float32)
SPECIAL = np.array([[np.nan, np.inf, -np.inf], [0.0, -1.0, 2.0]], np.float32)
CUBE = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 11.5
MAT_A = _rng.standard_normal((2, 3)).astype(np.float32)
MAT_B = _rng.standard_normal((3, 4)).astype(np.float32)
BATCH_A = _rng.standard_normal((2, 2, 3)).astype(np.float32)
BATCH_B = _rng.standard_normal((2, 3, 4)).astype(np.float32)
ONES_131 = np.arange(3, dtype=np.float32).reshape(1, 3, 1)


def trace(fn):
    """A Function tracing `fn` as written. These tests are about the runtime's ops, not the
    compiler: the bodies are lambdas (often several on one line, whose source autograph cannot
    always single out), and none holds control flow, so conversion would not change them."""
    return function(fn, autograph=False)


def _lowerings(test):
    """`test` in the `lowerings` subset (see the module docstring)."""
    return pytest.mark.lowerings(test)


# -- values ------------------------------------------------------------------------------------

Case = collections.namedtuple("Case", "name fn inputs reference dtype relaxable value_shaped")


def case(name, fn, inputs, reference, dtype, relaxable=True, value_shaped=False):
    """`relaxable`: traceable with every dimension unknown; `value_shaped`: the output shape
    depends on input values (a fed shape or bound), so tracing cannot know it."""
    return Case(name, fn, tuple(inputs), reference, dtype, relaxable, value_shaped)


def _flat(value):
    return nest.flatten(value)


def _assert_reference(result, expected, dtype):
    results, expecteds = _flat(result), _flat(expected)
    assert len(results) == len(expecteds)
    for r, e in zip(results, expecteds):
        e = np.asarray(e)
        assert isinstance(r, tensor_lib.Tensor)
        assert r.dtype is dtype
        assert tuple(r.shape) == e.shape
        if dtype is dtypes.string or dtype is dtypes.bool_ or dtype.is_integer:
            np.testing.assert_array_equal(r.numpy(), e)
        else:
            np.testing.assert_allclose(r.numpy(), e, rtol=2e-6, atol=1e-6)


def _assert_traced_equals_eager(cf, traced, eager):
    """Equal on the numpy executor. A compiled backend (AUTOGRAPH_BACKEND=jax or numba) rounds
    float math functions its own way (XLA's float32 tanh, sinh, expm1 are 2 ulp from numpy's,
    which are themselves an ulp off at times): there, within 4 ulp, the bound issue 11 sets
    for fast math functions."""
    if cf.backend == "numpy" or not traced.dtype.is_floating:
        np.testing.assert_array_equal(traced.numpy(), eager.numpy())
    else:
        np.testing.assert_array_max_ulp(traced.numpy(), eager.numpy(), maxulp=4)


def eager_values_test(cases):
    """A test of each case's eager result against its numpy reference."""
    @_lowerings
    @pytest.mark.parametrize("c", cases, ids=[c.name for c in cases])
    def test_eager_result_matches_numpy(c):
        result = c.fn(*[array_ops.constant(x) for x in c.inputs])
        _assert_reference(result, c.reference(*c.inputs), c.dtype)
    return test_eager_result_matches_numpy


def traced_values_test(cases):
    """A test that each case traced gives the eager result, with an exact static shape (one
    compatible with it for a `value_shaped` case)."""
    @_lowerings
    @pytest.mark.parametrize("c", cases, ids=[c.name for c in cases])
    def test_traced_result_equals_eager_and_static_shape_is_exact(c):
        args = [array_ops.constant(x) for x in c.inputs]
        eager = c.fn(*args)
        cf = trace(c.fn).get_concrete_function(*args)
        traced = cf(*args)
        static = _flat(cf.structured_outputs)
        eager_flat, traced_flat = _flat(eager), _flat(traced)
        assert len(static) == len(traced_flat) == len(eager_flat)
        for s, t, e in zip(static, traced_flat, eager_flat):
            assert t.dtype is e.dtype is s.dtype
            assert t.shape == e.shape
            if c.value_shaped:
                assert s.shape.is_compatible_with(t.shape), (s.shape, t.shape)
            else:
                assert s.shape.is_fully_defined(), "static shape %s not fully known" % (s.shape,)
                assert s.shape == t.shape
            _assert_traced_equals_eager(cf, t, e)
    return test_traced_result_equals_eager_and_static_shape_is_exact


def unknown_dims_test(cases):
    """A test that each `relaxable` case, traced with every dimension unknown, has a static
    shape compatible with its result and the eager values."""
    relaxable = [c for c in cases if c.relaxable]

    @_lowerings
    @pytest.mark.parametrize("c", relaxable, ids=[c.name for c in relaxable])
    def test_traced_with_unknown_dims_gives_compatible_static_shape(c):
        args = [array_ops.constant(x) for x in c.inputs]
        specs = [signature_lib.TensorSpec([None] * a.ndim, a.dtype) for a in args]
        cf = trace(c.fn).get_concrete_function(*specs)
        traced = cf(*args)
        eager = c.fn(*args)
        static = _flat(cf.structured_outputs)
        for s, t, e in zip(static, _flat(traced), _flat(eager)):
            assert s.shape.is_compatible_with(t.shape), (s.shape, t.shape)
            assert t.dtype is s.dtype
            _assert_traced_equals_eager(cf, t, e)
    return test_traced_with_unknown_dims_gives_compatible_static_shape


def empty_shape_test(ops):
    """A test that each of `ops` ((name, function of a shape)) makes a scalar of the empty
    shape given as (), [] or TensorShape([]), eagerly and traced."""
    @_lowerings
    @pytest.mark.parametrize("scalar_shape", [(), [], shape_lib.TensorShape([])], ids=repr)
    @pytest.mark.parametrize("name, op", ops, ids=[n for n, _ in ops])
    def test_shape_taking_ops_accept_the_empty_shape(name, op, scalar_shape):
        assert op(scalar_shape).shape == ()
        traced = function(lambda: op(scalar_shape))()
        assert traced.shape == () and traced.numpy().shape == ()
    return test_shape_taking_ops_accept_the_empty_shape


def static_shapes_with_an_unknown_dimension(ops):
    """{name: static shape} of the tensors `ops(x, y)` ({name: tensor}) makes when traced with
    x of shape (None, 3) and y of shape (3,)."""
    shapes = {}

    def f(x, y):
        shapes.update((name, t.shape) for name, t in ops(x, y).items())
        return x
    trace(f).get_concrete_function(signature_lib.TensorSpec([None, 3]),
                                   signature_lib.TensorSpec([3]))
    return shapes


# -- errors --------------------------------------------------------------------------------------

def _ids(table):
    return [row[0] for row in table]


def mixed_dtypes_tests(table):
    """Tests that each op of `table` ((name, op of two operands, op type)) given int32 and
    float32 operands raises InvalidArgumentError eagerly and TypeError while tracing, naming
    the op type and both dtypes."""
    @_lowerings
    @pytest.mark.parametrize("name, op, op_type", table, ids=_ids(table))
    def test_mixed_dtypes_raise_invalid_argument_eagerly(name, op, op_type):
        with pytest.raises(errors.InvalidArgumentError) as info:
            op(array_ops.constant([1, 2]), array_ops.constant([1.0, 2.0]))
        message = str(info.value)
        assert op_type in message
        assert "int32" in message and "float32" in message

    @_lowerings
    @pytest.mark.parametrize("name, op, op_type", table, ids=_ids(table))
    def test_mixed_dtypes_raise_type_error_while_tracing(name, op, op_type):
        f = trace(lambda a, b: op(a, b))
        with pytest.raises(TypeError) as info:
            f(array_ops.constant([1, 2]), array_ops.constant([1.0, 2.0]))
        message = str(info.value)
        assert op_type in message
        assert "int32" in message and "float32" in message
        assert not isinstance(info.value, errors.InvalidArgumentError)
    return test_mixed_dtypes_raise_invalid_argument_eagerly, \
        test_mixed_dtypes_raise_type_error_while_tracing


def unsupported_dtype_tests(table):
    """Tests that each op of `table` ((name, op of one operand, its value, op type)) refuses
    the operand's dtype: InvalidArgumentError eagerly, TypeError while tracing, naming the op
    type and the dtype."""
    @_lowerings
    @pytest.mark.parametrize("name, op, value, op_type", table, ids=_ids(table))
    def test_unsupported_dtype_raises_invalid_argument_eagerly(name, op, value, op_type):
        x = array_ops.constant(value)
        with pytest.raises(errors.InvalidArgumentError) as info:
            op(x)
        assert op_type in str(info.value)
        assert x.dtype.name in str(info.value)

    @_lowerings
    @pytest.mark.parametrize("name, op, value, op_type", table, ids=_ids(table))
    def test_unsupported_dtype_raises_type_error_while_tracing(name, op, value, op_type):
        x = array_ops.constant(value)
        with pytest.raises(TypeError) as info:
            trace(lambda t: op(t))(x)
        assert op_type in str(info.value)
        assert x.dtype.name in str(info.value)
    return test_unsupported_dtype_raises_invalid_argument_eagerly, \
        test_unsupported_dtype_raises_type_error_while_tracing


def incompatible_shapes_tests(table):
    """Tests that each op of `table` ((name, op of two operands, their shapes, op type))
    refuses the shapes: InvalidArgumentError eagerly, ValueError while tracing, naming the op
    type and the first operand's shape."""
    @_lowerings
    @pytest.mark.parametrize("name, op, shapes, op_type", table, ids=_ids(table))
    def test_incompatible_shapes_raise_invalid_argument_eagerly(name, op, shapes, op_type):
        args = [array_ops.ones(s) for s in shapes]
        with pytest.raises(errors.InvalidArgumentError) as info:
            op(*args)
        message = str(info.value)
        assert op_type in message
        assert str(args[0].shape) in message

    @_lowerings
    @pytest.mark.parametrize("name, op, shapes, op_type", table, ids=_ids(table))
    def test_incompatible_shapes_raise_value_error_while_tracing(name, op, shapes, op_type):
        args = [array_ops.ones(s) for s in shapes]
        with pytest.raises(ValueError) as info:
            trace(lambda a, b: op(a, b))(*args)
        message = str(info.value)
        assert op_type in message
        assert str(args[0].shape) in message
    return test_incompatible_shapes_raise_invalid_argument_eagerly, \
        test_incompatible_shapes_raise_value_error_while_tracing


# -- gradient rules --------------------------------------------------------------------------

# an eager tape; an eagerly called Function (the call is one tape record whose gradient runs a
# gradient function); the tape inside a tf.function (the gradient built as graph nodes and
# compiled)
MODES = ("eager", "function_call", "tape_in_function")


class RuleOperands:
    """Seeded float64 operands of the gradient cases."""

    def __init__(self, seed):
        self._rng = np.random.default_rng(seed)

    def uniform(self, *shape, lo=-1.0, hi=1.0):
        """Values in [lo, hi) of `shape`."""
        return self._rng.uniform(lo, hi, size=shape)

    def positive(self, *shape):
        """Values in [0.5, 2) of `shape`."""
        return self._rng.uniform(0.5, 2.0, size=shape)


def _weighted(fn, weights):
    """The scalar sum(fn(*xs) * w) for a fixed random w: its gradient is a vector-Jacobian
    product, which exercises every output element."""
    def scalar(*xs):
        out = fn(*xs)
        return reduction_ops.reduce_sum(out * array_ops.constant(weights))
    return scalar


def tape_grads(scalar_fn, arrays, mode):
    """The tape's gradients of scalar_fn(*tensors) in `mode`."""
    if mode == "eager":
        xs = [array_ops.constant(a) for a in arrays]
        with GradientTape() as tape:
            for x in xs:
                tape.watch(x)
            y = scalar_fn(*xs)
        return [None if g is None else g.numpy() for g in tape.gradient(y, xs)]
    if mode == "function_call":
        f = function(scalar_fn, autograph=False)
        xs = [array_ops.constant(a) for a in arrays]
        with GradientTape() as tape:
            tape.watch(xs)
            y = f(*xs)
        return [None if g is None else g.numpy() for g in tape.gradient(y, xs)]

    @function(autograph=False)
    def step(*xs):
        with GradientTape() as tape:
            tape.watch(list(xs))
            y = scalar_fn(*xs)
        grads = tape.gradient(y, list(xs))
        return [g if g is not None else array_ops.constant(np.nan) for g in grads]
    xs = [array_ops.constant(a) for a in arrays]
    return [g.numpy() for g in step(*xs)]


def check_rule(fn, *arrays, mode="eager", rtol=1e-5, atol=1e-7, seed=0):
    """fn's gradient rule, with random output weights, matches finite differences."""
    arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
    out = fn(*[array_ops.constant(a) for a in arrays])
    weights = np.random.default_rng(seed).uniform(0.5, 1.5, size=out.shape)
    scalar = _weighted(fn, weights)
    got = tape_grads(scalar, arrays, mode)
    want = numeric_gradients(lambda *a: float(scalar(*[array_ops.constant(b) for b in a])), arrays)
    for g, w in zip(got, want):
        assert g is not None
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def gradient_rules_test(cases):
    """A test of each gradient case ({name: (fn, operand arrays...)}) in every mode."""
    @_lowerings
    @pytest.mark.parametrize("mode", MODES)
    @pytest.mark.parametrize("name", sorted(cases))
    def test_rule_matches_finite_differences(name, mode):
        fn, *arrays = cases[name]
        check_rule(fn, *arrays, mode=mode)
    return test_rule_matches_finite_differences


# -- how the executor writes ops: the emit rules ---------------------------------------------
#
# Each op's `emit` hook sees its inputs as executor Operands (expression, dtype, static shape,
# constant value) and writes Python, or returns None for the kernel call. Their results are
# checked against the kernels in tests/runtime/test_executor.py; the families' tests pin the
# rules.

SCALAR, VECTOR, UNKNOWN = (), (3,), None


def emit(op_name, *operands, attrs=None, overflow_ignored=False):
    """Op `op_name`'s emit hook on `operands` given as (expr, dtype, shape, value[, argument]):
    returns the line it writes (or None) and the namespace of the generated code."""
    emitter = executor.Emitter()
    emitter.overflow_ignored = overflow_ignored
    ins = [executor.Operand(expr, dtype, shape, value, emitter, *argument)
           for expr, dtype, shape, value, *argument in operands]
    return registry.get(op_name).emit(["out"], ins, attrs or {}, emitter), emitter.namespace


def const(value, dtype, name="k"):
    """A constant operand of `emit`."""
    return (name, dtype, np.shape(value), np.array(value, dtype.np_dtype))

