"""SparseTensor and RaggedTensor in the runtime alone: their ops against numpy, the errors
(naming the op, the offending entry, the operands' dtypes and shapes), gradients through
their values, and how Functions and staged while/cond carry them as component tensors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from runtime import dtypes, errors, function, nest
from runtime import shape as shape_lib
from runtime.composite import ragged, sparse, sparse_math
from runtime.composite.ragged import RaggedTensor, RaggedTensorSpec
from runtime.composite.sparse import SparseTensor, SparseTensorSpec
from runtime.functional import control_flow as functional
from runtime.gradients import GradientTape
from runtime.ops import array_ops, concat_split_ops, math_ops, reduction_ops
from runtime.variables import Variable

DENSE = np.array([[0.0, 1.5, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, -3.0]],
                 np.float32)


def sample():
    return SparseTensor([[0, 1], [2, 0], [2, 3]], [1.5, 2.0, -3.0], [3, 4])


# -- SparseTensor eagerly ---------------------------------------------------------------------


def test_sparse_tensor_components_shape_and_dtype():
    st = sample()
    assert st.indices.dtype is dtypes.int64 and st.dense_shape.dtype is dtypes.int64
    assert st.shape.as_list() == [3, 4]
    assert st.dtype is dtypes.float32
    np.testing.assert_array_equal(st.values.numpy(), [1.5, 2.0, -3.0])


def test_to_dense_and_from_dense_round_trip():
    np.testing.assert_array_equal(sparse.to_dense(sample()).numpy(), DENSE)
    st = sparse.from_dense(DENSE)
    np.testing.assert_array_equal(st.indices.numpy(), [[0, 1], [2, 0], [2, 3]])
    np.testing.assert_array_equal(st.values.numpy(), [1.5, 2.0, -3.0])
    np.testing.assert_array_equal(st.dense_shape.numpy(), [3, 4])


def test_to_dense_with_default_value():
    out = sparse.to_dense(sample(), default_value=7.0).numpy()
    np.testing.assert_array_equal(out, np.where(DENSE == 0, 7.0, DENSE))


@pytest.mark.parametrize("indices, message", [
    ([[2, 0], [0, 1]], r"indices\[1\] = \[0, 1\] is out of order"),
    ([[0, 1], [0, 1]], r"indices\[1\] = \[0, 1\] is repeated"),
    ([[0, 1], [3, 0]], r"indices\[1\] = \[3, 0\] is out of bounds: need 0 <= index < \[3, 4\]"),
])
def test_to_dense_names_the_bad_index_the_op_and_the_operands(indices, message):
    st = SparseTensor(indices, [1.0, 2.0], [3, 4])
    with pytest.raises(errors.InvalidArgumentError, match=message) as info:
        sparse.to_dense(st)
    assert "SparseToDense" in str(info.value)
    assert "int64 (2, 2), float32 (2,), int64 (2,)" in str(info.value)


def test_to_dense_without_validation_accepts_unordered_indices():
    st = SparseTensor([[2, 0], [0, 1]], [1.0, 2.0], [3, 4])
    out = sparse.to_dense(st, validate_indices=False).numpy()
    assert out[2, 0] == 1.0 and out[0, 1] == 2.0


def test_sparse_tensor_refuses_mismatched_components():
    with pytest.raises(ValueError, match="2 index rows but 3 values"):
        SparseTensor([[0, 0], [1, 1]], [1.0, 2.0, 3.0], [2, 2])
    with pytest.raises(ValueError, match="3 columns but dense_shape has 2"):
        SparseTensor([[0, 0, 0]], [1.0], [2, 2])
    with pytest.raises(TypeError, match="indices must be integers"):
        SparseTensor([[0.5, 0]], [1.0], [2, 2])


def test_sparse_add_of_two_sparse_tensors_stores_the_union():
    a = SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [2, 3])
    b = SparseTensor([[0, 1], [1, 2]], [10.0, -2.0], [2, 3])
    total = sparse.add(a, b)
    assert isinstance(total, SparseTensor)
    np.testing.assert_array_equal(total.indices.numpy(), [[0, 0], [0, 1], [1, 2]])
    np.testing.assert_array_equal(total.values.numpy(), [1.0, 10.0, 0.0])
    dropped = sparse.add(a, b, threshold=0.5)
    np.testing.assert_array_equal(dropped.indices.numpy(), [[0, 0], [0, 1]])


def test_sparse_add_with_a_dense_operand_is_dense():
    out = sparse.add(sample(), np.ones((3, 4), np.float32))
    np.testing.assert_array_equal(out.numpy(), DENSE + 1)


def test_sparse_add_of_different_dense_shapes_names_both():
    a = SparseTensor([[0, 0]], [1.0], [2, 3])
    b = SparseTensor([[0, 0]], [1.0], [3, 3])
    with pytest.raises(errors.InvalidArgumentError, match=r"SparseAdd.*\[2, 3\] and \[3, 3\]"):
        sparse.add(a, b)


@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 1]])
@pytest.mark.parametrize("keepdims", [False, True])
def test_sparse_reduce_sum_matches_numpy(axis, keepdims):
    out = sparse_math.reduce_sum(sample(), axis=axis, keepdims=keepdims)
    expected = DENSE.sum(axis=None if axis is None else tuple(np.atleast_1d(axis)),
                         keepdims=keepdims)
    np.testing.assert_allclose(out.numpy(), expected)


@pytest.mark.parametrize("adjoint_a", [False, True])
@pytest.mark.parametrize("adjoint_b", [False, True])
def test_sparse_dense_matmul_matches_numpy(adjoint_a, adjoint_b):
    rng = np.random.default_rng(0)
    a = DENSE.T if adjoint_a else DENSE
    st = sparse.from_dense(a)
    b = rng.normal(size=(2, 4) if adjoint_b else (4, 2)).astype(np.float32)
    out = sparse.sparse_dense_matmul(st, b, adjoint_a=adjoint_a, adjoint_b=adjoint_b)
    expected = (a.T if adjoint_a else a) @ (b.T if adjoint_b else b)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)


def test_dense_times_sparse_matmul():
    b = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = sparse.sparse_dense_matmul(b, sparse.from_dense(DENSE))
    np.testing.assert_allclose(out.numpy(), b @ DENSE)


def test_sparse_dense_matmul_names_the_mismatched_shapes():
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"SparseTensorDenseMatMul.*\[3, 4\] sparse matrix by a \[3, 2\]"):
        sparse.sparse_dense_matmul(sample(), np.ones((3, 2), np.float32))


# -- SparseTensor gradients -------------------------------------------------------------------


def test_gradients_flow_through_to_dense_reduce_sum_and_matmul_to_the_values():
    values = Variable([1.5, 2.0, -3.0])
    b = Variable(np.arange(8, dtype=np.float32).reshape(4, 2))
    weights = np.arange(12, dtype=np.float32).reshape(3, 4)
    with GradientTape(persistent=True) as tape:
        st = sample().with_values(values)
        dense_loss = reduction_ops.reduce_sum(math_ops.multiply(sparse.to_dense(st), weights))
        sum_loss = reduction_ops.reduce_sum(sparse_math.reduce_sum(st, axis=1) * 2.0)
        matmul_loss = reduction_ops.reduce_sum(sparse.sparse_dense_matmul(st, b))
    indices = sample().indices.numpy()
    np.testing.assert_allclose(tape.gradient(dense_loss, values).numpy(),
                               weights[indices[:, 0], indices[:, 1]])
    np.testing.assert_allclose(tape.gradient(sum_loss, values).numpy(), [2.0, 2.0, 2.0])
    b_value = b.numpy()
    np.testing.assert_allclose(tape.gradient(matmul_loss, values).numpy(),
                               b_value[indices[:, 1]].sum(axis=1))
    np.testing.assert_allclose(tape.gradient(matmul_loss, b).numpy(),
                               DENSE.T @ np.ones((3, 2), np.float32))


def test_gradients_of_sparse_add_reach_both_operands():
    x = Variable([1.0, 2.0])
    y = Variable([3.0])
    with GradientTape() as tape:
        a = SparseTensor([[0, 0], [1, 1]], x, [2, 2])
        b = SparseTensor([[1, 1]], y, [2, 2])
        total = sparse.add(a, b)
        loss = reduction_ops.reduce_sum(math_ops.multiply(sparse.to_dense(total),
                                                          [[1.0, 0.0], [0.0, 5.0]]))
    gx, gy = tape.gradient(loss, [x, y])
    np.testing.assert_allclose(gx.numpy(), [1.0, 5.0])
    np.testing.assert_allclose(gy.numpy(), [5.0])


def test_gradient_of_from_dense_reaches_the_dense_tensor():
    x = Variable(DENSE)
    with GradientTape() as tape:
        loss = reduction_ops.reduce_sum(sparse.from_dense(x.read_value()).values * 3.0)
    np.testing.assert_allclose(tape.gradient(loss, x).numpy(), np.where(DENSE != 0, 3.0, 0.0))


# -- SparseTensor through Functions -----------------------------------------------------------


def test_a_function_traces_once_per_rank_and_dtype_not_per_stored_count():
    f = function(lambda st: sparse.to_dense(st) * 2.0)
    np.testing.assert_array_equal(f(sample()).numpy(), DENSE * 2)
    other = SparseTensor([[1, 1]], [4.0], [5, 6])
    assert f(other).numpy()[1, 1] == 8.0
    assert f.experimental_get_tracing_count() == 1
    f(SparseTensor([[1, 1, 1]], [4.0], [2, 2, 2]))
    assert f.experimental_get_tracing_count() == 2


def test_a_function_returns_a_sparse_tensor_and_describes_its_argument():
    f = function(lambda st: st.with_values(st.values * 2.0))
    out = f(sample())
    assert isinstance(out, SparseTensor)
    np.testing.assert_array_equal(out.values.numpy(), [3.0, 4.0, -6.0])
    args, _ = f.get_concrete_function(sample()).structured_input_signature
    assert args == (SparseTensorSpec([None, None], dtypes.float32),)


def test_sparse_input_signature_accepts_fitting_values_and_rejects_others():
    f = function(lambda st: sparse_math.reduce_sum(st, axis=0),
                 input_signature=[SparseTensorSpec([None, 4], dtypes.float32)])
    np.testing.assert_array_equal(f(sample()).numpy(), DENSE.sum(axis=0))
    with pytest.raises(TypeError, match="incompatible with input_signature"):
        f(SparseTensor([[0, 0]], [1.0], [3, 5]))
    with pytest.raises(TypeError, match="incompatible with input_signature"):
        f(DENSE)


def test_a_spec_keys_the_same_trace_as_the_values_it_describes():
    f = function(lambda st: sparse.to_dense(st))
    f.get_concrete_function(SparseTensorSpec([None, None], dtypes.float32))
    f(sample())
    assert f.experimental_get_tracing_count() == 1


def test_staged_while_loop_carries_a_sparse_tensor():
    def run(n):
        def body(i, st):
            return i + 1, sparse.add(st, st)
        return functional.while_loop(lambda i, st: i < n, body, (0, sample()))[1]
    out = function(run)(array_ops.constant(3))
    assert isinstance(out, SparseTensor)
    np.testing.assert_array_equal(sparse.to_dense(out).numpy(), DENSE * 8)


def test_staged_cond_merges_sparse_tensors_with_different_stored_counts():
    def pick(flag):
        return functional.cond(flag, lambda: sample(),
                               lambda: SparseTensor([[1, 1]], [9.0], [3, 4]))
    f = function(pick)
    assert f(array_ops.constant(True)).values.shape.as_list() == [3]
    np.testing.assert_array_equal(f(array_ops.constant(False)).values.numpy(), [9.0])


# -- RaggedTensor eagerly ---------------------------------------------------------------------


def test_ragged_constant_structure():
    rt = ragged.constant([[1, 2, 3], [], [4]])
    assert rt.shape.as_list() == [3, None]
    assert rt.dtype is dtypes.int32 and rt.ragged_rank == 1
    np.testing.assert_array_equal(rt.values.numpy(), [1, 2, 3, 4])
    np.testing.assert_array_equal(rt.row_splits.numpy(), [0, 3, 3, 4])
    np.testing.assert_array_equal(rt.row_lengths().numpy(), [3, 0, 1])
    assert rt.to_list() == [[1, 2, 3], [], [4]]


def test_ragged_constant_nested_and_with_uniform_inner_dims():
    rt = ragged.constant([[[1, 2], [3]], [[4]]])
    assert rt.ragged_rank == 2 and rt.shape.as_list() == [2, None, None]
    inner = ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1)
    assert inner.shape.as_list() == [2, None, 2]
    np.testing.assert_array_equal(inner.to_tensor().numpy(),
                                  [[[1, 2], [3, 4]], [[5, 6], [0, 0]]])


def test_ragged_constant_refuses_uneven_nesting():
    with pytest.raises(ValueError, match="nest"):
        ragged.constant([[1, [2]], [3]])


def test_to_tensor_pads_with_the_default_value():
    rt = ragged.constant([[1.0, 2.0], [], [3.0]])
    np.testing.assert_array_equal(rt.to_tensor(-1.0).numpy(),
                                  [[1, 2], [-1, -1], [3, -1]])
    nested = ragged.constant([[[1], [2, 3]], [[4, 5, 6]]])
    np.testing.assert_array_equal(nested.to_tensor().numpy(),
                                  [[[1, 0, 0], [2, 3, 0]], [[4, 5, 6], [0, 0, 0]]])


def test_from_row_lengths_and_from_row_splits():
    values = [1.0, 2.0, 3.0, 4.0]
    by_lengths = RaggedTensor.from_row_lengths(values, [1, 0, 3])
    by_splits = RaggedTensor.from_row_splits(values, [0, 1, 1, 4])
    assert by_lengths.to_list() == by_splits.to_list() == [[1.0], [], [2.0, 3.0, 4.0]]


@pytest.mark.parametrize("make, message", [
    (lambda: RaggedTensor.from_row_splits([1, 2, 3], [1, 3]), "must start at 0, got 1"),
    (lambda: RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 1, 3]), "must not decrease"),
    (lambda: RaggedTensor.from_row_splits([1, 2, 3], [0, 2]), "ends at 2, but there are 3"),
    (lambda: RaggedTensor.from_row_lengths([1, 2, 3], [1, 1]), "sum to 2, but there are 3"),
    (lambda: RaggedTensor.from_row_lengths([1, 2, 3], [4, -1]), r"row_lengths\[1\] = -1"),
])
def test_mismatched_partitions_raise_naming_the_op(make, message):
    with pytest.raises(errors.InvalidArgumentError, match=message) as info:
        make()
    assert "Ragged" in str(info.value) and "int64" in str(info.value)


def test_iterating_and_indexing_rows():
    rt = ragged.constant([[1, 2], [], [3]])
    assert [row.numpy().tolist() for row in rt] == [[1, 2], [], [3]]
    assert rt[2].numpy().tolist() == [3]
    assert rt[-1].numpy().tolist() == [3]
    assert rt[1:].to_list() == [[], [3]]
    nested = ragged.constant([[[1], [2, 3]], [[4]]])
    assert nested[0].to_list() == [[1], [2, 3]]


def test_elementwise_ops_keep_the_partition():
    rt = ragged.constant([[1.0, 2.0], [], [4.0]])
    assert (rt + 1.0).to_list() == [[2.0, 3.0], [], [5.0]]
    assert (2.0 * rt).to_list() == [[2.0, 4.0], [], [8.0]]
    assert (rt - rt).to_list() == [[0.0, 0.0], [], [0.0]]
    assert (rt / 2.0).to_list() == [[0.5, 1.0], [], [2.0]]
    assert (rt * rt).to_list() == [[1.0, 4.0], [], [16.0]]
    assert math_ops.sqrt(rt * rt).to_list() == rt.to_list()
    assert math_ops.cast(rt, dtypes.int32).dtype is dtypes.int32
    assert (-rt).to_list() == [[-1.0, -2.0], [], [-4.0]]
    assert (rt > 1.5).to_list() == [[False, True], [], [True]]
    assert math_ops.maximum(rt, 1.5).to_list() == [[1.5, 2.0], [], [4.0]]


def test_elementwise_op_on_differently_partitioned_operands_names_the_splits():
    a = ragged.constant([[1, 2], [3]])
    b = ragged.constant([[1], [2, 3]])
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"(?s)x values:\n\[2\]\nCorresponding y values:\n\[1\]"):
        a + b


def test_a_dense_operand_not_broadcastable_over_ragged_rows_is_refused():
    rt = ragged.constant([[1.0, 2.0], [3.0]])
    with pytest.raises(errors.InvalidArgumentError, match="Condition x == y did not hold"):
        rt + np.ones((2, 2), np.float32)


def test_gradient_flows_through_to_tensor_to_the_values():
    values = Variable([1.0, 2.0, 3.0])
    with GradientTape() as tape:
        rt = RaggedTensor.from_row_lengths(values, [2, 1])
        loss = reduction_ops.reduce_sum(math_ops.multiply(rt.to_tensor(),
                                                          [[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_allclose(tape.gradient(loss, values).numpy(), [1.0, 2.0, 3.0])


# -- RaggedTensor through Functions -----------------------------------------------------------


def test_a_function_traces_once_per_row_count_not_per_value_count():
    f = function(lambda rt: rt.to_tensor())
    f(ragged.constant([[1, 2], [3]]))
    f(ragged.constant([[1], [2, 3, 4]]))
    assert f.experimental_get_tracing_count() == 1
    f(ragged.constant([[1], [2], [3]]))
    assert f.experimental_get_tracing_count() == 2


def test_a_function_returns_ragged_tensors_and_describes_its_argument():
    f = function(lambda rt: rt * 2)
    assert f(ragged.constant([[1, 2], [3]])).to_list() == [[2, 4], [6]]
    args, _ = f.get_concrete_function(ragged.constant([[1, 2], [3]])) \
        .structured_input_signature
    assert args == (RaggedTensorSpec([2, None], dtypes.int32, 1),)


def test_ragged_input_signature():
    f = function(lambda rt: rt.row_lengths(),
                 input_signature=[RaggedTensorSpec([None, None], dtypes.float32)])
    assert f(ragged.constant([[1.0], [2.0, 3.0]])).numpy().tolist() == [1, 2]
    assert f(ragged.constant([[1.0, 2.0, 3.0]])).numpy().tolist() == [3]
    with pytest.raises(TypeError, match="incompatible with input_signature"):
        f(ragged.constant([[1, 2]]))


def test_staged_while_loop_relaxes_the_row_count_of_a_ragged_variable():
    def run(n):
        def body(i, rt):
            doubled = RaggedTensor.from_row_splits(
                concat_split_ops.concat([rt.values, rt.values], 0),
                concat_split_ops.concat([rt.row_splits, rt.row_splits[1:] + rt.row_splits[-1]], 0))
            return i + 1, doubled
        return functional.while_loop(lambda i, rt: i < n, body,
                                     (0, ragged.constant([[1], [2, 3]])))[1]
    out = function(run)(array_ops.constant(2))
    assert out.to_list() == [[1], [2, 3]] * 4


def test_staged_cond_merges_ragged_tensors():
    def pick(flag):
        return functional.cond(flag, lambda: ragged.constant([[1, 2], [3]]),
                               lambda: ragged.constant([[4], [5], [6, 7]]))
    f = function(pick)
    assert f(array_ops.constant(True)).to_list() == [[1, 2], [3]]
    assert f(array_ops.constant(False)).to_list() == [[4], [5], [6, 7]]


# -- properties -----------------------------------------------------------------------------

_SMALL_INTS = st.integers(-3, 3)


@pytest.mark.property
@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(_SMALL_INTS, min_size=3, max_size=3), min_size=1, max_size=4),
       st.lists(_SMALL_INTS, min_size=6, max_size=6))
def test_sparse_ops_agree_with_their_dense_counterparts(rows, right):
    dense = np.array(rows, np.float32)
    b = np.array(right, np.float32).reshape(3, 2)
    sp = sparse.from_dense(dense)
    np.testing.assert_array_equal(sparse.to_dense(sp).numpy(), dense)
    np.testing.assert_allclose(sparse.sparse_dense_matmul(sp, b).numpy(), dense @ b)
    np.testing.assert_allclose(sparse_math.reduce_sum(sp, axis=0).numpy(), dense.sum(axis=0))
    np.testing.assert_array_equal(sparse.to_dense(sparse.add(sp, sp)).numpy(), 2 * dense)


@pytest.mark.property
@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(_SMALL_INTS, max_size=4), min_size=1, max_size=5))
def test_ragged_constant_to_tensor_and_elementwise_agree_with_python(rows):
    rt = ragged.constant(rows, dtype=dtypes.int32)
    width = max(len(row) for row in rows)
    padded = [row + [0] * (width - len(row)) for row in rows]
    assert rt.to_tensor().numpy().reshape(len(rows), width).tolist() == padded
    assert rt.row_lengths().numpy().tolist() == [len(row) for row in rows]
    assert (rt * rt + 1).to_list() == [[v * v + 1 for v in row] for row in rows]
    assert [row.numpy().tolist() for row in rt] == rows


def test_slices_of_rows_and_numpy_scalars_on_the_left():
    rt = ragged.constant([[1.0, 2.0], [], [3.0], [4.0, 5.0]])
    assert rt[1:3].to_list() == [[], [3.0]]
    assert rt[3:1].to_list() == []
    assert rt[-2:].to_list() == [[3.0], [4.0, 5.0]]
    assert (np.float32(2) * rt).to_list() == [[2.0, 4.0], [], [6.0], [8.0, 10.0]]
    assert (array_ops.constant(1.0) + rt).to_list() == [[2.0, 3.0], [], [4.0], [5.0, 6.0]]


def test_slice_of_rows_of_a_ragged_tensor_with_an_unknown_row_count():
    f = function(lambda rt: rt[1:].row_lengths(),
                 input_signature=[RaggedTensorSpec([None, None], dtypes.float32)])
    assert f(ragged.constant([[1.0], [2.0, 3.0], []])).numpy().tolist() == [2, 0]
    g = function(lambda rt: rt[:5].row_lengths(),
                 input_signature=[RaggedTensorSpec([None, None], dtypes.float32)])
    assert g(ragged.constant([[1.0], [2.0, 3.0]])).numpy().tolist() == [1, 2]


def test_ragged_constant_checks_inner_shape():
    rt = ragged.constant([[[1, 2]], [[3, 4], [5, 6]]], inner_shape=(2,))
    assert rt.ragged_rank == 1 and rt.shape.as_list() == [2, None, 2]
    with pytest.raises(ValueError, match=r"shape \[2\], not inner_shape \[3\]"):
        ragged.constant([[[1, 2]]], inner_shape=(3,))


def test_a_concrete_function_takes_composites_and_refuses_ones_that_do_not_fit():
    f = function(lambda rt, sp: (rt * 2, sparse_math.reduce_sum(sp)))
    concrete = f.get_concrete_function(ragged.constant([[1], [2, 3]]), sample())
    rt, total = concrete(ragged.constant([[4, 5], [6]]), SparseTensor([[1, 1]], [2.0], [2, 2]))
    assert rt.to_list() == [[8, 10], [12]] and total.numpy() == 2.0
    with pytest.raises(TypeError, match="was traced with RaggedTensorSpec"):
        concrete(ragged.constant([[1], [2], [3]]), sample())


def test_ragged_with_variables_and_python_lists_as_dense_operands():
    rt = ragged.constant([[[1.0, 2.0]], [[3.0, 4.0], [5.0, 6.0]]], ragged_rank=1)
    scale = Variable([10.0, 100.0])
    assert (rt * scale).to_list() == [[[10.0, 200.0]], [[30.0, 400.0], [50.0, 600.0]]]
    assert (rt + [1, 2]).to_list() == [[[2.0, 4.0]], [[4.0, 6.0], [6.0, 8.0]]]


@pytest.mark.parametrize("value, invariant, expected", [
    (ragged.constant([[1], [2, 3]]), [None, None], [(None,), (None,)]),
    (ragged.constant([[1], [2, 3]]), [2, None], [(None,), (3,)]),
    (ragged.constant([[[1, 2]], [[3, 4]]], ragged_rank=1), [None, None, 2],
     [(None, 2), (None,)]),
    (ragged.constant([[[1], [2, 3]], [[4]]]), [None, None, None],
     [(None,), (None,), (None,)]),
    (sample(), [None, 4], [(None, 2), (None,), (2,)]),
])
def test_shape_invariant_of_a_composite_gives_one_shape_per_component(value, invariant,
                                                                       expected):
    shapes = value.invariant_leaf_shapes(invariant)
    assert shapes == expected
    leaves = nest.flatten(value)
    assert len(shapes) == len(leaves)
    assert all(shape_lib.is_subtype(leaf._shape_tuple(), shape)
               for leaf, shape in zip(leaves, shapes))


def test_shape_invariant_of_another_rank_is_refused():
    with pytest.raises(ValueError, match="must have its rank, 2"):
        ragged.constant([[1], [2, 3]]).invariant_leaf_shapes([None, None, None])
    with pytest.raises(ValueError, match="has another rank"):
        sample().invariant_leaf_shapes([None])


def test_sparse_add_of_two_dense_operands_is_refused_as_tensorflow_does():
    with pytest.raises(TypeError, match="At least one input should be SparseTensor"):
        sparse.add(array_ops.constant([1.0]), array_ops.constant([2.0]))


def test_a_composite_specs_value_type_is_the_class_it_describes():
    assert SparseTensorSpec([3, 4], dtypes.int32).value_type is SparseTensor
    assert RaggedTensorSpec([2, None], dtypes.int32).value_type is RaggedTensor
