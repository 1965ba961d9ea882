"""tf.io.parse_example and parse_single_example: serialized tf.train.Example records
parsed (runtime.ops.parsing_ops), VarLenFeatures given as SparseTensors."""

from __future__ import annotations

from typing import Any

from runtime.composite.sparse import SparseTensor
from runtime.ops import parsing_ops


def _wrap(parsed: dict[str, Any]) -> dict[str, Any]:
    return {k: SparseTensor(*v) if isinstance(v, tuple) else v for k, v in parsed.items()}


def parse_single_example(serialized: Any, features: dict[str, Any], example_names: Any = None,
                         name: str | None = None) -> dict[str, Any]:
    """The features of one serialized Example (a scalar string): a tensor of the declared
    shape per FixedLenFeature, a 1-D SparseTensor per VarLenFeature."""
    return _wrap(parsing_ops.parse_components(serialized, features, single=True))


def parse_example(serialized: Any, features: dict[str, Any], example_names: Any = None,
                  name: str | None = None) -> dict[str, Any]:
    """The features of a batch of serialized Examples (a string vector): a tensor of shape
    (batch,) + shape per FixedLenFeature, a 2-D SparseTensor (row, position) per
    VarLenFeature."""
    return _wrap(parsing_ops.parse_components(serialized, features, single=False))
