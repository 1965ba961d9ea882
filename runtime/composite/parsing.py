"""tf.io.parse_example and parse_single_example: serialized tf.train.Example records
parsed (runtime.ops.parsing_ops), VarLenFeatures given as SparseTensors and RaggedFeatures
as RaggedTensors (rows of the batch; a dense vector for one record)."""

from __future__ import annotations

from typing import Any

from runtime import dtypes
from runtime.composite.ragged import RaggedTensor
from runtime.composite.sparse import SparseTensor
from runtime.ops import parsing_ops


class RaggedFeature:
    """A feature with any number of values of `dtype` per record, parsed as a RaggedTensor
    (one row per record). `value_key` names the feature to read (default: the key it is
    given under); `partitions` (further ragged dimensions) are not supported."""

    def __init__(self, dtype: Any, value_key: str | None = None, partitions: Any = (),
                 row_splits_dtype: Any = dtypes.int64, validate: bool = False) -> None:
        if partitions:
            raise NotImplementedError("RaggedFeature with partitions is not supported")
        self.dtype = parsing_ops.VarLenFeature(dtype).dtype
        self.value_key = value_key
        self.partitions = ()
        self.row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        if self.row_splits_dtype is not dtypes.int64:
            raise NotImplementedError("RaggedFeature: row splits are int64 here, got %s"
                                      % self.row_splits_dtype.name)
        self.validate = validate

    def __repr__(self) -> str:
        return "RaggedFeature(dtype=%s, value_key=%r)" % (self.dtype.name, self.value_key)


def _as_var_len(features: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The features with each RaggedFeature read as a VarLenFeature of its value key, and
    {ragged key: the VarLenFeature's key}."""
    if not isinstance(features, dict):
        return features, {}
    plain = {k: f for k, f in features.items() if not isinstance(f, RaggedFeature)}
    ragged = {}
    for key, feature in features.items():
        if isinstance(feature, RaggedFeature):
            source = feature.value_key or key
            if source in plain and not (isinstance(plain[source], parsing_ops.VarLenFeature)
                                        and plain[source].dtype is feature.dtype):
                raise ValueError("parse_example: RaggedFeature %r reads feature %r, which "
                                 "another feature reads differently" % (key, source))
            ragged[key] = source
            plain[source] = parsing_ops.VarLenFeature(feature.dtype)
    return plain, ragged


def _wrap(parsed: dict[str, Any], features: dict[str, Any], ragged: dict[str, str],
          single: bool) -> dict[str, Any]:
    result = {}
    for key, value in parsed.items():
        if key in features and key not in ragged:
            result[key] = SparseTensor(*value) if isinstance(value, tuple) else value
    for key, source in ragged.items():
        indices, values, dense_shape = parsed[source]
        if single:
            result[key] = values
            continue
        result[key] = RaggedTensor.from_value_rowids(values, indices[:, 0],
                                                     nrows=dense_shape[0])
    return result


def parse_single_example(serialized: Any, features: dict[str, Any], example_names: Any = None,
                         name: str | None = None) -> dict[str, Any]:
    """The features of one serialized Example (a scalar string): a tensor of the declared
    shape per FixedLenFeature, a 1-D SparseTensor per VarLenFeature, a vector per
    RaggedFeature."""
    plain, ragged = _as_var_len(features)
    return _wrap(parsing_ops.parse_components(serialized, plain, single=True), features,
                 ragged, single=True)


def parse_example(serialized: Any, features: dict[str, Any], example_names: Any = None,
                  name: str | None = None) -> dict[str, Any]:
    """The features of a batch of serialized Examples (a string vector): a tensor of shape
    (batch,) + shape per FixedLenFeature, a 2-D SparseTensor (row, position) per
    VarLenFeature, a RaggedTensor of one row per record per RaggedFeature."""
    plain, ragged = _as_var_len(features)
    return _wrap(parsing_ops.parse_components(serialized, plain, single=False), features,
                 ragged, single=False)
