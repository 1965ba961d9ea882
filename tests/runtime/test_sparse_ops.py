"""The `tf.sparse` functions (runtime.composite.sparse_layout and sparse_math) against
numpy: eagerly and in a Function, TensorFlow's orderings and errors, and gradients to the
stored values against finite differences."""

import numpy as np
import pytest
from numeric_gradients import numeric_gradients

from runtime import dtypes, errors
from runtime.composite import sparse_layout, sparse_math
from runtime.composite.sparse import SparseTensor, SparseTensorSpec, eye, from_dense, to_dense
from runtime.function import function
from runtime.gradients import GradientTape
from runtime.ops import array_ops, math_ops, reduction_ops, reshape_ops


def st(indices, values, shape):
    return SparseTensor(indices, values, shape)


def sample():
    """[[0, 1.5, 0, 0], [0, 0, 0, 0], [2, 0, 0, -3]]"""
    return st([[0, 1], [2, 0], [2, 3]], np.array([1.5, 2.0, -3.0], np.float32), [3, 4])


def dense(value):
    """A result as numpy: a SparseTensor densified (checking its order), else the tensor."""
    if isinstance(value, SparseTensor):
        return to_dense(value).numpy()
    return value.numpy()


def eager_and_traced(fn, *args):
    """fn(*args) eagerly and in a Function whose arguments are the SparseTensors of unknown
    dense shape (by their spec), each as numpy; asserts they agree and returns one."""
    eager = fn(*args)
    specs = [SparseTensorSpec([None] * a.rank, a.dtype) if isinstance(a, SparseTensor)
             else None for a in args]
    traced = function(fn, input_signature=specs) if None not in specs else \
        function(fn)
    staged = traced(*args)
    if isinstance(eager, (list, tuple)):
        pairs = list(zip(eager, staged))
    else:
        pairs = [(eager, staged)]
    for e, s in pairs:
        np.testing.assert_array_equal(dense(e), dense(s))
    return [dense(e) for e, _ in pairs] if isinstance(eager, (list, tuple)) else dense(eager)


# -- layout ---------------------------------------------------------------------------------


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, -3])
def test_expand_dims_inserts_a_dimension_of_size_one(axis):
    got = eager_and_traced(lambda s: sparse_layout.expand_dims(s, axis), sample())
    np.testing.assert_array_equal(got, np.expand_dims(dense(sample()), axis))


def test_expand_dims_keeps_row_major_order_and_the_static_shape():
    out = sparse_layout.expand_dims(sample(), 1)
    assert out.shape.as_list() == [3, 1, 4]
    assert out.indices.numpy().tolist() == [[0, 0, 1], [2, 0, 0], [2, 0, 3]]


def test_expand_dims_without_an_axis_appends_one():
    assert sparse_layout.expand_dims(sample()).shape.as_list() == [3, 4, 1]


def test_expand_dims_refuses_an_axis_out_of_range():
    with pytest.raises(ValueError, match="axis 3 is out of range for a SparseTensor of rank 2"):
        sparse_layout.expand_dims(sample(), 3)


def test_reorder_sorts_indices_row_major_and_moves_the_values():
    shuffled = st([[2, 3], [0, 1], [2, 0]], [3.0, 1.0, 2.0], [3, 4])
    out = sparse_layout.reorder(shuffled)
    assert out.indices.numpy().tolist() == [[0, 1], [2, 0], [2, 3]]
    assert out.values.numpy().tolist() == [1.0, 2.0, 3.0]
    np.testing.assert_array_equal(eager_and_traced(sparse_layout.reorder, shuffled),
                                  to_dense(out).numpy())


def test_reorder_names_an_index_out_of_bounds():
    with pytest.raises(errors.InvalidArgumentError, match=r"indices\[1\] = \[3, 0\] is out"):
        sparse_layout.reorder(st([[0, 0], [3, 0]], [1, 2], [3, 4]))


@pytest.mark.parametrize("perm", [None, [1, 0]])
def test_transpose_permutes_dimensions_in_row_major_order(perm):
    out = sparse_layout.transpose(sample(), perm)
    assert out.indices.numpy().tolist() == [[0, 2], [1, 0], [3, 2]]
    np.testing.assert_array_equal(eager_and_traced(lambda s: sparse_layout.transpose(s, perm),
                                                   sample()), dense(sample()).T)


def test_transpose_of_rank_three():
    values = np.arange(24, dtype=np.float32).reshape(2, 3, 4) % 5
    np.testing.assert_array_equal(
        dense(sparse_layout.transpose(from_dense(values), [2, 0, 1])),
        values.transpose(2, 0, 1))


@pytest.mark.parametrize("shape", [[2, 6], [-1, 3], [12], [2, 2, -1]])
def test_reshape_keeps_row_major_positions(shape):
    got = eager_and_traced(lambda s: sparse_layout.reshape(s, shape), sample())
    np.testing.assert_array_equal(got, dense(sample()).reshape(shape))


def test_reshape_keeps_a_known_shape_static():
    assert sparse_layout.reshape(sample(), [2, 6]).shape.as_list() == [2, 6]


@pytest.mark.parametrize("shape, message", [
    ([5, 2], r"Cannot reshape a tensor with 12 elements to shape \[5, 2\] \(10 elements\)"),
    ([-1, -1], r"At most one dimension can be inferred \(-1\)"),
    ([5, -1], "Cannot reshape a tensor with 12 elements"),
])
def test_reshape_refuses_shapes_of_another_size_while_tracing(shape, message):
    with pytest.raises(ValueError, match=message):
        sparse_layout.reshape(sample(), shape)


@pytest.mark.parametrize("shape, message", [
    ([5, 2], "a tensor with 12 dense values, but the requested shape has 10"),
    ([-1, -1], "only one output dimension may be -1"),
    ([5, -1], "requested shape requires a multiple of 5"),
])
def test_reshape_of_an_unknown_shape_is_checked_when_run(shape, message):
    f = function(lambda s: to_dense(sparse_layout.reshape(s, shape)),
                 input_signature=[SparseTensorSpec([None, None], dtypes.float32)])
    with pytest.raises(errors.InvalidArgumentError, match=message):
        f(sample())


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat_joins_along_an_axis_in_row_major_order(axis):
    other = st([[0, 0], [2, 3]], np.array([7.0, 8.0], np.float32), [3, 4])
    out = sparse_layout.concat(axis, [sample(), other])
    indices = out.indices.numpy()
    order = np.lexsort(indices.T[::-1])
    np.testing.assert_array_equal(order, np.arange(len(indices)))
    got = eager_and_traced(lambda a, b: sparse_layout.concat(axis, [a, b]), sample(), other)
    np.testing.assert_array_equal(got, np.concatenate([dense(sample()), dense(other)], axis))


def test_concat_keeps_a_known_shape_static_and_returns_a_lone_input():
    assert sparse_layout.concat(1, [sample(), sample()]).shape.as_list() == [3, 8]
    lone = sample()
    assert sparse_layout.concat(0, [lone]) is lone


def test_concat_refuses_other_dimensions_that_differ():
    other = st([[0, 0]], np.array([7.0], np.float32), [3, 5])
    with pytest.raises(ValueError, match="differs from sp_inputs\\[0\\]'s \\[3, 4\\] in "
                                         "dimension 1"):
        sparse_layout.concat(0, [sample(), other])


def test_concat_with_expand_nonconcat_dims_grows_them():
    other = st([[0, 4]], np.array([7.0], np.float32), [1, 5])
    out = sparse_layout.concat(0, [sample(), other], expand_nonconcat_dims=True)
    assert out.dense_shape.numpy().tolist() == [4, 5]
    assert out.indices.numpy().tolist()[-1] == [3, 4]


@pytest.mark.parametrize("start, size", [([0, 0], [2, 2]), ([1, 1], [5, 5]), ([2, 0], [1, 4]),
                                         ([3, 4], [1, 1])])
def test_slice_takes_a_box_clipped_to_the_dense_shape(start, size):
    got = eager_and_traced(lambda s: sparse_layout.slice(s, start, size), sample())
    want = dense(sample())[start[0]:start[0] + size[0], start[1]:start[1] + size[1]]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("count, axis", [(2, 1), (3, 1), (3, 0), (4, 1)])
def test_split_gives_the_first_pieces_one_more(count, axis):
    got = eager_and_traced(lambda s: sparse_layout.split(sp_input=s, num_split=count,
                                                         axis=axis), sample())
    want = np.array_split(dense(sample()), count, axis=axis)
    assert [g.shape for g in got] == [w.shape for w in want]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_split_as_tensorflow_documents_it():
    t = st([[0, 2], [0, 4], [0, 5], [1, 0], [1, 1]], [1, 2, 3, 4, 5], [2, 7])
    left, right = sparse_layout.split(sp_input=t, num_split=2, axis=-1)
    assert dense(left).tolist() == [[0, 0, 1, 0], [4, 5, 0, 0]]
    assert dense(right).tolist() == [[2, 3, 0], [0, 0, 0]]
    with pytest.raises(ValueError, match="axis is required"):
        sparse_layout.split(sp_input=t, num_split=2)


def test_retain_keeps_the_marked_values():
    got = eager_and_traced(lambda s: sparse_layout.retain(s, [True, False, True]), sample())
    want = dense(sample())
    want[2, 0] = 0
    np.testing.assert_array_equal(got, want)


def test_retain_refuses_a_mask_of_another_length():
    with pytest.raises(ValueError, match="to_retain has 2 entries but the SparseTensor stores 3"):
        sparse_layout.retain(sample(), [True, False])


def test_reset_shape_to_the_tightest_box_or_a_larger_shape():
    assert sparse_layout.reset_shape(st([[0, 1], [1, 2]], [1, 2], [5, 9])).dense_shape \
        .numpy().tolist() == [2, 3]
    empty = st(np.zeros((0, 2), np.int64), np.zeros(0, np.float32), [5, 9])
    assert sparse_layout.reset_shape(empty).dense_shape.numpy().tolist() == [0, 0]
    grown = sparse_layout.reset_shape(sample(), [4, 6])
    np.testing.assert_array_equal(dense(grown)[:3, :4], dense(sample()))


def test_reset_shape_refuses_a_smaller_shape():
    with pytest.raises(ValueError, match="smaller than the dense shape \\[3, 4\\] in dimension 1"):
        sparse_layout.reset_shape(sample(), [3, 2])


def test_fill_empty_rows_stores_the_default_in_column_zero():
    filled, empty = eager_and_traced(lambda s: sparse_layout.fill_empty_rows(s, -1.0),
                                     sample())
    want = dense(sample())
    want[1, 0] = -1.0
    np.testing.assert_array_equal(filled, want)
    assert empty.tolist() == [False, True, False]
    out, _ = sparse_layout.fill_empty_rows(sample(), 9.0)
    assert out.indices.numpy().tolist() == [[0, 1], [1, 0], [2, 0], [2, 3]]


def test_to_indicator_marks_the_ids_of_each_row():
    ids = st([[0, 0], [0, 1], [2, 0]], [3, 1, 2], [3, 2])
    got = eager_and_traced(lambda s: sparse_layout.to_indicator(s, 4), ids)
    want = np.zeros((3, 4), bool)
    want[0, [1, 3]] = True
    want[2, 2] = True
    np.testing.assert_array_equal(got, want)


# -- math -----------------------------------------------------------------------------------


def other():
    """[[-5, 0, 0, 0], [0, 0, 0, 0], [4, 0, 0, 0]]"""
    return st([[0, 0], [2, 0]], np.array([-5.0, 4.0], np.float32), [3, 4])


@pytest.mark.parametrize("fn, reference", [(sparse_math.maximum, np.maximum),
                                           (sparse_math.minimum, np.minimum)])
def test_maximum_and_minimum_store_the_union_with_absent_as_zero(fn, reference):
    got = eager_and_traced(fn, sample(), other())
    np.testing.assert_array_equal(got, reference(dense(sample()), dense(other())))
    assert fn(sample(), other()).indices.numpy().tolist() == [[0, 0], [0, 1], [2, 0], [2, 3]]


def test_maximum_refuses_indices_out_of_order():
    shuffled = st([[2, 0], [0, 1]], np.array([1.0, 2.0], np.float32), [3, 4])
    with pytest.raises(errors.InvalidArgumentError, match="out of order"):
        sparse_math.maximum(shuffled, other())


@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 1]])
def test_reduce_max_counts_only_stored_values_and_empty_groups_give_zero(axis):
    got = eager_and_traced(lambda s: sparse_math.reduce_max(s, axis), sample())
    values = dense(sample())
    stored = np.where(values != 0, values, -np.inf)
    want = stored.max(axis=None if axis is None else tuple(np.atleast_1d(axis)))
    np.testing.assert_array_equal(got, np.where(np.isinf(want), 0, want))


def test_reduce_max_as_tensorflow_documents_it():
    x = st([[0, 0], [0, 2], [1, 1]], [1, 2, 3], [2, 3])
    assert int(sparse_math.reduce_max(x)) == 3
    assert sparse_math.reduce_max(x, 0).numpy().tolist() == [1, 3, 2]
    assert sparse_math.reduce_max(x, 1, keepdims=True).numpy().tolist() == [[2], [3]]
    y = st([[0, 0], [1, 0], [1, 1]], [-7, 4, 3], [3, 2])
    assert sparse_math.reduce_max(y, 1).numpy().tolist() == [-7, 4, 0]


def test_reduce_max_with_a_sparse_output_stores_the_groups_with_values():
    out = sparse_math.reduce_max(sample(), 1, keepdims=True, output_is_sparse=True)
    assert out.indices.numpy().tolist() == [[0, 0], [2, 0]]
    assert out.values.numpy().tolist() == [1.5, 2.0]
    assert out.dense_shape.numpy().tolist() == [3, 1]


def test_reduce_max_has_no_gradient():
    values = array_ops.constant([1.0, 2.0])
    with GradientTape() as tape:
        tape.watch(values)
        out = sparse_math.reduce_max(SparseTensor([[0], [1]], values, [2]))
    with pytest.raises(LookupError, match="SparseSegmentMax"):
        tape.gradient(out, values)


@pytest.mark.parametrize("axis, keepdims", [(0, False), (1, True), (None, False)])
def test_reduce_sum_dense_and_sparse_outputs_agree(axis, keepdims):
    want = dense(sample()).sum(axis=axis, keepdims=keepdims)
    got = eager_and_traced(lambda s: sparse_math.reduce_sum(s, axis, keepdims), sample())
    np.testing.assert_allclose(got, want)
    sparse_out = eager_and_traced(
        lambda s: sparse_math.reduce_sum(s, axis, keepdims, output_is_sparse=True), sample())
    np.testing.assert_allclose(sparse_out, want)


def test_map_values_applies_an_op_to_the_stored_values():
    got = eager_and_traced(lambda s: sparse_math.map_values(math_ops.multiply, s, 2.0),
                           sample())
    np.testing.assert_array_equal(got, dense(sample()) * 2)
    both = sparse_math.map_values(math_ops.add, sample(), sample())
    np.testing.assert_array_equal(dense(both), dense(sample()) * 2)


def test_map_values_refuses_tensors_with_other_indices_or_none():
    moved = st([[0, 2], [2, 0], [2, 3]], np.array([1.0, 2.0, 3.0], np.float32), [3, 4])
    with pytest.raises(errors.InvalidArgumentError, match="must have the same indices"):
        sparse_math.map_values(math_ops.add, sample(), moved)
    with pytest.raises(ValueError, match="no SparseTensor in the arguments"):
        sparse_math.map_values(math_ops.add, 1.0, 2.0)


DATA = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], np.float32)


def test_sparse_segment_sum_mean_and_sqrt_n():
    indices, ids = [0, 2, 3, 3], [0, 0, 2, 2]
    rows = DATA[indices]
    sums = np.stack([rows[:2].sum(0), np.zeros(2), rows[2:].sum(0)])
    np.testing.assert_allclose(eager_and_traced(
        lambda d: sparse_math.segment_sum(d, indices, ids), array_ops.constant(DATA)), sums)
    np.testing.assert_allclose(sparse_math.segment_mean(DATA, indices, ids).numpy(),
                               sums / np.array([[2.0], [1.0], [2.0]]))
    np.testing.assert_allclose(sparse_math.segment_sqrt_n(DATA, indices, ids, 4).numpy(),
                               np.concatenate([sums / np.sqrt([[2.0], [1.0], [2.0]]),
                                               np.zeros((1, 2))]), rtol=1e-6)


def test_bincount_counts_per_row_as_tensorflow_documents():
    data = np.array([[10, 20, 30, 20], [11, 101, 11, 10001]], np.int64)
    out = sparse_math.bincount(data, axis=-1)
    assert out.indices.numpy().tolist() == [[0, 10], [0, 20], [0, 30], [1, 11], [1, 101],
                                            [1, 10001]]
    assert out.values.numpy().tolist() == [1, 2, 1, 2, 1, 1]
    assert out.dense_shape.numpy().tolist() == [2, 10002]
    assert out.dtype is dtypes.int64


def test_bincount_with_weights_limits_and_binary_output():
    values = np.array([1, 1, 3, 7], np.int32)
    weighted = sparse_math.bincount(values, weights=np.array([0.5, 1.0, 2.0, 3.0]),
                                    minlength=5, maxlength=6)
    assert weighted.dense_shape.numpy().tolist() == [6]
    assert weighted.indices.numpy().tolist() == [[1], [3]]
    assert weighted.values.numpy().tolist() == [1.5, 2.0]
    binary = sparse_math.bincount(values, binary_output=True)
    assert binary.values.numpy().tolist() == [1, 1, 1]
    assert sparse_math.bincount(st([[0], [4]], [2, 2], [9])).values.numpy().tolist() == [2]


def test_a_sparse_tensor_times_or_over_a_dense_one_keeps_its_indices():
    row = np.array([1.0, 2.0, 4.0, 8.0], np.float32)
    np.testing.assert_array_equal(eager_and_traced(lambda s: s * row, sample()),
                                  dense(sample()) * row)
    np.testing.assert_array_equal(dense(sample() / 2.0), dense(sample()) / 2)
    assert (sample() * row).indices.numpy().tolist() == sample().indices.numpy().tolist()
    with pytest.raises(TypeError, match="a SparseTensor \\* a SparseTensor"):
        sample() * sample()


def test_softmax_of_each_row_counts_only_stored_values():
    x = st([[0, 0], [0, 2], [1, 1], [2, 0], [2, 3]], np.array([1.0, 2.0, 3.0, -1.0, 1.0],
                                                              np.float32), [3, 4])
    out = eager_and_traced(sparse_math.softmax, x)
    e = np.exp([1.0, 2.0])
    np.testing.assert_allclose(out[0], [e[0] / e.sum(), 0, e[1] / e.sum(), 0], rtol=1e-6)
    np.testing.assert_allclose(out[1], [0, 1, 0, 0])
    np.testing.assert_allclose(out[2].sum(), 1.0, rtol=1e-6)
    np.testing.assert_allclose(dense(sparse_math.softmax(st([[0, 0], [0, 1]], np.array(
        [1000.0, 1000.0], np.float32), [1, 2]))), [[0.5, 0.5]])


def test_eye_stores_the_diagonal():
    np.testing.assert_array_equal(dense(eye(3, 4, dtypes.int32)), np.eye(3, 4, dtype=np.int32))
    assert eye(2).shape.as_list() == [2, 2]


def test_bincount_of_a_sparse_matrix_counts_per_row_its_stored_values():
    ids = st([[0, 0], [0, 2], [1, 1], [3, 0]], [2, 2, 5, 1], [4, 3])
    out = sparse_math.bincount(ids, axis=-1)
    assert out.indices.numpy().tolist() == [[0, 2], [1, 5], [3, 1]]
    assert out.values.numpy().tolist() == [2, 1, 1]
    assert out.dense_shape.numpy().tolist() == [4, 6]
    with pytest.raises(errors.InvalidArgumentError, match="weights of shape \\[2\\] do not "
                                                          "match values of shape \\[3\\]"):
        sparse_math.bincount(np.array([1, 2, 3]), weights=np.array([1.0, 2.0]))


# -- gradients to the stored values ---------------------------------------------------------

INDICES = [[0, 1], [2, 0], [2, 3]]
FLIPPED = [[2, 3], [0, 1], [2, 0]]


def _on(indices, shape=(3, 4)):
    return lambda v: SparseTensor(indices, v, list(shape))


GRADIENT_CASES = {
    "reorder": lambda v: to_dense(sparse_layout.reorder(_on(FLIPPED)(v))),
    "transpose": lambda v: to_dense(sparse_layout.transpose(_on(INDICES)(v))),
    "expand_dims": lambda v: to_dense(sparse_layout.expand_dims(_on(INDICES)(v), 1)),
    "reshape": lambda v: to_dense(sparse_layout.reshape(_on(INDICES)(v), [6, 2])),
    "concat": lambda v: to_dense(sparse_layout.concat(1, [_on(INDICES)(v), _on(INDICES)(v * v)])),
    "slice": lambda v: to_dense(sparse_layout.slice(_on(INDICES)(v), [1, 0], [2, 4])),
    "retain": lambda v: to_dense(sparse_layout.retain(_on(INDICES)(v), [True, False, True])),
    "fill_empty_rows": lambda v: to_dense(sparse_layout.fill_empty_rows(
        _on(INDICES)(v), v[0] * 3.0)[0]),
    "maximum": lambda v: to_dense(sparse_math.maximum(_on(INDICES)(v),
                                                      _on([[0, 1], [1, 1]])(v[:2] - 0.5))),
    "reduce_sum_sparse": lambda v: to_dense(sparse_math.reduce_sum(
        _on(INDICES)(v), 1, output_is_sparse=True)),
    "map_values": lambda v: to_dense(sparse_math.map_values(math_ops.multiply, _on(INDICES)(v),
                                                            _on(INDICES)(v))),
    "times_dense": lambda v: to_dense(_on(INDICES)(v) * reshape_ops.reshape(v, [3, 1])),
    "over_dense": lambda v: to_dense(_on(INDICES)(v) / (v[1] + 3.0)),
    "softmax": lambda v: to_dense(sparse_math.softmax(_on(INDICES)(v))),
    "softmax_one_row": lambda v: to_dense(sparse_math.softmax(_on([[0, 0], [0, 2], [0, 3]])(v))),
    "segment_mean": lambda v: sparse_math.segment_mean(
        reshape_ops.reshape(v, [3, 1]), [0, 1, 2, 2], [0, 0, 1, 1]),
    "segment_sqrt_n": lambda v: sparse_math.segment_sqrt_n(
        reshape_ops.reshape(v, [3, 1]), [0, 1, 2], [0, 0, 2]),
}


@pytest.mark.parametrize("traced", [False, True])
@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
def test_gradient_to_the_values_matches_finite_differences(name, traced):
    fn = GRADIENT_CASES[name]
    start = np.array([0.7, -1.3, 2.1])
    weights = np.random.default_rng(0).uniform(0.5, 1.5, size=np.shape(
        fn(array_ops.constant(start)).numpy()))

    def loss(v):
        return reduction_ops.reduce_sum(fn(v) * array_ops.constant(weights))

    def grad(v):
        with GradientTape() as tape:
            tape.watch(v)
            y = loss(v)
        return tape.gradient(y, v)

    run = function(grad) if traced else grad
    got = run(array_ops.constant(start)).numpy()
    want = numeric_gradients(lambda a: float(loss(array_ops.constant(a)).numpy()), [start])[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-7)


def test_reset_shape_of_an_unknown_shape_is_checked_when_run():
    f = function(lambda s: sparse_layout.reset_shape(s, [5, 3]),
                 input_signature=[SparseTensorSpec([None, None], dtypes.float32)])
    with pytest.raises(errors.InvalidArgumentError, match="new_shape must not be smaller"):
        f(sample())


@pytest.mark.parametrize("traced", [False, True])
def test_cross_gives_tensorflows_crosses_sparse_inputs_first(traced):
    letters = SparseTensor([[0, 0], [1, 0], [1, 1]], ["a", "b", "c"], [2, 2])
    dense = array_ops.constant([["d", "e"], ["f", "g"]])
    ids = SparseTensor([[0, 0], [1, 0]], array_ops.constant([1, 2], dtypes.int64), [2, 1])
    run = function(lambda *xs: sparse_layout.cross(list(xs))) if traced else \
        (lambda *xs: sparse_layout.cross(list(xs)))
    out = run(letters, dense, ids)
    # TensorFlow 2.21's answer for these inputs
    assert out.indices.numpy().tolist() == [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [1, 3]]
    assert out.values.numpy().tolist() == [b"a_X_1_X_d", b"a_X_1_X_e", b"b_X_2_X_f",
                                           b"b_X_2_X_g", b"c_X_2_X_f", b"c_X_2_X_g"]
    assert out.dense_shape.numpy().tolist() == [2, 4]


def test_cross_with_an_empty_input_has_no_crosses():
    letters = SparseTensor([[0, 0]], ["a"], [2, 2])
    empty = SparseTensor(np.zeros([0, 2], np.int64), array_ops.constant([], dtypes.string),
                         [2, 1])
    out = sparse_layout.cross([letters, empty])
    assert out.values.numpy().tolist() == [] and out.dense_shape.numpy().tolist() == [2, 0]
