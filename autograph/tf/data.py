"""`tf.data`: input pipelines (map/filter/reduce functions get the converter of the Function
being traced)."""

import types as _types

from runtime import data as _data

Dataset = _data.Dataset
Iterator = _data.Iterator
TextLineDataset = _data.TextLineDataset
TFRecordDataset = _data.TFRecordDataset
AUTOTUNE = _data.AUTOTUNE
INFINITE_CARDINALITY = _data.INFINITE_CARDINALITY
UNKNOWN_CARDINALITY = _data.UNKNOWN_CARDINALITY

experimental = _types.ModuleType("autograph.tf.data.experimental", "tf.data constants.")
experimental.AUTOTUNE = AUTOTUNE
experimental.INFINITE_CARDINALITY = INFINITE_CARDINALITY
experimental.UNKNOWN_CARDINALITY = UNKNOWN_CARDINALITY
experimental.CsvDataset = _data.CsvDataset
experimental.dense_to_ragged_batch = _data.dense_to_ragged_batch
experimental.make_csv_dataset = _data.make_csv_dataset
experimental.choose_from_datasets = Dataset.choose_from_datasets
experimental.sample_from_datasets = Dataset.sample_from_datasets
