"""`tf.ragged`: ragged tensors, rows of different lengths (runtime.composite.ragged
implements them)."""

from runtime.composite.ragged import RaggedTensorSpec, constant
