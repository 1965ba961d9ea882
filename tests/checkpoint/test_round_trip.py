"""Saving and restoring our own checkpoints: values, numbering, the state file, roots."""

import os

import numpy as np
import pytest

import autograph.tf as tf

from .models import Model, zeroed


def test_write_then_read_restores_every_variable(tmp_path):
    saved = Model()
    saved.matrix.assign(saved.matrix * 3.0)
    path = tf.train.Checkpoint(model=saved).write(str(tmp_path / "w"))
    assert path == str(tmp_path / "w")
    restored = zeroed(Model())
    tf.train.Checkpoint(model=restored).read(path).assert_consumed()
    for a, b in zip(saved.variables, restored.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert a.dtype == b.dtype


def test_save_numbers_checkpoints_and_records_the_latest(tmp_path):
    step = tf.Variable(0)
    ckpt = tf.train.Checkpoint(step=step)
    first = ckpt.save(str(tmp_path / "ckpt"))
    step.assign(5)
    second = ckpt.save(str(tmp_path / "ckpt"))
    assert (first, second) == (str(tmp_path / "ckpt-1"), str(tmp_path / "ckpt-2"))
    assert int(ckpt.save_counter.numpy()) == 2
    assert tf.train.latest_checkpoint(str(tmp_path)) == second
    assert (tmp_path / "checkpoint").read_text() == (
        'model_checkpoint_path: "ckpt-2"\nall_model_checkpoint_paths: "ckpt-2"\n')
    again = tf.train.Checkpoint(step=tf.Variable(9))
    again.restore(first)
    assert int(again.step.numpy()) == 0 and int(again.save_counter.numpy()) == 1


def test_restore_none_restores_nothing_and_its_status_says_so():
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    status = ckpt.restore(None)
    assert status.expect_partial() is status
    with pytest.raises(AssertionError, match="No checkpoint specified"):
        status.assert_consumed()
    assert int(ckpt.save_counter.numpy()) == 0


def test_dicts_tuples_nested_checkpoints_and_shared_variables(tmp_path):
    shared = tf.Variable([1.0, 2.0])
    module = tf.Module()
    module.table = {"a": tf.Variable(3), "b.c/d": shared}
    module.pair = (shared, tf.Variable("text"))
    inner = tf.train.Checkpoint(v=tf.Variable(7.0))
    path = tf.train.Checkpoint(m=module, inner=inner).write(str(tmp_path / "x"))
    keys = dict(tf.train.list_variables(path))
    assert "m/table/a/.ATTRIBUTES/VARIABLE_VALUE" in keys
    assert "m/table/b..c.Sd/.ATTRIBUTES/VARIABLE_VALUE" in keys  # TF's escaping
    assert "m/pair/1/.ATTRIBUTES/VARIABLE_VALUE" in keys
    assert "m/pair/0/.ATTRIBUTES/VARIABLE_VALUE" not in keys  # shared: saved once
    assert "inner/v/.ATTRIBUTES/VARIABLE_VALUE" in keys
    for variable in (shared, module.table["a"], module.pair[1], inner.v):
        variable.assign(tf.zeros_like(variable) if variable.dtype != tf.string else b"")
    tf.train.Checkpoint(m=module, inner=inner).read(path).assert_consumed()
    assert shared.numpy().tolist() == [1.0, 2.0]
    assert module.pair[1].numpy() == b"text" and float(inner.v.numpy()) == 7.0


def test_a_checkpoint_with_a_root_saves_under_the_roots_names(tmp_path):
    module = tf.Module()
    module.w = tf.Variable(2.0)
    extra = tf.Variable(5)
    path = tf.train.Checkpoint(root=module, extra=extra).write(str(tmp_path / "r"))
    assert [name for name, _ in tf.train.list_variables(path)] == [
        "_CHECKPOINTABLE_OBJECT_GRAPH", "extra/.ATTRIBUTES/VARIABLE_VALUE",
        "w/.ATTRIBUTES/VARIABLE_VALUE"]
    other = tf.Module()
    other.w = tf.Variable(0.0)
    tf.train.Checkpoint(root=other, extra=extra).read(path).assert_consumed()
    assert float(other.w.numpy()) == 2.0


def test_checkpoint_refuses_objects_it_cannot_track():
    with pytest.raises(ValueError, match="expecting model to be a trackable object"):
        tf.train.Checkpoint(model=3)


def test_saving_inside_a_function_is_refused(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))

    @tf.function
    def save():
        ckpt.save(str(tmp_path / "c"))
        return 0

    with pytest.raises(NotImplementedError, match="from a function is not supported"):
        save()


def test_writing_into_a_new_folder_creates_it(tmp_path):
    path = tf.train.Checkpoint(v=tf.Variable(1.0)).write(str(tmp_path / "a" / "b" / "c"))
    assert os.path.exists(path + ".index")
    assert sorted(os.listdir(tmp_path / "a" / "b")) == ["c.data-00000-of-00001", "c.index"]


def test_large_tensors_round_trip(tmp_path):
    big = tf.Variable(np.random.default_rng(0).normal(size=(512, 700)).astype(np.float32))
    path = tf.train.Checkpoint(big=big).write(str(tmp_path / "big"))
    values = big.numpy().copy()
    big.assign(tf.zeros_like(big))
    tf.train.Checkpoint(big=big).read(path)
    np.testing.assert_array_equal(big.numpy(), values)


def test_checkpoint_options_write_callbacks_run_after_each_checkpoint(tmp_path):
    seen = []
    options = tf.train.CheckpointOptions(experimental_write_callbacks=[
        seen.append, lambda: seen.append("no argument")],
        experimental_enable_async_checkpoint=True)
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    path = ckpt.save(str(tmp_path / "c"), options=options)
    assert seen == [path, "no argument"]
    assert tf.train.latest_checkpoint(str(tmp_path)) == path  # (written synchronously)
    seen.clear()
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path / "m"), max_to_keep=1)
    assert seen == [] and manager.save(options=options) == seen[0]


@pytest.mark.parametrize("dtype, value", [
    (tf.uint8, [1, 255]), (tf.int8, [-128, 7]), (tf.uint64, [2**64 - 1, 0]),
    (tf.float16, [0.5, -65504.0]), (tf.bfloat16, [1.5, -3.0]),
    (tf.complex64, [1 + 2j, -3j]), (tf.complex128, [0.25 - 1j, 2 + 0j])])
def test_variables_of_every_numeric_dtype_round_trip(tmp_path, dtype, value):
    variable = tf.Variable(np.array(value, dtype=dtype.as_numpy_dtype))
    saved = variable.numpy().copy()
    checkpoint = tf.train.Checkpoint(v=variable)
    path = checkpoint.save(str(tmp_path / "ckpt"))
    variable.assign(np.zeros_like(saved))
    checkpoint.restore(path)
    assert variable.dtype is dtype
    assert variable.numpy().tobytes() == saved.tobytes()
    assert tf.train.load_checkpoint(path).get_variable_to_dtype_map()[
        "v/.ATTRIBUTES/VARIABLE_VALUE"].name == dtype.name
