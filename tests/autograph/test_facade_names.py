"""Facade names the other tests do not reach by this path: aliases under a second
TensorFlow namespace, dtypes and constants, and a few ops."""

import math

import numpy as np

import autograph.tf as tf


def test_dtype_names():
    assert isinstance(tf.float32, tf.DType) and tf.dtypes.DType is tf.DType
    assert tf.dtypes.double is tf.float64
    assert tf.dtypes.resource.name == "resource"


def test_data_experimental_constants_are_tf_data_constants():
    assert tf.data.experimental.AUTOTUNE == tf.data.AUTOTUNE
    assert tf.data.experimental.INFINITE_CARDINALITY == tf.data.INFINITE_CARDINALITY
    assert tf.data.experimental.UNKNOWN_CARDINALITY == tf.data.UNKNOWN_CARDINALITY


def test_unconnected_gradients_zero():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.constant(3.0)
    grad = tape.gradient(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    np.testing.assert_array_equal(grad.numpy(), [0.0, 0.0])


def test_top_level_cos_and_log():
    x = np.array([0.5, 2.0], np.float32)
    np.testing.assert_allclose(tf.cos(x).numpy(), np.cos(x), rtol=1e-6)
    np.testing.assert_allclose(tf.log(x).numpy(), np.log(x), rtol=1e-6)


def test_top_level_round_rounds_halves_to_even():
    x = np.array([0.5, 1.5, 2.5, -0.5, -2.7], np.float32)
    np.testing.assert_array_equal(tf.round(x).numpy(), [0.0, 2.0, 2.0, -0.0, -3.0])
    assert tf.round is tf.math.round


def test_math_erf_and_reduce_logsumexp():
    x = np.array([-2.0, -0.3, 0.0, 1.7], np.float64)
    np.testing.assert_allclose(tf.math.erf(x).numpy(), [math.erf(v) for v in x], rtol=1e-12)
    np.testing.assert_allclose(tf.math.reduce_logsumexp(x).numpy(),
                               np.log(np.exp(x).sum()), rtol=1e-12)


def test_linalg_aliases():
    a = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(tf.linalg.einsum("ij->ji", a).numpy(), a.T)
    np.testing.assert_array_equal(tf.linalg.eye(2).numpy(), np.eye(2, dtype=np.float32))
    np.testing.assert_allclose(tf.linalg.global_norm([a, None, a[0]]).numpy(),
                               np.sqrt((a ** 2).sum() + (a[0] ** 2).sum()))


def test_nn_aliases():
    x = np.array([[-1.0, 0.5, 2.0]])
    np.testing.assert_allclose(tf.nn.swish(x).numpy(), tf.nn.silu(x).numpy())
    values, indices = tf.nn.top_k(x, 2)
    np.testing.assert_array_equal(values.numpy(), [[2.0, 0.5]])
    np.testing.assert_array_equal(indices.numpy(), [[2, 1]])


def test_tfrecord_example_round_trip_through_the_facade(tmp_path):
    path = str(tmp_path / "x.tfrecord")
    feature = tf.train.Feature(int64_list=tf.train.Int64List(value=[4, 5]))
    words = tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"a"]))
    weight = tf.train.Feature(float_list=tf.train.FloatList(value=[0.5]))
    message = tf.train.Example(features=tf.train.Features(
        feature={"ids": feature, "word": words, "weight": weight}))
    with tf.io.TFRecordWriter(path) as writer:
        writer.write(message.SerializeToString())
    spec = {"ids": tf.io.VarLenFeature(tf.int64),
            "word": tf.io.FixedLenFeature([], tf.string),
            "weight": tf.io.FixedLenFeature([1], tf.float32)}

    @tf.function
    def total(ds):
        s = tf.constant(0, tf.int64)
        for record in ds:
            s += tf.reduce_sum(tf.io.parse_single_example(record, {"ids": spec["ids"]})[
                "ids"].values)
        return s
    assert total(tf.data.TFRecordDataset(path)).numpy() == 9
    batch = tf.io.parse_example(tf.constant([message.SerializeToString()]), spec)
    assert batch["word"].numpy().tolist() == [b"a"] and batch["weight"].shape == (1, 1)


def test_text_lines_and_the_experimental_dataset_choices(tmp_path):
    path = tmp_path / "lines.txt"
    path.write_text("a\nb\n")
    lines = tf.data.TextLineDataset(str(path))
    assert [x.numpy() for x in lines] == [b"a", b"b"]
    chosen = tf.data.experimental.choose_from_datasets(
        [lines, lines.map(tf.strings.upper)], tf.data.Dataset.from_tensor_slices(
            tf.constant([1, 0], tf.int64)))
    assert [x.numpy() for x in chosen] == [b"A", b"a"]
    sampled = tf.data.experimental.sample_from_datasets([lines], seed=1)
    assert [x.numpy() for x in sampled] == [b"a", b"b"]


def test_csv_datasets_of_the_experimental_namespace(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("a,b\n1,x\n2,y\n")
    rows = tf.data.experimental.CsvDataset(str(path), [tf.int32, tf.string], header=True)
    assert [(a.numpy(), b.numpy()) for a, b in rows] == [(1, b"x"), (2, b"y")]
    batches = tf.data.experimental.make_csv_dataset(str(path), 2, shuffle=False, num_epochs=1)
    assert [b["b"].numpy().tolist() for b in batches] == [[b"x", b"y"]]
