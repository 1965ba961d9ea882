"""Summary ops (`tf.summary.scalar`, `histogram`, `text`, `image`): each writes one value
to an event file for TensorBoard when it runs, eagerly or on every call of a Function.

An op's kernel reads the recording state when it runs (runtime/summary/writers.py). What
the traced function set itself is fixed by the trace: a writer made default inside it (its
own `with writer.as_default():`), a `record_if` condition entered inside it (an input; a
callable is called while tracing, as TensorFlow does) and `step=` (an input). Everything
else is read when the op runs: the writer default then (none: nothing is written), the
condition of the `record_if` around the call (a callable is called then) and the default
step (an int, a tensor or a Variable, read then). Each op returns a bool tensor: whether it
wrote.

    with writer.as_default():
        scalar("loss", 0.5, step=3)    # Summary{tag 'loss', tensor float32 0.5, plugin 'scalars'}

Each op has side effects and runs Python (host_only): a compiled backend calls its kernel
on the host, in program order.
"""

from typing import Any

import numpy as np

from runtime import context, dtypes, lowering_api
from runtime.ops import attr_types, common, registry
from runtime.ops.registry import KERNEL_CALL, NOT_DIFFERENTIABLE, execute, register
from runtime.summary import png, protos, writers
from runtime.tensor import SymbolicTensor, Tensor

OPS = {}
DEFAULT_BUCKET_COUNT = 30  # TensorBoard's histogram default

_HOST_CALL = {"jax": lowering_api.KERNEL_ON_HOST, "numba": lowering_api.KERNEL_ON_HOST}


# -- run-time state --------------------------------------------------------------------------------
def _current_value(value):
    """A condition's or step's value now: a callable is called, a tensor or variable read."""
    if callable(value) and not isinstance(value, Tensor):
        with context.eager_scope():
            value = value()
    numpy = getattr(value, "numpy", None)
    return numpy() if numpy is not None else value


def _recording(condition_input):
    if condition_input is not None:
        return bool(np.all(condition_input))
    active, condition, _ = writers.recording_condition()
    return not active or bool(np.all(_current_value(condition)))


def _step_now(step_input):
    if step_input is not None:
        return int(step_input)
    step = writers.get_step()
    if step is None:
        raise ValueError("no step set for the summary: pass `step=` or set one with "
                         "tf.summary.experimental.set_step()")
    return int(np.asarray(_current_value(step)))


def _write_kernel(data, *extra, kind, tag, description, has_step, has_condition, writer,
                  buckets=DEFAULT_BUCKET_COUNT, max_outputs=3):
    """Writes one summary of `data` (step and condition follow as inputs when staged)."""
    rest = list(extra)
    step_input = rest.pop(0) if has_step else None
    condition_input = rest.pop(0) if has_condition else None
    writer = writer if writer is not None else writers.default_writer()
    if writer is None or not _recording(condition_input):
        return np.array(False)
    step = _step_now(step_input)
    encode, plugin, data_class = _KINDS[kind]
    tensor = encode(np.asarray(data), buckets=buckets, max_outputs=max_outputs)
    writer.write_event(step, summary=protos.summary_value(tag, tensor, plugin, data_class,
                                                           description))
    return np.array(True)


def _write_infer(specs, attrs):
    return [(dtypes.bool_, ())]


# -- what each kind stores ----------------------------------------------------------------------
def _scalar_tensor(data, **_):
    return protos.tensor(np.float32(data.reshape(())), dtypes.float32)


def histogram_buckets(data, bucket_count=DEFAULT_BUCKET_COUNT):
    """TensorBoard's histogram of `data`: a float64 array [bucket_count, 3] of (left edge,
    right edge, count), equal-width buckets from the minimum to the maximum (the last
    bucket closed); all zeros for no data; all edges at the value, and every count in the
    last bucket, when the data are all equal."""
    data = np.asarray(data, np.float64).reshape(-1)
    if bucket_count == 0 or data.size == 0:
        return np.zeros((bucket_count, 3))
    if not np.isfinite(data).all():
        raise ValueError("histogram data contain NaN or infinity")
    low, high = data.min(), data.max()
    if low == high:
        counts = np.zeros(bucket_count)
        counts[-1] = data.size
        return np.stack([np.full(bucket_count, low), np.full(bucket_count, low), counts], 1)
    width = (high - low) / bucket_count
    index = np.minimum(np.floor((data - low) / width).astype(np.int64), bucket_count - 1)
    counts = np.bincount(index, minlength=bucket_count).astype(np.float64)
    edges = np.linspace(low, high, bucket_count + 1)
    return np.stack([edges[:-1], edges[1:], counts], 1)


def _histogram_tensor(data, buckets, **_):
    return protos.tensor(histogram_buckets(data, buckets), dtypes.float64)


def _text_tensor(data, **_):
    return protos.tensor(data, dtypes.string)


def image_uint8(images):
    """Images as uint8: floats are taken in [0, 1], scaled by 255.5 and saturated (what
    `tf.image.convert_image_dtype(..., tf.uint8, saturate=True)` gives); uint8 as they are."""
    if images.dtype == np.uint8:
        return images
    return np.clip(images.astype(np.float64) * 255.5, 0, 255).astype(np.uint8)


def _image_tensor(data, max_outputs, **_):
    _, height, width, _ = data.shape
    shown = image_uint8(data[:max_outputs])
    items = [b"%d" % width, b"%d" % height] + [png.encode(image) for image in shown]
    return protos.tensor(np.array(items, dtype=object), dtypes.string)


# kind -> (what the tensor holds, TensorBoard plugin, data class)
_KINDS: dict[str, tuple[Any, ...]] = {
    "scalar": (_scalar_tensor, "scalars", protos.DATA_CLASS_SCALAR),
    "histogram": (_histogram_tensor, "histograms", protos.DATA_CLASS_TENSOR),
    "text": (_text_tensor, "text", protos.DATA_CLASS_TENSOR),
    "image": (_image_tensor, "images", protos.DATA_CLASS_BLOB_SEQUENCE),
}


# -- saving ---------------------------------------------------------------------------------------
def _encode_writer(writer):
    if writer is None:
        return None
    raise TypeError("it writes summaries to the writer of %s, made default while the "
                    "function was traced; a saved model cannot hold a writer (trace the "
                    "function outside `writer.as_default()`: it then writes to the writer "
                    "default when it runs)" % getattr(writer, "logdir", "a summary writer"))


def _decode_writer(data):
    if data is not None:
        raise ValueError("a summary op's writer is always saved as null, got %r" % (data,))
    return None


OPS["WriteSummary"] = register(
    "WriteSummary", _write_kernel, _write_infer, grad=NOT_DIFFERENTIABLE, emit=KERNEL_CALL,
    traits=("side_effects", "host_only"), lowerings=_HOST_CALL,
    attr_types={"kind": attr_types.choice(*_KINDS)},
    saving=registry.attr_codecs(writer=registry.AttrCodec(_encode_writer, _decode_writer),
                                file_output=lambda attrs: "the event file of the summary "
                                                          "writer that is default when it runs"))


# -- public functions ---------------------------------------------------------------------------
def _staged_condition():
    """The innermost `record_if` condition as a tensor input when its context was entered in
    the function being traced (a callable is called now, as TensorFlow does); else None, and
    the kernel reads the condition current when it runs."""
    active, condition, graph = writers.recording_condition()
    if not active or graph is None or graph is not context.current_graph():
        return None
    if callable(condition) and not isinstance(condition, Tensor):
        condition = condition()
    return common.convert_to_tensor(condition, dtypes.bool_)


def _staged_step(step):
    if step is not None:
        return common.convert_to_tensor(step, dtype_hint=dtypes.int64)
    default = writers.get_step()
    if isinstance(default, SymbolicTensor):  # set_step() inside this trace
        return default
    return None


def _write(kind, name, data, step, description, **attrs):
    if not isinstance(name, str):
        raise TypeError("a summary's name (its tag) must be a str, got %r" % (name,))
    step_tensor = _staged_step(step)
    condition = _staged_condition()
    inputs = [data] + [t for t in (step_tensor, condition) if t is not None]
    attrs.update(kind=kind, tag=name, description=description or "",
                 has_step=step_tensor is not None, has_condition=condition is not None,
                 writer=writers.default_writer_of_this_trace())
    return execute(OPS["WriteSummary"], inputs, attrs, name="write_" + kind)[0]


def scalar(name, data, step=None, description=None):
    """Writes scalar `data` (as float32) under tag `name` at `step` (default: the default
    step) to the default writer, for TensorBoard's scalars dashboard; returns a bool tensor,
    whether it wrote (False without a writer or when `record_if` says no)."""
    tensor = common.convert_to_tensor(data, dtype_hint=dtypes.float32)
    if tensor.dtype.kind not in ("float", "int", "bool"):
        raise TypeError("tf.summary.scalar: data must be real numbers, got a %s tensor"
                        % tensor.dtype.name)
    shape = tensor._shape_tuple()
    if shape is not None and len(shape) != 0:
        raise ValueError("tf.summary.scalar: data must be a scalar, got shape %s" % (shape,))
    return _write("scalar", name, tensor, step, description)


def histogram(name, data, step=None, buckets=None, description=None):
    """Writes the histogram of `data` (any shape, as float64) in `buckets` (30) equal-width
    buckets under tag `name`, for TensorBoard's histograms dashboard; returns whether it
    wrote."""
    tensor = common.convert_to_tensor(data, dtype_hint=dtypes.float32)
    if tensor.dtype.kind not in ("float", "int", "bool"):
        raise TypeError("tf.summary.histogram: data must be real numbers, got a %s tensor"
                        % tensor.dtype.name)
    bucket_count = DEFAULT_BUCKET_COUNT if buckets is None else int(buckets)
    if bucket_count < 0:
        raise ValueError("tf.summary.histogram: buckets must be >= 0, got %d" % bucket_count)
    return _write("histogram", name, tensor, step, description, buckets=bucket_count)


def text(name, data, step=None, description=None):
    """Writes string tensor `data` (any shape; Markdown) under tag `name`, for TensorBoard's
    text dashboard; returns whether it wrote."""
    tensor = common.convert_to_tensor(data, dtype_hint=dtypes.string)
    if tensor.dtype is not dtypes.string:
        raise TypeError("tf.summary.text: data must be strings, got a %s tensor"
                        % tensor.dtype.name)
    return _write("text", name, tensor, step, description)


def image(name, data, step=None, max_outputs=3, description=None):
    """Writes up to `max_outputs` images of `data`, a [k, height, width, channels] tensor
    (channels 1, 2, 3 or 4; floats in [0, 1] or uint8), as PNGs under tag `name`, for
    TensorBoard's images dashboard; returns whether it wrote."""
    tensor = common.convert_to_tensor(data, dtype_hint=dtypes.float32)
    if not (tensor.dtype.is_floating or tensor.dtype.name == "uint8"):
        raise TypeError("tf.summary.image: data must be floats in [0, 1] or uint8, got a %s "
                        "tensor" % tensor.dtype.name)
    shape = tensor._shape_tuple()
    if shape is None or len(shape) != 4 or shape[3] not in (1, 2, 3, 4, None):
        raise ValueError("tf.summary.image: data must have shape [k, height, width, channels] "
                         "with 1 to 4 channels, got %s" % (shape,))
    if int(max_outputs) < 0:
        raise ValueError("tf.summary.image: max_outputs must be >= 0, got %d" % max_outputs)
    return _write("image", name, tensor, step, description, max_outputs=int(max_outputs))
