"""What a restore reports: assert_consumed, assert_existing_objects_matched,
assert_nontrivial_match, expect_partial; and restores refused for wrong dtypes, shapes
and paths."""

import gc

import pytest

import autograph.tf as tf


def _module(**variables):
    module = tf.Module()
    for name, variable in variables.items():
        setattr(module, name, variable)
    return module


def _saved(tmp_path):
    return tf.train.Checkpoint(model=_module(a=tf.Variable(1.0), b=tf.Variable([2, 3]))).write(
        str(tmp_path / "s"))


def test_assert_consumed_passes_when_everything_matched(tmp_path):
    status = tf.train.Checkpoint(model=_module(a=tf.Variable(0.0), b=tf.Variable([0, 0]))).read(
        _saved(tmp_path))
    assert status.assert_consumed() is status
    assert status.assert_existing_objects_matched() is status
    assert status.assert_nontrivial_match() is status


def test_a_value_left_in_the_checkpoint_fails_assert_consumed_only(tmp_path):
    model = _module(a=tf.Variable(0.0))
    status = tf.train.Checkpoint(model=model).read(_saved(tmp_path))
    assert float(model.a.numpy()) == 1.0
    status.assert_existing_objects_matched()
    with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint \(root\).model.b"):
        status.assert_consumed()
    assert status.expect_partial() is status


def test_a_variable_without_a_saved_value_fails_both_assertions(tmp_path):
    model = _module(a=tf.Variable(0.0), b=tf.Variable([0, 0]), c=tf.Variable(4.0))
    status = tf.train.Checkpoint(model=model).read(_saved(tmp_path))
    for check in (status.assert_existing_objects_matched, status.assert_consumed):
        with pytest.raises(AssertionError, match=r"Found 1 Python objects that were not "
                                                 r"bound.*\(root\).model.c"):
            check()
    assert float(model.c.numpy()) == 4.0


def test_nothing_matched_but_the_root_fails_assert_nontrivial_match(tmp_path):
    status = tf.train.Checkpoint(other=_module(z=tf.Variable(0.0))).read(_saved(tmp_path))
    with pytest.raises(AssertionError, match="Nothing except the root object matched"):
        status.assert_nontrivial_match()


def test_a_dtype_mismatch_is_refused_naming_the_key(tmp_path):
    model = _module(a=tf.Variable(0.0), b=tf.Variable([0.0, 0.0]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="model/b/.ATTRIBUTES/VARIABLE_VALUE.*holds int32.*is float32"):
        tf.train.Checkpoint(model=model).read(_saved(tmp_path))


def test_a_shape_mismatch_is_refused_naming_the_variable(tmp_path):
    model = _module(a=tf.Variable(0.0), b=tf.Variable([0, 0, 0]))
    with pytest.raises(ValueError, match=r"incompatible tensor with shape \(2,\).*shape \(3,\)"):
        tf.train.Checkpoint(model=model).read(_saved(tmp_path))


def test_restoring_a_missing_checkpoint_raises_not_found_with_tensorflows_hint(tmp_path):
    with pytest.raises(tf.errors.NotFoundError, match="missing the checkpoint suffix"):
        tf.train.Checkpoint(v=tf.Variable(1.0)).restore(str(tmp_path / "nothing"))
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files"):
        tf.train.load_checkpoint(str(tmp_path / "nothing"))
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file"):
        tf.train.load_checkpoint(str(tmp_path))
    assert tf.train.latest_checkpoint(str(tmp_path)) is None



def test_dropping_a_partial_restore_logs_the_unrestored_values(tmp_path, caplog):
    path = _saved(tmp_path)
    module = _module(a=tf.Variable(0.0))
    status = tf.train.Checkpoint(model=module).read(path)
    with caplog.at_level("WARNING", logger="autograph.checkpoint"):
        del status
        gc.collect()
        assert str(tmp_path) not in caplog.text  # module.b may still be set
        del module
        gc.collect()
    assert "unrestored values" in caplog.text and "(root).model.b" in caplog.text
    assert str(tmp_path) in caplog.text


def test_no_warning_while_objects_wait_or_after_they_were_restored(tmp_path, caplog):
    path = _saved(tmp_path)
    module = _module(a=tf.Variable(0.0))
    with caplog.at_level("WARNING", logger="autograph.checkpoint"):
        tf.train.Checkpoint(model=module).read(path)  # status and checkpoint dropped at once
        gc.collect()
        assert str(tmp_path) not in caplog.text  # module.b is still awaited
        module.b = tf.Variable([0, 0])
        gc.collect()
    assert str(tmp_path) not in caplog.text and module.b.numpy().tolist() == [2, 3]


def test_expect_partial_silences_the_unrestored_values_warning(tmp_path, caplog):
    path = _saved(tmp_path)
    module = _module(a=tf.Variable(0.0))
    status = tf.train.Checkpoint(model=module).read(path).expect_partial()
    with caplog.at_level("WARNING", logger="autograph.checkpoint"):
        del status, module
        gc.collect()
    assert str(tmp_path) not in caplog.text
