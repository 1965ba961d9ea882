"""`tf.io`: reading and writing input: CSV lines, TFRecord files and tf.train.Example
records."""

from runtime.composite.parsing import RaggedFeature, parse_example, parse_single_example
from runtime.io.tfrecord import TFRecordWriter
from runtime.ops.parsing_ops import FixedLenFeature, VarLenFeature
from runtime.ops.string_ops import decode_csv, decode_raw

__all__ = ["FixedLenFeature", "RaggedFeature", "TFRecordWriter", "VarLenFeature",
           "decode_csv", "decode_raw", "parse_example", "parse_single_example"]
