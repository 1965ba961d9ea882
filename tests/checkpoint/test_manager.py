"""CheckpointManager: numbering, retention (max_to_keep, keep_checkpoint_every_n_hours),
checkpoint_interval, the record a later manager resumes from."""

import os

import pytest

import autograph.tf as tf
from runtime.checkpoint import management


def _names(paths):
    return [os.path.basename(p) for p in paths]


def _on_disk(folder):
    return sorted(name for name in os.listdir(folder) if name.endswith(".index"))


def test_max_to_keep_deletes_the_oldest_checkpoints(tmp_path):
    step = tf.Variable(0)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(step=step), str(tmp_path),
                                         max_to_keep=2)
    assert manager.latest_checkpoint is None and manager.checkpoints == []
    for value in range(4):
        step.assign(value)
        path = manager.save()
    assert path == str(tmp_path / "ckpt-4") == manager.latest_checkpoint
    assert _names(manager.checkpoints) == ["ckpt-3", "ckpt-4"]
    assert _on_disk(tmp_path) == ["ckpt-3.index", "ckpt-4.index"]
    assert not any(name.startswith("ckpt-1") for name in os.listdir(tmp_path))
    assert tf.train.latest_checkpoint(str(tmp_path)) == path


def test_max_to_keep_none_keeps_everything_and_bad_values_are_refused(tmp_path):
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)),
                                         str(tmp_path), max_to_keep=None)
    for _ in range(3):
        manager.save()
    assert _on_disk(tmp_path) == ["ckpt-1.index", "ckpt-2.index", "ckpt-3.index"]
    with pytest.raises(ValueError, match="Expected a positive integer or `None`"):
        tf.train.CheckpointManager(manager.checkpoint, str(tmp_path), max_to_keep=0)


def test_keep_checkpoint_every_n_hours_preserves_one_per_period(tmp_path, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(management.time, "time", lambda: clock[0])
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)),
                                         str(tmp_path), max_to_keep=1,
                                         keep_checkpoint_every_n_hours=1)
    for _ in range(6):
        manager.save()
        clock[0] += 1500.0  # 25 minutes
    # saved at 0, 25, 50, 75, 100, 125 min after the start: kept past max_to_keep are the
    # first one at least an hour after the last preserved time (999 s): 75 min (ckpt-4)
    assert _on_disk(tmp_path) == ["ckpt-4.index", "ckpt-6.index"]
    assert _names(manager.checkpoints) == ["ckpt-6"]


def test_a_new_manager_resumes_the_record_of_the_last(tmp_path):
    step = tf.Variable(0)
    first = tf.train.CheckpointManager(tf.train.Checkpoint(step=step), str(tmp_path),
                                       max_to_keep=2)
    for _ in range(3):
        first.save()
    ckpt = tf.train.Checkpoint(step=tf.Variable(-1))
    second = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
    assert _names(second.checkpoints) == ["ckpt-2", "ckpt-3"]
    assert second.restore_or_initialize() == str(tmp_path / "ckpt-3")
    assert int(ckpt.save_counter.numpy()) == 3
    assert second.save() == str(tmp_path / "ckpt-4")
    assert _on_disk(tmp_path) == ["ckpt-3.index", "ckpt-4.index"]


def test_restore_or_initialize_without_checkpoints_runs_init_fn(tmp_path):
    calls = []
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)),
                                         str(tmp_path), max_to_keep=1,
                                         init_fn=lambda: calls.append(1))
    assert manager.restore_or_initialize() is None and calls == [1]


def test_checkpoint_interval_saves_only_every_n_steps(tmp_path):
    step = tf.Variable(0, dtype=tf.int64)
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(step=step), str(tmp_path),
                                         max_to_keep=None, step_counter=step,
                                         checkpoint_interval=3)
    saved = []
    for value in range(8):
        step.assign(value)
        saved.append(manager.save() is not None)
    assert saved == [True, False, False, True, False, False, True, False]
    assert manager.save(check_interval=False) is not None  # step 7, before the interval
    assert manager.save(check_interval=False) is None  # step 7 is already saved
    assert manager.checkpoint_interval == 3
    with pytest.raises(ValueError, match="`step_counter` should be passed"):
        tf.train.CheckpointManager(manager.checkpoint, str(tmp_path), max_to_keep=1,
                                   checkpoint_interval=2)


def test_checkpoint_number_names_the_checkpoint(tmp_path):
    ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
    manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=3,
                                         checkpoint_name="model")
    assert manager.save(checkpoint_number=100) == str(tmp_path / "model-100")
    assert int(ckpt.save_counter.numpy()) == 1
    assert manager.directory == str(tmp_path)


def test_a_manager_never_deletes_files_outside_its_folder(tmp_path):
    outside = tmp_path / "outside"
    tf.train.Checkpoint(v=tf.Variable(1.0)).write(str(outside / "ckpt-1"))
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "checkpoint").write_text(
        'model_checkpoint_path: "%s"\nall_model_checkpoint_paths: "%s"\n'
        'all_model_checkpoint_timestamps: 2e9\n' % (outside / "ckpt-1", outside / "ckpt-1"))
    manager = tf.train.CheckpointManager(tf.train.Checkpoint(v=tf.Variable(1.0)), str(folder),
                                         max_to_keep=1)
    with pytest.raises(tf.errors.FailedPreconditionError, match="outside the manager's folder"):
        manager.save()
    assert (outside / "ckpt-1.index").exists()
