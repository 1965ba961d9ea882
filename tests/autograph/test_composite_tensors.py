"""tf.SparseTensor and tf.RaggedTensor in converted code and through the facade: `for row
in rt` (a Python loop eagerly, one While op in a graph), composites as the variables of
converted `while`/`for`/`if` on tensors, and errors naming the user's line."""

import numpy as np
import pytest

import autograph
import autograph.tf as tf


def op_types(concrete):
    return [node.op for node in concrete.graph.as_graph_def().node]


def test_facade_names_are_documented():
    names = [tf.SparseTensor, tf.SparseTensorSpec, tf.RaggedTensor, tf.RaggedTensorSpec,
             tf.sparse.SparseTensor, tf.sparse.to_dense, tf.sparse.from_dense, tf.sparse.add,
             tf.sparse.reduce_sum, tf.sparse.sparse_dense_matmul, tf.ragged.constant,
             tf.ragged.RaggedTensorSpec, tf.RaggedTensor.from_row_lengths,
             tf.RaggedTensor.from_row_splits, tf.RaggedTensor.to_tensor,
             tf.RaggedTensor.row_lengths]
    assert all(name.__doc__ for name in names)


def sum_rows(rt):
    total = tf.constant(0)
    for row in rt:
        total += tf.reduce_sum(row)
    return total


def test_for_over_ragged_rows_in_a_function_is_one_while_op():
    f = tf.function(sum_rows)
    assert f(tf.ragged.constant([[1, 2, 3], [], [4]])).numpy() == 10
    assert f(tf.ragged.constant([[5], [6, 7], [8]])).numpy() == 26
    assert f.experimental_get_tracing_count() == 1
    ops = op_types(f.get_concrete_function(tf.ragged.constant([[1], [2], [3]])))
    assert sum("While" in op for op in ops) == 1


def test_for_over_ragged_rows_eagerly_in_converted_code():
    converted = autograph.to_graph(sum_rows)
    assert converted(tf.ragged.constant([[1, 2], [3]])).numpy() == 6


def first_long_row_length(rt):
    found = tf.constant(-1, tf.int64)
    for row in rt:
        if tf.size(row, out_type=tf.int64) > 1:
            found = tf.size(row, out_type=tf.int64)
            break
    return found


def test_break_in_a_for_over_ragged_rows():
    f = tf.function(first_long_row_length)
    assert f(tf.ragged.constant([[1], [2, 3, 4], [5, 6]])).numpy() == 3
    assert f(tf.ragged.constant([[1], [2]])).numpy() == -1


def test_for_over_the_rows_of_a_nested_ragged_tensor_gets_ragged_rows():
    @tf.function
    def widest(rt):
        best = tf.constant(0, tf.int64)
        for row in rt:
            best = tf.maximum(best, tf.reduce_max(row.row_lengths()))
        return best
    assert widest(tf.ragged.constant([[[1], [2, 3]], [[4, 5, 6]]])).numpy() == 3


def test_ragged_loop_variable_whose_row_count_changes():
    @tf.function
    def repeat_rows(rt, times):
        for _ in tf.range(times):
            rt = tf.RaggedTensor.from_row_lengths(tf.concat([rt.values, rt.values], 0),
                                                  tf.concat([rt.row_lengths()] * 2, 0))
        return rt
    out = repeat_rows(tf.ragged.constant([[1, 2], [3]]), tf.constant(2))
    assert out.to_list() == [[1, 2], [3]] * 4
    assert out.shape.as_list() == [8, None]


def test_sparse_tensor_as_the_variable_of_converted_if_and_while():
    @tf.function
    def scale(st, n):
        i = 0
        while i < n:
            st = tf.sparse.add(st, st)
            i += 1
        if tf.reduce_sum(st.values) > 10.0:
            st = tf.sparse.from_dense(tf.sparse.to_dense(st) - 1.0)
        return st
    st = tf.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [2, 3])
    small = scale(st, tf.constant(1))
    assert small.values.numpy().tolist() == [2.0, 4.0]
    big = scale(st, tf.constant(2))
    assert isinstance(big, tf.SparseTensor)
    np.testing.assert_array_equal(tf.sparse.to_dense(big).numpy(),
                                  [[3.0, -1.0, -1.0], [-1.0, -1.0, 7.0]])


def test_ragged_branch_results_with_different_row_counts():
    @tf.function
    def pick(flag):
        if flag:
            out = tf.ragged.constant([[1.0], [2.0, 3.0]])
        else:
            out = tf.ragged.constant([[4.0, 5.0, 6.0]])
        return tf.math.exp(out) * 0.0 + out
    assert pick(tf.constant(True)).to_list() == [[1.0], [2.0, 3.0]]
    assert pick(tf.constant(False)).to_list() == [[4.0, 5.0, 6.0]]


def test_bad_sparse_indices_in_a_function_name_the_user_line():
    @tf.function
    def densify(st):
        return tf.sparse.to_dense(st)
    st = tf.SparseTensor([[1, 0], [0, 0]], [1.0, 2.0], [2, 2])
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        densify(st)
    message = str(info.value)
    assert "SparseToDense" in message and "is out of order" in message
    assert "test_composite_tensors.py" in message and "tf.sparse.to_dense(st)" in message


def test_gradient_through_a_function_taking_a_ragged_tensor():
    @tf.function
    def padded_sum(rt):
        return tf.reduce_sum(rt.to_tensor() * tf.constant([[1.0, 10.0], [100.0, 1000.0]]))
    values = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        loss = padded_sum(tf.RaggedTensor.from_row_lengths(values, [1, 2]))
    np.testing.assert_allclose(tape.gradient(loss, values).numpy(), [1.0, 100.0, 1000.0])


def test_explain_reports_a_for_over_ragged_rows_as_one_statement():
    text = str(autograph.explain(sum_rows, tf.ragged.constant([[1], [2, 3]])))
    assert text.count("iterates a RaggedTensor") == 1
    assert "tf.range" not in text


def test_reduce_retracing_relaxes_the_row_count_of_a_ragged_argument():
    f = tf.function(sum_rows, reduce_retracing=True)
    assert f(tf.ragged.constant([[1], [2, 3]])).numpy() == 6
    assert f(tf.ragged.constant([[1], [2], [3, 4]])).numpy() == 10
    assert f(tf.ragged.constant([[1], [2], [3], [4]])).numpy() == 10
    assert f.experimental_get_tracing_count() == 2


OUTER_RAGGED = tf.ragged.constant([[1, 2], [3]])
OUTER_SPARSE = tf.SparseTensor([[0, 0]], [1.0], [2, 2])


def test_composites_made_outside_the_function_can_start_a_staged_loop():
    @tf.function
    def double(n):
        rt, sp = OUTER_RAGGED, OUTER_SPARSE
        i = 0
        while i < n:
            rt = rt * 2
            sp = tf.sparse.add(sp, sp)
            i += 1
        return rt, sp
    rt, sp = double(tf.constant(2))
    assert rt.to_list() == [[4, 8], [12]]
    assert sp.values.numpy().tolist() == [4.0]


def test_set_loop_options_shape_invariant_on_a_ragged_loop_variable():
    @tf.function
    def grow(rt, n):
        for _ in tf.range(n):
            tf.autograph.experimental.set_loop_options(
                shape_invariants=[(rt, tf.TensorShape([None, None]))])
            rt = rt * 2
        return rt

    rt = tf.ragged.constant([[1, 2], [3]])
    assert grow(rt, tf.constant(3)).to_list() == [[8, 16], [24]]


def test_a_ragged_value_violating_its_invariant_names_the_variable():
    @tf.function
    def bad(rt, n):
        for _ in tf.range(n):
            tf.autograph.experimental.set_loop_options(
                shape_invariants=[(rt, tf.TensorShape([2, None]))])
            rt = rt * 2
        return rt

    with pytest.raises(ValueError, match="rt"):
        bad(tf.ragged.constant([[1, 2], [3], [4]]), tf.constant(2))
