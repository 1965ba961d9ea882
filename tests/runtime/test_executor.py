"""The executor: graph passes (folding, CSE, dead-node elimination), the generated Python, the
treatment of stateful ops, and errors raised while a compiled graph runs.

The passes are observed through `ConcreteFunction.executor_source`, the Python the executor
generated: one line per computed value between the `def` line and the `return` line.
"""

import io
import re
import warnings

import numpy as np
import pytest

from runtime import dtypes, errors, executor, variables
from runtime import signature as signature_lib
from runtime.function import function
from runtime.ops import (
    array_ops,
    io_ops,
    math_ops,
    random_ops,
    reduction_ops,
    selection_ops,
)


def _source(function, *args):
    return function.get_concrete_function(*args).executor_source


def _body(source):
    """The computing lines of generated source (without `def` and `return`)."""
    lines = [line.strip() for line in source.strip().splitlines()]
    assert lines[0].startswith("def ")
    assert lines[-1].startswith("return")
    return lines[1:-1]


def _kernel_calls(source, op_type):
    return len(re.findall(r"\bk_%s_\d+\(" % op_type, source))


def _returned(source):
    """The expressions of the generated function's `return (a, b, )`."""
    inside = re.search(r"^\s*return \((.*)\)\s*$", source, re.M).group(1)
    return [part.strip() for part in inside.split(",") if part.strip()]


# -- the generated function ---------------------------------------------------------------

def test_generated_source_is_a_function_of_the_fed_tensors():
    @function
    def scale(x, y):
        return x * y

    source = _source(scale, array_ops.constant(1.0), array_ops.constant(2.0))
    header = re.match(r"def scale\((\w+), (\w+)\):\n", source)
    assert header, source
    first, second = header.groups()
    assert first != second
    body = _body(source)
    assert len(body) == 1
    assert re.fullmatch(r"\w+ = %s \* %s" % (first, second), body[0]), body


def test_functions_of_many_arguments_pass_attributes_correctly():
    # Every generated parameter and every bound attribute needs its own name.
    @function(autograph=False)
    def f(a, b, c, d, e):
        return (reduction_ops.reduce_sum(a, axis=0, keepdims=False) + b + c + d
                + selection_ops.gather(e, [1, 0]))

    args = [array_ops.constant([[1.0, 2.0], [3.0, 4.0]]), array_ops.constant([10.0, 20.0]),
            array_ops.constant([100.0, 200.0]), array_ops.constant([1000.0, 2000.0]),
            array_ops.constant([0.5, 0.25])]
    expected = (reduction_ops.reduce_sum(args[0], axis=0) + args[1] + args[2] + args[3]
                + selection_ops.gather(
            args[4], [1, 0]))
    np.testing.assert_array_equal(f(*args).numpy(), expected.numpy())


def test_gathers_with_several_index_arguments():
    @function(autograph=False)
    def f(x, i, j):
        return selection_ops.gather(x, i) + selection_ops.gather(x, j)

    assert f(array_ops.constant([1, 2, 3]), array_ops.constant(0),
             array_ops.constant(2)).numpy() == 4
    assert f(array_ops.constant([1, 2, 3]), array_ops.constant(1),
             array_ops.constant(1)).numpy() == 4


def test_identity_nodes_cost_nothing():
    @function
    def f(x):
        return array_ops.identity(array_ops.identity(x)), array_ops.stop_gradient(x)

    source = _source(f, array_ops.constant(1.0))
    assert _body(source) == []
    assert "Identity" not in source


# -- constant folding ---------------------------------------------------------------------

def test_constant_subexpressions_are_folded():
    @function
    def f(x):
        factor = array_ops.constant(2.0) * array_ops.constant(3.0) + 1.0
        return x * factor

    source = _source(f, array_ops.constant(1.0))
    assert len(_body(source)) == 1
    assert f(array_ops.constant(2.0)).numpy() == 14.0


def test_fully_constant_function_has_an_empty_body():
    @function
    def f():
        return (reduction_ops.reduce_sum(array_ops.range(10)) * 2,
                array_ops.constant(0.1) + array_ops.constant(0.2))

    assert _body(_source(f)) == []
    total, point_three = f()
    assert total.dtype is dtypes.int32 and total.numpy() == 90
    assert point_three.dtype is dtypes.float32
    assert point_three.numpy() == (array_ops.constant(0.1) + array_ops.constant(0.2)).numpy()


def test_folded_values_keep_their_dtype():
    @function
    def f():
        return (array_ops.constant(7) // array_ops.constant(2),
                math_ops.cast(array_ops.constant(3), dtypes.int64) * 2)

    a, b = f()
    assert a.dtype is dtypes.int32 and a.numpy() == 3 and isinstance(a.numpy(), np.int32)
    assert b.dtype is dtypes.int64 and b.numpy() == 6 and isinstance(b.numpy(), np.int64)


def test_captured_eager_tensors_are_folded_like_constants():
    table = array_ops.constant([1.0, 2.0, 3.0])

    @function
    def f(x):
        return x + reduction_ops.reduce_sum(table * 2.0)

    source = _source(f, array_ops.constant(0.0))
    assert len(_body(source)) == 1
    assert f(array_ops.constant(1.0)).numpy() == 13.0


def test_shape_queries_fold_when_the_shape_is_known():
    @function
    def f(x):
        return x * math_ops.cast(array_ops.size(x), dtypes.float32) + \
            math_ops.cast(array_ops.rank(x), dtypes.float32) + \
            math_ops.cast(array_ops.shape(x)[0], dtypes.float32)

    known = _source(f, array_ops.ones([2, 3]))
    assert _kernel_calls(known, "Size") == 0
    assert _kernel_calls(known, "Rank") == 0
    assert _kernel_calls(known, "Shape") == 0
    np.testing.assert_array_equal(f(array_ops.ones([2, 3])).numpy(), np.full((2, 3), 10.0))


def test_shape_queries_run_when_the_shape_is_unknown():
    @function
    def f(x):
        return x * math_ops.cast(array_ops.size(x), dtypes.float32)

    cf = f.get_concrete_function(signature_lib.TensorSpec([None]))
    assert _kernel_calls(cf.executor_source, "Size") == 1
    np.testing.assert_array_equal(cf(array_ops.ones([4])).numpy(), np.full(4, 4.0))
    np.testing.assert_array_equal(cf(array_ops.ones([2])).numpy(), np.full(2, 2.0))


# -- common-subexpression elimination -------------------------------------------------------

def test_identical_expressions_are_computed_once():
    @function
    def f(x, y):
        return (x * y) + (x * y)

    body = _body(_source(f, array_ops.constant(1.0), array_ops.constant(2.0)))
    assert len(body) == 2
    assert f(array_ops.constant(3.0), array_ops.constant(2.0)).numpy() == 12.0


def test_identical_expressions_with_equal_python_constants_are_computed_once():
    @function
    def f(x):
        return x * 2.0 + x * 2.0

    body = _body(_source(f, array_ops.constant(1.0)))
    assert len(body) == 2, body
    assert f(array_ops.constant(3.0)).numpy() == 12.0


def test_identical_reductions_are_merged_but_different_attributes_are_not():
    @function
    def f(x):
        return (reduction_ops.reduce_sum(x, axis=0), reduction_ops.reduce_sum(x, axis=1),
                reduction_ops.reduce_sum(x, axis=0))

    source = _source(f, array_ops.ones([2, 3]))
    assert len(_body(source)) == 2, source  # one reduction per distinct axis
    first, second, third = _returned(source)
    assert first == third != second
    a, b, c = f(array_ops.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    np.testing.assert_array_equal(a.numpy(), [5, 7, 9])
    np.testing.assert_array_equal(b.numpy(), [6, 15])
    np.testing.assert_array_equal(c.numpy(), [5, 7, 9])


def test_expressions_with_different_constants_are_not_merged():
    @function
    def f(x):
        return x + 1.0, x + 2.0

    assert len(_body(_source(f, array_ops.constant(0.0)))) == 2
    a, b = f(array_ops.constant(0.0))
    assert (a.numpy(), b.numpy()) == (1.0, 2.0)


def test_merging_follows_chains_of_duplicates():
    @function
    def f(x):
        a = math_ops.exp(x) + 1.0
        b = math_ops.exp(x) + 1.0
        return a * b

    source = _source(f, array_ops.constant(0.0))
    assert _kernel_calls(source, "Exp") == 1
    assert f(array_ops.constant(0.0)).numpy() == 4.0


# -- dead-node elimination ------------------------------------------------------------------

def test_unused_pure_ops_are_dropped():
    @function
    def f(x):
        math_ops.exp(x)
        unused = reduction_ops.reduce_sum(x) * 3.0  # noqa: F841
        return x + 1.0

    source = _source(f, array_ops.constant(1.0))
    assert _kernel_calls(source, "Exp") == 0
    assert _kernel_calls(source, "Sum") == 0
    assert len(_body(source)) == 1


def test_ops_feeding_only_dead_ops_are_dropped():
    @function
    def f(x):
        a = math_ops.tanh(x)
        math_ops.exp(a)
        return x

    assert _body(_source(f, array_ops.constant(1.0))) == []


# -- stateful and side-effecting ops -------------------------------------------------------------

def test_random_ops_with_constant_inputs_are_not_folded():
    @function
    def f():
        return random_ops.uniform([4])

    assert _kernel_calls(_source(f), "RandomUniform") == 1
    assert not np.array_equal(f().numpy(), f().numpy())


def test_identical_random_ops_are_not_merged():
    @function
    def f():
        return random_ops.uniform([8]), random_ops.uniform([8])

    assert _kernel_calls(_source(f), "RandomUniform") == 2
    a, b = f()
    assert not np.array_equal(a.numpy(), b.numpy())


def test_variable_reads_are_not_folded_or_merged_across_assignments():
    v = variables.Variable(1.0)

    @function
    def f():
        before = v.read_value()
        v.assign_add(1.0)
        after = v.read_value()
        return before, after, before + after

    results = [t.numpy() for t in f()]
    assert results == [1.0, 2.0, 3.0]
    results = [t.numpy() for t in f()]
    assert results == [2.0, 3.0, 5.0]


def test_two_reads_of_one_variable_stay_two_reads():
    v = variables.Variable(2.0)

    @function
    def f():
        return v.read_value() * v.read_value()

    source = _source(f)
    assert len([line for line in _body(source) if "_value" in line or "ReadVariable" in line]) == 2
    assert f().numpy() == 4.0


def test_assignments_whose_results_are_unused_still_run():
    v = variables.Variable(0)

    @function
    def f():
        v.assign_add(5)
        v.assign_sub(2)
        return array_ops.constant(0)

    f()
    f()
    assert v.numpy() == 6


def test_tf_print_is_never_dropped_and_prints_in_program_order():
    stream = io.StringIO()
    v = variables.Variable(1)

    @function
    def f(x):
        io_ops.print_("first", x, output_stream=stream)
        v.assign(x * 10)
        io_ops.print_("second", v, output_stream=stream)
        v.assign(x * 100)
        io_ops.print_("third", v.read_value(), output_stream=stream)
        return array_ops.constant(0)

    f(array_ops.constant(1))
    f(array_ops.constant(2))
    assert stream.getvalue().splitlines() == [
        "first 1", "second 10", "third 100", "first 2", "second 20", "third 200"]


def test_identical_prints_are_not_merged():
    stream = io.StringIO()

    @function
    def f(x):
        io_ops.print_(x, output_stream=stream)
        io_ops.print_(x, output_stream=stream)
        return x

    f(array_ops.constant(5))
    assert stream.getvalue() == "5\n5\n"


def test_stateful_ops_keep_program_order_relative_to_reads():
    v = variables.Variable(0.0)
    stream = io.StringIO()

    @function
    def f():
        io_ops.print_(v.read_value(), output_stream=stream)
        v.assign_add(1.0)
        io_ops.print_(v.read_value(), output_stream=stream)
        v.assign_add(1.0)
        return v.read_value()

    assert f().numpy() == 2.0
    assert stream.getvalue() == "0\n1\n"


def test_side_effects_whose_inputs_are_folded_still_run():
    stream = io.StringIO()

    @function
    def f():
        io_ops.print_(array_ops.constant(2) * 3, output_stream=stream)
        return array_ops.constant(1)

    f()
    f()
    assert stream.getvalue() == "6\n6\n"


# -- errors while running ----------------------------------------------------------------------


def test_runtime_error_does_not_end_in_generated_code():
    @function
    def f(x, i):
        return selection_ops.gather(x, i)

    with pytest.raises(errors.InvalidArgumentError) as info:
        f(array_ops.constant([1.0]), array_ops.constant(3))
    assert info.value.__cause__ is None


def test_a_failed_call_leaves_the_function_usable():
    @function
    def f(x, i):
        return selection_ops.gather(x, i)

    with pytest.raises(errors.InvalidArgumentError):
        f(array_ops.constant([1, 2]), array_ops.constant(2))
    assert f(array_ops.constant([1, 2]), array_ops.constant(1)).numpy() == 2
    assert f.experimental_get_tracing_count() == 1


def test_graphs_writing_the_same_source_compile_it_once_and_keep_their_own_file(
        monkeypatch):
    compiled_files = []

    def counting_compile(source, filename, mode):
        compiled_files.append(filename)
        return compile(source, filename, mode)
    monkeypatch.setattr(executor, "compile", counting_compile, raising=False)
    monkeypatch.setattr(executor, "_compiled_sources", {})

    def pick(x, i):
        return selection_ops.gather(x, i) * 2.0

    x = array_ops.constant([1.0, 2.0])
    first, second = function(pick), function(pick)  # two traces, the same generated source
    assert first(x, array_ops.constant(1)).numpy() == second(x, array_ops.constant(1)).numpy()
    graphs = [f.get_concrete_function(x, array_ops.constant(1))._compiled for f in (first,
                                                                                     second)]
    assert graphs[0].source == graphs[1].source and graphs[0].filename != graphs[1].filename
    assert compiled_files == [graphs[0].filename]
    for graph in graphs:
        assert graph.run.__code__.co_filename == graph.filename
    with pytest.raises(errors.InvalidArgumentError) as info:  # its line maps to its node
        second(x, array_ops.constant(5))
    assert "graph node" in str(info.value) and "GatherV2" in str(info.value)
    assert "in user code" in str(info.value) and "test_executor.py" in str(info.value)


def test_runtime_integer_division_by_zero_is_invalid_argument():
    @function
    def f(x, y):
        return x // y

    with pytest.raises(errors.InvalidArgumentError, match="FloorDiv"):
        f(array_ops.constant([4]), array_ops.constant([0]))


# -- the executor's fast forms give the kernels' results ------------------------------------
#
# Ops write faster Python than a kernel call where what is known before running allows it
# (see the `emit` hooks in runtime/ops/math_ops/ and the While lowering): `x % c` and
# `x // c` for integers and a non-zero constant, `==` for numbers, `np.add.reduce` for sums,
# numpy scalars for rank-0 constants and loop values. Results, errors and warnings must be
# those of the kernels.

INT32_MIN = np.iinfo(np.int32).min
INTEGER_DTYPES = pytest.mark.parametrize("dtype", [dtypes.int32, dtypes.int64],
                                         ids=["int32", "int64"])


@pytest.fixture
def warnings_are_errors():
    """Any warning (numpy's overflow warnings included) fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


@INTEGER_DTYPES
@pytest.mark.parametrize("divisor", [15, 3, -4, 1])
def test_integer_mod_and_floordiv_by_a_constant_are_operators(dtype, divisor):
    @function
    def f(x):
        return x % divisor, x // divisor

    values = np.array([-17, -15, -1, 0, 1, 14, 15, 16, 1000], dtype.np_dtype)
    for value in (values, values[0], values[-1]):  # arrays and rank-0 tensors
        x = array_ops.constant(value)
        source = _source(f, x)
        assert _kernel_calls(source, "FloorMod") == 0 and _kernel_calls(source, "FloorDiv") == 0
        assert " % c" in source and " // c" in source, source
        mod, div = f(x)
        eager_mod, eager_div = x % divisor, x // divisor
        for got, expected, reference in ((mod, eager_mod, np.mod(value, divisor)),
                                         (div, eager_div, np.floor_divide(value, divisor))):
            assert got.dtype is dtype and expected.dtype is dtype
            assert got.numpy().dtype == reference.dtype
            np.testing.assert_array_equal(got.numpy(), expected.numpy())
            np.testing.assert_array_equal(got.numpy(), reference)


@pytest.mark.parametrize("op, message", [(lambda x: x % 0, "integer modulo by zero"),
                                         (lambda x: x // 0, "integer division by zero")],
                         ids=["mod", "floordiv"])
@pytest.mark.parametrize("value", [7, [7, 8]], ids=["scalar", "array"])
def test_integer_division_by_a_zero_constant_still_raises(op, message, value):
    f = function(lambda x: op(x), autograph=False)
    with pytest.raises(errors.InvalidArgumentError, match=message):
        f(array_ops.constant(value))


@pytest.mark.parametrize("divisor", [0, [3, 0]], ids=["scalar", "array"])
def test_integer_division_by_a_zero_tensor_still_raises(divisor):
    @function
    def f(x, y):
        return x % y, x // y

    x = array_ops.constant([7, 8])
    source = _source(f, x, array_ops.constant(divisor))
    assert _kernel_calls(source, "FloorMod") == 1 and _kernel_calls(source, "FloorDiv") == 1
    with pytest.raises(errors.InvalidArgumentError, match="FloorMod.*integer modulo by zero"):
        f(x, array_ops.constant(divisor))
    mod, div = f(x, array_ops.constant([3, 3] if isinstance(divisor, list) else 3))
    np.testing.assert_array_equal(mod.numpy(), [1, 2])
    np.testing.assert_array_equal(div.numpy(), [2, 2])


@pytest.mark.parametrize("value", [INT32_MIN, [INT32_MIN, 5]], ids=["scalar", "array"])
def test_minimum_integer_divided_by_minus_one_wraps_silently(value, warnings_are_errors):
    @function
    def f(x):
        return x // -1, x % -1

    div, mod = f(array_ops.constant(value, dtypes.int32))
    np.testing.assert_array_equal(div.numpy(), np.negative(np.array(value, np.int32)))
    np.testing.assert_array_equal(mod.numpy(), np.zeros_like(value))


def test_float_mod_keeps_the_kernel_and_its_silence(warnings_are_errors):
    @function
    def f(x):
        return x % 0.0, x % 2.0

    zero, two = f(array_ops.constant([1.5, -1.5]))
    assert np.isnan(zero.numpy()).all()
    np.testing.assert_array_equal(two.numpy(), [1.5, 0.5])
    assert _kernel_calls(_source(f, array_ops.constant([1.5])), "FloorMod") == 2


def test_integer_overflow_outside_loops_wraps_silently(warnings_are_errors):
    @function
    def f(x):
        y = x * 65536
        return y * 65536 + 1, -(y * 32768)

    a, b = f(array_ops.constant(3))
    assert a.numpy() == 1 and b.numpy() == INT32_MIN
    assert "errstate" not in _source(f, array_ops.constant(3))  # straight-line code pays nothing


_SCALAR_OPS = {
    "add": lambda x, c: x + c, "sub": lambda x, c: x - c, "mul": lambda x, c: x * c,
    "mod": lambda x, c: x % c, "floordiv": lambda x, c: x // c,
    "less": lambda x, c: x < c, "greater_equal": lambda x, c: x >= c,
    "equal": lambda x, c: math_ops.equal(x, c), "not_equal": lambda x, c: math_ops.not_equal(x, c),
}


@pytest.mark.parametrize("dtype", [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64],
                         ids=lambda d: d.name)
@pytest.mark.parametrize("name", sorted(_SCALAR_OPS))
def test_rank0_scalar_path_and_array_path_agree(name, dtype):
    op = _SCALAR_OPS[name]
    constant = 3 if dtype.is_integer else 0.375

    def straight(x):  # arguments arrive as 0-d arrays
        return op(x, constant)

    def chained(x):  # results of ops on rank-0 values are numpy scalars
        return op(x + x - x, constant)

    def looped(x):  # inside a loop every value is a numpy scalar
        y = op(x, constant)
        for _ in array_ops.range(2):
            y = op(x, constant)
        return y

    for value in (-7, 5, 6):
        scalar = array_ops.constant(value, dtype)
        array = array_ops.constant([value], dtype)
        eager = op(scalar, constant)
        for fn in (straight, chained, looped):
            f = function(fn)
            from_scalar, from_array = f(scalar), f(array)
            assert from_scalar.dtype is eager.dtype is from_array.dtype
            assert from_scalar.shape == () and from_array.shape == (1,)
            assert type(from_scalar.numpy()) is type(eager.numpy())
            assert from_scalar.numpy() == eager.numpy() == from_array.numpy()[0]


@pytest.mark.parametrize("reduce",
                         [reduction_ops.reduce_sum, reduction_ops.reduce_prod,
                          reduction_ops.reduce_max,
                          reduction_ops.reduce_min], ids=lambda r: r.__name__)
@pytest.mark.parametrize("axis, keepdims", [(None, False), (0, False), (1, True), ([0, 1], True)])
@pytest.mark.parametrize("dtype", [dtypes.int32, dtypes.float32, dtypes.float64],
                         ids=lambda d: d.name)
def test_reductions_written_as_ufunc_reduce_match_the_kernels(reduce, axis, keepdims, dtype):
    value = np.array([[3, -7, 1000], [65536, 2, -5]], dtype.np_dtype)  # int32 prod overflows
    f = function(lambda x: reduce(x, axis=axis, keepdims=keepdims), autograph=False)
    assert "k_" not in _source(f, array_ops.constant(value))
    result, eager = f(array_ops.constant(value)), reduce(array_ops.constant(value), axis=axis,
                                                         keepdims=keepdims)
    assert result.dtype is eager.dtype is dtype
    assert type(result.numpy()) is type(eager.numpy())
    np.testing.assert_array_equal(result.numpy(), eager.numpy())


def test_reductions_of_rank0_tensors():
    for reduce in (reduction_ops.reduce_sum, reduction_ops.reduce_prod, reduction_ops.reduce_max,
                   reduction_ops.reduce_min):
        f = function(lambda x: reduce(x), autograph=False)
        result = f(array_ops.constant(2.5))
        assert result.dtype is dtypes.float32 and result.numpy() == 2.5


def test_max_of_a_possibly_empty_tensor_keeps_the_checking_kernel():
    f = function(lambda x: reduction_ops.reduce_max(x), autograph=False)
    cf = f.get_concrete_function(signature_lib.TensorSpec([None], dtypes.int32))
    assert _kernel_calls(cf.executor_source, "Max") == 1
    assert cf(array_ops.constant([4, 9, 1])).numpy() == 9
    with pytest.raises(errors.InvalidArgumentError, match="empty"):
        cf(array_ops.zeros([0], dtypes.int32))


def test_string_and_bool_equality():
    f = function(lambda a, b: (math_ops.equal(a, b), math_ops.not_equal(a, b)), autograph=False)
    equal, not_equal = f(array_ops.constant(["x", "y"]), array_ops.constant(["x", "z"]))
    np.testing.assert_array_equal(equal.numpy(), [True, False])
    np.testing.assert_array_equal(not_equal.numpy(), [False, True])
    assert _kernel_calls(_source(f, array_ops.constant("x"), array_ops.constant("y")), "Equal") == 1
    equal, not_equal = f(array_ops.constant(True), array_ops.constant(False))
    assert (equal.numpy(), not_equal.numpy()) == (False, True)
    assert equal.dtype is dtypes.bool_
