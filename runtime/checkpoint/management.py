"""Checkpoint folders: `latest_checkpoint` and `CheckpointManager` (TensorFlow's
`tf.train.latest_checkpoint`, `tf.train.CheckpointManager`).

    manager = CheckpointManager(Checkpoint(model=model), "/tmp/run", max_to_keep=3)
    manager.restore_or_initialize()        # resume from the latest checkpoint, if any
    for step in ...:
        manager.save()                     # /tmp/run/ckpt-1, -2, ...; the oldest beyond 3
                                           # deleted, one every n hours kept if asked

The manager's record (the folder's `checkpoint` file) lists the checkpoints it keeps with
their times, so a new manager on the same folder carries on where the last one stopped.
A manager deletes only checkpoints inside its own folder.
"""

from __future__ import annotations

import collections
import contextlib
import glob
import os
import time
from collections.abc import Callable
from typing import Any

from runtime import errors
from runtime.checkpoint import bundle, files, state
from runtime.checkpoint.checkpoint import Checkpoint
from runtime.checkpoint.options import CheckpointOptions


def latest_checkpoint(checkpoint_dir: str | os.PathLike[str],
                      latest_filename: str | None = None) -> str | None:
    """The prefix of the newest checkpoint recorded in `checkpoint_dir`'s `checkpoint`
    file, or None when there is none or its files are gone."""
    folder = os.fspath(checkpoint_dir)
    if latest_filename not in (None, state.STATE_FILE):
        raise ValueError("only the default state file name %r is supported"
                         % state.STATE_FILE)
    recorded = state.read(folder)
    if recorded is None or not recorded.model_checkpoint_path:
        return None
    prefix = recorded.model_checkpoint_path
    return prefix if files.exists(bundle.index_path(prefix)) else None


def _evaluate(value: Any) -> int:
    return int(value.numpy()) if hasattr(value, "numpy") else int(value)


class CheckpointManager:
    """Numbers, records and prunes the checkpoints of one Checkpoint in one folder."""

    def __init__(self, checkpoint: Checkpoint, directory: str | os.PathLike[str],
                 max_to_keep: int | None, keep_checkpoint_every_n_hours: float | None = None,
                 checkpoint_name: str = "ckpt", step_counter: Any = None,
                 checkpoint_interval: int | None = None,
                 init_fn: Callable[[], Any] | None = None,
                 last_checkpoint_step: int | None = None) -> None:
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError("Expected a positive integer or `None` for `max_to_keep`, got %d."
                             % max_to_keep)
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not "
                             "None.")
        self._checkpoint = checkpoint
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._directory = os.fspath(directory)
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._last_checkpoint_step = last_checkpoint_step
        self._init_fn = init_fn
        self._maybe_delete: collections.OrderedDict[str, float] = collections.OrderedDict()
        now = time.time()
        recorded = state.read(self._directory)
        if recorded is None:
            self._latest_checkpoint: str | None = None
            self._last_preserved_timestamp = now - 1.0
            return
        self._latest_checkpoint = recorded.model_checkpoint_path or None
        self._last_preserved_timestamp = min(recorded.last_preserved_timestamp, now)
        stamps = recorded.all_model_checkpoint_timestamps or (
            [self._last_preserved_timestamp] * len(recorded.all_model_checkpoint_paths))
        for path, stamp in zip(recorded.all_model_checkpoint_paths, stamps):
            stamp = min(stamp, now)
            if stamp > self._last_preserved_timestamp:
                self._maybe_delete[path] = stamp

    @property
    def directory(self) -> str:
        """The folder the checkpoints are written to."""
        return self._directory

    @property
    def checkpoint(self) -> Checkpoint:
        """The Checkpoint this manager saves."""
        return self._checkpoint

    @property
    def checkpoint_interval(self) -> int | None:
        """The minimum number of steps between two saves, or None."""
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self) -> str | None:
        """The prefix of the newest checkpoint, or None."""
        return self._latest_checkpoint

    @property
    def checkpoints(self) -> list[str]:
        """The checkpoints this manager keeps (not those kept every n hours), oldest first."""
        return list(self._maybe_delete)

    def save(self, checkpoint_number: Any = None, check_interval: bool = True,
             options: CheckpointOptions | None = None) -> str | None:
        """Writes a new checkpoint, numbered by `checkpoint_number` or the Checkpoint's
        `save_counter` (incremented either way), records it and deletes the oldest beyond
        `max_to_keep`; returns its prefix, or None when `checkpoint_interval` steps have not
        passed since the last save."""
        if self._checkpoint_interval is not None:
            step = _evaluate(self._step_counter)
            if self._last_checkpoint_step is not None:
                if step == self._last_checkpoint_step:
                    return None
                if check_interval and step < (self._last_checkpoint_step
                                              + self._checkpoint_interval):
                    return None
            self._last_checkpoint_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        number = _evaluate(counter if checkpoint_number is None else checkpoint_number)
        path = self._checkpoint.write("%s-%d" % (self._prefix, number))
        self._maybe_delete.pop(path, None)
        self._maybe_delete[path] = time.time()
        self._latest_checkpoint = path
        self._sweep()
        self._record()
        if options is not None:
            options.run_write_callbacks(path)
        return path

    def restore_or_initialize(self) -> str | None:
        """Restores the latest checkpoint and returns its prefix; without one, runs
        `init_fn` (if given) and returns None."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            if self._checkpoint_interval is not None:
                self._last_checkpoint_step = _evaluate(self._step_counter)
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None

    def sync(self) -> None:
        """Waits for saves in progress: none, since saving is synchronous."""

    def _record(self) -> None:
        state.write(self._directory, state.CheckpointState(
            self._latest_checkpoint or "", list(self._maybe_delete),
            list(self._maybe_delete.values()), self._last_preserved_timestamp))

    def _sweep(self) -> None:
        if not self._max_to_keep:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = self._maybe_delete.popitem(last=False)
            hours = self._keep_checkpoint_every_n_hours
            if hours and stamp - hours * 3600.0 >= self._last_preserved_timestamp:
                self._last_preserved_timestamp = stamp
                continue
            self._delete(path)

    def _delete(self, prefix: str) -> None:
        home = os.path.realpath(self._directory)
        if os.path.dirname(os.path.realpath(prefix)) != home:
            raise errors.FailedPreconditionError(
                "%s: the checkpoint record names %s, outside the manager's folder; refusing "
                "to delete it" % (os.path.join(self._directory, state.STATE_FILE), prefix))
        for path in [bundle.index_path(prefix)] + glob.glob(
                glob.escape(prefix) + ".data-?????-of-?????"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
