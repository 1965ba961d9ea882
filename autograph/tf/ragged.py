"""`tf.ragged`: ragged tensors, rows of different lengths (runtime.composite.ragged
implements them; runtime.composite.ragged_functions the functions)."""

from runtime.composite.ragged import RaggedTensorSpec, constant
from runtime.composite.ragged_functions import (
    boolean_mask,
    map_flat_values,
    range,
    row_splits_to_segment_ids,
    segment_ids_to_row_splits,
    stack,
)

__all__ = ["RaggedTensorSpec", "boolean_mask", "constant", "map_flat_values", "range",
           "row_splits_to_segment_ids", "segment_ids_to_row_splits", "stack"]
