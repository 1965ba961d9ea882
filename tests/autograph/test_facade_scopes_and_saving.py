"""The facade's scope, dependency and saved-model names, used as TensorFlow code uses them."""

import numpy as np
import pytest

import autograph.tf as tf


def test_name_scope_prefixes_the_traced_node_names():
    @tf.function
    def f(x):
        with tf.name_scope("layer"):
            return x * 2.0

    graph = f.get_concrete_function(tf.TensorSpec([2], tf.float32)).graph
    names = [node.name for node in graph.nodes]
    assert any(name.startswith("layer/") for name in names), names


def test_control_dependencies_group_and_no_op_keep_the_assignment():
    v = tf.Variable(1.0)

    @tf.function
    def f():
        update = v.assign_add(1.0)
        with tf.control_dependencies([update]):
            done = tf.group(tf.no_op())
        with tf.control_dependencies([done]):
            return tf.identity(v.read_value())

    assert f().numpy() == 2.0
    assert f().numpy() == 3.0


def test_init_scope_runs_its_block_eagerly_inside_a_trace():
    seen = []

    @tf.function
    def f(x):
        with tf.init_scope():
            seen.append(tf.executing_eagerly())
        return x + 1

    f(tf.constant(1))
    assert seen == [True]


def test_identity_n_and_ensure_shape():
    a, b = tf.identity_n([tf.constant(1), tf.constant([2.0, 3.0])])
    assert a.numpy() == 1 and b.numpy().tolist() == [2.0, 3.0]
    assert tf.ensure_shape(tf.constant([1.0, 2.0]), [2]).shape == (2,)
    with pytest.raises(ValueError, match=r"\(3\)|\[3\]|3"):
        tf.ensure_shape(tf.constant([1.0, 2.0]), [3])


def test_saved_model_names(tmp_path):
    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def double(x):
        return x * 2.0

    tf.saved_model.save(double, str(tmp_path / "m"))
    loaded = tf.saved_model.load(str(tmp_path / "m"))
    serving = loaded.signatures[tf.saved_model.SERVING_DEFAULT_SIGNATURE_DEF_KEY]
    (result,) = serving(x=tf.constant([1.0, 2.0])).values()
    np.testing.assert_array_equal(result.numpy(), [2.0, 4.0])
    assert issubclass(tf.saved_model.SavedModelError, ValueError)
    assert issubclass(tf.saved_model.NotSaveableError, ValueError)
    (tmp_path / "m" / "graphs.json").write_text("{")
    with pytest.raises(tf.saved_model.SavedModelError):
        tf.saved_model.load(str(tmp_path / "m"))
