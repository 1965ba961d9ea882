"""Datasets read from files (tf.data's `TextLineDataset`, `TFRecordDataset`, `CsvDataset`
and `tf.data.experimental.make_csv_dataset`): each is a Dataset around a source stage of
runtime.data.sources that reads its files when iterated.

    for line in TextLineDataset(["a.txt", "b.txt"]):   # scalar strings, no line endings
        ...
"""

import glob

import numpy as np

from runtime import dtypes
from runtime.data import sources
from runtime.data.dataset import Dataset
from runtime.ops import string_ops

__all__ = ["CsvDataset", "TFRecordDataset", "TextLineDataset", "make_csv_dataset"]


class TextLineDataset(Dataset):
    """The lines of one or more text files, without their line endings (tf.data's)."""

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        super().__init__(sources.TextLines(filenames, compression_type))


class TFRecordDataset(Dataset):
    """The records of one or more TFRecord files (tf.data's), each a scalar string; a
    truncated or corrupt record raises DataLossError naming the file and the record."""

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        super().__init__(sources.TFRecords(filenames, compression_type))


class CsvDataset(Dataset):
    """The records of CSV files (tf.data.experimental's): each a tuple of one scalar per
    entry of `record_defaults` (a DType: a required column; a one-element value: the
    column's dtype and its value for an empty field)."""

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None,
                 header=False, field_delim=",", use_quote_delim=True, na_value="",
                 select_cols=None, exclude_cols=None, name=None):
        sources._no_compression(compression_type, "CsvDataset")
        super().__init__(sources.CsvRecords(filenames, record_defaults, header, field_delim,
                                            use_quote_delim, na_value, select_cols,
                                            exclude_cols))


def _csv_files(file_pattern):
    patterns = [file_pattern] if isinstance(file_pattern, (str, bytes)) else list(file_pattern)
    files = []
    for pattern in patterns:
        pattern = pattern.decode("utf-8") if isinstance(pattern, bytes) else str(pattern)
        files.extend(sorted(glob.glob(pattern)))
    if not files:
        raise ValueError("make_csv_dataset: no files match file_pattern %r" % (file_pattern,))
    return files


def _csv_rows(path, count, field_delim, use_quote_delim):
    with open(path, "rb") as f:
        for number, line in enumerate(f):
            if number >= count:
                return
            yield string_ops.csv_fields(line.rstrip(b"\n").rstrip(b"\r"),
                                        field_delim.encode("utf-8"), use_quote_delim, number)


def _inferred_default(fields, na_value):
    """The default (0, 0.0 or '') of the narrowest dtype (int32, int64, float32, string)
    that every field of a column parses as, as TensorFlow infers them."""
    kinds = [np.int32(0), np.int64(0), np.float32(0.0)]
    for field in fields:
        if field in (b"", na_value.encode("utf-8")):
            continue
        while kinds:
            try:
                value = float(field) if kinds[0].dtype.kind == "f" else int(field)
                if kinds[0].dtype.kind == "i" and not (np.iinfo(kinds[0].dtype).min <= value
                                                       <= np.iinfo(kinds[0].dtype).max):
                    raise ValueError
                break
            except ValueError:
                kinds.pop(0)
    return kinds[0] if kinds else ""


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None,
                     label_name=None, select_columns=None, field_delim=",",
                     use_quote_delim=True, na_value="", header=True, num_epochs=None,
                     shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False,
                     num_rows_for_inference=100, compression_type=None, ignore_errors=False):
    """Batches of the rows of the CSV files matching `file_pattern`, each a dict from
    column name to a batch of values (and with `label_name`, a (features, label) pair);
    names from the header unless `column_names`, dtypes from `column_defaults` or inferred
    from the first `num_rows_for_inference` rows; repeated `num_epochs` times (None:
    forever, then the last partial batch is dropped) and shuffled unless shuffle=False."""
    if ignore_errors:
        raise NotImplementedError("make_csv_dataset: ignore_errors is not supported")
    files = _csv_files(file_pattern)
    if column_names is None:
        if not header:
            raise ValueError("make_csv_dataset: give column_names, or files with a header")
        first: list[bytes] = next(_csv_rows(files[0], 1, field_delim, use_quote_delim), [])
        column_names = [f.decode("utf-8") for f in first]
    column_names = list(column_names)
    if len(set(column_names)) != len(column_names):
        raise ValueError("make_csv_dataset: the column names are not unique: %s"
                         % column_names)
    selected = list(range(len(column_names)))
    if select_columns is not None:
        selected = sorted(column_names.index(c) if isinstance(c, str) else int(c)
                          for c in select_columns)
    names = [column_names[i] for i in selected]
    if column_defaults is None:
        rows = list(_csv_rows(files[0], num_rows_for_inference + int(header), field_delim,
                              use_quote_delim))[int(header):]
        column_defaults = [_inferred_default([r[i] for r in rows if i < len(r)], na_value)
                           for i in selected]
    elif len(column_defaults) != len(names):
        raise ValueError("make_csv_dataset: %d column_defaults for %d columns"
                         % (len(column_defaults), len(names)))
    defaults = [d if isinstance(d, dtypes.DType) else [d] for d in column_defaults]
    if label_name is not None and label_name not in names:
        raise ValueError("make_csv_dataset: label_name %r is not one of the columns %s"
                         % (label_name, names))
    dataset = CsvDataset(files, defaults, header=header, field_delim=field_delim,
                         use_quote_delim=use_quote_delim, na_value=na_value,
                         select_cols=selected if select_columns is not None else None)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, seed=shuffle_seed)
    dataset = dataset.batch(batch_size, drop_remainder=num_epochs is None)

    def as_dict(*columns):
        features = dict(zip(names, columns))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label
    return dataset.map(as_dict)
