"""`Checkpoint` (TensorFlow's `tf.train.Checkpoint`): saves the variables reachable from
the objects it is given, and restores them, in TensorFlow's format and under TensorFlow's
keys, so that each side reads the other's checkpoints.

    ckpt = Checkpoint(model=model, step=step)
    path = ckpt.save("/tmp/run/ckpt")      # '/tmp/run/ckpt-1', numbered by save_counter,
                                           # and recorded for latest_checkpoint('/tmp/run')
    ckpt.restore(path).assert_consumed()   # values back; checks every one found its object
    ckpt.write("/tmp/w"); ckpt.read("/tmp/w")   # the same, unnumbered and unrecorded
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any, Union

import numpy as np

from runtime import context, dtypes, errors
from runtime.checkpoint import bundle, deferred, protos, state, trackables
from runtime.checkpoint.options import CheckpointOptions
from runtime.checkpoint.restore import (
    CheckpointLoadStatus,
    InitializationOnlyStatus,
    Restoration,
)
from runtime.variables import Variable

Path = Union[str, "os.PathLike[str]"]
Options = Union[CheckpointOptions, None]


class Checkpoint:
    """Groups trackable objects (Variables, Modules, other Checkpoints, containers of
    them) to save and restore together; keyword names are the first part of the keys."""

    _checkpoint_objects: dict[str, Any]
    _root: Any
    _save_counter: Variable | None

    def __init__(self, root: Any = None, **kwargs: Any) -> None:
        object.__setattr__(self, "_checkpoint_objects", {})
        object.__setattr__(self, "_root", root)
        object.__setattr__(self, "_save_counter", None)
        if root is not None:
            _check_trackable(root, "root")
            kwargs["root"] = root
        for name, value in sorted(kwargs.items()):
            _check_trackable(value, name)
            if root is not None and name != "root":
                existing = trackables.child(root, name)
                if existing is not None and existing is not value:
                    raise ValueError("Cannot create a Checkpoint with keyword argument %s if "
                                     "root.%s already exists." % (name, name))
            setattr(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if not name.startswith("_") and trackables.is_trackable(value):
            self._checkpoint_objects[name] = value
        elif name in self._checkpoint_objects:
            del self._checkpoint_objects[name]
        if deferred._PENDING:
            deferred.attribute_set(self, name, value)

    def _checkpoint_children(self) -> Iterator[tuple[str, Any]]:
        """The objects this Checkpoint saves, by name (when it has no `root`)."""
        yield from self._checkpoint_objects.items()
        if self._save_counter is not None:
            yield "save_counter", self._save_counter

    def _graph(self) -> tuple[Any, list[tuple[str, Any]]]:
        """The object graph's root and the extra children attached to it."""
        if self._root is None:
            return self, []
        attached = [(name, value) for name, value in self._checkpoint_children()
                    if name != "root"]
        return self._root, attached

    @property
    def save_counter(self) -> Variable:
        """An int64 Variable counting `save` calls (it numbers the checkpoints); created on
        first use, restored with the checkpoint."""
        self._maybe_create_save_counter()
        assert self._save_counter is not None
        return self._save_counter

    def _maybe_create_save_counter(self) -> None:
        if self._save_counter is not None:
            return
        with context.eager_scope():
            counter = Variable(0, dtype=dtypes.int64, trainable=False, name="save_counter")
        object.__setattr__(self, "_save_counter", counter)
        owner = self if self._root is None else self._root
        if deferred._PENDING:
            deferred.attribute_set(owner, "save_counter", counter)

    # -- saving ------------------------------------------------------------------------------
    def write(self, file_prefix: Path, options: Options = None) -> str:
        """Writes a checkpoint at `file_prefix` (its `.index` and `.data-00000-of-00001`
        files) without numbering it or recording it as the latest; returns the prefix."""
        prefix = os.fspath(file_prefix)
        _refuse_in_trace("write")
        root, attached = self._graph()
        gathered = trackables.gather(root, attached)
        tensors = []
        for key, variable in gathered.variables():
            value = variable._value
            if value is None:
                raise errors.FailedPreconditionError(
                    "cannot save %s: the variable %s has no value yet" % (key, variable.name))
            tensors.append((key, variable.dtype.name, value))
        tensors.extend(trackables.saved_state(gathered))
        tensors.append((trackables.OBJECT_GRAPH_KEY, "string",
                        _scalar_bytes(protos.encode_object_graph(gathered.nodes))))
        folder = os.path.dirname(prefix)
        if folder:
            os.makedirs(folder, exist_ok=True)
        bundle.write(prefix, tensors)
        if options is not None:
            options.run_write_callbacks(prefix)
        return prefix

    def save(self, file_prefix: Path, options: Options = None) -> str:
        """Adds one to `save_counter`, writes the checkpoint `<file_prefix>-<count>` and
        records it in the folder's `checkpoint` file (read by `latest_checkpoint`);
        returns its prefix."""
        _refuse_in_trace("save")
        with context.eager_scope():
            number = int(self.save_counter.assign_add(1).numpy())
        path = self.write("%s-%d" % (os.fspath(file_prefix), number))
        folder = os.path.dirname(path) or "."
        state.write(folder, state.CheckpointState(path, [path]))
        if options is not None:  # (after the record, as TensorFlow's)
            options.run_write_callbacks(path)
        return path

    # -- restoring ---------------------------------------------------------------------------
    def read(self, save_path: Path, options: Options = None) \
            -> CheckpointLoadStatus:
        """Restores the checkpoint at `save_path` (written by `write` or `save`); values
        whose objects do not exist yet are assigned when they are created."""
        prefix = os.fspath(save_path)
        root, attached = self._graph()
        restoration = Restoration(bundle.BundleReader(prefix), root, attached)
        restoration.run()
        return CheckpointLoadStatus(restoration, root, attached)

    def restore(self, save_path: Path | None, options: Options = None) \
            -> CheckpointLoadStatus | InitializationOnlyStatus:
        """Restores the checkpoint at `save_path` (as `read`), then its `save_counter`;
        `None` restores nothing."""
        if save_path is None:
            self._maybe_create_save_counter()
            return InitializationOnlyStatus()
        try:
            status = self.read(save_path, options)
        except errors.NotFoundError as error:
            raise errors.NotFoundError(
                "Error when restoring from checkpoint or SavedModel at %s: %s\nPlease "
                "double-check that the path is correct. You may be missing the checkpoint "
                "suffix (e.g. the '-1' in 'path/to/ckpt-1')."
                % (os.fspath(save_path), error.message)) from None
        self._maybe_create_save_counter()
        return status

    def sync(self) -> None:
        """Waits for saves in progress: none, since saving is synchronous."""


def _scalar_bytes(data: bytes) -> np.ndarray:
    array = np.empty((), dtype=object)
    array[()] = data
    return array


def _check_trackable(value: Any, name: str) -> None:
    if not trackables.is_trackable(value):
        raise ValueError(
            "`Checkpoint` was expecting %s to be a trackable object (an object derived from "
            "`Trackable`), got %r. If you believe this object should be trackable (i.e. it is "
            "part of the TensorFlow Python API and manages state), please open an issue."
            % (name, value))


def _refuse_in_trace(method: str) -> None:
    if context.current_graph() is not None:
        raise NotImplementedError(
            "Calling tf.train.Checkpoint.%s() from a function is not supported: checkpoints "
            "are written eagerly. Call it outside the tf.function." % method)
