"""`tf.train`: checkpoints of variables and modules, in TensorFlow's format."""

from runtime.checkpoint.checkpoint import Checkpoint
from runtime.checkpoint.management import CheckpointManager, latest_checkpoint
from runtime.checkpoint.options import CheckpointOptions
from runtime.checkpoint.reader import list_variables, load_checkpoint
