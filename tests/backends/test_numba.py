"""The numba backend: values agree with the numpy executor, errors name the op and the
user's line, int32 wraps, variables are updated, the generated module is cached.
Each test compiles one or two small graphs (well under a second each once numba is warm),
but for the long property run over random broadcasts (-m slow)."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba_compare import executor_and_numba, same_failure

import autograph.tf as tf
from runtime import backends, errors

numba = pytest.importorskip("numba")
_both = executor_and_numba


def _values(result):
    return [t.numpy() for t in (result if isinstance(result, tuple) else (result,))]


def _assert_same(expected, got):
    for e, g in zip(_values(expected), _values(got)):
        assert e.dtype == g.dtype and e.shape == g.shape
        np.testing.assert_array_equal(e, g)


def test_a_scalar_while_loop_with_a_condition_runs_compiled():
    def f(n):
        i = tf.constant(0)
        total = tf.constant(0)
        while i < n:
            if i % 3 == 0:
                total += i
            else:
                total -= 1
            i += 1
        return total, i

    _assert_same(*_both(f, tf.constant(100)))


def test_int32_arithmetic_wraps_like_tensorflow():
    def f(x):
        return x * 65536 + x

    _assert_same(*_both(f, tf.constant(70000)))


def test_elementwise_arrays_and_reductions_agree():
    def f(x):
        y = tf.maximum(tf.tanh(x) * 3.0 - 1.0, 0.0)
        return tf.reduce_sum(y), tf.reduce_max(x), tf.cast(y > 0.5, tf.int32)

    x = tf.constant(np.linspace(-2, 2, 11, dtype=np.float32))
    expected, got = _both(f, x)
    for e, g in zip(_values(expected), _values(got)):
        assert e.dtype == g.dtype
        np.testing.assert_allclose(e, g, rtol=1e-6)


def test_integer_division_by_zero_fails_like_the_executor_naming_the_op_and_line():
    compiled = tf.function(lambda x, y: x // y, backend="numba", strict=True)
    assert compiled(tf.constant([7, 8]), tf.constant([2, 3])).numpy().tolist() == [3, 2]
    with pytest.raises(errors.InvalidArgumentError) as caught:
        compiled(tf.constant([7, 8]), tf.constant([2, 0]))
    message = str(caught.value)
    assert "FloorDiv" in message and "integer division by zero" in message
    assert "test_numba.py" in message


def test_variables_are_read_and_assigned():
    counter = tf.Variable(1.0)
    vector = tf.Variable([1, 2, 3])

    @tf.function(backend="numba", strict=True)
    def step(x):
        before = counter.read_value()
        counter.assign_add(x)
        vector.assign(vector * 2)
        return before

    assert step(tf.constant(2.0)).numpy() == 1.0
    assert step(tf.constant(2.0)).numpy() == 3.0
    assert counter.numpy() == 5.0 and vector.numpy().tolist() == [4, 8, 12]


def test_the_generated_module_is_written_to_the_cache_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOGRAPH_CACHE_DIR", str(tmp_path))
    f = tf.function(lambda x: x * 3.0 + 0.25, backend="numba", strict=True)
    assert f(tf.constant(1.0)).numpy() == 3.25
    modules = list((tmp_path / "numba").glob("autograph_numba_*.py"))
    assert len(modules) == 1 and "def kernel(" in modules[0].read_text()
    assert "xp.__version__" not in modules[0].read_text()


def test_an_unlowerable_graph_falls_back_and_says_which_op():
    def f(x):
        y = tf.py_function(lambda v: v, [x], tf.int32)  # an output of unknown rank
        return y + 1

    g = tf.function(f, backend="numba")
    with pytest.warns(backends.BackendFallbackWarning, match=r"EagerPyFunc.*test_numba.py:\d+"):
        assert g(tf.constant(1)).numpy() == 2
    assert g.get_concrete_function(tf.constant(1)).backend == "numpy"


@pytest.mark.parametrize("name,function,reference", [
    ("tanh", tf.tanh, np.tanh),
    ("exp", tf.exp, np.exp),
    ("sigmoid", tf.math.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
])
def test_transcendentals_are_within_4_ulp_of_float64(name, function, reference):
    x = np.concatenate([np.linspace(-20, 20, 4001), np.linspace(-1e-3, 1e-3, 101)])
    x32 = x.astype(np.float32)
    got = tf.function(function, backend="numba", strict=True)(tf.constant(x32)).numpy()
    exact = reference(x32.astype(np.float64))
    ulp = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    assert np.max(np.abs(got.astype(np.float64) - exact) / ulp) <= 4, name


# -- "auto": promotion once the executor's time pays for the compile ----------------------------

def _counter_loop(n):
    i = tf.constant(0)
    total = tf.constant(0)
    while i < n:
        total += i % 7
        i += 1
    return total


def test_auto_promotes_a_loop_to_numba_once_its_time_adds_up(monkeypatch):
    from runtime.backends import promotion
    monkeypatch.setattr(promotion, "predicted_compile_seconds", lambda: 0.0)
    f = tf.function(_counter_loop, backend="auto")
    n = tf.constant(50)
    first = f(n)  # runs on the executor, then starts the compile (the budget is spent)
    cf = f.get_concrete_function(n)
    cf.promotion.join()
    assert cf.backend == "numba"
    assert f(n).numpy() == first.numpy() == sum(i % 7 for i in range(50))


def test_auto_never_promotes_a_tiny_graph_without_loops(monkeypatch):
    from runtime.backends import promotion
    monkeypatch.setattr(promotion, "predicted_compile_seconds", lambda: 0.0)
    f = tf.function(lambda x: x + 1, backend="auto")
    for _ in range(3):
        f(tf.constant(1.0))
    cf = f.get_concrete_function(tf.constant(1.0))
    assert cf.backend == "numpy" and not hasattr(cf, "_promotion")


# -- fused elementwise loops --------------------------------------------------------------------

def test_a_chain_of_elementwise_ops_becomes_one_loop_keeping_values_used_later():
    def f(x):
        y = tf.abs(x * 2.0 - 1.0)
        z = tf.minimum(y + 0.5, 2.0)
        return z, tf.reduce_sum(y)

    x = tf.constant(np.linspace(-2, 2, 8, dtype=np.float32))
    expected, got = _both(f, x)
    for e, g in zip(_values(expected), _values(got)):
        np.testing.assert_allclose(e, g, rtol=1e-6)
    source = tf.function(f, backend="numba").get_concrete_function(x).backend_source
    assert len(re.findall(r"\n +for i\d+ in range", source)) == 1 and "np.empty(" in source


# (shape, shape it is combined with, the loops of their nest: one per group of adjacent
# dimensions along which each side is either spanned or repeated; each pair its own nest, as
# no two have one shape)
_BROADCASTS = [((2, 3, 4), (1, 1, 4), 2), ((2, 1, 5), (3, 1), 3), ((5, 3), (5, 1), 2),
               ((4,), (1,), 1), ((3, 1, 2, 1), (4, 1, 5), 4), ((1, 3), (2, 1, 1), 2)]


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_broadcasting_elementwise_ops_are_one_loop_nest_with_the_executors_values(dtype):
    def f(*operands):
        return [tf.maximum(a * b - a, b) // 3 + tf.cast(a < b, a.dtype)
                for a, b in zip(operands[::2], operands[1::2])]

    rng = np.random.default_rng(7)
    operands = [tf.constant(rng.integers(-2**20, 2**20, shape).astype(dtype)
                            if dtype == np.int32 else rng.normal(size=shape).astype(dtype))
                for a, b, _ in _BROADCASTS for shape in (a, b)]
    compiled = tf.function(f, backend="numba", strict=True)
    got = compiled(*operands)
    for e, g in zip(tf.function(f, backend="numpy")(*operands), got):  # (int32 wraps)
        assert e.dtype == g.dtype and e.shape == g.shape
        np.testing.assert_array_equal(e.numpy(), g.numpy())
    source = compiled.get_concrete_function(*operands).backend_source
    loops = len(re.findall(r"\n +for i\d+ in range\(\d+\):", source))
    assert loops == sum(count for _, _, count in _BROADCASTS)


def test_a_single_elementwise_op_on_a_matrix_is_a_loop():
    # numba's own array expression compiles a broadcasting loop nest, slow to compile from
    # rank 2 on (seconds at rank 4); a single op on vectors stays an array expression
    f = tf.function(lambda x, v: (x * x, v * v), backend="numba", strict=True)
    x, v = np.arange(24, dtype=np.float32).reshape(2, 3, 4), np.arange(3, dtype=np.float32)
    got = f(x, v)
    np.testing.assert_array_equal(got[0].numpy(), x * x)
    np.testing.assert_array_equal(got[1].numpy(), v * v)
    source = f.get_concrete_function(x, v).backend_source
    assert len(re.findall(r"\n +for i\d+ in range\(24\):", source)) == 1
    assert "range(3)" not in source


@pytest.mark.parametrize("dtype", [np.int32, np.float32])
def test_a_single_mod_on_vectors_is_a_loop_with_the_executors_values(dtype):
    # the float rule's fix-up of fmod (TensorFlow's zero sign) would build four temporaries
    x = np.array([-4, 4, -7, 7, 0, 5, -5, 9], dtype)
    y = np.array([2, -2, 3, -3, 3, 5, -5, 2], dtype)
    f = tf.function(lambda x, y: x % y, backend="numba", strict=True)
    expected = tf.function(lambda x, y: x % y, backend="numpy")(x, y).numpy()
    got = f(x, y).numpy()
    np.testing.assert_array_equal(got, expected)
    assert np.array_equal(np.signbit(got), np.signbit(expected))
    source = f.get_concrete_function(x, y).backend_source
    assert len(re.findall(r"\n +for i\d+ in range\(8\):", source)) == 1


def _run_time_broadcast(a, b, c):
    return tf.maximum(a * b - c, b) // 3 + tf.cast(a < c, a.dtype), tf.equal(b, c)


_RUN_TIME_SPECS = [tf.TensorSpec([None, None, None], tf.int32),
                   tf.TensorSpec([None, None], tf.int32), tf.TensorSpec([None], tf.int32)]


def test_ops_over_shapes_known_at_run_time_are_loop_nests_that_broadcast_as_numpy():
    compiled = tf.function(_run_time_broadcast, backend="numba", strict=True,
                           input_signature=_RUN_TIME_SPECS)
    reference = tf.function(_run_time_broadcast, backend="numpy",
                            input_signature=_RUN_TIME_SPECS)
    rng = np.random.default_rng(3)
    for shapes in [((2, 3, 4), (3, 4), (4,)), ((2, 1, 4), (3, 1), (1,)), ((1, 1, 1), (1, 5), (5,)),
                   ((2, 3, 1), (1, 1), (6,)), ((2, 0, 3), (1, 3), (3,)), ((1, 2, 2), (2, 2), (2,))]:
        args = [rng.integers(-2**20, 2**20, s).astype(np.int32) for s in shapes]
        for e, g in zip(reference(*args), compiled(*args)):  # (int32 products wrap)
            assert e.dtype == g.dtype and e.shape == g.shape, shapes
            np.testing.assert_array_equal(e.numpy(), g.numpy())
    source = compiled.get_concrete_function(*args).backend_source
    # each op a nest as deep as its rank: six of rank 3 (the cast too; not the division,
    # which checks its divisor first, as its kernel), the equal of rank 2
    assert len(re.findall(r"\n +for i\d+ in range\(n\d+\):", source)) == 6 * 3 + 2


def test_a_broadcast_failing_at_run_time_raises_the_executors_error():
    args = [np.ones((2, 3, 4), np.int32), np.ones((2, 4), np.int32), np.ones(4, np.int32)]
    error = same_failure(_run_time_broadcast, *args, input_signature=_RUN_TIME_SPECS)
    assert "shapes (2,3,4) (2,4)" in str(error)


def test_a_static_output_of_inputs_known_at_run_time_checks_their_broadcast():
    specs = [tf.TensorSpec([None, None], tf.float32), tf.TensorSpec([2, 3], tf.float32)]
    product = lambda a, b: a * b  # noqa: E731 - (its output's shape is (2, 3))
    small, wide = np.float32([[1.0, 2.0, 3.0]]), np.arange(6, dtype=np.float32).reshape(2, 3)
    _assert_same(*_both(product, small, wide, input_signature=specs))
    error = same_failure(product, np.ones((4, 3), np.float32), wide, input_signature=specs)
    assert "shapes (4,3) (2,3)" in str(error)


def test_divisions_over_run_time_shapes_check_the_divisor_first_as_the_kernel():
    specs = [tf.TensorSpec([None, None], tf.int32), tf.TensorSpec([None], tf.int32)]
    for divide in (lambda a, b: a // b, lambda a, b: a % b):
        same_failure(divide, np.ones((2, 3), np.int32), np.int32([2, 0]), input_signature=specs)
        same_failure(divide, np.ones((2, 0), np.int32), np.int32([0]), input_signature=specs)
    # a power checks its exponent element by element, after the broadcast: nothing to check
    # in an empty result
    _assert_same(*_both(lambda a, b: a ** b, np.ones((2, 0), np.int32), np.int32([-1]),
                        input_signature=specs))


def test_divisions_complex_and_add_n_over_run_time_shapes_fail_a_broadcast_as_the_kernel():
    # (numpy-function calls, not loops: numba's own broadcast fails with another ValueError)
    for dtype in (tf.int32, tf.float32):  # (the integer rules check the divisor first)
        specs = [tf.TensorSpec([None, None], dtype), tf.TensorSpec([None], dtype)]
        wide, short = np.ones((2, 3), dtype.np_dtype), np.full(2, 2, dtype.np_dtype)
        error = same_failure(lambda a, b: (a // b, a % b), wide, short, input_signature=specs)
        assert "shapes (2,3) (2,)" in str(error)
    error = same_failure(lambda a, b: tf.complex(a, b), wide, short, input_signature=specs)
    assert "shapes (2,3) (2,)" in str(error)
    # the partial sums of add_n broadcast one after another: (2,1) + (3,) + (2,3)
    specs = [tf.TensorSpec([None, None], tf.int32), tf.TensorSpec([None], tf.int32)]
    column, row = np.ones((2, 1), np.int32), np.arange(3, dtype=np.int32)
    _assert_same(*_both(lambda a, b: tf.add_n([a, b, a + b]), column, row,
                        input_signature=specs))
    error = same_failure(lambda a, b: tf.add_n([a, b, b[:2]]), column, row,
                         input_signature=specs)
    assert "shapes (2,3) (2,)" in str(error)


def test_a_loop_reads_a_transposed_view_in_its_own_order():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    _assert_same(*_both(lambda x: (tf.transpose(x) * 2.0, tf.transpose(x, [0, 2, 1]) + x[0, :, 0]),
                        tf.constant(x)))


@pytest.mark.parametrize("shape", [[2, 3, 4, 5], [None] * 4])
def test_transposes_and_reductions_over_leading_axes_are_the_executors(shape):
    # (views made of the permuted shape and strides; a strided slice transposed, too)
    x = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)

    def f(x):
        return (tf.transpose(x, [2, 0, 3, 1]) + 1.0, tf.transpose(x[:, ::2, 1:], [3, 1, 2, 0]),
                tf.reduce_max(x, axis=[0, 2]), tf.one_hot(tf.cast(x[0, 0], tf.int32) % 3, 3,
                                                          axis=0))
    _assert_same(*_both(f, tf.constant(x), input_signature=[tf.TensorSpec(shape, tf.float32)]))


@pytest.mark.parametrize("shape", [[3, 4], [None, None]])
def test_a_transposed_view_reshapes_as_on_the_executor(shape):
    # (a 2-D transpose is numba's Fortran-ordered `.T`, which numba's reshape refused at
    # run time; a permutation of more axes is a strided view, which it refused to compile)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)

    def f(x):
        return (tf.reshape(tf.transpose(x, [1, 0]), [-1]), tf.reshape(tf.transpose(x), [2, 6]),
                tf.reshape(tf.transpose(x[None], [2, 0, 1]), [-1]) + 1.0)
    _assert_same(*_both(f, tf.constant(x), input_signature=[tf.TensorSpec(shape, tf.float32)]))


def test_a_fused_integer_division_still_checks_each_divisor():
    f = tf.function(lambda x, y: (x // y) * 2 + 1, backend="numba", strict=True)
    assert f(tf.constant([7, 9]), tf.constant([2, 4])).numpy().tolist() == [7, 5]
    with pytest.raises(errors.InvalidArgumentError, match="integer division by zero"):
        f(tf.constant([7, 9]), tf.constant([2, 0]))


def test_a_non_contiguous_argument_gives_the_same_values():
    f = tf.function(lambda x: x * 2.0 + 1.0, backend="numba", strict=True)
    base = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert f(tf.constant(base)).numpy().tolist() == (base * 2 + 1).tolist()
    strided = tf.constant(base.T.copy()).numpy().T  # an F-ordered view
    assert not strided.flags.c_contiguous
    got = f(tf.constant(base)).numpy()
    np.testing.assert_array_equal(got, base * 2 + 1)
    from runtime.tensor import EagerTensor
    tensor = EagerTensor(strided, tf.float32)
    np.testing.assert_array_equal(f(tensor).numpy(), strided * 2 + 1)


def test_matmul_with_a_transposed_operand():
    a = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    b = np.arange(20, dtype=np.float32).reshape(5, 4) / 10
    expected, got = _both(lambda x, y: tf.matmul(x, y, transpose_b=True), tf.constant(a),
                          tf.constant(b))
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)


# -- reductions over some axes ------------------------------------------------------------------

_CUBE = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 7


@pytest.mark.parametrize("reduce,axis,keepdims", [
    (tf.reduce_sum, 1, True), (tf.reduce_max, (0, 2), False), (tf.reduce_min, -1, False),
    (tf.reduce_prod, (), False), (tf.reduce_mean, None, True)])
def test_a_reduction_over_some_axes_agrees(reduce, axis, keepdims):
    expected, got = _both(lambda t: reduce(t, axis=axis, keepdims=keepdims), tf.constant(_CUBE))
    assert expected.shape == got.shape
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)


def test_an_integer_mean_over_an_axis_truncates_like_the_kernel():
    x = tf.constant((np.arange(24).reshape(2, 3, 4) % 5 - 2).astype(np.int32))
    _assert_same(*_both(lambda t: tf.reduce_mean(t, axis=1), x))


@pytest.mark.slow
@pytest.mark.parametrize("reduce", [tf.reduce_sum, tf.reduce_max, tf.reduce_min,
                                    tf.reduce_mean, tf.reduce_prod])
def test_every_axis_choice_of_a_reduction_agrees(reduce):
    for axis in [None, 0, 1, -1, (0, 2), ()]:
        for keepdims in (False, True):
            expected, got = _both(lambda t: reduce(t, axis=axis, keepdims=keepdims),
                                  tf.constant(_CUBE))
            assert expected.shape == got.shape
            np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)


def test_a_variable_updated_eagerly_is_read_by_the_compiled_graph():
    v = tf.Variable(1.0)
    read = tf.function(lambda x: x * v, backend="numba", strict=True)
    assert read(tf.constant(2.0)).numpy() == 2.0
    v.assign_add(1.0)  # eagerly: the variable then holds a numpy scalar
    assert read(tf.constant(2.0)).numpy() == 4.0


def test_a_variable_assigned_in_a_loop_body_is_one_buffer():
    counter = tf.Variable(0)

    @tf.function(backend="numba", strict=True)
    def count(n):
        for _ in tf.range(n):
            counter.assign_add(1)
        return counter.read_value()

    assert count(tf.constant(6)).numpy() == 6 and counter.numpy() == 6


def test_a_call_of_another_function_is_inlined_and_stack_lowers():
    inner = tf.function(lambda x: x * 2 + 1)

    def outer(x):
        return tf.stack([inner(x), x])

    _assert_same(*_both(outer, tf.constant(3)))


# -- elementwise loops over random broadcasts (a long run: -m slow) -----------------------------

_BINARY = [tf.add, tf.subtract, tf.multiply, tf.maximum, tf.minimum]


@st.composite
def _broadcasts(draw):
    """(the operands' shapes, which broadcast to one shape, and a chain of binary ops)."""
    rank = draw(st.integers(1, 4))
    out = draw(st.lists(st.integers(0, 3), min_size=rank, max_size=rank))
    shapes = []
    for _ in range(draw(st.integers(2, 3))):
        own = draw(st.integers(0, rank))
        shapes.append(tuple(d if draw(st.booleans()) else 1 for d in out[rank - own:]))
    ops = draw(st.lists(st.sampled_from(range(len(_BINARY))), min_size=len(shapes) - 1,
                        max_size=len(shapes) - 1))
    return shapes, ops, draw(st.booleans())


@pytest.mark.slow
@pytest.mark.property
@settings(max_examples=40, deadline=None, database=None)
@given(_broadcasts())
def test_elementwise_loops_over_random_broadcasts_give_the_executors_values(case):
    shapes, ops, dynamic = case

    def f(*operands):
        result = operands[0]
        for op, operand in zip(ops, operands[1:]):
            result = tf.abs(_BINARY[op](result, operand)) * 3 - operand
        return result

    rng = np.random.default_rng(len(shapes))
    args = [rng.integers(-2**20, 2**20, s).astype(np.int32) for s in shapes]
    options = {"input_signature": [tf.TensorSpec([None] * len(s), tf.int32) for s in shapes]} \
        if dynamic else {}
    expected, got = _both(f, *args, **options)  # (int32 products overflow: both wrap)
    assert expected.shape == got.shape
    np.testing.assert_array_equal(expected.numpy(), got.numpy())


def test_numba_math_assign_writes_views_of_any_layout_and_refuses_other_shapes():
    # (the loop nest that stands for a slice assignment in the kernels)
    from runtime.backends import numba_math
    numba_math.register()

    @numba.njit
    def write(out, value, fill):
        numba_math.assign(out[1:3, ::2], value)  # a strided view
        numba_math.assign(out[0], fill)          # a row, from a scalar
        numba_math.assign(out.T[4, 1:3], value[:, 0])  # through a transposed view
        return out

    value = np.arange(6, dtype=np.float32).reshape(2, 3) + 10
    expected = np.zeros((4, 5), np.float32)
    expected[1:3, ::2] = value
    expected[0] = -1.0
    expected.T[4, 1:3] = value[:, 0]
    got = write(np.zeros((4, 5), np.float32), value, np.float32(-1.0))
    np.testing.assert_array_equal(got, expected)
    with pytest.raises(ValueError, match="differ in shape"):
        write(np.zeros((4, 7), np.float32), value, np.float32(-1.0))
