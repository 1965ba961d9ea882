"""`tf.summary`: summaries for TensorBoard, written to real event files, eagerly and on
every call of a Function."""

from autograph.tf._namespaces import namespace as _namespace
from runtime.ops.summary_ops import histogram, image, scalar, text
from runtime.summary import writers as _writers
from runtime.summary.trace import trace_export, trace_off, trace_on
from runtime.summary.writers import (
    SummaryWriter,
    create_file_writer,
    create_noop_writer,
    flush,
    record_if,
)

experimental = _namespace(
    "autograph.tf.summary.experimental", "The default step of summaries.",
    get_step=_writers.get_step,
    set_step=_writers.set_step)
