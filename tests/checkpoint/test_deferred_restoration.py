"""A restore before the variables exist assigns them when they are created (TensorFlow's
deferred restoration), and the load status follows."""

import numpy as np
import pytest

import autograph.tf as tf


class Lazy(tf.Module):
    """Creates its variables on first call, as layers do."""

    def __init__(self):
        super().__init__()
        self.w = None

    def __call__(self, x):
        if self.w is None:
            self.w = tf.Variable(tf.zeros([x.shape[-1], 2]))
        return tf.matmul(x, self.w)


def _saved(tmp_path):
    model = Lazy()
    model(tf.ones([1, 3]))
    model.w.assign(np.arange(6, dtype=np.float32).reshape(3, 2))
    model.head = Lazy()
    model.head(tf.ones([1, 2]))
    model.head.w.assign([[1.0, 2.0], [3.0, 4.0]])
    return tf.train.Checkpoint(model=model).write(str(tmp_path / "lazy"))


def test_a_variable_created_after_the_restore_takes_the_saved_value(tmp_path):
    path = _saved(tmp_path)
    model = Lazy()
    status = tf.train.Checkpoint(model=model).read(path)
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint \(root\).model.w"):
        status.assert_consumed()
    result = model(tf.ones([1, 3]))
    assert model.w.numpy().tolist() == [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]]
    assert result.numpy().tolist() == [[6.0, 9.0]]
    model.head = Lazy()  # a whole sub-module set later: restored level by level
    model.head(tf.ones([1, 2]))
    assert model.head.w.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]
    status.assert_consumed()


def test_a_submodule_set_after_the_restore_with_its_variables_is_restored_at_once(tmp_path):
    path = _saved(tmp_path)
    model = Lazy()
    tf.train.Checkpoint(model=model).read(path)
    head = Lazy()
    head.w = tf.Variable(tf.zeros([2, 2]))
    model.head = head
    assert head.w.numpy().tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_a_variable_created_in_a_traced_first_call_is_restored(tmp_path):
    path = _saved(tmp_path)
    model = Lazy()
    tf.train.Checkpoint(model=model).read(path)
    result = tf.function(model)(tf.ones([1, 3]))
    assert result.numpy().tolist() == [[6.0, 9.0]]


def test_the_save_counter_is_restored_when_restore_creates_it(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    ckpt.save(str(tmp_path / "c"))
    path = ckpt.save(str(tmp_path / "c"))
    fresh = tf.train.Checkpoint(v=tf.Variable(0.0))
    fresh.restore(path).assert_consumed()
    assert int(fresh.save_counter.numpy()) == 2


def test_a_deferred_value_of_the_wrong_shape_is_refused_on_creation(tmp_path):
    path = _saved(tmp_path)
    model = Lazy()
    tf.train.Checkpoint(model=model).read(path)
    with pytest.raises(ValueError, match="Received incompatible tensor with shape"):
        model(tf.ones([1, 4]))


def test_waiting_restorations_do_not_keep_their_objects_alive(tmp_path):
    import gc
    import weakref

    path = _saved(tmp_path)
    model = Lazy()
    tf.train.Checkpoint(model=model).read(path)  # model.w and model.head wait on model
    alive = weakref.ref(model)
    del model
    gc.collect()
    assert alive() is None
