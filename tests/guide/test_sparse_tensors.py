"""Cells of TensorFlow's "Working with sparse tensors" guide, run with `autograph.tf` in place
of tensorflow: the printed text is compared with the output the guide shows."""

import numpy as np

import autograph.tf as tf


def pprint_sparse_tensor(st):
    s = "<SparseTensor shape=%s \n values={" % (st.dense_shape.numpy().tolist(),)
    for (index, value) in zip(st.indices, st.values):
        s += "\n  %s: %s" % (index.numpy().tolist(), value.numpy().tolist())
    return s + "}>"


def test_a_sparse_tensor_prints_its_components_as_tensors(capsys):
    st1 = tf.sparse.SparseTensor(indices=[[0, 3], [2, 4]], values=[10, 20], dense_shape=[3, 10])
    print(st1)
    assert capsys.readouterr().out == (
        "SparseTensor(indices=tf.Tensor(\n[[0 3]\n [2 4]], shape=(2, 2), dtype=int64), "
        "values=tf.Tensor([10 20], shape=(2,), dtype=int32), "
        "dense_shape=tf.Tensor([ 3 10], shape=(2,), dtype=int64))\n")
    assert repr(st1) == str(st1)
    assert pprint_sparse_tensor(st1) == (
        "<SparseTensor shape=[3, 10] \n values={\n  [0, 3]: 10\n  [2, 4]: 20}>")


def test_from_dense_and_to_dense(capsys):
    st2 = tf.sparse.from_dense([[1, 0, 0, 8], [0, 0, 0, 0], [0, 0, 3, 0]])
    print(pprint_sparse_tensor(st2))
    st3 = tf.sparse.to_dense(st2)
    print(st3)
    assert capsys.readouterr().out == (
        "<SparseTensor shape=[3, 4] \n values={\n  [0, 0]: 1\n  [0, 3]: 8\n  [2, 2]: 3}>\n"
        "tf.Tensor(\n[[1 0 0 8]\n [0 0 0 0]\n [0 0 3 0]], shape=(3, 4), dtype=int32)\n")


def test_sparse_add_and_sparse_dense_matmul(capsys):
    st_a = tf.sparse.SparseTensor(indices=[[0, 2], [3, 4]], values=[31, 2], dense_shape=[4, 10])
    st_b = tf.sparse.SparseTensor(indices=[[0, 2], [3, 0]], values=[56, 38],
                                  dense_shape=[4, 10])
    st_sum = tf.sparse.add(st_a, st_b)
    print(pprint_sparse_tensor(st_sum))
    st_c = tf.sparse.SparseTensor(indices=([0, 1], [1, 0], [1, 1]), values=[13, 15, 17],
                                  dense_shape=(2, 2))
    mb = tf.constant([[4], [6]])
    product = tf.sparse.sparse_dense_matmul(st_c, mb)
    print(product)
    assert capsys.readouterr().out == (
        "<SparseTensor shape=[4, 10] \n values={\n  [0, 2]: 87\n  [3, 0]: 38\n  [3, 4]: 2}>\n"
        "tf.Tensor(\n[[ 78]\n [162]], shape=(2, 1), dtype=int32)\n")


def _patterns():
    a = tf.sparse.SparseTensor(indices=[[2, 4], [3, 3], [3, 4], [4, 3], [4, 4], [5, 4]],
                               values=[1, 1, 1, 1, 1, 1], dense_shape=[8, 5])
    b = tf.sparse.SparseTensor(indices=[[0, 2], [1, 1], [1, 3], [2, 0], [2, 4], [2, 5], [3, 5],
                                        [4, 5], [5, 0], [5, 4], [5, 5], [6, 1], [6, 3], [7, 2]],
                               values=[1] * 14, dense_shape=[8, 6])
    c = tf.sparse.SparseTensor(indices=[[3, 0], [4, 0]], values=[1, 1], dense_shape=[8, 6])
    return a, b, c


def test_concat_and_slice_of_sparse_patterns(capsys):
    a, b, c = _patterns()
    sparse_pattern = tf.sparse.concat(axis=1, sp_inputs=[a, b, c])
    dense = tf.sparse.to_dense(sparse_pattern).numpy()
    want = np.concatenate([tf.sparse.to_dense(p).numpy() for p in (a, b, c)], axis=1)
    np.testing.assert_array_equal(dense, want)
    assert dense.shape == (8, 17)
    sparse_slice_a = tf.sparse.slice(a, start=[0, 0], size=[8, 5])
    sparse_slice_b = tf.sparse.slice(b, start=[0, 5], size=[8, 6])
    sparse_slice_c = tf.sparse.slice(c, start=[0, 10], size=[8, 6])
    print(tf.sparse.to_dense(sparse_slice_b))
    print(tf.sparse.to_dense(sparse_slice_c))
    np.testing.assert_array_equal(tf.sparse.to_dense(sparse_slice_a).numpy(),
                                  tf.sparse.to_dense(a).numpy())
    assert capsys.readouterr().out == (
        "tf.Tensor(\n[[0]\n [0]\n [1]\n [1]\n [1]\n [1]\n [0]\n [0]], shape=(8, 1), "
        "dtype=int32)\n"
        "tf.Tensor([], shape=(8, 0), dtype=int32)\n")


def test_elementwise_ops_on_the_stored_values(capsys):
    st2 = tf.sparse.from_dense([[1, 0, 0, 8], [0, 0, 0, 0], [0, 0, 3, 0]])
    st2_plus_5 = tf.sparse.map_values(tf.add, st2, 5)
    print(tf.sparse.to_dense(st2_plus_5))
    st2_plus_5 = tf.sparse.SparseTensor(st2.indices, st2.values + 5, st2.dense_shape)
    print(tf.sparse.to_dense(st2_plus_5))
    text = ("tf.Tensor(\n[[ 6  0  0 13]\n [ 0  0  0  0]\n [ 0  0  8  0]], shape=(3, 4), "
            "dtype=int32)\n")
    assert capsys.readouterr().out == text * 2


def test_a_function_of_sparse_tensors(capsys):
    @tf.function
    def f(x, y):
        return tf.sparse.sparse_dense_matmul(x, y)

    a = tf.sparse.SparseTensor(indices=[[0, 3], [2, 4]], values=[15, 25], dense_shape=[3, 10])
    b = tf.sparse.to_dense(tf.sparse.transpose(a))
    c = f(a, b)
    print(c)
    assert capsys.readouterr().out == (
        "tf.Tensor(\n[[225   0   0]\n [  0   0   0]\n [  0   0 625]], shape=(3, 3), "
        "dtype=int32)\n")


def test_a_dataset_of_sparse_tensors_and_its_batches():
    a, _, _ = _patterns()
    dataset = tf.data.Dataset.from_tensor_slices(a)
    rows = [pprint_sparse_tensor(element) for element in dataset]
    assert rows[2] == "<SparseTensor shape=[5] \n values={\n  [4]: 1}>"
    assert rows[0] == "<SparseTensor shape=[5] \n values={}>"
    batched = list(dataset.batch(4))
    assert [b.dense_shape.numpy().tolist() for b in batched] == [[4, 5], [4, 5]]
    assert pprint_sparse_tensor(batched[1]) == (
        "<SparseTensor shape=[4, 5] \n values={\n  [0, 3]: 1\n  [0, 4]: 1\n  [1, 4]: 1}>")


def test_reduce_max_ignores_missing_values_where_the_dense_maximum_sees_zeros():
    st = tf.sparse.SparseTensor(indices=[[0, 0], [0, 1], [1, 1]], values=[-5, -3, -7],
                                dense_shape=[2, 3])
    assert tf.sparse.reduce_max(st, axis=1).numpy().tolist() == [-3, -7]
    assert tf.reduce_max(tf.sparse.to_dense(st), axis=1).numpy().tolist() == [0, 0]
