"""`tf.sparse` through the facade, eagerly and in converted Functions: every function of
the namespace gives the same values traced (with SparseTensorSpec arguments of unknown dense
shape), SparseTensors as loop variables and branch results of converted `for`/`if`, and a
Function with a SparseTensorSpec signature saved and loaded."""

import numpy as np
import pytest

import autograph.tf as tf


def sample():
    return tf.sparse.SparseTensor(indices=[[0, 1], [2, 0], [2, 3]], values=[1.5, 2.0, -3.0],
                                  dense_shape=[3, 4])


def other():
    return tf.sparse.SparseTensor(indices=[[0, 0], [2, 0]], values=[-5.0, 4.0],
                                  dense_shape=[3, 4])


def as_numpy(value):
    if isinstance(value, tf.SparseTensor):
        return tf.sparse.to_dense(value).numpy()
    if isinstance(value, (list, tuple)):
        return [as_numpy(v) for v in value]
    return value.numpy()


CASES = {
    "expand_dims": lambda s, t: tf.sparse.expand_dims(s, axis=1),
    "concat": lambda s, t: tf.sparse.concat(axis=0, sp_inputs=[s, t]),
    "slice": lambda s, t: tf.sparse.slice(s, [1, 0], [2, 3]),
    "transpose": lambda s, t: tf.sparse.transpose(s),
    "reshape": lambda s, t: tf.sparse.reshape(s, [4, -1]),
    "reorder": lambda s, t: tf.sparse.reorder(tf.sparse.transpose(s)),
    "retain": lambda s, t: tf.sparse.retain(s, tf.greater(s.values, 0.0)),
    "reset_shape": lambda s, t: tf.sparse.reset_shape(s),
    "fill_empty_rows": lambda s, t: tf.sparse.fill_empty_rows(s, 7.0),
    "add": lambda s, t: tf.sparse.add(s, t),
    "maximum": lambda s, t: tf.sparse.maximum(s, t),
    "minimum": lambda s, t: tf.sparse.minimum(s, t),
    "reduce_sum": lambda s, t: tf.sparse.reduce_sum(s, axis=1, output_is_sparse=True),
    "reduce_max": lambda s, t: tf.sparse.reduce_max(s, axis=0),
    "map_values": lambda s, t: tf.sparse.map_values(tf.multiply, s, 3.0),
    "split": lambda s, t: tf.sparse.split(sp_input=s, num_split=2, axis=1),
    "to_dense": lambda s, t: tf.sparse.to_dense(t, default_value=1.0),
    "from_dense": lambda s, t: tf.sparse.from_dense(tf.sparse.to_dense(s) * 2.0),
    "to_indicator": lambda s, t: tf.sparse.to_indicator(
        tf.sparse.SparseTensor(s.indices, tf.cast(tf.abs(s.values), tf.int64), s.dense_shape),
        5),
    "sparse_dense_matmul": lambda s, t: tf.sparse.sparse_dense_matmul(s, tf.ones([4, 2])),
    "segment_sum": lambda s, t: tf.sparse.segment_sum(tf.sparse.to_dense(s), [0, 2, 2],
                                                      [0, 0, 1]),
    "segment_mean": lambda s, t: tf.sparse.segment_mean(tf.sparse.to_dense(s), [0, 2],
                                                        [0, 1]),
    "segment_sqrt_n": lambda s, t: tf.sparse.segment_sqrt_n(tf.sparse.to_dense(s), [0, 1, 2],
                                                            [0, 0, 1]),
    "softmax": lambda s, t: tf.sparse.softmax(s),
    "eye": lambda s, t: tf.sparse.eye(3, 2) * tf.reduce_sum(s.values),
    "bincount": lambda s, t: tf.sparse.bincount(tf.cast(tf.abs(s.values), tf.int32)),
}

SIGNATURE = [tf.SparseTensorSpec([None, None], tf.float32)] * 2


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_sparse_function_gives_the_same_values_eagerly_and_traced(name):
    fn = CASES[name]
    eager = as_numpy(fn(sample(), other()))
    traced = tf.function(fn, input_signature=SIGNATURE)
    staged = as_numpy(traced(sample(), other()))
    if isinstance(eager, list):
        for e, s in zip(eager, staged):
            np.testing.assert_array_equal(e, s)
    else:
        np.testing.assert_array_equal(eager, staged)


def test_a_sparse_tensor_as_a_loop_variable_and_a_branch_result():
    @tf.function(input_signature=[tf.SparseTensorSpec([None, None], tf.float32)])
    def grow(st):
        for _ in tf.range(2):
            st = tf.sparse.map_values(tf.add, st, 1.0)
        if tf.reduce_sum(st.values) > 5.0:
            st = tf.sparse.reorder(tf.sparse.transpose(st))
        else:
            st = tf.sparse.from_dense(tf.zeros([4, 3]))
        return st

    out = grow(sample())
    want = (tf.sparse.to_dense(sample()).numpy() + 2 * (tf.sparse.to_dense(sample()).numpy()
                                                       != 0)).T
    np.testing.assert_array_equal(tf.sparse.to_dense(out).numpy(), want)
    assert grow.experimental_get_tracing_count() == 1


def test_a_function_with_a_sparse_signature_is_saved_and_loaded(tmp_path):
    class Model(tf.Module):
        @tf.function(input_signature=[tf.SparseTensorSpec([None, None], tf.float32)])
        def call(self, st):
            return tf.sparse.expand_dims(tf.sparse.map_values(tf.multiply, st, 2.0), 0)

    tf.saved_model.save(Model(), str(tmp_path / "model"))
    loaded = tf.saved_model.load(str(tmp_path / "model"))
    out = loaded.call(sample())
    assert isinstance(out, tf.SparseTensor)
    np.testing.assert_array_equal(tf.sparse.to_dense(out).numpy(),
                                  tf.sparse.to_dense(sample()).numpy()[None] * 2)


def test_a_sparse_tensor_spec_prints_as_tensorflow_prints_it():
    assert repr(tf.SparseTensorSpec([3, None], tf.int32)) == \
        "SparseTensorSpec(TensorShape([3, None]), tf.int32)"
    assert repr(tf.SparseTensorSpec(None, tf.float32)) == \
        "SparseTensorSpec(TensorShape(None), tf.float32)"


def test_expand_dims_of_a_sparse_tensor_in_a_converted_loop_over_a_dataset():
    ds = tf.data.Dataset.from_tensor_slices(tf.sparse.from_dense([[1, 0], [0, 2], [3, 0]]))

    @tf.function
    def total(ds):
        acc = tf.constant(0)
        for row in ds:
            acc += tf.sparse.reduce_sum(tf.sparse.expand_dims(row, 0))
        return acc

    assert int(total(ds)) == 6


def test_tf_print_shows_a_sparse_tensor_as_tensorflow_does_eagerly_and_traced(capsys):
    st = tf.sparse.SparseTensor(indices=[[0, 0], [1, 2]], values=[1, 2], dense_shape=[3, 4])
    tf.print(st)

    @tf.function
    def show(s):
        tf.print("in", s)

    show(st)
    text = "SparseTensor(indices=[[0 0]\n [1 2]], values=[1 2], shape=[3 4])\n"
    assert capsys.readouterr().err == text + "in " + text


def grow_rank(n):
    v = tf.SparseTensor(indices=[[0, 0], [1, 1]], values=[1, 2], dense_shape=[3, 3])
    i = 0
    while i < n:
        tf.autograph.experimental.set_loop_options(shape_invariants=[(v, tf.TensorShape(None))])
        v = tf.sparse.expand_dims(v)
        i += 1
    return v


def grow_rank_over(items):
    v = tf.SparseTensor(indices=[[0, 0], [1, 1]], values=[1, 2], dense_shape=[3, 3])
    for _ in items:
        tf.autograph.experimental.set_loop_options(shape_invariants=[(v, tf.TensorShape(None))])
        v = tf.sparse.expand_dims(v)
    return v


def _same_sparse(a, b):
    assert a.dense_shape.numpy().tolist() == b.dense_shape.numpy().tolist()
    assert a.indices.numpy().tolist() == b.indices.numpy().tolist()
    assert a.values.numpy().tolist() == b.values.numpy().tolist()


@pytest.mark.parametrize("n", [0, 1, 2, 5])
@pytest.mark.parametrize("kind", [int, tf.constant])
def test_expand_dims_of_a_while_variable_whose_rank_changes(n, kind):
    eager = grow_rank(kind(n))
    _same_sparse(tf.function(grow_rank)(kind(n)), eager)
    assert eager.shape.as_list() == [3, 3] + [1] * n


@pytest.mark.parametrize("n", [0, 1, 2])
@pytest.mark.parametrize("kind", [range, tf.range,
                                  lambda n: tf.data.Dataset.range(n).map(
                                      lambda x: tf.cast(x, tf.int32))])
def test_expand_dims_of_a_for_variable_whose_rank_changes(n, kind):
    _same_sparse(tf.function(grow_rank_over)(kind(n)), grow_rank_over(kind(n)))


def test_a_sparse_signature_gives_its_known_dimensions_to_the_trace():
    shapes = []

    @tf.function(input_signature=[tf.SparseTensorSpec([3, None], tf.float32)])
    def densify(st):
        dense = tf.sparse.to_dense(st)
        shapes.append(dense.shape.as_list())
        return dense

    assert densify(sample()).shape == (3, 4)
    assert shapes == [[3, None]]
    with pytest.raises(TypeError, match="incompatible with input_signature|SparseTensorSpec"):
        densify(tf.sparse.SparseTensor([[0, 0]], [1.0], [2, 4]))


@pytest.mark.parametrize("op, reference", [(tf.math.abs, np.abs), (tf.math.negative, np.negative),
                                           (tf.math.sign, np.sign), (tf.math.square, np.square),
                                           (tf.math.tanh, np.tanh)])
def test_zero_preserving_math_ops_apply_to_the_stored_values(op, reference):
    out = op(sample())
    assert isinstance(out, tf.SparseTensor)
    np.testing.assert_allclose(tf.sparse.to_dense(out).numpy(),
                               reference(tf.sparse.to_dense(sample()).numpy()), rtol=1e-6)
    traced = tf.function(op, input_signature=SIGNATURE[:1])(sample())
    np.testing.assert_allclose(tf.sparse.to_dense(traced).numpy(),
                               tf.sparse.to_dense(out).numpy())
    assert tf.cast(sample(), tf.int32).dtype == tf.int32


def test_other_elementwise_ops_on_a_sparse_tensor_are_refused():
    with pytest.raises(TypeError, match="tf.exp of a SparseTensor is not supported"):
        tf.math.exp(sample())
    with pytest.raises(TypeError, match="use tf.sparse.add"):
        tf.add(sample(), 1.0)
