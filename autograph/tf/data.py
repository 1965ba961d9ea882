"""`tf.data`: input pipelines (map/filter/reduce functions get the converter of the Function
being traced)."""

from autograph.tf._namespaces import namespace as _namespace
from runtime import data as _data

Dataset = _data.Dataset
Iterator = _data.Iterator
TextLineDataset = _data.TextLineDataset
TFRecordDataset = _data.TFRecordDataset
AUTOTUNE = _data.AUTOTUNE
INFINITE_CARDINALITY = _data.INFINITE_CARDINALITY
UNKNOWN_CARDINALITY = _data.UNKNOWN_CARDINALITY

experimental = _namespace(
    "autograph.tf.data.experimental", "tf.data constants.",
    AUTOTUNE=AUTOTUNE,
    INFINITE_CARDINALITY=INFINITE_CARDINALITY,
    UNKNOWN_CARDINALITY=UNKNOWN_CARDINALITY,
    CsvDataset=_data.CsvDataset,
    dense_to_ragged_batch=_data.dense_to_ragged_batch,
    make_csv_dataset=_data.make_csv_dataset,
    choose_from_datasets=Dataset.choose_from_datasets,
    sample_from_datasets=Dataset.sample_from_datasets)
