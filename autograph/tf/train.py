"""`tf.train`: checkpoints of variables and modules, in TensorFlow's format."""

from runtime.checkpoint.checkpoint import Checkpoint
from runtime.checkpoint.management import CheckpointManager, latest_checkpoint
from runtime.checkpoint.options import CheckpointOptions
from runtime.checkpoint.reader import list_variables, load_checkpoint
from runtime.io import example as _example

# tf.train.Example and its parts are protocol buffer classes built from a descriptor on
# first use (runtime.io.example), so that the protobuf package stays optional
_EXAMPLE_MESSAGES = ("Example", "Features", "Feature", "BytesList", "FloatList", "Int64List")


def __getattr__(name):
    if name in _EXAMPLE_MESSAGES:
        return _example.messages()[name]
    raise AttributeError("module 'autograph.tf.train' has no attribute %r" % name)
