"""Reading a checkpoint's tensors by key, without objects (TensorFlow's
`tf.train.load_checkpoint`, `tf.train.list_variables`).

    reader = load_checkpoint("/tmp/run")     # a folder: its latest checkpoint
    reader.get_variable_to_shape_map()       # {'model/w/.ATTRIBUTES/VARIABLE_VALUE': [2, 3]}
    reader.get_tensor("model/w/.ATTRIBUTES/VARIABLE_VALUE")   # numpy
"""

from __future__ import annotations

import os

import numpy as np

from runtime import dtypes
from runtime.checkpoint import bundle
from runtime.checkpoint.management import latest_checkpoint


def _prefix(ckpt_dir_or_file: str | os.PathLike[str]) -> str:
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise ValueError("Couldn't find 'checkpoint' file or checkpoints in given "
                             "directory %s" % path)
        return latest
    return path


class CheckpointReader:
    """The tensors of one checkpoint, by key."""

    def __init__(self, prefix: str) -> None:
        self._bundle = bundle.BundleReader(prefix)

    def has_tensor(self, name: str) -> bool:
        """Whether the checkpoint holds a tensor under `name`."""
        return name in self._bundle.entries

    def get_tensor(self, name: str) -> np.ndarray | bytes:
        """The tensor stored under `name` as numpy (a string scalar as bytes)."""
        value = self._bundle.tensor(name)
        if value.dtype == object and value.shape == ():
            return bytes(value.item())
        return value

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        """Each key's shape, as a list."""
        return {name: list(entry.shape) for name, entry in self._bundle.entries.items()}

    def get_variable_to_dtype_map(self) -> dict[str, dtypes.DType]:
        """Each key's dtype, as a DType (keys of dtypes this runtime lacks are left out)."""
        found = {}
        for name, entry in self._bundle.entries.items():
            label = bundle.DTYPES.get(entry.dtype, ("",))[0]
            try:
                found[name] = dtypes.as_dtype(label)
            except TypeError:
                continue
        return found


def load_checkpoint(ckpt_dir_or_file: str | os.PathLike[str]) -> CheckpointReader:
    """A reader of the checkpoint at `ckpt_dir_or_file` (a prefix, or a folder whose latest
    checkpoint is read)."""
    return CheckpointReader(_prefix(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file: str | os.PathLike[str]) -> list[tuple[str, list[int]]]:
    """(key, shape) of every tensor in the checkpoint, sorted by key."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return sorted(shapes.items())
