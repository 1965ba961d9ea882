"""`CheckpointOptions` (TensorFlow's `tf.train.CheckpointOptions`): options of a save or
restore. Saving here is synchronous and on the host, so the device and asynchronous options
are accepted and change nothing; write callbacks run after each checkpoint is written."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any


class CheckpointOptions:
    """Options for `Checkpoint.save`, `write`, `restore` and `read`."""

    def __init__(self, experimental_io_device: str | None = None,
                 experimental_enable_async_checkpoint: bool = False,
                 experimental_write_callbacks: Sequence[Callable[..., Any]] | None = None,
                 enable_async: bool = False,
                 experimental_sharding_callback: Any = None,
                 experimental_skip_slot_variables: bool = False) -> None:
        self.experimental_io_device = experimental_io_device
        self.experimental_enable_async_checkpoint = experimental_enable_async_checkpoint
        self.enable_async = enable_async
        self.experimental_write_callbacks = (None if experimental_write_callbacks is None
                                             else list(experimental_write_callbacks))
        self.experimental_sharding_callback = experimental_sharding_callback
        self.experimental_skip_slot_variables = experimental_skip_slot_variables

    def run_write_callbacks(self, save_path: str) -> None:
        """Calls each write callback, with the checkpoint's prefix if it takes an argument."""
        for callback in self.experimental_write_callbacks or ():
            try:
                takes_path = bool(inspect.signature(callback).parameters)
            except (TypeError, ValueError):
                takes_path = True
            if takes_path:
                callback(save_path)
            else:
                callback()
