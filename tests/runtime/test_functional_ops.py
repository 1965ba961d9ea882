"""map_fn, scan, foldl, foldr, vectorized_map, switch_case, case, custom_gradient and
numpy_function on the runtime alone: values against numpy, eagerly and in a Function, one
While op per map over a tensor, and gradients against central finite differences."""

import numpy as np
import pytest

from runtime import dtypes, errors
from runtime.function import function
from runtime.functional.branches import case, switch_case
from runtime.functional.maps import foldl, foldr, map_fn, scan, vectorized_map
from runtime.gradients import GradientTape
from runtime.gradients.custom_gradient import custom_gradient
from runtime.ops import array_ops, math_ops, reduction_ops
from runtime.ops.py_function_ops import numpy_function
from runtime.signature import TensorSpec
from runtime.variables import Variable

F64 = dtypes.float64


def const(value, dtype=None):
    return array_ops.constant(value, dtype)


def traced(fn):
    """`fn` as a Function without AutoGraph conversion (the runtime alone)."""
    return function(fn, autograph=False)


def both(fn, *args):
    """fn(*args) eagerly and through a Function, as numpy structures."""
    eager = fn(*args)
    staged = traced(fn)(*args)
    return _numpy(eager), _numpy(staged)


def _numpy(value):
    if isinstance(value, (list, tuple)):
        return type(value)(_numpy(v) for v in value)
    if isinstance(value, dict):
        return {k: _numpy(v) for k, v in value.items()}
    return value.numpy()


def op_types(fn, *args):
    graph = traced(fn).get_concrete_function(*args).graph
    return [node.op for node in graph.as_graph_def().node]


def numeric_grad(f, x0, eps=1e-6):
    g = np.zeros_like(x0)
    for idx in np.ndindex(x0.shape):
        plus, minus = x0.copy(), x0.copy()
        plus[idx] += eps
        minus[idx] -= eps
        g[idx] = (f(plus) - f(minus)) / (2 * eps)
    return g


def check_gradient(fn, x0, reference=None):
    """The gradient of the scalar fn(x) eagerly, through a Function called under a tape, and
    with the tape inside a Function, against finite differences of `reference` (or fn)."""
    reference = reference or (lambda a: fn(const(a)).numpy())
    expected = numeric_grad(reference, x0)
    x = const(x0)
    with GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), expected, rtol=1e-5, atol=1e-8)
    staged = traced(fn)
    with GradientTape() as tape:
        tape.watch(x)
        y = staged(x)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), expected, rtol=1e-5, atol=1e-8)

    def step(x):
        with GradientTape() as inner:
            inner.watch(x)
            y = fn(x)
        return inner.gradient(y, x)
    np.testing.assert_allclose(traced(step)(x).numpy(), expected, rtol=1e-5, atol=1e-8)


X = np.array([[0.3, -1.2], [0.7, 0.4], [-0.5, 2.0]])

# -- map_fn -----------------------------------------------------------------------------------


def test_map_fn_maps_rows_eagerly_and_in_a_function():
    eager, staged = both(lambda x: map_fn(lambda row: math_ops.tanh(row) * 2.0, x), const(X))
    np.testing.assert_allclose(eager, np.tanh(X) * 2)
    np.testing.assert_allclose(staged, np.tanh(X) * 2)


def test_map_fn_in_a_function_is_one_while_op_whatever_the_length():
    def fn(x):
        return map_fn(lambda v: v * v, x)
    short = op_types(fn, const(np.arange(3.0)))
    long = op_types(fn, const(np.arange(50.0)))
    assert sum("While" in op for op in short) == 1
    assert len(short) == len(long)


def test_map_fn_and_scan_over_a_length_known_only_at_run_time_trace_once():
    fn = function(lambda x: (map_fn(lambda row: row * 2.0, x),
                             scan(lambda acc, row: acc + row, x, reverse=True)),
                  input_signature=[TensorSpec([None, 2], F64)], autograph=False)
    for rows in (1, 4):
        x = np.arange(rows * 2.0).reshape(rows, 2)
        doubled, sums = fn(const(x))
        np.testing.assert_allclose(doubled.numpy(), x * 2)
        np.testing.assert_allclose(sums.numpy(), np.cumsum(x[::-1], axis=0)[::-1])
    assert fn.experimental_get_tracing_count() == 1


def test_map_fn_errors_name_the_users_line():
    with pytest.raises(TypeError, match="in user code") as info:
        map_fn(lambda v: v * 2.0, const([1.0]), fn_output_signature=dtypes.int32)
    assert "test_functional_ops.py" in str(info.value)


def test_map_fn_nested_elems_and_output_signature():
    elems = {"a": const(X), "b": const([1, 2, 3])}

    def fn(elems):
        return map_fn(lambda d: (reduction_ops.reduce_sum(d["a"]), d["b"] * 10), elems,
                      fn_output_signature=(F64, TensorSpec([], dtypes.int32)))
    for sums, tens in both(fn, elems):
        np.testing.assert_allclose(sums, X.sum(axis=1))
        np.testing.assert_array_equal(tens, [10, 20, 30])


def test_map_fn_dtype_is_the_older_name_of_the_output_signature():
    out = map_fn(lambda v: math_ops.cast(v, dtypes.int32), const([1.5, 2.5]),
                 dtype=dtypes.int32)
    np.testing.assert_array_equal(out.numpy(), [1, 2])


def test_map_fn_over_zero_elements_gives_zero_rows():
    for out in both(lambda x: map_fn(lambda row: row * 2.0, x), const(np.zeros((0, 3)))):
        assert out.shape == (0, 3)


def test_map_fn_over_zero_elements_takes_the_row_shape_from_fn():
    for out in both(lambda x: map_fn(lambda row: reduction_ops.reduce_sum(row), x),
                    const(np.zeros((0, 3)))):
        assert out.shape == (0,)


def test_map_fn_result_of_another_dtype_than_the_signature_is_a_type_error():
    with pytest.raises(TypeError, match="fn_output_signature says int32"):
        map_fn(lambda v: v * 2.0, const([1.0]), fn_output_signature=dtypes.int32)
    with pytest.raises(TypeError, match="elems says float32"):
        map_fn(lambda v: math_ops.cast(v, dtypes.int32), const([1.0]))


def test_map_fn_result_of_another_structure_than_the_signature_is_an_error():
    with pytest.raises(ValueError, match="does not match the structure"):
        map_fn(lambda v: (v, v), const([1.0]))


def test_map_fn_refuses_scalars_and_different_first_dimensions():
    with pytest.raises(ValueError, match="not scalars"):
        map_fn(lambda v: v, const(1.0))
    with pytest.raises(ValueError, match="same first dimension, got 2 and 3"):
        map_fn(lambda p: p[0], (const([1.0, 2.0]), const([1.0, 2.0, 3.0])))


def test_map_fn_gradient():
    def fn(x):
        return reduction_ops.reduce_sum(map_fn(lambda row: math_ops.sin(row) * row[0], x))
    check_gradient(fn, X)

def test_back_prop_false_stops_the_gradient():
    x = const(np.array([1.0, 2.0]))
    for fn in (lambda x: map_fn(lambda v: v * v, x, back_prop=False),
               lambda x: scan(lambda a, v: a * v, x, back_prop=False),
               lambda x: foldl(lambda a, v: a * v, x, back_prop=False),
               lambda x: foldr(lambda a, v: a * v, x, back_prop=False)):
        with GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        assert tape.gradient(y, x) is None

# -- scan / foldl / foldr ---------------------------------------------------------------------


def test_scan_is_a_running_accumulation():
    v = np.array([1.0, 2.0, 3.0, 4.0])
    for out in both(lambda x: scan(lambda acc, e: acc + e, x), const(v)):
        np.testing.assert_allclose(out, np.cumsum(v))


def test_scan_with_an_initializer_leaves_it_out_of_the_results():
    v = np.array([1.0, 2.0, 3.0])
    for out in both(lambda x: scan(lambda acc, e: acc * e, x, initializer=const(2.0, F64)),
                    const(v)):
        np.testing.assert_allclose(out, 2 * np.cumprod(v))


def test_scan_reverse_accumulates_from_the_last_element():
    v = np.array([1.0, 2.0, 3.0])
    for out in both(lambda x: scan(lambda acc, e: acc + e, x, reverse=True), const(v)):
        np.testing.assert_allclose(out, [6.0, 5.0, 3.0])
    for out in both(lambda x: scan(lambda acc, e: acc - e, x, initializer=const(0.0, F64),
                                   reverse=True), const(v)):
        np.testing.assert_allclose(out, [-6.0, -5.0, -3.0])


def test_scan_with_a_nested_accumulator():
    v = np.array([1.0, 2.0, 3.0])

    def fn(x):
        init = {"sum": const(0.0, F64), "count": const(0, dtypes.int32)}
        return scan(lambda acc, e: {"sum": acc["sum"] + e, "count": acc["count"] + 1}, x,
                    initializer=init)
    for out in both(fn, const(v)):
        np.testing.assert_allclose(out["sum"], [1.0, 3.0, 6.0])
        np.testing.assert_array_equal(out["count"], [1, 2, 3])


def test_scan_of_nothing_without_an_initializer_is_an_error():
    with pytest.raises(ValueError, match="no initializer"):
        scan(lambda acc, e: acc + e, const(np.zeros(0)))


def test_scan_is_one_while_op():
    assert sum("While" in op for op in op_types(
        lambda x: scan(lambda acc, e: acc + e, x), const(np.arange(5.0)))) == 1


def test_scan_gradient():
    def fn(x):
        return reduction_ops.reduce_sum(scan(lambda acc, e: math_ops.tanh(acc * 1.5 + e), x))
    check_gradient(fn, X)


def test_foldl_and_foldr_visit_in_opposite_orders():
    v = np.array([1.0, 2.0, 3.0])
    for out in both(lambda x: foldl(lambda acc, e: acc - e, x), const(v)):
        np.testing.assert_allclose(out, 1.0 - 2.0 - 3.0)
    for out in both(lambda x: foldr(lambda acc, e: acc - e, x), const(v)):
        np.testing.assert_allclose(out, 3.0 - 2.0 - 1.0)
    for out in both(lambda x: foldl(lambda acc, e: acc * 10 + e, x,
                                    initializer=const(0.0, F64)), const(v)):
        np.testing.assert_allclose(out, 123.0)
    for out in both(lambda x: foldr(lambda acc, e: acc * 10 + e, x,
                                    initializer=const(0.0, F64)), const(v)):
        np.testing.assert_allclose(out, 321.0)


def test_foldr_gradient():
    check_gradient(lambda x: foldr(lambda acc, e: acc * math_ops.sin(e) + e,
                                   x, initializer=const(0.5, F64)), np.array([0.3, -0.8, 1.1]))

# -- vectorized_map ---------------------------------------------------------------------------


def test_vectorized_map_takes_the_result_structure_from_fn():
    def fn(x):
        return vectorized_map(lambda row: {"norm": reduction_ops.reduce_sum(row * row),
                                           "first": row[0]}, x)
    for out in both(fn, const(X)):
        np.testing.assert_allclose(out["norm"], (X * X).sum(axis=1))
        np.testing.assert_allclose(out["first"], X[:, 0])


def test_vectorized_map_in_a_function_is_one_while_op():
    ops = op_types(lambda x: vectorized_map(lambda row: row * 2.0, x), const(X))
    assert sum("While" in op for op in ops) == 1


def test_vectorized_map_gradient():
    check_gradient(lambda x: reduction_ops.reduce_sum(
        vectorized_map(lambda row: math_ops.exp(row) * row[1], x)), X)

# -- switch_case / case -----------------------------------------------------------------------


BRANCHES = [lambda: const(1.0), lambda: const(10.0), lambda: const(100.0)]


@pytest.mark.parametrize("index,expected", [(0, 1.0), (1, 10.0), (2, 100.0), (3, 100.0),
                                            (-1, 100.0)])
def test_switch_case_out_of_range_runs_the_last_branch(index, expected):
    assert switch_case(index, BRANCHES).numpy() == expected
    assert switch_case(const(index), BRANCHES).numpy() == expected
    assert traced(lambda i: switch_case(i, BRANCHES))(const(index)).numpy() == expected


@pytest.mark.parametrize("index,expected", [(0, 1.0), (2, 100.0), (3, -1.0), (-5, -1.0)])
def test_switch_case_out_of_range_runs_the_default(index, expected):
    def fn(i):
        return switch_case(i, BRANCHES, default=lambda: const(-1.0))
    assert fn(index).numpy() == expected
    assert traced(fn)(const(index)).numpy() == expected


def test_switch_case_branches_may_return_structures():
    def fn(i):
        return switch_case(i, [lambda: {"a": const(1.0), "b": (const(2),)},
                               lambda: {"a": const(3.0), "b": (const(4),)}])
    out = traced(fn)(const(1))
    assert out["a"].numpy() == 3.0 and out["b"][0].numpy() == 4


def test_switch_case_with_a_python_index_runs_only_that_branch():
    ran = []
    switch_case(1, [lambda: ran.append(0) or const(0), lambda: ran.append(1) or const(1)])
    assert ran == [1]


def test_switch_case_accepts_a_dict_and_index_pairs():
    for fns in ({1: BRANCHES[1], 0: BRANCHES[0]}, [(1, BRANCHES[1]), (0, BRANCHES[0])]):
        assert traced(lambda i: switch_case(i, fns))(const(0)).numpy() == 1.0


def test_switch_case_refuses_gaps_in_the_indices_and_float_indices():
    with pytest.raises(ValueError, match=r"range \[0, 2\)"):
        switch_case(0, {0: BRANCHES[0], 2: BRANCHES[1]})
    with pytest.raises(TypeError, match="int32 or int64"):
        switch_case(const(1.0), BRANCHES)


def test_switch_case_gradient_flows_through_the_chosen_branch():
    def fn(x):
        return switch_case(const(1), [lambda: x * 2.0, lambda: math_ops.sin(x) * x,
                                      lambda: x])

    def staged(x):
        index = array_ops.identity(const(1))
        return switch_case(index, [lambda: x * 2.0, lambda: math_ops.sin(x) * x, lambda: x])
    check_gradient(fn, np.array(0.7))
    check_gradient(staged, np.array(0.7))


def _classify(a):
    return case([(a < 0, lambda: a * -1.0), (a > 10, lambda: a * 0.0)],
                default=lambda: a + 0.5)


@pytest.mark.parametrize("value,expected", [(-3.0, 3.0), (30.0, 0.0), (4.0, 4.5)])
def test_case_runs_the_first_true_predicate_else_the_default(value, expected):
    assert _classify(const(value)).numpy() == expected
    assert traced(_classify)(const(value)).numpy() == expected


def test_case_takes_the_first_true_predicate_when_not_exclusive():
    fn = traced(lambda a: case([(a > 0, lambda: a * 1.0), (a > 1, lambda: a * 2.0)]))
    assert fn(const(5.0)).numpy() == 5.0


def test_case_without_default_requires_a_true_predicate():
    fn = traced(lambda a: case([(a < 0, lambda: a * -1.0), (a > 10, lambda: a * 0.0)]))
    assert fn(const(20.0)).numpy() == 0.0
    with pytest.raises(errors.InvalidArgumentError, match="none of the predicates"):
        fn(const(3.0))


def test_case_exclusive_refuses_two_true_predicates():
    fn = traced(lambda a: case([(a < 0, lambda: a * -1.0), (a < 10, lambda: a * 0.0)],
                               exclusive=True))
    assert fn(const(5.0)).numpy() == 0.0
    with pytest.raises(errors.InvalidArgumentError, match="more than one"):
        fn(const(-5.0))


def test_case_with_python_predicates_runs_in_python():
    assert case([(False, lambda: 1), (True, lambda: 2)], default=lambda: 3) == 2


def test_case_gradient():
    check_gradient(lambda x: case([(x > 1.0, lambda: x * x), (x > 0.0, lambda: math_ops.sin(x))],
                                  default=lambda: x * 3.0), np.array(0.5))

# -- custom_gradient --------------------------------------------------------------------------


@custom_gradient
def _half_gradient_square(x):
    def grad(dy):
        return dy * x  # half the true gradient 2x: shows that grad_fn is used
    return x * x, grad


def test_custom_gradient_replaces_the_gradient_everywhere():
    def fn(x):
        return reduction_ops.reduce_sum(_half_gradient_square(x))
    check_gradient(fn, np.array([0.5, -2.0]),
                   reference=lambda a: 0.5 * float(np.sum(a * a)))


def test_custom_gradient_inside_a_loop_body():
    def fn(x):
        return reduction_ops.reduce_sum(map_fn(_half_gradient_square, x))
    check_gradient(fn, np.array([0.5, -2.0, 1.5]),
                   reference=lambda a: 0.5 * float(np.sum(a * a)))


def test_custom_gradient_values_are_fs():
    np.testing.assert_allclose(_half_gradient_square(const([3.0])).numpy(), [9.0])


def test_custom_gradient_with_variables():
    w = Variable(np.array([2.0, 3.0]))

    @custom_gradient
    def scale(x):
        def grad(dy, variables=None):
            assert variables == [w]
            return dy * w * 10.0, [dy * x * 100.0]
        return x * w, grad
    x = const([1.0, 4.0], F64)
    for fn in (scale, traced(scale)):
        with GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        gx, gw = tape.gradient(y, [x, w])
        np.testing.assert_allclose(gx.numpy(), [20.0, 30.0])
        np.testing.assert_allclose(gw.numpy(), [100.0, 400.0])


def test_custom_gradient_reading_variables_needs_a_variables_keyword():
    w = Variable(np.array([2.0]))

    @custom_gradient
    def scale(x):
        return x * w, lambda dy: dy
    with GradientTape() as tape, pytest.raises(TypeError, match="keyword argument 'variables'"):
        tape.watch(w)
        scale(const([1.0], F64))


def test_custom_gradient_must_return_a_grad_fn():
    @custom_gradient
    def bad(x):
        return x
    with pytest.raises(TypeError, match="must return"):
        bad(const(1.0))

# -- numpy_function ---------------------------------------------------------------------------


def test_numpy_function_gets_numpy_arrays_on_every_call():
    seen = []

    def body(a):
        seen.append(type(a))
        return np.sort(a)[::-1]
    fn = traced(lambda x: numpy_function(body, [x], F64))
    for _ in range(2):
        np.testing.assert_allclose(fn(const([2.0, 3.0, 1.0])).numpy(), [3.0, 2.0, 1.0])
    assert seen[-2:] == [np.ndarray, np.ndarray] and len(seen) == 2


def test_numpy_function_with_several_outputs_and_none():
    a, b = numpy_function(lambda x: (x + 1, (x * 2).astype(np.int32)), [const([1.0])],
                          [dtypes.float32, dtypes.int32])
    assert a.numpy().tolist() == [2.0] and b.numpy().tolist() == [2]
    assert numpy_function(lambda x: None, [const(1.0)], None) is None


def test_numpy_function_passes_no_gradient():
    x = const([1.0, 2.0], F64)
    with GradientTape() as tape:
        tape.watch(x)
        y = numpy_function(lambda a: a * 2, [x], F64)
    assert tape.gradient(y, x) is None


def test_numpy_function_stateless_unused_result_is_dropped():
    ran = []

    def fn(x):
        numpy_function(lambda a: ran.append(1) or a, [x], F64, stateful=False)
        numpy_function(lambda a: ran.append(2) or a, [x], F64)
        return x
    traced(fn)(const([1.0], F64))
    assert ran == [2]
