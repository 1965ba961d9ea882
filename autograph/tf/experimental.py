"""`tf.experimental`: the shapes of ragged tensors as values."""

from runtime.composite.ragged_shape import DynamicRaggedShape, RowPartition
